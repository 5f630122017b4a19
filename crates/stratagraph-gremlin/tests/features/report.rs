//! Counting and printing, by the README's rules
//! (`../shared/tinkerpop/README.md`, "Counting a pass rate honestly"):
//! every scenario counts; only `@GraphComputerOnly` scenarios and
//! `Given an unsupported test` are out of scope ("skipped"), and both the
//! all-scenario and the in-scope figures are printed. The last line is
//! exactly `N passed, N failed, N skipped` (in-scope passes and failures,
//! out-of-scope count).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::runner::{Cause, Verdict};

/// One scenario's outcome.
pub struct Record {
    /// The feature file, relative to `features/` (`branch/Repeat.feature`).
    pub file: String,
    /// The scenario's name.
    pub name: String,
    /// Its line in the file.
    pub line: usize,
    /// The traversal under test (for verbose output).
    pub traversal: String,
    /// Why it is out of scope, if it is.
    pub out_of_scope: Option<&'static str>,
    /// How it ended (`None`: not run, an unsupported test).
    pub verdict: Option<Verdict>,
    /// How long it took, in seconds.
    pub secs: f64,
}

impl Record {
    fn passed(&self) -> bool {
        matches!(self.verdict, Some(Verdict::Pass))
    }

    fn failure(&self) -> Option<(Cause, &str)> {
        match &self.verdict {
            Some(Verdict::Fail(f)) => Some((f.cause, f.reason.as_str())),
            _ => None,
        }
    }
}

/// The totals the binary's exit status depends on.
pub struct Totals {
    /// In-scope scenarios that passed.
    pub passed: usize,
    /// In-scope scenarios that failed.
    pub failed: usize,
    /// Out-of-scope scenarios.
    pub skipped: usize,
    /// Scenarios (in scope or not) that panicked.
    pub panicked: usize,
}

/// Counts the records.
pub fn totals(records: &[Record]) -> Totals {
    let in_scope = || records.iter().filter(|r| r.out_of_scope.is_none());
    Totals {
        passed: in_scope().filter(|r| r.passed()).count(),
        failed: in_scope().filter(|r| !r.passed()).count(),
        skipped: records.iter().filter(|r| r.out_of_scope.is_some()).count(),
        panicked: records
            .iter()
            .filter(|r| matches!(r.failure(), Some((Cause::Panic, _))))
            .count(),
    }
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "n/a".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / of as f64)
    }
}

