//! The JavaScript API's tests in headless Chromium (`CHROMEDRIVER=/usr/bin/chromedriver`).
//!
//! The cases live in `api/mod.rs` and also run under Node from `node.rs`.

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod api;
