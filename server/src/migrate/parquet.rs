//! Parquet files in the layout of Google's Dataflow templates "Cloud Bigtable to Parquet" and
//! "Parquet to Cloud Bigtable".
//!
//! Those templates hold their rows as the same Avro record as the Avro template
//! (`com.google.cloud.teleport.bigtable.BigtableRow`, see [`super::avro`]) and hand it to
//! Beam's `ParquetIO.sink(BigtableRow.getClassSchema())` (DataflowTemplates,
//! `v1/.../bigtable/BigtableToParquet.java`), which writes through parquet-avro's
//! `AvroParquetWriter` with SNAPPY pages (Beam's `ParquetIO.sink` default) and parquet-avro's
//! default `parquet.avro.write-old-list-structure = true`. That last setting decides the
//! physical layout of the `cells` array: the old two-level list, a `LIST`-annotated group
//! whose single repeated child is the cell record itself, named `array`:
//!
//! ```text
//! message com.google.cloud.teleport.bigtable.BigtableRow {
//!   required binary key;
//!   required group cells (LIST) {
//!     repeated group array {
//!       required binary family (STRING);
//!       required binary qualifier;
//!       required int64 timestamp;       (microseconds, no annotation: the Avro
//!       required binary value;           field's logicalType is a field attribute)
//!     }
//!   }
//! }
//! ```
//!
//! We write exactly that ([`SCHEMA`]), SNAPPY-compressed, with the Avro schema in the footer's
//! key-value metadata under `parquet.avro.schema` (and `writer.model.name = avro`) as
//! parquet-avro does, so parquet-avro readers (the import template) take the file as theirs;
//! pyarrow reads the two-level list as `list<array: struct<...>>`.
//!
//! We read that layout and the standard three-level one (`cells (LIST) { repeated group list
//! { element { family; qualifier; timestamp; value } } }`, what pyarrow and newer writers
//! produce), with any of the fields `optional` instead of `required` (a null key, cell or
//! field in the data is an error, an empty or null `cells` a row without cells). The
//! `timestamp` column must be INT64, unannotated or `TIMESTAMP(MICROS)`. Any other schema is
//! refused before a row is written. Codecs: uncompressed and SNAPPY (the templates' and
//! pyarrow's default); a file in another codec is refused with its name. Page checksums are
//! verified where the writer stored them (parquet-mr does by default; we do not write them).
//!
//! Memory is bounded both ways. Writing buffers one row group column by column (each binary
//! column's values back to back in one buffer), flushed as soon as the buffers reach
//! [`ROW_GROUP_BYTES`] (a row larger than that is a row group of its own), a column at a time,
//! so a part of any size costs one row group. Reading decodes a row group's
//! five columns side by side, [`READ_BATCH`] records at a time, page by page from the file.
//! The decoder is the `parquet` crate's, which asserts on some malformed input; such a panic
//! is caught (and kept off stderr) and reported as a corrupt file, never let through.

use std::cell::Cell as Flag;
use std::collections::VecDeque;
use std::fs::File;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};

use parquet::basic::{Compression, ConvertedType, LogicalType, Repetition, TimeUnit, Type as Phys};
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use sparsetable::{Cell, Row};

/// The template's Parquet schema (see the module docs), in the crate's message-type syntax.
pub const SCHEMA: &str = "
message com.google.cloud.teleport.bigtable.BigtableRow {
  required binary key;
  required group cells (LIST) {
    repeated group array {
      required binary family (STRING);
      required binary qualifier;
      required int64 timestamp;
      required binary value;
    }
  }
}";

/// A row group is flushed once its buffers hold this many bytes (values and per-cell
/// bookkeeping): large enough for good columns and compression, small enough that exporting
/// a table of any size stays within a few tens of MB.
pub const ROW_GROUP_BYTES: usize = 16 << 20;

/// Records decoded at a time when reading.
pub const READ_BATCH: usize = 256;

/// What a reader expects, in words, for the refusal message.
const EXPECTED: &str = "the Dataflow template's BigtableRow (key: binary, cells: a list of \
    {family: string, qualifier: binary, timestamp: int64 microseconds, value: binary})";

