//! Poly-LSM's choice between delta and pivot updates (Aster, SIGMOD 2025,
//! §3.2-3.3), as this engine makes it: the degree sketch, the cost model's
//! threshold, and which vertices a flush writes as pivots.
//!
//! A *delta* is what every write is by default: the MemGraph holds the new
//! version, a flush writes it into a run, and a read of the vertex merges
//! every source holding any of its versions, down to the bottom level.
//! Under a memory cap each of those sources is a page read. A *pivot*
//! rewrites the vertex's whole list into the newest source and marks it
//! there (`SegmentWriter::mark_pivot`), so a read at or after the mark
//! stops at it (`Layers::segments_at`); compaction keeps the mark until
//! the list reaches the bottom level.
//!
//! The paper pivots at each update. Here the MemGraph takes every update
//! in memory, where reading a vertex's versions costs no I/O, so the choice
//! is made when a flush writes a vertex into its run: a pivot's run holds
//! the vertex's MemGraph versions and, as of the flush's cut, a copy of
//! every edge that lived only below (`lsm::flush`). One rewrite covers all
//! the vertex's updates since the previous flush, and the flush reads the
//! levels in vertex order.
//!
//! `Options::update_policy` chooses: always delta (the default), always
//! pivot, or adaptive: a pivot for a vertex whose out-degree, as its Morris
//! counter estimates it (`DegreeSketch`, one byte a vertex),
//! is below the threshold of the paper's cost model. This engine's L0 holds
//! one run per flush, as RocksDB's does, so the threshold is the paper's
//! 1-leveling form (eq. 10), not the leveling one (eq. 8).

use crate::direction::Direction;
use crate::lsm::layers::Layers;
use crate::options::{Options, UpdatePolicy};
use crate::util::segmented::SegmentedTable;
use std::sync::atomic::{AtomicU8, Ordering};

/// Bytes of a block in the cost model: a page of the page cache, what a
/// read of a cold list costs at least.
const BLOCK_BYTES: f64 = 4096.0;

/// Bits of a counter's mantissa (the paper's 4: counts up to 15 per step).
const MANTISSA_BITS: u32 = 4;
const MANTISSA_MAX: u8 = (1 << MANTISSA_BITS) - 1;
/// Largest exponent a byte holds.
const EXPONENT_MAX: u8 = 15;

/// The degree a counter byte stands for (eq. 11):
/// `(2^E - 1) * 16 + 2^E * M` for exponent `E` (high nibble) and mantissa
/// `M` (low nibble).
fn decode(code: u8) -> u64 {
    let (e, m) = (
        u32::from(code >> MANTISSA_BITS),
        u64::from(code & MANTISSA_MAX),
    );
    ((1u64 << e) - 1) * (1 << MANTISSA_BITS) + (1u64 << e) * m
}

/// The counter byte whose degree is the largest at or below `degree`
/// (every degree from 0 up is a step of some exponent): how a counter
/// starts from a count the levels give exactly.
fn encode(degree: u64) -> u8 {
    let mut e = 0u8;
    while e < EXPONENT_MAX && decode((e + 1) << MANTISSA_BITS) <= degree {
        e += 1;
    }
    let base = decode(e << MANTISSA_BITS);
    let m = ((degree - base) >> e).min(u64::from(MANTISSA_MAX)) as u8;
    (e << MANTISSA_BITS) | m
}

/// One step of a counter (Algorithm 1): the mantissa grows with
/// probability `2^-E`, carrying into the exponent; `coin` is a uniformly
/// distributed 64-bit value.
fn step(code: u8, coin: u64) -> u8 {
    let e = u32::from(code >> MANTISSA_BITS);
    // Probability 2^-e: the top `e` bits of the coin are all zero.
    if e > 0 && coin >> (64 - e) != 0 {
        return code;
    }
    match (code >> MANTISSA_BITS, code & MANTISSA_MAX) {
        (EXPONENT_MAX, MANTISSA_MAX) => code,
        (e, MANTISSA_MAX) => (e + 1) << MANTISSA_BITS,
        _ => code + 1,
    }
}

