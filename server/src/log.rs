//! The server's log: lines on stderr, filtered by the `--log-level` the command line set.
//!
//! Levels, from quietest: `off`, `error` (the server's own failures: INTERNAL, DATA_LOSS,
//! UNAVAILABLE statuses, storage errors), `info` (the default: start-up, shutdown, flushes),
//! `debug` (every RPC by method, and every failed request with its code and message, which
//! is how a user finds out why a client gives up). The start-up address lines go to stdout
//! whatever the level, since scripts read them.

use std::sync::atomic::{AtomicU8, Ordering};

/// How much the server logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Nothing.
    Off = 0,
    /// The server's own failures.
    Error = 1,
    /// Start-up, shutdown and other events of the process.
    Info = 2,
    /// Every RPC and every failed request.
    Debug = 3,
}

impl Level {
    /// Parses a `--log-level` value.
    ///
    /// # Errors
    /// A message naming the accepted values.
    pub fn parse(s: &str) -> Result<Level, String> {
        match s {
            "off" => Ok(Level::Off),
            "error" => Ok(Level::Error),
            "info" => Ok(Level::Info),
            "debug" => Ok(Level::Debug),
            other => Err(format!(
                "--log-level must be off, error, info or debug, not {other:?}"
            )),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Level::Off => "OFF",
            Level::Error => "ERROR",
            Level::Info => "INFO",
            Level::Debug => "DEBUG",
        }
    }
}

static LEVEL: AtomicU8 = AtomicU8::new(Level::Info as u8);

/// Sets the process-wide level (once, from the command line).
pub fn set_level(level: Level) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// Whether lines of `level` are written; callers check it before formatting a costly line.
pub fn enabled(level: Level) -> bool {
    level != Level::Off && level as u8 <= LEVEL.load(Ordering::Relaxed)
}

/// Writes one line at `level` if enabled, with a UTC timestamp.
pub fn log(level: Level, message: impl core::fmt::Display) {
    if enabled(level) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        eprintln!(
            "{} {} sparsetable-server: {message}",
            rfc3339(now.as_secs(), now.subsec_micros()),
            level.name()
        );
    }
}

/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` for a time since the Unix epoch (the core's calendar).
fn rfc3339(secs: u64, micros: u32) -> String {
    let total = i64::try_from(secs)
        .unwrap_or(i64::MAX / 1_000_000)
        .saturating_mul(1_000_000)
        .saturating_add(i64::from(micros));
    sparsetable::platform::calendar::rfc3339(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(rfc3339(951_782_400, 7), "2000-02-29T00:00:00.000007Z");
        assert_eq!(
            rfc3339(1_795_321_053, 245_361),
            "2026-11-22T04:17:33.245361Z"
        );
    }

    #[test]
    fn levels_parse_and_filter() {
        assert_eq!(Level::parse("debug"), Ok(Level::Debug));
        assert!(Level::parse("loud")
            .unwrap_err()
            .contains("off, error, info or debug"));
        assert!(Level::Error < Level::Info && Level::Info < Level::Debug);
    }
}
