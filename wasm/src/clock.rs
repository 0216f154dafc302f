//! The clocks a JavaScript database can run on.
//!
//! `std::time::SystemTime` panics on `wasm32-unknown-unknown`, so the default clock asks the
//! host's `Date.now()` instead; a manual clock (the core's [`ManualClock`](sparsetable::ManualClock)) serves tests and
//! anything that wants to control time.
//!
//! `Date.now` is called through a catching import: the engine reads the clock in the middle
//! of a write, and a JavaScript exception unwinding through it (from a replaced `Date.now`)
//! would skip the write's cleanup and leave the `Database` borrowed for good.

use core::sync::atomic::{AtomicI64, Ordering};

use sparsetable::Clock;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Date, js_name = now)]
    fn date_now() -> Result<JsValue, JsValue>;
}

/// The last time `Date.now()` gave, for when it fails or gives something not a number.
static LAST_MICROS: AtomicI64 = AtomicI64::new(0);

/// The host's wall clock through `Date.now()`, in whole milliseconds.
#[derive(Debug, Default, Clone, Copy)]
pub struct DateClock;

impl Clock for DateClock {
    fn now_micros(&self) -> i64 {
        match date_now()
            .ok()
            .and_then(|v| v.as_f64())
            .filter(|ms| ms.is_finite())
        {
            Some(ms) => {
                // Date.now() is an integer count of milliseconds, far inside the safe range;
                // `as` saturates whatever a replaced Date.now returns.
                let micros = (ms as i64).saturating_mul(1000);
                LAST_MICROS.store(micros, Ordering::Relaxed);
                micros
            }
            None => LAST_MICROS.load(Ordering::Relaxed),
        }
    }
}
