//! The engine's module layout, checked: every module of `src/` has a rank,
//! and a module may use only modules of lower rank. Dependencies then run
//! one way (handle, then opening, then the write and read paths, then the
//! store, then storage), and no two modules can depend on each other in a
//! cycle. `docs/ARCHITECTURE.md` draws the same picture.
//!
//! A use is any `crate::module` path in code (imports and inline paths),
//! or a `super::` path that leaves its module; comments, strings and
//! `#[cfg(test)]` modules are not looked at (a test may build whatever it
//! needs). Files inside one module (a folder) may use each other freely.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every top-level module of the crate with its rank: a module may use
/// only modules ranked below it. Ranks, from the top: the public handle;
/// opening and inspecting a store; the write path (batches use the
/// transaction's edge checks); the rules writes decide an edge's state by;
/// the read path; the store; the LSM levels; storage formats and the
/// MemGraph; the small shared pieces.
const RANKS: &[(&str, u32)] = &[
    // Tests only: the file readers' fuzzers write their seeds through the
    // handle.
    ("file_fuzz", 110),
    ("graph", 100),
    ("check", 95),
    ("open", 90),
    ("schema", 85),
    ("batch", 82),
    ("txn", 80),
    ("edge_rules", 70),
    ("changes", 62),
    ("read", 60),
    ("store", 50),
    ("pivot", 45),
    ("lsm", 40),
    ("wal", 35),
    ("mem", 30),
    ("csr", 30),
    ("manifest", 30),
    ("vertex_file", 28),
    ("props", 30),
    ("ids", 25),
    ("keys", 25),
    ("conflict", 22),
    ("blind", 22),
    ("version", 20),
    ("page", 10),
    ("direction", 10),
    ("options", 10),
    ("util", 10),
    ("value", 2),
    ("error", 5),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, as paths relative to it.
fn rust_files(dir: &Path, under: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, under, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(under).unwrap().to_path_buf());
        }
    }
}

/// The code of a file: comments, string and char literals blanked, and
/// everything from a `#[cfg(test)]` module on dropped.
fn code_of(text: &str) -> String {
    let text = match find_test_module(text) {
        Some(at) => &text[..at],
        None => text,
    };
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
            i = end;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Where the first `#[cfg(test)]` that opens a module starts.
fn find_test_module(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(k) = text[from..].find("#[cfg(test)]") {
        let at = from + k;
        let rest = text[at + "#[cfg(test)]".len()..].trim_start();
        if rest.starts_with("mod ") || rest.starts_with("pub(crate) mod ") {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The top-level module a file belongs to (`None` for `lib.rs`).
fn module_of(file: &Path) -> Option<String> {
    let first = file.components().next()?.as_os_str().to_string_lossy();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "lib").then_some(name)
}

/// The top-level modules a file's code uses: `crate::m` paths, and
/// `super::m` paths from a file directly inside a folder module when they
/// name a sibling top-level module.
fn uses(file: &Path, code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (k, _) in code.match_indices("crate::") {
        let before = code[..k].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // e.g. `stratagraph::crate::` never occurs; `foocrate::`
        }
        let name = ident(&code[k + "crate::".len()..]);
        if modules.contains(&name) {
            found.insert(name);
        } else if name == "{" || name.is_empty() {
            panic!(
                "{}: grouped `crate::{{...}}` imports are not read",
                file.display()
            );
        }
    }
    // A file at the top of `src/` has no parent module to reach with
    // `super::`; one at `src/m/f.rs` reaches `m` (its own module); only
    // `super::super::x` from deeper files could leave it.
    for (k, _) in code.match_indices("super::super::") {
        let depth = file.components().count();
        if depth == 3 {
            let name = ident(&code[k + "super::super::".len()..]);
            if modules.contains(&name) {
                found.insert(name);
            }
        }
    }
    found
}

/// Every module's uses of other modules, with the files that make them.
fn graph() -> BTreeMap<String, BTreeMap<String, Vec<PathBuf>>> {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    files.sort();
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(f)).collect();
    let mut g: BTreeMap<String, BTreeMap<String, Vec<PathBuf>>> = BTreeMap::new();
    for f in &files {
        let Some(m) = module_of(f) else {
            continue; // lib.rs declares and re-exports everything
        };
        let code = code_of(&std::fs::read_to_string(root.join(f)).unwrap());
        for used in uses(f, &code, &modules) {
            if used != m {
                g.entry(m.clone())
                    .or_default()
                    .entry(used)
                    .or_default()
                    .push(f.clone());
            }
        }
    }
    g
}

fn rank(module: &str) -> u32 {
    RANKS
        .iter()
        .find(|(m, _)| *m == module)
        .map(|(_, r)| *r)
        .unwrap_or_else(|| panic!("module `{module}` has no rank in tests/layout.rs RANKS"))
}

/// The uses that break the layout: a module using one of equal or higher
/// rank, as `(user, used, files)`.
fn violations(
    g: &BTreeMap<String, BTreeMap<String, Vec<PathBuf>>>,
) -> Vec<(String, String, Vec<PathBuf>)> {
    let mut bad = Vec::new();
    for (m, used) in g {
        for (u, files) in used {
            if rank(u) >= rank(m) {
                bad.push((m.clone(), u.clone(), files.clone()));
            }
        }
    }
    bad
}

#[test]
fn every_module_uses_only_lower_ranked_modules() {
    let g = graph();
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &root, &mut files);
    for f in &files {
        if let Some(m) = module_of(f) {
            rank(&m); // every module is ranked
        }
    }
    let bad = violations(&g);
    assert!(
        bad.is_empty(),
        "uses against the layout (a module may use only lower-ranked ones):\n{}",
        bad.iter()
            .map(|(m, u, f)| format!(
                "  {m} (rank {}) uses {u} (rank {}) in {f:?}",
                rank(m),
                rank(u)
            ))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_check_sees_an_upward_use_and_a_cycle() {
    // The reader itself, on planted code: a storage module using the read
    // path, and two modules using each other.
    let modules: BTreeSet<String> = RANKS.iter().map(|(m, _)| m.to_string()).collect();
    let planted = "use crate::read::Snapshot; // read\nfn f() { crate::graph::x(); }";
    let found = uses(Path::new("lsm/layers.rs"), &code_of(planted), &modules);
    assert_eq!(
        found,
        BTreeSet::from(["read".to_string(), "graph".to_string()])
    );
    let mut g: BTreeMap<String, BTreeMap<String, Vec<PathBuf>>> = BTreeMap::new();
    for u in &found {
        g.entry("lsm".into()).or_default().insert(u.clone(), vec![]);
    }
    g.entry("txn".into())
        .or_default()
        .insert("batch".into(), vec![]);
    g.entry("batch".into())
        .or_default()
        .insert("txn".into(), vec![]);
    let bad: BTreeSet<(String, String)> =
        violations(&g).into_iter().map(|(m, u, _)| (m, u)).collect();
    assert!(bad.contains(&("lsm".into(), "read".into())));
    assert!(bad.contains(&("lsm".into(), "graph".into())));
    // Of two modules using each other, one always uses up: no cycle can
    // pass.
    assert!(bad.contains(&("txn".into(), "batch".into())));
    // Comments, strings and test modules are not uses.
    let quiet =
        "// crate::graph\nlet s = \"crate::graph\";\n#[cfg(test)]\nmod tests { use crate::graph; }";
    assert!(uses(Path::new("lsm/layers.rs"), &code_of(quiet), &modules).is_empty());
}
