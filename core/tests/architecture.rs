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

// --- File-level cycles -------------------------------------------------------------------
// Within a crate, no file may import (through `crate::` or `super::` paths) from a file that
// imports back from it, directly or through others: the top-level layering above keeps the
// core's modules apart, and this keeps every crate's files apart, so each file can be read
// after the files it uses. A submodule's use of its own parent module (`super::Item` in
// `table/table/reads.rs`) is part of the parent's implementation and not an edge.

/// A crate's files by module path (`["lsm", "memtable"]`; the root is `[]`).
fn module_files(src: &Path) -> BTreeMap<Vec<String>, String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .into_iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(src).ok()?.with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("lib" | "main" | "mod")
            ) {
                parts.pop();
            }
            // A binary's extra entry points (`src/bin/x.rs`) are crates of their own.
            if parts.first().is_some_and(|p| p == "bin") {
                return None;
            }
            Some((parts, fs::read_to_string(&f).ok()?))
        })
        .collect()
}

/// The root's `pub use` re-exports: an item name mapped to the module path it comes from.
fn reexport_paths(root: &str) -> BTreeMap<String, Vec<String>> {
    let mut map = BTreeMap::new();
    for stmt in production_code(root).split(';') {
        let flat: String = stmt
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with("#["))
            .collect::<Vec<_>>()
            .join(" ");
        let Some(path) = flat.trim().strip_prefix("pub use ") else {
            continue;
        };
        let (base, names) = match path.find('{') {
            Some(i) => (
                &path[..i],
                path[i + 1..]
                    .trim_end_matches('}')
                    .split(',')
                    .collect::<Vec<_>>(),
            ),
            None => match path.rsplit_once("::") {
                Some((b, n)) => (b, vec![n]),
                None => continue,
            },
        };
        let base: Vec<String> = base
            .trim_end_matches("::")
            .split("::")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty() && s != "crate")
            .collect();
        for n in names {
            let n = n.trim();
            if !n.is_empty() && n != "self" {
                map.insert(n.to_string(), base.clone());
            }
        }
    }
    map
}

/// Every path `code` names after `crate::` or `super::`, as segments (a `{...}` group
/// gives one path per item), with `super` resolved against `module`.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (prefix, base) in [
        ("crate::", Vec::new()),
        ("super::", module[..module.len().saturating_sub(1)].to_vec()),
    ] {
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            // `super::` inside `crate::a::super::` cannot happen; skip identifiers ending in
            // the prefix (`my_crate::`).
            let before = rest[..i].chars().last();
            rest = &rest[i + prefix.len()..];
            // Part of a longer path (`my_crate::`, `super::super::`): seen from its start.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut segs = base.clone();
            let mut tail = rest;
            loop {
                let word: String = tail
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if word.is_empty() {
                    break;
                }
                tail = &tail[word.len()..];
                if word == "super" {
                    segs.pop();
                } else {
                    segs.push(word);
                }
                match tail.strip_prefix("::") {
                    Some(t) => tail = t,
                    None => break,
                }
            }
            if let Some(group) = tail.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let mut s = segs.clone();
                    s.extend(
                        item.trim()
                            .split("::")
                            .map(|w| {
                                w.chars()
                                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                                    .collect::<String>()
                            })
                            .filter(|w| !w.is_empty() && w != "self"),
                    );
                    out.push(s);
                }
            } else {
                out.push(segs);
            }
        }
    }
    out
}

