//! The clocks a JavaScript database can run on.
//!
//! `std::time::SystemTime` panics on `wasm32-unknown-unknown`, so the default clock asks the
//! host's `Date.now()` instead; a manual clock (the core's [`ManualClock`](sparsetable::ManualClock)) serves tests and
//! anything that wants to control time.

use sparsetable::Clock;

/// The host's wall clock through `Date.now()`, in whole milliseconds.
#[derive(Debug, Default, Clone, Copy)]
pub struct DateClock;

impl Clock for DateClock {
    fn now_micros(&self) -> i64 {
        // Date.now() is an integer count of milliseconds, far inside the safe range.
        (js_sys::Date::now() as i64).saturating_mul(1000)
    }
}
