//! Progress on stderr: a line redrawn a few times a second while stderr is a terminal, and
//! one summary line at the end whatever stderr is (a log or CI keeps only the summary).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Counts rows and bytes and shows them.
pub struct Meter {
    what: String,
    started: Instant,
    last_draw: Instant,
    tty: bool,
    /// Rows and bytes (keys, qualifiers, values) so far.
    pub rows: u64,
    /// See `rows`.
    pub bytes: u64,
}

/// Bytes as MB with one decimal.
fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

impl Meter {
    /// A meter for `what` (e.g. `exporting t`), starting now.
    pub fn new(what: impl Into<String>) -> Meter {
        let now = Instant::now();
        Meter {
            what: what.into(),
            started: now,
            last_draw: now,
            tty: std::io::stderr().is_terminal(),
            rows: 0,
            bytes: 0,
        }
    }

    fn rate(&self) -> f64 {
        self.rows as f64 / self.started.elapsed().as_secs_f64().max(1e-9)
    }

    /// Counts one row of `bytes` bytes; redraws the line at most five times a second.
    pub fn row(&mut self, bytes: usize) {
        self.rows += 1;
        self.bytes += bytes as u64;
        if self.tty && self.last_draw.elapsed() >= Duration::from_millis(200) {
            self.last_draw = Instant::now();
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[K{}: {} rows, {}, {:.0} rows/s",
                self.what,
                self.rows,
                mb(self.bytes),
                self.rate()
            );
            let _ = err.flush();
        }
    }

    /// Clears the progress line and prints `summary` followed by the totals.
    pub fn finish(&self, summary: &str) {
        let clear = if self.tty { "\r\x1b[K" } else { "" };
        eprintln!(
            "{clear}{summary}: {} rows, {} in {:.1} s ({:.0} rows/s)",
            self.rows,
            mb(self.bytes),
            self.started.elapsed().as_secs_f64(),
            self.rate()
        );
    }
}

/// The bytes of a row as the meter counts them: key, qualifiers and values (the core's
/// measure, the one a read batch is bounded by).
pub use sparsetable::row_bytes;
