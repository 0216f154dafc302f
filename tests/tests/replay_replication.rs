//! Replays every shared replication vector (tests/vectors/replication) through the core's
//! `InstanceData`, one test case per vector.

use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let vectors = sparsetable_test_vectors::replication::load_replication();
    assert!(
        !vectors.is_empty(),
        "no vectors found in tests/vectors/replication"
    );
    let steps: usize = vectors.iter().map(|v| v.steps.len()).sum();
    eprintln!("{} replication vectors, {steps} steps", vectors.len());
    let trials = vectors
        .into_iter()
        .map(|v| {
            Trial::test(format!("replication::{}", v.name), move || {
                sparsetable_test_vectors::replication::replay_core(&v).map_err(Failed::from)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
