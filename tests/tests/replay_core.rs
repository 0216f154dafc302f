//! Replays every shared test vector against the core engine. The core supports every
//! capability, so any vector that fails to replay fails this test.

#[test]
fn every_vector_replays_against_the_core() {
    let vectors = sparsetable_test_vectors::load_all();
    assert!(!vectors.is_empty(), "no vectors found");
    let mut failures = Vec::new();
    for v in &vectors {
        if let Err(e) = sparsetable_test_vectors::replay_core(v) {
            failures.push(format!("{}: {e}", v.name));
        }
    }
    println!("replayed {} vectors against the core", vectors.len());
    assert!(failures.is_empty(), "{} vectors failed:\n{}", failures.len(), failures.join("\n\n"));
}
