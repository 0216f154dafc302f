//! The core's `Storage` interface over a JavaScript object, so a database can persist wherever
//! JavaScript can write synchronously: the real filesystem in Node (`node:fs`), or the
//! Origin Private File System's sync access handles inside a browser Worker.
//!
//! The JS object (`SyncStorage` in the TypeScript declarations) has synchronous methods over
//! a flat namespace of named files: `create(name)` (empty, replacing), `append(name, bytes)`,
//! `sync(name)`, `size(name)`, `read(name, offset, length)`, `rename(from, to)`,
//! `remove(name)`, `list()`, `syncDir()`. They keep the core's storage contract
//! (`core/src/platform/storage.rs`): appended bytes are readable once `append` returned and
//! durable once `sync` returned; `rename` replaces atomically.
//!
//! Errors: an exception whose `code` is `ENOENT` or whose `name` is `NotFoundError` is
//! `NotFound`; `EROFS`/`EACCES`/`EPERM` (or `NoModificationAllowedError`) are
//! `FailedPrecondition`; anything else is `Unavailable` (retryable), as the contract asks.
//!
//! Why `Send`/`Sync` are asserted: the core's traits require them for its threaded builds,
//! and a `JsValue` is neither. This crate is built for `wasm32-unknown-unknown` without the
//! atomics feature, where there is exactly one thread, so no value ever crosses threads.

use std::sync::Arc;

use js_sys::{Array, Function, Reflect, Uint8Array};
use sparsetable::platform::storage::{RandomAccessFile, Storage, WritableFile};
use sparsetable::{Code, Error, Result};
use wasm_bindgen::{JsCast, JsValue};

/// The JS storage object and its methods, looked up once.
struct Js {
    target: JsValue,
    create: Function,
    append: Function,
    sync: Function,
    size: Function,
    read: Function,
    rename: Function,
    remove: Function,
    list: Function,
    sync_dir: Function,
}

// SAFETY: see the module documentation: single-threaded wasm, nothing crosses threads.
unsafe impl Send for Js {}
// SAFETY: as above.
unsafe impl Sync for Js {}

/// A `Storage` backed by a JavaScript `SyncStorage` object.
#[derive(Clone)]
pub struct JsStorage(Arc<Js>);

impl JsStorage {
    /// Wraps `target`, checking it has every method.
    ///
    /// # Errors
    /// `InvalidArgument` naming a missing method.
    pub fn new(target: JsValue) -> Result<Self> {
        let method = |name: &str| -> Result<Function> {
            Reflect::get(&target, &name.into())
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok())
                .ok_or_else(|| Error::invalid_argument(format!("storage: missing method {name}()")))
        };
        Ok(JsStorage(Arc::new(Js {
            create: method("create")?,
            append: method("append")?,
            sync: method("sync")?,
            size: method("size")?,
            read: method("read")?,
            rename: method("rename")?,
            remove: method("remove")?,
            list: method("list")?,
            sync_dir: method("syncDir")?,
            target,
        })))
    }
}

/// A JS exception from a storage call as the engine's error.
fn storage_error(what: &str, e: JsValue) -> Error {
    let get = |k: &str| {
        Reflect::get(&e, &k.into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default()
    };
    let (code, name) = (get("code"), get("name"));
    let message: String = get("message").chars().take(300).collect();
    let kind = match (code.as_str(), name.as_str()) {
        ("ENOENT", _) | (_, "NotFoundError") => Code::NotFound,
        ("EROFS" | "EACCES" | "EPERM", _) | (_, "NoModificationAllowedError") => {
            Code::FailedPrecondition
        }
        _ => Code::Unavailable,
    };
    Error::new(kind, format!("storage {what}: {code} {message}"))
}

impl Js {
    fn call(&self, what: &str, f: &Function, args: &[JsValue]) -> Result<JsValue> {
        let array: Array = args.iter().collect();
        f.apply(&self.target, &array)
            .map_err(|e| storage_error(what, e))
    }

    fn size_of(&self, name: &str) -> Result<u64> {
        let v = self.call("size", &self.size, &[name.into()])?;
        v.as_f64()
            .filter(|n| *n >= 0.0 && n.fract() == 0.0)
            .map(|n| n as u64)
            .ok_or_else(|| Error::new(Code::Internal, "storage size(): not a size"))
    }
}

struct JsWriter {
    js: Arc<Js>,
    name: String,
    len: u64,
}

impl WritableFile for JsWriter {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let view = js_copy(data);
        self.js.call(
            "append",
            &self.js.append,
            &[self.name.as_str().into(), view.into()],
        )?;
        self.len += data.len() as u64;
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.js
            .call("sync", &self.js.sync, &[self.name.as_str().into()])
            .map(|_| ())
    }

    fn len(&self) -> u64 {
        self.len
    }
}

/// A copy of `data` as a `Uint8Array` owned by JavaScript (no view into wasm memory, which a
/// growing memory would detach).
fn js_copy(data: &[u8]) -> Uint8Array {
    Uint8Array::from(data)
}

struct JsReader {
    js: Arc<Js>,
    name: String,
    len: u64,
}

impl RandomAccessFile for JsReader {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        if offset.saturating_add(len as u64) > self.len {
            return Err(Error::new(
                Code::DataLoss,
                format!("read past the end of {}", self.name),
            ));
        }
        let v = self.js.call(
            "read",
            &self.js.read,
            &[
                self.name.as_str().into(),
                (offset as f64).into(),
                (len as f64).into(),
            ],
        )?;
        let bytes = v
            .dyn_into::<Uint8Array>()
            .map_err(|_| Error::new(Code::Internal, "storage read(): not a Uint8Array"))?;
        if bytes.length() as usize != len {
            return Err(Error::new(
                Code::DataLoss,
                format!("short read of {}", self.name),
            ));
        }
        Ok(bytes.to_vec())
    }

    fn len(&self) -> u64 {
        self.len
    }
}

impl Storage for JsStorage {
    fn create(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        self.0.call("create", &self.0.create, &[name.into()])?;
        Ok(Box::new(JsWriter {
            js: self.0.clone(),
            name: name.into(),
            len: 0,
        }))
    }

    fn append_to(&self, name: &str) -> Result<Box<dyn WritableFile>> {
        let len = self.0.size_of(name)?;
        Ok(Box::new(JsWriter {
            js: self.0.clone(),
            name: name.into(),
            len,
        }))
    }

    fn open(&self, name: &str) -> Result<Arc<dyn RandomAccessFile>> {
        let len = self.0.size_of(name)?;
        Ok(Arc::new(JsReader {
            js: self.0.clone(),
            name: name.into(),
            len,
        }))
    }

    fn rename(&self, from: &str, to: &str) -> Result<()> {
        self.0
            .call("rename", &self.0.rename, &[from.into(), to.into()])
            .map(|_| ())
    }

    fn remove(&self, name: &str) -> Result<()> {
        self.0
            .call("remove", &self.0.remove, &[name.into()])
            .map(|_| ())
    }

    fn list(&self) -> Result<Vec<String>> {
        let v = self.0.call("list", &self.0.list, &[])?;
        let array = v
            .dyn_into::<Array>()
            .map_err(|_| Error::new(Code::Internal, "storage list(): not an array"))?;
        array
            .iter()
            .map(|n| {
                n.as_string()
                    .ok_or_else(|| Error::new(Code::Internal, "storage list(): not a string"))
            })
            .collect()
    }

    fn sync_dir(&self) -> Result<()> {
        self.0.call("syncDir", &self.0.sync_dir, &[]).map(|_| ())
    }
}
