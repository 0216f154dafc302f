//! A manual clock the JVM can hold and move: deterministic tests and time travel.
//!
//! It shares the core's [`sparsetable::ManualClock`] through an `Arc`, so every database
//! built on it sees each change at once.

use std::sync::Arc;

/// A clock that only moves when told to, in microseconds since the Unix epoch.
#[derive(Debug, uniffi::Object)]
pub struct ManualClock {
    pub(crate) inner: Arc<sparsetable::ManualClock>,
}

#[uniffi::export]
impl ManualClock {
    /// A clock reading `now_micros` until changed.
    #[uniffi::constructor]
    pub fn new(now_micros: i64) -> Arc<Self> {
        Arc::new(ManualClock {
            inner: Arc::new(sparsetable::ManualClock::new(now_micros)),
        })
    }

    /// The time the clock reads.
    pub fn now_micros(&self) -> i64 {
        sparsetable::Clock::now_micros(&*self.inner)
    }

    /// Sets the time.
    pub fn set_micros(&self, micros: i64) {
        self.inner.set_micros(micros);
    }

    /// Moves the time by `delta_micros` (negative moves it back).
    pub fn advance_micros(&self, delta_micros: i64) {
        self.inner.advance_micros(delta_micros);
    }
}
