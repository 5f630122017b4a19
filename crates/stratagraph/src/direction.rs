//! Which list of an edge's endpoints is meant: a directed graph keeps each
//! edge twice, in its source's out-list and its destination's in-list; an
//! undirected graph keeps both ends' lists on the out side only.
//!
//! Every public read names a logical direction (`out_neighbors`,
//! `in_neighbors`); it is resolved once, at that edge of the API, into the
//! side the store keeps (`Direction::stored`), and everything below takes
//! that resolved side.

/// One side of the adjacency.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Direction {
    /// Out-edges (source `v`, destinations listed); every edge of an
    /// undirected graph.
    Out,
    /// In-edges of a directed graph (target `v`, sources listed).
    In,
}

impl Direction {
    /// The side a graph keeps lists of this direction on: itself in a
    /// directed graph, `Out` in an undirected one.
    #[inline]
    pub(crate) fn stored(self, directed: bool) -> Direction {
        if directed {
            self
        } else {
            Direction::Out
        }
    }

    /// Whether this is the in side.
    #[inline]
    pub(crate) fn is_in(self) -> bool {
        self == Direction::In
    }

    /// `"out"` or `"in"`, for file names and messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Direction::Out => "out",
            Direction::In => "in",
        }
    }
}
