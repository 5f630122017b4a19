//! The flushed layers below the MemGraph: L0 runs and levels, and the page
//! index that finds a vertex's part of each level.
//!
//! `Layers` is immutable and shared through an `Arc`: a flush publishes a new
//! one with its run in front, and every snapshot and commit keeps the one it
//! started with. MemGraph versions a run holds are dropped from the MemGraph
//! only once no holder of an older `Layers` remains (see `store::maintain`), so a
//! reader always finds every version either in the MemGraph or in its runs.
//!
//! Readers merge a vertex's versions across these sources
//! (`crate::read::merge`); writers decide an edge's latest state by the
//! same rule (`crate::edge_rules`).

use crate::csr::Segment;
use crate::direction::Direction;
use crate::page::PAGE;
use crate::version::{Decided, Timestamp};
use std::any::Any;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// One CSR file pair: an L0 run (what one flush wrote, covering every
/// vertex) or a part of a level (one vertex range of it). Both hold every
/// version that snapshots at or after the watermark of their writing need.
pub(crate) struct FlushedRun {
    /// Names the run's files in an on-disk store.
    pub id: u64,
    pub out: Segment,
    /// In-edges of a directed graph.
    pub inn: Option<Segment>,
    /// The newest commit whose versions it may hold.
    pub cut: Timestamp,
}

impl FlushedRun {
    /// The segment of one direction (undirected graphs keep all in `out`).
    #[inline]
    pub(crate) fn seg(&self, dir: Direction) -> &Segment {
        match &self.inn {
            Some(s) if dir.is_in() => s,
            _ => &self.out,
        }
    }

    /// The vertices it covers.
    pub(crate) fn range(&self) -> Range<u32> {
        self.out.vertex_range()
    }

    /// Entries (versions) in both directions.
    pub(crate) fn entries(&self) -> u64 {
        (self.out.entry_count() + self.inn.as_ref().map_or(0, Segment::entry_count)) as u64
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.out.byte_len() + self.inn.as_ref().map_or(0, Segment::byte_len)
    }

    /// Adds the entries of each index page's vertices, in both directions,
    /// to `counts[page]` (pages past `counts` are left out).
    ///
    /// Each segment's rows are read once, front to back. A compaction
    /// plans from these counts for every input: asked page by page, input
    /// after input, the reads of many files interleave, and under a memory
    /// cap each file's read-around is evicted before its next page comes.
    pub(crate) fn add_entries_by_page(&self, counts: &mut [u64]) {
        for seg in std::iter::once(&self.out).chain(&self.inn) {
            let r = seg.vertex_range();
            let first = r.start / PAGE;
            let last = r.end.div_ceil(PAGE).min(counts.len() as u32);
            let mut below = seg.entries_below(first.saturating_mul(PAGE));
            for p in first..last {
                let next = seg.entries_below((p + 1).saturating_mul(PAGE));
                counts[p as usize] += next.saturating_sub(below) as u64;
                below = next.max(below);
            }
        }
    }
}

/// One level below L0: parts with disjoint vertex ranges, ascending, each
/// starting on a page boundary, and the page index over them.
///
/// Both are shared: a flush or a compaction that leaves a level alone
/// passes it on to the next `Layers` without copying its index, so only
/// the levels a compaction rewrites are rebuilt.
#[derive(Default, Clone)]
pub(crate) struct Level {
    parts: Arc<[Arc<FlushedRun>]>,
    /// Page number -> index into `parts` (`NO_PART`: none).
    pages: Arc<[u32]>,
    entries: u64,
}

const NO_PART: u32 = u32::MAX;

