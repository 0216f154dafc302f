"""Loads the shared test vectors (tests/vectors/*.json), computes each vector's capabilities
exactly as tests/vectors/README.md defines them, and replays a vector through the public
``sparsetable`` API only.

Expected results come from the vector files; nothing here derives them from the engine.
A vector whose capabilities are not all in ``SUPPORTED`` is not replayed (and reported as
skipped by capability); any field this runner does not know adds a ``field:...`` capability,
so a newer vector is skipped by capability rather than silently tested less.
"""

from __future__ import annotations

import base64
import datetime
import json
from pathlib import Path
from typing import Any

import sparsetable as st

VECTORS_DIR = Path(__file__).resolve().parents[3] / "tests" / "vectors"
DEFAULT_CLOCK_MICROS = 1_700_000_000_000_000
INSTANCE = "vectors"

# What the Python front-end exposes (README: "capabilities").
SUPPORTED = frozenset(
    {
        "op:create_table",
        "op:mutate_row",
        "op:mutate_rows",
        "op:read_row",
        "op:read_rows",
        "op:modify_column_families",
        "op:get_table",
        "op:list_tables",
        "op:delete_table",
        "op:advance_clock",
        "op:sample_row_keys",
        "op:drop_row_range",
        "op:update_table",
        "op:collect_garbage",
        "op:create_instance",
        "gc_mode:background",
        "mutation:set_cell",
        "mutation:delete_from_column",
        "mutation:delete_from_family",
        "mutation:delete_from_row",
        "read:row_set",
        "read:rows_limit",
        "schema:gc_rule",
        "schema:granularity",
        "schema:deletion_protection",
        "schema:initial_splits",
        "op:check_and_mutate_row",
        "op:read_modify_write_row",
        "error",
        "clock",
    }
    | {
        f"filter:{kind}"
        for kind in (
            "chain", "interleave", "condition", "sink", "pass_all_filter", "block_all_filter",
            "row_key_regex_filter", "row_sample_filter", "family_name_regex_filter",
            "column_qualifier_regex_filter", "column_range_filter", "timestamp_range_filter",
            "value_regex_filter", "value_range_filter", "cells_per_row_offset_filter",
            "cells_per_row_limit_filter", "cells_per_column_limit_filter",
            "strip_value_transformer", "apply_label_transformer", "value_bitmask_filter",
        )
    }
)

# Fields each op may carry that this runner understands (anything else -> a field: capability).
KNOWN_OP_FIELDS = {
    "create_table": {"table", "spec", "expect_error", "expect_message"},
    "mutate_row": {"table", "row_key", "mutations", "mutations_repeat", "value_size", "expect_error", "expect_message"},
    "read_row": {"table", "row_key", "filter", "expect_row", "expect_error", "expect_message"},
    "mutate_rows": {"table", "entries", "mutations_repeat", "expect_statuses", "expect_error", "expect_message"},
    "read_rows": {"table", "row_set", "filter", "rows_limit", "reversed", "expect_rows", "expect_error", "expect_message"},
    "modify_column_families": {"table", "modifications", "expect_error", "expect_message"},
    "get_table": {"table", "expect_families", "expect_deletion_protection", "expect_error", "expect_message"},
    "list_tables": {"expect_tables", "expect_error", "expect_message"},
    "delete_table": {"table", "expect_error", "expect_message"},
    "advance_clock": {"micros"},
    "sample_row_keys": {"table", "expect_keys", "expect_error", "expect_message"},
    "drop_row_range": {"table", "row_key_prefix", "delete_all_data_from_table", "expect_error", "expect_message"},
    "update_table": {"table", "deletion_protection", "expect_error", "expect_message"},
    "check_and_mutate_row": {
        "table", "row_key", "predicate_filter", "true_mutations", "false_mutations", "expect_matched", "expect_error",
        "expect_message",
    },
    "read_modify_write_row": {"table", "row_key", "rules", "expect_row", "expect_error", "expect_message"},
    "collect_garbage": {"table", "expect_error", "expect_message"},
    "create_instance": {"project", "instance_id", "cluster_id", "expect_error", "expect_message"},
}
# The one cluster a create_instance op gives its instance unless the op names its id (README,
# "Ops").
VECTOR_CLUSTER = ("cluster-1", "us-central1-b")
KNOWN_VECTOR_FIELDS = {"name", "description", "clock_micros", "gc_mode", "tables", "ops"}
# Table specs, families, mutations, filters, row sets, rules and rows are proto3 JSON
# (lowerCamelCase names, bytes in base64, int64 as decimal strings).
KNOWN_SPEC_FIELDS = {"columnFamilies", "granularity", "deletionProtection", "initialSplits"}
KNOWN_FAMILY_FIELDS = {"gcRule", "valueType"}


