//! Placeholder: being written (storage issue).
