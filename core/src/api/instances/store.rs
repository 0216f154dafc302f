//! The `INSTANCE` file on disk (std only): reading it from an instance's folder and
//! replacing it atomically, for every front-end that keeps instances in a directory (the
//! server's `--data-dir`, the Python and Kotlin bindings' `path=`), so they share one file
//! and one way of writing it (docs/format/instance.md, "Replacing it atomically").
//!
//! Invariants: the file is never edited in place. [`replace_file`] writes
//! `INSTANCE.tmp`, syncs it, renames it over `INSTANCE` and syncs the folder before it
//! returns, so a crash leaves the old file or the new one, never a mix; a failed write
//! leaves the old file. [`read_file`] never panics: a damaged file is `DataLoss` (from
//! [`super::file::decode_file`]), a file that cannot be read is `Unavailable`, and no file
//! is `None`. Version-1 files (the server's protobuf form) are the server's to read; here
//! they are `DataLoss` saying so.

use std::io::Write;
use std::path::Path;
use std::string::ToString;
use std::vec::Vec;

use super::file::{decode_file, encode_file, StoredInstance, INSTANCE_FILE};
use super::record::InstanceRecord;
use crate::{Code, Error, Result};

/// The temporary name a new file is written under before it replaces the old one (readers
/// ignore it).
pub const INSTANCE_TMP_FILE: &str = "INSTANCE.tmp";

fn unavailable(what: &str, path: &Path, e: &std::io::Error) -> Error {
    Error::new(
        Code::Unavailable,
        alloc::format!("{what} {}: {e}", path.display()),
    )
}

/// The raw bytes of `folder`'s `INSTANCE` file; `None` if there is none.
///
/// # Errors
/// `Unavailable` when the file exists but cannot be read.
pub fn read_bytes(folder: &Path) -> Result<Option<Vec<u8>>> {
    let path = folder.join(INSTANCE_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(unavailable("reading", &path, &e)),
    }
}

/// The instance stored in `folder` (record and extension); `None` if the folder has no
/// `INSTANCE` file.
///
/// # Errors
/// `DataLoss` for a damaged or version-1 file, naming the file; `Unavailable` when it
/// cannot be read.
pub fn read_file(folder: &Path) -> Result<Option<StoredInstance>> {
    let Some(bytes) = read_bytes(folder)? else {
        return Ok(None);
    };
    decode_file(&bytes).map(Some).map_err(|e| {
        Error::new(
            e.code(),
            alloc::format!("{}: {}", folder.join(INSTANCE_FILE).display(), e.message()),
        )
    })
}

/// Replaces `folder`'s `INSTANCE` file with `bytes` atomically (see the module docs),
/// creating the folder if needed.
///
/// # Errors
/// `Unavailable` when a step fails (the old file is then still in place).
pub fn replace_bytes(folder: &Path, bytes: &[u8]) -> Result<()> {
    let path = folder.join(INSTANCE_FILE);
    let io = |e: std::io::Error| unavailable("writing", &path, &e);
    std::fs::create_dir_all(folder).map_err(io)?;
    let tmp = folder.join(INSTANCE_TMP_FILE);
    {
        let mut file = std::fs::File::create(&tmp).map_err(io)?;
        file.write_all(bytes).map_err(io)?;
        file.sync_all().map_err(io)?;
    }
    std::fs::rename(&tmp, &path).map_err(io)?;
    sync_folder(folder).map_err(io)
}

/// Replaces `folder`'s `INSTANCE` file with `record` and `extension` atomically (in the
/// lowest version that holds the record, [`encode_file`]).
///
/// # Errors
/// As [`replace_bytes`].
pub fn replace_file(folder: &Path, record: &InstanceRecord, extension: &[u8]) -> Result<()> {
    replace_bytes(folder, &encode_file(record, extension))
}

/// Removes `folder`'s `INSTANCE` file (an instance deleted while its data folder stays);
/// nothing to do if there is none.
///
/// # Errors
/// `Unavailable` when it cannot be removed.
pub fn remove_file(folder: &Path) -> Result<()> {
    let path = folder.join(INSTANCE_FILE);
    match std::fs::remove_file(&path) {
        Ok(()) => sync_folder(folder).map_err(|e| unavailable("removing", &path, &e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(unavailable("removing", &path, &e)),
    }
}

/// The instances stored under `project_folder` (`ROOT/{project}`): each subfolder with an
/// `INSTANCE` file, by folder name. Folders without one (instances nobody created, or
/// other files) are skipped.
///
/// # Errors
/// As [`read_file`], for the first damaged file; `Unavailable` when the folder cannot be
/// listed (a missing folder is an empty list).
pub fn read_project(project_folder: &Path) -> Result<Vec<(std::string::String, StoredInstance)>> {
    let entries = match std::fs::read_dir(project_folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(unavailable("listing", project_folder, &e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| unavailable("listing", project_folder, &e))?;
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        if let Some(stored) = read_file(&path)? {
            out.push((entry.file_name().to_string_lossy().to_string(), stored));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Makes a rename or removal in `folder` durable (a no-op where folders cannot be opened,
/// as on Windows).
fn sync_folder(folder: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::fs::File::open(folder)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = folder;
        Ok(())
    }
}
