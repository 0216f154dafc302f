//! Part files and the progress files that make an export or import resumable.
//!
//! An export of table `T` writes `DIR/T-00000.EXT`, `DIR/T-00001.EXT`, ... (`EXT` is `avro`
//! or `csv`), each holding `--part-rows` rows in key order; a part is written as
//! `NAME.partial` and renamed when complete and synced. When the whole table is done the
//! parts are renamed `T-00000-of-00003.EXT` ... as Dataflow names its shards, so a finished
//! export is recognisable by its names alone.
//!
//! `DIR/T.progress` records the export: the options it runs with, and per completed part its
//! row count and last row key. A part is recorded only after its file is complete, synced
//! and renamed, and the record itself is written to a temporary file, synced and renamed
//! over the old one, so after a crash the progress file names exactly the parts that are
//! whole. `--resume` deletes what it does not name and reads on strictly after the last
//! recorded key: no row is written twice or lost.
//!
//! An import's progress file (`--progress`, by default `T.import-progress` beside the input)
//! records, per input file, how many records have been applied (a batch is recorded after
//! the target acknowledged it durably) and whether the file is done; `--resume` skips what
//! it records.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Part `index` of table `prefix` while the export runs.
pub fn part_name(prefix: &str, index: u32, ext: &str) -> String {
    format!("{prefix}-{index:05}.{ext}")
}

/// Part `index` of `count` once the export is complete.
pub fn final_name(prefix: &str, index: u32, count: u32, ext: &str) -> String {
    format!("{prefix}-{index:05}-of-{count:05}.{ext}")
}

/// Writes `text` to `path` atomically: a synced temporary file renamed over it.
///
/// # Errors
/// A write, sync or rename error.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let failed = |e: std::io::Error| format!("writing {}: {e}", path.display());
    let mut file = fs::File::create(&tmp).map_err(failed)?;
    file.write_all(text.as_bytes()).map_err(failed)?;
    file.sync_all().map_err(failed)?;
    fs::rename(&tmp, path).map_err(failed)?;
    if let Some(dir) = path.parent() {
        // The rename is durable once the directory is synced (best effort where the file
        // system cannot sync a directory).
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// One completed export part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DonePart {
    /// Rows in the part.
    pub rows: u64,
    /// Its last row key: the next part starts strictly after it.
    pub last_key: Vec<u8>,
}

/// An export's progress file (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportProgress {
    /// The options the export runs with; a resume must run with the same.
    pub options: String,
    /// The completed parts, in order.
    pub parts: Vec<DonePart>,
    /// Every row has been written and the parts renamed with their count.
    pub complete: bool,
}

const EXPORT_HEADER: &str = "sparsetable-server export progress 1";
const IMPORT_HEADER: &str = "sparsetable-server import progress 1";

impl ExportProgress {
    /// A fresh export with `options`.
    pub fn new(options: String) -> Self {
        ExportProgress {
            options,
            parts: Vec::new(),
            complete: false,
        }
    }

    /// The file's text.
    pub fn render(&self) -> String {
        let mut out = format!("{EXPORT_HEADER}\noptions {}\n", self.options);
        for (i, p) in self.parts.iter().enumerate() {
            out.push_str(&format!("part {i} {} {}\n", p.rows, hex(&p.last_key)));
        }
        if self.complete {
            out.push_str(&format!("complete {}\n", self.parts.len()));
        }
        out
    }

    /// Reads a progress file's text.
    ///
    /// # Errors
    /// A file that is not one of ours, or damaged.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = text.lines();
        if lines.next() != Some(EXPORT_HEADER) {
            return Err("not an export progress file".into());
        }
        let options = lines
            .next()
            .and_then(|l| l.strip_prefix("options "))
            .ok_or("no options line")?
            .to_string();
        let mut progress = ExportProgress::new(options);
        for line in lines {
            let words: Vec<&str> = line.split(' ').collect();
            match words.as_slice() {
                ["part", index, rows, key] if index.parse() == Ok(progress.parts.len()) => {
                    progress.parts.push(DonePart {
                        rows: rows.parse().map_err(|_| format!("bad line {line:?}"))?,
                        last_key: unhex(key).ok_or_else(|| format!("bad line {line:?}"))?,
                    })
                }
                ["complete", n] if n.parse() == Ok(progress.parts.len()) => {
                    progress.complete = true
                }
                _ => return Err(format!("bad line {line:?}")),
            }
        }
        Ok(progress)
    }
}

/// How far an import got in one input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProgress {
    /// The file's name (within the input directory).
    pub name: String,
    /// Records applied from its start.
    pub records: u64,
    /// Every record is applied.
    pub done: bool,
}

/// An import's progress file (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportProgress {
    /// The options the import runs with; a resume must run with the same.
    pub options: String,
    /// The files begun, in order.
    pub files: Vec<FileProgress>,
}

impl ImportProgress {
    /// The file's text.
    pub fn render(&self) -> String {
        let mut out = format!("{IMPORT_HEADER}\noptions {}\n", self.options);
        for f in &self.files {
            out.push_str(&format!(
                "file {} {} {}\n",
                if f.done { "done" } else { "at" },
                f.records,
                hex(f.name.as_bytes())
            ));
        }
        out
    }

    /// Reads a progress file's text.
    ///
    /// # Errors
    /// A file that is not one of ours, or damaged.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut lines = text.lines();
        if lines.next() != Some(IMPORT_HEADER) {
            return Err("not an import progress file".into());
        }
        let options = lines
            .next()
            .and_then(|l| l.strip_prefix("options "))
            .ok_or("no options line")?
            .to_string();
        let mut files = Vec::new();
        for line in lines {
            let bad = || format!("bad line {line:?}");
            let words: Vec<&str> = line.split(' ').collect();
            let ["file", state @ ("done" | "at"), records, name] = words.as_slice() else {
                return Err(bad());
            };
            files.push(FileProgress {
                name: String::from_utf8(unhex(name).ok_or_else(bad)?).map_err(|_| bad())?,
                records: records.parse().map_err(|_| bad())?,
                done: *state == "done",
            });
        }
        Ok(ImportProgress { options, files })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_files_read_back() {
        let mut p = ExportProgress::new("table=t format=avro".into());
        p.parts.push(DonePart {
            rows: 10,
            last_key: b"k\x00\xff".to_vec(),
        });
        p.parts.push(DonePart {
            rows: 3,
            last_key: b"z".to_vec(),
        });
        assert_eq!(ExportProgress::parse(&p.render()), Ok(p.clone()));
        p.complete = true;
        assert_eq!(ExportProgress::parse(&p.render()), Ok(p));
        assert!(ExportProgress::parse("garbage").is_err());
        assert!(
            ExportProgress::parse(&format!("{EXPORT_HEADER}\noptions x\npart 1 2 aa\n")).is_err()
        );

        let i = ImportProgress {
            options: "table=t".into(),
            files: vec![
                FileProgress {
                    name: "t-00000-of-00002.avro".into(),
                    records: 7,
                    done: true,
                },
                FileProgress {
                    name: "with space.csv".into(),
                    records: 2,
                    done: false,
                },
            ],
        };
        assert_eq!(ImportProgress::parse(&i.render()), Ok(i));
        assert_eq!(
            (part_name("t", 3, "avro"), final_name("t", 3, 12, "csv")),
            (
                "t-00003.avro".to_string(),
                "t-00003-of-00012.csv".to_string()
            )
        );
    }
}