/// A well-mixed 64 bits from `x` (splitmix64's finaliser): the coin of a
/// counter step, drawn from the edge and the commit instead of a random
/// stream, so replaying a log steps the counters the same way.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A Morris counter of each vertex's out-degree (§3.3, "The Degree
/// Sketch"): one byte a vertex, stepped by every new edge (both ends of an
/// undirected one), so the policy knows a degree without reading a list.
/// Only out-lists are ever pivots (a neighbour look-up reads them), so
/// in-degrees are not counted. Deletes do not step it down (the paper's do
/// not either); a reopened store starts it from the levels' entry counts
/// (`seed`).
#[derive(Default)]
pub(crate) struct DegreeSketch {
    out: SegmentedTable<AtomicU8>,
}

impl DegreeSketch {
    /// Counts a new out-edge of `v`, to `other` at `ts`. Callers hold
    /// `v`'s lock or the writers' gate, so the load and store do not race
    /// with another step of the same counter (a lost step would only make
    /// the estimate a little low).
    pub(crate) fn bump(&self, v: u32, other: u32, ts: u64) {
        let c = self.out.get_or_alloc(v);
        let coin = mix((u64::from(v) << 32) ^ u64::from(other) ^ ts.rotate_left(17));
        let code = c.load(Ordering::Relaxed);
        let next = step(code, coin);
        if next != code {
            c.store(next, Ordering::Relaxed);
        }
    }

    /// Estimated out-degree of `v` (eq. 11).
    pub(crate) fn estimate(&self, v: u32) -> u64 {
        self.out
            .get(v)
            .map_or(0, |c| decode(c.load(Ordering::Relaxed)))
    }

    /// Starts `v`'s counter from a known degree.
    fn set(&self, v: u32, degree: u64) {
        self.out
            .get_or_alloc(v)
            .store(encode(degree), Ordering::Relaxed);
    }

    /// Starts every counter from the out-entries `layers` hold (versions,
    /// so at most a little above the degree): at open, before the log is
    /// replayed, and after a bulk load.
    pub(crate) fn seed(&self, layers: &Layers) {
        let mut degree: Vec<u64> = Vec::new();
        for run in layers.all() {
            let seg = run.seg(Direction::Out);
            let range = seg.vertex_range();
            if degree.len() < range.end as usize {
                degree.resize(range.end as usize, 0);
            }
            // Row by row: a sparse run's vertices without entries have
            // none to count.
            for (v, w) in seg.row_vertices().zip(seg.offsets().windows(2)) {
                degree[v as usize] += u64::from(w[1].saturating_sub(w[0]));
            }
        }
        for (v, &d) in degree.iter().enumerate() {
            if d > 0 {
                self.set(v as u32, d);
            }
        }
    }
}

/// The parameters of the paper's cost model (Table 2).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CostModel {
    /// `I`: bytes an edge takes in a level.
    pub entry_bytes: f64,
    /// `B`: bytes of a disk block.
    pub block_bytes: f64,
    /// `T`: size ratio of neighbouring levels.
    pub ratio: f64,
    /// `L`: levels, L0 counted.
    pub levels: f64,
    /// `d̄`: the graph's average degree.
    pub avg_degree: f64,
    /// `θ_L`: look-ups' share of the operations (updates take the rest).
    pub lookup_share: f64,
}

impl CostModel {
    /// The degree from which a delta costs less than a pivot: eq. 10, the
    /// 1-leveling form, with `k = TL - T + 2`:
    /// `max(ceil(B / (I k) (θ_L d̄ / (θ_U (T-1)) - 2) - 1 / k), 0)`.
    /// `u64::MAX` when there are no updates (a pivot always pays).
    pub(crate) fn threshold(&self) -> u64 {
        let CostModel {
            entry_bytes: i,
            block_bytes: b,
            ratio: t,
            levels: l,
            avg_degree: d,
            lookup_share: look,
        } = *self;
        let update = 1.0 - look;
        if update <= 0.0 {
            return u64::MAX;
        }
        let k = t * l - t + 2.0;
        let x = b / (i * k) * (look * d / (update * (t - 1.0)) - 2.0) - 1.0 / k;
        if x.is_nan() || x <= 0.0 {
            0
        } else {
            // A float past u64's range saturates.
            x.ceil() as u64
        }
    }
}

