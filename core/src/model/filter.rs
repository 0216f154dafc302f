//! The RowFilter language: what a read keeps of each row, and how.
//!
//! A [`RowFilter`] is a tree, as Bigtable's `RowFilter`. [`RowFilter::compile`] validates it
//! once per read (regexes compiled, limits checked) into a [`CompiledFilter`] that is then
//! applied to each row's visible cells. Semantics follow google/bigtable/v2/data.proto:
//! chains feed each member's output to the next; interleaves give every member a copy of the
//! input and merge the outputs in Bigtable order with duplicates kept (ties in member
//! order); a condition picks a branch by whether its predicate yields any cell; a sink sends
//! what reaches it straight to the read's output. Invariant: the output of
//! [`CompiledFilter::apply`] is in Bigtable cell order, families in the order the input row
//! has them (the table's creation order): merges regroup by that order, never by name.
//!
//! Size: before anything is compiled, the tree is measured without recursion (so even a
//! filter built in Rust and nested far deeper than any wire allows cannot overflow the
//! stack) against [`MAX_FILTER_DEPTH`], [`crate::limits::MAX_FILTER_NODES`] and [`MAX_FILTER_REGEX_BYTES`],
//! which bound what one request's filter costs before a single row is read. A wire filter
//! message with no kind set has no meaning and is refused ([`RowFilter::missing_kind`]):
//! Cloud Bigtable answers INVALID_ARGUMENT, where Google's emulator passes every cell.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Bound;

use crate::error::quoted;
use crate::limits::{FILTER_TREE, MAX_FILTER_DEPTH, MAX_FILTER_REGEX_BYTES};
use crate::model::regex::ByteRegex;
use crate::model::row::Cell;
use crate::platform::random::RandomSource;
use crate::{Error, Result};

/// A row filter, as Bigtable's `RowFilter`.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum RowFilter {
    /// Every cell (the same as no filter).
    #[default]
    PassAll,
    /// No cell.
    BlockAll,
    /// Sends the cells reaching it straight to the read's output (not allowed in a condition).
    Sink,
    /// Each member's output feeds the next member (at least two members).
    Chain(Vec<RowFilter>),
    /// Every member sees the input; outputs merged, duplicates kept (at least two members).
    Interleave(Vec<RowFilter>),
    /// `true_filter` if `predicate` yields any cell, else `false_filter`; a missing branch
    /// yields nothing.
    Condition {
        /// Decides the branch.
        predicate: Box<RowFilter>,
        /// Applied when the predicate yields a cell.
        true_filter: Option<Box<RowFilter>>,
        /// Applied otherwise.
        false_filter: Option<Box<RowFilter>>,
    },
    /// The whole row if its key fully matches the regex, else nothing.
    RowKeyRegex(Vec<u8>),
    /// The whole row with probability `p`, `0 < p < 1`.
    RowSample(f64),
    /// Cells whose family fully matches the regex (which must not contain `:`).
    FamilyNameRegex(String),
    /// Cells whose qualifier fully matches the regex.
    ColumnQualifierRegex(Vec<u8>),
    /// Cells of one family whose qualifier lies in a range.
    ColumnRange {
        /// The family.
        family: String,
        /// Start of the qualifier range.
        start: Bound<Vec<u8>>,
        /// End of the qualifier range.
        end: Bound<Vec<u8>>,
    },
    /// Cells with `start <= timestamp < end`; `end_micros == 0` means unbounded.
    TimestampRange {
        /// Inclusive start.
        start_micros: i64,
        /// Exclusive end, or 0 for unbounded.
        end_micros: i64,
    },
    /// Cells whose value fully matches the regex.
    ValueRegex(Vec<u8>),
    /// Cells whose value lies in a byte-wise range.
    ValueRange {
        /// Start of the range.
        start: Bound<Vec<u8>>,
        /// End of the range.
        end: Bound<Vec<u8>>,
    },
    /// Skips the first n cells of the row (n >= 1).
    CellsPerRowOffset(i32),
    /// Keeps the first n cells of the row (n >= 1).
    CellsPerRowLimit(i32),
    /// Keeps the first n cells of each column, i.e. the newest n (n >= 1).
    CellsPerColumnLimit(i32),
    /// Replaces every value with the empty value.
    StripValue,
    /// Attaches a label (1..=15 of `[a-z0-9-]`) to every cell.
    ApplyLabel(String),
    /// Cells whose value `v` has `v & mask == mask`, with `v` as long as `mask`.
    ValueBitmask(Vec<u8>),
}

