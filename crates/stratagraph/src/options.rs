//! Settings a store is created with.

/// The most worker threads a pool of the engine or its kernels is given.
/// Far more than the cores of any machine it runs on, and far fewer than
/// the count at which starting the pool alone takes seconds (65,536 threads
/// took longer than 40 s to start): front ends refuse larger counts.
pub const MAX_THREADS: usize = 1024;

/// When a commit to an on-disk store counts as durable (ignored in memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncPolicy {
    /// A commit returns after its log record is synced to the device
    /// (`fdatasync`); concurrent commits share one sync (group commit).
    /// Survives process crashes and power loss. The default.
    Always,
    /// A commit returns once its record is written to the operating system;
    /// a background thread syncs the log at this interval. A process crash
    /// loses nothing; a power loss or kernel crash may lose the commits of
    /// the last interval.
    Interval(std::time::Duration),
    /// A commit returns once its record is written to the operating system,
    /// and the log is synced only when segments are rotated or the store is
    /// closed. A process crash loses nothing; a power loss or kernel crash
    /// may lose any commit since the last flush. For bulk loads that can be
    /// redone.
    Never,
}

/// How a store is configured. `Options::default()` is a directed graph that
/// allows self-loops and creates missing endpoints on edge insertion.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Directed graphs keep out- and in-adjacency; undirected graphs store both
    /// directions of an edge and count it once.
    pub directed: bool,
    /// Whether the store names its vertices by string keys instead of
    /// integers: `Graph::intern_key` gives each key a `VertexId`, which
    /// every other call then takes. Fixed when the store is created.
    pub string_ids: bool,
    /// Whether an edge from a vertex to itself is accepted.
    pub allow_self_loops: bool,
    /// Whether `insert_edge` creates endpoints that do not exist yet (as
    /// networkx's `add_edge` does). When false, such an insert is refused with
    /// `Error::VertexNotFound`.
    pub auto_create_vertices: bool,
    /// Memory budget of the MemGraph in bytes: when the heap bytes of its
    /// edge versions and vertex histories, plus 64 bytes for each vertex
    /// it holds any of, reach it, a background flush writes them into a
    /// CSR run and frees them (versions an open snapshot still reads are
    /// freed when it closes, and are not counted against the next flush).
    /// Writers wait for the flush when the MemGraph reaches twice the
    /// budget. The tables kept for every vertex id (about 16 bytes: the id
    /// map, the MemGraph's slot index and existence bits) are not counted.
    pub memgraph_bytes: usize,
    /// How much larger each level below L1 may grow than the one above it
    /// (LSMGraph's T; default 10). L1 holds up to `ratio` MemGraph budgets.
    /// Larger values mean fewer levels (faster reads, fewer merges per
    /// edge read) but more rewriting per compaction; values below 2 count
    /// as 2.
    pub level_ratio: u32,
    /// Threads used by batch writes (0 = all cores; at most
    /// [`MAX_THREADS`], larger counts are used as `MAX_THREADS`).
    pub threads: usize,
    /// Threads a compaction merges level parts on (0 = all cores; at most
    /// [`MAX_THREADS`]). A pool apart from `threads`' so that a batch never
    /// waits behind a compaction's merge for a worker, and so that a store
    /// written by one thread still merges on every core while its writers
    /// wait for room (as RocksDB's background jobs do).
    pub compaction_threads: usize,
    /// How many commits the in-memory timestamp encoding may span before a
    /// container re-bases its stamps (default 2^30). Small values are only
    /// useful to exercise re-basing in tests.
    pub stamp_window: u32,
    /// When commits to an on-disk store are durable (see [`SyncPolicy`]).
    pub sync: SyncPolicy,
    /// A batch insert of at least this many edges into a store that holds
    /// no edge yet (a bulk load) is written straight into a CSR level
    /// below the MemGraph instead of going through it: several times
    /// faster, and the loaded graph is read at CSR speed at once.
    /// `usize::MAX` turns this off. Default 65536; see `batch::bulk` for why.
    pub bulk_load_min_edges: usize,
    /// Bytes of log an on-disk store keeps after it no longer needs them
    /// for recovery, so that `Graph::changes` reaches back past flushes:
    /// retired log segments are kept as `changes-*.log` files in the store
    /// and the oldest go once they total more than this. 0 keeps none (changes
    /// then reach back to the last flush only). Not stored. Default 64 MiB.
    pub change_log_bytes: u64,
    /// The most internal vertex ids the store hands out; a write that needs
    /// one more is refused with `Error::VertexIdsExhausted`. Every external
    /// id the store has seen holds one for good (deleting a vertex does not
    /// free it), so this bounds the vertices ever created, and with them
    /// the vertex tables' memory, e.g. when ids come from untrusted input.
    /// Not stored: a store reopened with a smaller cap than the ids it
    /// already holds keeps them and takes no new one. Default and upper
    /// bound `u32::MAX` (internal ids are `u32`, and `u32::MAX` itself is
    /// kept as a sentinel).
    pub max_vertex_ids: u64,
    /// Whether `Graph::open` may create a store where there is none (an
    /// absent directory, or one holding no store yet). Off, such a
    /// directory is refused with `Error::NotAStore` and left untouched: for
    /// callers that mean to open an existing store only. Default on.
    pub create_if_missing: bool,
    /// Open an existing on-disk store without changing any of its files:
    /// the directory and its files need only be readable. The log is
    /// replayed in memory (a torn last record is skipped, not cut off);
    /// nothing is flushed, compacted, checkpointed or removed, and writes,
    /// `flush` and `compact` return `Error::ReadOnly`. The store's `LOCK`
    /// file is held shared: other read-only handles and `check` may open
    /// the store at the same time, a writer may not (and a store open for
    /// writing cannot be opened read-only). A store directory without a
    /// `LOCK` file (a copy that left it out) is read without a lock. Not
    /// stored; ignored in memory. Default off.
    pub read_only: bool,
    /// Whether an insert of an edge the MemGraph holds no version of is
    /// written without searching the levels below for it (a blind write).
    /// The search only tells a new edge from a re-weight of one already
    /// there, which matters for the edge count alone; blind, the count is
    /// settled later, many flushes' inserts at once in vertex order: once
    /// they take the MemGraph's budget (8 bytes each, 16 a commit) or come
    /// from 16 flushes, or when a snapshot's `edge_count` needs them first
    /// (see `blind.rs`). So blind inserts take up to one more MemGraph
    /// budget of memory. Counts and reads are exact either way. Off, every
    /// such insert searches at once, as under a memory cap that search is
    /// a random page read. Not stored. Default on.
    pub blind_inserts: bool,
    /// Whether level files keep their weights compressed
    /// (`docs/FORMAT.md` §1.5): a segment with at most 65536 distinct
    /// weights keeps them as a dictionary and a one- or two-byte code per
    /// edge instead of eight bytes; reads decode as they go, at no
    /// measurable cost. Off, weights are stored as `f64`s, which Arrow
    /// export can then hand out without a copy
    /// (`Snapshot::shared_out_lists`). Applies to files written from now
    /// on; a store mixes both freely. Not stored. Default on.
    pub compress_levels: bool,
    /// Whether the levels a compaction or a bulk load writes (not a
    /// flush's run, which is merged again soon) keep each vertex's
    /// destinations packed: the first, then the gaps bit-packed in chunks
    /// of 128 (`docs/FORMAT.md` §1.5.1), about two bytes an edge instead of
    /// four; at k20 a compacted store takes 7.5 bytes an edge instead of
    /// 11.2. Reads decode each list they visit (scans a block of lists at
    /// a time, and no more of each than a kernel asks for), which costs
    /// analytics kernels 1.3x to 2x the plain levels' time today
    /// (`bench/NOTES.md`, session 33), so it is off by default: for
    /// graphs whose levels must fit a memory or disk budget. A packed
    /// level's lists are not shared with Arrow export. Not stored. Default
    /// off.
    pub pack_levels: bool,
    /// How a flush writes each vertex's updates into its run: as deltas
    /// (the new versions only; a read merges every level holding the
    /// vertex), as pivots (its whole list, marked so that reads stop
    /// there), or adaptively by degree, as Poly-LSM does (see
    /// [`UpdatePolicy`]). Not stored. Default [`UpdatePolicy::Delta`].
    pub update_policy: UpdatePolicy,
}

