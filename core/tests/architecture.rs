//! The architecture test: the core's layers, and imports that point only downward.
//!
//! `core/src` is a stack of layers (see docs/design.md); a module may import from its own
//! layer and the layers below it, never above. This test reads every `crate::` path in the
//! source (outside `#[cfg(test)]` code, where a unit test may build fixtures from any
//! layer), resolves names re-exported at the crate root to the layer that defines them, and
//! fails on an upward import, on a cycle between top-level modules, and on a top-level
//! module that is not placed in a layer. It reads text, so it runs on every target.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first. The foundation (`error`, `limits`) is usable from every layer.
const LAYERS: &[&[&str]] = &[
    &["error", "limits"],
    &["platform"],
    &["model"],
    &["codec"],
    &["lsm"],
    &["durability"],
    &["table"],
    &["api"],
];

fn rank_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source a layering rule applies to: the file up to its first `#[cfg(test)]`, with
/// comments removed (a doc comment may name any module).
fn production_code(text: &str) -> String {
    let code = match text.find("#[cfg(test)]") {
        Some(cut) => &text[..cut],
        None => text,
    };
    code.lines()
        .map(|line| match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every name that follows `crate::` in `code`: a path's first segment, or each first
/// segment of a `crate::{...}` group.
fn crate_paths(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let first: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !first.is_empty() {
                    names.push(first);
                }
            }
        } else {
            let first: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !first.is_empty() {
                names.push(first);
            }
        }
    }
    names
}

/// The crate root's re-exports: a name such as `Database` mapped to the top-level module
/// whose path it is re-exported from (`pub use api::database::{..., Database, ...}`).
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let code = production_code(lib);
    for stmt in code.split(';') {
        let stmt = stmt.trim();
        let Some(path) = stmt
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("#["))
            .collect::<Vec<_>>()
            .join(" ")
            .strip_prefix("pub use ")
            .map(str::to_string)
        else {
            continue;
        };
        let module = path.split("::").next().unwrap_or("").trim().to_string();
        let tail = path.rsplit("::").next().unwrap_or("");
        for name in tail.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = name.trim();
            if !name.is_empty() {
                map.insert(name.to_string(), module.clone());
            }
        }
    }
    map
}

#[test]
fn core_imports_point_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let reexports = root_reexports(&lib);
    let mut files = Vec::new();
    rust_files(&src, &mut files);

    let mut problems = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" {
            continue;
        }
        let Some(own) = rank_of(&top) else {
            problems.push(format!(
                "{}: top-level module `{top}` is in no layer (add it to LAYERS and docs/design.md)",
                rel.display()
            ));
            continue;
        };
        let code = production_code(&fs::read_to_string(file).unwrap());
        for name in crate_paths(&code) {
            let target = reexports.get(&name).cloned().unwrap_or(name.clone());
            let Some(theirs) = rank_of(&target) else {
                continue; // a macro or an item of the root itself
            };
            if target != top {
                edges.entry(top.clone()).or_default().insert(target.clone());
            }
            if theirs > own {
                problems.push(format!(
                    "{}: `{top}` (layer {own}) imports `crate::{name}` from `{target}` (layer {theirs}), an upward import",
                    rel.display()
                ));
            }
        }
    }

    // A cycle between top-level modules is impossible without an upward import unless two
    // modules share a layer; check anyway, so a future layer of two modules stays acyclic.
    for (a, targets) in &edges {
        for b in targets {
            if edges.get(b).is_some_and(|back| back.contains(a)) && a < b {
                problems.push(format!("cycle between top-level modules `{a}` and `{b}`"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layering violations:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_sees_groups_and_reexports() {
    // The parser the test relies on, checked on a made-up source so a change to it cannot
    // silently make the test above vacuous.
    let code = production_code(
        "use crate::lsm::memtable::Source;\nuse crate::{Code, Error};\n// crate::api in a comment\n",
    );
    assert_eq!(crate_paths(&code), ["lsm", "Code", "Error"]);
    let map = root_reexports("pub use api::database::{\n    Database, OpenOptions,\n};\n#[cfg(feature = \"std\")]\npub use api::shared::SharedDatabase;\n");
    assert_eq!(map.get("Database").map(String::as_str), Some("api"));
    assert_eq!(map.get("SharedDatabase").map(String::as_str), Some("api"));
    assert_eq!(rank_of("api"), Some(LAYERS.len() - 1));
    assert_eq!(rank_of("nonexistent"), None);
}
