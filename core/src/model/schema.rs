//! Table schemas: column families, their GC rules, and table options.
//!
//! Invariants: family names match `[-_.a-zA-Z0-9]+` and are at most 64 characters; table ids
//! match `[_a-zA-Z0-9][-_.a-zA-Z0-9]*` and are at most 50 characters. A table's families
//! ([`Families`]) are kept in creation order, the order Cloud Bigtable returns a row's
//! families in: the families of one CreateTable request in the request's order, each later
//! created family after them, a dropped and re-created family last.

use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

use crate::error::quoted;
use crate::limits;
use crate::model::gc::GcRule;
use crate::{Error, Result};

/// The precision of timestamps a table accepts, as Bigtable's `TimestampGranularity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Granularity {
    /// User timestamps must be multiples of 1000 microseconds (Bigtable's default).
    #[default]
    Millis,
    /// Any microsecond timestamp is accepted.
    Micros,
}

/// What a family's cells hold, as Bigtable's column family `value_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueType {
    /// Plain bytes, written with SetCell (the default).
    #[default]
    Bytes,
    /// An aggregate: 8-byte big-endian int64 cells that AddToCell sums.
    Int64Sum,
    /// An aggregate keeping the minimum of the int64 inputs.
    Int64Min,
    /// An aggregate keeping the maximum of the int64 inputs.
    Int64Max,
    /// Bigtable's `HyperLogLogPlusPlusUniqueCount` aggregate: cells hold a HyperLogLog++
    /// sketch of the inputs (see `model::aggregate`).
    HllUniqueCount,
}

impl ValueType {
    /// The names front-ends use for the value types: `bytes`, `int64_sum`, `int64_min`,
    /// `int64_max`, `hllpp_unique_count` (Bigtable's `Type`: bytes, an int64 aggregate with a
    /// sum, min or max, or the HyperLogLog++ unique count aggregate).
    pub const NAMES: [&'static str; 5] = [
        "bytes",
        "int64_sum",
        "int64_min",
        "int64_max",
        "hllpp_unique_count",
    ];

    /// The value type named `name` (one of [`ValueType::NAMES`]).
    ///
    /// # Errors
    /// `InvalidArgument` listing the names otherwise.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "bytes" => Ok(ValueType::Bytes),
            "int64_sum" => Ok(ValueType::Int64Sum),
            "int64_min" => Ok(ValueType::Int64Min),
            "int64_max" => Ok(ValueType::Int64Max),
            "hllpp_unique_count" => Ok(ValueType::HllUniqueCount),
            other => Err(Error::invalid_argument(format!(
                "value type {} must be one of bytes, int64_sum, int64_min, int64_max, \
                 hllpp_unique_count",
                quoted(other)
            ))),
        }
    }

    /// This type's name (see [`ValueType::NAMES`]).
    pub fn name(self) -> &'static str {
        match self {
            ValueType::Bytes => "bytes",
            ValueType::Int64Sum => "int64_sum",
            ValueType::Int64Min => "int64_min",
            ValueType::Int64Max => "int64_max",
            ValueType::HllUniqueCount => "hllpp_unique_count",
        }
    }

    /// Whether cells of this type are written with AddToCell/MergeToCell.
    pub fn is_aggregate(self) -> bool {
        self != ValueType::Bytes
    }

    /// Merges an int64 input into an int64 aggregate's current value (a HyperLogLog++
    /// family's cells are sketches: `model::aggregate::merged_value` merges those).
    pub fn merge(self, current: i64, input: i64) -> i64 {
        match self {
            ValueType::Bytes | ValueType::Int64Sum => current.wrapping_add(input),
            ValueType::Int64Min => current.min(input),
            ValueType::Int64Max => current.max(input),
            ValueType::HllUniqueCount => current,
        }
    }
}

/// One column family's settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnFamily {
    /// What the family's garbage collection keeps.
    pub gc_rule: GcRule,
    /// What its cells hold; fixed when the family is created.
    pub value_type: ValueType,
}

