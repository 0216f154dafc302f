//! What the instance's two kinds of views share: each is a named, etagged, protected view
//! (an id, a query, `deletion_protection`, an `etag`), kept sorted by id in the instance
//! record. [`InstanceView`] says what differs between the kinds (the order of a create
//! request's checks, the limit on their number, and the words of each error, which stay those
//! each kind has always given, since clients and the shared vectors compare them); the
//! Create / Update / Delete steps written once over it are in `view_ops.rs`.
//!
//! This file knows nothing of [`super::InstanceRecord`] (the record imports it to check its
//! invariants), so the record's file and this one never import each other.
//!
//! Invariant checked by [`check_views`]: ids strictly increasing (sorted, distinct) and each
//! valid by its kind's rule.

use alloc::string::String;

use crate::{Error, Result};

/// A view of an instance as the record keeps it (see the module docs).
pub trait InstanceView: Clone {
    /// A new view, with an etag still to be set.
    fn new(id: &str, query: &str, deletion_protection: bool) -> Self;
    /// Its id.
    fn id(&self) -> &str;
    /// Its current etag.
    fn etag(&self) -> &str;
    /// Gives it a new etag (every change does).
    fn set_etag(&mut self, etag: String);
    /// Whether deletion is refused.
    fn deletion_protection(&self) -> bool;

    /// Checks an id by the kind's rule.
    ///
    /// # Errors
    /// `InvalidArgument` naming the rule.
    fn validate_id(id: &str) -> Result<()>;
    /// The checks of a create request that need no record, in the kind's own order.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or a missing query.
    fn check_request(id: &str, query: &str) -> Result<()>;
    /// Whether an instance that has `count` views of this kind may have one more.
    ///
    /// # Errors
    /// `InvalidArgument` naming the limit.
    fn check_room(count: usize) -> Result<()>;

    /// The error for an id the instance already has.
    fn already_exists(id: &str, instance: &str) -> Error;
    /// The error for an id the instance lacks.
    fn not_found(id: &str, instance: &str) -> Error;
    /// The error for an etag that is not `view`'s current one.
    fn stale(instance: &str, view: &Self, etag: &str) -> Error;
    /// The error for deleting a view with deletion protection.
    fn protected(id: &str) -> Error;
    /// What [`check_views`] says of views not sorted by distinct ids.
    const UNSORTED: &'static str;
}

/// Implements [`InstanceView`]'s field accessors for a record with the fields `id`, `query`,
/// `deletion_protection` and `etag` (both kinds have exactly these).
macro_rules! view_fields {
    () => {
        fn new(id: &str, query: &str, deletion_protection: bool) -> Self {
            Self {
                id: alloc::string::ToString::to_string(id),
                query: alloc::string::ToString::to_string(query),
                deletion_protection,
                etag: alloc::string::String::new(),
            }
        }
        fn id(&self) -> &str {
            &self.id
        }
        fn etag(&self) -> &str {
            &self.etag
        }
        fn set_etag(&mut self, etag: alloc::string::String) {
            self.etag = etag;
        }
        fn deletion_protection(&self) -> bool {
            self.deletion_protection
        }
    };
}
pub(super) use view_fields;

/// `Aborted` (as `V` words it) unless `etag` is empty or `view`'s current one.
pub(super) fn check_etag<V: InstanceView>(instance: &str, view: &V, etag: &str) -> Result<()> {
    if !etag.is_empty() && etag != view.etag() {
        return Err(V::stale(instance, view, etag));
    }
    Ok(())
}

/// Checks the views' part of the record's invariants (see the module docs).
///
/// # Errors
/// `InvalidArgument`: [`InstanceView::UNSORTED`], or a bad id.
pub(super) fn check_views<V: InstanceView>(views: &[V]) -> Result<()> {
    if views.windows(2).any(|w| w[0].id() >= w[1].id()) {
        return Err(Error::invalid_argument(V::UNSORTED));
    }
    views.iter().try_for_each(|v| V::validate_id(v.id()))
}