def load_vectors() -> list[dict[str, Any]]:
    """Every vector, by file then position; vector names must be unique."""
    vectors: list[dict[str, Any]] = []
    names: set[str] = set()
    for path in sorted(VECTORS_DIR.glob("*.json")):
        for v in json.loads(path.read_text())["vectors"]:
            assert v["name"] not in names, f"duplicate vector name {v['name']}"
            names.add(v["name"])
            vectors.append(v)
    return vectors


def mutate_row_mutations(op: dict[str, Any]) -> list[st.Mutation]:
    """A mutate_row op's mutations as the API takes them, with its generated values
    (README, "Generated values"): every SetCell's value ``value_size`` bytes of ``v``, and
    the list sent ``mutations_repeat`` times over."""
    specs = op["mutations"]
    if "value_size" in op:
        value = base64.b64encode(b"v" * op["value_size"]).decode()
        specs = [{"setCell": {**m["setCell"], "value": value}} if "setCell" in m else m for m in specs]
    return [mutation(m) for m in specs] * op.get("mutations_repeat", 1)


def mutate_rows_entries(op: dict[str, Any]) -> list[tuple[bytes, list[st.Mutation]]]:
    """A mutate_rows op's entries as the API takes them, with its generated values (README,
    "Generated values"): every entry's mutations sent ``mutations_repeat`` times over."""
    repeat = op.get("mutations_repeat", 1)
    return [(b64(e.get("rowKey", "")), [mutation(m) for m in e["mutations"]] * repeat) for e in op["entries"]]


def to_bytes(value: Any) -> bytes:
    """A vector's bytes: a string is its UTF-8, {"base64": ...} is decoded, {"int64": N} is
    N's 8 big-endian two's-complement bytes."""
    if isinstance(value, str):
        return value.encode()
    if "int64" in value:
        return int(value["int64"]).to_bytes(8, "big", signed=True)
    return base64.b64decode(value["base64"], validate=True)


def b64(text: str) -> bytes:
    """A proto3 JSON bytes field."""
    return base64.b64decode(text, validate=True)