/// When a table's tablets flush, compact, split and merge.
///
/// The default split size, 64 MiB, keeps a tablet's full compaction (which rewrites the
/// tablet, and runs before it splits) cheap while leaving tablets big enough that a scan
/// crosses few boundaries; the playground sets tiny sizes so people see splits happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TabletOptions {
    /// A tablet's memtable becomes a run past this many bytes.
    pub memtable_bytes: u64,
    /// Once more than this many of a tablet's runs overlap (hold entries of one row range),
    /// runs of similar size merge; runs of disjoint row ranges (a load in key order) never
    /// need to. See docs/design.md, "Compaction strategy".
    pub max_runs: usize,
    /// A tablet larger than this splits near the middle of its bytes (between its runs when
    /// they are disjoint, else after a full compaction).
    pub split_bytes: u64,
    /// Adjacent tablets both smaller than this merge (if both are also cold).
    pub merge_bytes: u64,
    /// A tablet whose reads plus writes in the current statistics time bucket pass this
    /// splits at its middle row, however small it is (0 disables load splitting).
    pub split_load_ops: u64,
}

impl Default for TabletOptions {
    fn default() -> Self {
        TabletOptions {
            memtable_bytes: 4 << 20,
            max_runs: 4,
            split_bytes: 64 << 20,
            merge_bytes: 8 << 20,
            split_load_ops: 500_000,
        }
    }
}

/// A table's column families in creation order, each name once.
///
/// Iteration (and every listing built from it) follows creation order; lookups by name cost
/// a binary search. [`Families::insert`] of a new name appends it, of an existing name
/// replaces its settings in place (an update keeps the family's position);
/// [`Families::remove`] closes the gap, so a family created again goes last. Equality
/// compares the order too.
///
/// Cloning is cheap: clones share one copy until one of them changes (copy on write). Every
/// read stream takes the table's families with its view, so a clone must not cost an
/// allocation per family.
#[derive(Clone, PartialEq, Eq)]
pub struct Families {
    inner: Arc<FamilyList>,
}

/// The shared part of [`Families`].
#[derive(Clone, PartialEq, Eq)]
struct FamilyList {
    /// Name and settings, in creation order.
    entries: Vec<(String, ColumnFamily)>,
    /// Indexes into `entries`, sorted by name: the lookup index.
    by_name: Vec<usize>,
    /// Whether creation order is name order (`by_name` is the identity).
    name_ordered: bool,
}

impl core::fmt::Debug for Families {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map()
            .entries(self.inner.entries.iter().map(|(n, c)| (n, c)))
            .finish()
    }
}

impl Default for Families {
    fn default() -> Self {
        Families {
            inner: Arc::new(FamilyList {
                entries: Vec::new(),
                by_name: Vec::new(),
                name_ordered: true,
            }),
        }
    }
}

impl Families {
    /// No families.
    pub fn new() -> Self {
        Families::default()
    }

    /// How many families there are.
    pub fn len(&self) -> usize {
        self.inner.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.inner.entries.is_empty()
    }

    /// Where `name` sits in `by_name`: found at, or to be inserted at.
    fn search(&self, name: &str) -> core::result::Result<usize, usize> {
        let list = &*self.inner;
        list.by_name
            .binary_search_by(|&i| list.entries[i].0.as_str().cmp(name))
    }

