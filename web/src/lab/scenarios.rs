//! The lessons: each scenario names its tables, how it fills them, what to look at, and
//! console commands to try. The text is the playground's own, written for people learning
//! row-key design from the notes in `shared/seeds/` (storage model, salting, field
//! promotion, reverse timestamps, the bus-location and product-comment examples).

/// Which lesson.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScenarioId {
    /// Sequential vs salted vs field-promoted keys under one write load.
    Hotspots,
    /// Reverse timestamps and a max-age GC rule.
    TimeSeries,
    /// `STC#22#173` bus locations and prefix scans per route.
    Bus,
    /// Product comments: pagination, a row-key regex, an index table.
    Comments,
    /// Tall-and-narrow vs wide rows.
    TallWide,
    /// Two designs from the key builder under the same load.
    AB,
}

/// A lesson as the scenarios panel shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    /// Which one.
    pub id: ScenarioId,
    /// A stable id for tests and the DOM.
    pub slug: &'static str,
    /// The button's title.
    pub title: &'static str,
    /// The steps of the lesson, in order.
    pub steps: &'static [&'static str],
    /// Console commands worth trying (one click runs them).
    pub commands: &'static [&'static str],
}

/// Every lesson, in the order the panel lists them.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        id: ScenarioId::Hotspots,
        slug: "hotspots",
        title: "Hotspots: sequential vs salted vs field-promoted keys",
        steps: &[
            "Three tables receive the very same sensor readings. Only the row key differs: the first starts with the reading's timestamp, the second with a salt bucket (a hash of the sensor modulo 8), the third with the sensor id.",
            "Watch the tablet maps. Bigtable keeps rows sorted by key and splits the key space into tablets. Timestamp-first keys always sort after everything written before, so every new write lands in the last tablet: one tablet (one server) takes the whole load while the others sit idle.",
            "The hotspot score is the hottest tablet's share of the latest writes. Near 100 % means one tablet does all the work; with salting or field promotion it drops towards an even share.",
            "In the heatmap the sequential table shows a single bright diagonal band: the hot spot moves along the key space as time passes. The other two show horizontal stripes spread over all key ranges.",
            "The price of salting: reading one sensor's history now needs one scan per salt bucket. Field promotion keeps one sensor's rows together (one prefix scan) and still spreads writes, as long as there are many sensors.",
        ],
        commands: &[
            "read hot_promoted prefix=sensor-07# count=3",
            "count hot_sequential",
            "read hot_salted regex=.*#00000042 count=1",
        ],
    },
    Scenario {
        id: ScenarioId::TimeSeries,
        slug: "time-series",
        title: "Time series: reverse timestamps and a max-age rule",
        steps: &[
            "Rows are keyed sensor#(10^16 − timestamp). Subtracting from a constant reverses the order, so each sensor's newest reading is the first row of its prefix: `count=1` reads the latest value without scanning history.",
            "The family keeps cells for one hour (`ls sensor_ts` shows `age() > 1h`). Move the clock forward an hour and `count sensor_ts` again: the expired cells are now eligible for garbage collection, but as in Bigtable they stay readable (the grid badges them) until the background collection removes them. Press Collect now (or switch the GC mode to Immediate) and count again: they are gone. A reader that must never see them adds a filter mirroring the rule (a timestamp range from now − 1 h), as Bigtable's documentation advises.",
            "Because the sensor id leads the key, writes from many sensors spread over the key space instead of piling onto one tablet.",
        ],
        commands: &[
            "read sensor_ts prefix=sensor-03# count=3",
            "ls sensor_ts",
            "count sensor_ts",
        ],
    },
    Scenario {
        id: ScenarioId::Bus,
        slug: "bus",
        title: "Bus locations: company#route#vehicle",
        steps: &[
            "Each bus reports its position into the row company#route#vehicle, e.g. STC#22#173. Riders ask for every bus of one route, so the key puts the route right after the company: one route is one contiguous range, read with a single prefix scan.",
            "Try `read vehicles prefix=STC#22#`: only route 22 comes back, and only those rows are scanned.",
            "Now try `read vehicles prefix=STC#1`: routes 1 and 100 both match, and route 100 sorts before route 22. Numbers inside keys compare as text; zero-pad them (STC#022#0173) when their order or their prefixes matter. The key builder warns about unpadded numbers.",
            "Every position update is a new version of the same cells; the family keeps the last 3, so `lookup` shows a short trail of each bus.",
        ],
        commands: &[
            "read vehicles prefix=STC#22#",
            "read vehicles prefix=STC#1",
            "lookup vehicles STC#22#173",
        ],
    },
    Scenario {
        id: ScenarioId::Comments,
        slug: "comments",
        title: "Product comments: pages of 20, a key regex, an index table",
        steps: &[
            "Comments live in rows PRODUCT#42/<reverse timestamp>/<language>/<rating>/COMMENT#<id>: one product's comments are contiguous and newest first, and the language and rating are promoted into the key so they can be filtered without reading values.",
            "Pages: read 21 rows from the product's prefix, show 20, and keep the 21st key as the resume point. The next page starts exactly there, so older pages cost as little as the first.",
            "Filters: a row-key regex such as `.*/en/5/.*` keeps English five-star comments. It still scans the rows it skips; compare rows scanned with rows returned in the pager.",
            "There is no secondary index in Bigtable. The table comment_index maps COMMENT#<id> back to the comment's row key, written by the application beside each comment.",
        ],
        commands: &[
            "read comments prefix=PRODUCT#42/ count=3",
            "read comments prefix=PRODUCT#42/ regex=.*/en/5/.* count=5",
            "lookup comment_index COMMENT#0007",
        ],
    },
    Scenario {
        id: ScenarioId::TallWide,
        slug: "tall-wide",
        title: "Tall and narrow vs wide rows",
        steps: &[
            "The same readings go into two tables. `tall` writes one row per reading (sensor#reverse-timestamp); `wide` writes one row per sensor and one column per reading.",
            "The wide table has only as many rows as sensors, and each row keeps growing. A tablet can only split between rows, so a single busy row stays in one tablet however large it gets, and every read of it returns the whole history unless filtered.",
            "Compare the row sizes under each map: a tall row holds one reading, a wide row every reading of its sensor, and it grows as long as the sensor reports. Bigtable advises keeping a row under 100 MB and refuses a row past 256 MB; the wide lane says when its largest row would pass the advice at this load.",
            "The tall table splits freely, reads one reading with a point lookup, and ranges of time with a prefix or range scan. Prefer tall and narrow for time series; keep wide rows for a bounded set of attributes.",
        ],
        commands: &[
            "count tall",
            "count wide",
            "read wide prefix=sensor-05 cells-per-column=1 columns=m:",
        ],
    },
    Scenario {
        id: ScenarioId::AB,
        slug: "ab",
        title: "A/B: your two key designs under the same load",
        steps: &[
            "Build two designs in the key builder (design A and design B), then run this scenario: tables ab_a and ab_b receive identical records keyed by each design.",
            "Compare the tablet maps, hotspot scores and heatmaps side by side, and run more load to see how each evolves.",
        ],
        commands: &["count ab_a", "count ab_b"],
    },
];

/// The scenario with this slug.
pub fn by_slug(slug: &str) -> Option<&'static Scenario> {
    SCENARIOS.iter().find(|s| s.slug == slug)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_has_a_unique_slug_steps_and_commands() {
        for (i, s) in SCENARIOS.iter().enumerate() {
            assert!(!s.steps.is_empty() && !s.commands.is_empty(), "{}", s.slug);
            assert_eq!(by_slug(s.slug).map(|f| f.id), Some(s.id));
            assert!(SCENARIOS[..i].iter().all(|o| o.slug != s.slug));
            for c in s.commands {
                assert!(sparsetable_console::split_args(c).is_ok(), "{c}");
            }
        }
    }
}
