//! Garbage-collection rules of a column family, and when the engine applies them.
//!
//! A rule decides, for each cell of one column, whether the cell is collectable ("eligible
//! for garbage collection"). What happens to a collectable cell depends on the database's
//! [`GcMode`]:
//!
//! - [`GcMode::Immediate`] (the engine's default): reads hide collectable cells at once, so
//!   results never depend on when compaction ran; compaction drops them for good. Whatever
//!   becomes collectable is gone for reads from that moment: a ranged delete of newer
//!   versions cannot bring an older one back (the table buries it first), and a rule change
//!   first removes what the old rule collected.
//! - [`GcMode::Background`]: as Cloud Bigtable behaves. Its garbage-collection overview
//!   (<https://cloud.google.com/bigtable/docs/garbage-collection>) says collection is an
//!   asynchronous background process that runs during compaction, typically days and up to
//!   a week after data becomes eligible, that eligible data keeps appearing in read results
//!   until it is actually removed, and that a user who wants it excluded must add a read
//!   filter mirroring the GC rule; the process uses each family's *current* rule. So here a
//!   collectable cell stays readable until a collection pass removes it, and the passes run
//!   on a deterministic schedule driven by the engine's clock and calls, never by a timer:
//!   every full compaction of a tablet collects (the automatic ones a flush triggers, the
//!   ones splits and backups make, `compact_table`), and so does an explicit
//!   `collect_garbage`. A pass evaluates the rules as they are when it runs, at the
//!   database clock's time, over the cells the compaction takes in. Consequences, all
//!   Bigtable's: deleting the newest versions with a ranged delete can expose an older
//!   version that was collectable but not yet collected; raising a family's max versions
//!   makes uncollected versions visible (and no longer collectable) again; a
//!   ReadModifyWrite or CheckAndMutate reads the collectable cells too.
//!
//! The mode is a property of the open database, not of the stored data: it changes nothing
//! on disk. Data written in one mode reads correctly in the other: Immediate hides every
//! collectable cell, Background shows every cell no collection or delete removed (cells an
//! Immediate-mode ranged delete buried stay deleted). After a full collection both modes
//! read the same. The engine defaults to Immediate because Sparsetable's results are
//! meant not to depend on compaction timing and Google's client system tests assume
//! reads that honour the rule; the Background mode is there to show and test what a real
//! Bigtable does.

use alloc::vec::Vec;

use crate::limits::GC_RULE_TREE;

/// When collectable cells stop being readable (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum GcMode {
    /// Reads hide collectable cells at once; compaction drops them. The default.
    #[default]
    Immediate,
    /// Collectable cells stay readable until a collection pass (every full compaction and
    /// every explicit `collect_garbage`) removes them, as in Cloud Bigtable.
    Background,
}

impl GcMode {
    /// The mode's name as front-ends spell it: `"immediate"` or `"background"`.
    pub fn as_str(self) -> &'static str {
        match self {
            GcMode::Immediate => "immediate",
            GcMode::Background => "background",
        }
    }

    /// Whether reads hide collectable cells (Immediate mode).
    pub fn hides_collectable(self) -> bool {
        self == GcMode::Immediate
    }
}

impl core::str::FromStr for GcMode {
    type Err = crate::Error;

    /// Parses `"immediate"` or `"background"` (ASCII case ignored).
    ///
    /// # Errors
    /// `InvalidArgument` naming the accepted values.
    fn from_str(s: &str) -> crate::Result<GcMode> {
        if s.eq_ignore_ascii_case("immediate") {
            Ok(GcMode::Immediate)
        } else if s.eq_ignore_ascii_case("background") {
            Ok(GcMode::Background)
        } else {
            Err(crate::Error::invalid_argument(alloc::format!(
                "gc mode {s:?} must be \"immediate\" or \"background\""
            )))
        }
    }
}

/// A column family's GC rule, as Bigtable's `GcRule`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum GcRule {
    /// Keep everything (no rule set).
    #[default]
    Never,
    /// Keep only the newest `n` cells of each column (`n >= 1`).
    MaxNumVersions(u32),
    /// Drop cells whose timestamp is older than `now - max_age_micros` (at least 1 ms).
    MaxAge {
        /// The age limit in microseconds.
        micros: i64,
    },
    /// Drop a cell only if every sub-rule would drop it.
    Intersection(Vec<GcRule>),
    /// Drop a cell if any sub-rule would drop it.
    Union(Vec<GcRule>),
}