impl RowFilter {
    /// Validates the filter and compiles its regexes, once per read.
    ///
    /// # Errors
    /// `InvalidArgument` naming the offending filter: nesting deeper than 20, a bad regex,
    /// a non-positive limit or offset, a sample probability outside (0, 1), a bad label,
    /// a range whose start is after its end, a chain or interleave with fewer than two
    /// members, a sink inside a condition, a chain with more than one labelling member, or
    /// more than 1000 nodes or 20 KiB of regexes in all.
    pub fn compile(&self) -> Result<CompiledFilter> {
        self.check_size()?;
        let root = compile(self, 1, false)?;
        let has_sink = self.has_sink();
        Ok(CompiledFilter { root, has_sink })
    }

    /// Whether the filter or one of its members is a sink.
    fn has_sink(&self) -> bool {
        match self {
            RowFilter::Sink => true,
            RowFilter::Chain(fs) | RowFilter::Interleave(fs) => fs.iter().any(RowFilter::has_sink),
            // Sinks are rejected inside conditions.
            _ => false,
        }
    }

    /// The error for a wire `RowFilter` message with no filter kind set (or a kind this
    /// engine does not know): Cloud Bigtable refuses it, so every front-end whose wire can
    /// express one answers with this. `field` locates the message in the request. An absent
    /// filter field is not this: it means no filter.
    pub fn missing_kind(field: &str) -> Error {
        Error::invalid_argument(format!(
            "{field}: a RowFilter must set exactly one filter kind (none, or an unknown one, is set)"
        ))
    }

