//! Validates every kernel on every LDBC Graphalytics test graph using the CSR baseline.
//!
//! Usage: `graphalytics_validate [DATASET_DIR] [THREADS]`. Prints one line per case and a
//! closing `N passed, N failed`; exits non-zero if any case failed, so CI can run it as is.

use std::path::PathBuf;
use std::process::ExitCode;

use stratagraph_algo::graphalytics::{run_suite, summary_line};

const DEFAULT_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/datasets/graphalytics"
);

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .map_or_else(|| PathBuf::from(DEFAULT_DIR), PathBuf::from);
    let threads = match args.next().map(|t| t.parse::<usize>()) {
        None => 0,
        Some(Ok(t)) => t,
        Some(Err(e)) => {
            eprintln!("invalid thread count: {e}");
            return ExitCode::from(2);
        }
    };
    match run_suite(&dir, threads) {
        Ok(outcomes) => {
            for o in &outcomes {
                println!("{o}");
            }
            println!("{}", summary_line(&outcomes));
            if outcomes.iter().all(|o| o.passed) && !outcomes.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