/// One binary column of the row group being buffered: the values back to back, and where
/// each ends (no allocation per value).
#[derive(Default)]
struct Flat {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl Flat {
    fn push(&mut self, value: &[u8]) {
        self.data.extend_from_slice(value);
        self.ends.push(self.data.len());
    }

    /// The values as the writer takes them: slices of one shared buffer, not copies.
    fn take(&mut self) -> Vec<ByteArray> {
        let data = bytes::Bytes::from(std::mem::take(&mut self.data));
        let mut start = 0;
        std::mem::take(&mut self.ends)
            .into_iter()
            .map(|end| {
                let value = data.slice(start..end).into();
                start = end;
                value
            })
            .collect()
    }
}

/// The row group being buffered, column by column.
#[derive(Default)]
struct Columns {
    key: Flat,
    family: Flat,
    qualifier: Flat,
    timestamp: Vec<i64>,
    value: Flat,
    /// The cells' levels, shared by the four cell columns: a row without cells is one entry
    /// at definition level 0; a cell is at level 1, repetition 0 for a row's first cell and 1
    /// for the others.
    def: Vec<i16>,
    rep: Vec<i16>,
}

impl Columns {
    /// What the buffers hold, in bytes: the values and, per cell, its levels, timestamp and
    /// the four value ends.
    fn bytes(&self) -> usize {
        self.key.data.len()
            + self.family.data.len()
            + self.qualifier.data.len()
            + self.value.data.len()
            + self.key.ends.len() * 8
            + self.def.len() * (2 + 2 + 8 + 3 * 8)
    }
}

/// One part file being written.
pub struct ParquetPart {
    writer: SerializedFileWriter<File>,
    path: PathBuf,
    columns: Columns,
    /// The row group bound, [`ROW_GROUP_BYTES`] but in tests.
    group_bytes: usize,
}

fn failed_at(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

impl ParquetPart {
    /// Creates `path`; the footer (and the schema) is written by [`ParquetPart::finish`].
    ///
    /// # Errors
    /// The file cannot be created.
    pub fn create(path: &Path) -> Result<ParquetPart, String> {
        Self::with_row_groups_of(path, ROW_GROUP_BYTES)
    }

    /// [`ParquetPart::create`] with row groups of `group_bytes`.
    fn with_row_groups_of(path: &Path, group_bytes: usize) -> Result<ParquetPart, String> {
        let file = File::create(path).map_err(|e| format!("creating {}: {e}", path.display()))?;
        let schema = parquet::schema::parser::parse_message_type(SCHEMA)
            .expect("the template's Parquet schema parses");
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_key_value_metadata(Some(vec![
                KeyValue::new(
                    "parquet.avro.schema".to_string(),
                    super::avro::SCHEMA.to_string(),
                ),
                KeyValue::new("writer.model.name".to_string(), "avro".to_string()),
            ]))
            .build();
        let writer = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props))
            .map_err(|e| failed_at(path)(&e))?;
        Ok(ParquetPart {
            writer,
            path: path.to_path_buf(),
            columns: Columns::default(),
            group_bytes,
        })
    }

