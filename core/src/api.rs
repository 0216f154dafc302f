//! Layer 7, the API: the [`database::Database`] a front-end opens, the Data and table-admin
//! operations over it, durability (logging, flushing, recovery) and the thread-safe
//! [`shared::SharedDatabase`] handle, and (with the `serde` feature) [`json`], the proto3 JSON
//! form of the requests and responses, which sits here because its request bodies carry
//! [`database::RowMutations`].
//!
//! Contract: every entry point validates its whole input before changing anything and
//! returns an [`crate::Error`] whose code follows gRPC's; a failed call leaves the database
//! as it was. Front-ends use this layer (and the model types) and nothing below it.
//! Imports: every layer below.

pub mod change_chunks;
pub mod change_stream;
#[cfg(feature = "std")]
pub mod change_stream_reader;
pub mod database;
pub mod faults;
#[cfg(feature = "std")]
pub mod instance;
pub mod instances;
#[cfg(feature = "serde")]
pub mod json;
pub mod replica_set;
#[cfg(feature = "std")]
pub mod replicated;
pub mod replication;
#[cfg(feature = "std")]
pub mod shared;
pub mod sql;
