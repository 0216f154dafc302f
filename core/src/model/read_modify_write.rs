//! ReadModifyWriteRow: append and increment rules over the latest cells of columns.
//!
//! The rules are planned against the row as it is (each rule seeing the results of the
//! rules before it), every check is made, and only then is the plan turned into SetCell
//! mutations that the caller applies. So an increment of a value that is not 8 bytes
//! (FAILED_PRECONDITION, as Cloud Bigtable answers), or any other failure, changes nothing.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::quoted;
use crate::limits;
use crate::model::mutation::Mutation;
use crate::model::row::{order_families, Cell, Row};
use crate::model::schema::{Granularity, TableConfig, ValueType};
use crate::{Error, Result};

/// What a rule does to its column's latest cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadModifyWriteOp {
    /// Appends bytes to the value (a missing cell counts as empty).
    AppendValue(Vec<u8>),
    /// Adds to the value read as a big-endian signed 64-bit integer (a missing cell counts
    /// as 0); the existing value must be exactly 8 bytes. Overflow wraps, as two's
    /// complement addition does.
    IncrementAmount(i64),
}

/// One rule of a ReadModifyWriteRow call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadModifyWriteRule {
    /// The column's family.
    pub family: String,
    /// The column's qualifier.
    pub qualifier: Vec<u8>,
    /// What to do.
    pub op: ReadModifyWriteOp,
}

impl ReadModifyWriteRule {
    /// An append rule.
    pub fn append(
        family: impl Into<String>,
        qualifier: impl Into<Vec<u8>>,
        value: impl Into<Vec<u8>>,
    ) -> Self {
        ReadModifyWriteRule {
            family: family.into(),
            qualifier: qualifier.into(),
            op: ReadModifyWriteOp::AppendValue(value.into()),
        }
    }

    /// An increment rule.
    pub fn increment(
        family: impl Into<String>,
        qualifier: impl Into<Vec<u8>>,
        amount: i64,
    ) -> Self {
        ReadModifyWriteRule {
            family: family.into(),
            qualifier: qualifier.into(),
            op: ReadModifyWriteOp::IncrementAmount(amount),
        }
    }
}

/// Plans the rules against the row's current cells (which `current_cells` reads, once the
/// rules are known to be valid, in Bigtable order): returns the SetCell mutations to apply
/// and the row of new cells to return.
///
/// # Errors
/// See `Database::read_modify_write_row`.
pub(crate) fn plan(
    config: &TableConfig,
    row_key: &[u8],
    rules: &[ReadModifyWriteRule],
    now_micros: i64,
    current_cells: impl FnOnce() -> Vec<Cell>,
) -> Result<(Vec<Mutation>, Row)> {
    if rules.is_empty() {
        return Err(Error::invalid_argument(
            "rules: at least one rule is required",
        ));
    }
    if rules.len() > limits::MAX_MUTATIONS_PER_REQUEST {
        return Err(Error::invalid_argument("rules: too many rules"));
    }
    let now = match config.granularity {
        Granularity::Millis => now_micros - now_micros.rem_euclid(1000),
        Granularity::Micros => now_micros,
    };
    let current = current_cells();
    // Latest cell per column as the plan goes: (family, qualifier) -> (timestamp, value).
    let mut latest: BTreeMap<(String, Vec<u8>), (i64, Vec<u8>)> = BTreeMap::new();
    for c in current {
        // Cells come newest first per column; keep the first seen.
        latest
            .entry((c.family, c.qualifier))
            .or_insert((c.timestamp_micros, c.value));
    }
    let mut touched: BTreeMap<(String, Vec<u8>), (i64, Vec<u8>)> = BTreeMap::new();
    for (i, rule) in rules.iter().enumerate() {
        let family = config.families.get(&rule.family).ok_or_else(|| {
            // A malformed name is INVALID_ARGUMENT wherever it is looked up.
            if let Err(e) = crate::model::schema::validate_family_name(&rule.family) {
                return Error::invalid_argument(format!("rules[{i}]: {}", e.message()));
            }
            Error::not_found(format!(
                "rules[{i}]: requested column family {} not found",
                quoted(&rule.family)
            ))
        })?;
        if family.value_type != ValueType::Bytes {
            return Err(Error::invalid_argument(format!(
                "rules[{i}]: family {} is an aggregate family; use AddToCell",
                quoted(&rule.family)
            )));
        }
        if rule.qualifier.len() > limits::MAX_QUALIFIER_BYTES {
            return Err(Error::invalid_argument(format!(
                "rules[{i}]: column qualifier exceeds {} bytes",
                limits::MAX_QUALIFIER_BYTES
            )));
        }
        let column = (rule.family.clone(), rule.qualifier.clone());
        let old = latest.get(&column);
        let ts = old.map_or(now, |(t, _)| (*t).max(now));
        let value = match &rule.op {
            ReadModifyWriteOp::AppendValue(suffix) => {
                let mut v = old.map(|(_, v)| v.clone()).unwrap_or_default();
                v.extend_from_slice(suffix);
                v
            }
            ReadModifyWriteOp::IncrementAmount(amount) => {
                let base = match old {
                    None => 0,
                    Some((_, v)) => {
                        // FailedPrecondition, as Cloud Bigtable answers: the request is well
                        // formed, the stored value is what rules it out.
                        let bytes: [u8; 8] = v.as_slice().try_into().map_err(|_| {
                            Error::failed_precondition(format!(
                                "rules[{i}]: increment can only be performed on 64-bit values; the cell holds {} bytes",
                                v.len()
                            ))
                        })?;
                        i64::from_be_bytes(bytes)
                    }
                };
                base.wrapping_add(*amount).to_be_bytes().to_vec()
            }
        };
        if value.len() > config.max_value_bytes {
            return Err(Error::invalid_argument(format!(
                "rules[{i}]: the new value of {} bytes exceeds the limit of {} bytes",
                value.len(),
                config.max_value_bytes
            )));
        }
        latest.insert(column.clone(), (ts, value.clone()));
        touched.insert(column, (ts, value));
    }
    let mutations = touched
        .iter()
        .map(|((f, q), (ts, v))| Mutation::set_cell(f.clone(), q.clone(), *ts, v.clone()))
        .collect();
    let mut cells: Vec<Cell> = touched
        .into_iter()
        .map(|((family, qualifier), (timestamp_micros, value))| Cell {
            family,
            qualifier,
            timestamp_micros,
            value,
            labels: Vec::new(),
        })
        .collect();
    // Grouped by family in name order so far; the row lists families in creation order.
    order_families(&mut cells, &config.families);
    Ok((
        mutations,
        Row {
            key: row_key.to_vec(),
            cells,
        },
    ))
}