impl Level {
    /// A level of `parts` (any order), or why they cannot form one.
    pub(crate) fn new(mut parts: Vec<Arc<FlushedRun>>) -> Result<Level, String> {
        parts.sort_by_key(|p| p.range().start);
        let mut pages = Vec::new();
        let mut end = 0u32;
        for (i, p) in parts.iter().enumerate() {
            let r = p.range();
            if r.start % PAGE != 0 || r.start < end || r.is_empty() {
                return Err(format!(
                    "level part {} covers vertices {r:?}, which is empty, overlaps \
                     the part before it or does not start on a {PAGE}-vertex page",
                    p.id
                ));
            }
            if let Some(inn) = &p.inn {
                if inn.vertex_range() != r {
                    return Err(format!(
                        "level part {} has directions of different ranges",
                        p.id
                    ));
                }
            }
            let (first, last) = ((r.start / PAGE) as usize, r.end.div_ceil(PAGE) as usize);
            pages.resize(first, NO_PART);
            pages.resize(last, i as u32);
            end = last as u32 * PAGE;
        }
        let entries = parts.iter().map(|p| p.entries()).sum();
        Ok(Level {
            parts: parts.into(),
            pages: pages.into(),
            entries,
        })
    }

    /// The part holding vertex `v`, if any.
    #[inline]
    pub(crate) fn part_of(&self, v: u32) -> Option<&FlushedRun> {
        match self.pages.get((v / PAGE) as usize) {
            Some(&i) if i != NO_PART => self.parts.get(i as usize).map(|p| &**p),
            _ => None,
        }
    }

    pub(crate) fn parts(&self) -> &[Arc<FlushedRun>] {
        &self.parts
    }

    /// Entries (versions) held, both directions.
    pub(crate) fn entries(&self) -> u64 {
        self.entries
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }
}

/// Which sources a vertex can be in, decided once per `Layers` so the read
/// path's common cases cost one comparison.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Empty,
    /// One L0 run and no levels.
    OneRun,
    /// No L0 runs and one non-empty level (its index).
    OneLevel(usize),
    Many,
}

/// Everything below the MemGraph: L0 runs (newest first) above levels
/// L1..Ln (`levels[0]` is L1). Every source is newer than the ones below it
/// for any one vertex, which is what makes the merged reads simple.
pub(crate) struct Layers {
    pub runs: Vec<Arc<FlushedRun>>,
    pub levels: Vec<Level>,
    shape: Shape,
    /// Per index page, the segments of the one source that can hold its
    /// vertices, where one can (see `plain_sole`).
    sole_pages: Box<[Option<SolePage>]>,
    /// What readers derived from exactly these layers and keep for later
    /// readers of them (see `reader_cache`).
    reader_cache: OnceLock<Arc<dyn Any + Send + Sync>>,
}

impl Default for Layers {
    fn default() -> Self {
        Layers::new(Vec::new(), Vec::new())
    }
}

/// The segments of one index page's sole source below the MemGraph, with
/// the first timestamp at which each reads as a plain slice of its file
/// (never, for a packed one: `Segment::bare_from`).
#[derive(Clone)]
struct SolePage {
    out: Segment,
    /// `out` again in an undirected graph.
    inn: Segment,
    out_plain_from: Option<u64>,
    inn_plain_from: Option<u64>,
    /// The same for a packed segment: from when it decodes to exactly what
    /// a snapshot sees (no versions to resolve).
    out_packed_from: Option<u64>,
    inn_packed_from: Option<u64>,
}

impl SolePage {
    fn new(run: &FlushedRun) -> SolePage {
        let inn = run.seg(Direction::In).clone();
        let packed = |s: &Segment| s.plain_from().filter(|_| s.is_packed());
        SolePage {
            out_plain_from: run.out.bare_from(),
            inn_plain_from: inn.bare_from(),
            out_packed_from: packed(&run.out),
            inn_packed_from: packed(&inn),
            out: run.out.clone(),
            inn,
        }
    }
}

/// The page table of `sole_pages` for a shape with one source per vertex.
fn sole_pages(shape: Shape, runs: &[Arc<FlushedRun>], levels: &[Level]) -> Box<[Option<SolePage>]> {
    match shape {
        Shape::OneRun => {
            let Some(run) = runs.first() else {
                return Box::default();
            };
            let pages = run.range().end.div_ceil(PAGE) as usize;
            vec![Some(SolePage::new(run)); pages].into_boxed_slice()
        }
        Shape::OneLevel(i) => {
            let level = &levels[i];
            let made: Vec<SolePage> = level.parts.iter().map(|p| SolePage::new(p)).collect();
            level
                .pages
                .iter()
                .map(|&k| made.get(k as usize).cloned())
                .collect()
        }
        Shape::Empty | Shape::Many => Box::default(),
    }
}

