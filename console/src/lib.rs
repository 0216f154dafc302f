//! A `cbt`-compatible console over a Sparsetable [`Database`]: the commands people type into
//! Google's `cbt` CLI (`createtable`, `createfamily`, `setgcpolicy`, `set`, `read`, `lookup`,
//! `count`, `deleterow`, `deletecolumn`, `deletefamily`, `deletetable`, `ls`, `import`,
//! `help`),
//! answered with exactly the bytes `cbt` prints on stdout, and on stderr the messages it logs
//! (without the log's date and time prefix).
//!
//! The playground's console and the native `sparsetable-console` binary run this same code;
//! `server/tests/it/console_vs_cbt.rs` runs the real `cbt` against the real server and this
//! console in-process over the same commands, and compares what they print.
//!
//! Invariants: a command either fails before changing anything (a usage or parse error, or
//! the engine's error, which leaves the database as it was) or runs to the end, as cbt's one
//! RPC per command does; `import` writes batch by batch like cbt, so a failing batch leaves
//! the earlier ones. Times a command takes from the clock ("now") are cut to milliseconds,
//! as the Go client's `bigtable.Now()` does. Each write without a timestamp takes a later
//! millisecond than the console's previous one, even when the clock has not moved (the
//! playground's clock is simulated): cbt runs one process per command against a server whose
//! time advances, so three `set`s of one cell give three versions there, and must here.

pub mod args;
pub mod complete;
pub mod csv;
pub mod flags;
pub mod gc;
pub mod help;
pub mod instance;
pub mod print;

use std::collections::BTreeMap;
use std::ops::Bound;

use sparsetable::{
    ColumnFamily, Database, Error, FamilyModification, GcRule, Mutation, ReadRowsRequest,
    RowFilter, RowRange, RowSet, TableConfig, TimestampRange,
};

pub use args::split_args;
pub use complete::{complete, complete_line, History};
pub use flags::{global_flags, with_app_profile, GlobalFlags};
pub use instance::{Admission, InstanceConsole, LatencyWait, Waited, INSTANCE_COMMANDS};

/// What one command printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// Exactly what cbt prints on stdout.
    pub stdout: Vec<u8>,
    /// The lines cbt logs on stderr, each without the log's date and time.
    pub stderr: String,
    /// Whether the command failed (cbt exits with status 1).
    pub failed: bool,
}

impl Output {
    fn fail(mut self, message: impl Into<String>) -> Output {
        self.stderr.push_str(&message.into());
        self.stderr.push('\n');
        self.failed = true;
        self
    }
}

/// The console: named CSV files for `import` (the browser has no file system; natively a
/// name not registered here is read from disk).
#[derive(Debug, Clone, Default)]
pub struct Console {
    /// Files `import` can read, by name.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The time (microseconds, whole milliseconds) the last write without a timestamp took;
    /// the next one takes a later millisecond.
    last_now: Option<i64>,
}

const SET_USAGE: &str = "usage: cbt set <table> <row> [authorized-view=<authorized-view-id>] [app-profile=<app profile id>] family:[column]=val[@ts] ...";

/// The commands the console knows, for completion and `help`.
pub const COMMANDS: &[&str] = &[
    "count",
    "createfamily",
    "createtable",
    "deletecolumn",
    "deletefamily",
    "deleterow",
    "deletetable",
    "help",
    "import",
    "lookup",
    "ls",
    "read",
    "set",
    "setgcpolicy",
];

/// The `key=` options of each command that takes them.
pub fn options_of(command: &str) -> &'static [&'static str] {
    match command {
        "read" => &[
            "start=",
            "end=",
            "prefix=",
            "regex=",
            "columns=",
            "count=",
            "cells-per-column=",
            "reversed=",
            "app-profile=",
        ],
        "lookup" => &["columns=", "cells-per-column=", "app-profile="],
        "count" => &["prefix="],
        "createtable" => &["families=", "splits="],
        "import" => &[
            "column-family=",
            "batch-size=",
            "workers=",
            "timestamp=",
            "app-profile=",
        ],
        _ => &[],
    }
}

/// "rpc error: code = NotFound desc = ...", as the Go gRPC client words an error status.
fn rpc(context: &str, e: &Error) -> String {
    format!(
        "{context}: rpc error: code = {} desc = {}",
        print::go_code_name(e.code()),
        e.message()
    )
}

