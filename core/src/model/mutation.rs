//! Mutations: the changes a write applies to one row.
//!
//! A list of mutations for one row is applied atomically and in order: the engine validates
//! every mutation against the table's schema before it changes anything, so an invalid
//! mutation anywhere in the list means nothing of the call is applied.
//!
//! Wire rules live here, once, for every front-end: the protos encode some meanings in
//! default values (a `TimestampRange` end of 0 is unbounded; a SetCell timestamp of `-1` asks
//! for the server's time). Front-ends convert their types and call
//! [`TimestampRange::from_wire`], [`SERVER_TIME_MICROS`] and [`server_timestamp`]; none of
//! them re-implements a rule.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use alloc::borrow::Cow;

use crate::error::quoted;
use crate::limits;
use crate::model::schema::{Granularity, TableConfig, ValueType};
use crate::{Error, Result};

/// A half-open time range `[start, end)` in microseconds; `end = None` is unbounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimestampRange {
    /// Inclusive start (0 = from the beginning).
    pub start_micros: i64,
    /// Exclusive end; `None` = unbounded.
    pub end_micros: Option<i64>,
}

/// The SetCell timestamp that asks for the server's current time, as Bigtable's protos
/// define it. The engine resolves it once, when the write is committed
/// ([`server_timestamp`]), so the commit log and the memtable hold the same timestamp.
pub const SERVER_TIME_MICROS: i64 = -1;

/// The timestamp a SetCell with [`SERVER_TIME_MICROS`] gets in a table of `granularity` at
/// `now_micros`: the time truncated to the table's granularity, so it is always a valid
/// user timestamp there.
pub fn server_timestamp(granularity: Granularity, now_micros: i64) -> i64 {
    match granularity {
        Granularity::Millis => now_micros - now_micros.rem_euclid(1000),
        Granularity::Micros => now_micros,
    }
}

/// `mutations` with every SetCell at [`SERVER_TIME_MICROS`] stamped `server_ts`; borrowed
/// unchanged (no copy) when none asks for server time.
pub fn resolve_server_time(mutations: &[Mutation], server_ts: i64) -> Cow<'_, [Mutation]> {
    let asks = |m: &Mutation| {
        matches!(
            m,
            Mutation::SetCell {
                timestamp_micros: SERVER_TIME_MICROS,
                ..
            }
        )
    };
    if !mutations.iter().any(asks) {
        return Cow::Borrowed(mutations);
    }
    Cow::Owned(
        mutations
            .iter()
            .map(|m| match m {
                Mutation::SetCell {
                    family,
                    qualifier,
                    timestamp_micros: SERVER_TIME_MICROS,
                    value,
                } => Mutation::SetCell {
                    family: family.clone(),
                    qualifier: qualifier.clone(),
                    timestamp_micros: server_ts,
                    value: value.clone(),
                },
                other => other.clone(),
            })
            .collect(),
    )
}

impl TimestampRange {
    /// The range a Bigtable `TimestampRange` message means: `start_timestamp_micros` is
    /// inclusive (0, the proto default, is the beginning of time) and
    /// `end_timestamp_micros` exclusive, where 0 (the proto default) is unbounded. Used for
    /// DeleteFromColumn's `time_range` and the `timestamp_range_filter` alike. A front-end
    /// whose API leaves an end unset passes 0.
    ///
    /// The values are not checked here: [`Mutation::validate`] and the filter compiler
    /// reject negative or misordered ends with `InvalidArgument`.
    pub fn from_wire(start_timestamp_micros: i64, end_timestamp_micros: i64) -> Self {
        TimestampRange {
            start_micros: start_timestamp_micros,
            end_micros: (end_timestamp_micros != 0).then_some(end_timestamp_micros),
        }
    }

    /// The wire form of the range, `(start_timestamp_micros, end_timestamp_micros)`, with an
    /// unbounded end as 0: the inverse of [`TimestampRange::from_wire`].
    pub fn to_wire(&self) -> (i64, i64) {
        (self.start_micros, self.end_micros.unwrap_or(0))
    }

