"""SQLAlchemy (Core and ORM, default settings; 2.x or 1.4) and pandas
against lakesql.

Usage: sqlalchemy_check.py PORT TABLE."""
import sys

import pandas as pd
import sqlalchemy as sa
from sqlalchemy.orm import Session

SA2 = int(sa.__version__.split(".")[0]) >= 2

port, table = int(sys.argv[1]), sys.argv[2]
url = f"mysql+pymysql://root@127.0.0.1:{port}/default"
engine = sa.create_engine(url)
print("sqlalchemy", sa.__version__, "pandas", pd.__version__)


def check(name, got, want):
    if got != want:
        print(f"FAIL {name}: got {got!r}, want {want!r}")
        sys.exit(1)
    print(f"ok   {name}: {got!r}")


def count():
    with engine.connect() as c:  # a fresh transaction on a pooled connection
        return c.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar()


with engine.connect() as c:
    c.execute(sa.text(f"CREATE TABLE {table} (id BIGINT PRIMARY KEY, name VARCHAR(40), flag BOOLEAN)"))
    if SA2:
        c.commit()  # 1.4 autocommits DDL itself

with engine.connect() as c:
    tx = c.begin()
    c.execute(sa.text(f"INSERT INTO {table} VALUES (1, 'a', TRUE)"))
    check("Connection.begin(): own insert visible", c.execute(sa.text(f"SELECT COUNT(*) FROM {table}")).scalar(), 1)
    check("Connection.begin(): other connection does not see it", count(), 0)
    tx.rollback()
check("Connection.begin() + rollback(): row gone", count(), 0)

with engine.begin() as c:
    c.execute(sa.text(f"INSERT INTO {table} VALUES (2, 'b', FALSE)"))
check("engine.begin() commits", count(), 1)


if SA2:
    from sqlalchemy.orm import DeclarativeBase

    class Base(DeclarativeBase):
        pass
else:
    from sqlalchemy.orm import declarative_base

    Base = declarative_base()


class Item(Base):
    __tablename__ = table
    id = sa.Column(sa.BigInteger, primary_key=True)
    name = sa.Column(sa.String(40))
    flag = sa.Column(sa.Boolean)


with Session(engine) as s:
    s.add(Item(id=3, name="c", flag=True))
    s.flush()
    check("ORM flush visible in the session", s.query(Item).count(), 2)
    s.rollback()
    check("ORM Session.rollback(): row gone", count(), 1)
    s.add(Item(id=4, name="d", flag=True))
    s.commit()
check("ORM Session.commit()", count(), 2)
with Session(engine) as s:
    it = s.get(Item, 4)
    check("ORM reads BOOLEAN as bool", it.flag, True)

df = pd.read_sql(f"SELECT id, name, flag FROM {table} ORDER BY id", engine)
check("pandas.read_sql rows", df["id"].tolist(), [2, 4])
df = pd.read_sql(sa.text(f"EXPLAIN SELECT * FROM {table} WHERE id = 2"), engine)
check("pandas.read_sql of EXPLAIN", int(df["id"][0]), 1)
print("PASS")
