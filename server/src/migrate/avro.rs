//! Avro object container files in the layout of Google's Dataflow templates "Cloud Bigtable
//! to Avro" and "Avro to Cloud Bigtable": one record per row,
//!
//! ```text
//! record com.google.cloud.teleport.bigtable.BigtableRow {
//!   key:   bytes
//!   cells: array of record BigtableCell {
//!     family: string, qualifier: bytes,
//!     timestamp: long (microseconds; the field carries logicalType timestamp-micros),
//!     value: bytes } }
//! ```
//!
//! (the template's `bigtable.avsc`; [`SCHEMA`] is our own spelling of it). Every cell of the
//! row is listed, all versions, in the order the read returns them. We write the `deflate` or
//! `null` codec; we read any codec Dataflow writes (`null`, `deflate`, `snappy`).
//!
//! A file is accepted when its writer schema has the template's Parsing Canonical Form (the
//! Avro spec's form that keeps names and types and drops docs, defaults and attributes such
//! as `logicalType`), so a file written by any Avro library with the template's schema reads,
//! and any other schema is refused before a row is written. Reading is streaming: the
//! container is decoded block by block, a record at a time.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use apache_avro::types::Value;
use apache_avro::{Codec, DeflateSettings, Schema};
use sparsetable::{Cell, Row};

/// The template's schema (see the module docs), in our own words.
pub const SCHEMA: &str = r#"{
  "type": "record",
  "name": "BigtableRow",
  "namespace": "com.google.cloud.teleport.bigtable",
  "fields": [
    {"name": "key", "type": "bytes"},
    {"name": "cells", "type": {
      "type": "array",
      "items": {
        "type": "record",
        "name": "BigtableCell",
        "fields": [
          {"name": "family", "type": "string"},
          {"name": "qualifier", "type": "bytes"},
          {"name": "timestamp", "type": "long", "logicalType": "timestamp-micros"},
          {"name": "value", "type": "bytes"}
        ]
      }
    }}
  ]
}"#;

/// [`SCHEMA`], parsed once.
fn schema() -> &'static Schema {
    static PARSED: OnceLock<Schema> = OnceLock::new();
    PARSED.get_or_init(|| Schema::parse_str(SCHEMA).expect("the template's schema parses"))
}

/// The compression of the data blocks we write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AvroCodec {
    /// Uncompressed.
    Null,
    /// Raw deflate (RFC 1951) at the default level.
    Deflate,
}

impl AvroCodec {
    /// The codec's name in the container header (`--codec`).
    pub fn name(self) -> &'static str {
        match self {
            AvroCodec::Null => "null",
            AvroCodec::Deflate => "deflate",
        }
    }
}

/// One part file being written.
pub struct AvroPart {
    writer: apache_avro::Writer<'static, BufWriter<File>>,
    path: PathBuf,
}

impl AvroPart {
    /// Creates `path` and writes the container header.
    ///
    /// # Errors
    /// The file cannot be created.
    pub fn create(path: &Path, codec: AvroCodec) -> Result<AvroPart, String> {
        let file = File::create(path).map_err(|e| format!("creating {}: {e}", path.display()))?;
        let codec = match codec {
            AvroCodec::Null => Codec::Null,
            AvroCodec::Deflate => Codec::Deflate(DeflateSettings::default()),
        };
        let writer = apache_avro::Writer::with_codec(schema(), BufWriter::new(file), codec)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(AvroPart {
            writer,
            path: path.to_path_buf(),
        })
    }

    /// Appends one row with all its cells.
    ///
    /// # Errors
    /// A write error.
    pub fn write_row(&mut self, row: &Row) -> Result<(), String> {
        let cells = row
            .cells
            .iter()
            .map(|c| {
                Value::Record(vec![
                    ("family".into(), Value::String(c.family.clone())),
                    ("qualifier".into(), Value::Bytes(c.qualifier.clone())),
                    ("timestamp".into(), Value::Long(c.timestamp_micros)),
                    ("value".into(), Value::Bytes(c.value.clone())),
                ])
            })
            .collect();
        let record = Value::Record(vec![
            ("key".into(), Value::Bytes(row.key.clone())),
            ("cells".into(), Value::Array(cells)),
        ]);
        self.writer
            .append_value_ref(&record)
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        Ok(())
    }