    /// Measures the tree iteratively: depth, node count and regex bytes against the limits.
    fn check_size(&self) -> Result<()> {
        // The root is taken first without a push, so a filter with no members (every point
        // read's pass-all filter among them) is measured without allocating.
        let mut stack: Vec<(&RowFilter, usize)> = Vec::new();
        let mut root = Some((self, 1));
        let mut nodes = 0usize;
        let mut regex_bytes = 0usize;
        while let Some((f, depth)) = root.take().or_else(|| stack.pop()) {
            nodes += 1;
            FILTER_TREE.check(depth, nodes)?;
            regex_bytes += match f {
                RowFilter::RowKeyRegex(re)
                | RowFilter::ColumnQualifierRegex(re)
                | RowFilter::ValueRegex(re) => re.len(),
                RowFilter::FamilyNameRegex(re) => re.len(),
                _ => 0,
            };
            if regex_bytes > MAX_FILTER_REGEX_BYTES {
                return Err(Error::invalid_argument(format!(
                    "filter: its regexes add up to more than {MAX_FILTER_REGEX_BYTES} bytes"
                )));
            }
            match f {
                RowFilter::Chain(members) | RowFilter::Interleave(members) => {
                    stack.extend(members.iter().map(|m| (m, depth + 1)));
                }
                RowFilter::Condition {
                    predicate,
                    true_filter,
                    false_filter,
                } => {
                    stack.push((predicate, depth + 1));
                    stack.extend(
                        [true_filter, false_filter]
                            .into_iter()
                            .flatten()
                            .map(|b| (&**b, depth + 1)),
                    );
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether the filter or one of its members applies a label.
    fn applies_label(&self) -> bool {
        match self {
            RowFilter::ApplyLabel(_) => true,
            RowFilter::Chain(fs) | RowFilter::Interleave(fs) => {
                fs.iter().any(RowFilter::applies_label)
            }
            RowFilter::Condition {
                predicate: _,
                true_filter,
                false_filter,
            } => [true_filter, false_filter]
                .into_iter()
                .flatten()
                .any(|f| f.applies_label()),
            _ => false,
        }
    }
}

/// A validated filter, ready to apply to rows.
#[derive(Debug, Clone)]
pub struct CompiledFilter {
    root: Node,
    /// Whether a sink may send cells around the rest of the tree (their merge needs the
    /// input row's family order).
    has_sink: bool,
}

#[derive(Debug, Clone)]
enum Node {
    PassAll,
    BlockAll,
    Sink,
    Chain(Vec<Node>),
    Interleave(Vec<Node>),
    Condition(Box<Node>, Option<Box<Node>>, Option<Box<Node>>),
    RowKeyRegex(ByteRegex),
    RowSample(f64),
    FamilyRegex(ByteRegex),
    QualifierRegex(ByteRegex),
    ColumnRange(String, Bound<Vec<u8>>, Bound<Vec<u8>>),
    TimestampRange(i64, Option<i64>),
    ValueRegex(ByteRegex),
    ValueRange(Bound<Vec<u8>>, Bound<Vec<u8>>),
    RowOffset(usize),
    RowLimit(usize),
    ColumnLimit(usize),
    StripValue,
    Label(String),
    Bitmask(Vec<u8>),
}

fn compile(f: &RowFilter, depth: usize, in_condition: bool) -> Result<Node> {
    if depth > MAX_FILTER_DEPTH {
        return Err(FILTER_TREE.too_deep());
    }
    let positive = |n: i32, name: &str| -> Result<usize> {
        if n <= 0 {
            Err(Error::invalid_argument(format!(
                "{name}: {n} must be positive"
            )))
        } else {
            Ok(n as usize)
        }
    };
    Ok(match f {
        RowFilter::PassAll => Node::PassAll,
        RowFilter::BlockAll => Node::BlockAll,
        RowFilter::Sink if in_condition => {
            return Err(Error::invalid_argument(
                "sink: not allowed inside a condition's predicate, true or false filter",
            ))
        }
        RowFilter::Sink => Node::Sink,
        RowFilter::Chain(members) => {
            if members.len() < 2 {
                return Err(Error::invalid_argument("chain: needs at least two filters"));
            }
            if members.iter().filter(|m| m.applies_label()).count() > 1 {
                return Err(Error::invalid_argument(
                    "chain: at most one member may apply a label (a cell carries one label)",
                ));
            }
            Node::Chain(
                members
                    .iter()
                    .map(|m| compile(m, depth + 1, in_condition))
                    .collect::<Result<_>>()?,
            )
        }
        RowFilter::Interleave(members) => {
            if members.len() < 2 {
                return Err(Error::invalid_argument(
                    "interleave: needs at least two filters",
                ));
            }
            Node::Interleave(
                members
                    .iter()
                    .map(|m| compile(m, depth + 1, in_condition))
                    .collect::<Result<_>>()?,
            )
        }
        RowFilter::Condition {
            predicate,
            true_filter,
            false_filter,
        } => {
            let branch = |b: &Option<Box<RowFilter>>| -> Result<Option<Box<Node>>> {
                b.as_ref()
                    .map(|f| compile(f, depth + 1, true).map(Box::new))
                    .transpose()
            };
            Node::Condition(
                Box::new(compile(predicate, depth + 1, true)?),
                branch(true_filter)?,
                branch(false_filter)?,
            )
        }
        RowFilter::RowKeyRegex(re) => {
            Node::RowKeyRegex(ByteRegex::new(re, "row_key_regex_filter")?)
        }
        RowFilter::RowSample(p) => {
            if !(*p > 0.0 && *p < 1.0) {
                return Err(Error::invalid_argument(format!(
                    "row_sample_filter: probability {p} must be strictly between 0 and 1"
                )));
            }
            Node::RowSample(*p)
        }
        RowFilter::FamilyNameRegex(re) => {
            if re.contains(':') {
                return Err(Error::invalid_argument(
                    "family_name_regex_filter: regex must not contain ':'",
                ));
            }
            Node::FamilyRegex(ByteRegex::new(re.as_bytes(), "family_name_regex_filter")?)
        }
        RowFilter::ColumnQualifierRegex(re) => {
            Node::QualifierRegex(ByteRegex::new(re, "column_qualifier_regex_filter")?)
        }
        RowFilter::ColumnRange { family, start, end } => {
            if family.is_empty() {
                return Err(Error::invalid_argument(
                    "column_range_filter: family_name is required",
                ));
            }
            check_range(start, end, "column_range_filter")?;
            Node::ColumnRange(family.clone(), start.clone(), end.clone())
        }
        RowFilter::TimestampRange {
            start_micros,
            end_micros,
        } => {
            if *start_micros < 0 || *end_micros < 0 {
                return Err(Error::invalid_argument(
                    "timestamp_range_filter: timestamps must not be negative",
                ));
            }
            if *end_micros != 0 && end_micros < start_micros {
                return Err(Error::invalid_argument(format!(
                    "timestamp_range_filter: end {end_micros} is before start {start_micros}"
                )));
            }
            let range =
                crate::model::mutation::TimestampRange::from_wire(*start_micros, *end_micros);
            Node::TimestampRange(range.start_micros, range.end_micros)
        }
        RowFilter::ValueRegex(re) => Node::ValueRegex(ByteRegex::new(re, "value_regex_filter")?),
        RowFilter::ValueRange { start, end } => {
            check_range(start, end, "value_range_filter")?;
            Node::ValueRange(start.clone(), end.clone())
        }
        RowFilter::CellsPerRowOffset(n) => {
            Node::RowOffset(positive(*n, "cells_per_row_offset_filter")?)
        }
        RowFilter::CellsPerRowLimit(n) => {
            Node::RowLimit(positive(*n, "cells_per_row_limit_filter")?)
        }
        RowFilter::CellsPerColumnLimit(n) => {
            Node::ColumnLimit(positive(*n, "cells_per_column_limit_filter")?)
        }
        RowFilter::StripValue => Node::StripValue,
        RowFilter::ApplyLabel(label) => {
            let ok = !label.is_empty()
                && label.len() <= 15
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !ok {
                return Err(Error::invalid_argument(format!(
                    "apply_label_transformer: label {} must be 1 to 15 characters of [a-z0-9-]",
                    quoted(label)
                )));
            }
            Node::Label(label.clone())
        }
        RowFilter::ValueBitmask(mask) => {
            if mask.is_empty() {
                return Err(Error::invalid_argument(
                    "value_bitmask_filter: mask must be non-empty",
                ));
            }
            Node::Bitmask(mask.clone())
        }
    })
}

fn check_range(start: &Bound<Vec<u8>>, end: &Bound<Vec<u8>>, name: &str) -> Result<()> {
    let bad = match (start, end) {
        (Bound::Unbounded, _) | (_, Bound::Unbounded) => false,
        (Bound::Included(s), Bound::Included(e)) => s > e,
        (Bound::Included(s) | Bound::Excluded(s), Bound::Excluded(e))
        | (Bound::Excluded(s), Bound::Included(e)) => s > e,
    };
    if bad {
        Err(Error::invalid_argument(format!(
            "{name}: start is after end"
        )))
    } else {
        Ok(())
    }
}

fn in_range(v: &[u8], start: &Bound<Vec<u8>>, end: &Bound<Vec<u8>>) -> bool {
    (match start {
        Bound::Included(s) => v >= s.as_slice(),
        Bound::Excluded(s) => v > s.as_slice(),
        Bound::Unbounded => true,
    }) && (match end {
        Bound::Included(e) => v <= e.as_slice(),
        Bound::Excluded(e) => v < e.as_slice(),
        Bound::Unbounded => true,
    })
}

/// The families of a row's cells (grouped by family) in the order the row has them.
fn family_order(cells: &[Cell]) -> Vec<String> {
    // Cells of one family (a read that selects columns of one family, the common case) all
    // rank alike whatever the order says, so none is made: no copy of the name per row.
    if cells.windows(2).all(|w| w[0].family == w[1].family) {
        return Vec::new();
    }
    let mut order: Vec<String> = Vec::new();
    for c in cells {
        if order.last() != Some(&c.family) {
            order.push(c.family.clone());
        }
    }
    order
}

/// Sorts cells drawn from one row into Bigtable cell order: family in the row's `order`,
/// then qualifier ascending, then newest first. Stable: duplicates keep their order.
fn sort_cells(cells: &mut [Cell], order: &[String]) {
    let rank = |c: &Cell| order.iter().position(|f| *f == c.family);
    cells.sort_by(|a, b| {
        rank(a)
            .cmp(&rank(b))
            .then_with(|| a.qualifier.cmp(&b.qualifier))
            .then_with(|| b.timestamp_micros.cmp(&a.timestamp_micros))
    });
}

impl CompiledFilter {
    /// Whether the filter keeps every cell unchanged (lets reads skip the work).
    pub fn is_pass_all(&self) -> bool {
        matches!(self.root, Node::PassAll)
    }

    /// An `n` such that the filter returns the same for a row whether it is given all the
    /// row's visible cells or only the newest `n` of each column: a read may then stop
    /// each column after `n` visible cells and seek past the rest (`row_merge::RowResolver`).
    /// `None` when no such `n` is known.
    ///
    /// Known: a `CellsPerColumnLimit(n)`, and a chain whose first member that does not
    /// keep or drop whole columns has a known `n` (so `CellsPerColumnLimit(n)` after
    /// family, qualifier, column-range and row-key filters). Why that is exact: with
    /// `cut` keeping the newest `n` cells of each column, a filter `w` that keeps or drops
    /// whole columns (by family, qualifier or row key alone) has `w(cut(x)) = cut(w(x))`,
    /// and `limit(cut(x)) = limit(x)`; the members after see the same input either way.
    /// `cut` keeps at least one cell of every column, so a chain's stop on an empty input,
    /// a sink's family order and a row sample's draws are the same too.
    pub(crate) fn column_limit(&self) -> Option<usize> {
        column_limit(&self.root)
    }

    /// The columns outside of which the filter keeps nothing and decides nothing: the
    /// filter returns the same for a row whether it is given all the row's visible cells or
    /// only those of the columns [`ColumnSelection::keeps`] accepts. A read may then seek
    /// past every other column without building its cells (`row_merge::RowResolver`).
    /// `None` when the filter's columns are not known (or are all of them).
    ///
    /// Known: a family, qualifier or column-range filter (and BlockAll: no column, which
    /// lets a read that only asks whether rows exist, SQL's `COUNT(*)`, build nothing); a
    /// chain's leading members that
    /// keep or drop whole columns (see [`column_limit`](Self::column_limit)) together with
    /// the selection of the first member that does not; an interleave every branch of which
    /// has one (the union). Why that is exact: restricting the input to selected columns
    /// (`r`) commutes with a whole-column filter `w` (`w(r(x)) = r(w(x))`), and a node with
    /// selection `s` has `f(x) = f(s(x))`; so in a chain `w, rest`, the members see the same
    /// cells either way, and in an interleave each branch sees its own selection of the
    /// union's. Every node maps an empty row to an empty row, draws no random number on one,
    /// and orders families as the input has them, which restriction keeps.
    pub(crate) fn column_selection(&self) -> Option<ColumnSelection<'_>> {
        selective(&self.root).then_some(ColumnSelection { root: &self.root })
    }

    /// Whether a read that pushed down [`column_selection`](Self::column_selection) and
    /// [`column_limit`](Self::column_limit) has already done all the filter does: the filter
    /// is the column limit, a family, qualifier or column-range filter, or a chain (nested
    /// chains included) of those selections ending, perhaps, in the column limit. The resolver then emitted exactly the
    /// cells the filter keeps (the conjunction of the selections, at most `n` per column, in
    /// order), so the reader may skip [`apply`](Self::apply).
    pub(crate) fn is_done_by_pushdown(&self) -> bool {
        fn selection_only(node: &Node) -> bool {
            match node {
                Node::FamilyRegex(_) | Node::QualifierRegex(_) | Node::ColumnRange(..) => true,
                Node::Chain(members) => members.iter().all(selection_only),
                _ => false,
            }
        }
        match &self.root {
            Node::Chain(members) => match members.split_last() {
                Some((Node::ColumnLimit(_), front)) => front.iter().all(selection_only),
                _ => selection_only(&self.root),
            },
            Node::ColumnLimit(_) => true,
            other => selection_only(other),
        }
    }

    /// Applies the filter to one row's visible cells (in Bigtable order) and returns what the
    /// read outputs for the row, in Bigtable order.
    pub fn apply(
        &self,
        row_key: &[u8],
        cells: Vec<Cell>,
        random: &mut dyn RandomSource,
    ) -> Vec<Cell> {
        let order = if self.has_sink {
            family_order(&cells)
        } else {
            Vec::new()
        };
        let mut sunk = Vec::new();
        let mut out = eval(&self.root, row_key, cells, random, &mut sunk);
        if !sunk.is_empty() {
            out.append(&mut sunk);
            sort_cells(&mut out, &order);
        }
        out
    }
}

fn eval(
    node: &Node,
    key: &[u8],
    mut cells: Vec<Cell>,
    random: &mut dyn RandomSource,
    sunk: &mut Vec<Cell>,
) -> Vec<Cell> {
    match node {
        Node::PassAll => cells,
        Node::BlockAll => Vec::new(),
        Node::Sink => {
            sunk.extend(cells);
            Vec::new()
        }
        Node::Chain(members) => {
            for m in members {
                if cells.is_empty() {
                    break;
                }
                cells = eval(m, key, cells, random, sunk);
            }
            cells
        }
        Node::Interleave(members) => {
            let order = family_order(&cells);
            let mut out = Vec::new();
            // Each member sees the whole row. All but the last see a copy, made of only the
            // cells their leading selections keep (a column picked out of a wide row copies
            // that column, not the row); the last takes the row itself.
            if let Some((last, rest)) = members.split_last() {
                for m in rest {
                    out.extend(eval_copy(m, key, &cells, random, sunk));
                }
                out.extend(eval(last, key, cells, random, sunk));
            }
            // Stable: duplicates keep member order.
            sort_cells(&mut out, &order);
            out
        }
        Node::Condition(predicate, on_true, on_false) => {
            // Sinks are rejected inside conditions, so the predicate cannot sink anything.
            let mut ignored = Vec::new();
            let matched = !eval(predicate, key, cells.clone(), random, &mut ignored).is_empty();
            let branch = if matched { on_true } else { on_false };
            match branch {
                Some(b) => eval(b, key, cells, random, sunk),
                None => Vec::new(),
            }
        }
        Node::RowKeyRegex(re) => {
            if re.is_full_match(key) {
                cells
            } else {
                Vec::new()
            }
        }
        Node::RowSample(p) => {
            if random.next_f64() < *p {
                cells
            } else {
                Vec::new()
            }
        }
        Node::FamilyRegex(re) => keep(cells, |c| re.is_full_match(c.family.as_bytes())),
        Node::QualifierRegex(re) => keep(cells, |c| re.is_full_match(&c.qualifier)),
        Node::ColumnRange(family, start, end) => keep(cells, |c| {
            c.family == *family && in_range(&c.qualifier, start, end)
        }),
        Node::TimestampRange(start, end) => keep(cells, |c| {
            c.timestamp_micros >= *start && end.is_none_or(|e| c.timestamp_micros < e)
        }),
        Node::ValueRegex(re) => keep(cells, |c| re.is_full_match(&c.value)),
        Node::ValueRange(start, end) => keep(cells, |c| in_range(&c.value, start, end)),
        Node::RowOffset(n) => {
            if *n >= cells.len() {
                Vec::new()
            } else {
                cells.split_off(*n)
            }
        }
        Node::RowLimit(n) => {
            cells.truncate(*n);
            cells
        }
        Node::ColumnLimit(n) => {
            // Which cells to keep is decided against each cell's predecessor in the input
            // (cells of a column are adjacent), before any is removed: no copy of a column's
            // name per column, which a scan of wide rows would pay on every column.
            // Rows whose columns hold no more than `n` cells (one version each, the common
            // case under a limit of 1) pass without the mask's allocation.
            if column_limit_keeps(&cells, *n).all(|k| k) {
                return cells;
            }
            let keep_mask: Vec<bool> = column_limit_keeps(&cells, *n).collect();
            let mut at = 0usize;
            cells.retain(|_| {
                at += 1;
                keep_mask[at - 1]
            });
            cells
        }
        Node::StripValue => {
            for c in &mut cells {
                c.value.clear();
            }
            cells
        }
        Node::Label(label) => {
            for c in &mut cells {
                c.labels.push(label.clone());
            }
            cells
        }
        Node::Bitmask(mask) => keep(cells, |c| {
            c.value.len() == mask.len() && c.value.iter().zip(mask).all(|(v, m)| v & m == *m)
        }),
    }
}

/// `eval(node, key, cells.to_vec(), ..)`, copying only the cells that `node`'s leading
/// selections keep (see [`select`]); the rest of the node runs on that copy.
fn eval_copy(
    node: &Node,
    key: &[u8],
    cells: &[Cell],
    random: &mut dyn RandomSource,
    sunk: &mut Vec<Cell>,
) -> Vec<Cell> {
    let (leading, rest): (&[Node], &[Node]) = match node {
        Node::Chain(members) => {
            let n = members.iter().take_while(|m| is_selection(m)).count();
            members.split_at(n)
        }
        other if is_selection(other) => (core::slice::from_ref(other), &[]),
        other => return eval(other, key, cells.to_vec(), random, sunk),
    };
    let mut kept: Vec<usize> = (0..cells.len()).collect();
    for m in leading {
        if kept.is_empty() {
            return Vec::new();
        }
        select(m, key, cells, &mut kept);
    }
    let mut copy: Vec<Cell> = kept.iter().map(|&i| cells[i].clone()).collect();
    for m in rest {
        if copy.is_empty() {
            break;
        }
        copy = eval(m, key, copy, random, sunk);
    }
    copy
}

/// Whether `node` only keeps or drops cells, by the row key and what each cell holds, in
/// order, changing none and drawing no random number: [`select`] can apply it to indices.
fn is_selection(node: &Node) -> bool {
    matches!(
        node,
        Node::PassAll
            | Node::BlockAll
            | Node::RowKeyRegex(_)
            | Node::FamilyRegex(_)
            | Node::QualifierRegex(_)
            | Node::ColumnRange(..)
            | Node::TimestampRange(..)
            | Node::ValueRegex(_)
            | Node::ValueRange(..)
            | Node::RowOffset(_)
            | Node::RowLimit(_)
            | Node::ColumnLimit(_)
            | Node::Bitmask(_)
    )
}

/// Applies a selection node ([`is_selection`]) to `kept`, indices into `cells` in order:
/// afterwards it holds the indices of the cells `eval` of the node would return, in order.
fn select(node: &Node, key: &[u8], cells: &[Cell], kept: &mut Vec<usize>) {
    let cell = |i: &usize| &cells[*i];
    match node {
        Node::RowKeyRegex(re) if !re.is_full_match(key) => kept.clear(),
        Node::BlockAll => kept.clear(),
        Node::FamilyRegex(re) => kept.retain(|i| re.is_full_match(cell(i).family.as_bytes())),
        Node::QualifierRegex(re) => kept.retain(|i| re.is_full_match(&cell(i).qualifier)),
        Node::ColumnRange(family, start, end) => kept.retain(|i| {
            let c = cell(i);
            c.family == *family && in_range(&c.qualifier, start, end)
        }),
        Node::TimestampRange(start, end) => kept.retain(|i| {
            let t = cell(i).timestamp_micros;
            t >= *start && end.is_none_or(|e| t < e)
        }),
        Node::ValueRegex(re) => kept.retain(|i| re.is_full_match(&cell(i).value)),
        Node::ValueRange(start, end) => kept.retain(|i| in_range(&cell(i).value, start, end)),
        Node::RowOffset(n) => {
            let n = (*n).min(kept.len());
            kept.drain(..n);
        }
        Node::RowLimit(n) => kept.truncate(*n),
        Node::ColumnLimit(n) => {
            let mut seen = 0usize;
            let mut prev: Option<&Cell> = None;
            kept.retain(|i| {
                let c = cell(i);
                if !prev.is_some_and(|p| p.family == c.family && p.qualifier == c.qualifier) {
                    seen = 0;
                }
                prev = Some(c);
                seen += 1;
                seen <= *n
            });
        }
        Node::Bitmask(mask) => kept.retain(|i| {
            let v = &cell(i).value;
            v.len() == mask.len() && v.iter().zip(mask).all(|(b, m)| b & m == *m)
        }),
        // A matching row key, PassAll: everything stays. Not selections (`is_selection`):
        // never given.
        _ => {}
    }
}

/// See [`CompiledFilter::column_limit`].
fn column_limit(node: &Node) -> Option<usize> {
    match node {
        Node::ColumnLimit(n) => Some(*n),
        Node::Chain(members) => {
            let first = members.iter().find(|m| !keeps_whole_columns(m))?;
            column_limit(first)
        }
        _ => None,
    }
}

/// Whether `node` has a column selection that can drop a column (see
/// [`CompiledFilter::column_selection`]).
fn selective(node: &Node) -> bool {
    match node {
        Node::BlockAll | Node::FamilyRegex(_) | Node::QualifierRegex(_) | Node::ColumnRange(..) => {
            true
        }
        Node::Chain(members) => {
            for m in members {
                if selective(m) {
                    return true;
                }
                if !keeps_whole_columns(m) {
                    return false;
                }
            }
            false
        }
        Node::Interleave(branches) => branches.iter().all(selective),
        _ => false,
    }
}

/// Whether the selection of `node` (see [`CompiledFilter::column_selection`]) accepts the
/// column; `true` for a node with none.
fn keeps_column(node: &Node, family: &str, qualifier: &[u8]) -> bool {
    match node {
        Node::BlockAll => false,
        Node::FamilyRegex(re) => re.is_full_match(family.as_bytes()),
        Node::QualifierRegex(re) => re.is_full_match(qualifier),
        Node::ColumnRange(f, start, end) => f == family && in_range(qualifier, start, end),
        Node::Chain(members) => {
            for m in members {
                if !keeps_column(m, family, qualifier) {
                    return false;
                }
                if !keeps_whole_columns(m) {
                    // The first member that does not keep whole columns: its own selection
                    // is the chain's last part (what follows sees its output).
                    break;
                }
            }
            true
        }
        Node::Interleave(branches) => branches.iter().any(|b| keeps_column(b, family, qualifier)),
        _ => true,
    }
}

/// The columns a filter can keep: see [`CompiledFilter::column_selection`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColumnSelection<'f> {
    root: &'f Node,
}

impl ColumnSelection<'_> {
    /// Whether the filter may keep (or look at) cells of the column: when `false`, the
    /// column's cells can be left out of the row the filter is given.
    pub(crate) fn keeps(&self, family: &str, qualifier: &[u8]) -> bool {
        keeps_column(self.root, family, qualifier)
    }
}

/// Whether the node keeps or drops each column whole, deciding by the row key, family and
/// qualifier alone, and changes no cell it keeps (so it commutes with keeping the newest
/// `n` cells of each column).
fn keeps_whole_columns(node: &Node) -> bool {
    match node {
        Node::PassAll
        | Node::RowKeyRegex(_)
        | Node::FamilyRegex(_)
        | Node::QualifierRegex(_)
        | Node::ColumnRange(..) => true,
        Node::Chain(members) => members.iter().all(keeps_whole_columns),
        _ => false,
    }
}

/// For each cell in order, whether a limit of `n` cells per column keeps it: the cells of a
/// column are adjacent, so each is compared with its predecessor only.
fn column_limit_keeps(cells: &[Cell], n: usize) -> impl Iterator<Item = bool> + '_ {
    let mut seen = 0usize;
    cells.iter().enumerate().map(move |(i, c)| {
        let same = i > 0 && {
            let p = &cells[i - 1];
            p.family == c.family && p.qualifier == c.qualifier
        };
        seen = if same { seen + 1 } else { 1 };
        seen <= n
    })
}

