//! A snapshot's out-lists handed out as the columns of the level segment
//! that holds them, without copying: what Arrow export builds its
//! destination and weight columns from (`stratagraph-io`, `tables/internal.rs`).
//!
//! A list can be shared only where the snapshot reads it as a bare slice
//! of one segment: the sole source below the MemGraph (one L0 run, or one
//! level after a full compaction), plain at the snapshot's timestamp, and
//! untouched by the MemGraph as the snapshot sees it. Segments are
//! immutable and reference-counted, so a [`SharedColumn`] that holds one
//! keeps its bytes valid (a mapped file stays mapped, even after a later
//! compaction deletes it) for as long as the column lives, whatever the
//! store does meanwhile.

use super::Snapshot;
use crate::csr::{Section, Segment, Weights};
use std::ops::Range;

/// The out-lists of a run of consecutive vertices, as a snapshot sees
/// them, held in one segment's columns. In an undirected graph every edge
/// is in the lists of both its ends.
#[derive(Clone)]
pub struct SharedLists {
    seg: Segment,
    vertices: Range<u32>,
    /// The segment rows of `vertices` (`Segment::rows`): consecutive,
    /// since a sparse segment's vertices without a row end a run.
    rows: Range<usize>,
}

impl std::fmt::Debug for SharedLists {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedLists")
            .field("vertices", &self.vertices)
            .field("entries", &self.entries())
            .finish()
    }
}

impl SharedLists {
    /// The internal ids whose lists these are.
    pub fn vertices(&self) -> Range<u32> {
        self.vertices.clone()
    }

    /// `vertices().len() + 1` offsets into the segment's entries: vertex
    /// `vertices().start + i` has entries `offsets[i]..offsets[i + 1]`.
    /// The first is `entries().start`, not necessarily 0.
    pub fn offsets(&self) -> &[u32] {
        self.seg
            .offsets()
            .get(self.rows.start..=self.rows.end)
            .unwrap_or(&[])
    }

    /// The segment entries these lists take.
    pub fn entries(&self) -> Range<usize> {
        match self.offsets() {
            [first, .., last] => *first as usize..*last as usize,
            _ => 0..0,
        }
    }

    /// Every destination, list after list, each list ascending.
    pub fn dsts(&self) -> &[u32] {
        self.seg.dsts().get(self.entries()).unwrap_or(&[])
    }

    /// Each destination's weight, or `None` when the segment holds no
    /// weights (every weight is 1.0). Stored as `f64`s
    /// (`Weights::as_raw`) unless the level keeps them coded
    /// (`Options::compress_levels`).
    pub fn weights(&self) -> Option<Weights<'_>> {
        self.seg.weights().and_then(|w| w.slice(self.entries()))
    }

    /// `dsts()` as bytes that keep the segment alive.
    pub fn dsts_column(&self) -> SharedColumn {
        self.column(Section::Dsts, 4)
    }

    /// `weights()` as bytes that keep the segment alive, when the segment
    /// stores them as `f64`s; `None` when it holds no weights or keeps
    /// them coded (then `weights()` decodes them).
    pub fn weights_column(&self) -> Option<SharedColumn> {
        (self.seg.is_weighted() && !self.seg.weights_coded())
            .then(|| self.column(Section::Weights, 8))
    }

    fn column(&self, section: Section, width: usize) -> SharedColumn {
        let e = self.entries();
        SharedColumn {
            seg: self.seg.clone(),
            section,
            bytes: e.start * width..e.end * width,
        }
    }
}

/// Part of one column of a segment, as the file holds it (little-endian,
/// aligned to its element type), owning a reference to the segment so the
/// bytes stay valid while it lives: hand it to a zero-copy buffer (such as
/// `bytes::Bytes::from_owner`).
#[derive(Clone)]
pub struct SharedColumn {
    seg: Segment,
    section: Section,
    bytes: Range<usize>,
}

impl std::fmt::Debug for SharedColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedColumn({} bytes)", self.bytes.len())
    }
}

impl AsRef<[u8]> for SharedColumn {
    fn as_ref(&self) -> &[u8] {
        self.seg
            .section_bytes(self.section)
            .get(self.bytes.clone())
            .unwrap_or(&[])
    }
}

impl Snapshot {
    /// The out-lists this snapshot reads straight from a segment's columns,
    /// as maximal runs of consecutive vertices, ascending. Vertices in no
    /// run need the usual reads (`out_weighted_of`); after a full
    /// compaction with no write since, one run covers each level part.
    ///
    /// Costs a look at every vertex of the sole source below the MemGraph
    /// (and building the MemGraph pages of vertices it may hold); copies
    /// no edge.
    pub fn shared_out_lists(&self) -> Vec<SharedLists> {
        let mut runs = Vec::new();
        for part in self.layers().sole_parts() {
            let seg = &part.out;
            let rows = seg.rows();
            let range = seg.vertex_range();
            // The run open so far: its first vertex and row, and the row
            // after its last.
            let mut open: Option<(u32, usize, usize)> = None;
            for v in range.clone() {
                // A vertex without a row (sparse segment) has no offsets
                // to hand out: it ends a run, and its empty list is read
                // as usual.
                let row = rows.row(v).filter(|_| self.out_list_is_column(v, seg));
                match (row, open) {
                    (Some(r), None) => open = Some((v, r, r + 1)),
                    (Some(r), Some((a, first, _))) => open = Some((a, first, r + 1)),
                    (None, Some((a, first, end))) => {
                        runs.push(SharedLists {
                            seg: seg.clone(),
                            vertices: a..v,
                            rows: first..end,
                        });
                        open = None;
                    }
                    (None, None) => {}
                }
            }
            if let Some((a, first, end)) = open {
                runs.push(SharedLists {
                    seg: seg.clone(),
                    vertices: a..range.end,
                    rows: first..end,
                });
            }
        }
        runs
    }
}
