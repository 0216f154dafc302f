//! Replays every shared test vector against the core engine, one test case per vector, so a
//! failure names its vector and the summary counts them. The core supports every capability:
//! no vector may be skipped.

use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let vectors = sparsetable_test_vectors::load_all();
    assert!(!vectors.is_empty(), "no vectors found in tests/vectors");
    let trials = vectors
        .into_iter()
        .map(|v| {
            Trial::test(format!("vector::{}", v.name), move || {
                sparsetable_test_vectors::replay_core(&v).map_err(Failed::from)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