/// The report, without its final line.
pub fn body(records: &[Record], verbose: bool) -> String {
    let mut out = String::new();
    let mut by_file: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for r in records {
        let e = by_file.entry(r.file.as_str()).or_default();
        match (r.out_of_scope, r.passed()) {
            (Some(_), _) => e.2 += 1,
            (None, true) => e.0 += 1,
            (None, false) => e.1 += 1,
        }
    }
    for (file, (p, f, s)) in &by_file {
        let _ = write!(out, "{file}: {p} passed, {f} failed");
        if *s > 0 {
            let _ = write!(out, ", {s} skipped");
        }
        out.push('\n');
    }

    if verbose {
        out.push_str("\nFailing scenarios:\n");
        for r in records.iter().filter(|r| r.out_of_scope.is_none()) {
            if let Some((cause, reason)) = r.failure() {
                let _ = writeln!(out, "FAIL {}:{} {}", r.file, r.line, r.name);
                let _ = writeln!(
                    out,
                    "  traversal: {}",
                    clip_lines(&r.traversal, 3, "             ")
                );
                let _ = writeln!(
                    out,
                    "  [{}] {}",
                    cause.label(),
                    clip_lines(reason, 6, "    ")
                );
            }
        }
    }

    if verbose {
        let mut slow: Vec<&Record> = records.iter().filter(|r| r.verdict.is_some()).collect();
        slow.sort_by(|a, b| b.secs.total_cmp(&a.secs));
        out.push_str("\nSlowest scenarios:\n");
        for r in slow.iter().take(8) {
            let _ = writeln!(out, "  {:>7.3} s  {}:{} {}", r.secs, r.file, r.line, r.name);
        }
    }

    let mut causes: BTreeMap<Cause, usize> = BTreeMap::new();
    for r in records.iter().filter(|r| r.out_of_scope.is_none()) {
        if let Some((c, _)) = r.failure() {
            *causes.entry(c).or_default() += 1;
        }
    }
    if !causes.is_empty() {
        out.push_str("\nIn-scope failures by cause:\n");
        for (c, n) in &causes {
            let _ = writeln!(out, "  {n:>5}  {}", c.label());
        }
    }

    let t = totals(records);
    let all = records.len();
    let all_passed = records.iter().filter(|r| r.passed()).count();
    let in_scope = t.passed + t.failed;
    let mut why: BTreeMap<&str, usize> = BTreeMap::new();
    for r in records {
        if let Some(w) = r.out_of_scope {
            *why.entry(w).or_default() += 1;
        }
    }
    let why: Vec<String> = why.iter().map(|(w, n)| format!("{n} {w}")).collect();
    let timeouts = records
        .iter()
        .filter(|r| r.out_of_scope.is_none() && matches!(r.failure(), Some((Cause::Timeout, _))))
        .count();
    let oos_passed = all_passed - t.passed;
    let _ = writeln!(
        out,
        "\nAll scenarios: {all}, {all_passed} passed ({}){}",
        pct(all_passed, all),
        if oos_passed > 0 {
            format!(", {oos_passed} of them out of scope")
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        out,
        "In scope: {in_scope} ({} out of scope: {}), {} passed ({}), {} failed ({} panicked, {timeouts} timed out)",
        t.skipped,
        if why.is_empty() { "none".into() } else { why.join(", ") },
        t.passed,
        pct(t.passed, in_scope),
        t.failed,
        records
            .iter()
            .filter(|r| r.out_of_scope.is_none() && matches!(r.failure(), Some((Cause::Panic, _))))
            .count(),
    );
    out
}

/// At most `n` lines of `s`, each at most 300 characters, continuation
/// lines indented by `indent`.
fn clip_lines(s: &str, n: usize, indent: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(n)
        .map(|l| {
            if l.chars().count() > 300 {
                format!("{}...", l.chars().take(300).collect::<String>())
            } else {
                (*l).to_owned()
            }
        })
        .collect();
    if lines.len() > n {
        out.push(format!("... ({} more lines)", lines.len() - n));
    }
    out.join(&format!("\n{indent}"))
}

/// The last line.
pub fn last_line(t: &Totals) -> String {
    format!(
        "{} passed, {} failed, {} skipped",
        t.passed, t.failed, t.skipped
    )
}

/// Where the per-scenario outcomes go: `gremlin-features.txt` in
/// `CARGO_TARGET_DIR` if set (relative to the workspace root if
/// relative), else the workspace's `target/`.
pub fn outcome_path() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.parent().and_then(Path::parent).unwrap_or(manifest);
    let dir = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if Path::new(&d).is_absolute() => PathBuf::from(d),
        Some(d) => root.join(d),
        None => root.join("target"),
    };
    dir.join("gremlin-features.txt")
}

/// One line per scenario, in file order, for diffing runs:
/// `PASS|FAIL|SKIP <tab> file:line <tab> name <tab> detail`.
pub fn outcome_lines(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        let ran = match &r.verdict {
            None => "not run".to_owned(),
            Some(Verdict::Pass) => "passed".to_owned(),
            Some(Verdict::Fail(f)) => {
                let first = f.reason.lines().next().unwrap_or("");
                let first: String = first.chars().take(160).collect();
                format!("[{}] {first}", f.cause.label())
            }
        };
        let (status, detail) = match (r.out_of_scope, r.passed()) {
            (Some(w), _) => ("SKIP", format!("{w}; {ran}")),
            (None, true) => ("PASS", String::new()),
            (None, false) => ("FAIL", ran),
        };
        let _ = writeln!(out, "{status}\t{}:{}\t{}\t{detail}", r.file, r.line, r.name);
    }
    out
}