fn text(word: &[u8]) -> String {
    String::from_utf8_lossy(word).into_owned()
}

/// `key=value` options, checked against the allowed keys as cbt's `parseArgs` does.
fn parse_options(args: &[Vec<u8>], allowed: &[&str]) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut out = BTreeMap::new();
    for arg in args {
        let Some(i) = arg.iter().position(|&c| c == b'=') else {
            return Err(format!("Bad arg {:?}", text(arg)));
        };
        let key = text(&arg[..i]);
        if !allowed.iter().any(|a| a.trim_end_matches('=') == key) {
            return Err(format!("unknown arg key {key:?}"));
        }
        out.insert(key, arg[i + 1..].to_vec());
    }
    Ok(out)
}

/// Go's `strconv.ParseInt` error wording.
fn parse_int(what: &str, v: &[u8]) -> Result<i64, String> {
    let s = text(v);
    s.parse::<i64>()
        .map_err(|_| format!("Bad {what} {s:?}: strconv.ParseInt: parsing {s:?}: invalid syntax"))
}

/// cbt's `columns=` option: comma-separated `family:qualifier` (both regexes), `family:`,
/// `:qualifier` or `qualifier`, interleaved.
fn columns_filter(spec: &[u8]) -> Result<Option<RowFilter>, String> {
    let mut filters = Vec::new();
    for column in spec.split(|&c| c == b',').filter(|c| !c.is_empty()) {
        let parts: Vec<&[u8]> = column.split(|&c| c == b':').collect();
        let f = match parts.as_slice() {
            [q] => RowFilter::ColumnQualifierRegex(q.to_vec()),
            [f, []] => RowFilter::FamilyNameRegex(text(f)),
            [[], q] => RowFilter::ColumnQualifierRegex(q.to_vec()),
            [f, q] => RowFilter::Chain(vec![
                RowFilter::FamilyNameRegex(text(f)),
                RowFilter::ColumnQualifierRegex(q.to_vec()),
            ]),
            _ => return Err(format!("bad format for column {:?}", text(column))),
        };
        filters.push(f);
    }
    Ok(match filters.len() {
        0 => None,
        1 => filters.pop(),
        _ => Some(RowFilter::Interleave(filters)),
    })
}

fn chain(mut filters: Vec<RowFilter>) -> RowFilter {
    match filters.len() {
        0 => RowFilter::PassAll,
        1 => filters.pop().unwrap_or_default(),
        _ => RowFilter::Chain(filters),
    }
}

/// The filters `read` and `lookup` share: `regex=`, `columns=`, `cells-per-column=`.
fn read_filters(opts: &BTreeMap<String, Vec<u8>>) -> Result<Vec<RowFilter>, String> {
    let mut filters = Vec::new();
    if let Some(re) = opts.get("regex") {
        filters.push(RowFilter::RowKeyRegex(re.clone()));
    }
    if let Some(cols) = opts.get("columns") {
        filters.extend(columns_filter(cols)?);
    }
    if let Some(n) = opts.get("cells-per-column") {
        let n = parse_int("cells-per-column", n)?;
        filters.push(RowFilter::CellsPerColumnLimit(
            i32::try_from(n).map_err(|_| format!("Bad cells-per-column {n}"))?,
        ));
    }
    Ok(filters)
}

/// The clock cut to milliseconds.
fn now_millis(db: &Database) -> i64 {
    let now = db.now_micros();
    now - now.rem_euclid(1000)
}

impl Console {
    /// An empty console.
    pub fn new() -> Self {
        Console::default()
    }

    /// The time for a write without a timestamp: the clock cut to milliseconds, but at
    /// least one millisecond after the previous such write (server time advances between
    /// two cbt commands). Taken for good by [`Console::took`] once the write is applied, so a
    /// command that fails does not move it.
    fn write_time(&self, db: &Database) -> i64 {
        let now = now_millis(db);
        match self.last_now {
            Some(last) if last >= now => last + 1000,
            _ => now,
        }
    }

    /// Records that a write took `now` (see [`Console::write_time`]).
    fn took(&mut self, now: i64) {
        self.last_now = Some(now);
    }

    /// Runs one line (a cbt command without the `cbt` and its flags) against `db`.
    pub fn run_line(&mut self, db: &mut Database, line: &str) -> Output {
        match split_args(line) {
            Ok(words) if words.is_empty() => Output::default(),
            Ok(words) => self.run(db, &words),
            Err(e) => Output::default().fail(e),
        }
    }

