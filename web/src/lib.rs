//! Placeholder until this front-end lands (issue 2).
