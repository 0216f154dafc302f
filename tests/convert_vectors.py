#!/usr/bin/env python3
"""Converts shared test vectors from the first vector format (hand-made mirror shapes:
``{"set_cell": {"family", "qualifier", ...}}``, bytes as UTF-8 strings) to the current one,
whose mutation, filter, GC rule, table, row set, rule, entry and row parts are proto3 JSON
(tests/vectors/README.md).

Usage: ``python3 tests/convert_vectors.py tests/vectors/*.json`` rewrites the files in place;
``--out DIR`` writes the converted files into DIR instead. Only vectors still in the old format
are converted (``is_old``), so it is safe on a file that mixes both, e.g. after merging a branch
that added old-format vectors, and running it twice changes nothing. The conversion is
mechanical: names, shapes and byte encodings change; values, descriptions and expectations do
not. Every file is rewritten in the layout below.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from typing import Any


def raw(b: Any) -> bytes:
    """The bytes an old-format bytes value stands for."""
    if isinstance(b, str):
        return b.encode()
    if "base64" in b:
        return base64.b64decode(b["base64"])
    return int(b["int64"]).to_bytes(8, "big", signed=True)


def b64(b: Any) -> str:
    return base64.b64encode(raw(b)).decode()


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def mutation(m: dict) -> dict:
    ((kind, body),) = m.items()
    if kind == "set_cell":
        return {"setCell": {
            "familyName": body["family"],
            "columnQualifier": b64(body["qualifier"]),
            "timestampMicros": str(body["timestamp_micros"]),
            "value": b64(body["value"]),
        }}
    if kind in ("add_to_cell", "merge_to_cell"):
        value = ({"intValue": str(body["input"])} if kind == "add_to_cell"
                 else {"rawValue": b64(body["input"])})
        return {camel(kind): {
            "familyName": body["family"],
            "columnQualifier": {"rawValue": b64(body["qualifier"])},
            "timestamp": {"rawTimestampMicros": str(body["timestamp_micros"])},
            "input": value,
        }}
    if kind == "delete_from_column":
        out = {"familyName": body["family"], "columnQualifier": b64(body["qualifier"])}
        tr = {camel(k): str(body[k]) for k in ("start_timestamp_micros", "end_timestamp_micros")
              if k in body}
        if tr:
            out["timeRange"] = tr
        return {"deleteFromColumn": out}
    if kind == "delete_from_family":
        return {"deleteFromFamily": {"familyName": body["family"]}}
    if kind == "delete_from_row":
        assert body == {}
        return {"deleteFromRow": {}}
    raise ValueError(f"unknown mutation {kind}")


BYTES_FILTERS = {"row_key_regex_filter", "column_qualifier_regex_filter", "value_regex_filter",
                 "value_bitmask_filter"}


def row_filter(f: dict) -> dict:
    ((kind, body),) = f.items()
    if kind in ("chain", "interleave"):
        return {kind: {"filters": [row_filter(x) for x in body]}}
    if kind == "condition":
        return {"condition": {camel(k): row_filter(v) for k, v in body.items()}}
    if kind in BYTES_FILTERS:
        return {camel(kind): b64(body)}
    if kind in ("column_range_filter", "value_range_filter"):
        return {camel(kind): {camel(k): (v if k == "family_name" else b64(v))
                              for k, v in body.items()}}
    if kind == "timestamp_range_filter":
        return {camel(kind): {camel(k): str(v) for k, v in body.items()}}
    return {camel(kind): body}


def duration(micros: int) -> str:
    sign = "-" if micros < 0 else ""
    secs, frac = divmod(abs(micros), 1_000_000)
    if frac == 0:
        return f"{sign}{secs}s"
    if frac % 1000 == 0:
        return f"{sign}{secs}.{frac // 1000:03d}s"
    return f"{sign}{secs}.{frac:06d}s"


def gc_rule(r: dict) -> dict:
    ((kind, body),) = r.items()
    if kind == "max_num_versions":
        return {"maxNumVersions": body}
    if kind == "max_age_micros":
        return {"maxAge": duration(body)}
    return {kind: {"rules": [gc_rule(x) for x in body]}}


AGGREGATES = {"INT64_SUM": "sum", "INT64_MIN": "min", "INT64_MAX": "max"}


def family(f: dict) -> dict:
    out = {}
    for k, v in f.items():
        if k == "gc_rule":
            out["gcRule"] = gc_rule(v)
        elif k == "value_type":
            out["valueType"] = {"aggregateType": {"inputType": {"int64Type": {}},
                                                  AGGREGATES[v]: {}}}
        else:
            raise ValueError(f"unknown family field {k}")
    return out


def table(spec: dict) -> dict:
    out = {}
    for k, v in spec.items():
        if k == "families":
            out["columnFamilies"] = {n: family(f) for n, f in v.items()}
        elif k == "initial_splits":
            out["initialSplits"] = [{"key": b64(s)} for s in v]
        else:
            out[camel(k)] = v
    return out


def row_set(s: dict) -> dict:
    out = {}
    if "row_keys" in s:
        out["rowKeys"] = [b64(k) for k in s["row_keys"]]
    if "row_ranges" in s:
        out["rowRanges"] = [{camel(k): b64(v) for k, v in r.items()} for r in s["row_ranges"]]
    return out


def row(r: dict | None) -> dict | None:
    if r is None:
        return None
    families: list[dict] = []
    for c in r["cells"]:
        if not families or families[-1]["name"] != c["family"]:
            families.append({"name": c["family"], "columns": []})
        columns = families[-1]["columns"]
        q = b64(c["qualifier"])
        if not columns or columns[-1]["qualifier"] != q:
            columns.append({"qualifier": q, "cells": []})
        cell = {"timestampMicros": str(c["timestamp_micros"]), "value": b64(c["value"])}
        if c.get("labels"):
            cell["labels"] = c["labels"]
        columns[-1]["cells"].append(cell)
    return {"key": b64(r["key"]), "families": families}


def rule(r: dict) -> dict:
    out = {"familyName": r["family"], "columnQualifier": b64(r["qualifier"])}
    if "append_value" in r:
        out["appendValue"] = b64(r["append_value"])
    if "increment_amount" in r:
        out["incrementAmount"] = str(r["increment_amount"])
    return out


def op(o: dict) -> dict:
    out = {}
    for k, v in o.items():
        if k in ("mutations", "true_mutations", "false_mutations"):
            v = [mutation(m) for m in v]
        elif k in ("filter", "predicate_filter"):
            v = row_filter(v)
        elif k == "spec":
            v = table(v)
        elif k == "row_set":
            v = row_set(v)
        elif k == "expect_row":
            v = row(v)
        elif k == "expect_rows":
            v = [row(r) for r in v]
        elif k == "rules":
            v = [rule(r) for r in v]
        elif k == "entries":
            v = [{"rowKey": b64(e["row_key"]), "mutations": [mutation(m) for m in e["mutations"]]}
                 for e in v]
        elif k == "modifications":
            v = [{mk: (family(mv) if mk in ("create", "update") else mv) for mk, mv in m.items()}
                 for m in v]
        elif k == "expect_families":
            v = {n: family(f) for n, f in v.items()}
        out[k] = v
    return out


def _old_filter(f: Any) -> bool:
    if not isinstance(f, dict):
        return False
    for kind, body in f.items():
        if "_" in kind or isinstance(body, list):
            return True
        if kind == "condition" and any("_" in k for k in body):
            return True
    return False


def _old_family(f: dict) -> bool:
    return "gc_rule" in f or "value_type" in f


def is_old(v: dict) -> bool:
    """Whether a vector still has a part in the first format (each check looks at a shape the
    proto3 form never has: snake_case oneof keys, lists where proto3 nests a message, ...)."""
    specs = list(v.get("tables", {}).values())
    for o in v["ops"]:
        if "spec" in o:
            specs.append(o["spec"])
        mutations = [m for k in ("mutations", "true_mutations", "false_mutations") for m in o.get(k, [])]
        mutations += [m for e in o.get("entries", []) for m in e.get("mutations", [])]
        rows = ([o["expect_row"]] if o.get("expect_row") else []) + o.get("expect_rows", [])
        families = [m[k] for m in o.get("modifications", []) for k in ("create", "update") if k in m]
        families += list(o.get("expect_families", {}).values())
        if (any("_" in k for m in mutations for k in m)
                or any("row_key" in e for e in o.get("entries", []))
                or _old_filter(o.get("filter")) or _old_filter(o.get("predicate_filter"))
                or any(k in o.get("row_set", {}) for k in ("row_keys", "row_ranges"))
                or any("cells" in r for r in rows)
                or any("family" in r for r in o.get("rules", []))
                or any(_old_family(f) for f in families)):
            return True
    return any("families" in s for s in specs)


def vector(v: dict) -> dict:
    if not is_old(v):
        return v
    return {k: ({n: table(s) for n, s in val.items()} if k == "tables"
                else [op(o) for o in val] if k == "ops" else val)
            for k, val in v.items()}


WIDTH = 120
# Lists whose elements always take one line each, however long: people scan them line by line.
ONE_PER_LINE = {"mutations", "true_mutations", "false_mutations", "rules", "entries", "columns",
                "modifications"}


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def dump(value: Any, indent: int, key: str | None = None, depth: int = 0) -> str:
    """The files' hand-made layout: a value stays on one line when it fits, except the outer
    levels (file, vectors, ops), which always break."""
    text = compact(value)
    forced = depth < 3 or key in ONE_PER_LINE or key == "ops"
    if not isinstance(value, (dict, list)) or not value or (
            not forced and indent + len(text) <= WIDTH):
        return text
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k)}: {dump(v, indent + 2, k, depth + 1)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if key in ONE_PER_LINE:
        items = [pad + compact(v) for v in value]
    else:
        items = [pad + dump(v, indent + 2, None, depth + 1) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def main() -> None:
    args = sys.argv[1:]
    out_dir = None
    if args[:1] == ["--out"]:
        out_dir, args = args[1], args[2:]
    for path in args:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        data["vectors"] = [vector(v) for v in data["vectors"]]
        target = os.path.join(out_dir, os.path.basename(path)) if out_dir else path
        with open(target, "w", encoding="utf-8") as f:
            f.write(dump(data, 0) + "\n")


if __name__ == "__main__":
    main()
