"""mysql-connector-python (default settings) against lakesql.

Usage: connector_check.py PORT TABLE."""
import sys

import mysql.connector

port, table = int(sys.argv[1]), sys.argv[2]


def check(name, got, want):
    if got != want:
        print(f"FAIL {name}: got {got!r}, want {want!r}")
        sys.exit(1)
    print(f"ok   {name}: {got!r}")


def connect():
    return mysql.connector.connect(host="127.0.0.1", port=port, user="root", database="default")


a, b = connect(), connect()
print("mysql-connector-python", mysql.connector.__version__, "C extension" if type(a).__name__.startswith("CMySQL") else "pure Python")
check("autocommit off by default", a.autocommit, False)
ca = a.cursor()
ca.execute(f"CREATE TABLE {table} (id BIGINT PRIMARY KEY, v VARCHAR(40), flag BOOLEAN, ts DATETIME(3))")
a.commit()


def count(conn):
    conn.rollback()
    c = conn.cursor()
    c.execute(f"SELECT COUNT(*) FROM {table}")
    n = c.fetchone()[0]
    c.close()
    conn.rollback()
    return n


ca.execute(f"INSERT INTO {table} VALUES (1, 'x', TRUE, '2026-01-02 03:04:05.123')")
a.rollback()
check("rollback: row gone", count(a), 0)
ca.execute(f"INSERT INTO {table} VALUES (2, 'y', TRUE, '2026-01-02 03:04:05.123')")
check("uncommitted insert invisible to another connection", count(b), 0)
a.commit()
check("after commit the other connection sees it", count(b), 1)

p = a.cursor(prepared=True)
p.execute(f"SELECT v, flag, ts FROM {table} WHERE id = %s", (2,))
row = p.fetchone()
check("prepared SELECT", (row[0], row[1], str(row[2])), ("y", 1, "2026-01-02 03:04:05.123000"))
p.execute(f"EXPLAIN SELECT * FROM {table} WHERE id = %s", (2,))
check("prepared EXPLAIN … WHERE id = ?", p.fetchall()[0][0], 1)
try:
    p.execute(f"SELECT * FROM {table} AS OF %s", ("2026-01-01 00:00:00",))
    p.fetchall()
    check("prepared AS OF ?", "accepted", "error 1235")
except mysql.connector.Error as e:
    check("prepared AS OF ?", (e.errno, e.sqlstate), (1235, "42000"))
# vitess parses a COM_STMT_PREPARE before any handler sees it, so the
# spellings GMS's grammar lacks fail there (1105 syntax error), not with
# 1235; what matters here is a clear error and a live connection.
for q in (f"SELECT * FROM {table} FOR TIMESTAMP AS OF %s", f"SELECT * FROM {table} AS OF TIMESTAMP %s"):
    try:
        p.execute(q, ("2026-01-01 00:00:00",))
        p.fetchall()
        check(q, "accepted", "an error")
    except mysql.connector.Error as e:
        print(f"ok   prepared {q.split(table)[1].strip()}: error {e.errno} {e.msg[:60]}")
ca.execute("SELECT 1")
check("connection alive", ca.fetchone()[0], 1)
ca.execute(f"EXPLAIN SELECT * FROM {table} WHERE id = 2")
check("EXPLAIN (text protocol)", ca.fetchall()[0][0], 1)
try:
    ca.execute("SELECT * FROM no_such_table")
except mysql.connector.Error as e:
    check("unknown table", (e.errno, e.sqlstate), (1146, "42S02"))
a.rollback()
a.close()
b.close()
print("PASS")