def snake(name: str) -> str:
    """setCell -> set_cell: capability names keep the proto's own field names."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def duration_micros(text: str) -> int:
    """A proto3 JSON Duration ("3.5s") in microseconds (truncated, as Bigtable does)."""
    assert text.endswith("s"), f"not a duration: {text}"
    body = text[:-1]
    sign = -1 if body.startswith("-") else 1
    whole, _, frac = body.lstrip("-").partition(".")
    return sign * (int(whole) * 1_000_000 + int((frac + "000000")[:6]))


# ---------------------------------------------------------------- capabilities


def _filter_caps(f: Any, caps: set[str]) -> None:
    if f == {}:
        # A RowFilter with no kind set: no filter class expresses one (nor in Google's
        # clients), so such vectors are not this runner's ("filter:empty" is unsupported).
        caps.add("filter:empty")
    if isinstance(f, dict):
        for kind, arg in f.items():
            caps.add(f"filter:{snake(kind)}")
            if kind in ("chain", "interleave"):
                for sub in arg.get("filters", []):
                    _filter_caps(sub, caps)
            elif kind == "condition":
                for key in ("predicateFilter", "trueFilter", "falseFilter"):
                    if key in arg:
                        _filter_caps(arg[key], caps)


def _family_caps(family: dict[str, Any], caps: set[str]) -> None:
    if "gcRule" in family:
        caps.add("schema:gc_rule")
        if _has_max_age(family["gcRule"]):
            caps.add("clock")
    if "valueType" in family:
        caps.add("schema:value_type")
    caps.update(f"field:family.{k}" for k in family if k not in KNOWN_FAMILY_FIELDS)


def _has_max_age(rule: dict[str, Any]) -> bool:
    if "maxAge" in rule:
        return True
    return any(
        _has_max_age(r) for key in ("intersection", "union") for r in rule.get(key, {}).get("rules", [])
    )


def _spec_caps(spec: dict[str, Any], caps: set[str]) -> None:
    for family in spec.get("columnFamilies", {}).values():
        _family_caps(family, caps)
    for key in ("granularity", "deletionProtection", "initialSplits"):
        if key in spec:
            caps.add(f"schema:{snake(key)}")
    caps.update(f"field:spec.{k}" for k in spec if k not in KNOWN_SPEC_FIELDS)


def _mutation_caps(mutations: list[dict[str, Any]], caps: set[str]) -> None:
    for m in mutations:
        for kind, body in m.items():
            caps.add(f"mutation:{snake(kind)}")
            if kind == "setCell" and int(body.get("timestampMicros", 0)) == -1:
                caps.add("clock")


def capabilities(vector: dict[str, Any]) -> set[str]:
    """The vector's capabilities, as tests/vectors/README.md lists them."""
    caps: set[str] = set()
    caps.update(f"field:vector.{k}" for k in vector if k not in KNOWN_VECTOR_FIELDS)
    if vector.get("tables"):
        caps.add("op:create_table")
    for spec in vector.get("tables", {}).values():
        _spec_caps(spec, caps)
    if "clock_micros" in vector:
        caps.add("clock")
    if vector.get("gc_mode") == "background":
        caps.add("gc_mode:background")
    for op in vector["ops"]:
        name = op["op"]
        caps.add(f"op:{name}")
        known = KNOWN_OP_FIELDS.get(name)
        if known is not None:
            caps.update(f"field:{name}.{k}" for k in op if k != "op" and k not in known)
        if "expect_error" in op or any(s != "OK" for s in op.get("expect_statuses", [])):
            caps.add("error")
        if name == "create_table":
            _spec_caps(op.get("spec", {}), caps)
        for key in ("mutations", "true_mutations", "false_mutations"):
            _mutation_caps(op.get(key, []), caps)
        for entry in op.get("entries", []):  # MutateRowsRequest.Entry
            _mutation_caps(entry.get("mutations", []), caps)
        if name in ("read_row", "read_rows", "check_and_mutate_row"):
            _filter_caps(op.get("filter"), caps)
            _filter_caps(op.get("predicate_filter"), caps)
        if name == "read_rows":
            for key in ("row_set", "rows_limit", "reversed"):
                if key in op:
                    caps.add(f"read:{key}")
        if name == "modify_column_families":
            for mod in op.get("modifications", []):
                for key in ("create", "update"):
                    if key in mod:
                        _family_caps(mod[key], caps)
        if name in ("advance_clock", "read_modify_write_row"):
            caps.add("clock")
    return caps


# ---------------------------------------------------------------- conversion to the public API


def gc_rule(spec: dict[str, Any]) -> st.GarbageCollectionRule:
    ((kind, arg),) = spec.items()
    if kind == "maxNumVersions":
        return st.MaxVersionsGCRule(int(arg))
    if kind == "maxAge":
        return st.MaxAgeGCRule(datetime.timedelta(microseconds=duration_micros(arg)))
    if kind == "intersection":
        return st.GCRuleIntersection([gc_rule(r) for r in arg.get("rules", [])])
    if kind == "union":
        return st.GCRuleUnion([gc_rule(r) for r in arg.get("rules", [])])
    raise AssertionError(f"unknown gc rule {kind}")


