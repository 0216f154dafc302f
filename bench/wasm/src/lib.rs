//! In-memory benchmark workloads shared by the native and WebAssembly builds (work in progress: see issue 6).
