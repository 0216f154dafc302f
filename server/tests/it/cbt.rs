//! The real `cbt` CLI (/usr/bin/cbt) against the real server: table and family admin, writes,
//! reads and lookups, asserting exactly what cbt prints. The expected text was checked against
//! what cbt prints for Google's emulator (cbtemulator); the one difference is a family without
//! a GC rule, which cbt shows as `<never>` for an unset rule (ours) and as blank for the empty
//! rule message the emulator sends.
//!
//! The server runs with `--clock-micros` frozen at 2023/11/14-22:13:30 UTC so that what a
//! max_age rule hides is the same on every run (cbt `set` without `@ts` uses the client's
//! clock, so every write here names its timestamp).

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::Server;

/// Runs `cbt -project p -instance INSTANCE ARGS...` against `server`, in UTC so timestamps
/// print the same everywhere, with an empty HOME so no ~/.cbtrc applies. `-creds` names an
/// empty credentials file: an emulator needs none, and without the flag cbt spends seconds
/// asking gcloud for credentials on every call.
fn cbt(server: &Server, instance: &str, args: &[&str]) -> Output {
    let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cbt-home");
    std::fs::create_dir_all(&home).expect("cbt home");
    let creds = home.join("no-credentials.json");
    std::fs::write(&creds, "{}").expect("credentials file");
    Command::new("cbt")
        .arg("-creds")
        .arg(&creds)
        .args(["-project", "p", "-instance", instance])
        .args(args)
        .env("BIGTABLE_EMULATOR_HOST", &server.addr)
        .env("TZ", "UTC")
        .env("HOME", &home)
        .output()
        .expect("run cbt (is /usr/bin/cbt installed? scripts/setup.sh does not install it)")
}

