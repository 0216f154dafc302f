//! `cbt` command lines: what the playground ran as cbt spells it, and a comment where cbt
//! cannot express part of the request.

use super::*;

pub(super) const CBT: &str = "cbt -project my-project -instance my-instance";

/// A regex cbt's `columns=` can carry: text without its separators `,` and `:`.
pub(super) fn cbt_column_part(r: &[u8]) -> Option<String> {
    let s = core::str::from_utf8(r).ok()?;
    (!s.is_empty() && !s.contains([',', ':'])).then(|| s.to_string())
}

/// One entry of cbt's `columns=` (`family:qualifier`, `family:` or `:qualifier`, each part a
/// regex; cbt chains a family and a qualifier filter for the first), or `None`.
pub(super) fn cbt_column(f: &RowFilter) -> Option<String> {
    match f {
        RowFilter::FamilyNameRegex(r) => Some(format!("{}:", cbt_column_part(r.as_bytes())?)),
        RowFilter::ColumnQualifierRegex(q) => Some(format!(":{}", cbt_column_part(q)?)),
        RowFilter::Chain(fs) => {
            match fs.as_slice() {
                [RowFilter::FamilyNameRegex(f), RowFilter::ColumnQualifierRegex(q)]
                | [RowFilter::ColumnQualifierRegex(q), RowFilter::FamilyNameRegex(f)] => Some(
                    format!("{}:{}", cbt_column_part(f.as_bytes())?, cbt_column_part(q)?),
                ),
                _ => None,
            }
        }
        _ => None,
    }
}

/// cbt's `columns=` for a filter: one column entry, or an interleave of them (cbt
/// interleaves its entries).
pub(super) fn cbt_columns(f: &RowFilter) -> Option<String> {
    match f {
        RowFilter::Interleave(fs) if !fs.is_empty() => {
            let cols: Option<Vec<String>> = fs.iter().map(cbt_column).collect();
            Some(cols?.join(","))
        }
        _ => cbt_column(f),
    }
}

/// The `read` flags a filter maps to, or `None` when `cbt` cannot express it.
pub(super) fn cbt_filter_flags(f: &RowFilter, flags: &mut Vec<String>) -> bool {
    if let Some(cols) = cbt_columns(f) {
        // cbt takes one columns= flag.
        if flags.iter().any(|f| f.starts_with("columns=")) {
            return false;
        }
        flags.push(format!("columns={}", sh(&cols)));
        return true;
    }
    match f {
        RowFilter::PassAll => true,
        // Every member of a chain applies: map all that can be, report if any cannot. A
        // family and a qualifier filter in one chain are one `columns=family:qualifier`.
        RowFilter::Chain(fs) => {
            let family = fs
                .iter()
                .position(|f| matches!(f, RowFilter::FamilyNameRegex(_)));
            let qualifier = fs
                .iter()
                .position(|f| matches!(f, RowFilter::ColumnQualifierRegex(_)));
            let mut rest: Vec<&RowFilter> = fs.iter().collect();
            if let (Some(a), Some(b)) = (family, qualifier) {
                let pair = RowFilter::Chain(alloc::vec![fs[a].clone(), fs[b].clone()]);
                if !cbt_filter_flags(&pair, flags) {
                    return false;
                }
                rest = fs
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != a && *i != b)
                    .map(|(_, f)| f)
                    .collect();
            }
            // Not `all`: it would stop at the first unmapped member and drop later flags.
            let mapped: Vec<bool> = rest.iter().map(|f| cbt_filter_flags(f, flags)).collect();
            mapped.into_iter().all(|ok| ok)
        }
        RowFilter::RowKeyRegex(r) => {
            flags.push(format!("regex={}", sh(&utf8(r))));
            true
        }
        RowFilter::CellsPerColumnLimit(n) => {
            flags.push(format!("cells-per-column={n}"));
            true
        }
        _ => false,
    }
}

pub(super) fn cbt_read(table: &str, r: &ReadRowsRequest) -> String {
    let mut notes = Vec::new();
    let set = &r.row_set;
    let mut flags = Vec::new();
    if set.row_keys.len() == 1 && set.row_ranges.is_empty() && r.filter == RowFilter::PassAll {
        return format!(
            "{CBT} lookup {} {}\n",
            sh(table),
            sh(&utf8(&set.row_keys[0]))
        );
    }
    if !set.row_keys.is_empty() {
        notes.push("cbt read takes no list of row keys: use one lookup per key");
    }
    match set.row_ranges.as_slice() {
        [] => {}
        [range] => {
            let prefix_of = |start: &[u8]| {
                sparsetable::RowRange::prefix(start.to_vec()) == *range && !start.is_empty()
            };
            match (&range.start, &range.end) {
                (Bound::Included(s), _) if prefix_of(s) => {
                    flags.push(format!("prefix={}", sh(&utf8(s))));
                }
                (start, end) => {
                    match start {
                        Bound::Included(s) => flags.push(format!("start={}", sh(&utf8(s)))),
                        Bound::Excluded(_) => notes.push("cbt's start= is inclusive"),
                        Bound::Unbounded => {}
                    }
                    match end {
                        Bound::Excluded(e) => flags.push(format!("end={}", sh(&utf8(e)))),
                        Bound::Included(_) => notes.push("cbt's end= is exclusive"),
                        Bound::Unbounded => {}
                    }
                }
            }
        }
        _ => notes.push("cbt read takes one range: run one read per range"),
    }
    if !cbt_filter_flags(&r.filter, &mut flags) {
        notes.push("cbt cannot express this filter (only regex=, columns= and cells-per-column=)");
    }
    if r.rows_limit > 0 {
        flags.push(format!("count={}", r.rows_limit));
    }
    if r.reversed {
        flags.push("reversed=true".into());
    }
    let mut out = String::new();
    for n in notes {
        let _ = writeln!(out, "# {n}");
    }
    let _ = write!(out, "{CBT} read {}", sh(table));
    for f in flags {
        let _ = write!(out, " {f}");
    }
    out.push('\n');
    out
}

