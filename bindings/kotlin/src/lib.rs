//! The Kotlin/JVM binding of Sparsetable: the native half, exported with uniffi.
//!
//! This crate converts types and errors and nothing else. Every behaviour lives in the
//! `sparsetable` core; here a call crosses the FFI as uniffi records, becomes the core's
//! types, runs, and comes back as records, with the core's `Error` turned into
//! [`SparsetableError`] by one function ([`error::to_ffi`]).
//!
//! `uniffi-bindgen generate --library` turns the metadata of this cdylib into Kotlin in
//! package `dev.sparsetable.ffi` (see `uniffi.toml`); the public Kotlin API, shaped like
//! Google's Java Bigtable client, lives in `src/main/kotlin/dev/sparsetable/` on top of it.
//!
//! Invariant: no exported function panics on any input; bad input is an `InvalidArgument`
//! error, exactly as the core would report it.

uniffi::setup_scaffolding!();

pub mod bounds;
pub mod change_stream;
pub mod clock;
pub mod database;
pub mod error;
pub mod filter;
pub mod instance;
pub mod instance_admin;
pub mod logical_views;
pub mod materialized_views;
pub mod requests;
pub mod row_key_schema;
pub mod sql;
pub mod stream;
mod tree;
pub mod types;

pub use clock::ManualClock;
pub use database::Database;
pub use error::SparsetableError;
