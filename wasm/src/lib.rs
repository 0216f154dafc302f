//! Sparsetable for JavaScript: the engine compiled to WebAssembly behind a wasm-bindgen API.
//!
//! The binding converts types and errors and nothing else (see shared STYLE): every rule of
//! Bigtable's data model lives in the `sparsetable` core. JavaScript sees one API, in one
//! form: [`Database`] (and [`ReplicatedInstance`] for replication) whose requests and results
//! are Bigtable's own messages in the proto3 JSON mapping, read and written by the core's JSON
//! model (`proto.rs`), with TypeScript declarations for every shape (`types.rs`). Bytes are
//! base64 strings or `Uint8Array`s, int64 decimal strings, numbers or `bigint`s; errors are
//! `Error` objects with a gRPC `code` string, made in one place ([`error::to_js_error`]).
//! There is no second, camelCase form of the same calls (issue 32 retired it), so every shared
//! vector runs through the one surface. Options objects must be plain objects, and the rules
//! the npm package needs beside the calls (gRPC's status numbers, a prefix's key range) are
//! the core's, exported in [`rules`].
//!
//! ```js
//! import { Database } from "sparsetable-wasm";
//! const db = new Database({ clockMicros: 1_700_000_000_000_000 });
//! db.createTableJson("t", { columnFamilies: { cf: { gcRule: { maxNumVersions: 2 } } } });
//! db.mutateRowJson("t", { rowKey: "cm93MQ==", mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: "-1", value: "dg==" } }] });
//! db.readRowJson("t", "cm93MQ=="); // { key: "cm93MQ==", families: [{ name: "cf", columns: [...] }] }
//! ```

mod args;
pub mod change_stream;
pub mod clock;
pub mod database;
pub mod error;
pub mod instances;
pub mod logical_views;
pub mod materialized_views;
mod micros;
pub mod panic;
pub mod proto;
pub mod replication;
pub mod rules;
pub mod sql;
pub mod storage;
pub mod types;

pub use change_stream::ChangeStream;
pub use database::Database;
pub use proto::RowIterator;
pub use replication::ReplicatedInstance;

/// The size of this module's wasm memory, in bytes. Memory only grows, so comparing it before
/// and after a call shows whether the call copied a large argument in (tests use it to check
/// that oversized values are refused before they are copied).
#[wasm_bindgen::prelude::wasm_bindgen(js_name = wasmMemoryBytes)]
pub fn wasm_memory_bytes() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        (core::arch::wasm32::memory_size(0) * 65536) as f64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.0
    }
}
