//! The two homes of a stratagraph store in W1, set up the same way for
//! every operation.
//!
//! Each measurement starts from a fresh store with default options (the
//! system as a user gets it: 64 MiB MemGraph, background flushes), so one
//! operation's leftovers never flatter or burden the next. `settle` brings
//! a store to rest before a timed phase, so background maintenance started
//! by an untimed load does not run inside someone else's timing.

use std::path::{Path, PathBuf};
use stratagraph::{Graph, Options, SyncPolicy};

/// Where a store keeps its runs, and how it writes inserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// `Graph::in_memory`.
    Memory,
    /// `Graph::open` on a fresh directory.
    Disk,
    /// In memory with `Options::blind_inserts` off: every insert of an
    /// edge the MemGraph holds no version of searches the levels at once.
    MemoryChecked,
    /// On disk with `Options::blind_inserts` off.
    DiskChecked,
    /// On disk with `Options::compress_levels` off: level files keep one
    /// `f64` per weight.
    DiskRaw,
    /// On disk with `Options::pack_levels` on: compacted levels pack their
    /// destinations.
    DiskPacked,
}

impl Home {
    /// Parses `memory`, `disk`, `memory-checked`, `disk-checked`,
    /// `disk-raw` or `disk-packed`.
    ///
    /// # Errors
    /// Any other word, quoted.
    pub fn parse(word: &str) -> Result<Home, String> {
        match word {
            "memory" => Ok(Home::Memory),
            "disk" => Ok(Home::Disk),
            "memory-checked" => Ok(Home::MemoryChecked),
            "disk-checked" => Ok(Home::DiskChecked),
            "disk-raw" => Ok(Home::DiskRaw),
            "disk-packed" => Ok(Home::DiskPacked),
            other => Err(format!(
                "unknown home {other:?} (memory, disk, memory-checked, disk-checked, disk-raw or disk-packed)"
            )),
        }
    }

    /// The system name in result rows.
    pub fn system(self) -> &'static str {
        match self {
            Home::Memory => "stratagraph",
            Home::Disk => "stratagraph-disk",
            Home::MemoryChecked => "stratagraph-checked",
            Home::DiskChecked => "stratagraph-disk-checked",
            Home::DiskRaw => "stratagraph-disk-raw",
            Home::DiskPacked => "stratagraph-disk-packed",
        }
    }

    /// Whether the store lives in a directory.
    pub fn on_disk(self) -> bool {
        matches!(
            self,
            Home::Disk | Home::DiskChecked | Home::DiskRaw | Home::DiskPacked
        )
    }

    /// Whether inserts are written blind (the default).
    fn blind(self) -> bool {
        !matches!(self, Home::MemoryChecked | Home::DiskChecked)
    }
}

/// A fresh store and, on disk, the directory it owns.
pub(crate) struct Store {
    // Declared before `dir`: the graph closes before its files are removed.
    pub graph: Graph,
    dir: Option<tempfile::TempDir>,
}

impl Store {
    /// An empty store in `home`, its directory (on disk) created under `scratch`.
    pub fn fresh(
        home: Home,
        directed: bool,
        threads: usize,
        scratch: &Path,
    ) -> Result<Store, Box<dyn std::error::Error>> {
        let opts = Options {
            directed,
            threads,
            // W1 measures throughput: commits are logged and written to the
            // OS (a killed process loses nothing) but synced only at flushes
            // and close. Synced commits are `bench durability`'s subject.
            sync: SyncPolicy::Never,
            blind_inserts: home.blind(),
            compress_levels: home != Home::DiskRaw,
            pack_levels: home == Home::DiskPacked,
            ..Options::default()
        };
        Ok(match home.on_disk() {
            false => Store {
                graph: Graph::in_memory(opts),
                dir: None,
            },
            true => {
                let dir = tempfile::Builder::new()
                    .prefix("stratagraph-w1-")
                    .tempdir_in(scratch)
                    .map_err(|e| {
                        format!(
                            "{}: cannot create a store directory: {e}",
                            scratch.display()
                        )
                    })?;
                Store {
                    graph: Graph::open(dir.path(), opts)?,
                    dir: Some(dir),
                }
            }
        })
    }

    /// Creates every vertex first (so internal ids equal the files' ids,
    /// which the scan checksums rely on), then the edges in one batch.
    pub fn load(&self, vertices: &[u64], edges: &[(u64, u64, f64)]) -> stratagraph::Result<()> {
        self.graph.insert_vertices(vertices)?;
        self.graph.insert_edges(edges)?;
        Ok(())
    }

    /// Flushes and merges everything (`compact`, the work `close` does,
    /// leaving the store open): waits until background maintenance is done,
    /// and on disk makes the writes durable in level files.
    pub fn settle(&self) -> stratagraph::Result<()> {
        self.graph.compact()
    }

    /// Bytes of the store's files (on disk only).
    pub fn disk_bytes(&self) -> Option<u64> {
        self.dir.as_ref().map(|d| dir_bytes(d.path()))
    }
}

pub(crate) fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| {
            let p: PathBuf = e.path();
            match e.metadata() {
                Ok(m) if m.is_dir() => dir_bytes(&p),
                Ok(m) => m.len(),
                Err(_) => 0,
            }
        })
        .sum()
}