/// Runs cbt and returns its stdout, failing the test if cbt failed.
fn ok(server: &Server, instance: &str, args: &[&str]) -> String {
    let out = cbt(server, instance, args);
    assert!(
        out.status.success(),
        "cbt {args:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Runs cbt expecting failure and returns its stderr.
fn fails(server: &Server, instance: &str, args: &[&str]) -> String {
    let out = cbt(server, instance, args);
    assert!(
        !out.status.success(),
        "cbt {args:?} should have failed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const RULE: &str = "----------------------------------------";

#[test]
fn cbt_creates_tables_and_families_and_reads_back_what_it_set() {
    let server = Server::start(&["--clock-micros", "1700000010000000"]);
    let i = "cbt-admin-and-data";

    assert_eq!(ok(&server, i, &["ls"]), "");
    ok(
        &server,
        i,
        &[
            "createtable",
            "t",
            "families=cf1:maxversions=2,cf2:maxage=1h",
        ],
    );
    ok(&server, i, &["createfamily", "t", "cf3"]);
    ok(&server, i, &["createtable", "other"]);
    assert_eq!(ok(&server, i, &["ls"]), "other\nt\n");
    assert_eq!(
        ok(&server, i, &["ls", "t"]),
        "Family Name\tGC Policy\t\tValue Type\n\
         -----------\t---------\t\t----------\n\
         cf1\t\tversions() > 2\t\t{}\n\
         cf2\t\tage() > 1h\t\t{}\n\
         cf3\t\t<never>\t\t\t{}\n"
    );

    // Three versions of cf1:q; the family keeps two, so the oldest is never read.
    ok(
        &server,
        i,
        &[
            "set",
            "t",
            "r1",
            "cf1:q=v1@1700000000000000",
            "cf2:x=hello@1700000001000000",
        ],
    );
    ok(&server, i, &["set", "t", "r1", "cf1:q=v2@1700000002000000"]);
    ok(&server, i, &["set", "t", "r1", "cf1:q=v3@1700000003000000"]);
    ok(&server, i, &["set", "t", "r2", "cf3:a=bb@1000"]);
    // Older than the hour cf2 keeps at the server's (frozen) time, so never read.
    ok(
        &server,
        i,
        &["set", "t", "r2", "cf2:old=gone@1699990000000000"],
    );

    let r1 = format!(
        "{RULE}\nr1\n\
         \x20 cf1:q                                    @ 2023/11/14-22:13:23.000000\n    \"v3\"\n\
         \x20 cf1:q                                    @ 2023/11/14-22:13:22.000000\n    \"v2\"\n\
         \x20 cf2:x                                    @ 2023/11/14-22:13:21.000000\n    \"hello\"\n\n"
    );
    let r2 = format!(
        "{RULE}\nr2\n\
         \x20 cf3:a                                    @ 1970/01/01-00:00:00.001000\n    \"bb\"\n\n"
    );
    assert_eq!(ok(&server, i, &["read", "t"]), format!("{r1}{r2}"));
    assert_eq!(ok(&server, i, &["read", "t", "start=r2"]), r2);
    assert_eq!(ok(&server, i, &["read", "t", "end=r2"]), r1);
    assert_eq!(ok(&server, i, &["lookup", "t", "r1"]), r1);
    assert_eq!(
        ok(&server, i, &["lookup", "t", "absent"]),
        format!("{RULE}\n\n\n")
    );
    assert_eq!(ok(&server, i, &["read", "other"]), "");

    let err = fails(&server, i, &["set", "t", "r1", "nofamily:q=v"]);
    assert!(
        err.contains("code = NotFound") && err.contains("nofamily"),
        "{err}"
    );
    let err = fails(&server, i, &["read", "missing"]);
    assert!(err.contains("code = NotFound"), "{err}");
    let err = fails(&server, i, &["createtable", "t"]);
    assert!(err.contains("code = AlreadyExists"), "{err}");

    ok(&server, i, &["deletefamily", "t", "cf2"]);
    assert!(
        !ok(&server, i, &["lookup", "t", "r1"]).contains("cf2"),
        "dropping a family deletes its cells"
    );
    ok(&server, i, &["deletetable", "t"]);
    assert_eq!(ok(&server, i, &["ls"]), "other\n");
    // Instances are separate databases.
    assert_eq!(ok(&server, "cbt-another-instance", &["ls"]), "");
}

/// One row as `cbt read` prints it: cells are (column, timestamp text, value).
fn printed_row(key: &str, cells: &[(&str, &str, &str)]) -> String {
    let mut out = format!("{RULE}\n{key}\n");
    for (column, time, value) in cells {
        out += &format!("  {column:<40} @ {time}\n    {value:?}\n");
    }
    out + "\n"
}

#[test]
fn cbt_reads_ranges_prefixes_regexes_counts_and_deletes() {
    let server = Server::start(&["--clock-micros", "1700000010000000"]);
    let i = "cbt-reads";
    ok(&server, i, &["createtable", "t", "families=cf,extra"]);
    for (key, value) in [
        ("a1", "x"),
        ("a2", "y"),
        ("b1", "z"),
        ("b2", "w"),
        ("c1", "v"),
    ] {
        ok(
            &server,
            i,
            &[
                "set",
                "t",
                key,
                &format!("cf:q={value}@2000"),
                "extra:e=1@1000",
            ],
        );
    }
    ok(&server, i, &["set", "t", "a1", "cf:q=old@1000"]);
    let t1 = "1970/01/01-00:00:00.001000";
    let t2 = "1970/01/01-00:00:00.002000";
    let row =
        |key: &str, value: &str| printed_row(key, &[("cf:q", t2, value), ("extra:e", t1, "1")]);
    let a1_all = printed_row(
        "a1",
        &[("cf:q", t2, "x"), ("cf:q", t1, "old"), ("extra:e", t1, "1")],
    );
    let (a2, b1, b2, c1) = (
        row("a2", "y"),
        row("b1", "z"),
        row("b2", "w"),
        row("c1", "v"),
    );

    assert_eq!(
        ok(&server, i, &["read", "t", "prefix=a"]),
        format!("{a1_all}{a2}")
    );
    assert_eq!(
        ok(&server, i, &["read", "t", "start=a2", "end=b2"]),
        format!("{a2}{b1}")
    );
    assert_eq!(
        ok(&server, i, &["read", "t", "regex=.*2"]),
        format!("{a2}{b2}")
    );
    assert_eq!(
        ok(&server, i, &["read", "t", "count=2"]),
        format!("{a1_all}{a2}")
    );
    assert_eq!(
        ok(
            &server,
            i,
            &["read", "t", "prefix=a1", "cells-per-column=1"]
        ),
        row("a1", "x")
    );
    assert_eq!(
        ok(&server, i, &["read", "t", "reversed=true", "count=3"]),
        format!("{c1}{b2}{b1}")
    );
    assert_eq!(
        ok(&server, i, &["read", "t", "columns=extra:e", "prefix=c"]),
        printed_row("c1", &[("extra:e", t1, "1")])
    );
    assert_eq!(ok(&server, i, &["count", "t"]), "5\n");
    assert_eq!(ok(&server, i, &["count", "t", "prefix=b"]), "2\n");

    // A GC policy hides what it collects at once.
    ok(&server, i, &["setgcpolicy", "t", "cf", "maxversions=1"]);
    assert_eq!(ok(&server, i, &["read", "t", "prefix=a1"]), row("a1", "x"));
    assert!(
        ok(&server, i, &["ls", "t"]).contains("cf\t\tversions() > 1"),
        "{}",
        ok(&server, i, &["ls", "t"])
    );
    // The cells are from 1970: an intersection with max_age still keeps them (both rules
    // must collect a cell).
    ok(
        &server,
        i,
        &[
            "setgcpolicy",
            "t",
            "cf",
            "maxage=1d",
            "and",
            "maxversions=3",
        ],
    );
    let listing = ok(&server, i, &["ls", "t"]);
    assert!(
        listing.contains("cf\t\t(age() > 1d && versions() > 3)"),
        "{listing}"
    );

    ok(&server, i, &["deleterow", "t", "c1"]);
    ok(&server, i, &["deletecolumn", "t", "b2", "cf", "q"]);
    ok(&server, i, &["deletefamily", "t", "extra"]);
    assert_eq!(ok(&server, i, &["count", "t"]), "3\n");
    assert_eq!(
        ok(&server, i, &["read", "t", "start=b"]),
        printed_row("b1", &[("cf:q", t2, "z")])
    );
    assert_eq!(ok(&server, i, &["ls"]), "t\n");
    assert!(!ok(&server, i, &["ls", "t"]).contains("extra"));
}

/// The instance-admin commands cbt users run first: list instances and clusters, create an
/// instance and delete it. Google's emulator answers all of these UNIMPLEMENTED.
#[test]
fn cbt_lists_creates_and_deletes_instances() {
    let server = Server::start(&[]);
    ok(&server, "inst1", &["createtable", "t1"]);
    assert_eq!(
        ok(&server, "inst1", &["listinstances"]),
        "Instance Name\t\tInfo\n-------------\t\t----\ninst1\t\t\tinst1\n"
    );
    assert_eq!(
        ok(&server, "inst1", &["listclusters"]),
        "Cluster Name\tZone\t\tState\n------------\t----\t\t----\ninst1-c1\tlocal\t\tREADY (1 serve nodes)\n"
    );
    ok(
        &server,
        "inst1",
        &[
            "createinstance",
            "second-inst",
            "Second",
            "second-inst-c1",
            "us-east1-b",
            "1",
            "SSD",
        ],
    );
    let listed = ok(&server, "inst1", &["listinstances"]);
    assert!(
        // The display name CreateInstance was given, as Cloud Bigtable lists it.
        listed.ends_with("inst1\t\t\tinst1\nsecond-inst\t\tSecond\n"),
        "{listed}"
    );
    // The new instance is usable at once, and deleting it removes its tables.
    ok(&server, "second-inst", &["createtable", "t2"]);
    assert_eq!(ok(&server, "second-inst", &["ls"]), "t2\n");
    let again = fails(
        &server,
        "inst1",
        &[
            "createinstance",
            "second-inst",
            "Second",
            "second-inst-c1",
            "us-east1-b",
            "1",
            "SSD",
        ],
    );
    assert!(again.contains("AlreadyExists"), "{again}");
    ok(&server, "inst1", &["deleteinstance", "second-inst"]);
    assert!(!ok(&server, "inst1", &["listinstances"]).contains("second-inst"));
    assert_eq!(ok(&server, "second-inst", &["ls"]), "");
    assert_eq!(ok(&server, "inst1", &["ls"]), "t1\n");
}
