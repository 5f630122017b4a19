//! Neighbour iteration over one vertex's adjacency as a snapshot sees it.
//!
//! The iterator owns a reference-counted copy of the vertex's `EdgeSet`
//! (taken under the vertex lock, then released), so it holds no lock while
//! the caller consumes it and a writer to the same vertex never waits on it.
//! A run is scanned on the *plain* path, destinations only with no version
//! check, when it holds no tombstone or old version and nothing newer than
//! the snapshot (Teseo's fast path; DESIGN principle 1); otherwise each
//! destination's versions are resolved against the snapshot timestamp.

use crate::csr::{Segment, Weights};
use crate::mem::{offset_of, visible_in_group, EdgeSet, Run};

/// Position inside an `EdgeSet`, yielding `(destination, run, index)` of
/// each edge visible at the snapshot.
struct Cursor {
    set: Option<EdgeSet>,
    ts: u64,
    block: usize,
    pos: usize,
    len: usize,
    rel: u32,
    plain: bool,
}

impl Cursor {
    fn new(set: Option<EdgeSet>, ts: u64) -> Cursor {
        let mut c = Cursor {
            set,
            ts,
            block: 0,
            pos: 0,
            len: 0,
            rel: 0,
            plain: true,
        };
        c.enter_block();
        c
    }

    fn enter_block(&mut self) {
        self.pos = 0;
        self.len = 0;
        if let Some(run) = self.set.as_ref().and_then(|s| s.runs().get(self.block)) {
            self.len = run.len();
            self.rel = offset_of(self.ts, run.base());
            self.plain = run.is_plain() && run.max_offset() <= self.rel;
        }
    }

    /// The run the cursor is in.
    #[inline]
    fn run(&self) -> &Run {
        &self.set.as_ref().expect("advance returned an entry").runs()[self.block]
    }

    /// Moves to the next visible edge; returns the index of its visible
    /// version inside `self.run()`.
    #[inline]
    fn advance(&mut self) -> Option<usize> {
        loop {
            if self.pos >= self.len {
                let set = self.set.as_ref()?;
                if self.block + 1 >= set.runs().len() {
                    return None;
                }
                self.block += 1;
                self.enter_block();
                continue;
            }
            let run = &self.set.as_ref()?.runs()[self.block];
            let i = self.pos;
            if self.plain {
                self.pos += 1;
                return Some(i);
            }
            let dsts = run.dsts();
            let mut end = i + 1;
            while end < self.len && dsts[end] == dsts[i] {
                end += 1;
            }
            self.pos = end;
            if let Some(k) = visible_in_group(run.stamps().slice(i..end), self.rel) {
                return Some(i + k);
            }
        }
    }

    /// Upper bound of remaining entries (for `size_hint`).
    fn remaining_bound(&self) -> usize {
        self.set.as_ref().map_or(0, |s| {
            s.runs()[self.block.min(s.runs().len().saturating_sub(1))..]
                .iter()
                .map(Run::len)
                .sum::<usize>()
                .saturating_sub(self.pos)
        })
    }
}

/// Neighbours of one vertex at a snapshot, ascending by internal id. It
/// borrows the snapshot (a flushed vertex is read in place from its run).
pub struct Neighbors<'a> {
    from: Feed<'a>,
}

/// Where an iterator's edges come from: a MemGraph set walked in place, or
/// a list merged from the MemGraph and the runs below it.
enum Feed<'a> {
    Set(Cursor),
    List(std::vec::IntoIter<(u32, f64)>),
    /// Destinations merged across layers, without weights: only `Neighbors`
    /// (which yields no weights) is built from it.
    Dsts(std::vec::IntoIter<u32>),
    /// A plain stretch of one segment's destination column, borrowed: no
    /// reference count is touched per call, which matters when several
    /// threads read the same run.
    Slice {
        dsts: &'a [u32],
        /// `None`: every weight is 1.0.
        weights: Option<Weights<'a>>,
        pos: usize,
    },
    /// Two borrowed ascending lists with no id in common, merged as they
    /// are read: a vertex's plain level slice and the MemGraph's additions
    /// to it, as a snapshot's page holds them (`mem_view`). Nothing is
    /// copied or allocated per read.
    Two {
        a: Side<'a>,
        b: Side<'a>,
    },
}

/// One list of `Feed::Two` and how far it was read.
struct Side<'a> {
    dsts: &'a [u32],
    /// `None`: every weight is 1.0.
    weights: Option<Weights<'a>>,
    pos: usize,
}