    /// The family's creation rank: 0 for the oldest family. `None` if absent.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.search(name).ok().map(|at| self.inner.by_name[at])
    }

    /// The named family's settings.
    pub fn get(&self, name: &str) -> Option<&ColumnFamily> {
        self.position(name).map(|i| &self.inner.entries[i].1)
    }

    /// The named family's stored name and settings: the name borrowed from the schema, for
    /// a caller that must keep it longer than its own argument.
    pub fn get_key_value(&self, name: &str) -> Option<(&str, &ColumnFamily)> {
        self.position(name)
            .map(|i| (self.inner.entries[i].0.as_str(), &self.inner.entries[i].1))
    }

    /// The named family's settings, to change in place.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut ColumnFamily> {
        let i = self.position(name)?;
        Some(&mut Arc::make_mut(&mut self.inner).entries[i].1)
    }

    /// Whether the family exists.
    pub fn contains_key(&self, name: &str) -> bool {
        self.search(name).is_ok()
    }

    /// Adds a family after every existing one, or replaces an existing family's settings in
    /// place (its position unchanged); returns the settings replaced.
    pub fn insert(&mut self, name: String, family: ColumnFamily) -> Option<ColumnFamily> {
        let found = self.search(&name);
        let list = Arc::make_mut(&mut self.inner);
        match found {
            Ok(at) => Some(core::mem::replace(
                &mut list.entries[list.by_name[at]].1,
                family,
            )),
            Err(at) => {
                list.by_name.insert(at, list.entries.len());
                list.entries.push((name, family));
                list.name_ordered &= at + 1 == list.by_name.len();
                None
            }
        }
    }

    /// Removes a family; the ones created after it move up one place.
    pub fn remove(&mut self, name: &str) -> Option<ColumnFamily> {
        let at = self.search(name).ok()?;
        let list = Arc::make_mut(&mut self.inner);
        let index = list.by_name.remove(at);
        for i in &mut list.by_name {
            if *i > index {
                *i -= 1;
            }
        }
        list.name_ordered = list.by_name.iter().enumerate().all(|(rank, &i)| rank == i);
        Some(list.entries.remove(index).1)
    }

    /// Names and settings in creation order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&String, &ColumnFamily)> {
        self.inner.entries.iter().map(|(n, f)| (n, f))
    }

    /// Names in creation order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &String> {
        self.inner.entries.iter().map(|(n, _)| n)
    }

    /// Settings in creation order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = &ColumnFamily> {
        self.inner.entries.iter().map(|(_, f)| f)
    }

    /// Whether creation order is name order, so rows need no regrouping (the common case:
    /// one family, or families created in name order).
    pub fn is_name_ordered(&self) -> bool {
        self.inner.name_ordered
    }
}

impl<S: Into<String>> FromIterator<(S, ColumnFamily)> for Families {
    /// Families in the iterator's order; a repeated name keeps its first position and its
    /// last settings, as repeated [`Families::insert`] calls would.
    fn from_iter<I: IntoIterator<Item = (S, ColumnFamily)>>(iter: I) -> Self {
        let mut families = Families::new();
        for (name, family) in iter {
            families.insert(name.into(), family);
        }
        families
    }
}

impl<S: Into<String>> Extend<(S, ColumnFamily)> for Families {
    fn extend<I: IntoIterator<Item = (S, ColumnFamily)>>(&mut self, iter: I) {
        for (name, family) in iter {
            self.insert(name.into(), family);
        }
    }
}

impl<'a> IntoIterator for &'a Families {
    type Item = (&'a String, &'a ColumnFamily);
    type IntoIter = core::iter::Map<
        core::slice::Iter<'a, (String, ColumnFamily)>,
        fn(&'a (String, ColumnFamily)) -> (&'a String, &'a ColumnFamily),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.inner.entries.iter().map(|(n, f)| (n, f))
    }
}

impl IntoIterator for Families {
    type Item = (String, ColumnFamily);
    type IntoIter = alloc::vec::IntoIter<(String, ColumnFamily)>;
    fn into_iter(self) -> Self::IntoIter {
        // The entries themselves when this is the only copy, else a copy of them.
        Arc::try_unwrap(self.inner)
            .unwrap_or_else(|shared| (*shared).clone())
            .entries
            .into_iter()
    }
}

/// Everything needed to create a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableConfig {
    /// Column families in creation order (see [`Families`]).
    pub families: Families,
    /// Timestamp precision.
    pub granularity: Granularity,
    /// When set, deleting the table fails with `FailedPrecondition`.
    pub deletion_protection: bool,
    /// Row keys at which the table starts out split into tablets.
    pub initial_splits: Vec<Vec<u8>>,
    /// Largest accepted cell value in bytes.
    pub max_value_bytes: usize,
    /// Tablet flush, compaction, split and merge thresholds.
    pub tablet_options: TabletOptions,
}

