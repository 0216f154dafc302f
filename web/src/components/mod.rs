//! The playground's components, one per file. Each takes plain props and reports what the
//! person did as an [`crate::state::Action`]; none of them touches the engine.

pub mod app;
pub mod clock;
pub mod code_tabs;
pub mod confirm_button;
pub mod drawer;
pub mod error_banner;
pub mod explain;
pub mod filter_builder;
pub mod gc_editor;
pub mod grid;
pub mod query_panel;
pub mod session_panel;
pub mod table_form;
pub mod table_tabs;
pub mod text_input;
pub mod view_tabs;
pub mod write_form;
// The lab (pglab): console, tablet map, Key Visualizer, scenarios, key builder.
pub mod console;
pub mod heatmap;
pub mod heatmaps_view;
pub mod key_builder;
pub mod lab;
pub mod replication;
pub mod scenarios;
pub mod tablet_map;
pub mod tablets_view;