/// Whether a flush writes a vertex's updates as deltas or pivots
/// (Poly-LSM, Aster SIGMOD 2025, §3.2-3.3).
///
/// A delta leaves a vertex's list spread over the levels, each of which a
/// read of the vertex visits: under a memory cap a page read each. A pivot
/// writes the whole list into the new run, which costs reading the levels'
/// copy once and writing it again, and lets every later read stop at that
/// run. Reads of a pivoted vertex that the MemGraph holds nothing of gain;
/// whole-graph scans read every level as before.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UpdatePolicy {
    /// Every write stays a delta (the behaviour of stores before pivots).
    Delta,
    /// Every vertex a flush writes is written as a pivot. High-degree
    /// vertices then rewrite long lists at every flush: for comparison.
    Pivot,
    /// Pivots for vertices whose degree, as a one-byte counter per vertex
    /// estimates it, is below the threshold of Poly-LSM's cost model for
    /// the store's shape (level ratio, levels, bytes an edge, average
    /// degree) and this share of look-ups among look-ups and updates
    /// (0 to 1; more look-ups, more pivots).
    Adaptive {
        /// The expected share of neighbour look-ups in the workload.
        lookup_share: f64,
    },
}

impl UpdatePolicy {
    /// The policy a user names in words, as the Python package and the
    /// command line take it: `delta`, `pivot` or `adaptive:SHARE` with
    /// SHARE a number from 0 to 1; `None` for anything else.
    pub fn parse(s: &str) -> Option<UpdatePolicy> {
        match s.trim() {
            "delta" => Some(UpdatePolicy::Delta),
            "pivot" => Some(UpdatePolicy::Pivot),
            t => t
                .strip_prefix("adaptive:")
                .and_then(|share| share.parse::<f64>().ok())
                .filter(|share| (0.0..=1.0).contains(share))
                .map(|lookup_share| UpdatePolicy::Adaptive { lookup_share }),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            directed: true,
            string_ids: false,
            allow_self_loops: true,
            auto_create_vertices: true,
            memgraph_bytes: 64 << 20,
            level_ratio: 10,
            threads: 0,
            compaction_threads: 0,
            stamp_window: 1 << 30,
            sync: SyncPolicy::Always,
            bulk_load_min_edges: 1 << 16,
            change_log_bytes: 64 << 20,
            max_vertex_ids: u64::from(u32::MAX),
            create_if_missing: true,
            read_only: false,
            blind_inserts: true,
            compress_levels: true,
            pack_levels: false,
            update_policy: UpdatePolicy::Delta,
        }
    }
}

impl Options {
    /// Default options for an undirected graph.
    pub fn undirected() -> Self {
        Options {
            directed: false,
            string_ids: false,
            ..Options::default()
        }
    }
}
