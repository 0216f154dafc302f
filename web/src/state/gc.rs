//! Garbage collection in the playground: the GC mode switch, "Collect now", the preview of a
//! GC-rule change, and the read filter that mirrors a table's GC rules.
//!
//! The playground defaults to [`GcMode::Background`], Cloud Bigtable's behaviour: its
//! garbage-collection overview (<https://cloud.google.com/bigtable/docs/garbage-collection>)
//! says collection runs in the background, typically days after data becomes eligible, that
//! eligible data keeps appearing in reads until then, and that a user who must not see it
//! should add a read filter mirroring the GC rule. A playground that teaches Bigtable shows
//! exactly that: eligible cells stay readable (badged), "Collect now" plays the background
//! process, and the mirroring filter is one click away. Immediate mode (the engine's default)
//! is a switch away.
//!
//! Invariants:
//! - the mode is the database's (`Database::gc_mode`); [`Playground::gc_background`] mirrors
//!   it after every action and the session keeps it (`session::Session::gc_mode`);
//! - a preview and a collection count stored cells through a read in Background mode (the
//!   only read that returns every uncollected cell), after which the mode is put back:
//!   switching modes changes nothing stored, so the count never alters the data;
//! - [`mirror_filter`] keeps exactly the cells the rules keep at the time it is built (a
//!   max-age bound is fixed then), or is `None` when no filter can (an intersection).

use sparsetable::{GcMode, RowFilter};

use super::*;

/// What applying a GC rule to a family would do, shown before it is applied.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GcPreview {
    /// The table.
    pub table: String,
    /// The family.
    pub family: String,
    /// The rule previewed.
    pub rule: GcRule,
    /// Whether the database is in Background mode.
    pub background: bool,
    /// Stored (uncollected) cells of the family the current rule makes collectable: in
    /// Background mode still readable, in Immediate mode hidden already.
    pub eligible_now: usize,
    /// Of the cells stored, those the new rule makes collectable (Background mode: the
    /// eligible cells after the change).
    pub eligible_after: usize,
    /// Background: cells eligible now that the new rule keeps (not yet collected, so they
    /// stay readable for good). Immediate: always 0 (what is hidden is removed first).
    pub kept_again: usize,
    /// Immediate: readable cells the new rule hides at once (they disappear from reads).
    /// Background: readable cells that become eligible (they stay readable).
    pub newly: usize,
}

impl GcPreview {
    /// The preview in words, as the GC editor shows it.
    pub fn describe(&self) -> String {
        let cells = |n: usize| crate::display::count_of(n, "cell", "cells");
        let mut out = Vec::new();
        if self.background {
            out.push(format!(
                "Eligible for GC now: {}; after the change: {}.",
                cells(self.eligible_now),
                cells(self.eligible_after)
            ));
            if self.newly > 0 {
                out.push(format!(
                    "Newly eligible, still readable until a collection: {}.",
                    cells(self.newly)
                ));
            }
            if self.kept_again > 0 {
                out.push(format!(
                    "Eligible now but not collected yet, so kept for good by the new rule (they stay readable): {}.",
                    cells(self.kept_again)
                ));
            }
        } else {
            out.push(if self.newly > 0 {
                format!("Disappearing from reads at once: {}.", cells(self.newly))
            } else {
                "No readable cell disappears.".into()
            });
            if self.eligible_now > 0 {
                out.push(format!(
                    "Hidden by the current rule and removed for good first (a looser rule does not bring them back): {}.",
                    cells(self.eligible_now)
                ));
            }
        }
        out.join(" ")
    }
}

/// The filter that keeps what `families`' `rules` keep at `now_micros` (Bigtable's advice:
/// add a filter mirroring the GC rule), or `None` when a rule has no filter form (an
/// intersection of several rules keeps a cell if any of them would, which no filter says
/// without duplicating cells). `None` too when no rule collects anything.
pub fn mirror_filter(families: &[String], rules: &[GcRule], now_micros: i64) -> Option<RowFilter> {
    let mut members = Vec::new();
    let mut any = false;
    for (family, rule) in families.iter().zip(rules) {
        let mut chain = alloc::vec![RowFilter::FamilyNameRegex(regex_escape(family))];
        let parts = mirror_rule(rule, now_micros)?;
        any |= !parts.is_empty();
        chain.extend(parts);
        members.push(if chain.len() == 1 {
            chain.pop().unwrap_or(RowFilter::PassAll)
        } else {
            RowFilter::Chain(chain)
        });
    }
    if !any {
        return None;
    }
    Some(if members.len() == 1 {
        members.pop().unwrap_or(RowFilter::PassAll)
    } else {
        RowFilter::Interleave(members)
    })
}

