//! Multi-version rules for one adjacency run: how a write adds a version,
//! which old versions it may drop, and what a snapshot sees.
//!
//! A group (all versions of one destination) is ordered newest first. A
//! snapshot at timestamp `s` sees the newest version with timestamp `<= s`;
//! if that is a tombstone, or there is none, the edge is absent.
//!
//! Garbage is dropped eagerly, on the write path, using the *watermark* `W`:
//! no live snapshot is older than `W`, and none can start below it. Every
//! version newer than `W` is kept, plus the newest version at or below `W`
//! (the one snapshots at `W` see), and everything older goes. So however
//! often an edge is updated, it holds at most one old version per open
//! snapshot plus the one a snapshot opened at `W` would see.
//!
//! That newest version is kept even when it is a tombstone: the edge it
//! deletes may live on in a segment below the MemGraph (`crate::lsm`), and
//! only the tombstone hides it there. Tombstones leave the MemGraph when a
//! flush has written them to a segment.

use super::run::{stamp, Entry, Run, Stamps};

/// The commit being applied and the visibility horizon it may prune to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stamping {
    /// Commit timestamp of the write.
    pub ts: u64,
    /// No live or future snapshot is older than this.
    pub watermark: u64,
    /// Offsets from a run's base must stay below this (re-base otherwise).
    pub window: u64,
}

/// What a write did to the edge's latest state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// The edge was absent and now exists.
    Added,
    /// The set held no version of the edge and now holds it live. Whether
    /// it existed before depends on the levels below the MemGraph, which
    /// the caller asks (`edge_rules::settle`) or leaves to the blind
    /// ledger (`blind.rs`).
    Fresh,
    /// The edge existed; its weight was rewritten.
    Updated,
    /// The edge existed and now is deleted.
    Removed,
    /// Deleting an absent edge: nothing written.
    Unchanged,
}

/// How many leading versions of a group (newest first) must be kept for
/// snapshots at or after the watermark offset `wm`.
pub(crate) fn kept_len<'a>(stamps: impl Into<Stamps<'a>>, wm: u32) -> usize {
    let stamps = stamps.into();
    match stamps.position(|s| stamp::offset(s) <= wm) {
        None => stamps.len(),
        Some(k) => k + 1,
    }
}

/// Offset of absolute timestamp `ts` in a run based at `base`.
#[inline]
pub(crate) fn offset_of(ts: u64, base: u64) -> u32 {
    ts.saturating_sub(base).min(u64::from(stamp::TOMB - 1)) as u32
}

/// Which version of a group (newest first) a reader at offset `r` sees:
/// `Some(index into the group)` if the edge is present.
#[inline]
pub(crate) fn visible_in_group(stamps: Stamps<'_>, r: u32) -> Option<usize> {
    let k = stamps.position(|s| stamp::offset(s) <= r)?;
    (!stamp::is_tomb(stamps.get(k))).then_some(k)
}

impl Run {
    /// Inserts or re-weights edge `dst`.
    pub(crate) fn put(&mut self, dst: u32, weight: f64, s: &Stamping) -> Effect {
        self.rebase_if_needed(s);
        let t = offset_of(s.ts, self.base());
        let e = Entry {
            dst,
            stamp: t,
            weight,
        };
        let g = self.group(dst);
        if g.is_empty() {
            self.insert(g.start, e);
            return Effect::Fresh;
        }
        let newest = self.stamps().get(g.start);
        let was_live = !stamp::is_tomb(newest);
        let keep = kept_len(
            self.stamps().slice(g.clone()),
            offset_of(s.watermark, self.base()),
        );
        if stamp::offset(newest) == t {
            // Written earlier by this same commit (a vertex deleted, then
            // wired again): one commit leaves one version per edge.
            self.replace(g.start, e);
        } else if keep == 0 {
            self.replace(g.start, e);
            self.remove(g.start + 1..g.end);
        } else {
            self.remove(g.start + keep..g.end);
            self.insert(g.start, e);
        }
        self.prune_if_worthwhile(s);
        if was_live {
            Effect::Updated
        } else {
            Effect::Added
        }
    }

