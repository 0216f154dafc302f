//! CSV files as `cbt import` reads them (the rules are the console crate's
//! [`sparsetable_console::csv`], shared with the playground's `import`): a family record, a
//! qualifier record, then a row key and one value per column in each record.
//!
//! What we write, so that every cell survives the trip: each value is `value@timestamp`
//! (cbt's `timestamp=value-encoded`, so the cell keeps its timestamp, and an empty value is
//! still a non-blank field), and a column with several versions gives the row several
//! records: the first holds each column's newest version, the next the second newest, and so
//! on (cbt applies each record as its own row mutation, so all of them land). Columns are
//! numbered in the order they first appear in the part, and the header records are written
//! when the part is complete: the body goes to `PART.body` as rows arrive (constant memory;
//! only the part's column list is kept) and is copied behind the header at the end, each
//! record padded to the full width (Go's reader, cbt's, wants every record as wide as the
//! first). A part
//! without rows is an empty file. Keys, qualifiers and values are bytes (Go's strings are):
//! quoting follows Go's `csv.Writer`, so any byte survives.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use sparsetable::{Row, RowMutations};
use sparsetable_console::csv::{write_record, Columns, Reader, Timestamps};

/// One CSV part being written (see the module docs).
pub struct CsvPart {
    path: PathBuf,
    body_path: PathBuf,
    body: BufWriter<File>,
    /// Each column's position, by (family, qualifier).
    positions: HashMap<(String, Vec<u8>), usize>,
    columns: Vec<(String, Vec<u8>)>,
    record: Vec<u8>,
}

impl CsvPart {
    /// Starts the part `path` (its body in `PATH.body` until [`CsvPart::finish`]).
    ///
    /// # Errors
    /// The body file cannot be created.
    pub fn create(path: &Path) -> Result<CsvPart, String> {
        let mut body_path = path.as_os_str().to_owned();
        body_path.push(".body");
        let body_path = PathBuf::from(body_path);
        let body = File::create(&body_path)
            .map_err(|e| format!("creating {}: {e}", body_path.display()))?;
        Ok(CsvPart {
            path: path.to_path_buf(),
            body_path,
            body: BufWriter::new(body),
            positions: HashMap::new(),
            columns: Vec::new(),
            record: Vec::new(),
        })
    }

    /// Appends one row: one record per version depth (see the module docs).
    ///
    /// # Errors
    /// A write error.
    pub fn write_row(&mut self, row: &Row) -> Result<(), String> {
        // Cells come grouped by column, newest first: the depth of a cell is how many cells
        // of its column came before it.
        let mut layers: Vec<Vec<Vec<u8>>> = Vec::new();
        let mut previous: Option<(&str, &[u8])> = None;
        let mut depth = 0;
        for cell in &row.cells {
            let column = (cell.family.as_str(), cell.qualifier.as_slice());
            depth = if previous == Some(column) {
                depth + 1
            } else {
                0
            };
            previous = Some(column);
            let position = match self
                .positions
                .get(&(column.0.to_string(), column.1.to_vec()))
            {
                Some(&p) => p,
                None => {
                    let owned = (cell.family.clone(), cell.qualifier.clone());
                    self.columns.push(owned.clone());
                    self.positions.insert(owned, self.columns.len() - 1);
                    self.columns.len() - 1
                }
            };
            if layers.len() <= depth {
                layers.push(vec![row.key.clone()]);
            }
            let fields = &mut layers[depth];
            if fields.len() <= position + 1 {
                fields.resize(position + 2, Vec::new());
            }
            let mut value = cell.value.clone();
            value.extend_from_slice(format!("@{}", cell.timestamp_micros).as_bytes());
            fields[position + 1] = value;
        }
        for fields in layers {
            self.record.clear();
            write_record(&mut self.record, &fields);
            self.body
                .write_all(&self.record)
                .map_err(|e| format!("{}: {e}", self.body_path.display()))?;
        }
        Ok(())
    }

