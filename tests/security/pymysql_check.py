"""Security checks through PyMySQL (run by tests/security_clients_test.go).

usage: pymysql_check.py HOST PORT CAFILE
Prints one JSON object: check name -> error number (0 = success) or value.
"""
import json
import sys

import pymysql

host, port, cafile = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = {}


def connect(user, password, **kw):
    return pymysql.connect(host=host, port=port, user=user, password=password,
                           connect_timeout=10, **kw)


def code(fn):
    try:
        fn()
        return 0
    except pymysql.err.MySQLError as e:
        return e.args[0]


out["wrong_password"] = code(lambda: connect("pyuser", "wrong").close())
out["unknown_user"] = code(lambda: connect("nobody", "nothing").close())
out["login"] = code(lambda: connect("pyuser", "pypw").close())

ro = connect("pyro", "ropw", database="s")
cur = ro.cursor()
cur.execute("SELECT COUNT(*) FROM t")
out["ro_count"] = cur.fetchone()[0]
for name, stmt in [("ro_insert", "INSERT INTO t VALUES (10, 10)"),
                   ("ro_update", "UPDATE t SET v = 0"),
                   ("ro_delete", "DELETE FROM t"),
                   ("ro_create", "CREATE TABLE z (id BIGINT PRIMARY KEY)"),
                   ("ro_drop", "DROP TABLE t"),
                   ("ro_outfile", "SELECT 1 INTO OUTFILE '/tmp/pymysql-out'"),
                   ("ro_load_file", "SELECT LOAD_FILE('/etc/passwd')"),
                   ("ro_set_global", "SET GLOBAL local_infile = 1")]:
    out[name] = code(lambda: cur.execute(stmt))
ro.close()

tls = connect("pytls", "tlspw", ssl={"ca": cafile})
cur = tls.cursor()
cur.execute("SELECT CURRENT_USER()")
out["tls_user"] = cur.fetchone()[0]
tls.close()
# PyMySQL 1.2 prefers TLS when the server offers it: disable it explicitly.
out["tls_required_plain"] = code(lambda: connect("pytls", "tlspw", ssl_disabled=True).close())
plain = connect("pytls", "tlspw")  # preferred mode: TLS, so REQUIRE SSL is met
plain.close()


def current_user(user, password, **kw):
    c = connect(user, password, **kw)
    cur = c.cursor()
    cur.execute("SELECT CURRENT_USER()")
    u = cur.fetchone()[0]
    c.close()
    return u


# caching_sha2_password: the first login is a full authentication, which
# needs TLS (lakesql has no RSA keys); then the fast path works without.
tls = {"ssl": {"ca": cafile, "check_hostname": False}}
out["sha_first_plain"] = code(lambda: connect("pysha", "shapw", ssl_disabled=True).close())
out["sha_wrong_tls"] = code(lambda: connect("pysha", "wrong", **tls).close())
out["sha_full_tls"] = current_user("pysha", "shapw", **tls)
out["sha_fast_plain"] = current_user("pysha", "shapw", ssl_disabled=True)
out["sha_wrong_fast"] = code(lambda: connect("pysha", "wrong", ssl_disabled=True).close())
print(json.dumps(out))
