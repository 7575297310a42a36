"""PyMySQL / mysqlclient in their default mode against lakesql.

Usage: dbapi_check.py pymysql|mysqlclient PORT TABLE. Prints one line per
check and exits non-zero (with the failing check) on the first failure.
"""
import sys

drv, port, table = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if drv == "pymysql":
    import pymysql as m
else:
    import MySQLdb as m


def connect():
    return m.connect(host="127.0.0.1", port=port, user="root", database="default")


def check(name, got, want):
    if got != want:
        print(f"FAIL {name}: got {got!r}, want {want!r}")
        sys.exit(1)
    print(f"ok   {name}: {got!r}")


a, b = connect(), connect()
ca = a.cursor()
check("autocommit off by default (PEP 249)", bool(a.get_autocommit()), False)
ca.execute(f"CREATE TABLE {table} (id BIGINT PRIMARY KEY, v VARCHAR(40), flag BOOLEAN, n INT, d DECIMAL(10,2), ts DATETIME)")
a.commit()


def count(conn):
    conn.rollback()  # end the reader's transaction: see the newest commit
    c = conn.cursor()
    c.execute(f"SELECT COUNT(*) FROM {table}")
    n = c.fetchone()[0]
    conn.rollback()
    return n


ca.execute(f"INSERT INTO {table} VALUES (1, 'x', TRUE, 5, 1.50, '2026-01-02 03:04:05')")
ca.execute(f"SELECT COUNT(*) FROM {table}")
check("own insert visible in the transaction", ca.fetchone()[0], 1)
a.rollback()
check("rollback: row gone", count(a), 0)
check("rollback: other connection never saw it", count(b), 0)

ca.execute(f"INSERT INTO {table} VALUES (2, 'y', FALSE, 6, 2.25, '2026-01-02 03:04:05')")
check("uncommitted insert invisible to another connection", count(b), 0)
a.commit()
check("after commit the other connection sees it", count(b), 1)

# Affected rows as MySQL reports them without CLIENT_FOUND_ROWS: changed rows.
check("UPDATE to a new value: rowcount", ca.execute(f"UPDATE {table} SET v = 'z' WHERE id = 2"), 1)
check("UPDATE to the same value: rowcount", ca.execute(f"UPDATE {table} SET v = 'z' WHERE id = 2"), 0)
ca.execute(f"UPDATE {table} SET n = n + 1 WHERE id = 2")
ca.execute("SELECT ROW_COUNT()")
check("ROW_COUNT() after UPDATE", ca.fetchone()[0], 1)
a.commit()

ca.execute(f"SELECT flag, n, d, ts FROM {table} WHERE id = 2")
row = ca.fetchone()
check("BOOLEAN/INT/DECIMAL/DATETIME values", (row[0], row[1], str(row[2]), str(row[3])), (0, 7, "2.25", "2026-01-02 03:04:05"))
a.commit()

ca.execute(f"EXPLAIN SELECT * FROM {table} WHERE id = 2")
rows = ca.fetchall()
check("EXPLAIN is readable (id, rows)", (rows[0][0], rows[0][9]), (1, None))
ca.execute(f"EXPLAIN FORMAT=JSON SELECT * FROM {table} WHERE id = 2")
check("EXPLAIN FORMAT=JSON", ca.fetchone()[0].lstrip().startswith("{"), True)

ca.execute("SELECT VERSION()")
check("VERSION() agrees with the handshake", ca.fetchone()[0], a.get_server_info())
ca.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
ca.execute("SELECT @@tx_isolation, @@transaction_isolation")
r = ca.fetchone()
check("@@tx_isolation = @@transaction_isolation", r[0], r[1])
ca.execute("DO 1 + 1")
print("ok   DO 1 + 1")

ca.execute(f"PREPARE s FROM 'SELECT v FROM {table} WHERE id = ?'")
ca.execute("SET @x = 2")
ca.execute("EXECUTE s USING @x")
check("SQL PREPARE / EXECUTE", ca.fetchone()[0], "z")
try:
    ca.execute(f"PREPARE p FROM 'SELECT * FROM {table} AS OF ?'")
    check("PREPARE … AS OF ? is refused", "accepted", "error 1235")
except m.Error as e:
    check("PREPARE … AS OF ? is refused", e.args[0], 1235)
ca.execute("SELECT 1")  # the connection survived
check("connection alive after the refused PREPARE", ca.fetchone()[0], 1)

ca.execute(f"INSERT INTO {table} (id, v) VALUES (3, 'see VERSION AS OF 3')")
ca.execute(f"SELECT v, 'TIMESTAMP AS OF 7' FROM {table} WHERE id = 3")
check("literals are never rewritten", ca.fetchone(), ("see VERSION AS OF 3", "TIMESTAMP AS OF 7"))
a.commit()

ca.execute("SHOW TABLE STATUS")
check("SHOW TABLE STATUS has Comment", [d[0] for d in ca.description][-1], "Comment")
for q in ["SHOW TRIGGERS", "SHOW FULL TRIGGERS", "SHOW GRANTS FOR CURRENT_USER()", "SELECT User, Host FROM mysql.user"]:
    ca.execute(q)
    print(f"ok   {q}: {len(ca.fetchall())} rows")
try:
    ca.execute("SELECT * FROM no_such_table")
except m.Error as e:
    check("unknown table", e.args[0], 1146)
a.close()
b.close()
print("PASS")
