//! GC rules coming in from JavaScript, read with their depth and size counted before each
//! descent.
//!
//! A rule is a tree (`{union: [{intersection: [...]}, {maxNumVersions: 1}]}`), and a derived
//! serde reader recurses once per level with no bound: a rule nested about 1,100 deep
//! overflowed the stack mid-call, which left that `Database` borrowed (failing every later
//! call) and the wasm stack pointer lowered. This reader refuses a level deeper than
//! [`sparsetable::limits::MAX_GC_RULE_DEPTH`] before reading it, and counts rules against [`sparsetable::limits::MAX_GC_RULE_NODES`]
//! before reading each one, so a JavaScript object graph that shares one array at every level
//! (small in memory, exponential as a tree) or a cyclic one (`a.union = [a]`) is refused too.
//! The messages are the core's (`GcRule::validate`), which checks the same limits again.

use core::cell::Cell;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use sparsetable::limits::GC_RULE_TREE;
use sparsetable::GcRule;

use crate::micros::Micros;

/// The keys of a GC rule object; exactly one is set.
const KINDS: &[&str] = &["maxNumVersions", "maxAgeMicros", "intersection", "union"];

/// A GC rule read from JavaScript.
#[derive(Debug)]
pub struct GcRuleIn(pub GcRule);

impl<'de> Deserialize<'de> for GcRuleIn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let nodes = Cell::new(0);
        RuleSeed {
            depth: 1,
            nodes: &nodes,
        }
        .deserialize(d)
        .map(GcRuleIn)
    }
}

/// Reads one rule at `depth` (the top rule is level 1, as in `GcRule::validate`).
#[derive(Clone, Copy)]
struct RuleSeed<'a> {
    depth: usize,
    /// Rules read so far in this whole tree.
    nodes: &'a Cell<usize>,
}

impl<'de> DeserializeSeed<'de> for RuleSeed<'_> {
    type Value = GcRule;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<GcRule, D::Error> {
        let nodes = self.nodes.get() + 1;
        // The core's limits and words (limits::GC_RULE_TREE).
        GC_RULE_TREE
            .check(self.depth, nodes)
            .map_err(|e| de::Error::custom(e.message()))?;
        self.nodes.set(nodes);
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RuleSeed<'_> {
    type Value = GcRule;

    fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(
            "a GC rule: an object with one of maxNumVersions, maxAgeMicros, intersection or union",
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<GcRule, A::Error> {
        let Some(key) = map.next_key::<String>()? else {
            return Err(de::Error::custom(
                "gc_rule: needs one of maxNumVersions, maxAgeMicros, intersection or union",
            ));
        };
        let list = RulesSeed {
            depth: self.depth + 1,
            nodes: self.nodes,
        };
        let rule = match key.as_str() {
            "maxNumVersions" => GcRule::MaxNumVersions(map.next_value()?),
            "maxAgeMicros" => GcRule::MaxAge {
                micros: map.next_value::<Micros>()?.0,
            },
            "intersection" => GcRule::Intersection(map.next_value_seed(list)?),
            "union" => GcRule::Union(map.next_value_seed(list)?),
            other => return Err(de::Error::unknown_variant(other, KINDS)),
        };
        if let Some(second) = map.next_key::<String>()? {
            return Err(de::Error::custom(format_args!(
                "gc_rule: has both {key} and {second}; a rule has exactly one"
            )));
        }
        Ok(rule)
    }
}

/// Reads the list of an intersection or union, whose members sit at `depth`.
#[derive(Clone, Copy)]
struct RulesSeed<'a> {
    depth: usize,
    nodes: &'a Cell<usize>,
}

impl<'de> DeserializeSeed<'de> for RulesSeed<'_> {
    type Value = Vec<GcRule>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<GcRule>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RulesSeed<'_> {
    type Value = Vec<GcRule>;

    fn expecting(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str("an array of GC rules")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<GcRule>, A::Error> {
        // No capacity from the size hint: the node count, not the array's length, bounds it.
        let mut rules = Vec::new();
        let member = RuleSeed {
            depth: self.depth,
            nodes: self.nodes,
        };
        while let Some(rule) = seq.next_element_seed(member)? {
            rules.push(rule);
        }
        Ok(rules)
    }
}
