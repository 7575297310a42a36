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

# pandas: to_sql with its defaults (index=True issues CREATE INDEX), then read back.
df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", None]})
df.to_sql("frame", eng)
back = pd.read_sql_table("frame", eng)
out["frame"] = back.sort_values("a").astype(object).where(back.notna(), None).values.tolist()
out["frame_columns"] = list(back.columns)
with eng.connect() as c:
    out["frame_create"] = c.execute(sa.text("SHOW CREATE PAIMON TABLE frame")).fetchone()[1]
print(json.dumps(out))