impl GcRule {
    /// A `MaxAge` rule from a `Duration`'s `seconds` and `nanos`, truncated to microseconds.
    ///
    /// # Errors
    /// `InvalidArgument` for a negative part (a proto Duration's parts share one sign, and a
    /// negative age means nothing) or an age whose microseconds overflow an `i64`. An age
    /// under 1 ms is refused later, by [`GcRule::validate`], like any other bad parameter.
    pub fn max_age_from_duration(seconds: i64, nanos: i32) -> crate::Result<GcRule> {
        let micros = (seconds >= 0 && nanos >= 0)
            .then(|| {
                seconds
                    .checked_mul(1_000_000)?
                    .checked_add(i64::from(nanos / 1000))
            })
            .flatten()
            .ok_or_else(|| {
                crate::Error::invalid_argument(alloc::format!(
                    "gc_rule.max_age {seconds}s {nanos}ns must be a positive duration that fits in int64 microseconds"
                ))
            })?;
        Ok(GcRule::MaxAge { micros })
    }

    /// A `MaxAge` rule's age as a `Duration`'s `(seconds, nanos)`, both of the sign of the
    /// age: the inverse of [`GcRule::max_age_from_duration`]. `None` for any other rule.
    pub fn max_age_duration(&self) -> Option<(i64, i32)> {
        match self {
            // |micros % 1e6| < 1e6, so the nanos fit an i32.
            GcRule::MaxAge { micros } => {
                Some((micros / 1_000_000, (micros % 1_000_000) as i32 * 1000))
            }
            _ => None,
        }
    }

    /// Whether a cell is collectable under this rule.
    ///
    /// `version_index` is the cell's position among the live cells of its column, newest
    /// first (0 = newest); `timestamp_micros` is the cell's timestamp; `now_micros` the time.
    pub fn is_collectable(
        &self,
        version_index: usize,
        timestamp_micros: i64,
        now_micros: i64,
    ) -> bool {
        match self {
            GcRule::Never => false,
            GcRule::MaxNumVersions(n) => version_index >= *n as usize,
            GcRule::MaxAge { micros } => timestamp_micros < now_micros.saturating_sub(*micros),
            // An empty intersection or union collects nothing, as no rule at all.
            GcRule::Intersection(rules) => {
                !rules.is_empty()
                    && rules
                        .iter()
                        .all(|r| r.is_collectable(version_index, timestamp_micros, now_micros))
            }
            GcRule::Union(rules) => rules
                .iter()
                .any(|r| r.is_collectable(version_index, timestamp_micros, now_micros)),
        }
    }

    /// The rule that collects a cell, to explain why it is hidden: a leaf rule itself; for a
    /// union, what collects it in the first sub-rule that does; for an intersection, the
    /// intersection (every sub-rule agrees). `None` when the cell is kept. Agrees with
    /// [`GcRule::is_collectable`] (same arguments).
    pub fn collected_by(
        &self,
        version_index: usize,
        timestamp_micros: i64,
        now_micros: i64,
    ) -> Option<&GcRule> {
        match self {
            GcRule::Union(rules) => rules
                .iter()
                .find_map(|r| r.collected_by(version_index, timestamp_micros, now_micros)),
            _ => self
                .is_collectable(version_index, timestamp_micros, now_micros)
                .then_some(self),
        }
    }

    /// Whether this rule can never collect anything (lets reads skip the check).
    pub fn is_never(&self) -> bool {
        match self {
            GcRule::Never => true,
            GcRule::MaxNumVersions(_) | GcRule::MaxAge { .. } => false,
            GcRule::Intersection(rules) => rules.is_empty() || rules.iter().any(GcRule::is_never),
            GcRule::Union(rules) => rules.iter().all(GcRule::is_never),
        }
    }

    /// Checks the rule's parameters (`max_num_versions >= 1`, `max_age >= 1 ms`) and its size
    /// ([`MAX_GC_RULE_DEPTH`] levels, [`MAX_GC_RULE_NODES`] rules).
    ///
    /// # Errors
    /// `InvalidArgument` naming the bad parameter or the broken limit.
    pub fn validate(&self) -> crate::Result<()> {
        self.validate_at(1, &mut 0)
    }

