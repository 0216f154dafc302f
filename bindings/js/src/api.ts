// A layer shaped like Google's Node client (@google-cloud/bigtable) over the in-process
// engine: Bigtable -> Instance -> Table -> Row / Family, the client's row, mutation, filter
// and GC-rule object syntax, promises that resolve to arrays ([result, apiResponse]) and
// optional Node-style callbacks, and errors with gRPC's numeric `code`.
//
// Everything here converts shapes and calls the low-level `Database` (the proto3 JSON API of
// the WebAssembly module); every Bigtable rule lives in the engine. Where this layer must
// differ from the network client it says so in README.md ("Differences").
//
// The layer is one module per resource, as the Node client is laid out (bigtable, instance,
// cluster, app_profile, table, family, row, row_stream, filter, mutation, gc_rule, and the
// generated admin clients in table_admin / instance_admin / admin); this file is its public
// surface: exactly the names the package exports.

import { Database } from "./wasm/sparsetable_wasm.js";

export { Database };
export type * from "./wasm/sparsetable_wasm.js";

export type { Data } from "./bytes.js";
export { Status, BigtableError, PartialFailureError } from "./errors.js";
export { toRowFilter } from "./filter.js";
export type { Bound, Filter, FilterObject, RegexLike } from "./filter.js";
export type { CellInput, RowData, MutationEntry } from "./mutation.js";
export { toGcRule } from "./gc_rule.js";
export type { GcRuleInput } from "./gc_rule.js";
export { Row } from "./row.js";
export type { CellValue, RowDataOut, FilterMutations, RuleInput } from "./row.js";
export { RowStream, PullStream, setReadStreamWrapper } from "./row_stream.js";
export { ExecuteQueryStream, setQueryStreamWrapper } from "./query_stream.js";
export type { GetRowsOptions } from "./row_stream.js";
export { metadataOf, setDirectoryOpener, setInstanceStore, setStorageOpener } from "./registry.js";
export type { ClusterInfo, AppProfileInfo, InstanceMetadata, InstanceStore } from "./registry.js";
export { Bigtable } from "./bigtable.js";
export type { BigtableOptions } from "./bigtable.js";
export { Instance } from "./instance.js";
export { SqlTypes, BigtableDate, PreciseDate, Struct, StructType, QueryResultRow, ResultSetMetadata, EncodedKeyMap, NamedList, PreparedStatement } from "./execute_query.js";
export type { SqlType, SqlValue, ExecuteQueryParameterValue } from "./execute_query.js";
export type { ExecuteQueryOptions } from "./instance.js";
export { Cluster } from "./cluster.js";
export type { ClusterOptions, ClusterMetadata } from "./cluster.js";
export { AppProfile } from "./app_profile.js";
export type { AppProfileOptions, AppProfileMetadata } from "./app_profile.js";
export { Table } from "./table.js";
export type { CreateTableOptions } from "./table.js";
export { Family } from "./family.js";
export { Operation } from "./admin_common.js";
export type { LongRunning } from "./admin_common.js";
export { BigtableTableAdminClient } from "./table_admin.js";
export { BigtableInstanceAdminClient } from "./instance_admin.js";
export type { InstanceList, ClusterList } from "./instance_admin.js";
export { v2, GcRuleBuilder, TableAdminClient, InstanceAdminClient, admin } from "./admin.js";
export type { GcRuleProto } from "./admin.js";