impl Default for TableConfig {
    fn default() -> Self {
        TableConfig {
            families: Families::new(),
            granularity: Granularity::Millis,
            deletion_protection: false,
            initial_splits: Vec::new(),
            max_value_bytes: limits::DEFAULT_MAX_VALUE_BYTES,
            tablet_options: TabletOptions::default(),
        }
    }
}

impl TableConfig {
    /// A config with the named families in the given order, each without a GC rule.
    pub fn with_families<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        TableConfig {
            families: names
                .into_iter()
                .map(|n| (n.into(), ColumnFamily::default()))
                .collect(),
            ..TableConfig::default()
        }
    }

    /// Checks family names, GC rules and split keys.
    ///
    /// # Errors
    /// `InvalidArgument` naming the offending family or split key.
    pub fn validate(&self) -> Result<()> {
        for (name, family) in &self.families {
            validate_family_name(name)?;
            family.gc_rule.validate().map_err(|e| {
                Error::invalid_argument(format!("column family {}: {}", quoted(name), e.message()))
            })?;
        }
        for key in &self.initial_splits {
            if key.is_empty() {
                return Err(Error::invalid_argument(
                    "initial_splits: a split key must be non-empty",
                ));
            }
            if key.len() > limits::MAX_ROW_KEY_BYTES {
                return Err(Error::invalid_argument(
                    "initial_splits: a split key is longer than 4096 bytes",
                ));
            }
        }
        let t = &self.tablet_options;
        if t.memtable_bytes == 0
            || t.max_runs == 0
            || t.split_bytes == 0
            || t.merge_bytes >= t.split_bytes
        {
            return Err(Error::invalid_argument(
                "tablet_options: sizes must be positive and merge_bytes below split_bytes",
            ));
        }
        if self.max_value_bytes == 0 {
            return Err(Error::invalid_argument("max_value_bytes must be positive"));
        }
        Ok(())
    }
}

/// One change to a table's column families, as Bigtable's `ModifyColumnFamiliesRequest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FamilyModification {
    /// Adds a family; `AlreadyExists` if present.
    Create {
        /// The new family's name.
        name: String,
        /// Its settings.
        family: ColumnFamily,
    },
    /// Replaces a family's settings (its GC rule); `NotFound` if absent.
    Update {
        /// The family's name.
        name: String,
        /// Its new settings.
        family: ColumnFamily,
    },
    /// Removes a family and deletes its data; `NotFound` if absent.
    Drop {
        /// The family's name.
        name: String,
    },
}

/// What `get_table` and `list_tables` report about a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    /// The table id.
    pub name: String,
    /// The table's current schema and options.
    pub config: TableConfig,
}

/// Checks a table id against Bigtable's rules.
///
/// # Errors
/// `InvalidArgument` if the id is empty, too long or has a character outside
/// `[-_.a-zA-Z0-9]` (or starts with `-` or `.`).
pub fn validate_table_id(table_id: &str) -> Result<()> {
    let ok_first = table_id
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_');
    let ok_rest = table_id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !ok_first || !ok_rest || table_id.len() > limits::MAX_TABLE_ID_CHARS {
        return Err(Error::invalid_argument(format!(
            "table_id {} must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most {} characters",
            quoted(table_id),
            limits::MAX_TABLE_ID_CHARS
        )));
    }
    Ok(())
}

/// Checks a column family name against Bigtable's rules.
///
/// # Errors
/// `InvalidArgument` if the name is empty, longer than 64 characters or has a character
/// outside `[-_.a-zA-Z0-9]`.
pub fn validate_family_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= limits::MAX_FAMILY_NAME_CHARS
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "column family name {} must match [-_.a-zA-Z0-9]+ and be at most {} characters",
            quoted(name),
            limits::MAX_FAMILY_NAME_CHARS
        )))
    }
}