fn keep(mut cells: Vec<Cell>, pred: impl Fn(&Cell) -> bool) -> Vec<Cell> {
    cells.retain(|c| pred(c));
    cells
}

#[cfg(test)]
mod copy_tests;

#[cfg(test)]
mod tests {
    use super::RowFilter;
    use alloc::string::String;
    use alloc::vec;
    use core::ops::Bound;

    fn limit(f: RowFilter) -> Option<usize> {
        f.compile().unwrap().column_limit()
    }

    #[test]
    fn only_selections_and_a_last_column_limit_are_done_by_the_pushdown() {
        let done = |f: RowFilter| f.compile().unwrap().is_done_by_pushdown();
        let family = || RowFilter::FamilyNameRegex(String::from("cf"));
        let qualifier = || RowFilter::ColumnQualifierRegex(b"q".to_vec());
        let n = RowFilter::CellsPerColumnLimit;
        assert!(done(family()));
        assert!(done(n(1)));
        assert!(done(RowFilter::Chain(vec![family(), qualifier()])));
        assert!(done(RowFilter::Chain(vec![family(), n(2)])));
        assert!(done(RowFilter::Chain(vec![
            RowFilter::Chain(vec![family(), qualifier()]),
            n(1)
        ])));
        for f in [
            RowFilter::PassAll,
            RowFilter::Chain(vec![n(1), family()]),
            RowFilter::Chain(vec![family(), n(1), n(2)]),
            RowFilter::Chain(vec![RowFilter::RowKeyRegex(b"r".to_vec()), family()]),
            RowFilter::Chain(vec![family(), RowFilter::StripValue]),
            RowFilter::Interleave(vec![family(), qualifier()]),
        ] {
            assert!(!done(f.clone()), "{f:?}");
        }
    }

