//! Leveling: which runs and parts a compaction merges, and into which
//! parts of which level (LSMGraph section 4.2.1, vertex-aware compaction).
//!
//! - L0 holds whole flushes (runs covering every vertex). When there are more
//!   than `L0_RUNS`, all of them go to L1 together.
//! - L1..Ln each hold one CSR split into *parts* by vertex range, starting
//!   on index pages. Level `i` holds up to `budget x ratio^i` entries; when
//!   it holds more, consecutive parts holding the excess (round robin over
//!   the vertex space) go down, merged with the parts of the next level
//!   they overlap.
//! - A merge rewrites only the lower parts that receive data. A part with
//!   nothing arriving in its pages is kept as it is, so an update stream that
//!   touches a corner of the graph rewrites that corner, not the level.
//! - Tombstones go only when nothing older lies below the target level.
//! - When more than one of these is due, the one furthest past its size
//!   goes first (`pick`), so a backlog in L0 cannot keep L1 from draining.
//!
//! Every function here only *builds* segments and the levels they form,
//! through a [`LevelSink`] (the store); the caller (`store::maintain`)
//! publishes them and writes the manifest.

use super::compact::compact_direction;
use super::layers::{FlushedRun, Layers, Level};
use super::LevelSink;
use crate::csr::Encoding;
use crate::direction::Direction;
use crate::error::{Error, Result};
use crate::options::Options;
use crate::page::PAGE;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// L0 runs allowed before they are merged into L1: every read of a vertex
/// spread over several runs merges them, so few is fast.
pub(crate) const L0_RUNS: usize = 4;

/// Rough bytes per edge version a flush writes (destination, stamp and
/// container slack), to size the levels from the MemGraph budget: a
/// flush writes about `memgraph_bytes / BYTES_PER_VERSION` entries. (The
/// flush trigger counts the MemGraph's real bytes.)
pub(crate) const BYTES_PER_VERSION: usize = 12;

/// Sizes of the levels, from the options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geometry {
    /// Entries one flush writes at most (the MemGraph budget).
    budget: u64,
    ratio: u64,
    /// Entries a part grows to before the next one starts.
    part: u64,
}

impl Geometry {
    pub(crate) fn of(opts: &Options) -> Geometry {
        let budget = (opts.memgraph_bytes / BYTES_PER_VERSION).max(1) as u64;
        Geometry {
            budget,
            ratio: u64::from(opts.level_ratio.max(2)),
            // A quarter of a flush: small enough that one part going down
            // is a short job, large enough that parts stay few.
            part: (budget / 4).max(64),
        }
    }

    /// Entries `levels[i]` (L(i+1)) may hold.
    pub(crate) fn capacity(&self, i: usize) -> u64 {
        let mut c = self.budget;
        for _ in 0..=i {
            c = c.saturating_mul(self.ratio);
        }
        c
    }

    /// Entries a part of a level grows to before the next one starts.
    pub(crate) fn part(&self) -> u64 {
        self.part
    }

    /// The shallowest level (index into `levels`) that can hold `entries`.
    pub(crate) fn level_for(&self, entries: u64) -> usize {
        (0..).find(|&i| self.capacity(i) >= entries).unwrap_or(0)
    }
}

/// The pages a vertex range touches.
fn pages_of(r: &Range<u32>) -> Range<u32> {
    (r.start / PAGE)..r.end.div_ceil(PAGE)
}

/// A merge's outcome: the target level as it is to be, and the ids of the
/// parts of it that were rewritten (their files go once it is published).
pub(crate) struct Merged {
    pub level: Level,
    pub replaced: Vec<u64>,
}

