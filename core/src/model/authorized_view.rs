//! Authorized views: a named subset of a table, by row-key prefix and by family and
//! qualifier, through which data requests read and write (Bigtable's `SubsetView`).
//!
//! The rules, kept here once for every front-end:
//! - a row is in the view when its key starts with one of `row_prefixes`; the empty prefix
//!   admits every row, and a view with no prefixes admits none;
//! - a cell is in the view when its family has a subset whose `qualifiers` hold its qualifier
//!   exactly, or whose `qualifier_prefixes` hold a prefix of it; the empty qualifier prefix
//!   admits the whole family;
//! - a read through a view sees only the view's rows and cells: the request's row set is cut
//!   to the view's rows, and the view's cells are selected before the request's filter runs,
//!   so cell limits, offsets and conditions count only what the view shows;
//! - a write through a view stays inside it: a mutation or read-modify-write rule that names
//!   a row or a cell outside the view is PERMISSION_DENIED, and nothing of that row's request
//!   is applied. Deleting a family needs the whole family in the view; deleting a row needs
//!   every family of the table whole in the view. (Bigtable refuses a delete that would reach
//!   columns outside the view; without reading the row first, only a view that holds every
//!   column of the row's families can promise that, so that is the rule here.)
//! - a view has at most [`MAX_DEFINITION_PARAMETERS`] row prefixes, qualifiers and qualifier
//!   prefixes in all, and its family names are valid family names.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Bound;

use crate::error::quoted;
use crate::model::filter::RowFilter;
use crate::model::mutation::Mutation;
use crate::model::read_modify_write::ReadModifyWriteRule;
use crate::model::request::ReadRowsRequest;
use crate::model::row_set::{RowRange, RowSet};
use crate::model::schema::validate_family_name;
use crate::{Code, Error, Result};

/// The most row prefixes, qualifiers and qualifier prefixes one view may name (Bigtable's
/// limit on an authorized view's definition).
pub const MAX_DEFINITION_PARAMETERS: usize = 100;

/// The columns of one family that a view holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FamilySubset {
    /// Qualifiers held exactly.
    pub qualifiers: Vec<Vec<u8>>,
    /// Qualifier prefixes held; the empty prefix holds the whole family.
    pub qualifier_prefixes: Vec<Vec<u8>>,
}

impl FamilySubset {
    fn holds(&self, qualifier: &[u8]) -> bool {
        self.qualifiers.iter().any(|q| q.as_slice() == qualifier)
            || self
                .qualifier_prefixes
                .iter()
                .any(|p| qualifier.starts_with(p))
    }

    fn is_whole(&self) -> bool {
        self.qualifier_prefixes.iter().any(Vec::is_empty)
    }

    /// The qualifiers held as disjoint sorted ranges.
    fn ranges(&self) -> Vec<RowRange> {
        let ranges: Vec<RowRange> = self
            .qualifiers
            .iter()
            .map(|q| RowRange {
                start: Bound::Included(q.clone()),
                end: Bound::Included(q.clone()),
            })
            .chain(
                self.qualifier_prefixes
                    .iter()
                    .map(|p| RowRange::prefix(p.clone())),
            )
            .collect();
        if ranges.is_empty() {
            // An empty RowSet means "everything"; a subset naming nothing holds nothing.
            return Vec::new();
        }
        RowSet {
            row_keys: Vec::new(),
            row_ranges: ranges,
        }
        .normalized_ranges()
    }
}

/// A subset of a table's data: the rows under some prefixes, and some columns of some
/// families (see the module docs for what it admits).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubsetView {
    /// Row-key prefixes held; the empty prefix holds every row.
    pub row_prefixes: Vec<Vec<u8>>,
    /// The columns held, by family name.
    pub family_subsets: BTreeMap<String, FamilySubset>,
}

