//! A secondary-index view's key, as data: which SELECT items form it and the row-key schema
//! that encodes them. A leaf, so the view (which holds one) and the index maintenance (which
//! builds and uses it) both depend on it and not on each other.

use alloc::vec::Vec;

use crate::model::row_key_schema::RowKeySchema;

/// A secondary-index view's key: the SELECT items that form it, in ORDER BY order, and the
/// schema that encodes them.
#[derive(Debug, Clone)]
pub(crate) struct IndexKey {
    /// The key's SELECT items, in key order.
    pub(crate) items: Vec<usize>,
    /// The view table's row-key schema.
    pub(crate) schema: RowKeySchema,
}
