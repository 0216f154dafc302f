//! One database directory, one opener: a second open, in this process or another, is
//! refused with FAILED_PRECONDITION while the first holds it, and succeeds once it is gone.
//! A robustness probe (issue 12): run by scripts/suites/robustness.sh with `--ignored`.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

use sparsetable::{Code, Database, Mutation, OpenOptions, ReadRowsRequest, TableConfig};

/// Set in the child process this test file starts: the directory it holds.
const CHILD_DIR: &str = "SPARSETABLE_LOCK_TEST_CHILD_DIR";

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sparsetable-lock-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_second_open_in_the_same_process_is_refused_until_the_first_is_dropped() {
    let dir = temp_dir("same-process");
    let mut first = Database::open_dir(&dir, OpenOptions::default()).unwrap();
    first
        .create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    let err = Database::open_dir(&dir, OpenOptions::default()).unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err}");
    assert!(
        err.message()
            .contains(&format!("process {}", std::process::id())),
        "the message names the holder: {err}"
    );
    drop(first);
    let again = Database::open_dir(&dir, OpenOptions::default()).unwrap();
    assert!(again.get_table("t").is_ok());
    drop(again);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The child half of the two-process test: when started by it (the environment variable is
/// set), open the directory, write a row, say so, and hold the directory until stdin closes.
#[test]
#[ignore = "the child half of a_second_process_is_refused_while_the_first_holds_the_directory"]
fn child_process_holds_a_directory() {
    let dir = std::env::var(CHILD_DIR).expect("started by the two-process test");
    let mut db = Database::open_dir(&dir, OpenOptions::default()).unwrap();
    db.create_table("t", TableConfig::with_families(["cf"]))
        .unwrap();
    db.mutate_row(
        "t",
        b"from-child",
        &[Mutation::set_cell("cf", b"q", 1_000, b"v")],
    )
    .unwrap();
    println!("holding");
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
}

#[test]
#[ignore = "robustness suite: scripts/suites/robustness.sh"]
fn a_second_process_is_refused_while_the_first_holds_the_directory() {
    let dir = temp_dir("two-processes");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_process_holds_a_directory",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, &dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let holding = lines.any(|l| l.map(|l| l.contains("holding")).unwrap_or(false));
    assert!(holding, "the child opened the directory");

    let err = Database::open_dir(&dir, OpenOptions::default()).unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err}");
    assert!(
        err.message().contains(&format!("process {}", child.id())),
        "the message names the child: {err}"
    );

    drop(child.stdin.take()); // the child returns, and its lock goes with it
    assert!(child.wait().unwrap().success());
    let db = Database::open_dir(&dir, OpenOptions::default()).unwrap();
    let rows: Vec<_> = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .collect();
    assert_eq!(rows.len(), 1, "the child's acknowledged row survived");
    assert_eq!(rows[0].key, b"from-child");
    drop(db);
    std::fs::remove_dir_all(&dir).unwrap();
}
