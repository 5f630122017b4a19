//! Vertex pages: the unit the level index, the MemGraph's write marks and a
//! snapshot's copies of the MemGraph all work in.
//!
//! A level's parts start on page boundaries, so one index entry per page
//! and level says which part holds a vertex (see `lsm::layers::Level`);
//! the MemGraph marks pages written (see `mem`), and readers copy and keep
//! its part page by page (see `read::mem_view`). Sharing one page size lets
//! a reader ask "was this page written since?" of the same unit it copies.

/// Vertices per page.
pub(crate) const PAGE: u32 = 1024;
