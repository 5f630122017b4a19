//! Scenarios run in a worker process (this same binary, started with
//! `GREMLIN_FEATURES_WORKER=1`), one at a time, so that:
//!
//! - a scenario that does not finish can be stopped: on a timeout the
//!   worker is killed and a new one started. A thread cannot be stopped,
//!   and one left spinning would take a core from every later scenario
//!   on a machine with two;
//! - an abort (a stack overflow, a double panic) fails one scenario, not
//!   the run.
//!
//! The protocol is one line each way: the parent writes
//! `<file>\t<scenario index>`, the worker answers with a line holding
//! [`MARK`] and the verdict. Anything else the worker prints is ignored
//! (stdout) or kept as the reason of a crash (the last lines of stderr).

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::gherkin::{self, Feature};
use crate::graphs;
use crate::runner::{self, Cause, Failure, Verdict};

/// The environment variable that makes the binary a worker.
pub const WORKER_ENV: &str = "GREMLIN_FEATURES_WORKER";

/// Marks the verdict line among whatever else the worker prints.
const MARK: &str = "@@gremlin-features-verdict@@";

/// A verdict as one line: `PASS`, or `FAIL\t<cause>\t<reason>` with `\`
/// and newlines escaped.
fn encode(v: &Verdict) -> String {
    match v {
        Verdict::Pass => "PASS".into(),
        Verdict::Fail(f) => {
            let reason = f
                .reason
                .replace('\\', "\\\\")
                .replace('\n', "\\n")
                .replace('\r', "\\r");
            format!("FAIL\t{:?}\t{reason}", f.cause)
        }
    }
}

fn decode(s: &str) -> Option<Verdict> {
    if s == "PASS" {
        return Some(Verdict::Pass);
    }
    let rest = s.strip_prefix("FAIL\t")?;
    let (cause, reason) = rest.split_once('\t')?;
    let mut out = String::with_capacity(reason.len());
    let mut chars = reason.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    Some(Verdict::Fail(Failure {
        cause: Cause::from_name(cause)?,
        reason: out,
    }))
}

/// The worker's loop: reads scenario references from stdin until it
/// closes, runs each, and prints its verdict.
pub fn serve() -> ! {
    runner::install_panic_hook();
    let root = graphs::tinkerpop_dir().join("features");
    let mut cache: HashMap<String, Feature> = HashMap::new();
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let verdict = match line.split_once('\t') {
            Some((file, index)) => scenario_verdict(&root, &mut cache, file, index),
            None => Verdict::Fail(Failure {
                cause: Cause::Step,
                reason: format!("worker: bad request {line:?}"),
            }),
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "\n{MARK}{}", encode(&verdict));
        let _ = out.flush();
    }
    std::process::exit(0)
}

fn scenario_verdict(
    root: &std::path::Path,
    cache: &mut HashMap<String, Feature>,
    file: &str,
    index: &str,
) -> Verdict {
    let bad = |reason: String| {
        Verdict::Fail(Failure {
            cause: Cause::Step,
            reason,
        })
    };
    if !cache.contains_key(file) {
        let parsed = std::fs::read_to_string(root.join(file))
            .map_err(|e| e.to_string())
            .and_then(|t| gherkin::parse(&t));
        match parsed {
            Ok(f) => {
                cache.insert(file.to_owned(), f);
            }
            Err(e) => return bad(format!("worker: cannot read {file}: {e}")),
        }
    }
    let scenario = index
        .parse::<usize>()
        .ok()
        .and_then(|i| cache.get(file)?.scenarios.get(i));
    match scenario {
        Some(s) => match runner::plan(s) {
            Ok(p) => runner::run_caught(p),
            Err(f) => Verdict::Fail(f),
        },
        None => bad(format!("worker: no scenario {index} in {file}")),
    }
}

/// What the reader threads pass on.
enum Msg {
    Verdict(Verdict),
    Stderr(String),
    StdoutClosed,
    StderrClosed,
}

/// A running worker.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Msg>,
}

/// The parent's handle on its worker: started on first use, restarted
/// after a timeout or a crash.
pub struct Pool {
    exe: PathBuf,
    worker: Option<Worker>,
}