impl Layers {
    pub(crate) fn new(runs: Vec<Arc<FlushedRun>>, levels: Vec<Level>) -> Layers {
        let filled: Vec<usize> = (0..levels.len())
            .filter(|&i| !levels[i].is_empty())
            .collect();
        let shape = match (runs.len(), filled.as_slice()) {
            (0, []) => Shape::Empty,
            (1, []) => Shape::OneRun,
            (0, [i]) => Shape::OneLevel(*i),
            _ => Shape::Many,
        };
        Layers {
            sole_pages: sole_pages(shape, &runs, &levels),
            runs,
            levels,
            shape,
            reader_cache: OnceLock::new(),
        }
    }

    /// The read path's cache for these layers, created empty by the first
    /// caller. A snapshot's copies of the MemGraph and merged hub lists are
    /// exact for any later snapshot over the same layers, and wrong over
    /// any other, so they live exactly as long as this `Layers`: the next
    /// flush or compaction publishes a new one with an empty slot. The
    /// slot is typed by its one user, the read path (`crate::read`), which
    /// storage does not know. A caller asking with another type than the
    /// first gets a fresh value that is not kept.
    pub(crate) fn reader_cache<T: Any + Send + Sync + Default>(&self) -> Arc<T> {
        let slot = self
            .reader_cache
            .get_or_init(|| Arc::new(T::default()) as Arc<dyn Any + Send + Sync>);
        Arc::clone(slot).downcast::<T>().unwrap_or_default()
    }

