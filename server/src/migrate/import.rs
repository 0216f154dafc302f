//! The import driver: rows from each input file, a record at a time, into batches of at most
//! `--batch-rows` rows (and the Data API's 100,000 mutations), each checked against the
//! table's schema by the core's own mutation rules before it is written, and recorded in the
//! progress file once the target has it durably. Memory holds one batch.

use std::path::{Path, PathBuf};

use sparsetable::limits::MAX_MUTATIONS_PER_REQUEST;
use sparsetable::model::mutation::validate_row_mutations;
use sparsetable::{Clock, Mutation, RowMutations, SystemClock};

use super::avro::AvroRows;
use super::csv::{CsvOptions, CsvRows};
use super::instance::{error_text, Endpoint, Instance};
use super::meter::Meter;
use super::parquet::ParquetRows;
use super::parts::{write_atomically, FileProgress, ImportProgress};
use super::{Format, Tables};

/// What `sparsetable-server import` was asked to do.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The target.
    pub endpoint: Endpoint,
    /// One table or all.
    pub tables: Tables,
    /// The file format; `None`: from the file names.
    pub format: Option<Format>,
    /// A file or a directory.
    pub input: PathBuf,
    /// Where progress is recorded; `None`: beside the input.
    pub progress: Option<PathBuf>,
    /// Rows per batch.
    pub batch_rows: usize,
    /// How CSV files are read.
    pub csv: CsvOptions,
    /// Skip what the progress file records.
    pub resume: bool,
}

/// The rows of one input file.
enum Input {
    Avro(Box<AvroRows>),
    Parquet(Box<ParquetRows>),
    Csv(CsvRows),
}

impl Input {
    fn next_row(&mut self) -> Result<Option<RowMutations>, String> {
        match self {
            Input::Avro(a) => Ok(a.next_row()?.map(set_cells)),
            Input::Parquet(p) => Ok(p.next_row()?.map(set_cells)),
            Input::Csv(c) => c.next_row(),
        }
    }
}

/// A row of an Avro or Parquet file as the SetCells that write it back.
fn set_cells(row: sparsetable::Row) -> RowMutations {
    RowMutations {
        row_key: row.key,
        mutations: row
            .cells
            .into_iter()
            .map(|c| Mutation::set_cell(c.family, c.qualifier, c.timestamp_micros, c.value))
            .collect(),
    }
}

/// The format a file's name says, if any.
fn format_of(path: &Path) -> Option<Format> {
    match path.extension()?.to_str()? {
        "avro" => Some(Format::Avro),
        "parquet" => Some(Format::Parquet),
        "csv" => Some(Format::Csv),
        _ => None,
    }
}

/// The input files of each table, in name order (see `--input` in the usage).
fn plan(
    options: &ImportOptions,
    instance: &mut Instance,
) -> Result<Vec<(String, Vec<PathBuf>)>, String> {
    let input = &options.input;
    if input.is_file() {
        let Tables::One(table) = &options.tables else {
            return Err("--all-tables needs a directory as --input".into());
        };
        return Ok(vec![(table.clone(), vec![input.clone()])]);
    }
    let entries = std::fs::read_dir(input)
        .map_err(|e| format!("reading the input {}: {e}", input.display()))?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| match (options.format, format_of(p)) {
            (Some(want), Some(have)) => want == have,
            (None, Some(_)) => true,
            (_, None) => false,
        })
        .collect();
    files.sort();
    let name = |p: &PathBuf| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let of_table = |table: &str, p: &PathBuf| name(p).starts_with(&format!("{table}-"));
    match &options.tables {
        Tables::One(table) => {
            let mine: Vec<PathBuf> = files
                .iter()
                .filter(|p| of_table(table, p))
                .cloned()
                .collect();
            let chosen = if mine.is_empty() { files } else { mine };
            if chosen.is_empty() {
                return Err(format!(
                    "{} holds no .avro, .parquet or .csv file",
                    input.display()
                ));
            }
            Ok(vec![(table.clone(), chosen)])
        }
        Tables::All => {
            let mut plan = Vec::new();
            for table in instance.table_ids()? {
                let mine: Vec<PathBuf> = files
                    .iter()
                    .filter(|p| of_table(&table, p))
                    .cloned()
                    .collect();
                if !mine.is_empty() {
                    plan.push((table, mine));
                }
            }
            if plan.is_empty() {
                return Err(format!(
                    "{} holds no T-* file set of a table of the instance (tables are not \
                     created by import: create them first)",
                    input.display()
                ));
            }
            Ok(plan)
        }
    }
}

/// Runs the import.
///
/// # Errors
/// A message naming what failed: the table, the file, the record.
pub fn run(options: &ImportOptions) -> Result<(), String> {
    let mut instance = Instance::open(&options.endpoint, true)?;
    let plan = plan(options, &mut instance)?;
    for (table, files) in &plan {
        import_table(&mut instance, table, files, options)?;
    }
    instance.finish()
}

