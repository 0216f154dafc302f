//! Injected faults: rules that make chosen requests fail with a chosen code or answer late,
//! so an application's retry and failover paths can be tested deterministically.
//!
//! A rule matches by RPC name (`ReadRows`, `MutateRow`, ... as the Data API names them;
//! none: every RPC) and cluster id (none: every cluster). It fires on every match, on a
//! counted number of matches, or with a probability drawn from a SplitMix64 seeded by the
//! caller, so one seed gives the same faults on every run. The first rule that fires decides
//! a request's outcome. Google's emulator can fail only ReadRows and MutateRows; front-ends
//! check these rules on every RPC they route.
//!
//! A mid-stream rule ([`FaultInjector::add_mid_stream`]) fails a ReadRows stream after it
//! has delivered a chosen number of rows, the way a connection drops in the middle of a long
//! scan: the request is routed and answers those rows first, and the front-end that streams
//! them ends the stream with the rule's error there ([`FaultOutcome::after_rows`]). Clients
//! that resume reads (Google's Node and Java clients re-issue the read for the rows not yet
//! delivered) can be tested with it; a front-end that answers a read all at once fails it.
//!
//! Invariants: a counted rule never fires more often than its count; a rule's probability
//! is within 0 to 1 (checked when it is added); a mid-stream rule has a code and is for
//! ReadRows only.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::platform::random::SplitMix64;
use crate::{Code, Error, Result};

/// An injected fault: matching requests fail with `code` (or, with no code, are only
/// delayed by `latency_micros`, which the front-end waits out before answering).
#[derive(Debug, Clone, PartialEq)]
pub struct FaultRule {
    /// The RPC name it applies to (`ReadRows`, `MutateRow`, ...); `None`: every RPC.
    pub rpc: Option<String>,
    /// The cluster it applies to; `None`: every cluster.
    pub cluster_id: Option<String>,
    /// The code matching requests fail with; `None` injects latency only.
    pub code: Option<Code>,
    /// How many matching requests it still affects; `None`: no limit.
    pub remaining: Option<u64>,
    /// The chance a matching request is affected, 0.0 to 1.0.
    pub probability: f64,
    /// Latency added to affected requests, in microseconds.
    pub latency_micros: u64,
}

/// What the rules decided for one request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FaultOutcome {
    /// Latency to add before answering, in microseconds.
    pub latency_micros: u64,
    /// The error to answer with, if any.
    pub error: Option<Error>,
    /// With `error`: a stream delivers this many rows first, then ends with `error`
    /// (`None`: the request fails before answering anything).
    pub after_rows: Option<u64>,
}

/// A rule as it is kept: mid-stream rules carry the rows their stream delivers first.
#[derive(Debug, Clone)]
struct Armed {
    rule: FaultRule,
    after_rows: Option<u64>,
}

/// One instance's fault rules and the generator their probabilities draw from.
#[derive(Debug, Clone)]
pub struct FaultInjector {
    rules: Vec<Armed>,
    rng: SplitMix64,
}

impl Default for FaultInjector {
    fn default() -> Self {
        FaultInjector {
            rules: Vec::new(),
            rng: SplitMix64::new(0x5eed),
        }
    }
}

impl FaultInjector {
    /// Adds a rule after the others.
    ///
    /// # Errors
    /// `InvalidArgument` for a probability outside 0 to 1 (or not a number), a count of 0,
    /// or an empty RPC name or cluster id.
    pub fn add(&mut self, rule: FaultRule) -> Result<()> {
        if !(0.0..=1.0).contains(&rule.probability) {
            return Err(Error::invalid_argument(format!(
                "fault probability must be between 0 and 1, got {}",
                rule.probability
            )));
        }
        if rule.remaining == Some(0) {
            return Err(Error::invalid_argument(
                "a fault's count must be at least 1 (leave it unset for no limit)",
            ));
        }
        if rule.rpc.as_deref() == Some("") || rule.cluster_id.as_deref() == Some("") {
            return Err(Error::invalid_argument(
                "a fault's rpc and cluster, when given, must not be empty",
            ));
        }
        self.rules.push(Armed {
            rule,
            after_rows: None,
        });
        Ok(())
    }

    /// Adds a mid-stream rule after the others: a matching ReadRows delivers `after_rows`
    /// rows, then fails with the rule's code (see the module docs).
    ///
    /// # Errors
    /// As [`FaultInjector::add`], and `InvalidArgument` for a rule without a code, for an RPC
    /// other than ReadRows (the only stream that resumes), or for `after_rows` 0 (a failure
    /// before any row is an ordinary rule).
    pub fn add_mid_stream(&mut self, rule: FaultRule, after_rows: u64) -> Result<()> {
        if rule.code.is_none() {
            return Err(Error::invalid_argument(
                "a mid-stream fault needs a code (afterRows fails the stream with it)",
            ));
        }
        if rule.rpc.as_deref() != Some("ReadRows") {
            return Err(Error::invalid_argument(format!(
                "a mid-stream fault (afterRows) is for ReadRows only, got {}",
                rule.rpc.as_deref().unwrap_or("every RPC")
            )));
        }
        if after_rows == 0 {
            return Err(Error::invalid_argument(
                "a mid-stream fault's afterRows must be at least 1 (leave it unset to fail before the first row)",
            ));
        }
        self.add(rule)?;
        if let Some(last) = self.rules.last_mut() {
            last.after_rows = Some(after_rows);
        }
        Ok(())
    }

