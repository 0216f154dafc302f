//! Read requests: which rows a read visits, what it keeps of them, how many, in which order.
//!
//! A [`ReadRowsRequest`] is a plain value (Bigtable's `ReadRowsRequest` without the table
//! name); it is validated when a read starts (the filter compiled, the limit checked).

use crate::model::filter::RowFilter;
use crate::model::row_set::RowSet;

/// What to read: which rows, what of them, how many, in which direction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReadRowsRequest {
    /// The rows to visit; empty means all.
    pub row_set: RowSet,
    /// What to keep of each row; the default keeps everything.
    pub filter: RowFilter,
    /// Most rows to return; 0 means no limit, negative is `InvalidArgument`.
    pub rows_limit: i64,
    /// Return rows in descending key order (cells within a row keep their order).
    pub reversed: bool,
}
