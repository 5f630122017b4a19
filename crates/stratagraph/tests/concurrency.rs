//! Writers and readers at full speed for a bounded time. Readers check the
//! invariants every consistent snapshot must hold, and that each snapshot
//! contains exactly the tracked commits at or before its timestamp.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use stratagraph::{Graph, Options, Snapshot, SyncPolicy};

const SHARED_VERTICES: u64 = 300;
const WRITERS: u64 = 3;
const READERS: usize = 2;

/// A tiny deterministic generator, so failures are reproducible per thread.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// (commit timestamp, src, dst) of inserts into a writer's private range,
/// which nobody deletes.
type Log = Mutex<Vec<(u64, u64, u64)>>;

fn check(snap: &Snapshot, logs: &[Log]) {
    let (mut outs, mut ins, mut checksum) = (0u64, 0u64, 0u64);
    let mut vertices = 0u64;
    for v in snap.vertices() {
        vertices += 1;
        snap.for_each_out_of(v, |u| {
            outs += 1;
            checksum = checksum.wrapping_add(u64::from(v) * 1_000_003 + u64::from(u));
            assert!(snap.contains(u), "edge {v}->{u} to a missing vertex");
        });
        ins += snap.in_degree_of(v) as u64;
    }
    assert_eq!(vertices, snap.vertex_count(), "vertex count");
    assert_eq!(outs, snap.edge_count(), "sum of out-degrees == edge count");
    assert_eq!(ins, snap.edge_count(), "sum of in-degrees == edge count");
    // Reading the same snapshot again gives the same answer.
    let mut again = 0u64;
    for v in snap.vertices() {
        for u in snap.out_neighbors_of(v) {
            again = again.wrapping_add(u64::from(v) * 1_000_003 + u64::from(u));
        }
    }
    assert_eq!(checksum, again, "snapshot changed while read");
    for log in logs {
        let entries = log.lock().clone();
        for (ts, s, d) in entries {
            assert_eq!(
                snap.has_edge(s, d),
                ts <= snap.timestamp(),
                "commit {ts} vs snapshot {}",
                snap.timestamp()
            );
        }
    }
}

#[test]
fn readers_see_consistent_snapshots_while_writers_commit() {
    writers_and_readers(Options::default());
}

/// The same, with a MemGraph budget small enough that background flushes
/// publish runs and clean the MemGraph all through the run.
#[test]
fn readers_see_consistent_snapshots_while_flushes_run() {
    let g = writers_and_readers(Options {
        memgraph_bytes: 16 << 10,
        ..Options::default()
    });
    let stats = g.stats();
    assert!(stats.flushes > 1, "background flushes ran");
    assert!(stats.compactions > 0, "runs were merged");
}

/// The same on disk, with a level ratio of 2, so that compactions write
/// level files down to several levels and retire old ones while readers
/// hold snapshots over them; the store then reopens with every commit.
#[test]
fn readers_see_consistent_snapshots_while_disk_levels_compact() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        memgraph_bytes: 16 << 10,
        level_ratio: 2,
        sync: SyncPolicy::Never,
        ..Options::default()
    };
    let g = Graph::open(dir.path(), opts.clone()).unwrap();
    let logs = writers_and_readers_on(&g);
    let stats = g.stats();
    assert!(stats.compactions > 1, "runs were merged");
    let deepest = g.runs().iter().map(|r| r.level).max().unwrap_or(0);
    assert!(deepest >= 2, "levels below L1 were written: {deepest}");
    let before = g.snapshot().edge_count();
    g.close().unwrap();
    drop(g);
    let g = Graph::open(dir.path(), opts).unwrap();
    let snap = g.snapshot();
    assert_eq!(snap.edge_count(), before);
    check(&snap, &logs);
}

fn writers_and_readers(opts: Options) -> Graph {
    let g = Graph::in_memory(opts);
    writers_and_readers_on(&g);
    g
}

