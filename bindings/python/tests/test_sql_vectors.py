"""Replays the shared SQL vectors (tests/vectors/sql, format in its README) through the
installed ``sparsetable`` wheel's ``execute_query``, as a user of Google's data client would
call it: typed parameters (``SqlType``), rows by position. Results are brought to the README's
JSON forms by the column types the query's metadata reports, then compared with the vector's.
"""

from __future__ import annotations

import datetime
import json
import math
from typing import Any

import pytest
import sparsetable as st
import vectors_support as vs
from sparsetable.data import SetCell
from sparsetable.data.execute_query import SqlType

SQL_DIR = vs.VECTORS_DIR / "sql"


def _load() -> list[dict[str, Any]]:
    out = []
    for path in sorted(SQL_DIR.glob("*.json")):
        out.extend(json.loads(path.read_text())["vectors"])
    return out


ALL = _load()


def _aggregate_families(vector: dict[str, Any]) -> bool:
    return any("valueType" in fam for spec in vector["tables"].values()
               for fam in spec.get("columnFamilies", {}).values())


# The Python table admin cannot create aggregate families (capability schema:value_type, as
# in test_vectors.py): vectors that need one are skipped, and listed.
VECTORS = [v for v in ALL if not _aggregate_families(v)]
SKIPPED = [v["name"] for v in ALL if _aggregate_families(v)]
SIMPLE = {"BYTES": SqlType.Bytes, "STRING": SqlType.String, "INT64": SqlType.Int64,
          "FLOAT32": SqlType.Float32, "FLOAT64": SqlType.Float64, "BOOL": SqlType.Bool,
          "TIMESTAMP": SqlType.Timestamp, "DATE": SqlType.Date}


def sql_type(spec: Any) -> SqlType.Type:
    if isinstance(spec, str):
        return SIMPLE[spec]()
    if "ARRAY" in spec:
        return SqlType.Array(sql_type(spec["ARRAY"]))
    key, value = spec["MAP"]
    return SqlType.Map(sql_type(key), sql_type(value))


def param_value(value: Any, ty: SqlType.Type) -> Any:
    """A vector's parameter VALUE as the Python value a user passes."""
    if value is None:
        return None
    if isinstance(ty, SqlType.Bytes):
        return vs.to_bytes(value)
    if isinstance(ty, SqlType.Timestamp):
        return datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(microseconds=value)
    if isinstance(ty, SqlType.Date):
        return datetime.date.fromisoformat(value)
    if isinstance(ty, SqlType.Array):
        return [param_value(v, ty.element_type) for v in value]
    return value


def canon_expected(value: Any, ty: SqlType.Type) -> Any:
    """A vector's result VALUE in a comparable form, read by the column's type."""
    if value is None:
        return None
    if isinstance(ty, SqlType.Bytes):
        return vs.to_bytes(value)
    if isinstance(ty, (SqlType.Float32, SqlType.Float64)):
        return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(value, value)) if isinstance(value, str) else float(value)
    if isinstance(ty, SqlType.Array):
        return [canon_expected(v, ty.element_type) for v in value]
    if isinstance(ty, SqlType.Map):
        return [[canon_expected(k, ty.key_type), canon_expected(v, ty.value_type)] for k, v in value]
    if isinstance(ty, SqlType.Struct):
        return [canon_expected(v, t) for v, (_, t) in zip(value, ty.fields)]
    return value


def canon_got(value: Any, ty: SqlType.Type) -> Any:
    """A returned Python value in the same form."""
    if value is None:
        return None
    if isinstance(ty, SqlType.Timestamp):
        delta = value - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(ty, SqlType.Date):
        return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
    if isinstance(ty, (SqlType.Float32, SqlType.Float64)):
        return float(value)
    if isinstance(ty, SqlType.Array):
        return [canon_got(v, ty.element_type) for v in value]
    if isinstance(ty, SqlType.Map):
        return [[canon_got(k, ty.key_type), canon_got(v, ty.value_type)] for k, v in sorted(value.items())]
    if isinstance(ty, SqlType.Struct):
        return [canon_got(v, t) for v, (_, t) in zip(value, ty.fields)]
    return value


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b or abs(a - b) <= max(1e-12, 1e-6 * max(abs(a), abs(b)))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def run(client: st.BigtableDataClient, q: dict[str, Any]) -> tuple[list, list]:
    types = {n: sql_type(p["type"]) for n, p in q.get("params", {}).items()}
    values = {n: param_value(p["value"], types[n]) for n, p in q.get("params", {}).items()}
    it = client.execute_query(q["sql"], vs.INSTANCE, parameters=values, parameter_types=types)
    rows = [[row[i] for i in range(len(row.fields))] for row in it]
    columns = [(c.column_name, c.column_type) for c in it.metadata.columns]
    return columns, rows


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_sql_vector(vector):
    client = st.BigtableDataClient(clock=st.ManualClock(vector.get("clock_micros", vs.DEFAULT_CLOCK_MICROS)))
    admin = client.table_admin(vs.INSTANCE)
    for table_id, spec in vector["tables"].items():
        vs.create_table(admin, table_id, spec)
    for row in vector["rows"]:
        table_id = row.get("table", "t")
        mutations = [SetCell(f, vs.to_bytes(q), vs.to_bytes(v), timestamp_micros=ts)
                     for f, q, v, ts in row["cells"]]
        client.get_table(vs.INSTANCE, table_id).mutate_row(vs.to_bytes(row["key"]), mutations)
    failures = []
    for q in vector["queries"]:
        try:
            columns, rows = run(client, q)
        except st.SparsetableError as e:
            if q.get("expect_error") != e.code:
                failures.append(f"{q['sql']}: {e.code} {e}")
            continue
        if "expect_error" in q:
            failures.append(f"{q['sql']}: succeeded, expected {q['expect_error']}")
            continue
        types = [t for _, t in columns]
        got = [[canon_got(v, t) for v, t in zip(r, types)] for r in rows]
        want = [[canon_expected(v, t) for v, t in zip(r, types)] for r in q["expect_rows"]]
        if q.get("unordered"):
            ok = len(got) == len(want) and all(any(same(g, w) for g in got) for w in want)
        else:
            ok = same(got, want)
        if not ok:
            failures.append(f"{q['sql']}:\n got  {got}\n want {want}")
    assert not failures, "\n".join(failures)


def test_sql_vectors_ran(capsys):
    queries = sum(len(v["queries"]) for v in VECTORS)
    with capsys.disabled():
        print(f"\n[sql vectors] {len(VECTORS)} of {len(ALL)} replayed ({queries} queries); "
              f"skipped for aggregate families (schema:value_type): {', '.join(SKIPPED) or 'none'}")
    assert VECTORS and queries >= 150