    /// Appends one row with all its cells (buffered until its row group is full).
    ///
    /// # Errors
    /// A write error.
    pub fn write_row(&mut self, row: &Row) -> Result<(), String> {
        let c = &mut self.columns;
        c.key.push(&row.key);
        if row.cells.is_empty() {
            c.def.push(0);
            c.rep.push(0);
        }
        for (i, cell) in row.cells.iter().enumerate() {
            c.family.push(cell.family.as_bytes());
            c.qualifier.push(&cell.qualifier);
            c.timestamp.push(cell.timestamp_micros);
            c.value.push(&cell.value);
            c.def.push(1);
            c.rep.push(i16::from(i > 0));
        }
        if c.bytes() >= self.group_bytes {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the buffered rows as one row group, a column at a time (each column's buffer
    /// is released as it is written).
    fn flush(&mut self) -> Result<(), String> {
        if self.columns.key.ends.is_empty() {
            return Ok(());
        }
        let mut c = std::mem::take(&mut self.columns);
        let failed = failed_at(&self.path);
        let mut group = self.writer.next_row_group().map_err(|e| failed(&e))?;
        let mut column = 0;
        while let Some(mut writer) = group.next_column().map_err(|e| failed(&e))? {
            let levels = (Some(c.def.as_slice()), Some(c.rep.as_slice()));
            let written = match column {
                0 => writer
                    .typed::<ByteArrayType>()
                    .write_batch(&c.key.take(), None, None),
                3 => writer.typed::<Int64Type>().write_batch(
                    &std::mem::take(&mut c.timestamp),
                    levels.0,
                    levels.1,
                ),
                n => {
                    let values = match n {
                        1 => c.family.take(),
                        2 => c.qualifier.take(),
                        _ => c.value.take(),
                    };
                    writer
                        .typed::<ByteArrayType>()
                        .write_batch(&values, levels.0, levels.1)
                }
            };
            written.map_err(|e| failed(&e))?;
            writer.close().map_err(|e| failed(&e))?;
            column += 1;
        }
        group.close().map_err(|e| failed(&e))?;
        Ok(())
    }

    /// Writes the last row group and the footer, and syncs the file to disk.
    ///
    /// # Errors
    /// A write or sync error.
    pub fn finish(mut self) -> Result<(), String> {
        self.flush()?;
        let failed = failed_at(&self.path);
        let file = self.writer.into_inner().map_err(|e| failed(&e))?;
        file.sync_all().map_err(|e| failed(&e))
    }
}

/// Where the five columns are and how their levels read (see [`layout`]).
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// Leaf indices of key, family, qualifier, timestamp, value.
    columns: [usize; 5],
    /// At or above this definition level a `cells` entry exists.
    entry_def: i16,
    /// At or above this the entry's cell record is not null.
    cell_def: i16,
    /// The maximum definition level of each cell column (a value is present).
    leaf_def: [i16; 4],
}

const CELL_FIELDS: [&str; 4] = ["family", "qualifier", "timestamp", "value"];

fn optional(t: &Type) -> i16 {
    i16::from(t.get_basic_info().repetition() == Repetition::OPTIONAL)
}

fn not_repeated(t: &Type) -> bool {
    !t.get_basic_info().has_repetition() || t.get_basic_info().repetition() != Repetition::REPEATED
}

/// Checks a file's schema is the template's (either list layout) and says how to read it.
fn layout(root: &Type) -> Result<Layout, String> {
    let fields = root.get_fields();
    let field = |name: &str| fields.iter().find(|f| f.name() == name);
    let (Some(key), Some(cells), 2) = (field("key"), field("cells"), fields.len()) else {
        return Err("the top level must be exactly the fields key and cells".into());
    };
    if key.is_group() || key.get_physical_type() != Phys::BYTE_ARRAY || !not_repeated(key) {
        return Err("key must be a single binary".into());
    }
    if !cells.is_group() || !not_repeated(cells) || cells.get_fields().len() != 1 {
        return Err("cells must be a list (a group with one repeated field)".into());
    }
    let entry = &cells.get_fields()[0];
    if !entry.is_group() || entry.get_basic_info().repetition() != Repetition::REPEATED {
        return Err("cells must be a list of records".into());
    }
    let is_cell = |t: &Type| {
        t.is_group()
            && t.get_fields().len() == 4
            && CELL_FIELDS
                .iter()
                .all(|n| t.get_fields().iter().any(|f| f.name() == *n))
    };
    // Two levels: the repeated group is the cell. Three: it wraps one (maybe optional) cell.
    let (cell, element_opt) = if is_cell(entry) {
        (entry.as_ref(), 0)
    } else if entry.get_fields().len() == 1 && is_cell(&entry.get_fields()[0]) {
        let element = &entry.get_fields()[0];
        if !not_repeated(element) {
            return Err("a list element must not be repeated".into());
        }
        (element.as_ref(), optional(element))
    } else {
        return Err(
            "a cell must have exactly the fields family, qualifier, timestamp, value".into(),
        );
    };
    let entry_def = optional(cells) + 1;
    let cell_def = entry_def + element_opt;
    let mut leaf_def = [0; 4];
    for (i, name) in CELL_FIELDS.iter().enumerate() {
        let f = cell
            .get_fields()
            .iter()
            .find(|f| f.name() == *name)
            .expect("is_cell checked the names");
        if f.is_group() || !not_repeated(f) {
            return Err(format!("{name} must be a single value"));
        }
        let info = f.get_basic_info();
        let ok = match (*name, f.get_physical_type()) {
            ("timestamp", Phys::INT64) => match info.logical_type_ref() {
                None => matches!(
                    info.converted_type(),
                    ConvertedType::NONE | ConvertedType::TIMESTAMP_MICROS | ConvertedType::INT_64
                ),
                Some(LogicalType::Timestamp(t)) => matches!(t.unit, TimeUnit::MICROS),
                Some(LogicalType::Integer(i)) => i.bit_width == 64 && i.is_signed,
                Some(_) => false,
            },
            ("timestamp", _) => false,
            (_, Phys::BYTE_ARRAY) => true,
            _ => false,
        };
        if !ok {
            return Err(format!(
                "{name} has the wrong type (timestamp: int64 microseconds, the others binary)"
            ));
        }
        leaf_def[i] = cell_def + optional(f);
    }
    Ok(Layout {
        columns: [0; 5],
        entry_def,
        cell_def,
        leaf_def,
    })
}

/// The readers of one row group's five columns.
struct Group {
    key: ColumnReaderImpl<ByteArrayType>,
    family: ColumnReaderImpl<ByteArrayType>,
    qualifier: ColumnReaderImpl<ByteArrayType>,
    timestamp: ColumnReaderImpl<Int64Type>,
    value: ColumnReaderImpl<ByteArrayType>,
}

/// One cell column's decoded batch.
#[derive(Default)]
struct Levels<T> {
    def: Vec<i16>,
    rep: Vec<i16>,
    values: Vec<T>,
}

impl<T> Levels<T> {
    fn clear(&mut self) {
        self.def.clear();
        self.rep.clear();
        self.values.clear();
    }
}

/// The rows of one Parquet file, a row at a time.
pub struct ParquetRows {
    reader: SerializedFileReader<File>,
    layout: Layout,
    path: PathBuf,
    /// The next row group to open.
    next_group: usize,
    group: Option<Group>,
    ready: VecDeque<Row>,
    /// Rows returned so far (for messages).
    record: u64,
    /// Decoding failed (an error or a caught panic): the reader is not used again, its
    /// column readers being in an unknown state.
    poisoned: bool,
}

thread_local! {
    /// Set while this thread runs the decoder under [`guarded`].
    static DECODING: Flag<bool> = const { Flag::new(false) };
}

/// Runs `f`, turning a panic of the decoder into an error. The crate asserts on some malformed
/// input (a short buffer, an impossible length); while `f` runs, such a panic is not printed
/// as if the program had crashed (a panic hook installed once, passing every other panic on
/// to the hook it replaced), and comes back as an `Err` naming it.
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !DECODING.with(Flag::get) {
                previous(info);
            }
        }));
    });
    DECODING.with(|d| d.set(true));
    let outcome = catch_unwind(AssertUnwindSafe(f));
    DECODING.with(|d| d.set(false));
    outcome.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no message");
        Err(format!("corrupt Parquet data (the decoder failed: {what})"))
    })
}

