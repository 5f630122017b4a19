//! Analytics layer of stratagraph.
//!
//! Every kernel here is written against the small [`GraphView`] trait instead of a concrete
//! storage type, so the same code runs on the engine's snapshots (`snapshot_view`) and on the
//! static [`CsrGraph`] baseline. That is what makes benchmark comparisons between the two honest: the
//! kernels never copy the graph into a private CSR, they only keep per-vertex side arrays, so
//! any difference in run time comes from how fast the view can be read.
//!
//! Kernel semantics follow the LDBC Graphalytics specification (BFS, SSSP, WCC, PageRank, LCC,
//! CDLP); global triangle counting and single-source betweenness are extras documented in
//! their modules. The [`graphalytics`] module validates kernels against the official reference
//! outputs.
#![deny(missing_docs)]

pub mod betweenness;
pub mod bfs;
pub mod cdlp;
pub mod csr;
pub mod graphalytics;
mod kept;
pub mod lcc;
mod neighborhood;
pub mod pagerank;
pub mod params;
mod pool;
pub mod projection;
pub mod snapshot_view;
pub mod sssp;
pub mod triangles;
pub mod view;
pub mod wcc;

pub use betweenness::betweenness_single_source;
pub use bfs::{bfs, BFS_UNREACHABLE};
pub use cdlp::cdlp;
pub use csr::{BuildError, CsrGraph};
pub use lcc::lcc;
pub use pagerank::pagerank;
pub use params::InvalidParameter;
pub use projection::{project, Projection, ProjectionError};
pub use snapshot_view::{snapshot_of_spec, store_with_vertices};
pub use sssp::{sssp, sssp_with_delta, SsspError};
pub use triangles::triangle_count;
pub use view::GraphView;
pub use wcc::{wcc, WCC_HOLE};
