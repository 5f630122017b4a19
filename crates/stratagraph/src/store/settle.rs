//! Settling blind inserts (`crate::blind`): whether the levels a flush
//! deferred its inserts with hold each of them live, asked in vertex order
//! with the levels read ahead of the look-ups, and all the look-ups of one
//! source in one list read.
//!
//! A pass makes millions of look-ups under a memory cap. Asked one at a
//! time, each decodes half its source's packed list, and sources are hubs
//! in proportion to their degree (at k24, 3,800 entries a look-up on
//! average); faulted in through the read-ahead mapping, the levels are
//! read many times over (the 44 passes of a k24 load under a 545 MiB cap
//! read 75 GB, for a store that ends at 2.1 GB: `bench/NOTES.md`,
//! session 53).

use crate::direction::Direction;
use crate::lsm::layers::Layers;
use std::sync::Arc;

/// For each `(key, g)` of `keys` (sorted), whether the levels of deferred
/// flush `g`, `belows[g]`, hold the edge of `key` live (`blind.rs`). The
/// keys of one source and one flush are asked together
/// (`Layers::live_each`), so each of its lists is read once.
pub(super) fn live_below(belows: &[Arc<Layers>], keys: &[(u64, u32)]) -> Vec<bool> {
    let src_of = |k: &(u64, u32)| (k.0 >> 32) as u32;
    let mut live = vec![false; keys.len()];
    let mut ahead = ReadAhead::new(belows, keys);
    let mut at = 0;
    while let Some(&(key, g)) = keys.get(at) {
        let src = (key >> 32) as u32;
        ahead.reach(src);
        let end = at + keys[at..].partition_point(|k| src_of(k) == src);
        if end == at + 1 {
            // Most sources have one look-up in a pass: no lists to gather.
            live[at] = belows[g as usize].is_live(src, key as u32, Direction::Out);
            at = end;
            continue;
        }
        let mut flushes: Vec<u32> = keys[at..end].iter().map(|k| k.1).collect();
        flushes.sort_unstable();
        flushes.dedup();
        for g in flushes {
            let of_g: Vec<usize> = (at..end).filter(|&i| keys[i].1 == g).collect();
            let dsts: Vec<u32> = of_g.iter().map(|&i| keys[i].0 as u32).collect();
            let found = belows[g as usize].live_each(src, &dsts, Direction::Out);
            for (i, l) in of_g.into_iter().zip(found) {
                live[i] = l;
            }
        }
        at = end;
    }
    live
}

/// Level bytes a settling pass asks the kernel to read ahead of its
/// look-ups at a time (`ReadAhead`): little next to a memory cap, enough
/// for large requests to the disk.
const READ_AHEAD_BYTES: u128 = 8 << 20;

/// Reads the levels ahead of a settling pass's look-ups in vertex order, a
/// window of vertices at a time and one window ahead
/// (`Layers::will_need`), when the pass is dense enough for whole windows
/// to be worth reading: a look-up for every 16 KiB of level bytes its
/// sources span or more. The newest flush's levels are read; older flushes'
/// share most of their segments.
struct ReadAhead<'a> {
    layers: Option<&'a Layers>,
    /// Vertices a window spans.
    window: u32,
    /// The first vertex not yet asked for.
    next: u32,
}

impl<'a> ReadAhead<'a> {
    fn new(belows: &'a [Arc<Layers>], keys: &[(u64, u32)]) -> ReadAhead<'a> {
        let none = ReadAhead {
            layers: None,
            window: 0,
            next: 0,
        };
        let (Some(layers), Some(first), Some(last)) = (belows.last(), keys.first(), keys.last())
        else {
            return none;
        };
        let end = u128::from(layers.vertex_end().max(1));
        let bytes = layers.bytes() as u128;
        let (lo, hi) = ((first.0 >> 32) as u32, (last.0 >> 32) as u32);
        let spanned = bytes * (u128::from(hi - lo) + 1) / end;
        if (keys.len() as u128) << 14 < spanned {
            return none;
        }
        let window = (READ_AHEAD_BYTES * end / bytes.max(1)).clamp(64, u128::from(u32::MAX));
        ReadAhead {
            layers: Some(layers),
            window: window as u32,
            next: lo,
        }
    }

    /// Called with each look-up's source, ascending: asks for the window
    /// after the one `v` is in, once `v` is in the last window asked for
    /// (or past it).
    fn reach(&mut self, v: u32) {
        let Some(layers) = self.layers else {
            return;
        };
        if v.saturating_add(self.window) >= self.next {
            let from = self.next.max(v);
            let to = from.saturating_add(self.window);
            layers.will_need(from..to, Direction::Out);
            self.next = to;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::SegEntry;
    use crate::lsm::layers::tests::run_of;
    use crate::lsm::layers::Level;

    #[test]
    fn look_ups_grouped_by_source_and_flush_answer_as_one_at_a_time() {
        // Two deferred flushes' levels: the older a packed level alone, the
        // newer the same level under a run of re-inserts and tombstones.
        const N: u32 = 40;
        let mut rng = crate::util::fuzz::Rng::new(0x2545_f491_4f6c_dd1du64);
        let mut next = move || (rng.next() >> 32) as u32;
        let mut level = vec![Vec::new(); N as usize];
        let mut run = vec![Vec::new(); N as usize];
        for v in 0..N {
            for d in 0..300 {
                if next() % 3 == 0 {
                    level[v as usize].push(SegEntry::plain(d));
                }
                if next() % 5 == 0 {
                    let mut e = SegEntry::plain(d);
                    e.ts = 10;
                    e.tomb = next() % 2 == 0;
                    run[v as usize].push(e);
                }
            }
        }
        let old = Arc::new(Layers::new(
            vec![],
            vec![Level::new(vec![run_of(1, N, true, &level)]).unwrap()],
        ));
        let new = Arc::new(Layers::new(
            vec![run_of(2, N, true, &run)],
            vec![Level::new(vec![run_of(1, N, true, &level)]).unwrap()],
        ));
        let belows = vec![old, new];
        // Sources with no look-up, one, or many from either flush.
        let mut keys: Vec<(u64, u32)> = Vec::new();
        for v in 0..N {
            let asks = match v % 4 {
                0 => 0,
                1 => 1,
                _ => 20 + next() % 200,
            };
            for _ in 0..asks {
                keys.push(((u64::from(v) << 32) | u64::from(next() % 320), next() % 2));
            }
        }
        keys.sort_unstable();
        let one_at_a_time = |keys: &[(u64, u32)]| -> Vec<bool> {
            keys.iter()
                .map(|&(k, g)| {
                    belows[g as usize]
                        .latest((k >> 32) as u32, k as u32, Direction::Out)
                        .is_some()
                })
                .collect()
        };
        let want = one_at_a_time(&keys);
        assert!(want.iter().any(|&l| l) && want.iter().any(|&l| !l));
        assert_eq!(live_below(&belows, &keys), want);
        // Sparse: a few look-ups far apart, read ahead or not.
        let few: Vec<(u64, u32)> = keys.iter().step_by(97).copied().collect();
        assert_eq!(live_below(&belows, &few), one_at_a_time(&few));
        assert!(live_below(&belows, &[]).is_empty());
    }
}
