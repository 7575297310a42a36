"""Reads lakesql through its Arrow Flight SQL endpoint with the ADBC Flight
SQL driver, as a data person would, and prints what it got as one JSON
object for tests/flight_adbc_test.go to check.

usage: adbc_check.py URI USER PASSWORD
"""
import json
import sys
import time

import adbc_driver_flightsql.dbapi as flight_sql
import pyarrow.compute as pc

uri, user, password = sys.argv[1:4]
out = {}
with flight_sql.connect(uri, db_kwargs={"username": user, "password": password}, autocommit=True) as conn:
    with conn.cursor() as cur:
        start = time.monotonic()
        cur.execute("SELECT * FROM flt.big")
        table = cur.fetch_arrow_table()
        out["scan_seconds"] = time.monotonic() - start
        out["rows"] = table.num_rows
        out["types"] = {f.name: str(f.type) for f in table.schema}
        out["sum_id"] = pc.sum(table["id"]).as_py()
        out["sum_d"] = pc.sum(table["d"]).as_py()
        out["names"] = len(pc.unique(table["name"]))
        out["nulls"] = table["name"].null_count

        cur.execute("SELECT id, name FROM flt.big WHERE id < 3 ORDER BY id")
        out["first"] = cur.fetch_arrow_table().to_pylist()

        cur.execute("SELECT count(*) AS n FROM flt.big AS OF 1")
        out["as_of_1"] = cur.fetch_arrow_table()["n"][0].as_py()

        cur.execute("SELECT snapshot_id FROM flt.`big$snapshots`")
        out["snapshots"] = cur.fetch_arrow_table().num_rows

        cur.execute("SELECT name FROM flt.big WHERE id = ?", parameters=(42,))
        out["param"] = cur.fetch_arrow_table().to_pylist()

        try:
            cur.execute("INSERT INTO flt.big VALUES (-1, 'x', 0)")
            out["insert"] = "allowed"
        except Exception as e:  # the account may only read
            out["insert"] = str(e)

    objs = conn.adbc_get_objects(depth="tables", db_schema_filter="flt").read_all().to_pylist()
    out["objects"] = [
        (c["catalog_name"], s["db_schema_name"], t["table_name"])
        for c in objs
        for s in (c["catalog_db_schemas"] or [])
        for t in (s["db_schema_tables"] or [])
    ]
    schema = conn.adbc_get_table_schema("big", db_schema_filter="flt")
    out["table_schema"] = {f.name: str(f.type) for f in schema}

print(json.dumps(out))