/// Which vertices one flush writes as pivots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Plan {
    /// None: every write stays a delta.
    Deltas,
    /// Every vertex the flush writes.
    All,
    /// Those whose estimated degree is below this.
    Below(u64),
}

impl Plan {
    /// The plan for a flush over `layers` (the sources below its run) of a
    /// graph of `vertices` ids. Nothing below: nothing to stop a read
    /// from reaching, so no pivots.
    pub(crate) fn for_flush(opts: &Options, layers: &Layers, vertices: u32) -> Plan {
        if layers.is_empty() {
            return Plan::Deltas;
        }
        match opts.update_policy {
            UpdatePolicy::Delta => Plan::Deltas,
            UpdatePolicy::Pivot => Plan::All,
            UpdatePolicy::Adaptive { lookup_share } => {
                let dirs = if opts.directed { 2.0 } else { 1.0 };
                let entries = layers.all().map(|r| r.entries()).sum::<u64>() as f64;
                let model = CostModel {
                    entry_bytes: (layers.bytes() as f64 / entries.max(1.0)).max(1.0),
                    block_bytes: BLOCK_BYTES,
                    ratio: f64::from(opts.level_ratio.max(2)),
                    levels: 1.0 + layers.levels.iter().filter(|l| !l.is_empty()).count() as f64,
                    avg_degree: entries / dirs / f64::from(vertices.max(1)),
                    lookup_share: lookup_share.clamp(0.0, 1.0),
                };
                Plan::Below(model.threshold())
            }
        }
    }

