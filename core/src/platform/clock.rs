//! Time as the engine sees it.
//!
//! The engine reads the time only through [`Clock`], so tests and the playground can drive it
//! by hand ([`ManualClock`]) and embedded targets can supply their own source. Time is
//! microseconds since the Unix epoch, as Bigtable's `timestamp_micros`.

/// A source of the current time in microseconds since the Unix epoch.
pub trait Clock: Send + Sync {
    /// The current time, in microseconds since the Unix epoch.
    fn now_micros(&self) -> i64;
}

/// The operating system's wall clock.
#[cfg(feature = "std")]
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

#[cfg(feature = "std")]
impl Clock for SystemClock {
    fn now_micros(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
            // A clock set before 1970 is a host problem; 0 keeps timestamps valid.
            .unwrap_or(0)
    }
}

/// A clock that only moves when told to: deterministic tests and the playground's time slider.
///
/// Shared by reference (`Arc<ManualClock>` implements [`Clock`] too), so a test can keep a
/// handle and advance the time the database sees.
#[cfg(target_has_atomic = "64")]
#[derive(Debug, Default)]
pub struct ManualClock {
    micros: core::sync::atomic::AtomicI64,
}

#[cfg(target_has_atomic = "64")]
impl ManualClock {
    /// A clock that reads `micros` until changed.
    pub fn new(micros: i64) -> Self {
        ManualClock {
            micros: core::sync::atomic::AtomicI64::new(micros),
        }
    }

    /// Sets the time.
    pub fn set_micros(&self, micros: i64) {
        self.micros
            .store(micros, core::sync::atomic::Ordering::SeqCst);
    }

    /// Moves the time forward (or back, with a negative delta), saturating at the int64
    /// limits rather than wrapping round (the database then refuses the reading: see
    /// `Database::checked_now_micros`).
    pub fn advance_micros(&self, delta: i64) {
        let _ = self.micros.fetch_update(
            core::sync::atomic::Ordering::SeqCst,
            core::sync::atomic::Ordering::SeqCst,
            |m| Some(m.saturating_add(delta)),
        );
    }
}

#[cfg(target_has_atomic = "64")]
impl Clock for ManualClock {
    fn now_micros(&self) -> i64 {
        self.micros.load(core::sync::atomic::Ordering::SeqCst)
    }
}

impl<C: Clock + ?Sized> Clock for alloc::sync::Arc<C> {
    fn now_micros(&self) -> i64 {
        (**self).now_micros()
    }
}