    /// Writes the last block and syncs the file to disk.
    ///
    /// # Errors
    /// A write or sync error.
    pub fn finish(self) -> Result<(), String> {
        let path = self.path;
        let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let mut out = self.writer.into_inner().map_err(|e| failed(&e))?;
        out.flush().map_err(|e| failed(&e))?;
        let file = out.into_inner().map_err(|e| failed(&e.error()))?;
        file.sync_all().map_err(|e| failed(&e))
    }
}

/// The rows of one Avro file, a record at a time.
pub struct AvroRows {
    reader: apache_avro::Reader<'static, BufReader<File>>,
    path: PathBuf,
    record: u64,
}

impl AvroRows {
    /// Opens `path` and checks its schema is the template's.
    ///
    /// # Errors
    /// The file cannot be opened, is not an Avro container, or has another schema.
    pub fn open(path: &Path) -> Result<AvroRows, String> {
        let file = File::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?;
        let reader = apache_avro::Reader::new(BufReader::new(file))
            .map_err(|e| format!("{}: not an Avro data file: {e}", path.display()))?;
        let found = reader.writer_schema().canonical_form();
        if found != schema().canonical_form() {
            return Err(format!(
                "{}: the schema is not the Dataflow template's BigtableRow (key: bytes, cells: \
                 array of BigtableCell {{family: string, qualifier: bytes, timestamp: long, \
                 value: bytes}}); the file has {found}",
                path.display()
            ));
        }
        Ok(AvroRows {
            reader,
            path: path.to_path_buf(),
            record: 0,
        })
    }

    /// The next row, `None` at the end of the file.
    ///
    /// # Errors
    /// A corrupt block or record (named by its index in the file).
    pub fn next_row(&mut self) -> Result<Option<Row>, String> {
        let Some(value) = self.reader.next() else {
            return Ok(None);
        };
        let at = || format!("{}: record {}", self.path.display(), self.record);
        let value = value.map_err(|e| format!("{}: {e}", at()))?;
        let row = row_of(value).map_err(|e| format!("{}: {e}", at()))?;
        self.record += 1;
        Ok(Some(row))
    }
}

/// A decoded BigtableRow record as a row. The schema was checked, so a mismatch here is a
/// corrupt file, reported, never a panic.
fn row_of(value: Value) -> Result<Row, String> {
    let Value::Record(fields) = value else {
        return Err("not a record".into());
    };
    let mut key = None;
    let mut cells = Vec::new();
    for (name, value) in fields {
        match (name.as_str(), value) {
            ("key", Value::Bytes(k)) => key = Some(k),
            ("cells", Value::Array(items)) => {
                for item in items {
                    cells.push(cell_of(item)?);
                }
            }
            (name, _) => return Err(format!("unexpected field {name:?}")),
        }
    }
    Ok(Row {
        key: key.ok_or("no key")?,
        cells,
    })
}

fn cell_of(value: Value) -> Result<Cell, String> {
    let Value::Record(fields) = value else {
        return Err("a cell that is not a record".into());
    };
    let (mut family, mut qualifier, mut timestamp, mut val) = (None, None, None, None);
    for (name, value) in fields {
        match (name.as_str(), value) {
            ("family", Value::String(f)) => family = Some(f),
            ("qualifier", Value::Bytes(q)) => qualifier = Some(q),
            ("timestamp", Value::Long(t) | Value::TimestampMicros(t)) => timestamp = Some(t),
            ("value", Value::Bytes(v)) => val = Some(v),
            (name, _) => return Err(format!("unexpected cell field {name:?}")),
        }
    }
    Ok(Cell {
        family: family.ok_or("a cell without a family")?,
        qualifier: qualifier.ok_or("a cell without a qualifier")?,
        timestamp_micros: timestamp.ok_or("a cell without a timestamp")?,
        value: val.ok_or("a cell without a value")?,
        labels: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_the_templates_canonical_form() {
        // The Parsing Canonical Form of the template's bigtable.avsc, written out by hand
        // from the Avro specification's rules.
        assert_eq!(
            schema().canonical_form(),
            r#"{"name":"com.google.cloud.teleport.bigtable.BigtableRow","type":"record","fields":[{"name":"key","type":"bytes"},{"name":"cells","type":{"type":"array","items":{"name":"com.google.cloud.teleport.bigtable.BigtableCell","type":"record","fields":[{"name":"family","type":"string"},{"name":"qualifier","type":"bytes"},{"name":"timestamp","type":"long"},{"name":"value","type":"bytes"}]}}}]}"#
        );
    }
}