impl ParquetRows {
    /// Opens `path`, reads its footer and checks its schema is the template's.
    ///
    /// # Errors
    /// The file cannot be opened, is not Parquet, or has another schema.
    pub fn open(path: &Path) -> Result<ParquetRows, String> {
        let file = File::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?;
        let reader = guarded(|| SerializedFileReader::new(file).map_err(|e| e.to_string()))
            .map_err(|e| format!("{}: not a readable Parquet file: {e}", path.display()))?;
        let descr = reader.metadata().file_metadata().schema_descr_ptr();
        let mut layout = layout(descr.root_schema()).map_err(|why| {
            let mut printed = Vec::new();
            parquet::schema::printer::print_schema(&mut printed, descr.root_schema());
            format!(
                "{}: the schema is not {EXPECTED}: {why}; the file has {}",
                path.display(),
                String::from_utf8_lossy(&printed).trim()
            )
        })?;
        // A codec this build cannot decompress is refused before any row, by name.
        for group in reader.metadata().row_groups() {
            for column in group.columns() {
                let codec = column.compression();
                if !matches!(codec, Compression::UNCOMPRESSED | Compression::SNAPPY) {
                    return Err(format!(
                        "{}: column {} is compressed with {codec}, which is not read here \
                         (uncompressed and SNAPPY, the templates' default, are)",
                        path.display(),
                        column.column_path()
                    ));
                }
            }
        }
        // The leaves in schema order are key and the four cell fields; find each by its
        // last path element (the schema was checked, so each name is there once).
        for (i, column) in descr.columns().iter().enumerate() {
            let parts = column.path().parts();
            let slot = match (parts.len(), parts.last().map(String::as_str)) {
                (1, Some("key")) => 0,
                (_, Some(name)) => 1 + CELL_FIELDS.iter().position(|n| *n == name).unwrap_or(0),
                _ => 0,
            };
            layout.columns[slot] = i;
        }
        Ok(ParquetRows {
            reader,
            layout,
            path: path.to_path_buf(),
            next_group: 0,
            group: None,
            ready: VecDeque::new(),
            record: 0,
            poisoned: false,
        })
    }

