//! Bigtable's documented limits, enforced with `InvalidArgument` (shared/REFERENCE.md),
//! and the limits requests carry in proto3 defaults ([`rows_limit`]), interpreted here once
//! for every front-end.

/// Longest row key, in bytes. Row keys must also be non-empty.
pub const MAX_ROW_KEY_BYTES: usize = 4 * 1024;
/// Longest column qualifier, in bytes.
pub const MAX_QUALIFIER_BYTES: usize = 16 * 1024;
/// Default largest cell value, in bytes (a table option).
pub const DEFAULT_MAX_VALUE_BYTES: usize = 100 * 1024 * 1024;
/// Most mutations in one MutateRow, and in one MutateRows request in total.
pub const MAX_MUTATIONS_PER_REQUEST: usize = 100_000;
/// Largest request message a front-end accepts, in bytes: 256 MiB, so a cell of
/// [`DEFAULT_MAX_VALUE_BYTES`] fits in one MutateRow with room to spare. The server's gRPC
/// transport and the wasm build's JSON reader both take their limit from here.
pub const MAX_REQUEST_BYTES: usize = 256 * 1024 * 1024;
/// Longest column family name.
pub const MAX_FAMILY_NAME_CHARS: usize = 64;
/// Longest table id.
pub const MAX_TABLE_ID_CHARS: usize = 50;
/// Deepest nesting of a RowFilter.
pub const MAX_FILTER_DEPTH: usize = 20;
/// Most nodes in one RowFilter tree (every filter counts, chains and interleaves included).
/// Filters are validated and compiled per request, so their size bounds a request's CPU
/// before any row is read; real filters have a handful of nodes, and an interleave of a few
/// hundred column selectors still fits. Front-ends whose callers can share one object at many
/// places (Python, Kotlin) also count filters while converting and refuse the rest, so a small
/// object graph cannot expand into an exponential tree before the engine sees it.
pub const MAX_FILTER_NODES: usize = 1000;
/// Most regex bytes in one RowFilter, all its regexes together: Cloud Bigtable refuses row
/// filters over 20 KB, and compiling regexes is what makes a large filter expensive.
pub const MAX_FILTER_REGEX_BYTES: usize = 20 * 1024;
/// Largest valid user timestamp under MILLIS granularity.
pub const MAX_TIMESTAMP_MICROS: i64 = i64::MAX - (i64::MAX % 1000);
/// Deepest nesting of a GC rule, counting the leaf rules as a level (what the on-disk
/// encoding reads back). Every front-end counts levels while it converts a rule, before it
/// descends, so no recursive code (conversion, validation, GC, `Debug`, `Drop`) sees a deeper
/// tree.
pub const MAX_GC_RULE_DEPTH: usize = 32;
/// Most rules (leaves and lists) in one GC rule. Bigtable documents no such limit; it is here
/// because a front-end whose callers can share one object at many places (a JavaScript or
/// Python object graph) would otherwise expand a small graph into an exponential tree: each
/// front-end counts rules while it converts, and refuses the rest.
pub const MAX_GC_RULE_NODES: usize = 1024;

/// The size limits of one kind of tree a request carries (a RowFilter, a GC rule) and the
/// errors that report them: the one place for both, so the core's validation and every
/// front-end that counts while it converts (before anything recursive sees a hostile tree)
/// say the same words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeLimits {
    /// What the tree is, as its messages name it (`filter`, `gc_rule`).
    pub what: &'static str,
    /// Deepest nesting, the root counting as level 1.
    pub max_depth: usize,
    /// Most nodes (every member counts, lists included).
    pub max_nodes: usize,
    /// How a too-deep message says it (`nesting deeper than`).
    deeper: &'static str,
    /// What a too-big message counts (`filters in one RowFilter`).
    counted: &'static str,
}

/// A RowFilter's limits: [`MAX_FILTER_DEPTH`] levels, [`MAX_FILTER_NODES`] filters.
pub const FILTER_TREE: TreeLimits = TreeLimits {
    what: "filter",
    max_depth: MAX_FILTER_DEPTH,
    max_nodes: MAX_FILTER_NODES,
    deeper: "nesting deeper than",
    counted: "filters in one RowFilter",
};

/// A GC rule's limits: [`MAX_GC_RULE_DEPTH`] levels, [`MAX_GC_RULE_NODES`] rules.
pub const GC_RULE_TREE: TreeLimits = TreeLimits {
    what: "gc_rule",
    max_depth: MAX_GC_RULE_DEPTH,
    max_nodes: MAX_GC_RULE_NODES,
    deeper: "nested deeper than",
    counted: "rules",
};

