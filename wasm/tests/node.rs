//! The JavaScript API's tests under Node (wasm-bindgen-test's default environment).
//!
//! The cases live in `api/mod.rs` and run unchanged in headless Chromium from `browser.rs`.

mod api;