    /// The next row, `None` at the end of the file.
    ///
    /// # Errors
    /// Corrupt data (named by the row's index in the file).
    pub fn next_row(&mut self) -> Result<Option<Row>, String> {
        if self.ready.is_empty() {
            if self.poisoned {
                return Err(format!(
                    "{}: unreadable after an earlier error",
                    self.path.display()
                ));
            }
            let at = self.record;
            if let Err(e) = guarded(|| self.fill()) {
                self.poisoned = true;
                return Err(format!("{}: at row {at}: {e}", self.path.display()));
            }
        }
        let row = self.ready.pop_front();
        self.record += u64::from(row.is_some());
        Ok(row)
    }

    /// Decodes the next batch of rows into `ready`; leaves it empty at the end of the file.
    fn fill(&mut self) -> Result<(), String> {
        loop {
            if self.group.is_none() {
                if self.next_group >= self.reader.num_row_groups() {
                    return Ok(());
                }
                self.group = Some(self.open_group(self.next_group)?);
                self.next_group += 1;
            }
            let group = self.group.as_mut().expect("a group is open");
            let mut keys = Levels::<ByteArray>::default();
            let (records, values, _) = group
                .key
                .read_records(READ_BATCH, Some(&mut keys.def), None, &mut keys.values)
                .map_err(|e| e.to_string())?;
            if records == 0 {
                self.group = None;
                continue;
            }
            if values != records {
                return Err("a row without a key".into());
            }
            let mut bytes: [Levels<ByteArray>; 3] = Default::default();
            let mut times = Levels::<i64>::default();
            let readers = [&mut group.family, &mut group.qualifier, &mut group.value];
            for (reader, out) in readers.into_iter().zip(bytes.iter_mut()) {
                out.clear();
                let (n, _, _) = reader
                    .read_records(
                        records,
                        Some(&mut out.def),
                        Some(&mut out.rep),
                        &mut out.values,
                    )
                    .map_err(|e| e.to_string())?;
                if n != records {
                    return Err(format!(
                        "the cell columns hold {n} rows, the keys {records}"
                    ));
                }
            }
            let (n, _, _) = group
                .timestamp
                .read_records(
                    records,
                    Some(&mut times.def),
                    Some(&mut times.rep),
                    &mut times.values,
                )
                .map_err(|e| e.to_string())?;
            if n != records {
                return Err(format!(
                    "the timestamp column holds {n} rows, the keys {records}"
                ));
            }
            let [family, qualifier, value] = bytes;
            self.assemble(keys.values, [&family, &qualifier, &value], &times)?;
            return Ok(());
        }
    }

