"""SQLAlchemy reflection and pandas round trip against lakesql.

Run by tests/server_reflect_test.go as: python reflect.py HOST PORT DB.
Prints one JSON object with what reflection returned; raises (non-zero exit)
on any error. Every warning is an error: "Did not recognize type" and
"Unknown schema content" would mean lakesql's SHOW CREATE TABLE is not
MySQL's form.
"""
import json
import sys
import warnings

warnings.simplefilter("error")

import pandas as pd  # noqa: E402
import sqlalchemy as sa  # noqa: E402

host, port, db = sys.argv[1], int(sys.argv[2]), sys.argv[3]
eng = sa.create_engine(f"mysql+pymysql://root@{host}:{port}/{db}")
out = {}
insp = sa.inspect(eng)
out["tables"] = sorted(insp.get_table_names())
for t in ("orders", "plain"):
    out[t] = {
        "columns": [[c["name"], str(c["type"]), c["nullable"]] for c in insp.get_columns(t)],
        "pk": insp.get_pk_constraint(t)["constrained_columns"],
        "comment": insp.get_table_comment(t)["text"],
    }
    tbl = sa.Table(t, sa.MetaData(), autoload_with=eng)
    out[t]["autoload"] = [c.name for c in tbl.columns]

# The rest of what Superset asks through SQLAlchemy's inspector when it
# lists schemas and tables and shows a table's metadata
# (superset/databases/utils.py get_table_metadata, models/core.py), and what
# its MySQL engine spec runs (superset/db_engine_specs/mysql.py).
out["schemas"] = db in insp.get_schema_names()
out["views"] = insp.get_view_names()
out["has_table"] = [insp.has_table("orders"), insp.has_table("no_such_table"), insp.has_table("t", schema="no_such_db")]
out["orders_meta"] = {
    "foreign_keys": insp.get_foreign_keys("orders"),
    "indexes": insp.get_indexes("orders"),
    "unique": insp.get_unique_constraints("orders"),
    "options": sorted(insp.get_table_options("orders")),
}
with eng.connect() as c, eng.connect() as victim:
    out["sql_require_primary_key"] = c.execute(sa.text("SELECT @@session.sql_require_primary_key")).scalar()
    vid = victim.execute(sa.text("SELECT CONNECTION_ID()")).scalar()
    c.execute(sa.text(f"KILL CONNECTION {vid}"))
    try:
        victim.execute(sa.text("SELECT 1"))
        out["killed"] = False
    except sa.exc.DBAPIError:
        out["killed"] = True
    out["select_star"] = [[str(v) for v in r] for r in c.execute(sa.text(f"SELECT * FROM `{db}`.`plain` LIMIT 100"))]

# pandas: to_sql with its defaults (index=True issues CREATE INDEX), then read back.
df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None]})
df.to_sql("frame", eng)
back = pd.read_sql_table("frame", eng)
out["frame"] = back.sort_values("a").astype(object).where(back.notna(), None).values.tolist()
out["frame_columns"] = list(back.columns)
with eng.connect() as c:
    out["frame_create"] = c.execute(sa.text("SHOW CREATE PAIMON TABLE frame")).fetchone()[1]
print(json.dumps(out))