    /// Deletes edge `dst` if it is present in the latest state.
    pub(crate) fn kill(&mut self, dst: u32, s: &Stamping) -> Effect {
        let g = self.group(dst);
        if g.is_empty() || stamp::is_tomb(self.stamps().get(g.start)) {
            return Effect::Unchanged;
        }
        self.rebase_if_needed(s);
        let g = self.group(dst);
        let keep = kept_len(
            self.stamps().slice(g.clone()),
            offset_of(s.watermark, self.base()),
        );
        let t = offset_of(s.ts, self.base());
        let weight = self.weight(g.start);
        let tomb = Entry {
            dst,
            stamp: t | stamp::TOMB,
            weight,
        };
        if stamp::offset(self.stamps().get(g.start)) == t {
            // Added earlier by this same commit: one version per commit.
            self.replace(g.start, tomb);
            return Effect::Removed;
        }
        self.remove(g.start + keep..g.end);
        self.insert(g.start, tomb);
        self.prune_if_worthwhile(s);
        Effect::Removed
    }

    /// Deletes `dst` even when this run holds no version of it, for an edge
    /// that lives in an older source (a segment below the MemGraph): the
    /// tombstone is what hides it there.
    // Only the LSM tests write through it until the LSM write path is wired.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn bury(&mut self, dst: u32, s: &Stamping) -> Effect {
        if !self.group(dst).is_empty() {
            return self.kill(dst, s);
        }
        self.rebase_if_needed(s);
        let at = self.group(dst).start;
        let t = offset_of(s.ts, self.base());
        self.insert(
            at,
            Entry {
                dst,
                stamp: t | stamp::TOMB,
                weight: 1.0,
            },
        );
        Effect::Removed
    }

    /// Weight of `dst` in the latest state (what the next commit builds on).
    #[cfg(test)] // writers use `decided` (it tells "no version" apart)
    pub(crate) fn latest(&self, dst: u32) -> Option<f64> {
        let g = self.group(dst);
        (!g.is_empty() && !stamp::is_tomb(self.stamps().get(g.start))).then(|| self.weight(g.start))
    }

    /// Weight of `dst` as a snapshot at `ts` sees it.
    pub(crate) fn visible(&self, dst: u32, ts: u64) -> Option<f64> {
        let g = self.group(dst);
        let r = offset_of(ts, self.base());
        visible_in_group(self.stamps().slice(g.clone()), r).map(|k| self.weight(g.start + k))
    }

    /// Drops every version no snapshot can see and re-bases stamps on the
    /// watermark, so offsets stay small however long the run lives.
    pub(crate) fn prune(&mut self, s: &Stamping) {
        let entries = pruned_entries(self, s.watermark);
        let mut next = Run::from_entries(&entries, 0, s.watermark.max(self.base()));
        next.set_pruned_garbage(next.garbage());
        *self = next;
    }

    fn rebase_if_needed(&mut self, s: &Stamping) {
        if s.ts - self.base() >= s.window {
            self.prune(s);
        }
    }

    /// Prunes when garbage has doubled since the last prune and is a
    /// sizeable share of the run: amortised O(1) per write, and no repeated
    /// work while a long-lived snapshot pins the old versions.
    fn prune_if_worthwhile(&mut self, s: &Stamping) {
        let garbage = self.garbage();
        if garbage >= 2 * self.pruned_garbage() + 8 && garbage * 4 >= self.len() {
            self.prune(s);
        }
    }
}

