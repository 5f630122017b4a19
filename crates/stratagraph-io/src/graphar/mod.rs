//! A snapshot as a directory of Parquet files, and such a directory back
//! into a store.
//!
//! The layout follows Apache GraphAr (`gar/v1`), so GraphAr's readers,
//! Spark, DuckDB and anything else that reads Parquet can take it:
//!
//! ```text
//! DIR/graph.graph.yml                 the graph: its vertex and edge types
//! DIR/<type>.vertex.yml               one per vertex label
//! DIR/<src>_<label>_<dst>.edge.yml    one per (source label, edge label, destination label)
//! DIR/vertex/<type>/properties/chunk<k>
//! DIR/edge/<name>/ordered_by_source/adj_list/part<i>/chunk<j>
//! DIR/edge/<name>/ordered_by_source/properties/part<i>/chunk<j>
//! DIR/stratagraph.json                what GraphAr does not say (below)
//! ```
//!
//! A vertex chunk holds [`Chunks::vertices`] vertices of one label, in rows
//! `_graphArVertexIndex` (the vertex's index within its label), `_id` (the
//! vertex's id as the user gave it: an integer or, in a store of string
//! ids, its key) and one column per property key the label's vertices
//! use. An edge type's adjacency chunks hold `_graphArSrcIndex` and
//! `_graphArDstIndex` (indexes into the end labels' vertices), ordered by
//! source, part `i` holding the edges of source chunk `i`, at most
//! [`Chunks::edges`] per chunk; its property chunks line up with them row by
//! row: `_id` (the edge's id) and the edge's properties for property
//! edges, `_weight` for the weighted structure (which GraphAr has no word
//! for: its edge type is named [`WEIGHTED`]). Columns are typed as
//! [`crate::columns`] says.
//!
//! Where this departs from GraphAr (`docs/FORMAT.md` §7 lists it): no
//! offset chunks; property data types GraphAr does not name (`int8`,
//! `int16`, `binary`, `uuid`, `value` for engine-encoded columns) are
//! written under those names; `stratagraph.json` carries the snapshot's
//! timestamp, the store's kind and each type's label and counts, which an
//! import needs to give back the same graph.

mod export;
mod import;

pub(crate) use export::write_parquet_batches;
pub use export::{export, export_at, ExportError, Exported};
pub use import::{import, stored_kind};

use std::path::{Path, PathBuf};

/// How many rows a chunk file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunks {
    /// Vertices per vertex chunk, and source vertices per edge part.
    pub vertices: u64,
    /// Edges per edge chunk at most.
    pub edges: u64,
}

impl Default for Chunks {
    /// GraphAr's defaults: 2^18 vertices, 2^22 edges.
    fn default() -> Self {
        Chunks {
            vertices: 1 << 18,
            edges: 1 << 22,
        }
    }
}
/// The GraphAr edge type of the weighted structure's edges.
pub const WEIGHTED: &str = "_weighted";
/// The metadata file's name.
pub const META_FILE: &str = "stratagraph.json";
/// The metadata file's format name and version.
pub(crate) const META_FORMAT: &str = "stratagraph-graphar";
pub(crate) const META_VERSION: u64 = 1;

const VERTEX_INDEX: &str = "_graphArVertexIndex";
const SRC_INDEX: &str = "_graphArSrcIndex";
const DST_INDEX: &str = "_graphArDstIndex";
const ID: &str = "_id";
const WEIGHT: &str = "_weight";
/// Columns an export writes itself; a property key of the same name is
/// refused rather than silently shadowed.
const RESERVED: [&str; 5] = [VERTEX_INDEX, SRC_INDEX, DST_INDEX, ID, WEIGHT];

/// Vertex chunk `chunk` of the vertex type named `name`.
fn vertex_chunk(dir: &Path, name: &str, chunk: u64) -> PathBuf {
    dir.join("vertex")
        .join(name)
        .join("properties")
        .join(format!("chunk{chunk}"))
}

/// Chunk `chunk` of part `part` of the edge type named `name`: its
/// adjacency (`what` = `adj_list`) or its properties (`properties`).
fn edge_chunk(dir: &Path, name: &str, what: &str, part: u64, chunk: u64) -> PathBuf {
    dir.join("edge")
        .join(name)
        .join("ordered_by_source")
        .join(what)
        .join(format!("part{part}"))
        .join(format!("chunk{chunk}"))
}

/// A name as a file name: ASCII letters, digits, `-` and `_` as they are,
/// every other byte as `%XX` (so no name can climb out of the directory
/// or collide with another by case of spelling).
fn file_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
