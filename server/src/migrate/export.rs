//! The export driver: rows from the instance's read stream into part files, one part at a
//! time, recording each completed part in the progress file (see [`super::parts`] for the
//! names and the resume rule). Memory holds one row and the current part's writer (and, for
//! CSV, the part's column list; for Parquet, the rows of one bounded row group), whatever the
//! table's size.

use std::path::{Path, PathBuf};

use super::avro::{AvroCodec, AvroPart};
use super::csv::CsvPart;
use super::instance::{Endpoint, Instance};
use super::meter::{row_bytes, Meter};
use super::parquet::ParquetPart;
use super::parts::{final_name, part_name, write_atomically, DonePart, ExportProgress};
use super::{Format, Selection, Tables};

/// What `sparsetable-server export` was asked to do.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// The source.
    pub endpoint: Endpoint,
    /// One table or all.
    pub tables: Tables,
    /// The file format.
    pub format: Format,
    /// Avro's block compression.
    pub codec: AvroCodec,
    /// Rows per part.
    pub part_rows: u64,
    /// The output directory.
    pub output: PathBuf,
    /// The rows and cells to export.
    pub selection: Selection,
    /// Continue what the progress file records.
    pub resume: bool,
}

/// A part being written, in either format.
enum Part {
    Avro(AvroPart),
    Parquet(Box<ParquetPart>),
    Csv(CsvPart),
}

impl Part {
    fn create(path: &Path, options: &ExportOptions) -> Result<Part, String> {
        Ok(match options.format {
            Format::Avro => Part::Avro(AvroPart::create(path, options.codec)?),
            Format::Parquet => Part::Parquet(Box::new(ParquetPart::create(path)?)),
            Format::Csv => Part::Csv(CsvPart::create(path)?),
        })
    }

    fn write_row(&mut self, row: &sparsetable::Row) -> Result<(), String> {
        match self {
            Part::Avro(p) => p.write_row(row),
            Part::Parquet(p) => p.write_row(row),
            Part::Csv(p) => p.write_row(row),
        }
    }

    fn finish(self) -> Result<(), String> {
        match self {
            Part::Avro(p) => p.finish(),
            Part::Parquet(p) => p.finish(),
            Part::Csv(p) => p.finish(),
        }
    }
}

/// Runs the export.
///
/// # Errors
/// A message naming what failed.
pub fn run(options: &ExportOptions) -> Result<(), String> {
    let mut instance = Instance::open(&options.endpoint, false)?;
    let tables = match &options.tables {
        Tables::One(t) => vec![t.clone()],
        Tables::All => instance.table_ids()?,
    };
    std::fs::create_dir_all(&options.output)
        .map_err(|e| format!("creating {}: {e}", options.output.display()))?;
    // Every table is checked before the first is written, so a bad family or table name
    // fails at once rather than after hours of exporting the others.
    for table in &tables {
        let config = instance
            .table_config(table)
            .map_err(|e| format!("table {table:?}: {e}"))?;
        options.selection.check_families(table, &config)?;
    }
    for table in &tables {
        export_table(&mut instance, table, options)?;
    }
    Ok(())
}

/// The options line of the progress file: what must not change between a run and its
/// resume.
fn describe(table: &str, options: &ExportOptions) -> String {
    format!(
        "table={table} format={} codec={} part-rows={} {}",
        options.format.ext(),
        options.codec.name(),
        options.part_rows,
        options.selection.describe()
    )
}

/// Whether `name` is one of table `prefix`'s parts (finished or not) in this format.
fn is_part_of(name: &str, prefix: &str, ext: &str) -> bool {
    let Some(rest) = name.strip_prefix(prefix).and_then(|r| r.strip_prefix('-')) else {
        return false;
    };
    let digits = rest.split(['.', '-']).next().unwrap_or("");
    digits.len() == 5
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (rest.contains(&format!(".{ext}")))
}