/// The file-level import cycles among `files` (module path to source), each as the files
/// on it, sorted; empty when there is none.
fn file_cycles(files: &BTreeMap<Vec<String>, String>) -> Vec<Vec<String>> {
    let root = files.get(&Vec::new()).map(String::as_str).unwrap_or("");
    let reexports = reexport_paths(root);
    let resolve = |segs: &[String]| -> Option<Vec<String>> {
        let mut segs = segs.to_vec();
        if let Some(first) = segs.first() {
            if !files.contains_key(&vec![first.clone()]) {
                if let Some(base) = reexports.get(first) {
                    segs = base
                        .iter()
                        .cloned()
                        .chain(segs[1..].iter().cloned())
                        .collect();
                }
            }
        }
        (1..=segs.len())
            .rev()
            .map(|k| segs[..k].to_vec())
            .find(|p| files.contains_key(p))
    };
    let mut edges: BTreeMap<&Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, text) in files {
        let code = production_code(text);
        let targets = edges.entry(module).or_default();
        for segs in named_paths(&code, module) {
            if let Some(t) = resolve(&segs) {
                let ancestor = t.len() < module.len() && module[..t.len()] == t[..];
                if t != *module && !ancestor {
                    targets.insert(t);
                }
            }
        }
    }
    // A file is on a cycle when it reaches itself; group the files by what they reach.
    let reach = |from: &Vec<String>| -> BTreeSet<Vec<String>> {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<Vec<String>> = edges.get(from).into_iter().flatten().cloned().collect();
        while let Some(m) = todo.pop() {
            if seen.insert(m.clone()) {
                todo.extend(edges.get(&m).into_iter().flatten().cloned());
            }
        }
        seen
    };
    let reaches: BTreeMap<&Vec<String>, BTreeSet<Vec<String>>> =
        files.keys().map(|m| (m, reach(m))).collect();
    let mut cycles: BTreeSet<Vec<String>> = BTreeSet::new();
    for (m, r) in &reaches {
        if r.contains(*m) {
            let mut group: Vec<String> = reaches
                .iter()
                .filter(|(o, ro)| r.contains(**o) && ro.contains(*m))
                .map(|(o, _)| o.join("/"))
                .collect();
            group.sort();
            cycles.insert(group);
        }
    }
    cycles.into_iter().collect()
}

/// The file-level cycles of the crate whose sources are in `dir` (relative to the
/// workspace root).
fn crate_cycles(dir: &str) -> Vec<Vec<String>> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    file_cycles(&module_files(&workspace.join(dir)))
}

#[test]
fn no_file_of_the_core_or_a_front_end_imports_in_a_circle() {
    let mut problems = Vec::new();
    for dir in [
        "core/src",
        "server/src",
        "console/src",
        "bindings/python/src",
        "bench/src",
        "tests/src",
        "web/src",
        "wasm/src",
        "bindings/kotlin/src",
    ] {
        for cycle in crate_cycles(dir) {
            problems.push(format!("{dir}: {}", cycle.join(" <-> ")));
        }
    }
    assert!(
        problems.is_empty(),
        "file-level import cycles:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_cycle_checker_finds_a_planted_cycle_and_ignores_parents() {
    let files = |list: &[(&str, &str)]| -> BTreeMap<Vec<String>, String> {
        list.iter()
            .map(|(path, code)| {
                let parts = path
                    .split('/')
                    .filter(|p| !p.is_empty())
                    .map(String::from)
                    .collect();
                (parts, code.to_string())
            })
            .collect()
    };
    // a -> b -> c -> a through a group, `super::` and a root re-export.
    let planted = files(&[
        ("", "pub use x::c::Thing;\nmod x;\nmod a;\nmod b;"),
        ("a", "use crate::b::{One, Two};"),
        ("b", "fn f() -> crate::Thing { todo!() }"),
        ("x", "pub mod c;"),
        (
            "x/c",
            "use super::super::a::Item; // and crate::b in a comment",
        ),
        (
            "d",
            "use crate::a::Item;\n#[cfg(test)]\nmod tests { use crate::d; use crate::b; }",
        ),
    ]);
    assert_eq!(file_cycles(&planted), vec![vec!["a", "b", "x/c"]]);
    // A child using its parent, and the parent naming the child, is no cycle.
    let parent = files(&[
        ("", "mod t;"),
        (
            "t",
            "mod reads;\npub struct T;\nfn f() { crate::t::reads::g() }",
        ),
        ("t/reads", "use super::T;\npub fn g() {}"),
    ]);
    assert!(file_cycles(&parent).is_empty());
    // The checker sees today's tree at all: the core has many files and edges.
    assert!(module_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src")).len() > 40);
}