    /// Runs one command given as words, `words[0]` being the command.
    pub fn run(&mut self, db: &mut Database, words: &[Vec<u8>]) -> Output {
        let out = Output::default();
        let command = text(&words[0]);
        let args = &words[1..];
        match self.dispatch(db, &command, args) {
            Ok(out) => out,
            Err(message) => out.fail(message),
        }
    }

    fn dispatch(
        &mut self,
        db: &mut Database,
        command: &str,
        args: &[Vec<u8>],
    ) -> Result<Output, String> {
        let mut out = Output::default();
        match command {
            "ls" => match args {
                [] => {
                    let mut names: Vec<String> =
                        db.list_tables().into_iter().map(|t| t.name).collect();
                    names.sort();
                    for n in names {
                        out.stdout.extend_from_slice(n.as_bytes());
                        out.stdout.push(b'\n');
                    }
                }
                [table] => {
                    let info = db
                        .get_table(&text(table))
                        .map_err(|e| rpc("Getting table info", &e))?;
                    let mut lines = vec![
                        vec![
                            "Family Name".to_string(),
                            "GC Policy".into(),
                            "Value Type".into(),
                        ],
                        vec![
                            "-----------".to_string(),
                            "---------".into(),
                            "----------".into(),
                        ],
                    ];
                    let mut families: Vec<(&String, &ColumnFamily)> =
                        info.config.families.iter().collect();
                    families.sort_by(|a, b| a.0.cmp(b.0));
                    for (name, family) in families {
                        lines.push(vec![
                            name.clone(),
                            print::gc_policy_string(&family.gc_rule),
                            "{}".into(),
                        ]);
                    }
                    out.stdout
                        .extend_from_slice(print::tabwrite(&lines).as_bytes());
                }
                _ => {
                    let listed: Vec<String> = args.iter().map(|a| text(a)).collect();
                    return Err(format!("Can't do `cbt ls [{}]`", listed.join(" ")));
                }
            },
            "createtable" => {
                let [table, rest @ ..] = args else {
                    return Err("usage: cbt createtable <table> [families=family[:gcpolicy[:type]],...] [splits=split,...]".into());
                };
                let opts = parse_options(rest, &["families", "splits"])?;
                let mut config = TableConfig::default();
                if let Some(spec) = opts.get("families") {
                    for fam in text(spec).split(',').filter(|f| !f.is_empty()) {
                        let mut parts = fam.splitn(3, ':');
                        let name = parts.next().unwrap_or_default().to_string();
                        let gc_rule = match parts.next() {
                            Some(p) if !p.is_empty() => gc::parse_gc_policy(p)?,
                            _ => GcRule::Never,
                        };
                        if parts.next().is_some() {
                            return Err("family types are not supported by this console".into());
                        }
                        config.families.insert(
                            name,
                            ColumnFamily {
                                gc_rule,
                                ..ColumnFamily::default()
                            },
                        );
                    }
                }
                if let Some(splits) = opts.get("splits") {
                    config.initial_splits = splits
                        .split(|&c| c == b',')
                        .filter(|s| !s.is_empty())
                        .map(<[u8]>::to_vec)
                        .collect();
                }
                db.create_table(&text(table), config)
                    .map_err(|e| rpc("Creating table", &e))?;
            }
            "deletetable" => {
                let [table] = args else {
                    return Err("usage: cbt deletetable <table>".into());
                };
                db.delete_table(&text(table))
                    .map_err(|e| rpc("Deleting table", &e))?;
            }
            "createfamily" => {
                let [table, family] = args else {
                    return Err("usage: cbt createfamily <table> <family>".into());
                };
                let m = FamilyModification::Create {
                    name: text(family),
                    family: ColumnFamily::default(),
                };
                db.modify_column_families(&text(table), &[m])
                    .map_err(|e| rpc("Creating column family", &e))?;
            }
            "deletefamily" => {
                let [table, family] = args else {
                    return Err("usage: cbt deletefamily <table> <family>".into());
                };
                let m = FamilyModification::Drop { name: text(family) };
                db.modify_column_families(&text(table), &[m])
                    .map_err(|e| rpc("Deleting column family", &e))?;
            }
            "setgcpolicy" => {
                let [table, family, policy @ ..] = args else {
                    return Err("usage: cbt setgcpolicy <table> <family> ((maxage=<d> | maxversions=<n>) [(and|or) (maxage=<d> | maxversions=<n>),...] | never) [force]".into());
                };
                let mut words: Vec<String> = policy.iter().map(|w| text(w)).collect();
                if words.last().map(String::as_str) == Some("force") {
                    words.pop();
                }
                let gc_rule = gc::parse_gc_policy(&words.join(" "))?;
                let name = text(family);
                let info = db
                    .get_table(&text(table))
                    .map_err(|e| rpc("Setting GC policy", &e))?;
                // Keep the family's value type: only its GC rule changes.
                let current = info.config.families.get(&name).cloned().unwrap_or_default();
                let m = FamilyModification::Update {
                    name,
                    family: ColumnFamily { gc_rule, ..current },
                };
                db.modify_column_families(&text(table), &[m])
                    .map_err(|e| rpc("Setting GC policy", &e))?;
            }
            "set" => {
                let [table, row, cells @ ..] = args else {
                    return Err(SET_USAGE.into());
                };
                if cells.is_empty() {
                    return Err(SET_USAGE.into());
                }
                let now = self.write_time(db);
                let mut mutations = Vec::new();
                for arg in cells {
                    let Some(i) = arg.iter().position(|&c| c == b'=') else {
                        return Err(format!("Bad set arg {:?}", text(arg)));
                    };
                    let (key, val) = (&arg[..i], &arg[i + 1..]);
                    if key == b"app-profile" {
                        continue;
                    }
                    let Some(colon) = key.iter().position(|&c| c == b':') else {
                        return Err(format!("Bad set arg {:?}", text(arg)));
                    };
                    let (value, ts) = csv::split_timestamp(val, now);
                    mutations.push(Mutation::set_cell(
                        text(&key[..colon]),
                        key[colon + 1..].to_vec(),
                        ts,
                        value,
                    ));
                }
                db.mutate_row(&text(table), row, &mutations)
                    .map_err(|e| rpc("Applying mutation", &e))?;
                self.took(now);
            }
            "deleterow" => {
                let [table, row, ..] = args else {
                    return Err(
                        "usage: cbt deleterow <table> <row> [app-profile=<app profile id>]".into(),
                    );
                };
                db.mutate_row(&text(table), row, &[Mutation::DeleteFromRow])
                    .map_err(|e| rpc("Deleting row", &e))?;
            }
            "deletecolumn" => {
                let [table, row, family, qualifier, ..] = args else {
                    return Err("usage: cbt deletecolumn <table> <row> <family> <column> [app-profile=<app profile id>]".into());
                };
                let m = Mutation::DeleteFromColumn {
                    family: text(family),
                    qualifier: qualifier.clone(),
                    time_range: TimestampRange::default(),
                };
                db.mutate_row(&text(table), row, &[m])
                    .map_err(|e| rpc("Deleting cells in column", &e))?;
            }
            "read" => {
                let [table, rest @ ..] = args else {
                    return Err("usage: cbt read <table> [args ...]".into());
                };
                let opts = parse_options(rest, options_of("read"))?;
                let (start, end, prefix) = (opts.get("start"), opts.get("end"), opts.get("prefix"));
                if prefix.is_some() && (start.is_some() || end.is_some()) {
                    return Err("\"start\"/\"end\" may not be mixed with \"prefix\"".into());
                }
                let mut request = ReadRowsRequest::default();
                if let Some(p) = prefix {
                    request.row_set = RowSet {
                        row_keys: vec![],
                        row_ranges: vec![RowRange::prefix(p.clone())],
                    };
                } else if start.is_some() || end.is_some() {
                    let range = RowRange {
                        start: start.map_or(Bound::Unbounded, |s| Bound::Included(s.clone())),
                        end: end.map_or(Bound::Unbounded, |e| Bound::Excluded(e.clone())),
                    };
                    request.row_set = RowSet {
                        row_keys: vec![],
                        row_ranges: vec![range],
                    };
                }
                if let Some(n) = opts.get("count") {
                    request.rows_limit = parse_int("count", n)?;
                }
                if let Some(r) = opts.get("reversed") {
                    request.reversed = match r.as_slice() {
                        b"true" | b"1" | b"t" | b"T" | b"TRUE" | b"True" => true,
                        b"false" | b"0" | b"f" | b"F" | b"FALSE" | b"False" => false,
                        _ => return Err(format!("Bad reversed {:?}", text(r))),
                    };
                }
                request.filter = chain(read_filters(&opts)?);
                let mut rows = db
                    .read_rows(&text(table), &request)
                    .map_err(|e| rpc("Reading rows", &e))?;
                // As cbt: the rows streamed before a failure are printed, then the error.
                loop {
                    match rows.try_next() {
                        Ok(Some(row)) => print::print_row(&mut out.stdout, Some(&row)),
                        Ok(None) => break,
                        Err(e) => return Ok(out.fail(rpc("Reading rows", &e))),
                    }
                }
            }
            "lookup" => {
                let [table, row, rest @ ..] = args else {
                    return Err("usage: cbt lookup <table> <row> [columns=<family:qualifier>...] [cells-per-column=<n>] [app-profile=<app profile id>]".into());
                };
                let opts = parse_options(rest, options_of("lookup"))?;
                let filter = chain(read_filters(&opts)?);
                let found = db
                    .read_row_filtered(&text(table), row, &filter)
                    .map_err(|e| rpc("Reading row", &e))?;
                print::print_row(&mut out.stdout, found.as_ref());
            }
            "count" => {
                let [table, rest @ ..] = args else {
                    return Err("usage: cbt count <table> [prefix=<row-key-prefix>]".into());
                };
                let opts = parse_options(rest, options_of("count"))?;
                let mut request = ReadRowsRequest {
                    filter: RowFilter::StripValue,
                    ..ReadRowsRequest::default()
                };
                if let Some(p) = opts.get("prefix") {
                    request.row_set = RowSet {
                        row_keys: vec![],
                        row_ranges: vec![RowRange::prefix(p.clone())],
                    };
                }
                let n = db
                    .read_rows(&text(table), &request)
                    .and_then(|rows| rows.into_rows())
                    .map_err(|e| rpc("Reading rows", &e))?
                    .len();
                out.stdout.extend_from_slice(format!("{n}\n").as_bytes());
            }
            "import" => return self.import(db, args),
            "help" => match args {
                [] => out.stdout.extend_from_slice(help::list().as_bytes()),
                [name, ..] => {
                    let name = text(name);
                    let h =
                        help::of(&name).ok_or_else(|| format!("Don't know command {name:?}"))?;
                    out.stdout.extend_from_slice(h.usage.as_bytes());
                }
            },
            other => return Err(format!("Unknown command {other:?}")),
        }
        Ok(out)
    }

