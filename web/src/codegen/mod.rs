//! Code generation: a read or a write of the playground as the same operation written for
//! Google's clients (Python `google.cloud.bigtable.data`, Java, Go, Node.js), Sparsetable's
//! Python module and the `cbt` command.
//!
//! Pure functions of the engine's own request types ([`ReadRowsRequest`], [`Mutation`]), so
//! the snippet shows exactly what the playground ran. Where a client cannot express part of
//! a request (`cbt` has no filter language beyond a few flags; some clients have no reversed
//! scans), the snippet says so in a comment rather than silently dropping it. Bytes that are
//! not printable UTF-8 are written with each language's byte escapes.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;
use core::ops::Bound;

use sparsetable::{GcRule, Mutation, ReadRowsRequest, RowFilter, RowRange};

/// A language (or tool) a snippet is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Lang {
    /// Python, Google's `google.cloud.bigtable.data`.
    PythonGoogle,
    /// Python, Sparsetable's module (the same API in-process).
    PythonSparsetable,
    /// Java, `com.google.cloud.bigtable.data.v2`.
    Java,
    /// Go, `cloud.google.com/go/bigtable`.
    Go,
    /// Node.js, `@google-cloud/bigtable`.
    Node,
    /// The `cbt` command line.
    Cbt,
}

impl Lang {
    /// Every language, in the order the panel shows them.
    pub const ALL: [Lang; 6] = [
        Lang::PythonGoogle,
        Lang::PythonSparsetable,
        Lang::Java,
        Lang::Go,
        Lang::Node,
        Lang::Cbt,
    ];

    /// The tab label.
    pub fn label(self) -> &'static str {
        match self {
            Lang::PythonGoogle => "Python",
            Lang::PythonSparsetable => "Python (sparsetable)",
            Lang::Java => "Java",
            Lang::Go => "Go",
            Lang::Node => "Node.js",
            Lang::Cbt => "cbt",
        }
    }
}

/// A snippet of code.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Snippet {
    /// Its language.
    pub lang: Lang,
    /// The code.
    pub code: String,
}

/// A read of `table` in every language.
pub fn read_snippets(table: &str, request: &ReadRowsRequest) -> Vec<Snippet> {
    Lang::ALL
        .iter()
        .map(|&lang| Snippet {
            lang,
            code: match lang {
                Lang::PythonGoogle => python_read(table, request, true),
                Lang::PythonSparsetable => python_read(table, request, false),
                Lang::Java => java_read(table, request),
                Lang::Go => go_read(table, request),
                Lang::Node => node_read(table, request),
                Lang::Cbt => cbt_read(table, request),
            },
        })
        .collect()
}

/// Values longer than this are not written into a snippet (a 10 MB literal would be 10 MB of
/// page text); [`placeholder`] stands in for them.
pub const MAX_LITERAL_BYTES: usize = crate::display::PREVIEW_BYTES;

/// What a snippet writes instead of a value over [`MAX_LITERAL_BYTES`]: a short text naming
/// its size, so the code still compiles and runs, and says what to put there.
pub fn placeholder(len: usize) -> Vec<u8> {
    format!("<the {len}-byte value: read it from a file>").into_bytes()
}

/// A write of one row of `table` in every language; values over [`MAX_LITERAL_BYTES`] are
/// replaced by a [`placeholder`].
pub fn write_snippets(table: &str, row_key: &[u8], mutations: &[Mutation]) -> Vec<Snippet> {
    let shortened: Vec<Mutation>;
    let mutations = if mutations
        .iter()
        .any(|m| matches!(m, Mutation::SetCell { value, .. } if value.len() > MAX_LITERAL_BYTES))
    {
        shortened = mutations
            .iter()
            .map(|m| match m {
                Mutation::SetCell {
                    family,
                    qualifier,
                    timestamp_micros,
                    value,
                } if value.len() > MAX_LITERAL_BYTES => Mutation::SetCell {
                    family: family.clone(),
                    qualifier: qualifier.clone(),
                    timestamp_micros: *timestamp_micros,
                    value: placeholder(value.len()),
                },
                m => m.clone(),
            })
            .collect();
        &shortened
    } else {
        mutations
    };
    Lang::ALL
        .iter()
        .map(|&lang| Snippet {
            lang,
            code: match lang {
                Lang::PythonGoogle => python_write(table, row_key, mutations, true),
                Lang::PythonSparsetable => python_write(table, row_key, mutations, false),
                Lang::Java => java_write(table, row_key, mutations),
                Lang::Go => go_write(table, row_key, mutations),
                Lang::Node => node_write(table, row_key, mutations),
                Lang::Cbt => cbt_write(table, row_key, mutations),
            },
        })
        .collect()
}

mod cbt;
mod go;
mod java;
mod literals;
mod node;
mod python;
#[cfg(test)]
mod tests;

use cbt::*;
use go::*;
use java::*;
pub use literals::hex;
pub(crate) use literals::quoted;
use literals::*;
use node::*;
use python::*;

// ---- admin operations ----

/// A table-admin operation the playground ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AdminOp<'a> {
    /// Create a table with these families and their GC rules.
    CreateTable {
        /// The table.
        table: &'a str,
        /// Its families, each with its rule.
        families: &'a [(String, GcRule)],
    },
    /// Replace one family's GC rule.
    SetGcRule {
        /// The table.
        table: &'a str,
        /// The family.
        family: &'a str,
        /// The new rule.
        rule: &'a GcRule,
    },
    /// Delete a table.
    DeleteTable {
        /// The table.
        table: &'a str,
    },
}

/// An admin operation in every language: the table-admin clients of Google's libraries
/// (Python's classic `google.cloud.bigtable` admin API, which Sparsetable's module mirrors),
/// and cbt's `createtable`, `setgcpolicy` and `deletetable`.
pub fn admin_snippets(op: &AdminOp<'_>) -> Vec<Snippet> {
    Lang::ALL
        .iter()
        .map(|&lang| Snippet {
            lang,
            code: match lang {
                Lang::PythonGoogle => python_admin(op, true),
                Lang::PythonSparsetable => python_admin(op, false),
                Lang::Java => java_admin(op),
                Lang::Go => go_admin(op),
                Lang::Node => node_admin(op),
                Lang::Cbt => cbt_admin(op),
            },
        })
        .collect()
}
