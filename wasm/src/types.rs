//! The TypeScript declarations of the plain objects the API takes and returns.
//!
//! wasm-bindgen writes the `Database` class into the generated `.d.ts`; the option, mutation
//! and row shapes are plain objects that serde reads (see `convert.rs`), so they are declared
//! here by hand and named on the Rust side through `typescript_type`. Keep the two in step:
//! the TypeScript check in `wasm/test/types.test.ts` compiles an example against the output.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Bytes: a `Uint8Array`, or a `string` taken as its UTF-8 encoding. */
export type Bytes = Uint8Array | string;

/**
 * Microseconds since the Unix epoch. A `number` that is an integer within
 * ±(2^53 - 1) (`Number.MAX_SAFE_INTEGER`, about the year 2255); a `bigint` in that range is
 * accepted too. Outside it the call throws `INVALID_ARGUMENT`, so every timestamp read back is
 * an exact `number`.
 */
export type TimestampMicros = number;

/** `new Database(options)`. */
export interface DatabaseOptions {
  /**
   * Run on a manual clock starting at this time (moved with `setClockMicros` /
   * `advanceClockMicros`). Without it the database reads `Date.now()`.
   */
  clockMicros?: TimestampMicros;
}

/** A column family's garbage-collection rule: exactly one key, as Bigtable's `GcRule`. */
export type GcRule =
  | { maxNumVersions: number }
  | { maxAgeMicros: TimestampMicros }
  | { intersection: GcRule[] }
  | { union: GcRule[] };

/** A column family's settings; no `gcRule` keeps every cell. */
export interface ColumnFamily {
  gcRule?: GcRule;
}

/** Timestamp precision: `MILLIS` (the default) requires multiples of 1000 microseconds. */
export type Granularity = "MILLIS" | "MICROS";

/** `createTable`'s config. */
export interface TableConfig {
  /** Families are created in the object's key order: the order reads return them in. */
  families: Record<string, ColumnFamily>;
  granularity?: Granularity;
  deletionProtection?: boolean;
  initialSplits?: Bytes[];
  maxValueBytes?: number;
}

/** What `getTable`, `listTables`, `createTable` and `modifyColumnFamilies` return. */
export interface TableInfo {
  name: string;
  /** In creation order (the order reads return a row's families in). */
  families: Record<string, ColumnFamily>;
  granularity: Granularity;
  deletionProtection: boolean;
  initialSplits: Uint8Array[];
  maxValueBytes: number;
}

/** One change to a table's families, as Bigtable's `Modification`: one of create/update/drop. */
export type FamilyModification =
  | { id: string; create: ColumnFamily }
  | { id: string; update: ColumnFamily }
  | { id: string; drop: true };

/** A half-open time range `[start, end)`; a missing start is 0; a missing end, or 0 (as in Bigtable's proto), is unbounded. */
export interface TimestampRange {
  startTimestampMicros?: TimestampMicros;
  endTimestampMicros?: TimestampMicros;
}

/** One change to one row: exactly one key, as Bigtable's `Mutation`. */
export type Mutation =
  | { setCell: { family: string; qualifier: Bytes; timestampMicros: TimestampMicros; value: Bytes } }
  | { deleteFromColumn: { family: string; qualifier: Bytes; timeRange?: TimestampRange } }
  | { deleteFromFamily: { family: string } }
  | { deleteFromRow: Record<string, never> };

/** A range of row keys: at most one start and one end; a missing bound, or an empty key (as in Bigtable), is unbounded. */
export interface RowRange {
  startKeyClosed?: Bytes;
  startKeyOpen?: Bytes;
  endKeyClosed?: Bytes;
  endKeyOpen?: Bytes;
}

/** Which rows `readRows` returns. No keys and no ranges means every row. */
export interface ReadRowsRequest {
  rowKeys?: Bytes[];
  rowRanges?: RowRange[];
  /** Most rows to return; 0 or missing means no limit. */
  limit?: number;
  /** Rows in descending key order. */
  reversed?: boolean;
}

/** One timestamped value of one column. */
export interface Cell {
  family: string;
  qualifier: Uint8Array;
  timestampMicros: TimestampMicros;
  value: Uint8Array;
  labels: string[];
}

/** A row: its cells grouped by family, qualifiers ascending, newest first. */
export interface Row {
  key: Uint8Array;
  cells: Cell[];
}

/** The gRPC status names an error's `code` takes. */
export type ErrorCode =
  | "INVALID_ARGUMENT" | "NOT_FOUND" | "ALREADY_EXISTS" | "RESOURCE_EXHAUSTED"
  | "FAILED_PRECONDITION" | "ABORTED" | "OUT_OF_RANGE" | "UNIMPLEMENTED" | "INTERNAL"
  | "UNAVAILABLE" | "DATA_LOSS";

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
    /// `TableConfig` in TypeScript.
    #[wasm_bindgen(typescript_type = "TableConfig")]
    pub type JsTableConfig;
    /// `TableInfo` in TypeScript.
    #[wasm_bindgen(typescript_type = "TableInfo")]
    pub type JsTableInfo;
    /// `TableInfo[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "TableInfo[]")]
    pub type JsTableInfoArray;
    /// `FamilyModification[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "FamilyModification[]")]
    pub type JsFamilyModifications;
    /// `Bytes` in TypeScript.
    #[wasm_bindgen(typescript_type = "Bytes")]
    pub type JsBytes;
    /// `Mutation[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "Mutation[]")]
    pub type JsMutations;
    /// `ReadRowsRequest` in TypeScript.
    #[wasm_bindgen(typescript_type = "ReadRowsRequest")]
    pub type JsReadRowsRequest;
    /// `Row | null` in TypeScript.
    #[wasm_bindgen(typescript_type = "Row | null")]
    pub type JsRowOrNull;
    /// `Row[]` in TypeScript.
    #[wasm_bindgen(typescript_type = "Row[]")]
    pub type JsRows;
}
