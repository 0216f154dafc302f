//! Sparsetable: Cloud Bigtable's data model and Data API semantics as an embeddable engine.
//!
//! The crate is `no_std` + `alloc`; the `std` feature (on by default) adds the system clock.
//! It knows nothing of its front-ends (Python, Kotlin, WASM, gRPC): they convert types and
//! errors and nothing else, so every behaviour lives here once.
//!
//! Vocabulary follows Bigtable's: a [`Database`] holds tables; a table maps a row key to
//! families, a family to qualifiers, a qualifier to timestamped cells. Reads return [`Row`]s
//! whose cells are in Bigtable order: families by name, qualifiers ascending, newest
//! timestamp first.
//!
//! ```
//! use sparsetable::{Database, Mutation, TableConfig, ReadRowsRequest};
//! let mut db = Database::new();
//! db.create_table("t", TableConfig::with_families(["cf"])).unwrap();
//! db.mutate_row("t", b"row1", &[Mutation::set_cell("cf", b"q", 1000, b"v")]).unwrap();
//! let rows: Vec<_> = db.read_rows("t", &ReadRowsRequest::default()).unwrap().collect();
//! assert_eq!(rows[0].cells[0].value, b"v");
//! ```
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod bytes;
pub mod clock;
pub mod commit_log;
pub mod database;
pub mod encoding;
pub mod error;
pub mod filter;
pub mod gc;
pub mod internal_key;
pub mod limits;
pub mod manifest;
pub mod memtable;
pub mod mutation;
pub mod persist;
pub mod random;
pub mod read;
pub mod read_modify_write;
pub mod regex;
pub mod row;
pub mod row_merge;
pub mod row_set;
mod scan;
pub mod schema;
#[cfg(feature = "std")]
pub mod shared;
pub mod sstable;
pub mod stats;
pub mod storage;
mod table;
mod tablet;

pub use clock::Clock;
#[cfg(target_has_atomic = "64")]
pub use clock::ManualClock;
#[cfg(feature = "std")]
pub use clock::SystemClock;
pub use database::{
    BackupInfo, Database, DropRowRange, Durability, OpenOptions, RowMutations, SampleRowKey,
};
pub use error::{Code, Error, Result};
pub use filter::{CompiledFilter, RowFilter};
pub use gc::GcRule;
pub use mutation::{Mutation, TimestampRange};
pub use random::{RandomSource, SplitMix64};
pub use read::{ReadRowsRequest, RowStream};
pub use read_modify_write::{ReadModifyWriteOp, ReadModifyWriteRule};
pub use row::{Cell, Row};
pub use row_set::{RowRange, RowSet};
pub use schema::{
    ColumnFamily, FamilyModification, Granularity, TableConfig, TableInfo, TabletOptions, ValueType,
};
#[cfg(feature = "std")]
pub use shared::SharedDatabase;
pub use stats::{AccessCounters, AccessStat, StatsOptions};
pub use table::{TabletEvent, TabletEventKind, TabletInfo};

/// The README's Rust examples, compiled and run as doctests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