def gc_rule_json(rule: st.GarbageCollectionRule) -> dict[str, Any]:
    """A rule as plain data (ages in microseconds), to compare a reported rule with an expected
    one however the vector spells its Duration."""
    if isinstance(rule, st.MaxVersionsGCRule):
        return {"max_num_versions": rule.max_num_versions}
    if isinstance(rule, st.MaxAgeGCRule):
        age = rule.max_age
        return {"max_age_micros": (age.days * 86_400 + age.seconds) * 1_000_000 + age.microseconds}
    if isinstance(rule, st.GCRuleIntersection):
        return {"intersection": [gc_rule_json(r) for r in rule.rules]}
    if isinstance(rule, st.GCRuleUnion):
        return {"union": [gc_rule_json(r) for r in rule.rules]}
    raise AssertionError(f"unknown gc rule {rule!r}")


def family_rule(family: dict[str, Any]) -> st.GarbageCollectionRule | None:
    return gc_rule(family["gcRule"]) if "gcRule" in family else None


def create_table(admin: st.TableAdmin, table_id: str, spec: dict[str, Any]) -> None:
    admin.create_table(
        table_id,
        {name: family_rule(f) for name, f in spec.get("columnFamilies", {}).items()},
        granularity=spec.get("granularity", "MILLIS"),
        deletion_protection=spec.get("deletionProtection", False),
        initial_splits=[b64(s.get("key", "")) for s in spec.get("initialSplits", [])],
    )


def mutation(spec: dict[str, Any]) -> st.Mutation:
    ((kind, m),) = spec.items()
    family, qualifier = m.get("familyName", ""), b64(m.get("columnQualifier", ""))
    if kind == "setCell":
        return st.SetCell(family, qualifier, b64(m.get("value", "")), int(m.get("timestampMicros", 0)))
    if kind == "deleteFromColumn":
        time_range = m.get("timeRange", {})
        start, end = time_range.get("startTimestampMicros"), time_range.get("endTimestampMicros")
        return st.DeleteRangeFromColumn(
            family,
            qualifier,
            None if start is None else int(start),
            None if end is None else int(end),
        )
    if kind == "deleteFromFamily":
        return st.DeleteAllFromFamily(family)
    if kind == "deleteFromRow":
        return st.DeleteAllFromRow()
    raise AssertionError(f"unknown mutation {kind}")


def _bound_args(spec: dict[str, Any], what: str) -> tuple[Any, Any, Any, Any]:
    """(start, end, inclusive_start, inclusive_end) of a start*Closed / start*Open range object."""
    start = spec.get(f"start{what}Closed", spec.get(f"start{what}Open"))
    end = spec.get(f"end{what}Closed", spec.get(f"end{what}Open"))
    return (
        None if start is None else b64(start),
        None if end is None else b64(end),
        None if start is None else f"start{what}Closed" in spec,
        None if end is None else f"end{what}Closed" in spec,
    )