impl Side<'_> {
    #[inline]
    fn head(&self) -> Option<u32> {
        self.dsts.get(self.pos).copied()
    }

    #[inline]
    fn take(&mut self) -> (u32, f64) {
        let i = self.pos;
        self.pos += 1;
        let d = self.dsts.get(i).copied().unwrap_or(u32::MAX);
        (d, self.weights.and_then(|w| w.get(i)).unwrap_or(1.0))
    }

    fn rest(&self) -> &[u32] {
        self.dsts.get(self.pos..).unwrap_or(&[])
    }
}

/// Which side of `Feed::Two` holds the smaller next id (`None` when both
/// are read out).
#[inline]
fn first_side<'s, 'a>(a: &'s mut Side<'a>, b: &'s mut Side<'a>) -> Option<&'s mut Side<'a>> {
    match (a.head(), b.head()) {
        (Some(x), Some(y)) => Some(if x < y { a } else { b }),
        (Some(_), None) => Some(a),
        (None, Some(_)) => Some(b),
        (None, None) => None,
    }
}

/// Calls `f` on the ids of two disjoint ascending lists in ascending order.
#[inline]
fn fold_two<B>(a: &[u32], b: &[u32], init: B, mut f: impl FnMut(B, usize, bool) -> B) -> B {
    let (mut i, mut j, mut acc) = (0, 0, init);
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        if x < y {
            acc = f(acc, i, false);
            i += 1;
        } else {
            acc = f(acc, j, true);
            j += 1;
        }
    }
    acc = (i..a.len()).fold(acc, |acc, k| f(acc, k, false));
    (j..b.len()).fold(acc, |acc, k| f(acc, k, true))
}

impl<'a> Feed<'a> {
    fn two(a: &'a [u32], aw: Option<Weights<'a>>, b: &'a [u32], bw: Option<Weights<'a>>) -> Self {
        let side = |dsts, weights| Side {
            dsts,
            weights,
            pos: 0,
        };
        Feed::Two {
            a: side(a, aw),
            b: side(b, bw),
        }
    }

    /// Entries `range` of a segment, with their weights if it has any.
    #[inline]
    fn slice(seg: &'a Segment, range: std::ops::Range<usize>) -> Self {
        Feed::Slice {
            dsts: seg.list_dsts(range.clone()),
            weights: seg.list_weights(range),
            pos: 0,
        }
    }

    #[inline]
    fn next(&mut self) -> Option<(u32, f64)> {
        match self {
            Feed::Set(c) => {
                let i = c.advance()?;
                let run = c.run();
                Some((run.dsts()[i], run.weight(i)))
            }
            Feed::List(l) => l.next(),
            Feed::Dsts(l) => l.next().map(|d| (d, 1.0)),
            Feed::Slice { dsts, weights, pos } => {
                let d = *dsts.get(*pos)?;
                let w = weights.and_then(|w| w.get(*pos)).unwrap_or(1.0);
                *pos += 1;
                Some((d, w))
            }
            Feed::Two { a, b } => first_side(a, b).map(Side::take),
        }
    }

    #[inline]
    fn next_dst(&mut self) -> Option<u32> {
        match self {
            Feed::Set(c) => {
                let i = c.advance()?;
                Some(c.run().dsts()[i])
            }
            Feed::List(l) => l.next().map(|e| e.0),
            Feed::Dsts(l) => l.next(),
            Feed::Slice { dsts, pos, .. } => {
                let d = *dsts.get(*pos)?;
                *pos += 1;
                Some(d)
            }
            Feed::Two { a, b } => first_side(a, b).map(|s| s.take().0),
        }
    }

    fn remaining_bound(&self) -> usize {
        match self {
            Feed::Set(c) => c.remaining_bound(),
            Feed::List(l) => l.len(),
            Feed::Dsts(l) => l.len(),
            Feed::Slice { dsts, pos, .. } => dsts.len().saturating_sub(*pos),
            Feed::Two { a, b } => a.rest().len() + b.rest().len(),
        }
    }
}

impl<'a> Neighbors<'a> {
    pub(crate) fn new(set: Option<EdgeSet>, ts: u64) -> Self {
        Neighbors {
            from: Feed::Set(Cursor::new(set, ts)),
        }
    }

    /// Neighbours already resolved (merged across layers), ascending.
    pub(crate) fn from_list(list: Vec<(u32, f64)>) -> Self {
        Neighbors {
            from: Feed::List(list.into_iter()),
        }
    }

    /// A borrowed list of destinations, ascending (a hub's merged list
    /// kept by the snapshot): read like a plain segment's slice.
    pub(crate) fn from_slice(dsts: &'a [u32]) -> Self {
        Neighbors {
            from: Feed::Slice {
                dsts,
                weights: None,
                pos: 0,
            },
        }
    }

