//! Settings a store is created with.

/// How a store is configured. `Options::default()` is a directed graph that
/// allows self-loops and creates missing endpoints on edge insertion.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Directed graphs keep out- and in-adjacency; undirected graphs store both
    /// directions of an edge and count it once.
    pub directed: bool,
    /// Whether an edge from a vertex to itself is accepted.
    pub allow_self_loops: bool,
    /// Whether `insert_edge` creates endpoints that do not exist yet (as
    /// networkx's `add_edge` does). When false, such an insert is refused with
    /// `Error::VertexNotFound`.
    pub auto_create_vertices: bool,
    /// Memory budget of the active MemGraph in bytes. Recorded now; flushing
    /// to CSR levels when it is exceeded is the job of the LSM layer.
    pub memgraph_bytes: usize,
    /// Threads used by batch writes (0 = all cores).
    pub threads: usize,
    /// How many commits the in-memory timestamp encoding may span before a
    /// container re-bases its stamps (default 2^30). Small values are only
    /// useful to exercise re-basing in tests.
    pub stamp_window: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            directed: true,
            allow_self_loops: true,
            auto_create_vertices: true,
            memgraph_bytes: 64 << 20,
            threads: 0,
            stamp_window: 1 << 30,
        }
    }
}

impl Options {
    /// Default options for an undirected graph.
    pub fn undirected() -> Self {
        Options {
            directed: false,
            ..Options::default()
        }
    }
}
