//! The Sparsetable playground: the engine running in the browser behind a small Yew app.
//!
//! Laid out like Yew's `function_todomvc` example: [`state`] holds the pure state and reducer
//! (tested natively, no browser needed), `components` one component per file. The app uses
//! the core crate directly, not the JavaScript binding. Build and serve it with
//! `scripts/playground.sh`.
//!
//! The reducer runs in a Web Worker (`worker`), never on the page's thread: [`remote`] is the
//! protocol between them (pure, tested natively), `client` the page's end. Layers, top down:
//! `components` and `client` (browser only) → [`remote`] → [`state`] and [`lab`] → the
//! views' data ([`grid_data`], [`query`], [`codegen`], [`session`]) → the core.

pub mod codegen;
pub mod display;
pub mod grid_data;
pub mod query;
pub mod remote;
pub mod session;
pub mod state;
pub mod value_input;
pub mod wire;

// The lab (console, tablet map, heatmap, scenarios, key builder) is pure Rust too.
extern crate alloc;
pub mod lab;

#[cfg(target_arch = "wasm32")]
pub mod client;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod worker;
