//! Result rows and the machine header every benchmark file starts with.
//!
//! Rows are TSV `system, version, graph, op, threads, value, unit, checksum`
//! so result files from different runs and systems can be concatenated and
//! compared by a script; `#` lines above them record the machine facts that
//! make a figure interpretable.

use std::io::Write;
use std::path::Path;

/// One measured figure.
#[derive(Debug, Clone)]
pub struct Row {
    /// `stratagraph` or the baseline's name.
    pub system: &'static str,
    /// Graph name (`k20`).
    pub graph: String,
    /// Operation name, as in WORKLOAD.md where the operation is one of W1's.
    pub op: String,
    /// Threads the operation ran on.
    pub threads: usize,
    /// The median over runs.
    pub value: f64,
    /// Unit of `value`.
    pub unit: &'static str,
    /// What proves the work was done (sum of ids, edge count...), or empty.
    pub checksum: String,
}

/// Collects rows, echoing each to stdout as it arrives.
pub struct Table {
    rows: Vec<Row>,
    notes: Vec<String>,
}

impl Table {
    pub fn new() -> Self {
        Table::with_notes(Vec::new())
    }

    /// A table whose header also carries `notes` (`# key: value` lines on
    /// how the figures were taken), so a result file explains itself.
    pub fn with_notes(notes: Vec<String>) -> Self {
        println!("{}", machine_header().join("\n"));
        for n in &notes {
            println!("{n}");
        }
        println!("system\tversion\tgraph\top\tthreads\tvalue\tunit\tchecksum");
        Table {
            rows: Vec::new(),
            notes,
        }
    }

    pub fn push(&mut self, row: Row) {
        println!("{}", format_row(&row));
        self.rows.push(row);
    }

    /// The value of an earlier row.
    pub fn value(&self, system: &str, op: &str, threads: usize) -> Option<f64> {
        self.rows
            .iter()
            .find(|r| r.system == system && r.op == op && r.threads == threads)
            .map(|r| r.value)
    }

    /// Writes the header and all rows to `path`.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
        for line in machine_header().iter().chain(&self.notes) {
            writeln!(f, "{line}")?;
        }
        writeln!(
            f,
            "system\tversion\tgraph\top\tthreads\tvalue\tunit\tchecksum"
        )?;
        for r in &self.rows {
            writeln!(f, "{}", format_row(r))?;
        }
        f.flush()
    }
}

fn format_row(r: &Row) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        r.system,
        env!("CARGO_PKG_VERSION"),
        r.graph,
        r.op,
        r.threads,
        significant(r.value),
        r.unit,
        r.checksum
    )
}

/// Four significant digits: enough for noisy timings, short to read. NaN
/// marks an operation a system cannot do (its checksum column says why).
pub(crate) fn significant(v: f64) -> String {
    if v.is_nan() {
        return "n/a".into();
    }
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = 4 - 1 - v.abs().log10().floor() as i32;
    format!("{:.*}", digits.max(0) as usize, v)
}

/// `# key: value` lines describing the machine and build.
pub fn machine_header() -> Vec<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split(':').nth(1))
        .unwrap_or("unknown")
        .trim()
        .to_string();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .unwrap_or("unknown")
        .trim()
        .to_string();
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .unwrap_or_default()
        .trim()
        .to_string();
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    vec![
        format!("# cpu: {cpu}"),
        format!("# cores: {}", rayon::current_num_threads()),
        format!("# memory: {mem}"),
        format!("# kernel: {kernel}"),
        format!("# build: {profile}"),
        format!("# commit: {commit}"),
    ]
}

/// Median of the samples (the mean of the middle two for an even count).
pub fn median(samples: &[f64]) -> f64 {
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Resident set size of this process in bytes (Linux), or 0.
pub fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Bytes this process has had read from storage so far (Linux's
/// `/proc/self/io` `read_bytes`: page-cache misses, of files read and of
/// mapped pages alike), or `None` where that is not available.
pub fn storage_read_bytes() -> Option<u64> {
    std::fs::read_to_string("/proc/self/io").ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("read_bytes:"))
            .and_then(|v| v.trim().parse::<u64>().ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn storage_reads_are_read_from_proc() {
        assert!(
            storage_read_bytes().is_some(),
            "/proc/self/io has no read_bytes line"
        );
    }

    #[test]
    fn four_significant_digits() {
        assert_eq!(significant(1234567.0), "1234567");
        assert_eq!(significant(0.0123456), "0.01235");
        assert_eq!(significant(12.3456), "12.35");
    }
}
