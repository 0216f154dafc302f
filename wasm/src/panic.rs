//! What the binding does about panics, which it must never reach.
//!
//! On `wasm32-unknown-unknown` a Rust panic cannot unwind: it aborts with an `unreachable`
//! trap, which JavaScript sees as `RuntimeError: unreachable`. A trap skips every destructor,
//! so it leaves the wasm stack pointer lowered by the frames it abandoned (enough traps
//! exhaust the stack and then every call fails) and any borrow of the `Database` it was in
//! still held. The design is therefore that no input reaches a panic: arguments are
//! type-checked (`args.rs`), nesting is counted before descent (`gc_rule.rs`), and conversions
//! return errors. This module only makes a panic that a bug still causes explainable:
//! - the hook writes the panic message to `console.error` (the trap itself carries none);
//! - it records the message, so a later call on a `Database` the panic left borrowed throws
//!   `INTERNAL` naming the panic instead of wasm-bindgen's "recursive use of an object".
//!
//! `console_error_panic_hook` does the first half; the few lines here also do the second and
//! add no dependency.

use std::sync::{Mutex, Once};

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);
static INSTALL: Once = Once::new();

/// Installs the hook (once; later calls do nothing).
pub fn install_hook() {
    INSTALL.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let message = info.to_string();
            console_error(&format!(
                "sparsetable-wasm panicked, which is a bug (please report it): {message}"
            ));
            if let Ok(mut last) = LAST_PANIC.lock() {
                *last = Some(message);
            }
        }));
    });
}

/// The message of the last panic in this module instance, if any.
pub fn last_panic() -> Option<String> {
    LAST_PANIC.lock().ok().and_then(|last| last.clone())
}