def row_filter(spec: dict[str, Any]) -> st.RowFilter:
    """A vector FILTER as the public filter classes (Google's row_filters names)."""
    assert spec, "a vector with an empty filter is not eligible (filter:empty)"
    ((camel_kind, arg),) = spec.items()
    kind = snake(camel_kind)
    simple = {
        "sink": st.SinkFilter,
        "pass_all_filter": st.PassAllFilter,
        "block_all_filter": st.BlockAllFilter,
        "strip_value_transformer": st.StripValueTransformerFilter,
        "row_sample_filter": st.RowSampleFilter,
        "family_name_regex_filter": st.FamilyNameRegexFilter,
        "cells_per_row_offset_filter": st.CellsRowOffsetFilter,
        "cells_per_row_limit_filter": st.CellsRowLimitFilter,
        "cells_per_column_limit_filter": st.CellsColumnLimitFilter,
        "apply_label_transformer": st.ApplyLabelFilter,
    }
    regexes = {
        "row_key_regex_filter": st.RowKeyRegexFilter,
        "column_qualifier_regex_filter": st.ColumnQualifierRegexFilter,
        "value_regex_filter": st.ValueRegexFilter,
        "value_bitmask_filter": st.ValueBitmaskFilter,
    }
    numbers = {"cells_per_row_offset_filter", "cells_per_row_limit_filter", "cells_per_column_limit_filter"}
    if kind in numbers:
        return simple[kind](int(arg))
    if kind == "row_sample_filter":
        return simple[kind](float(arg))
    if kind in simple:
        return simple[kind](arg)
    if kind in regexes:
        return regexes[kind](b64(arg))
    if kind == "chain":
        return st.RowFilterChain([row_filter(f) for f in arg.get("filters", [])])
    if kind == "interleave":
        return st.RowFilterUnion([row_filter(f) for f in arg.get("filters", [])])
    if kind == "condition":
        return st.ConditionalRowFilter(
            row_filter(arg["predicateFilter"]),
            row_filter(arg["trueFilter"]) if "trueFilter" in arg else None,
            row_filter(arg["falseFilter"]) if "falseFilter" in arg else None,
        )
    if kind == "column_range_filter":
        return st.ColumnRangeFilter(arg.get("familyName", ""), *_bound_args(arg, "Qualifier"))
    if kind == "value_range_filter":
        return st.ValueRangeFilter(*_bound_args(arg, "Value"))
    if kind == "timestamp_range_filter":
        start, end = arg.get("startTimestampMicros"), arg.get("endTimestampMicros")
        return st.TimestampRangeFilter(None if start is None else int(start), None if end is None else int(end))
    raise AssertionError(f"unknown filter {kind}")


def rmw_rule(spec: dict[str, Any]) -> st.ReadModifyWriteRule:
    family, qualifier = spec.get("familyName", ""), b64(spec.get("columnQualifier", ""))
    if "appendValue" in spec:
        return st.AppendValueRule(family, qualifier, b64(spec["appendValue"]))
    return st.IncrementRule(family, qualifier, int(spec["incrementAmount"]))


def row_range(spec: dict[str, Any]) -> st.RowRange:
    start = spec.get("startKeyClosed", spec.get("startKeyOpen"))
    end = spec.get("endKeyClosed", spec.get("endKeyOpen"))
    return st.RowRange(
        start_key=None if start is None else b64(start),
        end_key=None if end is None else b64(end),
        start_is_inclusive="startKeyOpen" not in spec,
        end_is_inclusive="endKeyClosed" in spec,
    )


def modification(spec: dict[str, Any]) -> st.ColumnFamilyModification:
    if "create" in spec:
        return st.ColumnFamilyModification.create(spec["id"], family_rule(spec["create"]))
    if "update" in spec:
        return st.ColumnFamilyModification.update(spec["id"], family_rule(spec["update"]))
    if spec.get("drop"):
        return st.ColumnFamilyModification.drop(spec["id"])
    raise AssertionError(f"unknown modification {spec}")


def row_json(row: st.Row | None) -> Any:
    """A returned row in the vector's shape (bytes as bytes), checking cells carry its key."""
    if row is None:
        return None
    for c in row.cells:
        assert c.row_key == row.row_key, f"cell row_key {c.row_key!r} != row key {row.row_key!r}"
    return {
        "key": row.row_key,
        "cells": [
            {
                "family": c.family,
                "qualifier": c.qualifier,
                "timestamp_micros": c.timestamp_micros,
                "value": c.value,
                "labels": c.labels,
            }
            for c in row.cells
        ],
    }


def expected_row(spec: Any) -> Any:
    """A proto3 JSON Row (families, columns, cells) flattened into row_json's shape."""
    if spec is None:
        return None
    return {
        "key": b64(spec.get("key", "")),
        "cells": [
            {
                "family": f.get("name", ""),
                "qualifier": b64(col.get("qualifier", "")),
                "timestamp_micros": int(c.get("timestampMicros", 0)),
                "value": b64(c.get("value", "")),
                "labels": c.get("labels", []),
            }
            for f in spec.get("families", [])
            for col in f.get("columns", [])
            for c in col.get("cells", [])
        ],
    }