/// Merges `upper` (newest first; all newer than `lower`) over the vertex
/// pages `span` into `lower`. Lower parts overlapping `span` are rewritten
/// if data arrives in their pages (or `force`), kept as they are otherwise.
/// `bottom`: nothing lies below `lower`, so tombstones at or below the
/// watermark go.
pub(crate) fn merge_into(
    sink: &impl LevelSink,
    upper: &[Arc<FlushedRun>],
    lower: &Level,
    span: Range<u32>,
    bottom: bool,
    force: bool,
) -> Result<Merged> {
    let geo = Geometry::of(sink.options());
    let watermark = sink.watermark();
    // Entries per index page, counted once for each input, one file at a
    // time (see `FlushedRun::add_entries_by_page`): first what arrives from
    // `upper`, then the rewritten parts' own.
    let pages = upper
        .iter()
        .chain(lower.parts())
        .flat_map(|r| std::iter::once(&r.out).chain(&r.inn))
        .map(|s| s.vertex_range().end.div_ceil(PAGE))
        .max()
        .unwrap_or(0);
    let mut counts = vec![0u64; pages as usize];
    for u in upper {
        u.add_entries_by_page(&mut counts);
    }
    let arriving = |pages: &Range<u32>| {
        let (a, b) = (pages.start as usize, pages.end as usize);
        counts
            .get(a..b.min(counts.len()))
            .is_some_and(|c| c.iter().any(|&n| n > 0))
    };
    let mut kept = Vec::new();
    let mut rewritten: Vec<Arc<FlushedRun>> = Vec::new();
    for p in lower.parts() {
        let pages = pages_of(&p.range());
        let overlaps = pages.start < span.end && span.start < pages.end;
        if overlaps && (force || arriving(&pages)) {
            rewritten.push(Arc::clone(p));
        } else {
            kept.push(Arc::clone(p));
        }
    }
    // No data exists beyond the inputs' ranges (nor, on disk, beyond the
    // vertices the manifest lists), so no part reaches past them.
    let limit = upper
        .iter()
        .chain(&rewritten)
        .map(|r| r.range().end)
        .max()
        .unwrap_or(0);
    for p in &rewritten {
        p.add_entries_by_page(&mut counts);
    }
    let plan = plan_parts(&geo, &counts, &rewritten, &kept, &span, limit);
    let cut = upper
        .iter()
        .chain(&rewritten)
        .map(|r| r.cut)
        .max()
        .unwrap_or(0);
    let directed = sink.options().directed;
    let written: Vec<Option<Arc<FlushedRun>>> = sink.par(|| {
        plan.par_iter()
            .map(|range| {
                let inputs: Vec<&FlushedRun> = upper
                    .iter()
                    .chain(&rewritten)
                    .filter(|p| overlap(&p.range(), range))
                    .map(|r| &**r)
                    .collect();
                write_part(sink, &inputs, range, directed, watermark, bottom, cut)
            })
            .collect::<Result<_>>()
    })?;
    let mut parts = kept;
    parts.extend(written.into_iter().flatten());
    Ok(Merged {
        level: level_of(parts)?,
        replaced: rewritten.iter().map(|p| p.id).collect(),
    })
}

fn overlap(a: &Range<u32>, b: &Range<u32>) -> bool {
    a.start < b.end && b.start < a.end
}

/// The vertex ranges of the parts a merge writes: the pages of `span` and
/// of the `rewritten` parts, minus the `kept` parts' pages, cut into runs
/// of pages holding about `geo.part` entries (`counts`: the inputs'
/// entries per page, counted before merging, an upper bound). Pages with
/// nothing before a part starts are skipped.
fn plan_parts(
    geo: &Geometry,
    counts: &[u64],
    rewritten: &[Arc<FlushedRun>],
    kept: &[Arc<FlushedRun>],
    span: &Range<u32>,
    limit: u32,
) -> Vec<Range<u32>> {
    let n = limit.div_ceil(PAGE) as usize;
    let mut write = vec![false; n];
    let mut mark = |pages: Range<u32>, on: bool| {
        for p in pages {
            if let Some(w) = write.get_mut(p as usize) {
                *w = on;
            }
        }
    };
    mark(span.clone(), true);
    for p in rewritten {
        mark(pages_of(&p.range()), true);
    }
    for p in kept {
        mark(pages_of(&p.range()), false);
    }
    let mut plan = Vec::new();
    let mut open: Option<(u32, u64)> = None; // (first page, entries so far)
    let close = |first: u32, end_page: u32, plan: &mut Vec<Range<u32>>| {
        plan.push(first * PAGE..(end_page * PAGE).min(limit));
    };
    for (p, &w) in write.iter().enumerate() {
        let p = p as u32;
        if !w {
            if let Some((first, _)) = open.take() {
                close(first, p, &mut plan);
            }
            continue;
        }
        let here = counts.get(p as usize).copied().unwrap_or(0);
        let (first, acc) = match open {
            Some(o) => o,
            None if here == 0 => continue,
            None => (p, 0),
        };
        let acc = acc + here;
        if acc >= geo.part {
            close(first, p + 1, &mut plan);
            open = None;
        } else {
            open = Some((first, acc));
        }
    }
    if let Some((first, _)) = open {
        close(first, n as u32, &mut plan);
    }
    plan
}

