//! What reads return: rows of cells in Bigtable order.
//!
//! Invariant of every [`Row`] the engine returns: cells are grouped by family (families in
//! the table's creation order, as Cloud Bigtable returns them; see [`Families`]), qualifiers
//! ascending within a family, and timestamps descending within a column.

use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Bound;

use crate::model::row_set::RowRange;

use crate::model::schema::Families;

/// One timestamped value of one column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The column family's name.
    pub family: String,
    /// The column qualifier.
    pub qualifier: Vec<u8>,
    /// Microseconds since the Unix epoch.
    pub timestamp_micros: i64,
    /// The cell's value.
    pub value: Vec<u8>,
    /// Labels attached by an `apply_label_transformer` filter.
    pub labels: Vec<String>,
}

/// A row as returned by a read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The row key.
    pub key: Vec<u8>,
    /// The row's cells, in Bigtable order.
    pub cells: Vec<Cell>,
}

/// One SampleRowKeys entry: rows before `row_key` hold about `offset_bytes` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleRowKey {
    /// A boundary key; the last entry's is empty and stands for the end of the table.
    pub row_key: Vec<u8>,
    /// Approximate bytes of data in rows sorting before `row_key`.
    pub offset_bytes: u64,
}

/// A table's samples (as [`SampleRowKey`]s, ending with the empty key) as a SampleRowKeys
/// request restricted to `range` answers (Bigtable's `SampleRowKeysRequest.row_range`): the
/// boundaries that fall strictly inside the range, then the range's end as the last sample,
/// with the bytes before the first boundary at or after it (the table's end sample when the
/// range is unbounded above). A boundary equal to the range's start divides nothing of the
/// range and is left out.
pub fn samples_in_range(samples: &[SampleRowKey], range: &RowRange) -> Vec<SampleRowKey> {
    let after_start = |k: &[u8]| match &range.start {
        Bound::Included(s) | Bound::Excluded(s) => k > s.as_slice(),
        Bound::Unbounded => true,
    };
    let end_key = match &range.end {
        Bound::Included(e) | Bound::Excluded(e) => Some(e.as_slice()),
        Bound::Unbounded => None,
    };
    let before_end = |k: &[u8]| end_key.is_none_or(|e| k < e);
    let mut out: Vec<SampleRowKey> = samples
        .iter()
        .filter(|s| !s.row_key.is_empty() && after_start(&s.row_key) && before_end(&s.row_key))
        .cloned()
        .collect();
    let last = match end_key {
        Some(e) => samples
            .iter()
            .find(|s| s.row_key.is_empty() || s.row_key.as_slice() >= e)
            .map(|s| SampleRowKey {
                row_key: e.to_vec(),
                offset_bytes: s.offset_bytes,
            }),
        None => samples.last().cloned(),
    };
    out.extend(last);
    out
}

/// Regroups a row's cells so its families follow `families`' creation order. The cells come
/// grouped by family (in any order of families, storage's being by name), each group in
/// Bigtable order; the groups keep their contents and move as wholes. A family the schema no
/// longer has goes last. Costs nothing beyond a flag test when creation order is name order,
/// and one comparison when the row holds a single family.
pub fn order_families(cells: &mut [Cell], families: &Families) {
    order_family_groups(
        cells,
        families,
        |a, b| a.family == b.family,
        |c| families.position(&c.family),
    );
}