    /// Destinations already resolved (merged across layers), ascending:
    /// half the memory of `from_list`, for callers that want no weights.
    pub(crate) fn from_dsts(list: Vec<u32>) -> Self {
        Neighbors {
            from: Feed::Dsts(list.into_iter()),
        }
    }

    /// The entries `range` of a segment that is plain for the snapshot.
    pub(crate) fn from_segment(seg: &'a Segment, range: std::ops::Range<usize>) -> Self {
        Neighbors {
            from: Feed::slice(seg, range),
        }
    }

    /// The union of two ascending lists with no id in common, merged as
    /// it is read.
    pub(crate) fn from_two(a: &'a [u32], b: &'a [u32]) -> Self {
        Neighbors {
            from: Feed::two(a, None, b, None),
        }
    }

    /// The neighbours not yet yielded, as one borrowed slice, when they are
    /// read in place from a level the snapshot sees plain (`None` for
    /// lists merged across layers or walked in the MemGraph). Lets a
    /// caller probe a long list by binary search instead of walking it.
    pub fn as_slice(&self) -> Option<&'a [u32]> {
        match &self.from {
            Feed::Slice { dsts, pos, .. } => dsts.get(*pos..),
            _ => None,
        }
    }
}

impl Iterator for Neighbors<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        self.from.next_dst()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.from.remaining_bound()))
    }

    /// Sums and other folds over a flushed vertex run as a plain slice loop
    /// (one branch per vertex, not per edge), as over a CSR.
    #[inline]
    fn fold<B, F: FnMut(B, u32) -> B>(mut self, init: B, mut f: F) -> B {
        if let Feed::Slice { dsts, pos, .. } = &self.from {
            return dsts
                .get(*pos..)
                .unwrap_or(&[])
                .iter()
                .fold(init, |acc, &d| f(acc, d));
        }
        if let Feed::Two { a, b } = &self.from {
            let (a, b) = (a.rest(), b.rest());
            return fold_two(a, b, init, |acc, k, in_b| {
                let side = if in_b { b } else { a };
                f(acc, side.get(k).copied().unwrap_or(u32::MAX))
            });
        }
        let mut acc = init;
        while let Some(d) = self.from.next_dst() {
            acc = f(acc, d);
        }
        acc
    }
}

/// Neighbours with the weights of the connecting edges.
pub struct WeightedNeighbors<'a> {
    from: Feed<'a>,
    /// For in-edges of a directed graph the weight lives with the source's
    /// out-edge; this looks it up.
    lookup: Option<Box<dyn Fn(u32) -> f64 + Send + Sync>>,
}

impl<'a> WeightedNeighbors<'a> {
    pub(crate) fn new(
        set: Option<EdgeSet>,
        ts: u64,
        lookup: Option<Box<dyn Fn(u32) -> f64 + Send + Sync>>,
    ) -> Self {
        WeightedNeighbors {
            from: Feed::Set(Cursor::new(set, ts)),
            lookup,
        }
    }

    /// The entries `range` of a segment that is plain for the snapshot.
    #[inline]
    pub(crate) fn from_segment(seg: &'a Segment, range: std::ops::Range<usize>) -> Self {
        WeightedNeighbors {
            from: Feed::slice(seg, range),
            lookup: None,
        }
    }

    /// The entries `range` of a segment that is plain for the snapshot and
    /// additions it lacks with their weights, merged as they are read.
    #[inline]
    pub(crate) fn from_two(
        seg: &'a Segment,
        range: std::ops::Range<usize>,
        adds: &'a [u32],
        add_weights: &'a [f64],
    ) -> Self {
        let dsts = seg.list_dsts(range.clone());
        let weights = seg.list_weights(range);
        WeightedNeighbors {
            from: Feed::two(dsts, weights, adds, Some(Weights::Raw(add_weights))),
            lookup: None,
        }
    }

    /// Edges already resolved (merged across layers), ascending.
    pub(crate) fn from_list(
        list: Vec<(u32, f64)>,
        lookup: Option<Box<dyn Fn(u32) -> f64 + Send + Sync>>,
    ) -> Self {
        WeightedNeighbors {
            from: Feed::List(list.into_iter()),
            lookup,
        }
    }

