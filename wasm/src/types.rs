//! The TypeScript declarations of the plain objects the API takes and returns.
//!
//! wasm-bindgen writes the `Database` class into the generated `.d.ts`; the requests and
//! results are Bigtable's messages in proto3 JSON, read and written by the core's JSON model
//! (see `proto.rs`), so their shapes are declared here by hand and named on the Rust side
//! through `unchecked_param_type` / `unchecked_return_type`. Keep the two in step: the npm
//! package's `tsc --strict` consumer test compiles against the output.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** `new Database(options)`: a plain object (an array or an `ArrayBuffer` is refused). */
export interface DatabaseOptions {
  /**
   * Run on a manual clock starting at this time, in microseconds since the Unix epoch: an
   * integer from 0 to 2^53 - 1 (a `bigint` in that range is accepted too). Moved with
   * `setClockMicros` / `advanceClockMicros`. Without it the database reads `Date.now()`.
   */
  clockMicros?: number;
  /**
   * When cells a family's GC rule makes collectable stop being readable: `"immediate"` (the
   * default: at once) or `"background"` (as Cloud Bigtable: until `collectGarbage` or a
   * compaction removes them).
   */
  gcMode?: "immediate" | "background";
}

// ---- proto3 JSON, the one form of every request and result (the *Json methods, mutateRows,
// checkAndMutateRow, readModifyWriteRow, sampleRowKeys, dropRowRange, backups): Bigtable's own
// messages in the proto3 JSON mapping.
// Bytes go in as base64 strings or Uint8Arrays and come out as base64 strings; int64 goes in
// as a decimal string, a number or a bigint and comes out as a decimal string.

/** A proto `bytes` field on input: base64 text, or the bytes themselves. */
export type ProtoBytesIn = string | Uint8Array;
/** A proto `int64` on input. */
export type ProtoInt64In = string | number | bigint;

/** `google.bigtable.admin.v2.GcRule`; `maxAge` is a Duration string such as `"86400s"`. */
export type ProtoGcRule =
  | { maxNumVersions: number }
  | { maxAge: string }
  | { intersection: { rules: ProtoGcRule[] } }
  | { union: { rules: ProtoGcRule[] } };

/** `google.bigtable.admin.v2.Type` for aggregate families. */
export interface ProtoValueType {
  aggregateType?: {
    inputType?: { int64Type?: Record<string, unknown> };
    sum?: Record<string, never>;
    min?: Record<string, never>;
    max?: Record<string, never>;
    hllppUniqueCount?: Record<string, never>;
  };
  [other: string]: unknown;
}

/** An admin `ColumnFamily`. */
export interface ProtoColumnFamily {
  gcRule?: ProtoGcRule;
  valueType?: ProtoValueType;
}

/** An admin `Table` (plus `initialSplits` from `CreateTableRequest`). */
export interface ProtoTable {
  /** The table id (on output). */
  name?: string;
  /** Families in creation order (the object's key order on input). */
  columnFamilies?: Record<string, ProtoColumnFamily>;
  granularity?: "MILLIS" | "MICROS" | "TIMESTAMP_GRANULARITY_UNSPECIFIED";
  deletionProtection?: boolean;
  initialSplits?: { key: ProtoBytesIn }[];
  /** The row-key schema: key fields read as SQL columns. */
  rowKeySchema?: ProtoRowKeySchema;
}
/** A table's row-key schema (`Table.rowKeySchema`, a `Type.Struct`): BYTES (`raw`), STRING
 * (`utf8Bytes`) or INT64 (`bigEndianBytes` / `orderedCodeBytes`) fields, joined by one
 * encoding (the delimiter as bytes or base64). */
export interface ProtoRowKeySchema {
  fields?: { fieldName?: string; type?: Record<string, unknown> }[];
  encoding?: { singleton?: Record<string, never>; delimitedBytes?: { delimiter?: ProtoBytesIn }; orderedCodeBytes?: Record<string, never> };
}

/** `ModifyColumnFamiliesRequest.Modification`. */
export type ProtoModification =
  | { id: string; create: ProtoColumnFamily }
  | { id: string; update: ProtoColumnFamily; updateMask?: string }
  | { id: string; drop: true };

