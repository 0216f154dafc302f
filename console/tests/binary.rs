//! The native `sparsetable-console` binary: commands on stdin, cbt's stdout on stdout, cbt's
//! log messages on stderr, exit status 1 when a command failed.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(input: &str) -> (String, String, i32) {
    run_with(&["--clock-micros", "1700000000000000"], input)
}

fn run_with(args: &[&str], input: &str) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sparsetable-console"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sparsetable-console");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write commands");
    let out = child.wait_with_output().expect("wait");
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn reads_commands_from_stdin_and_prints_what_cbt_prints() {
    let (stdout, stderr, code) = run(
        "createtable t families=cf\nset t r1 cf:q=hi@1000\nset t r2 cf:q=\"a b\"\nread t count=1\ncount t\n",
    );
    assert_eq!(
        stdout,
        "----------------------------------------\nr1\n  cf:q                                     @ 1970/01/01-00:00:00.001000\n    \"hi\"\n\n2\n"
    );
    assert_eq!((stderr.as_str(), code), ("", 0));
}

#[test]
fn a_failed_command_reports_on_stderr_and_sets_the_exit_status() {
    let (stdout, stderr, code) = run("ls\nread nosuch\nls\n");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "Reading rows: rpc error: code = NotFound desc = table \"nosuch\" not found\n"
    );
    assert_eq!(code, 1);
}

#[test]
fn clusters_runs_an_instance_whose_profiles_route_each_command() {
    let (stdout, stderr, code) = run_with(
        &[
            "--clock-micros",
            "1700000000000000",
            "--clusters",
            "2",
            "--lag",
            "5s",
        ],
        "createtable t families=cf\n\
         createappprofile console west x route-to=console-c2\n\
         set t r cf:q=v@1000\n\
         count t app-profile=west\n\
         lookup t r app-profile=west\n\
         status\n",
    );
    assert_eq!(stderr, "unknown arg key \"app-profile\"\n");
    assert_eq!(code, 1);
    assert!(
        stdout.ends_with(
            "instance projects/console/instances/console\n  \
             cluster console-c1: available\n  cluster console-c2: available\n  \
             replication lag: 5000000 us\n  writes in flight: 1\n"
        ),
        "{stdout}"
    );
    // c2 has not received the write yet.
    assert!(!stdout.contains("cf:q"), "{stdout}");
    let (_, stderr, code) = run_with(&["--clusters", "0"], "");
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("sparsetable-console: INVALID_ARGUMENT: "),
        "{stderr}"
    );
}
