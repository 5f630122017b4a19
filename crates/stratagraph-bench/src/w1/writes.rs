//! The W1 write operations: insert_single (with latency), batch_sizes,
//! mixed_rw and delete_mixed, each from a fresh store per run.

use super::*;

impl Bench<'_> {
    /// 80% bulk-loaded, the rest one edge per transaction, with each
    /// commit's latency. Returns, per home, the store the last run left
    /// (settled), which holds exactly `kS.bin`: the reads run on it.
    pub(super) fn insert_single(&mut self) -> Res<Vec<(Home, Store)>> {
        let w = self.work;
        let (head, tail) = w.edges.split_at(w.split());
        let mut after = Vec::new();
        for home in self.homes.clone() {
            let mut last = None;
            for t in self.threads.clone() {
                let (mut rates, mut p50, mut p99, mut p999) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for _ in 0..self.runs {
                    let s = self.fresh(home, t)?;
                    s.load(&w.vertices, head)?;
                    s.settle()?;
                    let start = Instant::now();
                    let mut lat = stream::apply(tail, t, true, |&(a, b, wt)| {
                        s.graph.insert_edge(a, b, wt).map(drop)
                    })?;
                    rates.push(tail.len() as f64 / start.elapsed().as_secs_f64());
                    self.expect_edges(&s, w.reference.edges, "insert_single")?;
                    let p = percentiles(&mut lat);
                    p50.push(p.p50 / 1e3);
                    p99.push(p.p99 / 1e3);
                    p999.push(p.p999 / 1e3);
                    last = Some(s);
                }
                let sys = home.system();
                self.push(
                    sys,
                    "insert_single",
                    t,
                    median(&rates),
                    "edges/s",
                    w.edge_check(),
                );
                for (op, v) in [
                    ("insert_single_p50", &p50),
                    ("insert_single_p99", &p99),
                    ("insert_single_p999", &p999),
                ] {
                    self.push(sys, op, t, median(v), "us", w.edge_check());
                }
            }
            if let Some(s) = last {
                s.settle()?;
                after.push((home, s));
            }
        }
        for t in self.threads.clone() {
            self.na(CSR, "insert_single", t, CSR_NA);
        }
        Ok(after)
    }

    /// 80% bulk-loaded, the rest in atomic batches of each W1 size.
    pub(super) fn batch_sizes(&mut self) -> Res<()> {
        let w = self.work;
        let (head, tail) = w.edges.split_at(w.split());
        for t in self.threads.clone() {
            for size in BATCH_SIZES {
                let op = format!("batch_sizes_{size}");
                for home in self.homes.clone() {
                    let mut rates = Vec::new();
                    for _ in 0..self.runs {
                        let s = self.fresh(home, t)?;
                        s.load(&w.vertices, head)?;
                        s.settle()?;
                        let start = Instant::now();
                        for chunk in tail.chunks(size) {
                            s.graph.insert_edges(chunk)?;
                        }
                        rates.push(tail.len() as f64 / start.elapsed().as_secs_f64());
                        self.expect_edges(&s, w.reference.edges, &op)?;
                    }
                    let check = format!(
                        "edges={};batches={}",
                        w.reference.edges,
                        tail.len().div_ceil(size)
                    );
                    self.push(home.system(), &op, t, median(&rates), "edges/s", check);
                }
                self.na(CSR, &op, t, CSR_NA);
            }
        }
        Ok(())
    }

    /// One thread inserts the last 20% one edge per transaction while
    /// another runs SSSP on fresh snapshots; both as ratios to the same
    /// operation alone (insert_single and sssp on 1 thread, measured above).
    pub(super) fn mixed_rw(&mut self) -> Res<()> {
        let w = self.work;
        let r = &w.reference;
        let (head, tail) = w.edges.split_at(w.split());
        for home in self.homes.clone() {
            let (mut rates, mut sssp_secs, mut rounds) = (Vec::new(), Vec::new(), 0usize);
            let mut final_check = String::new();
            for _ in 0..self.runs {
                let s = self.fresh(home, 1)?;
                s.load(&w.vertices, head)?;
                s.settle()?;
                let source = s
                    .graph
                    .snapshot()
                    .internal_id(r.bfs_source)
                    .ok_or("the BFS source is not a vertex")?;
                let done = AtomicBool::new(false);
                let (insert_secs, times) = std::thread::scope(|scope| -> Res<_> {
                    let reader = scope.spawn(|| -> Result<Vec<f64>, String> {
                        let mut times = Vec::new();
                        loop {
                            let snap = s.graph.snapshot();
                            let start = Instant::now();
                            let dist = sssp(&snap, source, 1).map_err(|e| e.to_string())?;
                            times.push(start.elapsed().as_secs_f64());
                            std::hint::black_box(dist);
                            if done.load(Ordering::Acquire) {
                                return Ok(times);
                            }
                        }
                    });
                    let start = Instant::now();
                    let written = stream::apply(tail, 1, false, |&(a, b, wt)| {
                        s.graph.insert_edge(a, b, wt).map(drop)
                    });
                    let secs = start.elapsed().as_secs_f64();
                    done.store(true, Ordering::Release);
                    let times = reader
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p))?;
                    written?;
                    Ok((secs, times))
                })?;
                self.expect_edges(&s, r.edges, "mixed_rw")?;
                final_check = kernel_run(&s.graph.snapshot(), "sssp", source, 1, r)?;
                rates.push(tail.len() as f64 / insert_secs);
                sssp_secs.push(median(&times));
                rounds += times.len();
            }
            let sys = home.system();
            let check = format!("edges={};final_sssp_{final_check}", r.edges);
            let rate = median(&rates);
            let secs = median(&sssp_secs);
            self.push(sys, "mixed_rw_insert", 2, rate, "edges/s", check.clone());
            self.push(sys, "mixed_rw_sssp", 2, secs, "s", check.clone());
            let alone_rate = self.table.value(sys, "insert_single", 1);
            let alone_sssp = self.table.value(sys, "sssp", 1);
            match (alone_rate, alone_sssp) {
                (Some(ins), Some(ss)) => {
                    self.push(
                        sys,
                        "mixed_rw_insert_ratio",
                        2,
                        rate / ins,
                        "x",
                        check.clone(),
                    );
                    self.push(sys, "mixed_rw_sssp_ratio", 2, secs / ss, "x", check);
                }
                _ => {
                    let why =
                        "n/a: the ratio needs insert_single and sssp on 1 thread in the same run";
                    self.na(sys, "mixed_rw_insert_ratio", 2, why);
                    self.na(sys, "mixed_rw_sssp_ratio", 2, why);
                }
            }
            println!("# {sys} mixed_rw: {rounds} SSSP runs during the inserts");
        }
        for op in ["mixed_rw_insert", "mixed_rw_sssp"] {
            self.na(CSR, op, 2, CSR_NA);
        }
        Ok(())
    }

    /// The delete_mixed stream, one operation per transaction, on the full
    /// graph; the edge count (and sum of ids) after it are checked.
    pub(super) fn delete_mixed(&mut self) -> Res<()> {
        let w = self.work;
        let r = &w.reference;
        let want = Reference::require(r.edges_after_ops, "edge count after delete_mixed")?;
        for t in self.threads.clone() {
            for home in self.homes.clone() {
                let mut rates = Vec::new();
                for _ in 0..self.runs {
                    let s = self.fresh(home, t)?;
                    s.load(&w.vertices, &w.edges)?;
                    s.settle()?;
                    let start = Instant::now();
                    stream::apply(&w.ops, t, false, |&(insert, a, b)| {
                        let (a, b) = (u64::from(a), u64::from(b));
                        if insert {
                            s.graph.insert_edge(a, b, w1_weight(a, b)).map(drop)
                        } else {
                            s.graph.delete_edge(a, b).map(drop)
                        }
                    })?;
                    rates.push(w.ops.len() as f64 / start.elapsed().as_secs_f64());
                    self.expect_edges(&s, want, "delete_mixed")?;
                    if let Some(sum) = r.sum_dst_after_ops {
                        let got = scan_seq(&s.graph.snapshot(), r.vertices as u32, 1);
                        if got != sum {
                            return Err(format!(
                                "after delete_mixed: sum of destination ids {got}, reference {sum}"
                            )
                            .into());
                        }
                    }
                }
                let check = format!("edges_after={want}");
                self.push(
                    home.system(),
                    "delete_mixed",
                    t,
                    median(&rates),
                    "ops/s",
                    check,
                );
            }
            self.na(CSR, "delete_mixed", t, CSR_NA);
        }
        Ok(())
    }
}
