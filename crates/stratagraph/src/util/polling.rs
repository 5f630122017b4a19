//! Waiting for another thread without sleeping, while that costs no other
//! thread its core.
//!
//! A committer waits for two things another committer does within
//! microseconds: the log sync its record is in, and the publication of the
//! commit before it. Sleeping on a condition variable and being woken
//! takes tens of microseconds, long enough to break the rhythm of two
//! committers that take turns leading syncs. Polling with `sched_yield`
//! avoids that, but only while the machine has a core to spare: with more
//! runnable threads than cores (a server with many clients on one host),
//! every poll takes a turn from a thread with real work. A yield that
//! returns late is the sign: another thread ran meanwhile.

use std::time::{Duration, Instant};

/// A yield that returns later than this ran another thread. Yields on an
/// idle core of this project's virtual machine take up to tens of
/// microseconds now and then: at 10 us two committers on two otherwise
/// idle cores fell back to sleeping and committed 20% slower, at 60-120 us
/// they did not (bench/NOTES.md).
const BUSY: Duration = Duration::from_micros(100);

/// Polls `ready` between yields for at most `limit`, while the yields come
/// back at once. True once `ready` holds; false if the time ran out or
/// another thread wanted the core (the caller then sleeps).
pub(crate) fn poll_while_idle(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    loop {
        if ready() {
            return true;
        }
        let before = Instant::now();
        std::thread::yield_now();
        let now = Instant::now();
        if now - before > BUSY || now >= until {
            return ready();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn it_sees_a_condition_another_thread_sets_or_gives_up_in_time() {
        let flag = AtomicBool::new(false);
        assert!(!poll_while_idle(Duration::from_millis(2), || flag.load(Ordering::Acquire)));
        std::thread::scope(|s| {
            s.spawn(|| flag.store(true, Ordering::Release));
            // Polls until the flag is seen, or gives up when this core is
            // busy: either way it returns, and true only if the flag is set.
            let seen = poll_while_idle(Duration::from_secs(5), || flag.load(Ordering::Acquire));
            assert!(!seen || flag.load(Ordering::Acquire));
        });
        let start = Instant::now();
        assert!(!poll_while_idle(Duration::from_millis(1), || false));
        assert!(start.elapsed() < Duration::from_secs(1));
    }
}
