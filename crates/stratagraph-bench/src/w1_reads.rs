//! The W1 read operations (search_edge, scan_seq, scan_rand), written once
//! for an engine snapshot and for the static CSR.
//!
//! Both sides run the same loop over the same files; only the three
//! primitive reads differ, each the fastest public way the system offers
//! (`Snapshot::scan_out` for the sequential scan, `for_each_out_of` per
//! vertex, `has_edge` by external ids; slices and a binary search on the
//! CSR). Vertex ids in the files are used as internal ids, which holds
//! because every store is loaded vertices-first (checked by
//! [`check_identity`]).

use std::ops::Range;
use stratagraph::Snapshot;
use stratagraph_algo::CsrGraph;

/// The reads W1 needs from a system.
pub(crate) trait W1Reads: Sync {
    /// Whether edge `s -> d` exists.
    fn has(&self, s: u32, d: u32) -> bool;
    /// Sum of out-neighbour ids of the vertices in `range`, in id order.
    fn scan_range(&self, range: Range<u32>) -> u64;
    /// Sum of out-neighbour ids of the vertices of `order`, in that order.
    fn scan_list(&self, order: &[u32]) -> u64;
}

impl W1Reads for Snapshot {
    fn has(&self, s: u32, d: u32) -> bool {
        self.has_edge(u64::from(s), u64::from(d))
    }

    fn scan_range(&self, range: Range<u32>) -> u64 {
        let mut sum = 0u64;
        self.scan_out(range, |_, list| {
            sum += list.iter().map(|&d| u64::from(d)).sum::<u64>();
        });
        sum
    }

    fn scan_list(&self, order: &[u32]) -> u64 {
        let mut sum = 0u64;
        for &v in order {
            self.for_each_out_of(v, |d| sum += u64::from(d));
        }
        sum
    }
}

impl W1Reads for CsrGraph {
    fn has(&self, s: u32, d: u32) -> bool {
        self.out_slice(s).binary_search(&d).is_ok()
    }

    fn scan_range(&self, range: Range<u32>) -> u64 {
        range
            .map(|v| self.out_slice(v).iter().map(|&d| u64::from(d)).sum::<u64>())
            .sum()
    }

    fn scan_list(&self, order: &[u32]) -> u64 {
        order
            .iter()
            .map(|&v| self.out_slice(v).iter().map(|&d| u64::from(d)).sum::<u64>())
            .sum()
    }
}

/// Splits `0..len` into `threads` contiguous parts, runs `f` on each in its
/// own thread and adds the results.
fn split(threads: usize, len: usize, f: impl Fn(Range<usize>) -> u64 + Sync) -> u64 {
    let threads = threads.max(1);
    if threads == 1 {
        return f(0..len);
    }
    let part = len.div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let r = (t * part).min(len)..((t + 1) * part).min(len);
                scope.spawn(move || f(r))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .sum()
    })
}

/// search_edge: how many of `pairs` exist.
pub(crate) fn search(g: &dyn W1Reads, pairs: &[(u32, u32)], threads: usize) -> u64 {
    split(threads, pairs.len(), |r| {
        pairs[r].iter().filter(|&&(s, d)| g.has(s, d)).count() as u64
    })
}

/// scan_seq: the sum of destination ids over ids `0..n`.
pub(crate) fn scan_seq(g: &dyn W1Reads, n: u32, threads: usize) -> u64 {
    split(threads, n as usize, |r| {
        g.scan_range(r.start as u32..r.end as u32)
    })
}

/// scan_rand: the same sum, visiting vertices in `perm`'s order.
pub(crate) fn scan_rand(g: &dyn W1Reads, perm: &[u32], threads: usize) -> u64 {
    split(threads, perm.len(), |r| g.scan_list(&perm[r]))
}

/// Checks that every vertex's internal id is its external id, so sums of
/// internal ids are sums of the files' ids.
pub(crate) fn check_identity(snap: &Snapshot) -> Result<(), String> {
    match snap
        .vertices()
        .find(|&v| snap.external_id(v) != Some(u64::from(v)))
    {
        Some(v) => Err(format!(
            "internal id {v} is external id {:?}; the scan checksums need them equal",
            snap.external_id(v)
        )),
        None => Ok(()),
    }
}