impl TreeLimits {
    /// Limits of another kind of tree: `deeper` says how a too-deep message puts it
    /// (`nested deeper than`), `counted` what a too-big one counts (`rules`). For tests of
    /// code that walks trees; the API's trees are [`FILTER_TREE`] and [`GC_RULE_TREE`].
    pub const fn new(
        what: &'static str,
        max_depth: usize,
        max_nodes: usize,
        deeper: &'static str,
        counted: &'static str,
    ) -> Self {
        TreeLimits {
            what,
            max_depth,
            max_nodes,
            deeper,
            counted,
        }
    }

    /// The words of [`TreeLimits::too_deep`], e.g. `filter: nesting deeper than 20 levels`.
    pub fn too_deep_message(&self) -> alloc::string::String {
        alloc::format!("{}: {} {} levels", self.what, self.deeper, self.max_depth)
    }

    /// The `InvalidArgument` for a tree deeper than [`TreeLimits::max_depth`].
    pub fn too_deep(&self) -> crate::Error {
        crate::Error::invalid_argument(self.too_deep_message())
    }

    /// The words of [`TreeLimits::too_many`], e.g. `gc_rule: more than 1024 rules`.
    pub fn too_many_message(&self) -> alloc::string::String {
        alloc::format!(
            "{}: more than {} {}",
            self.what,
            self.max_nodes,
            self.counted
        )
    }

    /// The `InvalidArgument` for a tree with more than [`TreeLimits::max_nodes`] nodes.
    pub fn too_many(&self) -> crate::Error {
        crate::Error::invalid_argument(self.too_many_message())
    }

    /// Checks a tree (or the part counted so far) of `depth` levels and `nodes` nodes.
    ///
    /// # Errors
    /// [`TreeLimits::too_deep`], then [`TreeLimits::too_many`].
    pub fn check(&self, depth: usize, nodes: usize) -> crate::Result<()> {
        if depth > self.max_depth {
            Err(self.too_deep())
        } else if nodes > self.max_nodes {
            Err(self.too_many())
        } else {
            Ok(())
        }
    }
}

/// The words for a cell value of `len` bytes over its table's `limit` (the table's
/// `max_value_bytes`, [`DEFAULT_MAX_VALUE_BYTES`] unless set): the core's validation says
/// them after where the value is (`mutations[0]: `), and a front-end that refuses an
/// oversized value before copying it across its FFI says them alone.
pub fn value_too_large_message(len: usize, limit: usize) -> alloc::string::String {
    alloc::format!("value of {len} bytes exceeds the limit of {limit} bytes")
}

/// ReadRows' `rows_limit` as the proto defines it: the most rows to return, where 0 (the
/// proto default) means no limit. `None` is no limit.
///
/// # Errors
/// `InvalidArgument` for a negative limit, as Cloud Bigtable answers.
pub fn rows_limit(rows_limit: i64) -> crate::Result<Option<u64>> {
    match u64::try_from(rows_limit) {
        Ok(0) => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(crate::Error::invalid_argument(alloc::format!(
            "rows_limit {rows_limit} must not be negative"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_limits_say_the_words_every_front_end_reports() {
        assert_eq!(
            FILTER_TREE.too_deep_message(),
            "filter: nesting deeper than 20 levels"
        );
        assert_eq!(
            FILTER_TREE.too_many_message(),
            "filter: more than 1000 filters in one RowFilter"
        );
        assert_eq!(
            GC_RULE_TREE.too_deep_message(),
            "gc_rule: nested deeper than 32 levels"
        );
        assert_eq!(
            GC_RULE_TREE.too_many_message(),
            "gc_rule: more than 1024 rules"
        );
        assert!(FILTER_TREE.check(20, 1000).is_ok());
        assert_eq!(
            FILTER_TREE.check(21, 1).unwrap_err().code(),
            crate::Code::InvalidArgument
        );
        assert_eq!(
            GC_RULE_TREE.check(1, 1025).unwrap_err().message(),
            "gc_rule: more than 1024 rules"
        );
    }

    #[test]
    fn value_too_large_says_both_sizes() {
        assert_eq!(
            value_too_large_message(5, 4),
            "value of 5 bytes exceeds the limit of 4 bytes"
        );
    }

    #[test]
    fn rows_limit_zero_is_no_limit_and_negative_is_refused() {
        assert_eq!(rows_limit(0), Ok(None));
        assert_eq!(rows_limit(3), Ok(Some(3)));
        assert_eq!(
            rows_limit(-1).unwrap_err().code(),
            crate::Code::InvalidArgument
        );
    }
}