impl Pool {
    /// A pool that starts workers from this binary.
    pub fn new() -> Result<Pool, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
        Ok(Pool { exe, worker: None })
    }

    fn start(&self) -> Result<Worker, String> {
        let mut child = Command::new(&self.exe)
            .env(WORKER_ENV, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start a worker: {e}"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("a worker without pipes".into());
        };
        let (tx, rx) = mpsc::channel();
        let out_tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some((_, v)) = line.split_once(MARK) {
                    let msg = match decode(v) {
                        Some(v) => Msg::Verdict(v),
                        None => Msg::Stderr(format!("(unreadable verdict {v:?})")),
                    };
                    if out_tx.send(msg).is_err() {
                        return;
                    }
                }
            }
            let _ = out_tx.send(Msg::StdoutClosed);
        });
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(Msg::Stderr(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(Msg::StderrClosed);
        });
        Ok(Worker { child, stdin, rx })
    }

    /// Stops the worker (after a timeout or a crash, or at the end).
    fn stop(&mut self) {
        if let Some(mut w) = self.worker.take() {
            let _ = w.child.kill();
            let _ = w.child.wait();
        }
    }

    /// Runs scenario `index` of `file` (relative to `features/`), waiting
    /// at most `timeout`.
    pub fn run(&mut self, file: &str, index: usize, timeout: Duration) -> Verdict {
        let fail = |cause, reason: String| Verdict::Fail(Failure { cause, reason });
        if self.worker.is_none() {
            match self.start() {
                Ok(w) => self.worker = Some(w),
                Err(e) => return fail(Cause::Step, e),
            }
        }
        let Some(w) = self.worker.as_mut() else {
            return fail(Cause::Step, "no worker".into());
        };
        if let Err(e) = writeln!(w.stdin, "{file}\t{index}").and_then(|()| w.stdin.flush()) {
            self.stop();
            return fail(Cause::Panic, format!("the worker stopped reading: {e}"));
        }
        let deadline = Instant::now() + timeout;
        let mut stderr: VecDeque<String> = VecDeque::new();
        let keep = |stderr: &mut VecDeque<String>, l: String| {
            if stderr.len() == 12 {
                stderr.pop_front();
            }
            stderr.push_back(l);
        };
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match w.rx.recv_timeout(left) {
                Ok(Msg::Verdict(v)) => return v,
                Ok(Msg::Stderr(l)) => keep(&mut stderr, l),
                Ok(Msg::StderrClosed) => {}
                Ok(Msg::StdoutClosed) | Err(RecvTimeoutError::Disconnected) => {
                    // Collect what the worker said on its way out.
                    let until = Instant::now() + Duration::from_millis(500);
                    while let Ok(m) =
                        w.rx.recv_timeout(until.saturating_duration_since(Instant::now()))
                    {
                        match m {
                            Msg::Stderr(l) => keep(&mut stderr, l),
                            Msg::StderrClosed => break,
                            _ => {}
                        }
                    }
                    let status = w.child.wait().map(|s| s.to_string()).unwrap_or_default();
                    self.stop();
                    let said: Vec<String> = stderr.into_iter().collect();
                    return fail(
                        Cause::Panic,
                        format!("the worker process died ({status}): {}", said.join("\n")),
                    );
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.stop();
                    return fail(
                        Cause::Timeout,
                        format!(
                            "did not finish within {} s (its worker was killed)",
                            timeout.as_secs_f64()
                        ),
                    );
                }
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Checks the verdict encoding (the start-up self-check).
pub fn self_check() -> Result<(), String> {
    let v = Verdict::Fail(Failure {
        cause: Cause::Wrong,
        reason: "a\\nb\nc\td".into(),
    });
    match decode(&encode(&v)) {
        Some(Verdict::Fail(f)) if f.cause == Cause::Wrong && f.reason == "a\\nb\nc\td" => {}
        other => return Err(format!("verdict encoding self-check gave {other:?}")),
    }
    match decode(&encode(&Verdict::Pass)) {
        Some(Verdict::Pass) => Ok(()),
        other => Err(format!("verdict encoding self-check gave {other:?}")),
    }
}