    /// `cbt import <table> <file> [column-family=] [batch-size=] [workers=] [timestamp=]`.
    fn import(&mut self, db: &mut Database, args: &[Vec<u8>]) -> Result<Output, String> {
        let [table, file, rest @ ..] = args else {
            return Err("usage: cbt import <table-id> <input-file> [app-profile=<app-profile-id>] [column-family=<family-name>] [batch-size=<500>] [workers=<1>] [timestamp=<now|value-encoded>]".into());
        };
        let opts = parse_options(rest, options_of("import"))?;
        let name = text(file);
        let bytes = match self.files.get(&name) {
            Some(b) => b.clone(),
            None => std::fs::read(&name).map_err(|_| {
                format!("couldn't open the csv file: open {name}: no such file or directory")
            })?,
        };
        // The whole file is parsed before anything is written, as cbt does.
        let mut records = csv::Reader::new(bytes.as_slice())
            .collect::<Result<Vec<_>, String>>()?
            .into_iter()
            .map(Ok);
        let batch_size = match opts.get("batch-size") {
            Some(n) => usize::try_from(parse_int("batch-size", n)?)
                .ok()
                .filter(|&n| n > 0)
                .ok_or("batch-size must be positive")?,
            None => 500,
        };
        if opts.get("workers").is_some_and(|w| w.as_slice() != b"1") {
            return Err("this console imports with one worker (workers=1)".into());
        }
        let value_encoded = match opts.get("timestamp").map(Vec::as_slice) {
            None | Some(b"now") => false,
            Some(b"value-encoded") => true,
            Some(other) => {
                return Err(format!(
                    "timestamp must be now or value-encoded, not {:?}",
                    text(other)
                ))
            }
        };
        let family = opts.get("column-family").map(|f| text(f));
        let columns = csv::Columns::read_header(&mut records, family.as_deref())?;
        let now = self.write_time(db);
        let timestamps = if value_encoded {
            csv::Timestamps::ValueEncoded(now)
        } else {
            csv::Timestamps::Now(now)
        };
        // Batches apply one by one, so the time counts as taken from here on.
        self.took(now);
        let rows: Vec<Vec<Vec<u8>>> = records.flatten().filter(|r| !r.is_empty()).collect();
        let mut out = Output::default();
        for batch in rows.chunks(batch_size) {
            let entries: Vec<sparsetable::RowMutations> = batch
                .iter()
                .map(|rec| sparsetable::RowMutations {
                    row_key: rec[0].clone(),
                    mutations: columns.mutations(rec, timestamps),
                })
                .collect();
            out.stderr.push_str(&format!(
                "[0] Writing batch:: size: {}, firstRowKey: {}, lastRowKey: {}\n",
                batch.len(),
                text(&batch[0][0]),
                text(&batch[batch.len() - 1][0])
            ));
            match db.mutate_rows(&text(table), &entries) {
                Err(e) => {
                    let e = rpc("", &e);
                    return Ok(out.fail(format!("error: applying bulk mutations process error{e}")));
                }
                Ok(results) => {
                    let errors: Vec<Error> = results.into_iter().filter_map(Result::err).collect();
                    if let Some(first) = errors.first() {
                        // The Go client's bulk-apply summary behind cbt's "error: ".
                        let first = rpc("", first);
                        return Ok(out.fail(format!(
                            "error: applying bulk mutations had {} errors, first:{}",
                            errors.len(),
                            first.trim_start_matches(": ")
                        )));
                    }
                }
            }
        }
        out.stderr
            .push_str(&format!("Done importing {} rows.\n", rows.len()));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use sparsetable::ManualClock;

    fn frozen() -> (Console, Database) {
        let clock = Arc::new(ManualClock::new(1_700_000_000_000_000));
        (Console::new(), Database::with_clock(clock))
    }

    fn run(console: &mut Console, db: &mut Database, line: &str) -> Output {
        let out = console.run_line(db, line);
        assert!(!out.failed, "{line}: {}", out.stderr);
        out
    }

    #[test]
    fn three_sets_of_one_cell_keep_three_versions_though_the_clock_stands_still() {
        let (mut c, mut db) = frozen();
        run(&mut c, &mut db, "createtable t families=cf");
        for v in ["a", "b", "c"] {
            run(&mut c, &mut db, &format!("set t r cf:q={v}"));
        }
        let out = run(&mut c, &mut db, "lookup t r");
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.matches("  cf:q").count(), 3, "{text}");
        // Newest first, one millisecond apart from the clock's time on.
        assert!(
            text.contains("@ 2023/11/14-22:13:20.002000\n    \"c\""),
            "{text}"
        );
        assert!(
            text.contains("@ 2023/11/14-22:13:20.000000\n    \"a\""),
            "{text}"
        );
        // A set that fails takes no time: the next one is the next millisecond.
        assert!(c.run_line(&mut db, "set t r nofamily:q=x").failed);
        run(&mut c, &mut db, "set t r2 cf:q=d");
        let text = String::from_utf8(run(&mut c, &mut db, "lookup t r2").stdout).unwrap();
        assert!(text.contains("@ 2023/11/14-22:13:20.003000"), "{text}");
    }

    #[test]
    fn help_lists_the_commands_and_prints_each_usage_as_cbt_does() {
        let (mut c, mut db) = frozen();
        let list = String::from_utf8(run(&mut c, &mut db, "help").stdout).unwrap();
        for name in COMMANDS {
            assert!(
                list.lines()
                    .any(|l| l.starts_with(&format!("cbt {name}\t"))),
                "{name} missing from help:\n{list}"
            );
        }
        assert!(list.contains("cbt set\t\t\t\tSet value of a cell (write)\n"));
        let names: Vec<&str> = help::HELP.iter().map(|h| h.name).collect();
        assert_eq!(names, COMMANDS, "one help entry per command, in order");
        let set = String::from_utf8(run(&mut c, &mut db, "help set").stdout).unwrap();
        assert!(set.starts_with("cbt set <table-id> <row-key> "), "{set}");
        let bad = c.run_line(&mut db, "help nosuch");
        assert!(bad.failed);
        assert_eq!(bad.stderr, "Don't know command \"nosuch\"\n");
    }
}
