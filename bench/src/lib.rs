//! Benchmark harness for Sparsetable (work in progress: see issue 6).