    /// Whether `v`'s out-list goes into the run as a pivot.
    pub(crate) fn pivots(&self, sketch: &DegreeSketch, v: u32) -> bool {
        match *self {
            Plan::Deltas => false,
            Plan::All => true,
            Plan::Below(t) => sketch.estimate(v) < t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eq. 9 of the paper, each side as written there: the cost of a
    /// delta update (left) and of a pivot update (right) for a vertex of
    /// degree `d` under the 1-leveling design.
    fn costs(m: &CostModel, d: f64) -> (f64, f64) {
        let CostModel {
            entry_bytes: i,
            block_bytes: b,
            ratio: t,
            levels: l,
            avg_degree: avg,
            lookup_share: look,
        } = *m;
        let delta = 2.0 * i * (t * (l - 1.0) + 1.0) / b + look * avg / ((1.0 - look) * (t - 1.0));
        let pivot = 2.0 + (d + 1.0) * i / b + (d + 2.0) * i * (t * l - t + 1.0) / b;
        (delta, pivot)
    }

    /// The paper's running example (§3.3): 8-byte ids, 4 KiB blocks,
    /// ratio 10, 4 levels, average degree 32.
    fn example(look: f64) -> CostModel {
        CostModel {
            entry_bytes: 8.0,
            block_bytes: 4096.0,
            ratio: 10.0,
            levels: 4.0,
            avg_degree: 32.0,
            lookup_share: look,
        }
    }

    #[test]
    fn the_threshold_is_where_the_cost_model_turns() {
        // The closed form against the two costs computed term by term: a
        // delta is cheaper from the threshold on, a pivot below it.
        for look in [0.1, 0.3, 0.5, 0.7, 0.9, 0.97] {
            let m = example(look);
            let t = m.threshold();
            let (delta, pivot) = costs(&m, t as f64);
            assert!(delta < pivot, "share {look}: delta dearer at d_t = {t}");
            if t > 0 {
                let (delta, pivot) = costs(&m, t as f64 - 1.0);
                assert!(delta >= pivot, "share {look}: pivot dearer below d_t = {t}");
            }
        }
        // More look-ups, more pivots; updates only: deltas; look-ups only:
        // pivots.
        assert!(example(0.9).threshold() > example(0.5).threshold());
        assert_eq!(example(0.0).threshold(), 0);
        assert_eq!(example(1.0).threshold(), u64::MAX);
    }

    #[test]
    fn counter_codes_round_trip_and_cover_every_degree() {
        for code in 0..=u8::MAX {
            assert_eq!(encode(decode(code)), code);
        }
        // Each degree maps to the largest code at or below it.
        let mut last = 0;
        for d in 0..1_100_000u64 {
            let c = encode(d);
            assert!(decode(c) <= d);
            assert!(c >= last);
            if c < u8::MAX {
                assert!(
                    decode(c + 1) > d,
                    "degree {d}: code {c} is not the largest below"
                );
            }
            last = c;
        }
        // The paper's examples (Fig. 4) and its largest value.
        assert_eq!(decode(0x27), 76);
        assert_eq!(decode(0x52), 560);
        assert_eq!(decode(0xFF), 1_015_792);
    }

    #[test]
    fn a_counter_estimates_within_the_papers_bound() {
        // Lemma 3.2 bounds the relative error's variance by 1/6; the paper
        // reports about 10% in practice. Over many counters stepped from
        // zero the mean is unbiased and the spread matches.
        for degree in [10u64, 100, 1000, 20_000] {
            let trials = 400;
            let mut sum = 0.0;
            let mut sq = 0.0;
            for t in 0..trials {
                let mut c = 0u8;
                for k in 0..degree {
                    c = step(c, mix((t << 40) ^ k ^ (degree << 20)));
                }
                let e = decode(c) as f64 / degree as f64 - 1.0;
                sum += e;
                sq += e * e;
            }
            let mean = sum / trials as f64;
            let rms = (sq / trials as f64).sqrt();
            assert!(mean.abs() < 0.05, "degree {degree}: mean error {mean}");
            assert!(rms < 0.2, "degree {degree}: rms error {rms}");
        }
    }

    #[test]
    fn a_sketch_counts_each_vertex_apart() {
        let s = DegreeSketch::default();
        // Exact while the exponent is 0: up to 15.
        for k in 0..15 {
            s.bump(7, k, 100 + u64::from(k));
        }
        assert_eq!(s.estimate(7), 15);
        assert_eq!(s.estimate(8), 0);
        s.set(9, 1000);
        assert_eq!(s.estimate(9), decode(encode(1000)));
    }

    /// Vertex 0 with ten edges in a level, then one edge added and one
    /// removed: under `policy`, how many segments a read of 0's out-list
    /// needs, and what it reads, at the newest snapshot and at one from
    /// before the second flush.
    fn second_flush(policy: UpdatePolicy) -> (usize, Vec<u32>, Vec<u32>) {
        use crate::{Graph, Options};
        let g = Graph::in_memory(Options {
            update_policy: policy,
            bulk_load_min_edges: usize::MAX,
            ..Options::default()
        });
        let edges: Vec<_> = (1..=10).map(|d| (0, d, 1.0)).collect();
        g.insert_edges(&edges).unwrap();
        g.flush().unwrap();
        g.insert_edge(0, 11, 2.0).unwrap();
        g.delete_edge(0, 3).unwrap();
        let before = g.snapshot();
        g.flush().unwrap();
        let snap = g.snapshot();
        let layers = g.store().layers.read().clone();
        let v = snap.internal_id(0).unwrap();
        let needed = layers
            .segments_at(v, Direction::Out, snap.timestamp())
            .count();
        let ids = |s: &crate::Snapshot| -> Vec<u32> {
            s.out_neighbors(0)
                .unwrap()
                .map(|d| s.external_id(d).unwrap() as u32)
                .collect()
        };
        assert_eq!(snap.weight(0, 11), Some(2.0));
        assert_eq!(snap.out_degree(0), Some(10));
        (needed, ids(&snap), ids(&before))
    }

    #[test]
    fn a_pivot_run_answers_a_read_alone() {
        let want: Vec<u32> = (1..=11).filter(|&d| d != 3).collect();
        // Deltas: the new run and the one below both hold vertex 0.
        let (needed, now, before) = second_flush(UpdatePolicy::Delta);
        assert_eq!((needed, &now, &before), (2, &want, &want));
        // A pivot: the new run holds the whole list and is marked.
        for policy in [
            UpdatePolicy::Pivot,
            UpdatePolicy::Adaptive { lookup_share: 0.99 },
        ] {
            let (needed, now, before) = second_flush(policy);
            assert_eq!((needed, &now, &before), (1, &want, &want), "{policy:?}");
        }
        // Updates only: the threshold is 0, every write a delta.
        let (needed, _, _) = second_flush(UpdatePolicy::Adaptive { lookup_share: 0.0 });
        assert_eq!(needed, 2);
    }
}