# ---------------------------------------------------------------- replay


def says(message: str, expected: str) -> bool:
    """Whether an error's message says the rule's words: exactly, or after where in the request
    the error is (a context ending in ": "), as the core runner's `says` (tests/src/lib.rs)."""
    if message == expected:
        return True
    return message.endswith(expected) and message[: len(message) - len(expected)].endswith(": ")


def replay(vector: dict[str, Any]) -> None:
    """Runs every op of the vector; raises AssertionError at the first mismatch."""
    clock = st.ManualClock(vector.get("clock_micros", DEFAULT_CLOCK_MICROS))
    # A vector without gc_mode holds in both modes; it runs in the default one.
    client = st.BigtableDataClient(clock=clock, gc_mode=vector.get("gc_mode", "immediate"))
    admin = client.table_admin(INSTANCE)
    for table_id, spec in vector.get("tables", {}).items():
        create_table(admin, table_id, spec)
    for i, op in enumerate(vector["ops"]):
        where = f"{vector['name']} op {i} ({op['op']})"
        expect_error = op.get("expect_error")
        try:
            result = _run_op(client, admin, clock, op)
        except st.SparsetableError as e:
            assert expect_error is not None, f"{where}: unexpected error {e.code}: {e}"
            assert e.code == expect_error, f"{where}: expected {expect_error}, got {e.code}: {e}"
            assert type(e).code == expect_error, f"{where}: class {type(e).__name__} has code {type(e).code}"
            if "expect_message" in op:
                assert says(e.message, op["expect_message"]), (
                    f"{where}: expected the core's message {op['expect_message']!r}, got {e.message!r}"
                )
            continue
        assert expect_error is None, f"{where}: expected error {expect_error}, got success {result!r}"
        _check_result(where, op, result)


def _run_op(client: st.BigtableDataClient, admin: st.TableAdmin, clock: st.ManualClock, op: dict[str, Any]) -> Any:
    name = op["op"]
    table_id = op.get("table", "t")
    table = client.get_table(INSTANCE, table_id)
    if name == "create_table":
        create_table(admin, table_id, op["spec"])
        return None
    if name == "mutate_row":
        table.mutate_row(to_bytes(op["row_key"]), mutate_row_mutations(op))
        return None
    if name == "mutate_rows":
        # One status per entry: None for success, else the entry's error (its code).
        return ["OK" if e is None else e.code for e in table.mutate_rows(mutate_rows_entries(op))]
    if name == "read_row":
        f = row_filter(op["filter"]) if "filter" in op else None
        return row_json(table.read_row(to_bytes(op["row_key"]), row_filter=f))
    if name == "read_rows":
        row_set = op.get("row_set", {})
        query = st.ReadRowsQuery(
            row_keys=[b64(k) for k in row_set.get("rowKeys", [])],
            row_ranges=[row_range(r) for r in row_set.get("rowRanges", [])],
            limit=op.get("rows_limit"),
            row_filter=row_filter(op["filter"]) if "filter" in op else None,
        )
        return [row_json(r) for r in table.read_rows(query)]
    if name == "modify_column_families":
        admin.modify_column_families(table_id, [modification(m) for m in op["modifications"]])
        return None
    if name == "get_table":
        info = admin.get_table(table_id)
        return {
            "families": {
                n: ({} if r is None else {"gc_rule": gc_rule_json(r)}) for n, r in info.column_families.items()
            },
            "deletion_protection": info.deletion_protection,
        }
    if name == "list_tables":
        return [t.table_id for t in admin.list_tables()]
    if name == "delete_table":
        admin.delete_table(table_id)
        return None
    if name == "check_and_mutate_row":
        return table.check_and_mutate_row(
            to_bytes(op["row_key"]),
            row_filter(op["predicate_filter"]) if "predicate_filter" in op else None,
            true_case_mutations=[mutation(m) for m in op.get("true_mutations", [])],
            false_case_mutations=[mutation(m) for m in op.get("false_mutations", [])],
        )
    if name == "read_modify_write_row":
        return row_json(table.read_modify_write_row(to_bytes(op["row_key"]), [rmw_rule(r) for r in op["rules"]]))
    if name == "sample_row_keys":
        return table.sample_row_keys()
    if name == "drop_row_range":
        if op.get("delete_all_data_from_table"):
            admin.drop_row_range(table_id, delete_all_data_from_table=True)
        else:
            admin.drop_row_range(table_id, row_key_prefix=to_bytes(op["row_key_prefix"]))
        return None
    if name == "update_table":
        admin.update_table(table_id, deletion_protection=op["deletion_protection"])
        return None
    if name == "advance_clock":
        clock.advance_micros(op["micros"])
        return None
    if name == "collect_garbage":
        admin.collect_garbage(table_id)
        return None
    if name == "create_instance":
        # Google's classic Instance Admin, as a user creates an instance: the project is the
        # client's, the instance a handle on the client, its cluster a handle on the instance.
        instance = st.Client(project=op["project"], admin=True, clock=clock).instance(op["instance_id"])
        cluster_id, zone = op.get("cluster_id", VECTOR_CLUSTER[0]), VECTOR_CLUSTER[1]
        instance.create(clusters=[instance.cluster(cluster_id, location_id=zone, serve_nodes=1)])
        return None
    raise AssertionError(f"op {name} is not supported by this runner")