/// Writers and readers on `g` for a bounded time; returns the writers'
/// logs of tracked commits.
fn writers_and_readers_on(g: &Graph) -> Arc<Vec<Log>> {
    let stop = Arc::new(AtomicBool::new(false));
    let logs: Arc<Vec<Log>> = Arc::new((0..WRITERS).map(|_| Mutex::new(Vec::new())).collect());
    let commits = AtomicU64::new(0);
    let reads = AtomicU64::new(0);
    let deadline = Instant::now() + Duration::from_secs(3);
    let last_call = Instant::now() + Duration::from_secs(60);
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let (g, stop, logs, commits) = (&g, &stop, &logs, &commits);
            s.spawn(move || {
                let mut rng = Rng(0x9E37 + w);
                let private = 1_000_000 * (w + 1);
                let mut k = 0;
                while !stop.load(Ordering::Relaxed) {
                    let a = rng.below(SHARED_VERTICES);
                    let b = rng.below(SHARED_VERTICES);
                    let r = match rng.below(100) {
                        0..=59 => g.insert_edge(a, b, 1.0).map(|_| ()),
                        60..=79 => g.delete_edge(a, b).map(|_| ()).or(Ok(())),
                        80..=84 => g.delete_vertex(a).map(|_| ()).or(Ok(())),
                        85..=89 => {
                            let batch: Vec<_> = (0..50)
                                .map(|_| {
                                    (rng.below(SHARED_VERTICES), rng.below(SHARED_VERTICES), 2.0)
                                })
                                .collect();
                            g.insert_edges(&batch).map(|_| ())
                        }
                        _ => {
                            // A multi-vertex transaction plus one tracked private edge.
                            let mut tx = g.begin();
                            tx.insert_edge(a, b, 3.0).unwrap();
                            tx.insert_edge(b, private, 1.0).unwrap();
                            k += 1;
                            tx.insert_edge(private, private + k, 1.0).unwrap();
                            let ts = tx.commit().unwrap();
                            logs[w as usize].lock().push((ts, private, private + k));
                            Ok(())
                        }
                    };
                    r.unwrap();
                    commits.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        for _ in 0..READERS {
            let (g, stop, logs, reads) = (&g, &stop, &logs, &reads);
            s.spawn(move || {
                let mut last = 0;
                while !stop.load(Ordering::Relaxed) {
                    let snap = g.snapshot();
                    assert!(snap.timestamp() >= last, "snapshots go forward");
                    last = snap.timestamp();
                    check(&snap, logs);
                    reads.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        // At least 3 s, and on a loaded machine until both sides made the
        // progress checked below (at most a minute).
        let enough = || commits.load(Ordering::Relaxed) > 1000 && reads.load(Ordering::Relaxed) > 5;
        while Instant::now() < deadline || (!enough() && Instant::now() < last_call) {
            std::thread::sleep(Duration::from_millis(20));
        }
        stop.store(true, Ordering::Relaxed);
    });
    let final_snap = g.snapshot();
    check(&final_snap, &logs);
    assert!(
        commits.load(Ordering::Relaxed) > 1000,
        "writers made progress"
    );
    assert!(reads.load(Ordering::Relaxed) > 5, "readers made progress");
    logs
}

/// An old snapshot, held while many later commits rewrite the same
/// vertices, still reads exactly what it read at first.
#[test]
fn old_snapshot_is_stable_under_heavy_rewrites() {
    old_snapshot_stays(Options::default());
}

/// The same while flushes write runs and clean the MemGraph under it.
#[test]
fn old_snapshot_is_stable_across_flushes() {
    old_snapshot_stays(Options {
        memgraph_bytes: 8 << 10,
        ..Options::default()
    });
}

fn old_snapshot_stays(opts: Options) {
    let g = Graph::in_memory(opts);
    let edges: Vec<(u64, u64, f64)> = (0..2000).map(|i| (i % 50, (i * 7) % 400, 1.0)).collect();
    g.insert_edges(&edges).unwrap();
    let old = g.snapshot();
    let digest = |s: &Snapshot| -> Vec<(u32, Vec<u32>)> {
        s.vertices()
            .map(|v| (v, s.out_neighbors_of(v).collect()))
            .collect()
    };
    let before = digest(&old);
    std::thread::scope(|s| {
        for t in 0..2u64 {
            let g = &g;
            s.spawn(move || {
                let mut rng = Rng(77 + t);
                for _ in 0..20_000 {
                    let (a, b) = (rng.below(50), rng.below(400));
                    if rng.below(2) == 0 {
                        g.insert_edge(a, b, 5.0).unwrap();
                    } else {
                        let _ = g.delete_edge(a, b);
                    }
                }
            });
        }
    });
    assert_eq!(digest(&old), before);
}

/// Writers adding vertices without ids of their own, at once: every
/// generated id is new, none conflicts, and after a reopen the counter
/// starts past every id the store holds (the log replays them).
#[test]
fn generated_vertex_ids_never_collide_and_survive_a_reopen() {
    const THREADS: usize = 4;
    const EACH: usize = 500;
    let dir = tempfile::tempdir().unwrap();
    let g = Arc::new(Graph::open(dir.path(), Options::default()).unwrap());
    // A user-chosen id far ahead: generated ones start past it.
    let mut t = g.begin();
    t.insert_vertex_with(1_000, "user", &[]).unwrap();
    t.commit().unwrap();
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let g = g.clone();
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                for _ in 0..EACH {
                    let mut t = g.begin();
                    let v = t.fresh_vertex_id().unwrap();
                    assert!(t.insert_vertex_with(v, "gen", &[]).unwrap());
                    t.commit().unwrap(); // no conflict: ids are never shared
                    mine.push(v);
                }
                mine
            })
        })
        .collect();
    let mut all: Vec<u64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), THREADS * EACH);
    assert!(
        all[0] > 1_000,
        "generated ids start past the user's: {}",
        all[0]
    );
    let largest = *all.last().unwrap();
    Arc::try_unwrap(g).ok().unwrap().close().unwrap();

    let g = Graph::open(dir.path(), Options::default()).unwrap();
    assert_eq!(g.snapshot().vertex_count() as usize, THREADS * EACH + 1);
    let mut t = g.begin();
    let next = t.fresh_vertex_id().unwrap();
    assert!(next > largest, "{next} after a reopen, {largest} before");
}
