//! Layer 4, the log-structured merge tree of one key space: internal keys, the memtable,
//! immutable sorted runs (SSTables) on storage, and resolving a row from its entries.
//!
//! Contract: entries are keyed by [`internal_key`] so that bytewise key order is read order;
//! a [`source::Source`] answers seeks and ordered iteration over its entries; runs are
//! immutable once written and shared by `Arc`; [`row_merge`] turns one row's entries from
//! every source into the cells its deletes leave visible. Nothing here knows tablets or
//! tables. Imports: `codec`, `model`, `platform` and the foundation.

pub(crate) mod internal_key;
pub(crate) mod memtable;
pub(crate) mod persist;
pub(crate) mod row_bloom;
pub(crate) mod row_merge;
pub(crate) mod runs;
pub(crate) mod source;
pub mod sstable;