    fn open_group(&self, index: usize) -> Result<Group, String> {
        let group = self
            .reader
            .get_row_group(index)
            .map_err(|e| e.to_string())?;
        let column = |slot: usize| {
            group
                .get_column_reader(self.layout.columns[slot])
                .map_err(|e| e.to_string())
        };
        let bytes = |c: ColumnReader| match c {
            ColumnReader::ByteArrayColumnReader(r) => Ok(r),
            _ => Err("a binary column of another type".to_string()),
        };
        let timestamp = match column(3)? {
            ColumnReader::Int64ColumnReader(r) => r,
            _ => return Err("the timestamp column is not int64".into()),
        };
        Ok(Group {
            key: bytes(column(0)?)?,
            family: bytes(column(1)?)?,
            qualifier: bytes(column(2)?)?,
            timestamp,
            value: bytes(column(4)?)?,
        })
    }

    /// Builds the batch's rows from the key values and the four cell columns' levels.
    fn assemble(
        &mut self,
        keys: Vec<ByteArray>,
        bytes: [&Levels<ByteArray>; 3],
        times: &Levels<i64>,
    ) -> Result<(), String> {
        let l = self.layout;
        let levels = times.def.len();
        if bytes
            .iter()
            .any(|b| b.def.len() != levels || b.rep != times.rep)
        {
            return Err("the cell columns disagree on the cells' structure".into());
        }
        // Cursors into each column's non-null values: family, qualifier, value, timestamp.
        let mut next = [0usize; 4];
        let mut rows: Vec<Row> = Vec::with_capacity(keys.len());
        let mut keys = keys.into_iter();
        for j in 0..levels {
            if times.rep[j] == 0 {
                let key = keys.next().ok_or("more rows of cells than keys")?;
                rows.push(Row {
                    key: key.data().to_vec(),
                    cells: Vec::new(),
                });
            }
            let row = rows.last_mut().ok_or("a cell before the first row")?;
            let defs = [
                bytes[0].def[j],
                bytes[1].def[j],
                bytes[2].def[j],
                times.def[j],
            ];
            if defs.iter().any(|d| *d < l.entry_def) {
                if defs.iter().any(|d| *d >= l.entry_def) || times.rep[j] != 0 {
                    return Err("the cell columns disagree on the cells' structure".into());
                }
                continue; // an empty (or null) list of cells
            }
            if defs.iter().any(|d| *d < l.cell_def) {
                return Err("a null cell".into());
            }
            // leaf_def order is family, qualifier, timestamp, value.
            let max = [l.leaf_def[0], l.leaf_def[1], l.leaf_def[3], l.leaf_def[2]];
            for (k, name) in ["family", "qualifier", "value", "timestamp"]
                .iter()
                .enumerate()
            {
                if defs[k] != max[k] {
                    return Err(format!("a cell with a null {name}"));
                }
            }
            let take = |k: usize, next: &mut [usize; 4]| {
                let v = bytes[k]
                    .values
                    .get(next[k])
                    .ok_or("fewer values than levels");
                next[k] += 1;
                v
            };
            let family = take(0, &mut next)?;
            let qualifier = take(1, &mut next)?.data().to_vec();
            let value = take(2, &mut next)?.data().to_vec();
            let timestamp = *times
                .values
                .get(next[3])
                .ok_or("fewer values than levels")?;
            next[3] += 1;
            row.cells.push(Cell {
                family: String::from_utf8(family.data().to_vec())
                    .map_err(|_| "a family name that is not UTF-8")?,
                qualifier,
                timestamp_micros: timestamp,
                value,
                labels: Vec::new(),
            });
        }
        if keys.next().is_some() {
            return Err("more keys than rows of cells".into());
        }
        self.ready.extend(rows);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("sparsetable-parquet-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    }

    fn cell(f: &str, q: &[u8], ts: i64, v: &[u8]) -> Cell {
        Cell {
            family: f.into(),
            qualifier: q.to_vec(),
            timestamp_micros: ts,
            value: v.to_vec(),
            labels: Vec::new(),
        }
    }

    fn read_all(path: &Path) -> Result<Vec<Row>, String> {
        let mut r = ParquetRows::open(path)?;
        let mut rows = Vec::new();
        while let Some(row) = r.next_row()? {
            rows.push(row);
        }
        Ok(rows)
    }

    #[test]
    fn rows_round_trip_across_row_groups_and_batches() {
        let d = dir("roundtrip");
        let path = d.join("t.parquet");
        let big = vec![7u8; 4000];
        let mut rows = vec![
            Row {
                key: b"\x00a".to_vec(),
                cells: vec![
                    cell("cf", b"q", 3, b"\xff"),
                    cell("cf", b"q", 2, b""),
                    cell("x.y", b"", 1, b"v"),
                ],
            },
            Row {
                key: b"b".to_vec(),
                cells: vec![],
            },
        ];
        // Rows large enough for several row groups, and more rows than one read batch.
        for i in 0..4 {
            rows.push(Row {
                key: format!("big{i}").into_bytes(),
                cells: vec![cell("cf", b"big", i, &big)],
            });
        }
        for i in 0..(READ_BATCH * 2 + 5) {
            rows.push(Row {
                key: format!("r{i:05}").into_bytes(),
                cells: vec![cell("cf", b"n", i as i64, format!("{i}").as_bytes())],
            });
        }
        let mut part = ParquetPart::with_row_groups_of(&path, 10_000).expect("create");
        for row in &rows {
            part.write_row(row).expect("write");
        }
        part.finish().expect("finish");
        let reader = SerializedFileReader::new(File::open(&path).expect("open")).expect("parquet");
        assert!(reader.num_row_groups() >= 2, "{}", reader.num_row_groups());
        assert_eq!(read_all(&path).expect("read"), rows);
    }

    #[test]
    fn an_empty_part_has_the_schema_and_no_rows() {
        let d = dir("empty");
        let path = d.join("e.parquet");
        ParquetPart::create(&path)
            .expect("create")
            .finish()
            .expect("finish");
        assert_eq!(read_all(&path).expect("read"), Vec::<Row>::new());
    }

    #[test]
    fn damaged_files_are_errors_never_panics() {
        let d = dir("damaged");
        let path = d.join("t.parquet");
        let mut part = ParquetPart::create(&path).expect("create");
        for i in 0..50 {
            part.write_row(&Row {
                key: format!("k{i}").into_bytes(),
                cells: vec![cell("cf", b"q", i, b"value value value")],
            })
            .expect("write");
        }
        part.finish().expect("finish");
        let whole = std::fs::read(&path).expect("read");
        let bad = d.join("bad.parquet");
        // Every truncation, and a byte flipped at every offset: each read ends in rows or a
        // clean error (a flipped data byte may go unnoticed: our pages carry no checksum).
        for cut in 0..whole.len() {
            std::fs::write(&bad, &whole[..cut]).expect("write");
            assert!(read_all(&bad).is_err(), "a file cut at {cut} read");
        }
        for at in 0..whole.len() {
            let mut flipped = whole.clone();
            flipped[at] ^= 0x5a;
            std::fs::write(&bad, &flipped).expect("write");
            let _ = read_all(&bad);
        }
        std::fs::write(&bad, b"PAR1 not really").expect("write");
        let e = read_all(&bad).expect_err("garbage");
        assert!(e.contains("not a readable Parquet file"), "{e}");
    }

    #[test]
    fn another_schema_is_refused_by_name() {
        let d = dir("schema");
        let path = d.join("o.parquet");
        let schema = parquet::schema::parser::parse_message_type(
            "message m { required binary key; required int32 n; }",
        )
        .expect("schema");
        let file = File::create(&path).expect("create");
        let w = SerializedFileWriter::new(file, Arc::new(schema), Default::default()).expect("w");
        w.close().expect("close");
        let e = read_all(&path).expect_err("refused");
        assert!(
            e.contains("the schema is not the Dataflow template's BigtableRow"),
            "{e}"
        );
    }
}
