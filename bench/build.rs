//! Tells the code whether the `rocksdb` feature links the system's RocksDB
//! (`ROCKSDB_LIB_DIR` set, see bench/README.md) rather than the crate's bundled build, so
//! `engines.rs` can supply the one C function Debian's RocksDB 7.8 lacks.

fn main() {
    println!("cargo::rerun-if-env-changed=ROCKSDB_LIB_DIR");
    println!("cargo::rustc-check-cfg=cfg(system_rocksdb)");
    let rocksdb = std::env::var_os("CARGO_FEATURE_ROCKSDB").is_some();
    if rocksdb && std::env::var_os("ROCKSDB_LIB_DIR").is_some() {
        println!("cargo::rustc-cfg=system_rocksdb");
    }
}
