//! `sparsetable-server export` and `import` through the real binary: a table with several
//! families, versions, binary keys and values goes out as Avro, as Parquet and as CSV, from a running
//! server and from its data directory, comes back into another table (of another instance,
//! on the server and in a data directory) and reads back equal, every version with its
//! timestamp. An interrupted export or import resumes without a duplicate or a gap, and bad
//! input (unknown table or family, malformed or foreign files) fails with a clear message and
//! a non-zero exit before writing anything the progress file does not record.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{create_table_request, data_dir, read_rows, signal, Server};
use googleapis_tonic_google_bigtable_v2::google::bigtable::v2;
use sparsetable::Row;

const FAMILIES: [&str; 3] = ["cf1", "cf2", "fam.x"];

/// Runs `sparsetable-server ARGS` to the end (never against a server the environment names).
fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sparsetable-server"))
        .args(args)
        .env_remove("BIGTABLE_EMULATOR_HOST")
        .output()
        .expect("run sparsetable-server")
}

/// Runs it and expects success; returns stderr.
fn ok(args: &[&str]) -> String {
    let out = cli(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?} failed: {stderr}");
    stderr
}

/// Runs it and expects exit status 1; returns stderr.
fn fails(args: &[&str]) -> String {
    let out = cli(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    stderr
}

/// The arguments of an `export` or `import` (`verb`) of table `table` of instance `instance` of
/// project `p`, at `at` (`--emulator-host ADDR` or `--data-dir DIR`), with `files` as its
/// `--output` or `--input` folder, then `more`.
fn migrate_args<'a>(
    verb: &'a str,
    at: [&'a str; 2],
    instance: &'a str,
    table: &'a str,
    files: &'a str,
    more: &[&'a str],
) -> Vec<&'a str> {
    let files_flag = if verb == "export" {
        "--output"
    } else {
        "--input"
    };
    let mut args = vec![
        verb,
        at[0],
        at[1],
        "--project",
        "p",
        "--instance",
        instance,
        "--table",
        table,
        files_flag,
        files,
    ];
    args.extend_from_slice(more);
    args
}

fn set(family: &str, qualifier: &[u8], ts: i64, value: &[u8]) -> v2::Mutation {
    v2::Mutation {
        mutation: Some(v2::mutation::Mutation::SetCell(v2::mutation::SetCell {
            family_name: family.into(),
            column_qualifier: qualifier.to_vec(),
            timestamp_micros: ts,
            value: value.to_vec(),
        })),
    }
}

async fn create_table(server: &Server, instance: &str, table: &str, families: &[&str]) {
    let parent = format!("projects/p/instances/{instance}");
    server
        .admin()
        .await
        .create_table(create_table_request(&parent, table, families))
        .await
        .expect("create table");
}

/// The source rows: binary keys (a NUL, 0xFF, a comma and a newline among them), three
/// families, versions, an empty value, a qualifier with a quote, a value with `@`.
fn source_rows() -> Vec<(Vec<u8>, Vec<v2::Mutation>)> {
    let mut rows = vec![
        (
            b"\x00bin\xffkey".to_vec(),
            vec![
                set("cf1", b"q", 3000, b"\xff\x00\x01"),
                set("cf1", b"q", 2000, b"older"),
                set("cf1", b"q", 1000, b""),
                set("fam.x", b"say \"hi\"", 5000, b"a,b\nc"),
            ],
        ),
        (
            b"row,with\ncomma".to_vec(),
            vec![
                set("cf2", b"", 7000, b"v@12"),
                set("cf1", b"z", 8000, b" lead"),
            ],
        ),
    ];
    for i in 0..25u32 {
        let mut cells = vec![set(
            "cf1",
            b"n",
            1000 * i64::from(i + 1),
            format!("v{i}").as_bytes(),
        )];
        if i % 3 == 0 {
            cells.push(set("cf2", b"m", 2000, b"second family"));
            cells.push(set("cf2", b"m", 1000, b"its older version"));
        }
        rows.push((format!("k{i:03}").into_bytes(), cells));
    }
    rows
}

async fn write_source(server: &Server, instance: &str, table: &str) {
    create_table(server, instance, table, &FAMILIES).await;
    let mut data = server.data().await;
    for (key, mutations) in source_rows() {
        data.mutate_row(v2::MutateRowRequest {
            table_name: format!("projects/p/instances/{instance}/tables/{table}"),
            row_key: key,
            mutations,
            ..Default::default()
        })
        .await
        .expect("write a source row");
    }
}

/// Every row of the table, each row's cells in (family, qualifier, newest first) order: tables
/// created separately may order their families differently (Bigtable groups a row's cells
/// by family in the table's own order), which is not a difference of data.
async fn read_all(server: &Server, instance: &str, table: &str) -> Vec<Row> {
    let mut data = server.data().await;
    let mut rows = read_rows(
        &mut data,
        v2::ReadRowsRequest {
            table_name: format!("projects/p/instances/{instance}/tables/{table}"),
            ..Default::default()
        },
    )
    .await
    .expect("read back")
    .0;
    for row in &mut rows {
        row.cells.sort_by(|a, b| {
            (&a.family, &a.qualifier, -a.timestamp_micros).cmp(&(
                &b.family,
                &b.qualifier,
                -b.timestamp_micros,
            ))
        });
    }
    rows
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn tmp(tag: &str) -> PathBuf {
    data_dir("migrate", tag)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn avro_parquet_and_csv_round_trip_through_a_server_and_a_data_dir() {
    let dir = tmp("roundtrip");
    let dir_arg = dir.display().to_string();
    let server = Server::start(&["--data-dir", &dir_arg]);
    let host = server.addr.clone();
    let at = ["--emulator-host", host.as_str()];
    write_source(&server, "src", "t").await;
    let want = read_all(&server, "src", "t").await;
    assert_eq!(want.len(), 27);
    // Targets: on the server (instance dst) and, created now, in the data dir (instance disk).
    for format in ["avro", "parquet", "csv"] {
        create_table(&server, "dst", &format!("from-{format}"), &FAMILIES).await;
        create_table(&server, "disk", &format!("from-{format}"), &FAMILIES).await;
    }

    // From the running server, 10 rows a part; back into the server.
    for format in ["avro", "parquet", "csv"] {
        let out = dir.join(format!("server-{format}"));
        let out_arg = out.display().to_string();
        let summary = ok(&migrate_args(
            "export",
            at,
            "src",
            "t",
            &out_arg,
            &["--format", format, "--part-rows", "10"],
        ));
        assert!(summary.contains("exported table t"), "{summary}");
        assert_eq!(
            files(&out),
            [
                format!("t-00000-of-00003.{format}"),
                format!("t-00001-of-00003.{format}"),
                format!("t-00002-of-00003.{format}"),
                "t.progress".to_string()
            ]
        );
        let table = format!("from-{format}");
        ok(&migrate_args(
            "import",
            at,
            "dst",
            &table,
            &out_arg,
            &["--batch-rows", "4"],
        ));
        assert_eq!(
            read_all(&server, "dst", &table).await,
            want,
            "{format} via the server"
        );
    }

    // With the server stopped: from its data directory, back into the data directory.
    drop(server);
    for format in ["avro", "parquet", "csv"] {
        let out = dir.join(format!("disk-{format}"));
        let out_arg = out.display().to_string();
        ok(&migrate_args(
            "export",
            ["--data-dir", &dir_arg],
            "src",
            "t",
            &out_arg,
            &["--format", format, "--codec", "null"],
        ));
        assert_eq!(files(&out)[0], format!("t-00000-of-00001.{format}"));
        let table = format!("from-{format}");
        ok(&migrate_args(
            "import",
            ["--data-dir", &dir_arg],
            "disk",
            &table,
            &out_arg,
            &[],
        ));
    }
    let server = Server::start(&["--data-dir", &dir_arg]);
    for format in ["avro", "parquet", "csv"] {
        let table = format!("from-{format}");
        assert_eq!(
            read_all(&server, "disk", &table).await,
            want,
            "{format} via the data dir"
        );
    }

    // Selections go into the read: a prefix, one family, a time range (through Parquet).
    let out = dir.join("selected");
    let out_arg = out.display().to_string();
    ok(&migrate_args(
        "export",
        ["--emulator-host", &server.addr],
        "src",
        "t",
        &out_arg,
        &[
            "--format",
            "parquet",
            "--prefix",
            "k00",
            "--families",
            "cf2",
            "--start-time-micros",
            "2000",
            "--end-time-micros",
            "3000",
        ],
    ));
    create_table(&server, "sel", "t", &FAMILIES).await;
    ok(&migrate_args(
        "import",
        ["--emulator-host", &server.addr],
        "sel",
        "t",
        &out_arg,
        &[],
    ));
    let got = read_all(&server, "sel", "t").await;
    let expected: Vec<Row> = want
        .iter()
        .filter(|r| r.key.starts_with(b"k00"))
        .map(|r| Row {
            key: r.key.clone(),
            cells: r
                .cells
                .iter()
                .filter(|c| c.family == "cf2" && (2000..3000).contains(&c.timestamp_micros))
                .cloned()
                .collect(),
        })
        .filter(|r| !r.cells.is_empty())
        .collect();
    assert_eq!(got, expected);
    assert_eq!(got.len(), 4, "k000, k003, k006, k009");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads every row of the parts in `dir` back through a fresh table.
async fn rows_of_parts(server: &Server, dir: &Path, instance: &str) -> Vec<Row> {
    create_table(server, instance, "t", &FAMILIES).await;
    ok(&migrate_args(
        "import",
        ["--emulator-host", &server.addr],
        instance,
        "t",
        &dir.display().to_string(),
        &[],
    ));
    read_all(server, instance, "t").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_export_resumes_with_every_row_once() {
    let dir = tmp("resume");
    let server = Server::start(&[]);
    write_source(&server, "src", "t").await;
    let want = read_all(&server, "src", "t").await;
    for format in ["avro", "parquet"] {
        export_resumes(&server, &dir, format, &want).await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The row keys of one part file, in file order.
fn keys_of_part(path: &Path) -> Vec<Vec<u8>> {
    if path.extension().is_some_and(|e| e == "parquet") {
        let mut rows = sparsetable_server::migrate::parquet::ParquetRows::open(path).unwrap();
        let mut keys = Vec::new();
        while let Some(row) = rows.next_row().unwrap() {
            keys.push(row.key);
        }
        return keys;
    }
    let file = std::fs::File::open(path).unwrap();
    apache_avro::Reader::new(file)
        .unwrap()
        .map(|record| match record.unwrap() {
            apache_avro::types::Value::Record(fields) => match &fields[0].1 {
                apache_avro::types::Value::Bytes(k) => k.clone(),
                other => panic!("key {other:?}"),
            },
            other => panic!("record {other:?}"),
        })
        .collect()
}

async fn export_resumes(server: &Server, dir: &Path, format: &str, want: &[Row]) {
    let out = dir.join(format!("out-{format}"));
    let out_arg = out.display().to_string();
    let export = |resume: bool| {
        let mut args = migrate_args(
            "export",
            ["--emulator-host", &server.addr],
            "src",
            "t",
            &out_arg,
            &["--part-rows", "4", "--format", format],
        );
        if resume {
            args.push("--resume");
        }
        cli(&args)
    };
    assert!(export(false).status.success());
    assert_eq!(
        files(&out).len(),
        8,
        "7 parts of 4 rows (27 rows) and the progress file"
    );

    // The state a crash leaves: parts 0-2 recorded; part 3 complete on disk but not yet
    // recorded (the crash came between its rename and the progress write); part 4 half
    // written. Parts carry their running names until the export completes.
    let progress = std::fs::read_to_string(out.join("t.progress")).unwrap();
    let kept: Vec<&str> = progress.lines().take(2 + 3).collect();
    std::fs::write(out.join("t.progress"), kept.join("\n") + "\n").unwrap();
    for i in 0..7 {
        let done = out.join(format!("t-{i:05}-of-00007.{format}"));
        match i {
            0..=3 => std::fs::rename(&done, out.join(format!("t-{i:05}.{format}"))).unwrap(),
            4 => std::fs::rename(&done, out.join(format!("t-00004.{format}.partial"))).unwrap(),
            _ => std::fs::remove_file(&done).unwrap(),
        }
    }
    // Without --resume the run refuses to touch it.
    let refused = export(false);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pass --resume"));
    // Resumed with other options: refused too.
    let other = cli(&migrate_args(
        "export",
        ["--emulator-host", &server.addr],
        "src",
        "t",
        &out_arg,
        &["--part-rows", "5", "--format", format, "--resume"],
    ));
    assert!(String::from_utf8_lossy(&other.stderr).contains("other options"));

    let resumed = export(true);
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert_eq!(files(&out).len(), 8, "{:?}", files(&out));
    // Every row once, in key order, across the parts.
    let keys: Vec<Vec<u8>> = files(&out)
        .iter()
        .filter(|n| n.ends_with(&format!(".{format}")))
        .flat_map(|n| keys_of_part(&out.join(n)))
        .collect();
    assert_eq!(keys, want.iter().map(|r| r.key.clone()).collect::<Vec<_>>());
    let instance = format!("back-{format}");
    assert_eq!(rows_of_parts(server, &out, &instance).await, want);
    // A second --resume of a complete export changes nothing.
    let before = files(&out);
    assert!(export(true).status.success());
    assert_eq!(files(&out), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_import_resumes_after_what_it_recorded() {
    let dir = tmp("import-resume");
    let server = Server::start(&[]);
    write_source(&server, "src", "t").await;
    let want = read_all(&server, "src", "t").await;
    for format in ["avro", "parquet"] {
        let out = dir.join(format!("out-{format}"));
        let out_arg = out.display().to_string();
        ok(&migrate_args(
            "export",
            ["--emulator-host", &server.addr],
            "src",
            "t",
            &out_arg,
            &["--part-rows", "10", "--format", format],
        ));
        // As if a run had applied part 0 and 3 rows of part 1, then died: the resumed run must
        // not write those again (their rows stay absent here, which shows they were skipped) and
        // must write everything after them.
        let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
        std::fs::write(
            out.join("t.import-progress"),
            format!(
                "sparsetable-server import progress 1\noptions table=t column-family=- \
             timestamp=value-encoded\nfile done 10 {}\nfile at 3 {}\n",
                hex(&format!("t-00000-of-00003.{format}")),
                hex(&format!("t-00001-of-00003.{format}"))
            ),
        )
        .unwrap();
        let instance = format!("dst-{format}");
        create_table(&server, &instance, "t", &FAMILIES).await;
        let import = |resume: bool| {
            let mut args = migrate_args(
                "import",
                ["--emulator-host", &server.addr],
                &instance,
                "t",
                &out_arg,
                &[],
            );
            if resume {
                args.push("--resume");
            }
            cli(&args)
        };
        assert!(String::from_utf8_lossy(&import(false).stderr).contains("pass --resume"));
        assert!(import(true).status.success());
        assert_eq!(
            read_all(&server, &instance, "t").await,
            want[13..].to_vec(),
            "{format}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An Avro file with `schema` holding one record.
fn avro_file(path: &Path, schema: &str, record: apache_avro::types::Value) {
    let schema = apache_avro::Schema::parse_str(schema).unwrap();
    let mut writer = apache_avro::Writer::new(&schema, Vec::new()).unwrap();
    writer.append_value(record).unwrap();
    std::fs::write(path, writer.into_inner().unwrap()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_fails_clearly_and_writes_nothing_unrecorded() {
    let dir = tmp("bad");
    let dir_arg = dir.display().to_string();
    let server = Server::start(&["--data-dir", &dir_arg]);
    let host = server.addr.clone();
    write_source(&server, "src", "t").await;
    create_table(&server, "dst", "narrow", &["cf1"]).await;
    let out = dir.join("out");
    let out_arg = out.display().to_string();
    let at = ["--emulator-host", host.as_str()];
    // The data directory of a running server is refused with the reason.
    let e = fails(&migrate_args(
        "export",
        ["--data-dir", &dir_arg],
        "src",
        "t",
        &out_arg,
        &[],
    ));
    assert!(
        e.contains("FAILED_PRECONDITION") && e.contains("running server"),
        "{e}"
    );
    // Unknown table and family, on export.
    let e = fails(&migrate_args("export", at, "src", "nope", &out_arg, &[]));
    assert!(e.contains("NOT_FOUND") && e.contains("nope"), "{e}");
    let e = fails(&migrate_args(
        "export",
        at,
        "src",
        "t",
        &out_arg,
        &["--families", "cf1,zz"],
    ));
    assert!(e.contains("no column family \"zz\""), "{e}");
    assert!(
        !out.join("t.progress").exists(),
        "nothing written for a refused export"
    );

    // Unknown table and family, on import: the family is refused before its batch is
    // written, so the target stays empty.
    ok(&migrate_args("export", at, "src", "t", &out_arg, &[]));
    let e = fails(&migrate_args("import", at, "dst", "nope", &out_arg, &[]));
    assert!(e.contains("NOT_FOUND") && e.contains("nope"), "{e}");
    let e = fails(&migrate_args("import", at, "dst", "narrow", &out_arg, &[]));
    assert!(e.contains("record 0") && e.contains("fam.x"), "{e}");
    assert!(read_all(&server, "dst", "narrow").await.is_empty());

    // Malformed and foreign files.
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    let bad_arg = |name: &str| bad.join(name).display().to_string();
    std::fs::write(bad.join("garbage.avro"), b"not an avro file at all").unwrap();
    let e = fails(&migrate_args(
        "import",
        at,
        "dst",
        "narrow",
        &bad_arg("garbage.avro"),
        &[],
    ));
    assert!(e.contains("not an Avro data file"), "{e}");
    let whole = std::fs::read(out.join("t-00000-of-00001.avro")).unwrap();
    std::fs::write(bad.join("cut.avro"), &whole[..whole.len() - 40]).unwrap();
    let e = fails(&migrate_args(
        "import",
        at,
        "src",
        "t",
        &bad_arg("cut.avro"),
        &[],
    ));
    assert!(e.contains("cut.avro"), "{e}");
    avro_file(
        &bad.join("other.avro"),
        r#"{"type":"record","name":"Other","fields":[{"name":"id","type":"long"}]}"#,
        apache_avro::types::Value::Record(vec![("id".into(), apache_avro::types::Value::Long(1))]),
    );
    let e = fails(&migrate_args(
        "import",
        at,
        "dst",
        "narrow",
        &bad_arg("other.avro"),
        &[],
    ));
    assert!(e.contains("not the Dataflow template's BigtableRow"), "{e}");
    // Parquet: not Parquet at all, cut short (the footer gone), a data page damaged. An error
    // names the file; nothing of a batch that did not decode is written.
    let pq = dir.join("pq");
    let pq_arg = pq.display().to_string();
    ok(&migrate_args(
        "export",
        at,
        "src",
        "t",
        &pq_arg,
        &["--format", "parquet"],
    ));
    create_table(&server, "dst", "pq", &FAMILIES).await;
    std::fs::write(
        bad.join("garbage.parquet"),
        b"PAR1 this is not a parquet file PAR1",
    )
    .unwrap();
    let e = fails(&migrate_args(
        "import",
        at,
        "dst",
        "pq",
        &bad_arg("garbage.parquet"),
        &[],
    ));
    assert!(
        e.contains("garbage.parquet: not a readable Parquet file"),
        "{e}"
    );
    let whole = std::fs::read(pq.join("t-00000-of-00001.parquet")).unwrap();
    std::fs::write(bad.join("cut.parquet"), &whole[..whole.len() - 40]).unwrap();
    let e = fails(&migrate_args(
        "import",
        at,
        "dst",
        "pq",
        &bad_arg("cut.parquet"),
        &[],
    ));
    assert!(
        e.contains("cut.parquet: not a readable Parquet file"),
        "{e}"
    );
    // The first column chunk (the keys) starts after the 4-byte magic; garble its page.
    let mut damaged = whole.clone();
    for b in &mut damaged[4..40] {
        *b = 0xff;
    }
    std::fs::write(bad.join("damaged.parquet"), &damaged).unwrap();
    let e = fails(&migrate_args(
        "import",
        at,
        "dst",
        "pq",
        &bad_arg("damaged.parquet"),
        &[],
    ));
    assert!(e.contains("damaged.parquet: at row 0"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    assert!(read_all(&server, "dst", "pq").await.is_empty());
    std::fs::write(bad.join("quote.csv"), ",cf1\n,q\nr1,ok\nr2,\"unclosed\n").unwrap();
    let e = fails(&migrate_args(
        "import",
        at,
        "dst",
        "narrow",
        &bad_arg("quote.csv"),
        &["--batch-rows", "10"],
    ));
    assert!(
        e.contains("extraneous or missing \" in quoted-field"),
        "{e}"
    );
    assert!(
        read_all(&server, "dst", "narrow").await.is_empty(),
        "r1's batch never completed"
    );
    // A malformed command line is status 2.
    assert_eq!(cli(&["export", "--bogus"]).status.code(), Some(2));
    assert_eq!(
        cli(&["import", "--format", "sequencefile"]).status.code(),
        Some(2)
    );
    signal(&server, "-TERM");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_prints_the_usage_and_a_bad_count_is_a_command_line_error() {
    for (verb, usage) in [
        ("export", "Usage: sparsetable-server export"),
        ("import", "Usage: sparsetable-server import"),
    ] {
        for help in ["-h", "--help"] {
            // Help answers even after shared options, before anything is checked or run.
            let out = cli(&[verb, "--project", "p", help]);
            assert_eq!(out.status.code(), Some(0), "{verb} {help}");
            assert!(
                String::from_utf8_lossy(&out.stdout).starts_with(usage),
                "{verb} {help}"
            );
        }
    }
    for (verb, flag) in [("export", "--part-rows"), ("import", "--batch-rows")] {
        for value in ["0", "-1", "many"] {
            let out = cli(&[verb, flag, value]);
            assert_eq!(out.status.code(), Some(2), "{verb} {flag} {value}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            if value == "0" {
                assert!(
                    stderr.contains(&format!("{flag} must be at least 1")),
                    "{stderr}"
                );
            }
        }
    }
    // A shared option's value is taken as the option's, not read as a command's own.
    let out = cli(&["export", "--table", "--part-rows"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--output DIR is required"));
}