/** `google.bigtable.v2.TimestampRange`; an end of 0 or absent is unbounded. */
export interface ProtoTimestampRange {
  startTimestampMicros?: ProtoInt64In;
  endTimestampMicros?: ProtoInt64In;
}

/** `google.bigtable.v2.Value`, the kinds AddToCell and MergeToCell use. */
export type ProtoValue =
  | { rawValue: ProtoBytesIn }
  | { rawTimestampMicros: ProtoInt64In }
  | { bytesValue: ProtoBytesIn }
  | { stringValue: string }
  | { intValue: ProtoInt64In };

/** `google.bigtable.v2.Mutation`: exactly one kind. `timestampMicros: -1` is server time. */
export type ProtoMutation =
  | { setCell: { familyName: string; columnQualifier?: ProtoBytesIn; timestampMicros?: ProtoInt64In; value?: ProtoBytesIn } }
  | { addToCell: { familyName: string; columnQualifier: ProtoValue; timestamp: ProtoValue; input: ProtoValue } }
  | { mergeToCell: { familyName: string; columnQualifier: ProtoValue; timestamp: ProtoValue; input: ProtoValue } }
  | { deleteFromColumn: { familyName: string; columnQualifier?: ProtoBytesIn; timeRange?: ProtoTimestampRange } }
  | { deleteFromFamily: { familyName: string } }
  | { deleteFromRow: Record<string, never> };

/** `google.bigtable.v2.RowFilter`: exactly one kind, at any depth. */
export type ProtoRowFilter =
  | { chain: { filters?: ProtoRowFilter[] } }
  | { interleave: { filters?: ProtoRowFilter[] } }
  | { condition: { predicateFilter?: ProtoRowFilter; trueFilter?: ProtoRowFilter; falseFilter?: ProtoRowFilter } }
  | { sink: true }
  | { passAllFilter: true }
  | { blockAllFilter: true }
  | { rowKeyRegexFilter: ProtoBytesIn }
  | { rowSampleFilter: number }
  | { familyNameRegexFilter: string }
  | { columnQualifierRegexFilter: ProtoBytesIn }
  | { columnRangeFilter: { familyName?: string; startQualifierClosed?: ProtoBytesIn; startQualifierOpen?: ProtoBytesIn; endQualifierClosed?: ProtoBytesIn; endQualifierOpen?: ProtoBytesIn } }
  | { timestampRangeFilter: ProtoTimestampRange }
  | { valueRegexFilter: ProtoBytesIn }
  | { valueRangeFilter: { startValueClosed?: ProtoBytesIn; startValueOpen?: ProtoBytesIn; endValueClosed?: ProtoBytesIn; endValueOpen?: ProtoBytesIn } }
  | { cellsPerRowOffsetFilter: number }
  | { cellsPerRowLimitFilter: number }
  | { cellsPerColumnLimitFilter: number }
  | { stripValueTransformer: true }
  | { applyLabelTransformer: string }
  | { valueBitmaskFilter: ProtoBytesIn };

/** `google.bigtable.v2.RowRange`: at most one start and one end bound. */
export interface ProtoRowRange {
  startKeyClosed?: ProtoBytesIn;
  startKeyOpen?: ProtoBytesIn;
  endKeyClosed?: ProtoBytesIn;
  endKeyOpen?: ProtoBytesIn;
}

/** `google.bigtable.v2.RowSet`; empty means every row. */
export interface ProtoRowSet {
  rowKeys?: ProtoBytesIn[];
  rowRanges?: ProtoRowRange[];
}

/** A `ReadRowsRequest` body. */
export interface ProtoReadRowsRequest {
  rows?: ProtoRowSet;
  filter?: ProtoRowFilter;
  rowsLimit?: ProtoInt64In;
  reversed?: boolean;
}

/** A `MutateRowRequest` body. */
export interface ProtoMutateRowRequest {
  tableName?: string;
  rowKey: ProtoBytesIn;
  mutations: ProtoMutation[];
}