    /// Calls `f(dst, weight)` for every remaining edge, in no set order:
    /// a list in two pieces (a slice below the MemGraph and the additions
    /// it lacks) comes piece by piece instead of merged, which saves a
    /// comparison and an unpredictable branch per edge for passes that
    /// need no order, such as shortest-path relaxations.
    #[inline]
    pub fn for_each_unordered(self, mut f: impl FnMut(u32, f64)) {
        if let (Feed::Two { a, b }, None) = (&self.from, &self.lookup) {
            for side in [a, b] {
                let weights = side.weights.and_then(|w| w.slice(side.pos..w.len()));
                each_weighted(side.rest(), weights.unwrap_or(Weights::Raw(&[])), &mut f);
            }
            return;
        }
        self.for_each(|(d, w)| f(d, w));
    }
}

/// Calls `f(dst, weight)` for each of `dsts` with its weight, 1.0 past the
/// end of `weights`: an unweighted segment passes none, and a damaged
/// weight column reads as the ordered read gives it. One loop, so `f` is
/// inlined once (the branch per edge is always predicted).
#[inline]
pub(crate) fn each_weighted(dsts: &[u32], weights: Weights<'_>, mut f: impl FnMut(u32, f64)) {
    for (k, &d) in dsts.iter().enumerate() {
        f(d, weights.get(k).unwrap_or(1.0));
    }
}

impl Iterator for WeightedNeighbors<'_> {
    type Item = (u32, f64);

    #[inline]
    fn next(&mut self) -> Option<(u32, f64)> {
        let (d, w) = self.from.next()?;
        Some((d, self.lookup.as_ref().map_or(w, |f| f(d))))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.from.remaining_bound()))
    }

    /// Folds (and `for_each`) over a flushed vertex run as a loop over its
    /// destination and weight columns, one branch per vertex, as over a CSR.
    #[inline]
    fn fold<B, F: FnMut(B, (u32, f64)) -> B>(self, init: B, mut f: F) -> B {
        if let (Feed::Slice { dsts, weights, pos }, None) = (&self.from, &self.lookup) {
            let dsts = dsts.get(*pos..).unwrap_or(&[]);
            match weights.map(|w| w.slice(*pos..w.len()).unwrap_or(Weights::Raw(&[]))) {
                None => return dsts.iter().fold(init, |acc, &d| f(acc, (d, 1.0))),
                Some(Weights::Raw(w)) if w.len() == dsts.len() => {
                    return dsts
                        .iter()
                        .zip(w)
                        .fold(init, |acc, (&d, &x)| f(acc, (d, x)));
                }
                Some(w) if w.len() == dsts.len() => {
                    return dsts
                        .iter()
                        .enumerate()
                        .fold(init, |acc, (k, &d)| f(acc, (d, w.get(k).unwrap_or(1.0))));
                }
                // A damaged weight column: `next` reads what it can.
                Some(_) => {}
            }
        }
        if let (Feed::Two { a, b }, None) = (&self.from, &self.lookup) {
            let weight =
                |s: &Side<'_>, k: usize| s.weights.and_then(|w| w.get(s.pos + k)).unwrap_or(1.0);
            let (ra, rb) = (a.rest(), b.rest());
            return fold_two(ra, rb, init, |acc, k, in_b| {
                let (side, list) = if in_b { (b, rb) } else { (a, ra) };
                let d = list.get(k).copied().unwrap_or(u32::MAX);
                f(acc, (d, weight(side, k)))
            });
        }
        // `for` drives `next`, not this `fold`.
        let mut acc = init;
        for e in self {
            acc = f(acc, e);
        }
        acc
    }
}

/// Calls `f` for every destination of `set` visible at `ts`, reading plain
/// runs as slices: the fastest way to scan one vertex.
#[inline]
pub(crate) fn visit(set: &EdgeSet, ts: u64, mut f: impl FnMut(u32)) {
    for run in set.runs() {
        let rel = offset_of(ts, run.base());
        let dsts = run.dsts();
        if run.is_plain() && run.max_offset() <= rel {
            dsts.iter().for_each(|&d| f(d));
            continue;
        }
        let stamps = run.stamps();
        let mut i = 0;
        while i < dsts.len() {
            let mut end = i + 1;
            while end < dsts.len() && dsts[end] == dsts[i] {
                end += 1;
            }
            if visible_in_group(stamps.slice(i..end), rel).is_some() {
                f(dsts[i]);
            }
            i = end;
        }
    }
}

/// Number of edges of `set` visible at `ts`.
pub(crate) fn degree(set: &EdgeSet, ts: u64) -> usize {
    let all_plain = set
        .runs()
        .iter()
        .all(|r| r.is_plain() && r.max_offset() <= offset_of(ts, r.base()));
    if all_plain {
        set.entries()
    } else {
        let mut n = 0;
        visit(set, ts, |_| n += 1);
        n
    }
}