    /// Whether `ts` is inside the range.
    pub fn contains(&self, ts: i64) -> bool {
        ts >= self.start_micros && self.end_micros.is_none_or(|end| ts < end)
    }
}

/// One change to one row, as Bigtable's `Mutation`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    /// Writes a value at (family, qualifier, timestamp), replacing any cell there.
    SetCell {
        /// Column family; must exist in the table.
        family: String,
        /// Column qualifier (at most 16 KiB).
        qualifier: Vec<u8>,
        /// Microseconds; `-1` means the server's current time.
        timestamp_micros: i64,
        /// The value (at most the table's `max_value_bytes`).
        value: Vec<u8>,
    },
    /// Merges an int64 input into the aggregate cell at (family, qualifier, timestamp) of an
    /// aggregate family (Sum, Min or Max), creating it if absent.
    AddToCell {
        /// An aggregate column family.
        family: String,
        /// Column qualifier.
        qualifier: Vec<u8>,
        /// Microseconds (no server time: aggregates need an explicit timestamp).
        timestamp_micros: i64,
        /// The input to merge.
        input: i64,
    },
    /// Merges an aggregate state (for Sum/Min/Max: 8-byte big-endian int64; for a
    /// HyperLogLog++ family: a sketch, see `model::aggregate`) into the cell.
    MergeToCell {
        /// An aggregate column family.
        family: String,
        /// Column qualifier.
        qualifier: Vec<u8>,
        /// Microseconds.
        timestamp_micros: i64,
        /// The state to merge: exactly 8 bytes, or a HyperLogLog++ family's sketch.
        state: Vec<u8>,
    },
    /// Deletes the cells of one column, optionally only those in a time range.
    DeleteFromColumn {
        /// Column family; must exist in the table.
        family: String,
        /// Column qualifier.
        qualifier: Vec<u8>,
        /// Only cells in this range are deleted; the default covers all time.
        time_range: TimestampRange,
    },
    /// Deletes every cell of one family in the row.
    DeleteFromFamily {
        /// Column family; must exist in the table.
        family: String,
    },
    /// Deletes the whole row.
    DeleteFromRow,
}

impl Mutation {
    /// Shorthand for [`Mutation::SetCell`].
    pub fn set_cell(
        family: impl Into<String>,
        qualifier: impl Into<Vec<u8>>,
        timestamp_micros: i64,
        value: impl Into<Vec<u8>>,
    ) -> Self {
        Mutation::SetCell {
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp_micros,
            value: value.into(),
        }
    }

    /// The family the mutation names, if any.
    pub fn family(&self) -> Option<&str> {
        match self {
            Mutation::SetCell { family, .. }
            | Mutation::AddToCell { family, .. }
            | Mutation::MergeToCell { family, .. }
            | Mutation::DeleteFromColumn { family, .. }
            | Mutation::DeleteFromFamily { family } => Some(family),
            Mutation::DeleteFromRow => None,
        }
    }