    /// The read path's cache for these layers if a reader made one.
    pub(crate) fn reader_cache_if_made<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        Arc::clone(self.reader_cache.get()?).downcast::<T>().ok()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.shape == Shape::Empty
    }

    /// Every run and level part, L0 first, then level by level.
    pub(crate) fn all(&self) -> impl Iterator<Item = &Arc<FlushedRun>> {
        self.runs
            .iter()
            .chain(self.levels.iter().flat_map(|l| l.parts.iter()))
    }

    /// Pivot marks in every segment, both directions.
    pub(crate) fn pivot_marks(&self) -> u64 {
        self.all()
            .map(|r| r.out.pivot_count() + r.inn.as_ref().map_or(0, Segment::pivot_count))
            .sum()
    }

    /// Bytes held by every segment.
    pub(crate) fn bytes(&self) -> usize {
        self.all().map(|r| r.bytes() as usize).sum()
    }

    /// When only one source below the MemGraph can hold `v`, that source.
    #[inline]
    pub(crate) fn sole(&self, v: u32) -> Option<&FlushedRun> {
        match self.shape {
            Shape::OneRun => self.runs.first().map(|r| &**r),
            Shape::OneLevel(i) => self.levels[i].part_of(v),
            _ => None,
        }
    }

    /// The parts of the one source below the MemGraph when there is one
    /// (one L0 run, or one level after a full compaction), ascending;
    /// empty otherwise.
    pub(crate) fn sole_parts(&self) -> &[Arc<FlushedRun>] {
        match self.shape {
            Shape::OneRun => &self.runs[..1],
            Shape::OneLevel(i) => self.levels[i].parts(),
            Shape::Empty | Shape::Many => &[],
        }
    }

    /// When one source below the MemGraph can hold `v` and its segment in
    /// this direction (`inn` resolved for undirected graphs by the caller
    /// or not: both give `out` there) reads as a plain slice at `ts`, that
    /// segment. The same answer as `sole` and `Segment::is_bare_at`, from
    /// one table look-up: point reads ask it once per vertex, and walking
    /// level, page index, part and segment cost as much as the read.
    #[inline]
    pub(crate) fn plain_sole(&self, v: u32, dir: Direction, ts: u64) -> Option<&Segment> {
        self.sole_from(v, dir, ts, false)
    }

    /// `plain_sole` for a packed segment: when one source below the
    /// MemGraph can hold `v` and its segment in this direction is packed
    /// and has no versions a snapshot at `ts` must resolve, that segment,
    /// whose decoded lists (`Segment::with_list`) are what the snapshot
    /// sees below the MemGraph.
    #[inline]
    pub(crate) fn packed_sole(&self, v: u32, dir: Direction, ts: u64) -> Option<&Segment> {
        self.sole_from(v, dir, ts, true)
    }

    /// `plain_sole` (`packed` false) or `packed_sole` (true).
    #[inline]
    fn sole_from(&self, v: u32, dir: Direction, ts: u64, packed: bool) -> Option<&Segment> {
        let page = self.sole_pages.get((v / PAGE) as usize)?.as_ref()?;
        let (seg, from) = match (dir, packed) {
            (Direction::In, false) => (&page.inn, page.inn_plain_from),
            (Direction::Out, false) => (&page.out, page.out_plain_from),
            (Direction::In, true) => (&page.inn, page.inn_packed_from),
            (Direction::Out, true) => (&page.out, page.out_packed_from),
        };
        from.is_some_and(|f| ts >= f).then_some(seg)
    }

    /// The segments that may hold `v` in one direction, newest first, all
    /// of them: for reads whose results are shared with readers of other
    /// timestamps (a snapshot's MemGraph pages and the slices they were
    /// built over, `read::mem_view`), which must all see the same slices.
    pub(crate) fn segments_of(&self, v: u32, dir: Direction) -> impl Iterator<Item = &Segment> {
        self.runs
            .iter()
            .map(|r| &**r)
            .chain(self.levels.iter().filter_map(move |l| l.part_of(v)))
            .map(move |r| r.seg(dir))
    }

    /// The segments a read of `v`'s list in one direction at `ts` needs,
    /// newest first: those that may hold `v`, down to the first one marked
    /// a pivot for `v` at or before `ts` (`crate::pivot`), which with the
    /// ones above it holds the whole list. Reading further would give the
    /// same answer, older versions being hidden by newer ones; it would
    /// only cost more.
    pub(crate) fn segments_at(
        &self,
        v: u32,
        dir: Direction,
        ts: u64,
    ) -> impl Iterator<Item = &Segment> {
        let mut done = false;
        self.segments_of(v, dir).map_while(move |seg| {
            if done {
                return None;
            }
            done = seg.pivot_of(v).is_some_and(|p| p <= ts);
            Some(seg)
        })
    }

    /// Weight of edge `v -> d` in the latest state of these layers alone
    /// (the MemGraph ignored): the newest source holding a version decides.
    pub(crate) fn latest(&self, v: u32, d: u32, dir: Direction) -> Option<f64> {
        self.segments_at(v, dir, u64::MAX)
            .map(|seg| seg.decided(v, d, u64::MAX))
            .find(|d| d.decides())
            .and_then(Decided::weight)
    }

    /// `latest(v, d, dir).is_some()`, without reading the weight.
    pub(crate) fn is_live(&self, v: u32, d: u32, dir: Direction) -> bool {
        self.segments_at(v, dir, u64::MAX)
            .find_map(|seg| seg.decided_live(v, d, u64::MAX))
            .unwrap_or(false)
    }

    /// Starts reading what look-ups of edges of `vertices` read in every
    /// segment (`Segment::will_need`).
    pub(crate) fn will_need(&self, vertices: Range<u32>, dir: Direction) {
        let overlaps = |r: &Arc<FlushedRun>| {
            let range = r.range();
            range.start < vertices.end && vertices.start < range.end
        };
        for r in self.all().filter(|r| overlaps(r)) {
            r.seg(dir).will_need(vertices.clone());
        }
    }

    /// One past the last vertex any run or level part covers.
    pub(crate) fn vertex_end(&self) -> u32 {
        self.all().map(|r| r.range().end).max().unwrap_or(0)
    }

    /// `latest(v, d, dir).is_some()` for each `d` of `dsts` (ascending),
    /// asking each segment about all the destinations still undecided at
    /// once (`Segment::decided_live_each`): for the many look-ups of one
    /// vertex a settling pass makes (`crate::blind`).
    pub(crate) fn live_each(&self, v: u32, dsts: &[u32], dir: Direction) -> Vec<bool> {
        let mut live = vec![false; dsts.len()];
        if let [d] = dsts {
            live[0] = self.is_live(v, *d, dir);
            return live;
        }
        // `open[j]`: the index in `dsts` of the j-th destination no
        // segment has decided yet; `asked`, their destinations.
        let mut open: Vec<usize> = (0..dsts.len()).collect();
        let mut asked: Vec<u32> = dsts.to_vec();
        for seg in self.segments_at(v, dir, u64::MAX) {
            let mut decided = vec![false; open.len()];
            seg.decided_live_each(v, &asked, u64::MAX, |j, l| {
                live[open[j]] = l;
                decided[j] = true;
            });
            let mut j = 0;
            open.retain(|_| {
                j += 1;
                !decided[j - 1]
            });
            asked = open.iter().map(|&k| dsts[k]).collect();
            if open.is_empty() {
                break;
            }
        }
        live
    }

    /// Starts loading where `v`'s lists begin below the MemGraph, for a
    /// write that will look there (see `util::prefetch`).
    pub(crate) fn prefetch_lists(&self, v: u32, dir: Direction) {
        for seg in self.segments_at(v, dir, u64::MAX) {
            seg.prefetch_range(v);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::csr::{Encoding, SegEntry, SegmentWriter};
    use crate::direction::Direction;

    /// A run of out-lists `out`, flushed at timestamp 1.
    fn run(id: u64, out: Segment) -> Arc<FlushedRun> {
        Arc::new(FlushedRun {
            id,
            out,
            inn: None,
            cut: 1,
        })
    }

    /// A part covering `range` with one edge at its first vertex.
    fn part(id: u64, range: Range<u32>) -> Arc<FlushedRun> {
        let mut w = SegmentWriter::new(range.start, Direction::Out);
        w.push_vertex(range.start, &[SegEntry::plain(0)]).unwrap();
        let out = Segment::from_bytes(w.finish(range.end).unwrap(), "test").unwrap();
        run(id, out)
    }

    #[test]
    fn the_page_index_finds_each_vertex_part() {
        let level =
            Level::new(vec![part(2, 3 * PAGE..3 * PAGE + 10), part(1, 0..2 * PAGE)]).unwrap();
        let id = |v: u32| level.part_of(v).map(|p| p.id);
        assert_eq!(id(0), Some(1));
        assert_eq!(id(2 * PAGE - 1), Some(1));
        assert_eq!(id(2 * PAGE), None, "a page no part covers");
        assert_eq!(id(3 * PAGE + 5), Some(2));
        // Past the part's end but on its page: the part, which holds
        // nothing there.
        assert_eq!(id(3 * PAGE + 20), Some(2));
        assert_eq!(id(4 * PAGE), None);
        assert_eq!(level.entries(), 2);
    }

    /// A segment over `range` holding `degree(v)` entries at each vertex.
    fn segment(
        range: Range<u32>,
        dir: Direction,
        sparse: bool,
        degree: &dyn Fn(u32) -> u32,
    ) -> Segment {
        let encoding = Encoding {
            sparse_rows: sparse,
            ..Encoding::PLAIN
        };
        let mut w = SegmentWriter::new(range.start, dir).encoding(encoding);
        for v in range.clone() {
            let list: Vec<SegEntry> = (0..degree(v)).map(SegEntry::plain).collect();
            if !list.is_empty() {
                w.push_vertex(v, &list).unwrap();
            }
        }
        Segment::from_bytes(w.finish(range.end).unwrap(), "test").unwrap()
    }

    #[test]
    fn entries_by_page_are_each_pages_entries_in_both_directions() {
        // Lists at a few vertices (sparse rows) and at most (dense), on
        // ranges that start and end inside pages, with `counts` shorter
        // than the last page.
        let few = |v: u32| u32::from(v % 397 == 3) * (1 + v % 5);
        let most = |v: u32| u32::from(!v.is_multiple_of(3)) * (v % 4);
        for (range, sparse) in [(0..5 * PAGE + 17, true), (PAGE + 9..4 * PAGE - 2, false)] {
            let run = FlushedRun {
                id: 1,
                out: segment(range.clone(), Direction::Out, sparse, &few),
                inn: Some(segment(range.clone(), Direction::In, false, &most)),
                cut: 1,
            };
            assert_eq!(run.out.is_sparse(), sparse);
            let mut counts = vec![7u64; 5];
            run.add_entries_by_page(&mut counts);
            for (p, &got) in counts.iter().enumerate() {
                let want: u64 = (p as u32 * PAGE..(p as u32 + 1) * PAGE)
                    .filter(|v| range.contains(v))
                    .map(|v| u64::from(few(v) + most(v)))
                    .sum();
                assert_eq!(got, 7 + want, "page {p} of {range:?}");
            }
        }
    }

    /// A run over `0..n` holding `lists[v]` at each vertex `v`.
    pub(crate) fn run_of(id: u64, n: u32, pack: bool, lists: &[Vec<SegEntry>]) -> Arc<FlushedRun> {
        let encoding = Encoding {
            pack_dsts: pack,
            ..Encoding::PLAIN
        };
        let mut w = SegmentWriter::new(0, Direction::Out).encoding(encoding);
        for (v, list) in lists.iter().enumerate() {
            if !list.is_empty() {
                w.push_vertex(v as u32, list).unwrap();
            }
        }
        let out = Segment::from_bytes(w.finish(n).unwrap(), "test").unwrap();
        run(id, out)
    }

    #[test]
    fn many_look_ups_of_one_vertex_answer_as_the_newest_version_says() {
        // Two runs of versions and tombstones (the newer packed) over a
        // packed level of plain edges; long lists so a packed one spans
        // several chunks.
        const N: u32 = 6;
        const DSTS: u32 = 700;
        let mut rng = crate::util::fuzz::Rng::new(0x9e37_79b9_7f4a_7c15u64);
        let mut next = move || (rng.next() >> 32) as u32;
        // sources[s][v]: source s's versions of v's edges (0: newest).
        let mut sources: Vec<Vec<Vec<SegEntry>>> = vec![vec![Vec::new(); N as usize]; 3];
        for v in 0..N {
            for d in 0..DSTS {
                for (s, ts) in [(0usize, 30u64), (1, 20), (2, 0)] {
                    let r = next() % 4;
                    if s == 2 && r < 2 {
                        sources[s][v as usize].push(SegEntry::plain(d));
                    } else if s < 2 && r == 0 {
                        let mut e = SegEntry::plain(d);
                        e.ts = ts + u64::from(next() % 5);
                        e.tomb = next() % 2 == 0;
                        sources[s][v as usize].push(e);
                    }
                }
            }
        }
        let layers = Layers::new(
            vec![
                run_of(3, N, true, &sources[0]),
                run_of(2, N, false, &sources[1]),
            ],
            vec![Level::new(vec![run_of(1, N, true, &sources[2])]).unwrap()],
        );
        // The model: the newest source holding a version of the edge
        // decides, live unless that version is a tombstone.
        let model = |v: u32, d: u32| {
            sources
                .iter()
                .find_map(|s| s.get(v as usize)?.iter().find(|e| e.dst == d))
                .is_some_and(|e| !e.tomb)
        };
        for v in 0..N + 1 {
            for step in [1, 3, 17, 350] {
                let asked: Vec<u32> = (0..DSTS + 5).step_by(step).collect();
                let want: Vec<bool> = asked.iter().map(|&d| model(v, d)).collect();
                assert_eq!(
                    layers.live_each(v, &asked, Direction::Out),
                    want,
                    "{v} by {step}"
                );
                let one: Vec<bool> = asked
                    .iter()
                    .map(|&d| layers.latest(v, d, Direction::Out).is_some())
                    .collect();
                assert_eq!(one, want, "latest, {v} by {step}");
            }
        }
    }

    #[test]
    fn overlapping_or_unaligned_parts_are_refused() {
        for parts in [
            vec![part(1, 0..2 * PAGE), part(2, PAGE..3 * PAGE)],
            vec![part(1, 0..10), part(2, 10..PAGE)],
            vec![part(1, 5..PAGE)],
            vec![part(1, 0..PAGE + 1), part(2, PAGE..2 * PAGE)],
        ] {
            assert!(Level::new(parts).is_err());
        }
    }
}
