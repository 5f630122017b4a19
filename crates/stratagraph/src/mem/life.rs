//! Whether a vertex exists, as a short history of timestamped states.
//!
//! Vertex creation and deletion are rare next to edge writes, so one packed
//! `u64` holds the latest state and older states needed by open snapshots
//! spill into a boxed list only when a vertex is deleted or re-created.

/// Existence history of one vertex. The default is "never existed".
#[derive(Debug, Default, Clone)]
pub(crate) struct Life {
    /// `ts << 1 | alive` of the latest state; 0 means never existed.
    latest: u64,
    /// Older states, newest first, kept while a snapshot may need them.
    /// Boxed so that the common case (no history) costs one word, not three.
    #[allow(clippy::box_collection)]
    older: Option<Box<Vec<u64>>>,
}

fn pack(ts: u64, alive: bool) -> u64 {
    (ts << 1) | u64::from(alive)
}

impl Life {
    /// A vertex that exists, or not, for snapshots at `ts` or later and
    /// for none before.
    pub(crate) fn since(ts: u64, alive: bool) -> Life {
        Life {
            latest: if alive { pack(ts, true) } else { 0 },
            older: None,
        }
    }

    /// Forgets the states no snapshot at or after `watermark` can see,
    /// and says whether the vertex exists if every such snapshot sees the
    /// same state (the history is then one bit).
    pub(crate) fn one_state(&mut self, watermark: u64) -> Option<bool> {
        if self.latest >> 1 > watermark {
            return None;
        }
        self.older = None;
        Some(self.alive())
    }

    /// Whether the vertex exists in the latest state.
    #[inline]
    pub(crate) fn alive(&self) -> bool {
        self.latest & 1 == 1
    }

    /// Whether a snapshot at `ts` sees the vertex.
    #[inline]
    pub(crate) fn alive_at(&self, ts: u64) -> bool {
        if self.latest >> 1 <= ts {
            return self.alive();
        }
        self.older
            .as_ref()
            .and_then(|o| o.iter().find(|&&p| p >> 1 <= ts))
            .is_some_and(|&p| p & 1 == 1)
    }

    /// Records a new state at commit `ts`, dropping states older than the
    /// newest one at or below `watermark` (no snapshot can see them).
    pub(crate) fn set(&mut self, ts: u64, alive: bool, watermark: u64) {
        if self.latest != 0 {
            let older = self.older.get_or_insert_with(Default::default);
            older.insert(0, self.latest);
            // Same rule as edge versions: keep states newer than W and the
            // newest at or below W unless it is "dead" (which equals absent).
            if let Some(k) = older.iter().position(|&p| p >> 1 <= watermark) {
                let keep_k = older[k] & 1 == 1;
                older.truncate(k + usize::from(keep_k));
            }
            if older.is_empty() {
                self.older = None;
            }
        }
        self.latest = pack(ts, alive);
    }

    /// Heap bytes beyond the inline word.
    #[inline]
    pub(crate) fn heap_bytes(&self) -> usize {
        self.older.as_ref().map_or(0, |o| 24 + o.capacity() * 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_answers_old_snapshots_and_forgets_what_none_can_see() {
        let mut l = Life::default();
        assert!(!l.alive() && !l.alive_at(100));
        l.set(5, true, 4);
        l.set(9, false, 6);
        l.set(12, true, 6);
        assert!(!l.alive_at(4) && l.alive_at(5) && l.alive_at(8));
        assert!(!l.alive_at(9) && !l.alive_at(11) && l.alive_at(12));
        l.set(20, false, 15);
        assert!(l.alive_at(15) && !l.alive_at(20));
        assert_eq!(l.older.as_ref().map(|o| o.len()), Some(1));
        l.set(30, true, 25);
        assert!(
            l.older.is_none(),
            "a dead state at or below W is not needed"
        );
        assert!(l.alive_at(30));
    }

    #[test]
    fn one_state_is_the_latest_once_the_watermark_reaches_it() {
        let mut l = Life::since(4, true);
        assert!(!l.alive_at(3) && l.alive_at(4));
        l.set(9, false, 4);
        assert_eq!(l.one_state(8), None, "a snapshot at 8 still sees it alive");
        assert!(l.alive_at(8));
        assert_eq!(l.one_state(9), Some(false));
        assert!(l.older.is_none() && !l.alive_at(9));
        assert_eq!(Life::since(7, false).one_state(0), Some(false));
    }
}