    #[test]
    fn a_column_limit_is_pushed_down_only_behind_whole_column_filters() {
        let n = RowFilter::CellsPerColumnLimit;
        let family = || RowFilter::FamilyNameRegex(String::from("cf"));
        let range = || RowFilter::ColumnRange {
            family: String::from("cf"),
            start: Bound::Included(b"a".to_vec()),
            end: Bound::Unbounded,
        };
        assert_eq!(limit(n(3)), Some(3));
        assert_eq!(
            limit(RowFilter::Chain(vec![n(1), RowFilter::StripValue])),
            Some(1)
        );
        assert_eq!(
            limit(RowFilter::Chain(vec![
                family(),
                RowFilter::ColumnQualifierRegex(b"q.*".to_vec()),
                range(),
                RowFilter::RowKeyRegex(b"r.*".to_vec()),
                n(2),
                RowFilter::CellsPerRowLimit(1),
            ])),
            Some(2)
        );
        // Nested: the inner chain keeps whole columns and then limits.
        let inner = RowFilter::Chain(vec![family(), n(2)]);
        assert_eq!(
            limit(RowFilter::Chain(vec![inner, RowFilter::StripValue])),
            Some(2)
        );
        let inner = RowFilter::Chain(vec![family(), range()]);
        assert_eq!(limit(RowFilter::Chain(vec![inner, n(1)])), Some(1));
        // Not pushed down: no limit, or something before it that drops cells of a column
        // (the newest ones may be among them) or changes them.
        for f in [
            RowFilter::PassAll,
            RowFilter::Chain(vec![family(), range()]),
            RowFilter::Chain(vec![
                RowFilter::TimestampRange {
                    start_micros: 0,
                    end_micros: 10,
                },
                n(1),
            ]),
            RowFilter::Chain(vec![RowFilter::ValueRegex(b"x".to_vec()), n(1)]),
            RowFilter::Chain(vec![RowFilter::CellsPerRowOffset(1), n(1)]),
            RowFilter::Chain(vec![RowFilter::CellsPerRowLimit(5), n(1)]),
            RowFilter::Interleave(vec![n(1), n(2)]),
            RowFilter::Condition {
                predicate: alloc::boxed::Box::new(n(1)),
                true_filter: Some(alloc::boxed::Box::new(n(1))),
                false_filter: None,
            },
        ] {
            assert_eq!(limit(f.clone()), None, "{f:?}");
        }
    }
}