    /// Checks the mutation against the table's schema and Bigtable's limits.
    ///
    /// # Errors
    /// `NotFound` for an unknown family; `InvalidArgument` for a broken limit or a bad
    /// timestamp or time range. `index` is the mutation's position, named in the message.
    pub fn validate(&self, config: &TableConfig, index: usize) -> Result<()> {
        let value_type = match self.family() {
            Some(family) => match config.families.get(family) {
                Some(f) => f.value_type,
                None => {
                    // A malformed name is INVALID_ARGUMENT wherever it is looked up.
                    crate::model::schema::validate_family_name(family).map_err(|e| {
                        Error::invalid_argument(format!("mutations[{index}]: {}", e.message()))
                    })?;
                    return Err(Error::not_found(format!(
                        "mutations[{index}]: requested column family {} not found",
                        quoted(family)
                    )));
                }
            },
            None => ValueType::Bytes,
        };
        let aggregate = matches!(
            self,
            Mutation::AddToCell { .. } | Mutation::MergeToCell { .. }
        );
        if matches!(self, Mutation::SetCell { .. }) && value_type.is_aggregate() {
            return Err(Error::invalid_argument(format!(
                "mutations[{index}]: SetCell on aggregate family {}; use AddToCell or MergeToCell",
                quoted(self.family().unwrap_or_default())
            )));
        }
        if aggregate && !value_type.is_aggregate() {
            return Err(Error::invalid_argument(format!(
                "mutations[{index}]: family {} is not an aggregate family",
                quoted(self.family().unwrap_or_default())
            )));
        }
        match self {
            Mutation::AddToCell {
                qualifier,
                timestamp_micros,
                ..
            } => {
                check_qualifier(qualifier, index)?;
                check_timestamp(
                    *timestamp_micros,
                    config.granularity,
                    false,
                    index,
                    "timestamp",
                )
            }
            Mutation::MergeToCell {
                qualifier,
                timestamp_micros,
                state,
                ..
            } => {
                check_qualifier(qualifier, index)?;
                check_timestamp(
                    *timestamp_micros,
                    config.granularity,
                    false,
                    index,
                    "timestamp",
                )?;
                crate::model::aggregate::check_state(value_type, state, index)
            }
            Mutation::SetCell {
                qualifier,
                timestamp_micros,
                value,
                ..
            } => {
                check_qualifier(qualifier, index)?;
                check_timestamp(
                    *timestamp_micros,
                    config.granularity,
                    true,
                    index,
                    "timestamp_micros",
                )?;
                if value.len() > config.max_value_bytes {
                    return Err(Error::invalid_argument(format!(
                        "mutations[{index}]: {}",
                        limits::value_too_large_message(value.len(), config.max_value_bytes)
                    )));
                }
                Ok(())
            }
            Mutation::DeleteFromColumn {
                qualifier,
                time_range,
                ..
            } => {
                check_qualifier(qualifier, index)?;
                check_timestamp(
                    time_range.start_micros,
                    config.granularity,
                    false,
                    index,
                    "time_range.start_timestamp_micros",
                )?;
                if let Some(end) = time_range.end_micros {
                    check_timestamp(
                        end,
                        config.granularity,
                        false,
                        index,
                        "time_range.end_timestamp_micros",
                    )?;
                    if end < time_range.start_micros {
                        return Err(Error::invalid_argument(format!(
                            "mutations[{index}]: time_range end {end} is before start {}",
                            time_range.start_micros
                        )));
                    }
                }
                Ok(())
            }
            Mutation::DeleteFromFamily { .. } | Mutation::DeleteFromRow => Ok(()),
        }
    }
}

fn check_qualifier(qualifier: &[u8], index: usize) -> Result<()> {
    if qualifier.len() > limits::MAX_QUALIFIER_BYTES {
        return Err(Error::invalid_argument(format!(
            "mutations[{index}]: column qualifier of {} bytes exceeds the limit of {} bytes",
            qualifier.len(),
            limits::MAX_QUALIFIER_BYTES
        )));
    }
    Ok(())
}

fn check_timestamp(
    ts: i64,
    granularity: Granularity,
    server_time_allowed: bool,
    index: usize,
    field: &str,
) -> Result<()> {
    if ts == SERVER_TIME_MICROS && server_time_allowed {
        return Ok(());
    }
    if ts < 0 {
        return Err(Error::invalid_argument(format!(
            "mutations[{index}]: {field} {ts} is negative"
        )));
    }
    if granularity == Granularity::Millis && ts % 1000 != 0 {
        return Err(Error::invalid_argument(format!(
            "mutations[{index}]: {field} {ts} is not a multiple of 1000 (table granularity is MILLIS)"
        )));
    }
    Ok(())
}