/// Writes one part: `inputs` (newest first) merged over `range`. `None` if
/// nothing in it survives.
fn write_part(
    sink: &impl LevelSink,
    inputs: &[&FlushedRun],
    range: &Range<u32>,
    directed: bool,
    watermark: u64,
    bottom: bool,
    cut: u64,
) -> Result<Option<Arc<FlushedRun>>> {
    let encoding = Encoding::level(sink.options());
    let one = |dir: Direction| {
        let segs: Vec<_> = inputs.iter().map(|r| r.seg(dir)).collect();
        compact_direction(&segs, range.clone(), dir, watermark, bottom, encoding)
    };
    // The two directions read and write apart: a merge of one part (the
    // usual step below L1) still uses two workers.
    let (out, inn) = rayon::join(
        || one(Direction::Out),
        || directed.then(|| one(Direction::In)).transpose(),
    );
    let (out, inn) = (out?, inn?);
    if out.is_empty_segment() && inn.as_ref().is_none_or(|b| b.is_empty_segment()) {
        return Ok(None);
    }
    sink.new_run(out, inn, cut).map(Some)
}

/// What a compaction step changed. Flushes go on while a compaction runs,
/// so the step names the L0 runs it merged rather than the whole new
/// `Layers`: runs flushed meanwhile stay in L0, above (newer than) all of
/// it. Only compactions change levels, one at a time, so `levels` replaces
/// the levels the step started from.
pub(crate) struct Step {
    /// Ids of the L0 runs merged into the levels.
    pub consumed: Vec<u64>,
    /// Every level after the step (`levels[0]` is L1).
    pub levels: Vec<Level>,
    /// Run and part ids whose files may go once the step is published.
    pub dropped: Vec<u64>,
}

/// A compaction that is due: what `next_step` works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Every L0 run into L1.
    L0,
    /// The parts holding `levels[i]`'s (L(i+1)'s) excess into the level
    /// below it (`parts_to_move`).
    Level(usize),
}

/// The compaction to run next, given L0's run count and each level's
/// entries: of L0 (when it holds more than `L0_RUNS` runs) and the levels
/// holding more than their capacity, the one furthest past its size,
/// scored as RocksDB's leveled compaction scores them (runs over
/// `L0_RUNS`, entries over capacity); L0 on a tie, else the shallower
/// level. `None` when nothing is due.
///
/// Scores, not "L0 first": when writes outrun compaction, L0 holds more
/// than `L0_RUNS` runs every time a step starts, so with L0 always first
/// no part ever went down; L1 grew with everything written and each L0
/// step rewrote all of it, so the bytes a load wrote grew with the square
/// of its size (a k20 load under a memory cap: L1 at 3.3 times its
/// capacity after 14 steps, none of which moved a part down).
pub(crate) fn pick(l0_runs: usize, level_entries: &[u64], geo: &Geometry) -> Option<Pick> {
    // Scores compared as fractions (a / b against c / d as a * d against
    // c * b) in u128, exact for any sizes.
    let mut best: Option<(Pick, u128, u128)> =
        (l0_runs > L0_RUNS).then_some((Pick::L0, l0_runs as u128, L0_RUNS as u128));
    for (i, &entries) in level_entries.iter().enumerate() {
        let cap = geo.capacity(i).max(1);
        if entries <= cap {
            continue;
        }
        let ahead = match best {
            None => true,
            Some((_, num, den)) => u128::from(entries) * den > num * u128::from(cap),
        };
        if ahead {
            best = Some((Pick::Level(i), u128::from(entries), u128::from(cap)));
        }
    }
    best.map(|(p, _, _)| p)
}