/** A `MutateRowsRequest` body. */
export interface ProtoMutateRowsRequest {
  tableName?: string;
  entries: { rowKey: ProtoBytesIn; mutations: ProtoMutation[] }[];
}

/** A `CheckAndMutateRowRequest` body. */
export interface ProtoCheckAndMutateRowRequest {
  tableName?: string;
  rowKey: ProtoBytesIn;
  predicateFilter?: ProtoRowFilter;
  trueMutations?: ProtoMutation[];
  falseMutations?: ProtoMutation[];
}

/** `ReadModifyWriteRule`: exactly one of `appendValue` and `incrementAmount`. */
export type ProtoReadModifyWriteRule =
  | { familyName: string; columnQualifier?: ProtoBytesIn; appendValue: ProtoBytesIn }
  | { familyName: string; columnQualifier?: ProtoBytesIn; incrementAmount: ProtoInt64In };

/** A `ReadModifyWriteRowRequest` body. */
export interface ProtoReadModifyWriteRowRequest {
  tableName?: string;
  rowKey: ProtoBytesIn;
  rules: ProtoReadModifyWriteRule[];
}

/** A `DropRowRangeRequest` body: one of the two. */
export type ProtoDropRowRangeRequest =
  | { name?: string; rowKeyPrefix: ProtoBytesIn }
  | { name?: string; deleteAllDataFromTable: true };

/** `google.bigtable.v2.Cell` on output (default values omitted, as proto3 JSON does). */
export interface ProtoCell {
  timestampMicros?: string;
  value?: string;
  labels?: string[];
}

/** `google.bigtable.v2.Row` on output: families in creation order, columns by qualifier,
 * cells newest first; bytes base64. */
export interface ProtoRow {
  key: string;
  families?: { name: string; columns?: { qualifier?: string; cells?: ProtoCell[] }[] }[];
}

/** One `SampleRowKeysResponse`; the last has no `rowKey` (the end of the table). */
export interface ProtoSampleRowKey {
  rowKey?: string;
  offsetBytes: string;
}

/** `readRowsJson`'s result is iterable: `for (const row of db.readRowsJson("t")) ...`. */
export interface RowIterator {
  [Symbol.iterator](): RowIterator;
}

/**
 * Synchronous file storage for `Database.openStorage`: a flat namespace of named files.
 * `create` makes an empty file (replacing one); appended bytes must be readable once `append`
 * returns and durable once `sync` returns; `rename` replaces atomically; `syncDir` makes
 * creations, renames and removals durable. Throw an error with `code: "ENOENT"` (or
 * `name: "NotFoundError"`) for a missing file; other errors are retried later.
 */
export interface SyncStorage {
  create(name: string): void;
  append(name: string, data: Uint8Array): void;
  sync(name: string): void;
  size(name: string): number;
  read(name: string, offset: number, length: number): Uint8Array;
  rename(from: string, to: string): void;
  remove(name: string): void;
  list(): string[];
  syncDir(): void;
}

/** One entry's outcome in `mutateRows`. */
export interface EntryStatus {
  index: number;
  code: "OK" | ErrorCode;
  message?: string;
}

/** A backup's description. */
export interface BackupInfo {
  name: string;
  sourceTable: string;
  createdMicros: string;
  sizeBytes: string;
}

/** The gRPC status names an error's `code` takes. */
export type ErrorCode =
  | "INVALID_ARGUMENT" | "NOT_FOUND" | "ALREADY_EXISTS" | "RESOURCE_EXHAUSTED"
  | "FAILED_PRECONDITION" | "ABORTED" | "OUT_OF_RANGE" | "UNIMPLEMENTED" | "INTERNAL"
  | "UNAVAILABLE" | "DATA_LOSS" | "DEADLINE_EXCEEDED";

/** What every method throws: an `Error` named `SparsetableError` with a gRPC `code`. */
export interface SparsetableError extends Error {
  name: "SparsetableError";
  code: ErrorCode;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// `DatabaseOptions` in TypeScript.
    #[wasm_bindgen(typescript_type = "DatabaseOptions")]
    pub type JsDatabaseOptions;
}
