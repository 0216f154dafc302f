//! Sparsetable: Cloud Bigtable's data model and Data API semantics as an embeddable engine.
//!
//! The crate is `no_std` + `alloc`; the `std` feature (on by default) adds the system clock.
//! It knows nothing of its front-ends (Python, Kotlin, WASM, gRPC): they convert types and
//! errors and nothing else, so every behaviour lives here once.
//!
//! Vocabulary follows Bigtable's: a [`Database`] holds tables; a table maps a row key to
//! families, a family to qualifiers, a qualifier to timestamped cells. Reads return [`Row`]s
//! whose cells are in Bigtable order: families in creation order, qualifiers ascending, newest
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
// Library code never unwraps: a decoder returns a typed error, and a step that cannot fail says
// why in its `expect`. Tests may unwrap (issue 32).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The crate's foundation, used by every layer.
pub mod error;
pub mod limits;

// The layers, lowest first; a module imports only from layers above it in this list (the
// architecture test, tests/architecture.rs, holds the code to it). docs/design.md explains
// the shape.
pub mod api;
pub mod codec;
pub mod durability;
pub mod lsm;
pub mod model;
pub mod platform;
pub mod table;

pub use api::change_stream::{ChangeKind, ChangeLog, ChangeRecord, StreamPosition};
pub use api::database::{
    BackupInfo, CommittedWrite, Database, DropRowRange, Durability, HotTablet, OpenOptions,
    RowMutations, StoredCell, VerifyReport,
};
pub use api::faults::{FaultInjector, FaultOutcome, FaultRule};
#[cfg(feature = "std")]
pub use api::instance::{InstanceData, Routed};
pub use api::instances::{
    AppProfileRecord, Autoscaling, ClusterRecord, InstanceRecord, InstanceType, LogicalViewRecord,
    MaterializedViewRecord, StorageType,
};
#[cfg(feature = "serde")]
pub use api::json;
pub use api::materialized_views::MaterializedViewInfo;
pub use api::replica_set::{ClusterChange, ClusterDatabase, ReplicaSet};
#[cfg(feature = "std")]
pub use api::replicated::ReplicatedInstance;
pub use api::replication::{AppProfile, Delivery, Isolation, Replication, RequestKind, Routing};
#[cfg(feature = "std")]
pub use api::shared::SharedDatabase;
pub use error::{Code, Error, Result};
pub use model::authorized_view::{FamilySubset, SubsetView};
pub use model::filter::{CompiledFilter, RowFilter};
pub use model::gc::{GcMode, GcRule};
pub use model::mutation::{
    validate_mutate_rows_batch, Mutation, TimestampRange, SERVER_TIME_MICROS,
};
pub use model::read_modify_write::{ReadModifyWriteOp, ReadModifyWriteRule};
pub use model::request::ReadRowsRequest;
pub use model::row::{samples_in_range, Cell, Row, SampleRowKey};
pub use model::row_key_schema::{
    Int64Encoding, KeyField, KeyFieldType, KeyValue, RowKeySchema, StructEncoding,
};
pub use model::row_set::{RowRange, RowSet};
pub use model::schema::{
    ColumnFamily, Families, FamilyModification, Granularity, TableConfig, TableInfo, TabletOptions,
    ValueType,
};
pub use platform::clock::Clock;
#[cfg(target_has_atomic = "64")]
pub use platform::clock::ManualClock;
#[cfg(feature = "std")]
pub use platform::clock::SystemClock;
pub use platform::random::{RandomSource, SplitMix64};
pub use table::batch::{row_bytes, BatchLimits, RowBatch};
pub use table::read::RowStream;
pub use table::stats::{AccessCounters, AccessStat, StatsOptions};
pub use table::table::{TabletEvent, TabletEventKind, TabletInfo};

/// The README's Rust examples, compiled and run as doctests so the README stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
