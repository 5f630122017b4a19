//! How the process's allocator treats large blocks.
//!
//! glibc's `malloc` serves a block of more than its *mmap threshold* with
//! a mapping of its own, unmapped when freed, and smaller ones from its
//! heaps, which keep what is freed for later. By default the threshold
//! rises to the size of the largest mapped block freed (up to 32 MiB), so
//! after the first large free, blocks of tens of megabytes (a load's
//! batches, sorts and segment buffers) come from the heaps and stay there:
//! a k20 load's anonymous memory was 450 MB instead of about 250
//! (bench/NOTES.md, issue 32), and a memory cap must cover that.

/// Fixes the mmap threshold at 4 MiB, which also stops it rising: blocks
/// that large are mapped and unmapped on their own, for a few page faults
/// per megabyte, nothing beside the work that fills them. Call it first
/// thing in `main`, before any other thread exists.
pub fn return_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` sets one allocator parameter; the parameter and
    // value are ones glibc documents (M_MMAP_THRESHOLD, at most 32 MiB on
    // 64-bit systems), and changing it while other threads allocate is
    // also allowed (glibc takes its own lock).
    #[allow(unsafe_code)]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, THRESHOLD);
    }
}

const THRESHOLD: i32 = 4 << 20;

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    /// Anonymous resident memory of this process, in bytes.
    fn anon() -> usize {
        let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
        let kb = status
            .lines()
            .find_map(|l| l.strip_prefix("RssAnon:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<usize>().ok())
            .expect("an RssAnon line in kB");
        kb * 1024
    }

    /// A large block, written and freed, leaves no resident memory behind
    /// once the policy is set, even after a larger block was freed first
    /// (which, by default, raises the threshold above it and keeps the
    /// next one in the heap).
    #[test]
    fn a_freed_large_block_goes_back_to_the_system() {
        super::return_large_blocks();
        drop(std::hint::black_box(vec![1u8; 24 << 20]));
        let before = anon();
        let block = std::hint::black_box(vec![1u8; 16 << 20]);
        assert!(anon() >= before + (12 << 20), "the block was not resident");
        drop(block);
        let after = anon();
        assert!(
            after < before + (4 << 20),
            "{} MiB stayed resident",
            (after - before) >> 20
        );
    }
}
