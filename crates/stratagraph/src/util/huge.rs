//! Large tables placed on transparent huge pages.
//!
//! Point reads and single-edge writes land on random lines of tables that
//! are megabytes long: level columns, vertex slots. With 4 KiB pages nearly
//! every such access also misses the TLB and walks the page table, which on
//! the 2-core benchmark machine costs about as much as the cache miss
//! itself (a chain of dependent loads over 256 MiB: 310 ns per load on
//! 4 KiB pages, 190 ns on 2 MiB pages). Linux backs a region with 2 MiB
//! pages only when asked (`transparent_hugepage` is `madvise` on most
//! distributions), so a table of at least [`HUGE_MIN_BYTES`] is advised
//! `MADV_HUGEPAGE` before its first write. Advice is a hint: where huge
//! pages are off or unavailable the table works the same on small pages.

use std::mem::MaybeUninit;

/// A huge page; a smaller table cannot fill one, so it is left alone.
pub(crate) const HUGE_MIN_BYTES: usize = 2 << 20;

/// A table of `len` items from `make`, advised onto huge pages first when
/// it is large.
pub(crate) fn filled<T>(len: usize, mut make: impl FnMut() -> T) -> Box<[T]> {
    let mut v = advised(len);
    v.extend((0..len).map(|_| make()));
    v.into_boxed_slice()
}

/// `items` moved onto huge pages when they fill at least one (the engine
/// places its level columns and vertex-slot chunks so). Exported so that
/// a static CSR compared with the engine (`stratagraph-algo`'s baseline)
/// can be placed the same way, and a comparison measures layout and
/// code, not page size. Costs one copy of a large table.
pub fn on_huge_pages<T: Copy>(items: Vec<T>) -> Vec<T> {
    if std::mem::size_of_val(&items[..]) < HUGE_MIN_BYTES {
        return items;
    }
    let mut v = advised(items.len());
    v.extend_from_slice(&items);
    v
}

/// An empty vector with room for `len` items, the room advised onto huge
/// pages when it spans one.
fn advised<T>(len: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    advise(v.spare_capacity_mut());
    v
}

/// Advises the whole huge pages inside `spare` (memory this thread owns
/// and has not written yet) onto huge pages, if it spans one.
#[allow(unsafe_code)]
fn advise<T>(spare: &mut [MaybeUninit<T>]) {
    let bytes = std::mem::size_of_val(spare);
    if bytes < HUGE_MIN_BYTES {
        return;
    }
    let start = spare.as_mut_ptr() as usize;
    let lo = start.next_multiple_of(HUGE_MIN_BYTES);
    let hi = (start + bytes) & !(HUGE_MIN_BYTES - 1);
    if lo >= hi {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: `MADV_HUGEPAGE` neither reads, writes nor unmaps memory; it
    // marks the range so the kernel may back it with 2 MiB pages, keeping
    // every byte's content. The range lies wholly inside `spare`, which the
    // caller borrows exclusively, so no other owner's memory is affected.
    // The call fails harmlessly (and is ignored) where huge pages are not
    // supported. Checked by `large_tables_are_advised` below.
    unsafe {
        libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `VmFlags` line of the mapping of /proc/self/smaps holding `addr`.
    fn vm_flags_of(addr: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((a, b)) = range.split_once('-') {
                    if let (Ok(a), Ok(b)) =
                        (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                    {
                        inside = (a..b).contains(&addr);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(flags) = line.strip_prefix("VmFlags:") {
                    return Some(flags.to_string());
                }
            }
        }
        None
    }

    #[test]
    fn tables_hold_what_was_made() {
        for len in [0, 1, 1000, HUGE_MIN_BYTES / 8 * 3 + 5] {
            let mut n = 0u64;
            let t = filled(len, || {
                n += 1;
                n * 7
            });
            assert_eq!(t.len(), len);
            assert!(t.iter().enumerate().all(|(i, &x)| x == (i as u64 + 1) * 7));
        }
    }

    #[test]
    fn moved_tables_keep_their_items() {
        for len in [0, 5, HUGE_MIN_BYTES / 4 + 9] {
            let items: Vec<u32> = (0..len as u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            assert_eq!(on_huge_pages(items.clone()), items);
        }
    }

    #[test]
    fn large_tables_are_advised() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return; // no huge pages to ask for on this system
        }
        let big = filled(HUGE_MIN_BYTES / 8 * 4, || 1u64);
        let lo = (big.as_ptr() as usize).next_multiple_of(HUGE_MIN_BYTES);
        let flags = vm_flags_of(lo).expect("the table's mapping is listed");
        assert!(
            flags.split_whitespace().any(|f| f == "hg"),
            "flags: {flags}"
        );
        let moved = on_huge_pages(vec![3u32; HUGE_MIN_BYTES]);
        let lo = (moved.as_ptr() as usize).next_multiple_of(HUGE_MIN_BYTES);
        let flags = vm_flags_of(lo).expect("listed");
        assert!(
            flags.split_whitespace().any(|f| f == "hg"),
            "flags: {flags}"
        );
        let small = filled(1000, || 1u64);
        let flags = vm_flags_of(small.as_ptr() as usize).expect("listed");
        assert!(
            !flags.split_whitespace().any(|f| f == "hg"),
            "flags: {flags}"
        );
    }
}
