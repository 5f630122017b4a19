//! A list that is usually short, its first few items kept inline: a
//! vertex's properties.
//!
//! Most vertices have a handful of properties. In a `Vec` they cost a heap
//! block each, and a scan that tests one property of every vertex (a find
//! without an index) then reads that block at a random place for every
//! vertex: at a scale of millions nearly every one a cache miss. Inline,
//! the scan reads the store's pages in the order they lie.

/// Items in the order pushed: the first `N` inline, any more in a list.
///
/// Invariant: the inline places hold items from the first on, with no gap
/// (`Some` then `None`), and `more` holds items only when every inline
/// place does.
#[derive(Debug)]
pub(crate) struct ShortList<T, const N: usize> {
    inline: [Option<T>; N],
    // Boxed so a list that fits inline pays 8 bytes for it, not 24.
    #[allow(clippy::box_collection)]
    more: Option<Box<Vec<T>>>,
}

impl<T, const N: usize> Default for ShortList<T, N> {
    fn default() -> Self {
        ShortList {
            inline: std::array::from_fn(|_| None),
            more: None,
        }
    }
}

impl<T, const N: usize> ShortList<T, N> {
    pub(crate) fn is_empty(&self) -> bool {
        self.inline.first().is_none_or(Option::is_none)
    }

    /// Appends `item`.
    pub(crate) fn push(&mut self, item: T) {
        match self.inline.iter_mut().find(|x| x.is_none()) {
            Some(place) => *place = Some(item),
            None => super::push_short(self.more.get_or_insert_default(), item),
        }
    }

    /// The items, in the order pushed.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.inline
            .iter()
            .map_while(Option::as_ref)
            .chain(self.more.iter().flat_map(|m| m.iter()))
    }

    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.inline
            .iter_mut()
            .map_while(Option::as_mut)
            .chain(self.more.iter_mut().flat_map(|m| m.iter_mut()))
    }

    /// Keeps the items `keep` passes, in their order. `keep` is a test
    /// and may be called more than once for an item: every commit asks,
    /// and removing is rare, so the list is rebuilt only then.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        if self.iter().all(&mut keep) {
            return;
        }
        let items: Vec<T> = self
            .inline
            .iter_mut()
            .map_while(Option::take)
            .chain(self.more.take().into_iter().flat_map(|m| *m))
            .collect();
        for item in items {
            if keep(&item) {
                self.push(item);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Push(u16),
        /// Keep the items not divisible by this.
        RetainNotDivisible(u16),
        /// Add this to every item.
        Bump(u16),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => any::<u16>().prop_map(Op::Push),
            1 => (2u16..7).prop_map(Op::RetainNotDivisible),
            1 => any::<u16>().prop_map(Op::Bump),
        ]
    }

    proptest! {
        /// Reads as a `Vec` does through pushes, removals and changes in
        /// place, and keeps its invariant.
        #[test]
        fn reads_like_a_vec(ops in prop::collection::vec(op(), 0..60)) {
            let mut list: ShortList<u16, 2> = ShortList::default();
            let mut model: Vec<u16> = Vec::new();
            for op in ops {
                match op {
                    Op::Push(x) => {
                        list.push(x);
                        model.push(x);
                    }
                    Op::RetainNotDivisible(d) => {
                        list.retain(|x| x % d != 0);
                        model.retain(|x| x % d != 0);
                    }
                    Op::Bump(b) => {
                        list.iter_mut().for_each(|x| *x = x.wrapping_add(b));
                        model.iter_mut().for_each(|x| *x = x.wrapping_add(b));
                    }
                }
                prop_assert_eq!(list.iter().copied().collect::<Vec<_>>(), model.clone());
                prop_assert_eq!(list.is_empty(), model.is_empty());
                let filled = list.inline.iter().take_while(|x| x.is_some()).count();
                prop_assert!(list.inline[filled..].iter().all(Option::is_none), "a gap inline");
                prop_assert!(filled == 2 || list.more.as_ref().is_none_or(|m| m.is_empty()));
            }
        }
    }

    #[test]
    fn two_properties_fit_inline_and_cost_no_heap_block() {
        let mut list: ShortList<(u32, u64), 2> = ShortList::default();
        list.push((1, 10));
        list.push((2, 20));
        assert!(list.more.is_none());
        list.push((3, 30));
        assert_eq!(list.more.as_ref().unwrap().len(), 1);
        list.retain(|&(k, _)| k != 1);
        assert!(list.more.is_none(), "the third moved inline");
        assert_eq!(list.iter().copied().collect::<Vec<_>>(), [(2, 20), (3, 30)]);
    }
}