/// Checks a whole mutation list for one row: non-empty, within the count limit, each valid.
///
/// # Errors
/// As [`Mutation::validate`], plus `InvalidArgument` for an empty or oversized list or a bad
/// row key.
pub fn validate_row_mutations(
    config: &TableConfig,
    row_key: &[u8],
    mutations: &[Mutation],
) -> Result<()> {
    validate_row_key(row_key)?;
    if mutations.is_empty() {
        return Err(Error::invalid_argument(
            "mutations: at least one mutation is required",
        ));
    }
    if mutations.len() > limits::MAX_MUTATIONS_PER_REQUEST {
        return Err(Error::invalid_argument(format!(
            "mutations: {} mutations exceed the limit of {}",
            mutations.len(),
            limits::MAX_MUTATIONS_PER_REQUEST
        )));
    }
    mutations
        .iter()
        .enumerate()
        .try_for_each(|(i, m)| m.validate(config, i))
}

/// Checks a `MutateRows` batch as a whole: at least one entry, and at most
/// `MAX_MUTATIONS_PER_REQUEST` mutations over all entries (Bigtable's per-request limit).
/// A front-end that applies a large batch in slices (to stay interruptible) checks the
/// whole batch with this first, so slicing never lifts the limit.
///
/// # Errors
/// `InvalidArgument` for an empty or oversized batch.
pub fn validate_mutate_rows_batch(entries: &[RowMutations]) -> Result<()> {
    if entries.is_empty() {
        return Err(Error::invalid_argument(
            "entries: at least one entry is required",
        ));
    }
    let total: usize = entries.iter().map(|e| e.mutations.len()).sum();
    if total > limits::MAX_MUTATIONS_PER_REQUEST {
        return Err(Error::invalid_argument(format!(
            "entries: {total} mutations in total exceed the limit of {}",
            limits::MAX_MUTATIONS_PER_REQUEST
        )));
    }
    Ok(())
}

/// Checks a row key: non-empty and at most 4 KiB.
///
/// # Errors
/// `InvalidArgument` otherwise.
pub fn validate_row_key(row_key: &[u8]) -> Result<()> {
    if row_key.is_empty() {
        return Err(Error::invalid_argument("row_key must be non-empty"));
    }
    if row_key.len() > limits::MAX_ROW_KEY_BYTES {
        return Err(Error::invalid_argument(format!(
            "row_key of {} bytes exceeds the limit of {} bytes",
            row_key.len(),
            limits::MAX_ROW_KEY_BYTES
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_range_end_zero_from_the_wire_is_unbounded() {
        let all = TimestampRange::from_wire(0, 0);
        assert_eq!(all, TimestampRange::default());
        assert!(all.contains(0) && all.contains(i64::MAX));
        let from = TimestampRange::from_wire(4000, 0);
        assert!(!from.contains(3999) && from.contains(i64::MAX));
        let bounded = TimestampRange::from_wire(1000, 3000);
        assert!(bounded.contains(1000) && bounded.contains(2999) && !bounded.contains(3000));
        assert_eq!(bounded.to_wire(), (1000, 3000));
        assert_eq!(from.to_wire(), (4000, 0));
    }

    #[test]
    fn server_time_is_truncated_to_the_granularity() {
        assert_eq!(server_timestamp(Granularity::Millis, 1_234_567), 1_234_000);
        assert_eq!(server_timestamp(Granularity::Micros, 1_234_567), 1_234_567);
    }

    #[test]
    fn resolve_server_time_stamps_only_server_time_set_cells() {
        let explicit = [
            Mutation::set_cell("cf", "q", 5, "v"),
            Mutation::DeleteFromRow,
        ];
        assert!(matches!(
            resolve_server_time(&explicit, 9_000),
            Cow::Borrowed(_)
        ));
        let mixed = [
            Mutation::set_cell("cf", "q", SERVER_TIME_MICROS, "a"),
            Mutation::set_cell("cf", "q", 5, "b"),
        ];
        let resolved = resolve_server_time(&mixed, 9_000);
        assert_eq!(
            &resolved[..],
            &[
                Mutation::set_cell("cf", "q", 9_000, "a"),
                Mutation::set_cell("cf", "q", 5, "b"),
            ]
        );
    }
}

/// The mutations of one row in a MutateRows batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowMutations {
    /// The row.
    pub row_key: Vec<u8>,
    /// Its mutations, applied atomically and in order.
    pub mutations: Vec<Mutation>,
}
