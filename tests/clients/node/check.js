// mysql2 (default settings) against lakesql: node check.js PORT TABLE.
// Prints one line per check; exits 1 on the first failure.
'use strict';
const mysql = require('mysql2/promise');

const port = Number(process.argv[2]);
const table = process.argv[3];

function check(name, got, want) {
  const g = JSON.stringify(got), w = JSON.stringify(want);
  if (g !== w) {
    console.log(`FAIL ${name}: got ${g}, want ${w}`);
    process.exit(1);
  }
  console.log(`ok   ${name}: ${g}`);
}

async function main() {
  const opts = { host: '127.0.0.1', port, user: 'root', database: 'default' };
  const a = await mysql.createConnection(opts);
  const b = await mysql.createConnection(opts);
  await a.query(`CREATE TABLE ${table} (id BIGINT PRIMARY KEY, v VARCHAR(40), flag BOOLEAN)`);
  await a.execute(`INSERT INTO ${table} VALUES (?, ?, ?)`, [1, 'x', true]);

  // Text protocol UPDATE: affected (changed) rows and the info's changedRows.
  let [r] = await a.query(`UPDATE ${table} SET v = 'y' WHERE id = 1`);
  check('query() UPDATE affectedRows/changedRows', [r.affectedRows, r.changedRows], [1, 1]);
  [r] = await a.query(`UPDATE ${table} SET v = 'y' WHERE id = 1`);
  check('query() UPDATE of an unchanged row', [r.affectedRows, r.changedRows], [1, 0]);

  // Binary protocol (execute): prepared statements.
  [r] = await a.execute(`UPDATE ${table} SET v = ? WHERE id = ?`, ['z', 1]);
  check('execute() UPDATE affectedRows', r.affectedRows, 1);
  console.log(`info execute() UPDATE changedRows: ${r.changedRows} (vitess sends no info in a COM_STMT_EXECUTE OK packet)`);
  let [rows] = await a.execute(`SELECT v, flag FROM ${table} WHERE id = ?`, [1]);
  check('execute() SELECT', [rows[0].v, rows[0].flag], ['z', 1]);
  [rows] = await a.execute(`EXPLAIN SELECT * FROM ${table} WHERE id = ?`, [1]);
  check('execute() EXPLAIN … WHERE id = ?', rows[0].id, 1);
  try {
    await a.execute(`SELECT * FROM ${table} AS OF ?`, [1]);
    check('execute() AS OF ? is refused', 'accepted', 'error 1235');
  } catch (e) {
    check('execute() AS OF ? is refused', [e.errno, e.sqlState], [1235, '42000']);
  }
  [rows] = await a.execute('SELECT ? AS s', ['AS OF ?']);
  check('execute() with AS OF ? inside a literal', rows[0].s, 'AS OF ?');

  // Transactions.
  await a.beginTransaction();
  await a.query(`INSERT INTO ${table} VALUES (2, 'w', false)`);
  let [c] = await b.query(`SELECT COUNT(*) AS n FROM ${table}`);
  check('uncommitted insert invisible to another connection', Number(c[0].n), 1);
  await a.rollback();
  [c] = await b.query(`SELECT COUNT(*) AS n FROM ${table}`);
  check('rollback: row gone', Number(c[0].n), 1);

  try {
    await a.query('SELECT * FROM no_such_table');
  } catch (e) {
    check('unknown table', [e.errno, e.sqlState], [1146, '42S02']);
  }
  await a.end();
  await b.end();
  console.log('PASS');
}

main().catch((e) => { console.log('FAIL', e); process.exit(1); });
