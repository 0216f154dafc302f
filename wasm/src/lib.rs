//! Sparsetable for JavaScript: the engine compiled to WebAssembly behind a wasm-bindgen API.
//!
//! The binding converts types and errors and nothing else (see shared STYLE): every rule of
//! Bigtable's data model lives in the `sparsetable` core. JavaScript sees one class,
//! [`Database`], with camelCase methods; plain-object options, mutations and rows described by
//! the TypeScript declarations in [`types`]; bytes as `Uint8Array | string`; timestamps as
//! exact `number`s (integers within ±(2^53 − 1)); and errors as `Error` objects with a gRPC
//! `code` string, made in one place ([`error::to_js_error`]).
//!
//! ```js
//! import { Database } from "sparsetable-wasm";
//! const db = new Database({ clockMicros: 1_700_000_000_000_000 });
//! db.createTable("t", { families: { cf: { gcRule: { maxNumVersions: 2 } } } });
//! db.mutateRow("t", "row1", [{ setCell: { family: "cf", qualifier: "q", timestampMicros: -1, value: "v" } }]);
//! db.readRow("t", "row1"); // { key: Uint8Array, cells: [{ family: "cf", ..., timestampMicros: 1700000000000000 }] }
//! ```

mod args;
pub mod change_stream;
pub mod clock;
mod convert;
pub mod database;
pub mod error;
mod gc_rule;
pub mod instances;
mod micros;
pub mod panic;
pub mod proto;
pub mod replication;
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