    /// Removes every rule and reseeds the generator.
    pub fn clear(&mut self, seed: u64) {
        self.rules.clear();
        self.rng = SplitMix64::new(seed);
    }

    /// The rules still in force (a counted rule leaves once used up).
    pub fn rules(&self) -> impl Iterator<Item = &FaultRule> {
        self.rules.iter().map(|a| &a.rule)
    }

    /// How many rules are in force.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether no rule is in force (front-ends skip the check then).
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// What the rules do to one request of `rpc` served by `cluster_id`.
    pub fn check(&mut self, rpc: &str, cluster_id: &str) -> FaultOutcome {
        for k in 0..self.rules.len() {
            let rule = &self.rules[k].rule;
            let matches = rule.rpc.as_deref().is_none_or(|r| r == rpc)
                && rule.cluster_id.as_deref().is_none_or(|c| c == cluster_id);
            if !matches {
                continue;
            }
            let fires = rule.probability >= 1.0 || {
                let p = rule.probability;
                let draw = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                draw < p
            };
            if !fires {
                continue;
            }
            let after_rows = self.rules[k].after_rows;
            let rule = &mut self.rules[k].rule;
            let outcome = FaultOutcome {
                after_rows,
                latency_micros: rule.latency_micros,
                error: rule.code.map(|code| {
                    Error::new(
                        code,
                        format!(
                            "injected fault: {} on {rpc} at cluster {cluster_id}",
                            code.as_str()
                        ),
                    )
                }),
            };
            if let Some(n) = &mut rule.remaining {
                *n -= 1;
                if *n == 0 {
                    self.rules.remove(k);
                }
            }
            return outcome;
        }
        FaultOutcome::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(code: Option<Code>, remaining: Option<u64>, probability: f64) -> FaultRule {
        FaultRule {
            rpc: Some("ReadRows".into()),
            cluster_id: None,
            code,
            remaining,
            probability,
            latency_micros: 5,
        }
    }

    #[test]
    fn a_counted_fault_fires_that_many_times_on_its_rpc_only() {
        let mut f = FaultInjector::default();
        f.add(rule(Some(Code::Unavailable), Some(2), 1.0)).unwrap();
        assert_eq!(f.check("MutateRow", "c1"), FaultOutcome::default());
        for _ in 0..2 {
            let out = f.check("ReadRows", "c1");
            assert_eq!(out.error.unwrap().code(), Code::Unavailable);
            assert_eq!(out.latency_micros, 5);
        }
        assert_eq!(f.check("ReadRows", "c1"), FaultOutcome::default());
        assert!(f.is_empty());
    }

    #[test]
    fn probabilities_draw_the_same_faults_from_the_same_seed() {
        let draws = |seed| {
            let mut f = FaultInjector::default();
            f.clear(seed);
            f.add(rule(Some(Code::Internal), None, 0.5)).unwrap();
            (0..64)
                .map(|_| f.check("ReadRows", "c").error.is_some())
                .collect::<Vec<_>>()
        };
        let a = draws(7);
        assert_eq!(a, draws(7));
        assert!(a.iter().any(|&x| x) && a.iter().any(|&x| !x));
    }

    #[test]
    fn latency_only_rules_fail_nothing() {
        let mut f = FaultInjector::default();
        f.add(rule(None, None, 1.0)).unwrap();
        let out = f.check("ReadRows", "c");
        assert!(out.error.is_none());
        assert_eq!(out.latency_micros, 5);
    }

    #[test]
    fn bad_rules_are_refused() {
        let mut f = FaultInjector::default();
        for bad in [
            rule(None, None, 1.5),
            rule(None, None, f64::NAN),
            rule(None, Some(0), 1.0),
            FaultRule {
                rpc: Some(String::new()),
                ..rule(None, None, 1.0)
            },
        ] {
            assert_eq!(f.add(bad).unwrap_err().code(), Code::InvalidArgument);
        }
        assert!(f.is_empty());
    }

    #[test]
    fn mid_stream_rules_carry_their_row_count_and_need_a_read_with_a_code() {
        let mut f = FaultInjector::default();
        f.add_mid_stream(rule(Some(Code::Unavailable), Some(1), 1.0), 3)
            .unwrap();
        let out = f.check("ReadRows", "c1");
        assert_eq!(out.error.unwrap().code(), Code::Unavailable);
        assert_eq!(out.after_rows, Some(3));
        assert!(f.is_empty(), "a count of one is used up");
        f.add(rule(Some(Code::Unavailable), Some(1), 1.0)).unwrap();
        assert_eq!(f.check("ReadRows", "c1").after_rows, None);
        for (bad, after) in [
            (rule(None, None, 1.0), 2),
            (rule(Some(Code::Aborted), None, 1.0), 0),
            (
                FaultRule {
                    rpc: Some("MutateRows".into()),
                    ..rule(Some(Code::Aborted), None, 1.0)
                },
                2,
            ),
            (
                FaultRule {
                    rpc: None,
                    ..rule(Some(Code::Aborted), None, 1.0)
                },
                2,
            ),
        ] {
            let e = f.add_mid_stream(bad, after).unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
        }
        assert_eq!(f.len(), 0);
    }
}
