//! docs/design.md stays honest where a machine can tell: every file it names in backticks
//! (`api/database.rs`, `server/src/registry.rs`, `docs/format/manifest.md`) exists in the
//! workspace, and every `Type::item` it names is an item (a function, field or constant) of
//! the workspace's Rust code. A renamed or deleted file or function fails here until the
//! document follows.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file of the workspace (relative paths with `/`), leaving out build output, installed
/// packages and hidden folders.
fn workspace_files(dir: &Path, base: &Path, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            workspace_files(&path, base, out);
        } else if let Ok(rel) = path.strip_prefix(base) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The backticked spans of `text`.
fn code_spans(text: &str) -> BTreeSet<String> {
    text.split("```")
        .step_by(2) // outside fenced blocks
        .flat_map(|part| part.split('`').skip(1).step_by(2))
        .filter(|s| !s.contains('\n'))
        .map(str::to_string)
        .collect()
}

/// A span that names a file: a path of word characters, `/`, `.` and `-` with a known
/// extension (globs and brace groups are patterns, not names).
fn is_file_name(span: &str) -> bool {
    const EXTENSIONS: &[&str] = &[
        ".rs", ".md", ".sh", ".ts", ".kt", ".mjs", ".py", ".toml", ".json", ".yml",
    ];
    EXTENSIONS.iter().any(|e| span.ends_with(e))
        && span
            .chars()
            .all(|c| c.is_alphanumeric() || "_./-".contains(c))
}

/// A span `Type::item` or `Type::item()` whose type is the workspace's (not the standard
/// library's).
fn item_name(span: &str) -> Option<&str> {
    const STD: &[&str] = &[
        "Arc", "Box", "Vec", "Option", "Result", "String", "BTreeMap", "Rc",
    ];
    let (ty, item) = span.split_once("::")?;
    let item = item.strip_suffix("()").unwrap_or(item);
    let ok = ty.chars().next()?.is_ascii_uppercase()
        && ty.chars().all(|c| c.is_alphanumeric())
        && item.chars().next()?.is_ascii_lowercase()
        && item.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !STD.contains(&ty);
    ok.then_some(item)
}

#[test]
fn every_file_and_item_design_md_names_exists() {
    let root = workspace();
    let doc = fs::read_to_string(root.join("docs/design.md")).unwrap();
    let mut files = Vec::new();
    workspace_files(&root, &root, &mut files);
    let rust: String = files
        .iter()
        .filter(|f| f.ends_with(".rs"))
        .filter_map(|f| fs::read_to_string(root.join(f)).ok())
        .collect::<Vec<_>>()
        .join("\n");
    let mut missing = Vec::new();
    for span in code_spans(&doc) {
        if is_file_name(&span) {
            // As written from the workspace root, or a path inside some folder (the module
            // tables name core files from core/src).
            let tail = format!("/{span}");
            if !files.iter().any(|f| *f == span || f.ends_with(&tail)) {
                missing.push(format!("file `{span}`"));
            }
        } else if let Some(item) = item_name(&span) {
            let defined = [
                format!("fn {item}("),
                format!("fn {item}<"),
                format!("pub {item}:"),
                format!("pub(crate) {item}:"),
                format!("const {item}:"),
            ]
            .iter()
            .any(|pattern| rust.contains(pattern.as_str()));
            if !defined {
                missing.push(format!("item `{span}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/design.md names what the workspace does not have:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_checker_reads_spans_files_and_items_as_meant() {
    let spans = code_spans("a `x.rs` b\n```\n`not.rs`\n```\n`Database::open` `T::f()` `Arc::new`");
    assert!(spans.contains("x.rs") && !spans.contains("not.rs"));
    assert!(is_file_name("api/database.rs") && !is_file_name("scripts/suites/*.sh"));
    assert!(!is_file_name("a b.rs"));
    assert_eq!(item_name("Database::open"), Some("open"));
    assert_eq!(item_name("T::f()"), Some("f"));
    assert_eq!(item_name("Arc::new"), None);
    assert_eq!(item_name("sparsetable::Database"), None);
}
