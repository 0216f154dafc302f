//! The server's integration tests, in one test binary: each module below was once a binary of
//! its own. One binary links the tonic/tokio tree and instantiates the generated Bigtable
//! clients once instead of fifteen times, which is most of what a fresh clone spent compiling
//! these tests. Each module still reads as a self-contained test file; shared support (the real
//! server on a free port, clients, the ReadRows merger) is in `common`.
//!
//! Run one module with a name filter, e.g. `cargo test -p sparsetable-server --test server
//! vectors::`. The robustness probes (`robustness_*` modules) are `#[ignore]`d here and run by
//! `scripts/suites/robustness.sh` with `-- --ignored robustness_`.

mod common;

mod admin_fidelity;
mod api;
mod authorized_views;
mod cbt;
mod concurrency;
mod console_vs_cbt;
mod family_order;
mod gc_mode;
mod grpc;
mod hll_family;
mod logical_views;
mod materialized_views;
mod migrate;
mod replication;
mod replication_vectors;
mod restart;
mod resume;
mod robustness_data_dir;
mod robustness_reads;
mod robustness_requests;
mod row_key_schema;
mod sql;
mod sql_vectors;
mod vector_specs;
mod vectors;