fn import_table(
    instance: &mut Instance,
    table: &str,
    files: &[PathBuf],
    options: &ImportOptions,
) -> Result<(), String> {
    let config = instance
        .table_config(table)
        .map_err(|e| format!("table {table:?}: {e} (import writes into an existing table)"))?;
    let progress_path = match &options.progress {
        Some(p) if matches!(options.tables, Tables::One(_)) => p.clone(),
        Some(p) => p.join(format!("{table}.import-progress")),
        None if options.input.is_file() => {
            let mut p = options.input.as_os_str().to_owned();
            p.push(".import-progress");
            PathBuf::from(p)
        }
        None => options.input.join(format!("{table}.import-progress")),
    };
    let described = format!(
        "table={table} column-family={} timestamp={}",
        options.csv.column_family.as_deref().unwrap_or("-"),
        if options.csv.value_encoded {
            "value-encoded"
        } else {
            "now"
        }
    );
    let mut progress = if progress_path.exists() {
        if !options.resume {
            return Err(format!(
                "{} exists: an import into table {table:?} from this input was started; pass \
                 --resume to continue it, or remove the file",
                progress_path.display()
            ));
        }
        let text = std::fs::read_to_string(&progress_path)
            .map_err(|e| format!("reading {}: {e}", progress_path.display()))?;
        let p = ImportProgress::parse(&text)
            .map_err(|e| format!("{}: {e}", progress_path.display()))?;
        if p.options != described {
            return Err(format!(
                "{} records an import with other options ({}); resume with the same options",
                progress_path.display(),
                p.options
            ));
        }
        p
    } else {
        ImportProgress {
            options: described,
            files: Vec::new(),
        }
    };
    let now = SystemClock.now_micros();
    let now = now - now.rem_euclid(1000);
    let mut meter = Meter::new(format!("importing into {table}"));
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let slot = match progress.files.iter().position(|f| f.name == name) {
            Some(i) => i,
            None => {
                progress.files.push(FileProgress {
                    name: name.clone(),
                    records: 0,
                    done: false,
                });
                progress.files.len() - 1
            }
        };
        if progress.files[slot].done {
            continue;
        }
        let format = options
            .format
            .or_else(|| format_of(path))
            .unwrap_or(Format::Avro);
        let mut input = match format {
            Format::Avro => Input::Avro(Box::new(AvroRows::open(path)?)),
            Format::Parquet => Input::Parquet(Box::new(ParquetRows::open(path)?)),
            Format::Csv => Input::Csv(CsvRows::open(path, &options.csv, now)?),
        };
        // Records a resumed run already applied are read and passed over.
        let skip = progress.files[slot].records;
        let mut record: u64 = 0;
        while record < skip {
            if input.next_row()?.is_none() {
                return Err(format!(
                    "{}: the progress file records {skip} records applied, the file has {record}",
                    path.display()
                ));
            }
            record += 1;
        }
        let mut batch: Vec<RowMutations> = Vec::new();
        let mut batch_records: u64 = 0;
        let mut mutations = 0;
        loop {
            let next = input.next_row()?;
            let full = match &next {
                Some(row) => {
                    batch.len() >= options.batch_rows
                        || mutations + row.mutations.len() > MAX_MUTATIONS_PER_REQUEST
                }
                None => true,
            };
            if full && batch_records > 0 {
                instance.write(table, &batch).map_err(|e| {
                    format!(
                        "{}: writing a batch of {} rows into {table:?}: {e}",
                        path.display(),
                        batch.len()
                    )
                })?;
                for row in &batch {
                    meter.row(
                        row.row_key.len() + row.mutations.iter().map(mutation_bytes).sum::<usize>(),
                    );
                }
                progress.files[slot].records += batch_records;
                write_atomically(&progress_path, &progress.render())?;
                batch.clear();
                batch_records = 0;
                mutations = 0;
            }
            let Some(row) = next else { break };
            batch_records += 1;
            record += 1;
            if row.mutations.is_empty() {
                // A CSV record with only a key writes nothing.
                continue;
            }
            validate_row_mutations(&config, &row.row_key, &row.mutations).map_err(|e| {
                format!(
                    "{}: record {} (row key {:?}): {}; nothing of its batch was written",
                    path.display(),
                    record - 1,
                    String::from_utf8_lossy(&row.row_key),
                    error_text(&e)
                )
            })?;
            mutations += row.mutations.len();
            batch.push(row);
        }
        progress.files[slot].done = true;
        write_atomically(&progress_path, &progress.render())?;
    }
    meter.finish(&format!(
        "imported into table {table} from {} file(s)",
        files.len()
    ));
    Ok(())
}

fn mutation_bytes(m: &Mutation) -> usize {
    match m {
        Mutation::SetCell {
            qualifier, value, ..
        } => qualifier.len() + value.len(),
        _ => 0,
    }
}