/// The next compaction `layers` needs (see `pick`), done: L0 into L1, or
/// the parts holding an over-full level's excess (`parts_to_move`) into
/// the level below it. `None` when L0 and every level are within their
/// sizes. `cursors[i]` is where the round robin over level `i`'s parts
/// resumes.
pub(crate) fn next_step(
    sink: &impl LevelSink,
    layers: &Layers,
    cursors: &mut Vec<u32>,
) -> Result<Option<Step>> {
    let geo = Geometry::of(sink.options());
    let entries: Vec<u64> = layers.levels.iter().map(Level::entries).collect();
    let Some(chosen) = pick(layers.runs.len(), &entries, &geo) else {
        return Ok(None);
    };
    let i = match chosen {
        Pick::L0 => return merge_l0(sink, layers).map(Some),
        Pick::Level(i) => i,
    };
    let level = &layers.levels[i];
    if cursors.len() <= i {
        cursors.resize(i + 1, 0);
    }
    let parts = level.parts();
    let k = parts
        .iter()
        .position(|p| p.range().start >= cursors[i])
        .unwrap_or(0);
    let sizes: Vec<u64> = parts.iter().map(|p| p.entries()).collect();
    let excess = level.entries().saturating_sub(geo.capacity(i));
    let going = parts[parts_to_move(&sizes, k, excess)].to_vec();
    let span = going[0].range().start..going[going.len() - 1].range().end;
    cursors[i] = span.end;
    let lower = layers.levels.get(i + 1).cloned().unwrap_or_default();
    let bottom = layers.levels.iter().skip(i + 2).all(Level::is_empty);
    let merged = merge_into(sink, &going, &lower, pages_of(&span), bottom, false)?;
    let mut levels = layers.levels.clone();
    let gone = |id: u64| going.iter().any(|p| p.id == id);
    let rest: Vec<Arc<FlushedRun>> = parts.iter().filter(|p| !gone(p.id)).cloned().collect();
    set_level(&mut levels, i, level_of(rest)?);
    set_level(&mut levels, i + 1, merged.level);
    let mut dropped: Vec<u64> = going.iter().map(|p| p.id).collect();
    dropped.extend(merged.replaced);
    Ok(Some(Step {
        consumed: Vec::new(),
        levels,
        dropped,
    }))
}

/// Which of a level's parts (`sizes`: their entries, in vertex order) go
/// down, starting at part `first` (the round robin's cursor): consecutive
/// parts holding at least `excess` entries, what the level holds past its
/// capacity; at least one part, and none past the last, where the round
/// robin starts over. One part a step drained too slowly: a part is a
/// quarter of a flush's entries, while one L0 step brings several flushes.
fn parts_to_move(sizes: &[u64], first: usize, excess: u64) -> Range<usize> {
    let mut moved = 0u64;
    let mut end = first;
    while end < sizes.len() && (end == first || moved < excess) {
        moved += sizes[end];
        end += 1;
    }
    first..end
}

/// Every L0 run merged into L1.
fn merge_l0(sink: &impl LevelSink, layers: &Layers) -> Result<Step> {
    let lower = layers.levels.first().cloned().unwrap_or_default();
    let bottom = layers.levels.iter().skip(1).all(Level::is_empty);
    let limit = layers.runs.iter().map(|r| r.range().end).max().unwrap_or(0);
    let merged = merge_into(
        sink,
        &layers.runs,
        &lower,
        pages_of(&(0..limit)),
        bottom,
        false,
    )?;
    let mut levels = layers.levels.clone();
    set_level(&mut levels, 0, merged.level);
    let mut dropped: Vec<u64> = layers.runs.iter().map(|r| r.id).collect();
    dropped.extend(merged.replaced);
    Ok(Step {
        consumed: layers.runs.iter().map(|r| r.id).collect(),
        levels,
        dropped,
    })
}

