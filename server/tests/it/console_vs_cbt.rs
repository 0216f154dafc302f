//! The playground's console (crate `sparsetable-console`) against the real `cbt`: the same
//! command list runs through `/usr/bin/cbt` talking to the real server on loopback, and
//! through the console over an in-process database on the same frozen clock, and every
//! command must print the same stdout byte for byte, the same stderr and the same success.
//!
//! The one normalisation: cbt logs stderr lines with the local date and time
//! (`2026/11/23 22:48:16 `), which the console leaves out, so that prefix is removed from
//! cbt's lines before comparing. Every write names its timestamp (`@ts`, and `import
//! timestamp=value-encoded`), since cbt otherwise stamps cells with its own clock.

use crate::common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use common::Server;
use sparsetable::{Database, ManualClock};
use sparsetable_console::Console;

const CLOCK: i64 = 1_700_000_010_000_000;

/// Runs cbt with `args` against `server`: (stdout, stderr without log prefixes, success).
fn cbt(server: &Server, home: &PathBuf, args: &[Vec<u8>]) -> (Vec<u8>, String, bool) {
    let creds = home.join("no-credentials.json");
    let out = Command::new("cbt")
        .arg("-creds")
        .arg(&creds)
        .args(["-project", "p", "-instance", "console-vs-cbt"])
        .args(args.iter().map(|a| OsStr::from_bytes(a)))
        .env("BIGTABLE_EMULATOR_HOST", &server.addr)
        .env("TZ", "UTC")
        .env("HOME", home)
        .output()
        .expect("run cbt (is /usr/bin/cbt installed?)");
    let stderr: String = String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(|l| format!("{}\n", strip_log_prefix(l)))
        .collect();
    (out.stdout, stderr, out.status.success())
}

/// `YYYY/MM/DD HH:MM:SS ` as Go's log package writes it.
fn strip_log_prefix(line: &str) -> &str {
    let b = line.as_bytes();
    let is_prefix = b.len() >= 20
        && b[..20].iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'/',
            10 | 19 => c == b' ',
            13 | 16 => c == b':',
            _ => c.is_ascii_digit(),
        });
    if is_prefix {
        &line[20..]
    } else {
        line
    }
}

#[test]
fn console_prints_what_cbt_prints_for_the_same_commands() {
    let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("console-vs-cbt");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::write(home.join("no-credentials.json"), "{}").expect("creds");
    let csv = home.join("people.csv");
    std::fs::write(
        &csv,
        ",info,,stats\n,name,city,visits\n\
         p1,Ada@1000,London@1000,3@2000\n\
         p2,\"Grace, \"\"Amazing\"\"@1000\",,7@2000\n\
         p3,,Paris@3000,\n",
    )
    .expect("csv");
    let csv_bad = home.join("bad.csv");
    std::fs::write(&csv_bad, ",cf1\n,q\nk1,\"v\"x\n").expect("csv");
    let csv_bad = csv_bad.to_string_lossy().into_owned();
    let csv_flat = home.join("flat.csv");
    std::fs::write(&csv_flat, ",a,b\nq1,x@4000,y@4000\n").expect("csv");
    let csv = csv.to_string_lossy().into_owned();
    let csv_flat = csv_flat.to_string_lossy().into_owned();

    let commands: Vec<Vec<Vec<u8>>> = [
        "ls",
        "createtable t families=cf1:maxversions=2,cf2:maxage=1h,zz",
        "createtable t",
        "createtable",
        "createtable other splits=m",
        "ls",
        "ls t",
        "createfamily t cf3",
        "createfamily t cf3",
        "createfamily nosuch f",
        "setgcpolicy t cf3 maxage=2d and maxversions=1 or maxversions=5",
        "setgcpolicy t zz maxage=90m || maxversions=3",
        "setgcpolicy t cf1 maxversions=x",
        "setgcpolicy t nope maxversions=1",
        "ls t",
        "set t r1 cf1:q=v1@1700000000000000 cf2:x=hello@1700000001000000",
        "set t r1 cf1:q=v2@1700000002000000",
        "set t r1 cf1:q=v3@1700000003000000 zz:=empty-qualifier@5000",
        "set t r2 cf3:a=bb@1000 zz:b=a@b@2000 zz:c=tail@x@4000",
        "set t r3 $'zz:q=quote\"d\\\\back\\ttab\\x01\\xff@3000'",
        "set t a1 cf1:q=x@2000 zz:e=1@1000",
        "set t a2 cf1:q=y@2000",
        "set t b1 cf1:q=z@2000",
        "set t r1 nofamily:q=v@1000",
        "set t r1 cf1q=v",
        "set t r1",
        "set nosuch r cf1:q=1@1000",
        "read t",
        "read t start=a2",
        "read t end=r2",
        "read t start=a2 end=r2",
        "read t prefix=a",
        "read t prefix=a start=b",
        "read t regex=.*2",
        "read t regex=(",
        "read t count=2",
        "read t count=x",
        "read t reversed=true count=3",
        "read t cells-per-column=1 prefix=r1",
        "read t cells-per-column=0",
        "read t columns=cf1:q",
        "read t columns=zz:,cf2:x",
        "read t columns=e",
        "read t bogus=1",
        "read nosuch",
        "read other",
        "lookup t r1",
        "lookup t r1 cells-per-column=1 columns=cf1:q",
        "lookup t absent",
        "lookup t",
        "lookup nosuch r1",
        "count t",
        "count t prefix=r",
        "count nosuch",
        "deletecolumn t r1 cf1 q",
        "deletecolumn t r1 nofam q",
        "deleterow t a2",
        "deleterow nosuch r",
        "deletefamily t cf2",
        "deletefamily t cf2",
        "read t",
        "import t /nonexistent/file.csv",
        &format!("import t {csv} timestamp=value-encoded"),
        &format!("import nosuch {csv} timestamp=value-encoded"),
        "createfamily t info",
        "createfamily t stats",
        &format!("import t {csv_bad} timestamp=value-encoded"),
        &format!("import t {csv} timestamp=value-encoded"),
        &format!("import t {csv_flat} column-family=cf3 timestamp=value-encoded"),
        &format!("import t {csv} timestamp=value-encoded batch-size=2"),
        "read t prefix=p",
        "read t prefix=q",
        "ls t",
        "deletetable other",
        "deletetable other",
        "ls",
        "frobnicate t",
    ]
    .iter()
    .map(|c| sparsetable_console::split_args(c).expect("split"))
    .collect();

    let server = Server::start(&["--clock-micros", &CLOCK.to_string()]);
    let mut db = Database::with_clock(Arc::new(ManualClock::new(CLOCK)));
    let mut console = Console::new();
    let mut mismatches = Vec::new();
    for args in &commands {
        let (stdout, stderr, ok) = cbt(&server, &home, args);
        let ours = console.run(&mut db, args);
        if ours.stdout != stdout || ours.stderr != stderr || ours.failed == ok {
            mismatches.push(format!(
                "$ cbt {}\n--- cbt ({}):\n{}{}--- console ({}):\n{}{}",
                String::from_utf8_lossy(&args.join(&b' ')),
                if ok { "ok" } else { "failed" },
                String::from_utf8_lossy(&stdout),
                stderr,
                if ours.failed { "failed" } else { "ok" },
                String::from_utf8_lossy(&ours.stdout),
                ours.stderr,
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} commands differ:\n{}",
        mismatches.len(),
        commands.len(),
        mismatches.join("\n")
    );
}
