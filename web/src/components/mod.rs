//! The playground's components, one per file. Each takes plain props and reports what the
//! person did as an [`crate::state::Action`]; none of them touches the engine.

pub mod app;
pub mod clock;
pub mod error_banner;
pub mod grid;
pub mod table_form;
pub mod table_tabs;
pub mod text_input;
pub mod view_tabs;
pub mod write_form;
