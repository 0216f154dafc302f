"""Compares sparsetable's public Python surface with Google's ``google-cloud-bigtable``
(installed in the suite's venv): every public class, function, method and parameter of
``google.cloud.bigtable.data`` (and its submodules) and of the classic client the samples use
(its admin calls and its data API: rows, row sets, row data, filters, batcher). ``python parity.py`` prints the Markdown table in bindings/python/README.md;
test_google_parity.py fails when an item is missing without a reason listed in DIFFERS /
MISSING below.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys

# (Google module, sparsetable module, names or None for the module's public classes)
MODULES = [
    ("google.cloud.bigtable.data", "sparsetable.data", None),
    ("google.cloud.bigtable.data.row_filters", "sparsetable.data.row_filters", None),
    ("google.cloud.bigtable.data.mutations", "sparsetable.data.mutations", None),
    ("google.cloud.bigtable.data.read_modify_write_rules", "sparsetable.data.read_modify_write_rules", None),
    ("google.cloud.bigtable.data.exceptions", "sparsetable.data.exceptions", None),
    ("google.cloud.bigtable", "sparsetable", ["Client"]),
    ("google.cloud.bigtable.column_family", "sparsetable.column_family",
     ["ColumnFamily", "MaxVersionsGCRule", "MaxAgeGCRule", "GCRuleUnion", "GCRuleIntersection"]),
    # The classic data API (Google's sync snippets).
    ("google.cloud.bigtable.row", "sparsetable.row", ["DirectRow", "ConditionalRow", "AppendRow", "PartialRowData", "Cell"]),
    ("google.cloud.bigtable.row_data", "sparsetable.row_data", ["PartialRowsData"]),
    ("google.cloud.bigtable.row_set", "sparsetable.row_set", ["RowSet", "RowRange"]),
    ("google.cloud.bigtable.row_filters", "sparsetable.row_filters", None),
    ("google.cloud.bigtable.batcher", "sparsetable.batcher", ["MutationsBatcher", "MutationsBatchError"]),
    ("google.cloud.bigtable.table", "sparsetable.table", ["TableMismatchError", "TooManyMutationsError"]),
]
# The classic classes reached through methods rather than imported.
CLASSIC_METHODS = {
    ("google.cloud.bigtable.instance", "Instance", "sparsetable._classic", "Instance"):
        ["table", "list_tables", "exists", "create", "reload", "update", "delete", "cluster", "list_clusters",
         "app_profile", "list_app_profiles", "state"],
    # The classic Instance Admin (Google's samples/instanceadmin and its system tests).
    ("google.cloud.bigtable.cluster", "Cluster", "sparsetable._instance_admin", "Cluster"):
        ["create", "exists", "reload", "update", "delete", "disable_autoscaling", "name", "state"],
    ("google.cloud.bigtable.app_profile", "AppProfile", "sparsetable._instance_admin", "AppProfile"):
        ["create", "exists", "reload", "update", "delete", "name"],
    ("google.cloud.bigtable.table", "Table", "sparsetable._classic", "Table"):
        ["create", "exists", "delete", "column_family", "list_column_families", "truncate", "drop_by_prefix",
         "row", "direct_row", "conditional_row", "append_row", "read_row", "read_rows", "yield_rows",
         "mutate_rows", "sample_row_keys", "mutations_batcher"],
    ("google.cloud.bigtable.client", "Client", "sparsetable._classic", "Client"): ["instance", "list_instances", "list_clusters"],
    # The generated table admin client's calls that the samples' helper uses to set tables up.
    ("google.cloud.bigtable_admin_v2", "BigtableTableAdminClient", "sparsetable.bigtable_admin_v2", "BigtableTableAdminClient"):
        ["create_table", "get_table", "list_tables", "update_table", "delete_table"],
    # The generated instance admin client's view calls.
    ("google.cloud.bigtable_admin_v2", "BigtableInstanceAdminClient", "sparsetable.bigtable_admin_v2", "BigtableInstanceAdminClient"):
        ["create_logical_view", "get_logical_view", "list_logical_views", "update_logical_view", "delete_logical_view",
         "logical_view_path", "create_materialized_view", "get_materialized_view", "list_materialized_views",
         "update_materialized_view", "delete_materialized_view", "materialized_view_path", "instance_path"],
}
DUNDERS = {"__enter__", "__exit__", "__aenter__", "__aexit__", "__getitem__", "__contains__", "__int__",
           "__lt__", "__iter__", "__len__", "__str__"}

# Items present with a different meaning or shape in-process: "why".
DIFFERS = {
    "RowMutationEntry": "an empty or over-long mutation list is the engine's InvalidArgument when applied, not ValueError at construction",
    "Mutation.size": "counts payload bytes (family, qualifier, value, 8 per number), not the Python size of a request dict",
    "RetryExceptionGroup": "never raised: in-process calls do not retry",
    "InvalidChunk": "never raised: rows come from the engine, not a chunk stream",
    "SetCell": "timestamp_micros=None is the engine's time (server time, -1); Google's client reads the local clock",
    "MutationsBatcher": "batches are written synchronously by the call that fills them; flow_control_* never bind",
    "MutationsBatcherAsync": "batches are written on a worker thread by the call that fills them; flow_control_* never bind",
    "BigtableDataClient.execute_query": "GoogleSQL as docs/sql.md lists it (what is not yet served is refused); view_parameters and column_info are refused",
    "BigtableDataClientAsync.execute_query": "GoogleSQL as docs/sql.md lists it (what is not yet served is refused); view_parameters and column_info are refused",
    "Instance.exists": "True for instances created with Instance.create (data calls work on any instance named)",
    "Instance.create": "applied at once: the Operation returned is done",
    "Instance.delete": "deletes the instance's tables at once (Bigtable marks them for deletion in 7 days)",
    "Cluster.create": "applied at once: the Operation returned is done",
    "AppProfile.create": "ignore_warnings is accepted and unused: the engine raises no warnings",
    "batcher.MutationsBatcher": "batches are written synchronously by the call that fills them (nothing in flight); the timer repeats every flush_interval",
    "Table.mutate_rows": "retry and timeout are accepted and unused; each status is a table.Status (code, message), shaped like google.rpc's",
    "row.ConditionalRow.commit": "more than MAX_MUTATIONS is the engine's InvalidArgument, not a client-side ValueError",
    "row.AppendRow.commit": "more than MAX_MUTATIONS is the engine's InvalidArgument, not a client-side ValueError",
    "table.TooManyMutationsError": "never raised: the engine refuses an over-long bulk write with InvalidArgument",
}
# Items not offered: "why".
MISSING = {
    "AuthorizedView": "authorized views are not modelled by the engine",
    "AuthorizedViewAsync": "authorized views are not modelled by the engine",
    "MaterializedView": "materialized views need SQL",
    "MaterializedViewAsync": "materialized views need SQL",
    "BigtableDataClient.get_authorized_view": "authorized views are not modelled by the engine",
    "BigtableDataClientAsync.get_authorized_view": "authorized views are not modelled by the engine",
    "BigtableDataClient.get_materialized_view": "materialized views need SQL",
    "BigtableDataClientAsync.get_materialized_view": "materialized views need SQL",
    "BigtableDataClient.from_service_account_info": "no credentials in-process",
    "BigtableDataClient.from_service_account_json": "no credentials in-process",
    "BigtableDataClientAsync.from_service_account_info": "no credentials in-process",
    "BigtableDataClientAsync.from_service_account_json": "no credentials in-process",
    "BigtableDataClient.api_endpoint": "no endpoint in-process",
    "BigtableDataClientAsync.api_endpoint": "no endpoint in-process",
    "BigtableDataClient.universe_domain": "no endpoint in-process",
    "BigtableDataClientAsync.universe_domain": "no endpoint in-process",
    "exceptions.EarlyMetadataCallError": "SQL (execute_query) only",
    "exceptions.InvalidExecuteQueryResponse": "SQL (execute_query) only",
    "Client.from_service_account_info": "no credentials in-process",
    "Client.from_service_account_json": "no credentials in-process",
    "Client.project_path": "deprecated in Google's client; use project_name",
    "Client.table_data_client": "the gapic data client is not mirrored: use sparsetable.data",
    "column_family.GCRuleIntersection.to_pb": "no protobufs in-process",
    "column_family.GCRuleUnion.to_pb": "no protobufs in-process",
    "column_family.MaxAgeGCRule.to_pb": "no protobufs in-process",
    "column_family.MaxVersionsGCRule.to_pb": "no protobufs in-process",
    "row.Cell.from_pb": "no protobufs in-process",
}
# The classic filters' to_pb (deprecated by Google: filters are passed as objects).
MISSING.update({
    f"row_filters.{name}.to_pb": "no protobufs in-process (to_pb is deprecated in Google's classic client)"
    for name in ("ApplyLabelFilter", "BlockAllFilter", "CellsColumnLimitFilter", "CellsRowLimitFilter",
                 "CellsRowOffsetFilter", "ColumnQualifierRegexFilter", "ColumnRangeFilter", "ConditionalRowFilter",
                 "ExactValueFilter", "FamilyNameRegexFilter", "PassAllFilter", "RowFilter", "RowFilterChain",
                 "RowFilterUnion", "RowKeyRegexFilter", "RowSampleFilter", "SinkFilter", "StripValueTransformerFilter",
                 "TimestampRange", "TimestampRangeFilter", "ValueBitmaskFilter", "ValueRangeFilter", "ValueRegexFilter")
})


def _public_classes(module, names):
    if names is not None:
        return {n: getattr(module, n) for n in names}
    if hasattr(module, "__all__"):
        names = [n for n in module.__all__ if inspect.isclass(getattr(module, n, None))]
    else:
        names = [n for n, v in vars(module).items()
                 if inspect.isclass(v) and v.__module__ == module.__name__ and not n.startswith("_")]
    return {n: getattr(module, n) for n in names}


def _params(obj):
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return sig.parameters


def _members(cls, only=None):
    out = {}
    for name in dir(cls):
        if only is not None and name not in only:
            continue
        if name.startswith("_") and name not in DUNDERS:
            continue
        if name in DUNDERS and getattr(cls, name, None) is getattr(object, name, None):
            continue
        out[name] = getattr(cls, name, None)
    return out


def _compare_callable(google, ours):
    """'' when `ours` takes every parameter name of `google`, else what it lacks."""
    g, o = _params(google), _params(ours)
    if g is None or o is None or getattr(google, "__name__", "").startswith("__"):
        return ""
    if any(p.kind == p.VAR_KEYWORD for p in o.values()):
        return ""
    lacking = [n for n, p in g.items() if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n not in o]
    return f"lacks parameter(s) {', '.join(lacking)}" if lacking else ""


@functools.lru_cache(maxsize=1)
def rows():
    """(item, status, note) for every public item of Google's surface."""
    out = []

    def record(item, present, problem=""):
        if item in MISSING and not present:
            out.append((item, "missing", MISSING[item]))
        elif not present:
            out.append((item, "missing", "NO REASON"))
        elif problem:
            out.append((item, "differs", DIFFERS.get(item, problem)))
        elif item in DIFFERS:
            out.append((item, "differs", DIFFERS[item]))
        else:
            out.append((item, "done", ""))

    def compare_class(label, gcls, ocls, only=None):
        record(label, ocls is not None, _compare_callable(gcls, ocls) if ocls is not None else "")
        if ocls is None or issubclass(gcls, BaseException) and only is None and not hasattr(gcls, "exceptions"):
            return
        for name, gm in sorted(_members(gcls, only).items()):
            item = f"{label}.{name}"
            om = getattr(ocls, name, None)
            present = om is not None or name in getattr(ocls, "__dict__", {})
            if name in ("exceptions", "message", "args", "add_note", "with_traceback", "derive", "split", "subgroup"):
                continue
            problem = _compare_callable(gm, om) if present and callable(gm) and callable(om) else ""
            record(item, present, problem)

    for gname, oname, names in MODULES:
        gmod, omod = importlib.import_module(gname), importlib.import_module(oname)
        for cname, gcls in sorted(_public_classes(gmod, names).items()):
            ocls = getattr(omod, cname, None)
            if gname.endswith(".exceptions") and ocls is not None and issubclass(gcls, BaseException):
                record(cname, True)
                continue
            compare_class(cname if gname == "google.cloud.bigtable.data" or "." not in gname[len("google.cloud.bigtable"):] else f"{gname.rsplit('.', 1)[1]}.{cname}", gcls, ocls)
    for (gm, gc, om, oc), methods in CLASSIC_METHODS.items():
        gcls = getattr(importlib.import_module(gm), gc)
        ocls = getattr(importlib.import_module(om), oc)
        for m in methods:
            item = f"{gc}.{m}"
            present = hasattr(ocls, m)
            record(item, present, _compare_callable(getattr(gcls, m), getattr(ocls, m)) if present else "")
    # unique, first occurrence wins
    seen, unique = set(), []
    for r in out:
        if r[0] not in seen:
            seen.add(r[0])
            unique.append(r)
    return unique


def markdown():
    lines = ["| Google (`google.cloud.bigtable` 2.50) | status | note |", "|---|---|---|"]
    for item, status, note in rows():
        lines.append(f"| `{item}` | {status} | {note} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(markdown() + "\n")
