//! Layer 2, the data model: Bigtable's vocabulary as plain values, and its rules.
//!
//! Contract: schemas (families, GC rules), mutations, rows and cells, row sets, the RowFilter
//! language, ReadModifyWriteRow rules and read requests, each validated by its own
//! constructors and `validate` functions. Nothing here stores or reads data: a value of this
//! layer means the same in memory, on disk and on the wire. Imports: `platform` and the
//! foundation only.

pub mod aggregate;
pub mod authorized_view;
pub mod farmhash;
pub mod filter;
pub mod gc;
pub mod hll;
pub mod mutation;
pub mod read_modify_write;
pub mod regex;
pub mod request;
pub mod row;
pub mod row_set;
pub mod schema;