/// The entries of `run` that snapshots at or after `watermark` can see,
/// re-stamped relative to `max(watermark, base)`.
pub(crate) fn pruned_entries(run: &Run, watermark: u64) -> Vec<Entry> {
    let base = run.base();
    let new_base = watermark.max(base);
    let wm = offset_of(new_base, base);
    let (d, st) = (run.dsts(), run.stamps());
    let mut out = Vec::with_capacity(run.groups());
    let mut i = 0;
    while i < d.len() {
        let mut j = i + 1;
        while j < d.len() && d[j] == d[i] {
            j += 1;
        }
        for k in i..i + kept_len(st.slice(i..j), wm) {
            let off = stamp::offset(st.get(k)).saturating_sub(wm);
            let tomb = st.get(k) & stamp::TOMB;
            out.push(Entry {
                dst: d[i],
                stamp: off | tomb,
                weight: run.weight(k),
            });
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(ts: u64, watermark: u64) -> Stamping {
        Stamping {
            ts,
            watermark,
            window: 1 << 30,
        }
    }

    #[test]
    fn kept_len_keeps_what_snapshots_at_or_after_the_watermark_need() {
        let t = stamp::TOMB;
        assert_eq!(
            kept_len(&[9, 7, 5, 3][..], 6),
            3,
            "9 and 7 are newer, 5 serves W"
        );
        assert_eq!(kept_len(&[9, 7 | t, 5][..], 6), 3, "a snapshot at 6 sees 5");
        assert_eq!(
            kept_len(&[9, 7 | t, 5][..], 8),
            2,
            "newest <= W is a tombstone: kept, it may hide a segment's copy"
        );
        assert_eq!(kept_len(&[4, 2][..], 10), 1);
        assert_eq!(kept_len(&[12, 11][..], 10), 2);
    }

    #[test]
    fn repeated_updates_keep_at_most_one_old_version() {
        let mut r = Run::with_capacity(0, false, 0);
        assert_eq!(r.put(5, 1.0, &st(1, 0)), Effect::Fresh);
        for ts in 2..50 {
            // No snapshot open: the watermark is the last published commit.
            assert_eq!(r.put(5, ts as f64, &st(ts, ts - 1)), Effect::Updated);
            assert_eq!(
                r.len(),
                2,
                "new version + the one a snapshot at W would see"
            );
        }
        assert_eq!(r.latest(5), Some(49.0));
        assert_eq!(r.visible(5, 48), Some(48.0));
    }

    #[test]
    fn pinned_versions_stay_visible_to_their_snapshot() {
        let mut r = Run::with_capacity(0, false, 0);
        r.put(5, 1.0, &st(1, 0));
        // A snapshot at ts 1 is open: watermark stays 1.
        r.put(5, 2.0, &st(2, 1));
        assert_eq!(r.kill(5, &st(3, 1)), Effect::Removed);
        assert_eq!(r.kill(5, &st(4, 1)), Effect::Unchanged);
        assert_eq!(r.visible(5, 1), Some(1.0));
        assert_eq!(r.visible(5, 2), Some(2.0));
        assert_eq!(r.visible(5, 3), None);
        assert_eq!(r.visible(5, 0), None);
        assert_eq!(r.latest(5), None);
        r.put(5, 4.0, &st(5, 1));
        assert_eq!(
            (r.visible(5, 1), r.visible(5, 4), r.visible(5, 5)),
            (Some(1.0), None, Some(4.0))
        );
    }

    #[test]
    fn rebasing_keeps_every_live_snapshot_exact() {
        let mut r = Run::with_capacity(0, false, 0);
        let window = 8;
        let at = |ts, wm| Stamping {
            ts,
            watermark: wm,
            window,
        };
        for ts in 1..40u64 {
            let wm = ts.saturating_sub(3);
            r.put((ts % 5) as u32, ts as f64, &at(ts, wm));
            assert!(ts - r.base() <= window);
            // Snapshots at wm..ts see the newest version <= their ts.
            for snap in wm..=ts {
                for d in 0..5u32 {
                    let want = (1..=snap)
                        .rev()
                        .find(|t| t % 5 == u64::from(d))
                        .map(|t| t as f64);
                    assert_eq!(r.visible(d, snap), want, "ts {ts} snap {snap} dst {d}");
                }
            }
        }
        assert!(r.base() > 0);
    }
}