def _check_result(where: str, op: dict[str, Any], result: Any) -> None:
    name = op["op"]
    if name == "read_row":
        assert "expect_row" in op, f"{where}: read_row needs expect_row or expect_error"
        assert result == expected_row(op["expect_row"]), f"{where}:\n expected {expected_row(op['expect_row'])}\n got {result}"
    elif name == "read_rows":
        assert "expect_rows" in op, f"{where}: read_rows needs expect_rows or expect_error"
        expected = [expected_row(r) for r in op["expect_rows"]]
        assert result == expected, f"{where}:\n expected {expected}\n got {result}"
    elif name == "get_table":
        if "expect_families" in op:
            expected = {
                n: ({"gc_rule": gc_rule_json(gc_rule(f["gcRule"]))} if "gcRule" in f else {})
                for n, f in op["expect_families"].items()
            }
            # Compared as lists: the families come in creation order.
            assert list(result["families"].items()) == list(expected.items()), f"{where}: families {result['families']}"
        if "expect_deletion_protection" in op:
            assert result["deletion_protection"] == op["expect_deletion_protection"], f"{where}: deletion_protection"
    elif name == "mutate_rows":
        if "expect_statuses" in op:
            assert result == op["expect_statuses"], f"{where}: statuses {result}"
    elif name == "check_and_mutate_row":
        assert "expect_matched" in op, f"{where}: check_and_mutate_row needs expect_matched or expect_error"
        assert result is op["expect_matched"], f"{where}: matched {result}"
    elif name == "read_modify_write_row":
        assert "expect_row" in op, f"{where}: read_modify_write_row needs expect_row or expect_error"
        assert result == expected_row(op["expect_row"]), f"{where}:\n expected {expected_row(op['expect_row'])}\n got {result}"
    elif name == "sample_row_keys":
        assert "expect_keys" in op, f"{where}: sample_row_keys needs expect_keys or expect_error"
        keys = [k for k, _ in result]
        assert keys == [to_bytes(k) for k in op["expect_keys"]], f"{where}: keys {keys}"
        offsets = [o for _, o in result]
        assert offsets == sorted(offsets), f"{where}: offsets decrease: {offsets}"
    elif name == "list_tables" and "expect_tables" in op:
        assert result == op["expect_tables"], f"{where}: tables {result}"