    /// Writes the header records and the body into the part, syncs it, removes the body.
    ///
    /// # Errors
    /// A write or sync error.
    pub fn finish(self) -> Result<(), String> {
        let failed = |p: &Path, e: std::io::Error| format!("{}: {e}", p.display());
        let body = self
            .body
            .into_inner()
            .map_err(|e| failed(&self.body_path, e.into_error()))?;
        drop(body);
        let file = File::create(&self.path).map_err(|e| failed(&self.path, e))?;
        let mut out = BufWriter::new(file);
        if !self.columns.is_empty() {
            let mut header = Vec::new();
            let families: Vec<&[u8]> = std::iter::once(&b""[..])
                .chain(self.columns.iter().map(|(f, _)| f.as_bytes()))
                .collect();
            write_record(&mut header, &families);
            let qualifiers: Vec<&[u8]> = std::iter::once(&b""[..])
                .chain(self.columns.iter().map(|(_, q)| q.as_slice()))
                .collect();
            write_record(&mut header, &qualifiers);
            out.write_all(&header).map_err(|e| failed(&self.path, e))?;
            // Go's csv reader (cbt's) wants every record as wide as the first: records
            // written before a column first appeared get its blank field now.
            let width = self.columns.len() + 1;
            let body = File::open(&self.body_path).map_err(|e| failed(&self.body_path, e))?;
            let mut record = Vec::new();
            for fields in Reader::new(BufReader::new(body)) {
                let mut fields =
                    fields.map_err(|e| format!("{}: {e}", self.body_path.display()))?;
                fields.resize(width, Vec::new());
                record.clear();
                write_record(&mut record, &fields);
                out.write_all(&record).map_err(|e| failed(&self.path, e))?;
            }
        }
        let file = out
            .into_inner()
            .map_err(|e| failed(&self.path, e.into_error()))?;
        file.sync_all().map_err(|e| failed(&self.path, e))?;
        std::fs::remove_file(&self.body_path).map_err(|e| failed(&self.body_path, e))
    }
}

/// How an import reads a CSV file's cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvOptions {
    /// cbt's `column-family=`: no family record, every column in this family.
    pub column_family: Option<String>,
    /// cbt's `timestamp=value-encoded` (our default, as our exports write it) or `now`.
    pub value_encoded: bool,
}

/// The rows of one CSV file, a record at a time, as SetCell mutations.
pub struct CsvRows {
    records: Reader<BufReader<File>>,
    /// `None` for an empty file.
    columns: Option<Columns>,
    timestamps: Timestamps,
    path: PathBuf,
}

impl CsvRows {
    /// Opens `path` and reads its header records; `now_micros` is the time of cells without
    /// a timestamp.
    ///
    /// # Errors
    /// The file cannot be opened; a malformed header.
    pub fn open(path: &Path, options: &CsvOptions, now_micros: i64) -> Result<CsvRows, String> {
        let file = File::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?;
        let empty = file.metadata().map(|m| m.len() == 0).unwrap_or(false);
        let mut records = Reader::new(BufReader::new(file));
        let columns = if empty {
            None
        } else {
            Some(
                Columns::read_header(&mut records, options.column_family.as_deref())
                    .map_err(|e| format!("{}: {e}", path.display()))?,
            )
        };
        Ok(CsvRows {
            records,
            columns,
            timestamps: if options.value_encoded {
                Timestamps::ValueEncoded(now_micros)
            } else {
                Timestamps::Now(now_micros)
            },
            path: path.to_path_buf(),
        })
    }

    /// The next record's row and its cells, `None` at the end of the file.
    ///
    /// # Errors
    /// A malformed record (Go's parse error with its line and column).
    pub fn next_row(&mut self) -> Result<Option<RowMutations>, String> {
        let Some(columns) = &self.columns else {
            return Ok(None);
        };
        let Some(record) = self
            .records
            .next_record()
            .map_err(|e| format!("{}: {e}", self.path.display()))?
        else {
            return Ok(None);
        };
        Ok(Some(RowMutations {
            mutations: columns.mutations(&record, self.timestamps),
            row_key: record.into_iter().next().unwrap_or_default(),
        }))
    }
}
