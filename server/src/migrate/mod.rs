//! `sparsetable-server export` and `sparsetable-server import`: moving a table, or every
//! table of an instance, between Sparsetable and Cloud Bigtable through the files Google's
//! tools read and write: Avro with the Dataflow templates' schema ([`avro`]), Parquet as the
//! Dataflow templates write it ([`parquet`]) and CSV as `cbt import` reads it ([`csv`]).
//!
//! The source of an export and the target of an import is a data directory
//! (`--data-dir DIR --project P --instance I`, the folder `DIR/P/I` the server keeps) or a
//! running server (`--emulator-host HOST:PORT`, by default `$BIGTABLE_EMULATOR_HOST`):
//! [`instance`]. The drivers ([`export`], [`import`]) stream: rows flow from the read stream
//! into the current part file, and from a file into batches of MutateRows, so memory does not
//! grow with the table. Output is a directory of parts; [`parts`] names them and keeps the
//! progress files that let an interrupted run continue with `--resume`. [`meter`] shows
//! progress on a terminal and always prints a summary line.
//!
//! Exit status: 0 on success, 1 when the work fails (the message on stderr), 2 for a
//! malformed command line.

pub mod avro;
pub mod csv;
pub mod export;
pub mod import;
pub mod instance;
pub mod meter;
pub mod parquet;
pub mod parts;

use std::ffi::OsString;
use std::ops::Bound;
use std::path::PathBuf;

use sparsetable::{RowFilter, RowRange, TableConfig};

use instance::Endpoint;

/// `sparsetable-server export --help`.
pub const EXPORT_USAGE: &str = "\
Usage: sparsetable-server export (--data-dir DIR | --emulator-host HOST:PORT)
           --project P --instance I (--table T | --all-tables) --output DIR
           [--format avro|parquet|csv] [--codec deflate|null] [--part-rows N] [--resume]
           [--start-row KEY] [--end-row KEY] [--prefix KEY] [--families A,B]
           [--start-time-micros T] [--end-time-micros T]

Writes a table (or every table of the instance) to files Cloud Bigtable's tools import:
  avro  the Dataflow template \"Avro Files on Cloud Storage to Cloud Bigtable\" reads these
        (record com.google.cloud.teleport.bigtable.BigtableRow: key, cells of family,
        qualifier, timestamp in microseconds, value; every version of every cell)
  parquet  the Dataflow template \"Parquet Files on Cloud Storage to Cloud Bigtable\" reads
        these (that record as parquet-avro writes it: cells a two-level list, SNAPPY
        pages, row groups of about 16 MB)
  csv   `cbt import T FILE timestamp=value-encoded` reads these (a family record, a
        qualifier record, then key,value@timestamp,...; one more record per extra version)

Output: DIR/T-00000.EXT, DIR/T-00001.EXT, ... while running, renamed
DIR/T-00000-of-00002.EXT ... when done, and DIR/T.progress, which records each completed
part so that an interrupted export continues where it stopped with --resume.

Source (one of):
  --data-dir DIR              a server's data directory, with --project and --instance
                              naming the folder DIR/P/I; the server must not be running
  --emulator-host HOST:PORT   a running server [default: $BIGTABLE_EMULATOR_HOST]
  --project P, --instance I   the instance projects/P/instances/I

What to export (all of it goes into the read request):
  --table T                   one table; or --all-tables: each table, its own file set
  --start-row KEY             first row (inclusive)
  --end-row KEY               end of the rows (exclusive)
  --prefix KEY                only rows whose key starts with KEY
  --families A,B              only these column families (each must exist)
  --start-time-micros T       only cells with timestamp >= T
  --end-time-micros T         only cells with timestamp < T

Output options:
  --output DIR                where the parts go (created if missing)
  --format avro|parquet|csv   [default: avro]
  --codec deflate|null        Avro block compression [default: deflate] (Parquet: SNAPPY)
  --part-rows N               rows per part file [default: 1000000]
  --resume                    continue the export DIR/T.progress records
  -h, --help                  print this help

Progress goes to stderr while it is a terminal; a summary line is always printed.
SequenceFile is not written yet (see the README).";

