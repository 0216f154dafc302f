//! Layer 5, durable state: the commit log (what was written since the last flush) and the
//! manifest (which tables, tablets, runs and backups exist).
//!
//! Contract: both are append-or-replace files written through `platform::storage` and
//! specified in docs/format/; a reader never panics on damaged bytes. These modules define
//! the records and their encodings; deciding when to log, flush or recover is the `api`
//! layer's, and turning records into live tables is the `table` layer's. Imports: `lsm`
//! (run metadata), `codec`, `model`, `platform` and the foundation.

pub mod commit_log;
pub mod manifest;
