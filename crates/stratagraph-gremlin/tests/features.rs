//! The TinkerPop feature suite (Gherkin) against the Gremlin executor.
//!
//! `cargo test -p stratagraph-gremlin --release --test features` runs every
//! scenario of `../shared/tinkerpop/features/**/*.feature` (read in place)
//! and prints per-file counts, the totals, the in-scope pass rate, and
//! last `N passed, N failed, N skipped`. The binary has its own `main`
//! (`harness = false`) because it is one run with one report, not 1,704
//! independent tests.
//!
//! It fails (non-zero exit) when the in-scope pass count falls below the
//! floor in `tests/features/floor.txt`, or when any scenario panicked (a
//! panic is a bug); failing scenarios alone do not fail it.
//!
//! Environment:
//! - `GREMLIN_FEATURES_VERBOSE=1`: each failing scenario's name,
//!   traversal and reason;
//! - `GREMLIN_FEATURES_FILTER=text`: only scenarios whose name or file
//!   contains `text` (the floor is then not checked);
//! - `GREMLIN_FEATURES_TIMEOUT=secs`: per-scenario timeout (default 10).
//!
//! Modules: `gherkin` reads the files, `notation` the value notation,
//! `graphs` builds stores and resolves notation through a snapshot,
//! `check` compares results, `runner` plans and runs one scenario,
//! `worker` runs scenarios in a child process that can be killed on a
//! timeout, `report` counts and prints.

#[path = "features/check.rs"]
mod check;
#[path = "features/gherkin.rs"]
mod gherkin;
#[path = "features/graphs.rs"]
mod graphs;
#[path = "features/notation.rs"]
mod notation;
#[path = "features/report.rs"]
mod report;
#[path = "features/runner.rs"]
mod runner;
#[path = "features/worker.rs"]
mod worker;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use report::Record;
use runner::Verdict;

fn main() {
    if std::env::var_os(worker::WORKER_ENV).is_some() {
        worker::serve();
    }
    for (what, check) in [
        ("gherkin", gherkin::self_check as fn() -> Result<(), String>),
        ("notation", notation::self_check),
        ("comparison", check::self_check),
        ("runner", runner::self_check),
        ("worker", worker::self_check),
    ] {
        if let Err(e) = check() {
            eprintln!(
                "features: the {what} self-check failed, so no verdict could be trusted: {e}"
            );
            std::process::exit(2);
        }
    }
    let floor = match read_floor() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("features: {e}");
            std::process::exit(2);
        }
    };
    let verbose =
        std::env::var("GREMLIN_FEATURES_VERBOSE").is_ok_and(|v| !v.is_empty() && v != "0");
    let filter = std::env::var("GREMLIN_FEATURES_FILTER")
        .ok()
        .filter(|f| !f.is_empty());
    let timeout = std::env::var("GREMLIN_FEATURES_TIMEOUT")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .map_or(Duration::from_secs(10), Duration::from_secs_f64);

    let root = graphs::tinkerpop_dir().join("features");
    let mut files = Vec::new();
    if let Err(e) = collect(&root, &mut files) {
        eprintln!("features: cannot list {}: {e}", root.display());
        std::process::exit(2);
    }
    files.sort();
    if files.is_empty() {
        eprintln!("features: no .feature file under {}", root.display());
        std::process::exit(2);
    }

    let mut pool = match worker::Pool::new() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("features: {e}");
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    let mut records = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("features: cannot read {rel}: {e}");
                std::process::exit(2);
            }
        };
        let feature = match gherkin::parse(&text) {
            Ok(f) => f,
            Err(e) => {
                // A file the reader cannot read is the harness's bug: stop
                // rather than count its scenarios wrongly.
                eprintln!("features: cannot read {rel}: {e}");
                std::process::exit(2);
            }
        };
        for (index, s) in feature.scenarios.iter().enumerate() {
            if let Some(f) = &filter {
                if !s.name.contains(f.as_str()) && !rel.contains(f.as_str()) {
                    continue;
                }
            }
            let out_of_scope = runner::out_of_scope(s);
            let traversal = s
                .steps
                .iter()
                .find(|st| st.text == "the traversal of")
                .and_then(|st| st.doc.clone())
                .unwrap_or_default();
            let began = Instant::now();
            // Planned here too, so that a step the harness cannot read
            // fails without a round trip; the worker plans it again.
            let verdict = if out_of_scope == Some("unsupported test") {
                None
            } else {
                Some(match runner::plan(s) {
                    Ok(_) => pool.run(&rel, index, timeout),
                    Err(f) => Verdict::Fail(f),
                })
            };
            records.push(Record {
                file: rel.clone(),
                name: s.name.clone(),
                line: s.line,
                traversal,
                out_of_scope,
                verdict,
                secs: began.elapsed().as_secs_f64(),
            });
        }
    }
    let elapsed = start.elapsed();
    drop(pool);

    print!("{}", report::body(&records, verbose));
    println!(
        "Ran {} scenarios of {} files in {:.1} s",
        records.len(),
        files.len(),
        elapsed.as_secs_f64()
    );
    let out = report::outcome_path();
    let written = out
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&out, report::outcome_lines(&records)));
    match written {
        Ok(()) => println!("Outcomes per scenario: {}", out.display()),
        Err(e) => println!("Could not write {}: {e}", out.display()),
    }

    let t = report::totals(&records);
    let mut failed = false;
    if t.panicked > 0 {
        println!("FAILED: {} scenario(s) panicked (a panic is a bug; run with GREMLIN_FEATURES_VERBOSE=1)", t.panicked);
        failed = true;
    }
    match &filter {
        Some(f) => println!("Filtered by {f:?}: the floor ({floor}) is not checked"),
        None if t.passed < floor => {
            println!("FAILED: {} in-scope scenarios passed, below the floor of {floor} (tests/features/floor.txt)", t.passed);
            failed = true;
        }
        None => println!("Floor: {floor} (tests/features/floor.txt), met"),
    }
    println!("{}", report::last_line(&t));
    std::process::exit(i32::from(failed));
}

/// The in-scope pass count the run must reach.
fn read_floor() -> Result<usize, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/features/floor.txt");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.trim().parse().map_err(|_| {
        format!(
            "{} must hold one integer, not {:?}",
            path.display(),
            text.trim()
        )
    })
}

/// Every `.feature` file under `dir`.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "feature") {
            out.push(path);
        }
    }
    Ok(())
}