impl SubsetView {
    /// Checks the definition.
    ///
    /// # Errors
    /// `InvalidArgument` for a malformed family name or more than
    /// [`MAX_DEFINITION_PARAMETERS`] prefixes and qualifiers.
    pub fn validate(&self) -> Result<()> {
        for family in self.family_subsets.keys() {
            validate_family_name(family).map_err(|e| {
                Error::invalid_argument(format!("subset_view.family_subsets: {}", e.message()))
            })?;
        }
        let parameters = self.row_prefixes.len()
            + self
                .family_subsets
                .values()
                .map(|s| s.qualifiers.len() + s.qualifier_prefixes.len())
                .sum::<usize>();
        if parameters > MAX_DEFINITION_PARAMETERS {
            return Err(Error::invalid_argument(format!(
                "subset_view names {parameters} row prefixes, qualifiers and qualifier prefixes; an authorized view may name at most {MAX_DEFINITION_PARAMETERS}"
            )));
        }
        Ok(())
    }

    /// Whether the row with `key` is in the view.
    pub fn holds_row(&self, key: &[u8]) -> bool {
        self.row_prefixes.iter().any(|p| key.starts_with(p))
    }

    /// Whether the cell's column is in the view.
    pub fn holds_column(&self, family: &str, qualifier: &[u8]) -> bool {
        self.family_subsets
            .get(family)
            .is_some_and(|s| s.holds(qualifier))
    }

    fn holds_whole_family(&self, family: &str) -> bool {
        self.family_subsets
            .get(family)
            .is_some_and(FamilySubset::is_whole)
    }

    /// The filter that keeps exactly the view's cells of a row: one column range per
    /// disjoint run of held qualifiers, so no cell is kept twice.
    pub fn cell_filter(&self) -> RowFilter {
        let mut leaves: Vec<RowFilter> = self
            .family_subsets
            .iter()
            .flat_map(|(family, subset)| {
                subset
                    .ranges()
                    .into_iter()
                    .map(move |r| RowFilter::ColumnRange {
                        family: family.clone(),
                        start: r.start,
                        end: r.end,
                    })
            })
            .collect();
        match leaves.len() {
            0 => RowFilter::BlockAll,
            1 => leaves.pop().unwrap_or(RowFilter::BlockAll),
            _ => RowFilter::Interleave(leaves),
        }
    }

    /// `filter` as seen through the view: the view's cells first, then `filter` over them.
    /// `None` (a CheckAndMutateRow without a predicate: "the row has any cell") becomes "the
    /// row has a cell in the view".
    pub fn restrict_filter(&self, filter: Option<&RowFilter>) -> RowFilter {
        match filter {
            None | Some(RowFilter::PassAll) => self.cell_filter(),
            Some(f) => RowFilter::Chain(alloc::vec![self.cell_filter(), f.clone()]),
        }
    }

    /// `request` as a read through the view: its row set cut to the view's rows and its
    /// filter behind the view's cells. `None` when no row of the request is in the view (an
    /// empty row set would mean every row).
    pub fn restrict_read(&self, request: &ReadRowsRequest) -> Option<ReadRowsRequest> {
        if self.row_prefixes.is_empty() {
            return None;
        }
        let view_rows = RowSet {
            row_keys: Vec::new(),
            row_ranges: self
                .row_prefixes
                .iter()
                .map(|p| RowRange::prefix(p.clone()))
                .collect(),
        }
        .normalized_ranges();
        let row_set = if request.row_set.is_all() {
            if view_rows.iter().any(|r| *r == RowRange::prefix(Vec::new())) {
                RowSet::all()
            } else {
                RowSet {
                    row_keys: Vec::new(),
                    row_ranges: view_rows,
                }
            }
        } else {
            let wanted = request.row_set.normalized_ranges();
            let ranges: Vec<RowRange> = wanted
                .iter()
                .flat_map(|w| view_rows.iter().filter_map(move |v| w.intersect(v)))
                .collect();
            if ranges.is_empty() {
                return None;
            }
            RowSet {
                row_keys: Vec::new(),
                row_ranges: ranges,
            }
        };
        Some(ReadRowsRequest {
            row_set,
            filter: self.restrict_filter(Some(&request.filter)),
            ..request.clone()
        })
    }