/// [`order_families`] for any representation of cells: `same_family` tells whether two
/// cells share a family, `rank` gives a cell's family's creation rank (`None`: a family the
/// schema no longer has).
pub(crate) fn order_family_groups<T>(
    cells: &mut [T],
    families: &Families,
    same_family: impl Fn(&T, &T) -> bool,
    rank: impl Fn(&T) -> Option<usize>,
) {
    if families.is_name_ordered() {
        return;
    }
    let (Some(first), Some(last)) = (cells.first(), cells.last()) else {
        return;
    };
    if same_family(first, last) {
        // Grouped by family: the first and last cells share a family only if all do.
        return;
    }
    // (creation rank, first cell, cell count) of each family group, in the row's order.
    let mut groups: Vec<(usize, usize, usize)> = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        if i == 0 || !same_family(c, &cells[i - 1]) {
            groups.push((rank(c).unwrap_or(usize::MAX), i, 0));
        }
        if let Some(g) = groups.last_mut() {
            g.2 += 1;
        }
    }
    // A stable selection sort of the groups, moving cells by rotation in place (no
    // allocation per cell; rows hold few families): the lowest rank left (the first of
    // equals, which only unknown families share) rotates to the front of the rest.
    for i in 0..groups.len() {
        let Some(j) = (i..groups.len()).min_by_key(|&j| (groups[j].0, j)) else {
            break;
        };
        if j == i {
            continue;
        }
        let (rank, start, len) = groups[j];
        let front = groups[i].1;
        cells[front..start + len].rotate_right(len);
        for g in &mut groups[i..j] {
            g.1 += len;
        }
        groups.remove(j);
        groups.insert(i, (rank, front, len));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_cut_to_a_range_ending_at_its_end_key() {
        let sample = |k: &[u8], o: u64| SampleRowKey {
            row_key: k.to_vec(),
            offset_bytes: o,
        };
        let table = [
            sample(b"b", 10),
            sample(b"d", 20),
            sample(b"f", 30),
            sample(b"", 40),
        ];
        let keys = |v: Vec<SampleRowKey>| {
            v.into_iter()
                .map(|s| (s.row_key, s.offset_bytes))
                .collect::<Vec<_>>()
        };
        // From a boundary to a boundary: the inner one, then the end key.
        assert_eq!(
            keys(samples_in_range(
                &table,
                &RowRange::closed_open(b"b".to_vec(), b"f".to_vec())
            )),
            [(b"d".to_vec(), 20), (b"f".to_vec(), 30)]
        );
        // An end between boundaries takes the bytes up to the next one.
        assert_eq!(
            keys(samples_in_range(
                &table,
                &RowRange::closed_open(b"a".to_vec(), b"c".to_vec())
            )),
            [(b"b".to_vec(), 10), (b"c".to_vec(), 20)]
        );
        // Unbounded above: the table's end sample.
        assert_eq!(
            keys(samples_in_range(
                &table,
                &RowRange::closed_open(b"e".to_vec(), Vec::new())
            )),
            [(b"f".to_vec(), 30), (Vec::new(), 40)]
        );
    }
    use crate::model::schema::ColumnFamily;
    use alloc::string::ToString;
    use alloc::vec;

    fn cell(family: &str, qualifier: &str, ts: i64) -> Cell {
        Cell {
            family: family.to_string(),
            qualifier: qualifier.as_bytes().to_vec(),
            timestamp_micros: ts,
            value: Vec::new(),
            labels: Vec::new(),
        }
    }

    fn order(names: &[&str]) -> Families {
        names
            .iter()
            .map(|n| (*n, ColumnFamily::default()))
            .collect()
    }

    fn families_of(cells: &[Cell]) -> Vec<(&str, &[u8], i64)> {
        cells
            .iter()
            .map(|c| {
                (
                    c.family.as_str(),
                    c.qualifier.as_slice(),
                    c.timestamp_micros,
                )
            })
            .collect()
    }

    #[test]
    fn groups_move_whole_into_creation_order() {
        let mut cells = vec![
            cell("a", "x", 2000),
            cell("a", "x", 1000),
            cell("a", "y", 1000),
            cell("b", "x", 1000),
            cell("c", "z", 3000),
        ];
        order_families(&mut cells, &order(&["c", "a", "b"]));
        assert_eq!(
            families_of(&cells),
            [
                ("c", &b"z"[..], 3000),
                ("a", &b"x"[..], 2000),
                ("a", &b"x"[..], 1000),
                ("a", &b"y"[..], 1000),
                ("b", &b"x"[..], 1000),
            ]
        );
    }

    #[test]
    fn every_creation_order_of_four_families_matches_a_stable_sort() {
        let names = ["a", "b", "c", "d"];
        let row: Vec<Cell> = names
            .iter()
            .enumerate()
            .flat_map(|(i, f)| (0..=i).map(move |q| cell(f, &q.to_string(), 1000)))
            .collect();
        // Every permutation of the four names, as creation orders.
        for n in 0..24usize {
            let mut pool: Vec<&str> = names.to_vec();
            let mut created = Vec::new();
            let mut k = n;
            for m in (1..=4).rev() {
                created.push(pool.remove(k % m));
                k /= m;
            }
            let families = order(&created);
            let mut want = row.clone();
            want.sort_by_key(|c| families.position(&c.family));
            let mut got = row.clone();
            order_families(&mut got, &families);
            assert_eq!(got, want, "created {created:?}");
        }
    }

    #[test]
    fn unknown_families_go_last_and_name_order_is_left_alone() {
        let mut cells = vec![cell("a", "x", 0), cell("b", "x", 0), cell("z", "x", 0)];
        order_families(&mut cells, &order(&["z", "b"]));
        let names: Vec<_> = cells.iter().map(|c| c.family.as_str()).collect();
        assert_eq!(names, ["z", "b", "a"]);
        let mut cells = vec![cell("a", "x", 0), cell("b", "x", 0)];
        order_families(&mut cells, &order(&["a", "b"]));
        let names: Vec<_> = cells.iter().map(|c| c.family.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
    }
}