fn export_table(
    instance: &mut Instance,
    table: &str,
    options: &ExportOptions,
) -> Result<(), String> {
    let ext = options.format.ext();
    let dir = &options.output;
    let progress_path = dir.join(format!("{table}.progress"));
    let described = describe(table, options);
    let mut progress = if progress_path.exists() {
        if !options.resume {
            return Err(format!(
                "{} exists: {} already holds an export of table {table:?}; pass --resume to \
                 continue it, or remove its files",
                progress_path.display(),
                dir.display()
            ));
        }
        let text = std::fs::read_to_string(&progress_path)
            .map_err(|e| format!("reading {}: {e}", progress_path.display()))?;
        let progress = ExportProgress::parse(&text)
            .map_err(|e| format!("{}: {e}", progress_path.display()))?;
        if progress.options != described {
            return Err(format!(
                "{} records an export with other options ({}); resume with the same options",
                progress_path.display(),
                progress.options
            ));
        }
        progress
    } else {
        ExportProgress::new(described)
    };
    // Files of this table the progress file does not name as complete are left-overs of an
    // interrupted run: removed on resume, refused otherwise (they would mix with ours).
    let recorded = progress.parts.len() as u32;
    let entries = std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !is_part_of(&name, table, ext) {
            continue;
        }
        let index: u32 = name[table.len() + 1..table.len() + 6]
            .parse()
            .unwrap_or(u32::MAX);
        let whole =
            name == part_name(table, index, ext) || name == final_name(table, index, recorded, ext);
        if whole && index < recorded {
            continue;
        }
        if !options.resume && !progress_path.exists() {
            return Err(format!(
                "{} already holds {name}; export table {table:?} into an empty directory, or \
                 remove its files",
                dir.display()
            ));
        }
        std::fs::remove_file(entry.path())
            .map_err(|e| format!("removing {}: {e}", entry.path().display()))?;
    }
    let mut meter = Meter::new(format!("exporting {table}"));
    if !progress.complete {
        let after = progress.parts.last().map(|p| p.last_key.clone());
        let mut rows = instance.read(table, &options.selection, after.as_deref())?;
        let mut current: Option<(Part, PathBuf, u64)> = None;
        let mut last_key = Vec::new();
        loop {
            let row = rows.next_row()?;
            let Some(row) = row else { break };
            if current.is_none() {
                let index = progress.parts.len() as u32;
                let path = dir.join(format!("{}.partial", part_name(table, index, ext)));
                current = Some((Part::create(&path, options)?, path, 0));
            }
            let (part, _, count) = current.as_mut().expect("a part is open");
            part.write_row(&row)?;
            *count += 1;
            meter.row(row_bytes(&row));
            last_key = row.key;
            if *count == options.part_rows {
                let (part, path, count) = current.take().expect("a part is open");
                complete_part(part, &path, count, &last_key, &mut progress, &progress_path)?;
            }
        }
        if let Some((part, path, count)) = current.take() {
            complete_part(part, &path, count, &last_key, &mut progress, &progress_path)?;
        }
        drop(rows);
        if progress.parts.is_empty() {
            // An empty selection still gives one (empty) part: a reader finds the schema.
            let path = dir.join(format!("{}.partial", part_name(table, 0, ext)));
            let part = Part::create(&path, options)?;
            complete_part(part, &path, 0, &[], &mut progress, &progress_path)?;
        }
        progress.complete = true;
        write_atomically(&progress_path, &progress.render())?;
    }
    // Recorded complete: give the parts their final names (again, after a crash here).
    let count = progress.parts.len() as u32;
    for index in 0..count {
        let from = dir.join(part_name(table, index, ext));
        if from.exists() {
            let to = dir.join(final_name(table, index, count, ext));
            std::fs::rename(&from, &to).map_err(|e| format!("renaming {}: {e}", from.display()))?;
        }
    }
    let total: u64 = progress.parts.iter().map(|p| p.rows).sum();
    meter.finish(&format!(
        "exported table {table} to {} ({count} {} part{}, {total} rows in all)",
        dir.display(),
        ext,
        if count == 1 { "" } else { "s" }
    ));
    Ok(())
}

/// Closes a part, gives it its running name and records it.
fn complete_part(
    part: Part,
    partial: &Path,
    rows: u64,
    last_key: &[u8],
    progress: &mut ExportProgress,
    progress_path: &Path,
) -> Result<(), String> {
    part.finish()?;
    let whole = partial.with_extension("");
    std::fs::rename(partial, &whole).map_err(|e| format!("renaming {}: {e}", partial.display()))?;
    progress.parts.push(DonePart {
        rows,
        last_key: last_key.to_vec(),
    });
    write_atomically(progress_path, &progress.render())
}