    /// Checks that a row's mutations stay inside the view; `table_families` are the table's
    /// family names (deleting a whole row needs each of them whole in the view).
    ///
    /// # Errors
    /// `PermissionDenied` naming the first row, family or column outside the view.
    pub fn check_mutations(
        &self,
        row_key: &[u8],
        mutations: &[Mutation],
        table_families: &[&str],
    ) -> Result<()> {
        self.check_row(row_key)?;
        for m in mutations {
            match m {
                Mutation::SetCell {
                    family, qualifier, ..
                }
                | Mutation::AddToCell {
                    family, qualifier, ..
                }
                | Mutation::MergeToCell {
                    family, qualifier, ..
                }
                | Mutation::DeleteFromColumn {
                    family, qualifier, ..
                } => self.check_column(family, qualifier)?,
                Mutation::DeleteFromFamily { family } => {
                    if !self.holds_whole_family(family) {
                        return Err(outside(format!(
                            "DeleteFromFamily of family {} needs the whole family in the view",
                            quoted(family)
                        )));
                    }
                }
                Mutation::DeleteFromRow => {
                    if let Some(f) = table_families.iter().find(|f| !self.holds_whole_family(f)) {
                        return Err(outside(format!(
                            "DeleteFromRow needs every family of the table whole in the view, and family {} is not",
                            quoted(f)
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks that read-modify-write rules stay inside the view.
    ///
    /// # Errors
    /// `PermissionDenied` naming the row or column outside the view.
    pub fn check_rules(&self, row_key: &[u8], rules: &[ReadModifyWriteRule]) -> Result<()> {
        self.check_row(row_key)?;
        rules
            .iter()
            .try_for_each(|r| self.check_column(&r.family, &r.qualifier))
    }

    /// Checks that the row with `row_key` is in the view (a conditional write's row).
    ///
    /// # Errors
    /// `PermissionDenied` if it is not.
    pub fn check_row(&self, row_key: &[u8]) -> Result<()> {
        if self.holds_row(row_key) {
            Ok(())
        } else {
            Err(outside(format!(
                "row key {} matches none of its row prefixes",
                quoted(&String::from_utf8_lossy(row_key))
            )))
        }
    }

    fn check_column(&self, family: &str, qualifier: &[u8]) -> Result<()> {
        if self.holds_column(family, qualifier) {
            Ok(())
        } else {
            Err(outside(format!(
                "column {}:{} is not in it",
                quoted(family),
                quoted(&String::from_utf8_lossy(qualifier))
            )))
        }
    }
}

fn outside(detail: String) -> Error {
    Error::new(
        Code::PermissionDenied,
        format!("The request is outside the Authorized View: {detail}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// (family, exact qualifiers, qualifier prefixes).
    type Family<'a> = (&'a str, &'a [&'a [u8]], &'a [&'a [u8]]);

    fn view(prefixes: &[&[u8]], families: &[Family]) -> SubsetView {
        SubsetView {
            row_prefixes: prefixes.iter().map(|p| p.to_vec()).collect(),
            family_subsets: families
                .iter()
                .map(|(f, q, p)| {
                    (
                        String::from(*f),
                        FamilySubset {
                            qualifiers: q.iter().map(|x| x.to_vec()).collect(),
                            qualifier_prefixes: p.iter().map(|x| x.to_vec()).collect(),
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn rows_and_columns_held() {
        let v = view(&[b"a#", b"b#"], &[("cf", &[b"x"], &[b"p-"])]);
        assert!(v.holds_row(b"a#1") && v.holds_row(b"b#") && !v.holds_row(b"c#1"));
        assert!(v.holds_column("cf", b"x") && v.holds_column("cf", b"p-1"));
        assert!(!v.holds_column("cf", b"xy") && !v.holds_column("other", b"x"));
        assert!(!view(&[], &[]).holds_row(b"a"));
        assert!(view(&[b""], &[]).holds_row(b"anything"));
    }

    #[test]
    fn writes_outside_are_permission_denied() {
        let v = view(&[b""], &[("cf", &[], &[b""]), ("part", &[b"q"], &[])]);
        let fams: &[&str] = &["cf", "part"];
        let set = |f: &str, q: &[u8]| Mutation::set_cell(f, q, 0, b"v".to_vec());
        assert!(v.check_mutations(b"r", &[set("cf", b"any")], fams).is_ok());
        let e = v
            .check_mutations(b"r", &[set("unauthorized", b"q")], fams)
            .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied);
        assert!(e.message().contains("outside the Authorized View"));
        assert!(v.check_mutations(b"r", &[set("part", b"z")], fams).is_err());
        let family = |f: &str| Mutation::DeleteFromFamily { family: f.into() };
        assert!(v.check_mutations(b"r", &[family("cf")], fams).is_ok());
        assert!(v.check_mutations(b"r", &[family("part")], fams).is_err());
        // A whole-row delete needs every family whole; a later mutation is still checked.
        assert!(v
            .check_mutations(b"r", &[Mutation::DeleteFromRow], fams)
            .is_err());
        assert!(v
            .check_mutations(b"r", &[Mutation::DeleteFromRow], &["cf"])
            .is_ok());
        assert!(v
            .check_mutations(b"r", &[Mutation::DeleteFromRow, set("x", b"q")], &["cf"])
            .is_err());
        let prefixed = view(&[b"t1#"], &[("cf", &[], &[b""])]);
        let e = prefixed
            .check_mutations(b"t2#1", &[set("cf", b"q")], &["cf"])
            .unwrap_err();
        assert_eq!(e.code(), Code::PermissionDenied);
        let rule = ReadModifyWriteRule::append("cf", b"q".to_vec(), b"x".to_vec());
        assert!(prefixed
            .check_rules(b"t1#1", core::slice::from_ref(&rule))
            .is_ok());
        assert!(prefixed.check_rules(b"t2#1", &[rule]).is_err());
    }

    #[test]
    fn reads_are_cut_to_the_view() {
        let v = view(&[b"b", b"d"], &[("cf", &[b"q"], &[b""])]);
        let all = v.restrict_read(&ReadRowsRequest::default()).unwrap();
        assert_eq!(
            all.row_set.row_ranges,
            vec![
                RowRange::prefix(b"b".to_vec()),
                RowRange::prefix(b"d".to_vec())
            ]
        );
        // The exact qualifier lies inside the whole-family prefix: one range, no duplicates.
        assert!(matches!(all.filter, RowFilter::ColumnRange { .. }));
        let keys = ReadRowsRequest {
            row_set: RowSet {
                row_keys: vec![b"a1".to_vec(), b"b1".to_vec()],
                row_ranges: vec![],
            },
            ..Default::default()
        };
        let cut = v.restrict_read(&keys).unwrap();
        assert_eq!(cut.row_set.row_ranges.len(), 1);
        assert!(cut.row_set.contains(b"b1") && !cut.row_set.contains(b"a1"));
        let none = ReadRowsRequest {
            row_set: RowSet::single(b"z".to_vec()),
            ..Default::default()
        };
        assert!(v.restrict_read(&none).is_none());
        let everything = view(&[b""], &[]);
        let r = everything
            .restrict_read(&ReadRowsRequest::default())
            .unwrap();
        assert!(r.row_set.is_all());
        assert_eq!(r.filter, RowFilter::BlockAll);
    }

    #[test]
    fn definitions_are_bounded() {
        let many: Vec<Vec<u8>> = (0..101u8).map(|i| vec![i]).collect();
        let v = SubsetView {
            row_prefixes: many,
            family_subsets: BTreeMap::new(),
        };
        assert_eq!(v.validate().unwrap_err().code(), Code::InvalidArgument);
        let bad = view(&[b""], &[("no:colon", &[], &[b""])]);
        assert_eq!(bad.validate().unwrap_err().code(), Code::InvalidArgument);
    }
}
