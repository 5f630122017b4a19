//! Lists one pass of a kernel read and keeps in memory for a later one, so
//! that the later one need not read them again: on a store larger than
//! memory every pass over lists spread across the file reads the whole
//! file (see `docs/ARCHITECTURE.md`, §3). Kept within a budget the kernel
//! sets, counted by [`KeptLists::cost`].

/// Some vertices' lists (or the parts of them a kernel keeps), as one task
/// of a pass collected them: vertices ascending.
#[derive(Default)]
pub(crate) struct KeptLists {
    verts: Vec<u32>,
    /// `verts[i]`'s list ends at `ends[i]` in `ids` (and starts where
    /// `verts[i - 1]`'s ends).
    ends: Vec<usize>,
    ids: Vec<u32>,
}

impl KeptLists {
    /// Where the next vertex's ids start: what `close` and `drop_from`
    /// take.
    pub(crate) fn mark(&self) -> usize {
        self.ids.len()
    }

    /// Adds ids to the list being collected.
    pub(crate) fn extend(&mut self, ids: &[u32]) {
        self.ids.extend_from_slice(ids);
    }

    /// Drops what was collected since `mark`.
    pub(crate) fn drop_from(&mut self, mark: usize) {
        self.ids.truncate(mark);
    }

    /// Ends `v`'s list, the ids collected since `mark`; a vertex with none
    /// is left out.
    pub(crate) fn close(&mut self, v: u32, mark: usize) {
        if self.ids.len() > mark {
            self.verts.push(v);
            self.ends.push(self.ids.len());
        }
    }

    /// Each kept vertex with its ids.
    pub(crate) fn lists(&self) -> impl Iterator<Item = (u32, &[u32])> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        self.verts
            .iter()
            .zip(starts.zip(self.ends.iter()))
            .map(|(&v, (s, &e))| (v, self.ids.get(s..e).unwrap_or(&[])))
    }

    pub(crate) fn vertex_count(&self) -> usize {
        self.verts.len()
    }

    pub(crate) fn id_count(&self) -> usize {
        self.ids.len()
    }

    /// The bytes the budget counts: 4 an id, and a vertex's id and end.
    pub(crate) fn cost(&self) -> usize {
        self.verts
            .len()
            .saturating_mul(4 + std::mem::size_of::<usize>())
            .saturating_add(self.ids.len().saturating_mul(4))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_come_back_as_kept() {
        let mut k = KeptLists::default();
        let m = k.mark();
        k.extend(&[1, 2]);
        k.extend(&[5]);
        k.close(7, m);
        let m = k.mark();
        k.close(8, m); // nothing collected: left out
        let m = k.mark();
        k.extend(&[3]);
        k.drop_from(m); // a hit: dropped
        k.extend(&[4]);
        k.close(9, m);
        let got: Vec<(u32, Vec<u32>)> = k.lists().map(|(v, l)| (v, l.to_vec())).collect();
        assert_eq!(got, vec![(7, vec![1, 2, 5]), (9, vec![4])]);
        assert_eq!((k.vertex_count(), k.id_count()), (2, 4));
        assert_eq!(k.cost(), 2 * (4 + std::mem::size_of::<usize>()) + 4 * 4);
    }
}
