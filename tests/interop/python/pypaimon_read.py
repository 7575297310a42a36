"""Reads Paimon tables with pypaimon and prints one JSON line per table.

    python pypaimon_read.py WAREHOUSE db.table [db.table ...]

Each line: {"table": "db.t", "columns": [...], "rows": [["+I", v1, ...], ...]}
with every value as canonical text (the form tests/interop_helper_test.go
compares): numbers and decimals as written, timestamps as
"YYYY-MM-DD HH:MM:SS[.fraction]", dates ISO, booleans 1/0, NULL as null.
A table that fails prints {"table": ..., "error": ...} and the exit code is 1.
"""
import datetime
import decimal
import json
import sys

from pypaimon import CatalogFactory


def text(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, datetime.datetime):
        s = v.strftime("%Y-%m-%d %H:%M:%S")
        if v.microsecond:
            s += ("." + "%06d" % v.microsecond).rstrip("0")
        return s
    if isinstance(v, datetime.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, float):
        return repr(v)
    return str(v)


def main(argv):
    warehouse, tables = argv[1], argv[2:]
    catalog = CatalogFactory.create({"warehouse": warehouse})
    ok = True
    for name in tables:
        try:
            table = catalog.get_table(name)
            rb = table.new_read_builder()
            splits = rb.new_scan().plan().splits()
            arrow = rb.new_read().to_arrow(splits)
            cols = list(arrow.column_names)
            rows = [["+I"] + [text(r[c]) for c in cols] for r in arrow.to_pylist()]
            print(json.dumps({"table": name, "op": "read", "columns": cols, "rows": rows}))
        except Exception as e:  # report and go on with the next table
            ok = False
            print(json.dumps({"table": name, "op": "error", "error": repr(e)}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