pub(super) fn cbt_write(table: &str, key: &[u8], ms: &[Mutation]) -> String {
    let (t, k) = (sh(table), sh(&utf8(key)));
    let mut out = String::new();
    for m in ms {
        let _ = match m {
            Mutation::SetCell {
                family,
                qualifier,
                timestamp_micros,
                value,
            } => writeln!(
                out,
                "{CBT} set {t} {k} {}",
                sh(&format!(
                    "{family}:{}={}@{timestamp_micros}",
                    utf8(qualifier),
                    utf8(value)
                ))
            ),
            Mutation::DeleteFromColumn {
                family,
                qualifier,
                time_range,
            } => {
                if time_range.start_micros != 0 || time_range.end_micros.is_some() {
                    writeln!(
                        out,
                        "# cbt deletes whole columns; it cannot delete one version"
                    )
                } else {
                    writeln!(
                        out,
                        "{CBT} deletecolumn {t} {k} {} {}",
                        sh(family),
                        sh(&utf8(qualifier))
                    )
                }
            }
            Mutation::DeleteFromFamily { family } => writeln!(
                out,
                "# cbt cannot delete one family of a row (its deletefamily drops {} from the table)",
                sh(family)
            ),
            Mutation::DeleteFromRow => writeln!(out, "{CBT} deleterow {t} {k}"),
            other => writeln!(out, "# {other:?}"),
        };
    }
    out
}

/// cbt's duration: the largest unit that divides it (cbt's smallest is ms).
pub(super) fn cbt_duration(micros: i64) -> Option<String> {
    if micros <= 0 || micros % 1000 != 0 {
        return None;
    }
    let ms = micros / 1000;
    Some(
        [
            ("d", 86_400_000),
            ("h", 3_600_000),
            ("m", 60_000),
            ("s", 1000),
        ]
        .iter()
        .find(|(_, unit)| ms % unit == 0)
        .map_or(format!("{ms}ms"), |(name, unit)| {
            format!("{}{name}", ms / unit)
        }),
    )
}

/// cbt's policy expression: leaves joined by `and` / `or`, read left to right, so only the
/// first member of a group may be a group itself; `None` when the rule needs more.
pub(super) fn cbt_gc(rule: &GcRule) -> Option<String> {
    match rule {
        GcRule::Never => Some("never".into()),
        GcRule::MaxNumVersions(n) => Some(format!("maxversions={n}")),
        GcRule::MaxAge { micros } => Some(format!("maxage={}", cbt_duration(*micros)?)),
        GcRule::Union(rs) | GcRule::Intersection(rs) => {
            let op = if matches!(rule, GcRule::Union(_)) {
                " or "
            } else {
                " and "
            };
            let (first, rest) = rs.split_first()?;
            let mut out = match first {
                GcRule::Never => return None,
                other => cbt_gc(other)?,
            };
            for r in rest {
                match r {
                    GcRule::MaxNumVersions(_) | GcRule::MaxAge { .. } => {
                        out.push_str(op);
                        out.push_str(&cbt_gc(r)?);
                    }
                    _ => return None,
                }
            }
            Some(out)
        }
    }
}

pub(super) fn cbt_admin(op: &AdminOp<'_>) -> String {
    match op {
        AdminOp::CreateTable { table, families } => {
            let mut notes = String::new();
            let fams: Vec<String> = families
                .iter()
                .map(|(f, r)| match (r, cbt_gc(r)) {
                    (GcRule::Never, _) => f.clone(),
                    (_, Some(p)) => format!("{f}:{p}"),
                    (_, None) => {
                        notes.push_str("# cbt's policy syntax cannot hold this GC rule (left to right, no groups after the first)\n");
                        f.clone()
                    }
                })
                .collect();
            let mut out = format!("{notes}{CBT} createtable {}", sh(table));
            if !fams.is_empty() {
                let _ = write!(out, " {}", sh(&format!("families={}", fams.join(","))));
            }
            out + "\n"
        }
        AdminOp::SetGcRule {
            table,
            family,
            rule,
        } => match cbt_gc(rule) {
            Some(p) => format!("{CBT} setgcpolicy {} {} {p}\n", sh(table), sh(family)),
            None => "# cbt's policy syntax cannot hold this GC rule (left to right, no groups after the first)\n".into(),
        },
        AdminOp::DeleteTable { table } => format!("{CBT} deletetable {}\n", sh(table)),
    }
}