/// The filters to chain after a family's name to keep what `rule` keeps: a version limit
/// first (it counts the column's cells as the rule does), then the age bound.
fn mirror_rule(rule: &GcRule, now_micros: i64) -> Option<Vec<RowFilter>> {
    let mut limits = Vec::new();
    let mut ages = Vec::new();
    collect_parts(rule, now_micros, &mut limits, &mut ages)?;
    limits.extend(ages);
    Some(limits)
}

fn collect_parts(
    rule: &GcRule,
    now_micros: i64,
    limits: &mut Vec<RowFilter>,
    ages: &mut Vec<RowFilter>,
) -> Option<()> {
    match rule {
        GcRule::Never => Some(()),
        GcRule::MaxNumVersions(n) => {
            limits.push(RowFilter::CellsPerColumnLimit(i32::try_from(*n).ok()?));
            Some(())
        }
        GcRule::MaxAge { micros } => {
            // Kept: timestamp >= now - age. Tables keep whole milliseconds, so the bound is
            // rounded up to one (the filter's granularity) without changing what it keeps.
            let cutoff = now_micros.saturating_sub(*micros);
            let start = cutoff.div_euclid(1000) * 1000 + if cutoff % 1000 == 0 { 0 } else { 1000 };
            ages.push(RowFilter::TimestampRange {
                start_micros: start.max(0),
                end_micros: 0,
            });
            Some(())
        }
        // A union collects what any member collects: keep what every member keeps.
        GcRule::Union(rules) => {
            for r in rules {
                collect_parts(r, now_micros, limits, ages)?;
            }
            Some(())
        }
        GcRule::Intersection(rules) => match rules.as_slice() {
            [] => Some(()),
            [one] => collect_parts(one, now_micros, limits, ages),
            _ => None,
        },
    }
}

