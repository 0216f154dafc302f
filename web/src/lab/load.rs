//! The load generator: each tick writes `rate` records (and reads a share of recent ones) into
//! every lane, one simulated second per tick, so lanes with different key designs or row
//! shapes receive exactly the same workload.
//!
//! Invariants: the record sequence depends only on the seed and the settings (a SplitMix64
//! stream), so a scenario replays the same way each time; each write names its timestamp
//! (the clock's time, one millisecond apart), and a tick ends with the clock one second past
//! its start.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;

use sparsetable::{Database, ManualClock, Mutation, SplitMix64};

use super::keys::{KeyDesign, Record};

/// How a lane stores a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Shape {
    /// One row per record (tall and narrow).
    Tall,
    /// One row per entity, one column per record (wide).
    Wide,
}

/// A table under load with its key design.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    /// The table.
    pub table: String,
    /// How keys are built.
    pub design: KeyDesign,
    /// Row shape.
    pub shape: Shape,
}

/// The family every lab table writes to.
pub const FAMILY: &str = "m";

/// What the generator does per tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoadSettings {
    /// Writes per tick (per lane); at most 1000.
    pub rate: u32,
    /// Reads per 100 writes.
    pub read_percent: u32,
    /// Distinct entities (devices, buses) records come from.
    pub entities: u32,
    /// Bytes of each value.
    pub value_bytes: usize,
}

impl Default for LoadSettings {
    fn default() -> Self {
        LoadSettings {
            rate: 200,
            read_percent: 10,
            entities: 40,
            value_bytes: 48,
        }
    }
}

/// The generator's state: the record counter, randomness and recent records (for reads).
#[derive(Debug, Clone)]
pub struct Generator {
    rng: SplitMix64,
    seq: u64,
    recent: VecDeque<Record>,
}

impl Default for Generator {
    fn default() -> Self {
        Generator::new(0x1ab5)
    }
}

/// What one tick did, per lane: keys written (for row counts and the hotspot score).
#[derive(Debug, Default)]
pub struct TickResult {
    /// Per lane, the keys written, in order.
    pub written: Vec<Vec<Vec<u8>>>,
    /// Writes the engine refused (e.g. a deleted table).
    pub errors: usize,
}

impl Generator {
    /// A generator on its own seed.
    pub fn new(seed: u64) -> Self {
        Generator {
            rng: SplitMix64::new(seed),
            seq: 0,
            recent: VecDeque::new(),
        }
    }

    /// The next record at `ts_micros`.
    pub fn record(&mut self, settings: &LoadSettings, ts_micros: i64) -> Record {
        let entity = self.rng.next_u64() % u64::from(settings.entities.max(1));
        let r = Record {
            entity: format!("sensor-{entity:02}"),
            seq: self.seq,
            ts_micros,
        };
        self.seq += 1;
        r
    }

    /// One tick: `rate` writes into every lane, and reads of recent records.
    pub fn tick(
        &mut self,
        db: &mut Database,
        clock: &ManualClock,
        lanes: &[Lane],
        settings: &LoadSettings,
    ) -> TickResult {
        let start = db.now_micros();
        let start = start - start.rem_euclid(1000);
        let mut result = TickResult {
            written: alloc::vec![Vec::new(); lanes.len()],
            errors: 0,
        };
        let rate = settings.rate.min(1000);
        for i in 0..rate {
            let ts = start + i64::from(i) * 1000;
            clock.set_micros(ts);
            let record = self.record(settings, ts);
            let value = value_of(&record, settings.value_bytes);
            for (lane, written) in lanes.iter().zip(result.written.iter_mut()) {
                let key = lane.design.key(&record);
                let qualifier = match lane.shape {
                    Shape::Tall => b"v".to_vec(),
                    Shape::Wide => format!("{:010}", record.ts_micros / 1000).into_bytes(),
                };
                let m = Mutation::set_cell(FAMILY, qualifier, ts, value.clone());
                match db.mutate_row(&lane.table, &key, &[m]) {
                    Ok(()) => written.push(key),
                    Err(_) => result.errors += 1,
                }
            }
            // Reads: `read_percent` per 100 writes, of a random recent record.
            if self.rng.next_u64() % 100 < u64::from(settings.read_percent)
                && !self.recent.is_empty()
            {
                let pick = (self.rng.next_u64() % self.recent.len() as u64) as usize;
                let r = self.recent[pick].clone();
                for lane in lanes {
                    let _ = db.read_row(&lane.table, &lane.design.key(&r));
                }
            }
            self.recent.push_back(record);
            if self.recent.len() > 512 {
                self.recent.pop_front();
            }
        }
        clock.set_micros(start + 1_000_000);
        result
    }
}

/// A value of `n` bytes derived from the record (compresses like real sensor text would).
fn value_of(r: &Record, n: usize) -> Vec<u8> {
    let text = format!(
        "{{\"entity\":\"{}\",\"seq\":{},\"t\":{}}}",
        r.entity, r.seq, r.ts_micros
    );
    text.into_bytes().into_iter().cycle().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::sync::Arc;
    use sparsetable::{ColumnFamily, TableConfig};

    #[test]
    fn every_lane_gets_the_same_records_and_the_clock_moves_a_second_per_tick() {
        let clock = Arc::new(ManualClock::new(1_700_000_000_000_000));
        let mut db = Database::with_clock(clock.clone());
        let lanes = [
            Lane {
                table: "a".into(),
                design: KeyDesign::sequential(),
                shape: Shape::Tall,
            },
            Lane {
                table: "b".into(),
                design: KeyDesign::entity_only(),
                shape: Shape::Wide,
            },
        ];
        for lane in &lanes {
            let mut config = TableConfig::default();
            config
                .families
                .insert(FAMILY.into(), ColumnFamily::default());
            db.create_table(&lane.table, config).unwrap();
        }
        let mut g = Generator::new(7);
        let settings = LoadSettings {
            rate: 50,
            ..LoadSettings::default()
        };
        let r = g.tick(&mut db, &clock, &lanes, &settings);
        assert_eq!(r.errors, 0);
        assert_eq!(r.written[0].len(), 50);
        assert_eq!(r.written[1].len(), 50);
        assert_eq!(db.now_micros(), 1_700_000_001_000_000);
        // Sequential keys arrive in order; the wide lane has one row per entity.
        assert!(r.written[0].windows(2).all(|w| w[0] < w[1]));
        let wide_rows: alloc::collections::BTreeSet<_> = r.written[1].iter().collect();
        assert!(wide_rows.len() <= 40 && wide_rows.len() < 50);
        // Same seed, same records.
        let mut again = Generator::new(7);
        assert_eq!(
            again.record(&settings, 0).entity,
            Generator::new(7).record(&settings, 0).entity
        );
    }
}