/// Everything in `layers` merged into one level, rewritten whole (stamps
/// older than the watermark stripped, tombstones dropped): what closing a
/// store leaves, and a graph that reads as a plain CSR. The level is the
/// deepest one in use, or a deeper one if the data outgrew it.
pub(crate) fn compact_fully(sink: &impl LevelSink, layers: &Layers) -> Result<Step> {
    let geo = Geometry::of(sink.options());
    let total: u64 = layers.all().map(|r| r.entries()).sum();
    let deepest = (0..layers.levels.len())
        .rev()
        .find(|&i| !layers.levels[i].is_empty())
        .unwrap_or(0);
    let target = deepest.max(geo.level_for(total));
    let upper: Vec<Arc<FlushedRun>> = layers
        .runs
        .iter()
        .chain(layers.levels.iter().take(target).flat_map(|l| l.parts()))
        .cloned()
        .collect();
    let lower = layers.levels.get(target).cloned().unwrap_or_default();
    let limit = layers.all().map(|r| r.range().end).max().unwrap_or(0);
    let merged = merge_into(sink, &upper, &lower, pages_of(&(0..limit)), true, true)?;
    let mut levels: Vec<Level> = vec![Level::default(); target + 1];
    levels[target] = merged.level;
    Ok(Step {
        consumed: layers.runs.iter().map(|r| r.id).collect(),
        levels,
        dropped: layers.all().map(|r| r.id).collect(),
    })
}

fn set_level(levels: &mut Vec<Level>, i: usize, level: Level) {
    if levels.len() <= i {
        levels.resize_with(i + 1, Level::default);
    }
    levels[i] = level;
}

pub(crate) fn level_of(parts: Vec<Arc<FlushedRun>>) -> Result<Level> {
    Level::new(parts).map_err(|what| Error::Corrupt {
        file: "compaction output".into(),
        offset: 0,
        what,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry() -> Geometry {
        // 1,000 entries a flush, ratio 10: L1 holds 10,000, L2 100,000.
        Geometry::of(&Options {
            memgraph_bytes: 1000 * BYTES_PER_VERSION,
            level_ratio: 10,
            ..Options::default()
        })
    }

    #[test]
    fn nothing_is_due_within_sizes() {
        let geo = geometry();
        assert_eq!(geo.capacity(0), 10_000);
        assert_eq!(pick(L0_RUNS, &[10_000, 100_000], &geo), None);
        assert_eq!(pick(0, &[], &geo), None);
    }

    #[test]
    fn an_over_full_l0_goes_when_the_levels_are_within_sizes() {
        let geo = geometry();
        assert_eq!(pick(L0_RUNS + 1, &[10_000, 5], &geo), Some(Pick::L0));
    }

    /// The case "L0 first" got wrong: writes outrunning compaction keep L0
    /// past its size at every step, and L1 must still drain.
    #[test]
    fn a_level_further_past_its_size_than_l0_goes_first() {
        let geo = geometry();
        // L0 at 1.25 times its size, L1 at 3.
        assert_eq!(pick(5, &[30_000], &geo), Some(Pick::Level(0)));
        // L0 at its stop (3 times) against L1 at 2: L0.
        assert_eq!(pick(3 * L0_RUNS, &[20_000], &geo), Some(Pick::L0));
        // A tie goes to L0.
        assert_eq!(pick(2 * L0_RUNS, &[20_000], &geo), Some(Pick::L0));
    }

    #[test]
    fn of_the_levels_the_one_furthest_past_its_size_goes() {
        let geo = geometry();
        assert_eq!(pick(0, &[12_000, 150_000], &geo), Some(Pick::Level(1)));
        assert_eq!(pick(0, &[16_000, 150_000], &geo), Some(Pick::Level(0)));
        // Equal scores: the shallower level.
        assert_eq!(pick(0, &[15_000, 150_000], &geo), Some(Pick::Level(0)));
        assert_eq!(pick(0, &[0, 100_001], &geo), Some(Pick::Level(1)));
    }

    #[test]
    fn parts_holding_the_excess_go_down_together() {
        let sizes = [100, 200, 300, 400];
        assert_eq!(parts_to_move(&sizes, 0, 250), 0..2);
        assert_eq!(parts_to_move(&sizes, 1, 200), 1..2);
        assert_eq!(parts_to_move(&sizes, 1, 201), 1..3);
        // At least one part, and none past the last.
        assert_eq!(parts_to_move(&sizes, 2, 0), 2..3);
        assert_eq!(parts_to_move(&sizes, 2, 10_000), 2..4);
        assert_eq!(parts_to_move(&sizes, 3, 10_000), 3..4);
    }
}