/// A family name as a regex matching just it (names are `[-_.a-zA-Z0-9]+`).
fn regex_escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() && c != '_' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Playground {
    /// The grid's GC context: the selected table's rules and the clock.
    pub(super) fn grid_gc(&self) -> crate::grid_data::GridGc {
        crate::grid_data::GridGc {
            rules: self
                .selected_table()
                .map(|t| t.gc_rules.clone())
                .unwrap_or_default(),
            now_micros: self.db.now_micros(),
        }
    }

    /// Switches the GC mode; every view re-reads (what reads return changed).
    pub(super) fn set_gc_mode(&mut self, background: bool) -> Result<(), ShownError> {
        let mode = if background {
            GcMode::Background
        } else {
            GcMode::Immediate
        };
        self.db.set_gc_mode(mode);
        self.gc_background = background;
        self.gc_preview = None;
        self.revision += 1;
        self.rebuild_grid();
        self.refresh_drawer();
        self.notice = Some(if background {
            "GC mode: Background (as Bigtable): eligible cells stay readable until a collection"
                .into()
        } else {
            "GC mode: Immediate: reads hide eligible cells at once".into()
        });
        Ok(())
    }

    /// "Collect now": a garbage collection pass over the selected table, as Bigtable's
    /// background process would run it; the notice says how many cells it removed.
    pub(super) fn collect_now(&mut self) -> Result<(), ShownError> {
        let table = self.selected.clone().ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: "create a table first".into(),
        })?;
        let before = self.stored_cell_count(&table)?;
        self.db.collect_garbage(&table).map_err(super::shown)?;
        let after = self.stored_cell_count(&table)?;
        self.revision += 1;
        self.gc_preview = None;
        self.rebuild_grid();
        self.refresh_drawer();
        self.notice = Some(format!(
            "Collected garbage in {table}: {} removed",
            crate::display::count_of(before.saturating_sub(after), "cell", "cells")
        ));
        Ok(())
    }

    /// Every uncollected cell of `table` (deletes excluded), or only `family`'s, read
    /// untracked in Background mode; the mode is put back after. A preview reads one family:
    /// the engine skips the others' cells instead of the playground building them.
    fn stored_rows(&mut self, table: &str, family: Option<&str>) -> Result<Vec<Row>, ShownError> {
        let request = ReadRowsRequest {
            filter: family.map_or(RowFilter::PassAll, |f| {
                RowFilter::FamilyNameRegex(regex_escape(f))
            }),
            ..ReadRowsRequest::default()
        };
        let db = &mut self.db;
        let mode = db.gc_mode();
        db.set_gc_mode(GcMode::Background);
        let rows = query::run(db, table, &request, false);
        db.set_gc_mode(mode);
        rows.map(|(rows, _)| rows).map_err(super::shown)
    }

    fn stored_cell_count(&mut self, table: &str) -> Result<usize, ShownError> {
        Ok(self
            .stored_rows(table, None)?
            .iter()
            .map(|r| r.cells.len())
            .sum())
    }

    /// Works out what setting `family`'s rule to `rule` would do ([`GcPreview`]).
    pub(super) fn preview_gc_rule(
        &mut self,
        family: String,
        rule: GcRule,
    ) -> Result<(), ShownError> {
        let table = self.selected.clone().ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: "create a table first".into(),
        })?;
        let current = self
            .selected_table()
            .and_then(|t| {
                t.families
                    .iter()
                    .position(|f| *f == family)
                    .map(|i| t.gc_rules[i].clone())
            })
            .ok_or_else(|| ShownError {
                code: "NOT_FOUND".into(),
                message: format!("no family {family:?} in table {table}"),
            })?;
        let now = self.db.now_micros();
        let background = self.gc_background;
        let mut preview = GcPreview {
            table: table.clone(),
            family: family.clone(),
            rule: rule.clone(),
            background,
            eligible_now: 0,
            eligible_after: 0,
            kept_again: 0,
            newly: 0,
        };
        for row in self.stored_rows(&table, Some(&family))? {
            // Cells come per column, newest first: `i` counts the column's stored versions,
            // `kept` those the current rule keeps (Immediate mode's readable ones).
            let mut column: Option<&[u8]> = None;
            let (mut i, mut kept) = (0usize, 0usize);
            for c in row.cells.iter().filter(|c| c.family == family) {
                if column != Some(c.qualifier.as_slice()) {
                    column = Some(c.qualifier.as_slice());
                    (i, kept) = (0, 0);
                }
                let old = current.is_collectable(i, c.timestamp_micros, now);
                if background {
                    let new = rule.is_collectable(i, c.timestamp_micros, now);
                    preview.eligible_now += usize::from(old);
                    preview.eligible_after += usize::from(new);
                    preview.kept_again += usize::from(old && !new);
                    preview.newly += usize::from(new && !old);
                } else if old {
                    preview.eligible_now += 1;
                } else {
                    // Applying removes what the old rule collects first; the new rule then
                    // judges the rest, reindexed.
                    let new = rule.is_collectable(kept, c.timestamp_micros, now);
                    preview.eligible_after += usize::from(new);
                    preview.newly += usize::from(new);
                    kept += 1;
                }
                i += 1;
            }
        }
        self.gc_preview = Some(preview);
        Ok(())
    }

    /// Opens the Query view with the filter mirroring the selected table's GC rules and
    /// runs it: the read a Bigtable user adds so eligible cells never show.
    pub(super) fn read_with_gc_filter(&mut self) -> Result<(), ShownError> {
        let t = self.selected_table().cloned().ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: "create a table first".into(),
        })?;
        let now = self.db.now_micros();
        let filter = mirror_filter(&t.families, &t.gc_rules, now).ok_or_else(|| ShownError {
            code: "FAILED_PRECONDITION".into(),
            message: format!(
                "no read filter mirrors the GC rules of {}: none collects anything, or one is an intersection of several rules",
                t.name
            ),
        })?;
        let spec = crate::query::QuerySpec {
            filter,
            ..crate::query::QuerySpec::default()
        };
        self.view = View::Query;
        self.query_preset = Some(spec.clone());
        self.run_query(&spec)
    }
}
