//! Replays every shared SQL test vector (tests/vectors/sql, and the logical-view vectors of
//! tests/vectors/sql_views) against the core engine, one test case per vector.

use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let mut vectors = sparsetable_test_vectors::sql::load_sql();
    assert!(!vectors.is_empty(), "no vectors found in tests/vectors/sql");
    let views = sparsetable_test_vectors::sql::load_sql_views();
    assert!(
        !views.is_empty(),
        "no vectors found in tests/vectors/sql_views"
    );
    vectors.extend(views);
    let queries: usize = vectors.iter().map(|v| v.queries.len()).sum();
    eprintln!("{} SQL vectors, {queries} queries", vectors.len());
    let trials = vectors
        .into_iter()
        .map(|v| {
            Trial::test(format!("sql::{}", v.name), move || {
                sparsetable_test_vectors::sql::replay_sql_core(&v).map_err(Failed::from)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