    fn validate_at(&self, depth: usize, nodes: &mut usize) -> crate::Result<()> {
        // The stored encoding (docs/format/manifest.md) reads rules at most this deep.
        *nodes += 1;
        GC_RULE_TREE.check(depth, *nodes)?;
        match self {
            GcRule::Never => Ok(()),
            GcRule::MaxNumVersions(0) => Err(crate::Error::invalid_argument(
                "gc_rule.max_num_versions must be at least 1",
            )),
            GcRule::MaxNumVersions(_) => Ok(()),
            GcRule::MaxAge { micros } if *micros < 1000 => Err(crate::Error::invalid_argument(
                "gc_rule.max_age must be at least 1 millisecond",
            )),
            GcRule::MaxAge { .. } => Ok(()),
            GcRule::Intersection(rules) | GcRule::Union(rules) => rules
                .iter()
                .try_for_each(|r| r.validate_at(depth + 1, nodes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{MAX_GC_RULE_DEPTH, MAX_GC_RULE_NODES};

    #[test]
    fn collected_by_names_the_rule_that_hides_a_cell() {
        let versions = GcRule::MaxNumVersions(2);
        let age = GcRule::MaxAge { micros: 1000 };
        let union = GcRule::Union(alloc::vec![versions.clone(), age.clone()]);
        // Kept: the newest cell, fresh.
        assert_eq!(union.collected_by(0, 10_000, 10_000), None);
        // Old only: the age rule hides it; third version only: the versions rule.
        assert_eq!(union.collected_by(0, 1_000, 10_000), Some(&age));
        assert_eq!(union.collected_by(2, 10_000, 10_000), Some(&versions));
        let both = GcRule::Intersection(alloc::vec![versions, age]);
        assert_eq!(both.collected_by(2, 10_000, 10_000), None);
        assert_eq!(both.collected_by(2, 1_000, 10_000), Some(&both));
        assert_eq!(GcRule::Never.collected_by(9, 0, 10_000), None);
    }

    #[test]
    fn max_age_from_duration_truncates_nanos_to_micros() {
        assert_eq!(
            GcRule::max_age_from_duration(2, 1_999),
            Ok(GcRule::MaxAge { micros: 2_000_001 })
        );
        assert_eq!(
            GcRule::max_age_from_duration(86_400, 0)
                .unwrap()
                .max_age_duration(),
            Some((86_400, 0))
        );
        assert_eq!(
            GcRule::MaxAge { micros: 1_500_250 }.max_age_duration(),
            Some((1, 500_250_000))
        );
    }

    #[test]
    fn max_age_from_duration_rejects_negative_and_overflowing_ages() {
        for (s, n) in [(-1, 0), (0, -1), (i64::MAX / 1_000_000 + 1, 0)] {
            let err = GcRule::max_age_from_duration(s, n).unwrap_err();
            assert_eq!(err.code(), crate::Code::InvalidArgument, "{s}s {n}ns");
        }
        // Representable but under 1 ms: converted, then refused by validation.
        let tiny = GcRule::max_age_from_duration(0, 999_000).unwrap();
        assert_eq!(
            tiny.validate().unwrap_err().code(),
            crate::Code::InvalidArgument
        );
    }

    #[test]
    fn validate_refuses_rules_too_deep_or_too_many() {
        let mut rule = GcRule::MaxNumVersions(1);
        for _ in 1..MAX_GC_RULE_DEPTH {
            rule = GcRule::Union(alloc::vec![rule]);
        }
        assert_eq!(rule.validate(), Ok(()));
        let deeper = GcRule::Union(alloc::vec![rule]);
        let err = deeper.validate().unwrap_err();
        assert_eq!(err.code(), crate::Code::InvalidArgument);
        assert!(err.message().contains("nested deeper"), "{err}");

        let wide = |n| GcRule::Union(alloc::vec![GcRule::MaxNumVersions(1); n]);
        assert_eq!(wide(MAX_GC_RULE_NODES - 1).validate(), Ok(()));
        let err = wide(MAX_GC_RULE_NODES).validate().unwrap_err();
        assert_eq!(err.code(), crate::Code::InvalidArgument);
        assert!(err.message().contains("rules"), "{err}");
    }
}