/// `sparsetable-server import --help`.
pub const IMPORT_USAGE: &str = "\
Usage: sparsetable-server import (--data-dir DIR | --emulator-host HOST:PORT)
           --project P --instance I (--table T | --all-tables) --input PATH
           [--format avro|parquet|csv] [--batch-rows N] [--progress FILE] [--resume]
           [--column-family F] [--timestamp value-encoded|now]

Writes the rows of export files into an existing table: Avro files in the Dataflow
templates' BigtableRow schema (from \"Cloud Bigtable to Avro\" or `sparsetable-server
export`; null, deflate or snappy blocks), Parquet files in that record's layout (from
\"Cloud Bigtable to Parquet\", `sparsetable-server export`, or pyarrow: two- or three-level
cells list; uncompressed or SNAPPY) or CSV files as `cbt import` reads them.

Input:
  --input PATH                a file, or a directory: every *.avro (*.parquet, *.csv) file
                              in it whose name starts with T- (any name with --table and a
                              directory holding no T- files), in name order
  --all-tables                import each T-* file set of the directory into table T
  --format avro|parquet|csv   [default: from the file names, else avro]
  --column-family F           CSV: no family record, every column is in F (cbt's
                              column-family=)
  --timestamp MODE            CSV: value-encoded (value@micros, as exports write it) or
                              now (every cell at the current time) [default: value-encoded]

Target (one of):
  --data-dir DIR              a server's data directory (the server must not be running),
                              with --project and --instance; the folder is created if new
  --emulator-host HOST:PORT   a running server [default: $BIGTABLE_EMULATOR_HOST]
  --project P, --instance I   the instance projects/P/instances/I

  --batch-rows N              rows per MutateRows batch [default: 500]
  --progress FILE             where progress is recorded (with --all-tables: a directory
                              for one T.import-progress per table) [default:
                              T.import-progress beside the input]
  --resume                    skip what the progress file records as applied
  -h, --help                  print this help

Every row is checked against the table's schema before its batch is written, so an
unknown family stops the import before that batch; batches already written are the ones
the progress file records.";

/// What the rows of an export are restricted to (see [`EXPORT_USAGE`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// First row, inclusive.
    pub start_row: Option<Vec<u8>>,
    /// End of the rows, exclusive.
    pub end_row: Option<Vec<u8>>,
    /// Rows whose key starts with this.
    pub prefix: Option<Vec<u8>>,
    /// Only these families (empty: all).
    pub families: Vec<String>,
    /// Cells with timestamp >= this.
    pub start_time: Option<i64>,
    /// Cells with timestamp < this.
    pub end_time: Option<i64>,
}

impl Selection {
    /// The key range to read, strictly after `after` when resuming; `None` when nothing is
    /// left. The range rules (prefix successor, intersection) are the core's.
    pub fn range(&self, after: Option<&[u8]>) -> Option<RowRange> {
        let mut range = RowRange {
            start: self
                .start_row
                .clone()
                .map_or(Bound::Unbounded, Bound::Included),
            end: self
                .end_row
                .clone()
                .map_or(Bound::Unbounded, Bound::Excluded),
        };
        if let Some(prefix) = &self.prefix {
            range = range.intersect(&RowRange::prefix(prefix.clone()))?;
        }
        if let Some(after) = after {
            range = range.intersect(&RowRange {
                start: Bound::Excluded(after.to_vec()),
                end: Bound::Unbounded,
            })?;
        }
        (!range.is_empty()).then_some(range)
    }

    /// The read's filter: the families (a family-name regex of the exact names) and the
    /// time range, chained; every cell when neither is given.
    pub fn filter(&self) -> RowFilter {
        let mut filters = Vec::new();
        if !self.families.is_empty() {
            // Family names are letters, digits, `_`, `-` and `.`; only `.` means anything
            // to a regex.
            let names: Vec<String> = self
                .families
                .iter()
                .map(|f| f.replace('.', "\\."))
                .collect();
            filters.push(RowFilter::FamilyNameRegex(names.join("|")));
        }
        if self.start_time.is_some() || self.end_time.is_some() {
            filters.push(RowFilter::TimestampRange {
                start_micros: self.start_time.unwrap_or(0),
                end_micros: self.end_time.unwrap_or(0),
            });
        }
        match filters.len() {
            0 => RowFilter::PassAll,
            1 => filters.remove(0),
            _ => RowFilter::Chain(filters),
        }
    }

    /// Refuses a family the table does not have.
    ///
    /// # Errors
    /// `NOT_FOUND` naming the family and the table's families.
    pub fn check_families(&self, table: &str, config: &TableConfig) -> Result<(), String> {
        for family in &self.families {
            if !config.families.contains_key(family) {
                let have: Vec<&str> = config.families.keys().map(String::as_str).collect();
                return Err(format!(
                    "NOT_FOUND: table {table:?} has no column family {family:?} (it has: {})",
                    have.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// The selection as one line of the progress file, to refuse resuming with another.
    pub fn describe(&self) -> String {
        let hex = |k: &Option<Vec<u8>>| {
            k.as_ref().map_or("-".to_string(), |k| {
                k.iter().map(|b| format!("{b:02x}")).collect::<String>()
            })
        };
        let time = |t: Option<i64>| t.map_or("-".to_string(), |t| t.to_string());
        format!(
            "start={} end={} prefix={} families={} start-time={} end-time={}",
            hex(&self.start_row),
            hex(&self.end_row),
            hex(&self.prefix),
            if self.families.is_empty() {
                "-".to_string()
            } else {
                self.families.join(",")
            },
            time(self.start_time),
            time(self.end_time)
        )
    }
}

/// The file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The Dataflow templates' Avro.
    Avro,
    /// The Dataflow templates' Parquet.
    Parquet,
    /// `cbt import`'s CSV.
    Csv,
}

impl Format {
    /// The file extension, also the `--format` value.
    pub fn ext(self) -> &'static str {
        match self {
            Format::Avro => "avro",
            Format::Parquet => "parquet",
            Format::Csv => "csv",
        }
    }

    fn parse(text: &str) -> Result<Format, lexopt::Error> {
        match text {
            "avro" => Ok(Format::Avro),
            "csv" => Ok(Format::Csv),
            "parquet" => Ok(Format::Parquet),
            "sequencefile" => Err(custom(format!(
                "--format {text}: not supported yet (avro, parquet or csv; see the README)"
            ))),
            other => Err(custom(format!(
                "--format must be avro, parquet or csv, not {other:?}"
            ))),
        }
    }
}

/// One table or all of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tables {
    /// `--table T`.
    One(String),
    /// `--all-tables`.
    All,
}

fn custom(message: String) -> lexopt::Error {
    lexopt::Error::Custom(message.into())
}

/// A row key (or prefix) from the command line: its bytes as given.
fn key_arg(value: OsString) -> Vec<u8> {
    use std::os::unix::ffi::OsStringExt;
    value.into_vec()
}

/// What [`Common::next_own`] found: help, or an option only one command has.
enum Own {
    Help,
    Named(String, lexopt::Error),
}

/// The value of a count option (`--part-rows`, `--batch-rows`): a whole number, at least 1.
fn at_least_one<T>(parser: &mut lexopt::Parser, flag: &str) -> Result<T, lexopt::Error>
where
    T: std::str::FromStr + PartialOrd + From<u8>,
    T::Err: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
{
    use lexopt::prelude::*;
    let n: T = parser.value()?.parse()?;
    if n < T::from(1) {
        return Err(custom(format!("--{flag} must be at least 1")));
    }
    Ok(n)
}

/// The options both commands share, taken by [`Common::take`].
#[derive(Debug, Default)]
struct Common {
    data_dir: Option<PathBuf>,
    host: Option<String>,
    project: Option<String>,
    instance: Option<String>,
    table: Option<String>,
    all_tables: bool,
    format: Option<Format>,
    resume: bool,
}

impl Common {
    /// Takes `arg` if it is one of the shared options.
    fn take(&mut self, name: &str, parser: &mut lexopt::Parser) -> Result<bool, lexopt::Error> {
        use lexopt::prelude::*;
        match name {
            "data-dir" => self.data_dir = Some(parser.value()?.into()),
            "emulator-host" => self.host = Some(parser.value()?.string()?),
            "project" => self.project = Some(parser.value()?.string()?),
            "instance" => self.instance = Some(parser.value()?.string()?),
            "table" => self.table = Some(parser.value()?.string()?),
            "all-tables" => self.all_tables = true,
            "format" => self.format = Some(Format::parse(&parser.value()?.string()?)?),
            "resume" => self.resume = true,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Reads options up to the next one the command reads itself, taking the shared ones on
    /// the way: that option's name (with the error that calls it unexpected), [`Own::Help`]
    /// for `-h` and `--help`, `None` at the end. Anything but a long option is unexpected.
    fn next_own(&mut self, parser: &mut lexopt::Parser) -> Result<Option<Own>, lexopt::Error> {
        use lexopt::prelude::*;
        while let Some(arg) = parser.next()? {
            let (name, unexpected) = match arg {
                Short('h') | Long("help") => return Ok(Some(Own::Help)),
                Long(n) => (n.to_string(), arg.unexpected()),
                _ => return Err(arg.unexpected()),
            };
            if !self.take(&name, parser)? {
                return Ok(Some(Own::Named(name, unexpected)));
            }
        }
        Ok(None)
    }

    fn endpoint(&self) -> Result<Endpoint, lexopt::Error> {
        let (Some(project), Some(instance)) = (self.project.clone(), self.instance.clone()) else {
            return Err(custom("--project and --instance are required".into()));
        };
        match (&self.data_dir, &self.host) {
            (Some(_), Some(_)) => Err(custom(
                "give --data-dir or --emulator-host, not both".into(),
            )),
            (Some(dir), None) => Ok(Endpoint::DataDir {
                dir: dir.clone(),
                project,
                instance,
            }),
            (None, host) => {
                let host = host
                    .clone()
                    .or_else(|| {
                        std::env::var("BIGTABLE_EMULATOR_HOST")
                            .ok()
                            .filter(|h| !h.is_empty())
                    })
                    .ok_or_else(|| {
                        custom(
                            "give --data-dir DIR or --emulator-host HOST:PORT (or set \
                             BIGTABLE_EMULATOR_HOST)"
                                .into(),
                        )
                    })?;
                Ok(Endpoint::Server {
                    host,
                    project,
                    instance,
                })
            }
        }
    }

    fn tables(&self) -> Result<Tables, lexopt::Error> {
        match (&self.table, self.all_tables) {
            (Some(t), false) => Ok(Tables::One(t.clone())),
            (None, true) => Ok(Tables::All),
            (Some(_), true) => Err(custom("give --table or --all-tables, not both".into())),
            (None, false) => Err(custom("--table T or --all-tables is required".into())),
        }
    }
}

fn parse_export(
    args: impl IntoIterator<Item = OsString>,
) -> Result<Option<export::ExportOptions>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut common = Common::default();
    let mut selection = Selection::default();
    let mut output = None;
    let mut codec = avro::AvroCodec::Deflate;
    let mut part_rows: u64 = 1_000_000;
    while let Some(own) = common.next_own(&mut parser)? {
        let Own::Named(name, unexpected) = own else {
            return Ok(None);
        };
        match name.as_str() {
            "output" => output = Some(PathBuf::from(parser.value()?)),
            "codec" => {
                codec = match parser.value()?.string()?.as_str() {
                    "deflate" => avro::AvroCodec::Deflate,
                    "null" => avro::AvroCodec::Null,
                    other => {
                        return Err(custom(format!(
                            "--codec must be deflate or null, not {other:?}"
                        )))
                    }
                }
            }
            "part-rows" => part_rows = at_least_one(&mut parser, "part-rows")?,
            "start-row" => selection.start_row = Some(key_arg(parser.value()?)),
            "end-row" => selection.end_row = Some(key_arg(parser.value()?)),
            "prefix" => selection.prefix = Some(key_arg(parser.value()?)),
            "families" => {
                selection.families = parser
                    .value()?
                    .string()?
                    .split(',')
                    .filter(|f| !f.is_empty())
                    .map(str::to_string)
                    .collect()
            }
            "start-time-micros" => selection.start_time = Some(parser.value()?.parse()?),
            "end-time-micros" => selection.end_time = Some(parser.value()?.parse()?),
            _ => return Err(unexpected),
        }
    }
    let output = output.ok_or_else(|| custom("--output DIR is required".into()))?;
    Ok(Some(export::ExportOptions {
        endpoint: common.endpoint()?,
        tables: common.tables()?,
        format: common.format.unwrap_or(Format::Avro),
        codec,
        part_rows,
        output,
        selection,
        resume: common.resume,
    }))
}

fn parse_import(
    args: impl IntoIterator<Item = OsString>,
) -> Result<Option<import::ImportOptions>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut common = Common::default();
    let mut input = None;
    let mut progress = None;
    let mut batch_rows: usize = 500;
    let mut csv = csv::CsvOptions {
        column_family: None,
        value_encoded: true,
    };
    while let Some(own) = common.next_own(&mut parser)? {
        let Own::Named(name, unexpected) = own else {
            return Ok(None);
        };
        match name.as_str() {
            "input" => input = Some(PathBuf::from(parser.value()?)),
            "progress" => progress = Some(PathBuf::from(parser.value()?)),
            "batch-rows" => batch_rows = at_least_one(&mut parser, "batch-rows")?,
            "column-family" => csv.column_family = Some(parser.value()?.string()?),
            "timestamp" => {
                csv.value_encoded = match parser.value()?.string()?.as_str() {
                    "value-encoded" => true,
                    "now" => false,
                    other => {
                        return Err(custom(format!(
                            "--timestamp must be value-encoded or now, not {other:?}"
                        )))
                    }
                }
            }
            _ => return Err(unexpected),
        }
    }
    let input = input.ok_or_else(|| custom("--input PATH is required".into()))?;
    Ok(Some(import::ImportOptions {
        endpoint: common.endpoint()?,
        tables: common.tables()?,
        format: common.format,
        input,
        progress,
        batch_rows,
        csv,
        resume: common.resume,
    }))
}

/// A parsed command line, ready to run (export's and import's as one type).
type Command = Box<dyn FnOnce() -> Result<(), String>>;

/// Runs `export ARGS` (`export` is true) or `import ARGS` and returns the exit code.
pub fn run(export: bool, args: impl IntoIterator<Item = OsString>) -> u8 {
    let (name, usage) = if export {
        ("export", EXPORT_USAGE)
    } else {
        ("import", IMPORT_USAGE)
    };
    // The command line is read whole first, so help and a bad line answer before any work.
    let parsed: Result<Option<Command>, lexopt::Error> = if export {
        parse_export(args)
            .map(|o| o.map(|options| Box::new(move || export::run(&options)) as Command))
    } else {
        parse_import(args)
            .map(|o| o.map(|options| Box::new(move || import::run(&options)) as Command))
    };
    let outcome = match parsed {
        Ok(Some(command)) => command(),
        Ok(None) => {
            println!("{usage}");
            return 0;
        }
        Err(e) => {
            eprintln!("sparsetable-server {name}: {e}\n\n{usage}");
            return 2;
        }
    };
    match outcome {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("sparsetable-server {name}: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_is_one_range_and_one_filter() {
        let s = Selection {
            start_row: Some(b"b".to_vec()),
            end_row: Some(b"y".to_vec()),
            prefix: Some(b"c".to_vec()),
            families: vec!["cf".into(), "a.b".into()],
            start_time: Some(1000),
            end_time: None,
        };
        assert_eq!(s.range(None), Some(RowRange::closed_open("c", "d")));
        assert_eq!(
            s.range(Some(b"c5")),
            Some(RowRange {
                start: Bound::Excluded(b"c5".to_vec()),
                end: Bound::Excluded(b"d".to_vec())
            })
        );
        assert_eq!(s.range(Some(b"d")), None);
        assert_eq!(
            s.filter(),
            RowFilter::Chain(vec![
                RowFilter::FamilyNameRegex("cf|a\\.b".into()),
                RowFilter::TimestampRange {
                    start_micros: 1000,
                    end_micros: 0
                }
            ])
        );
        assert_eq!(Selection::default().filter(), RowFilter::PassAll);
        assert_eq!(Selection::default().range(None), Some(RowRange::all()));
    }
}
