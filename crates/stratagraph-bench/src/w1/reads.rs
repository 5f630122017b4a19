//! The W1 read operations on the graph insert_single leaves: search_edge,
//! scan_seq, scan_rand and the kernels, then TC on `kS_u.bin`; every run
//! alternates the CSR and the stores.

use super::*;

impl Bench<'_> {
    /// search_edge, scan_seq, scan_rand and the four kernels on the graph
    /// insert_single left (or, when it did not run, a bulk-loaded one),
    /// each run alternating the CSR and the stores.
    pub(super) fn reads(&mut self, mut stores: Vec<(Home, Store)>) -> Res<()> {
        let w = self.work;
        let r = &w.reference;
        if stores.is_empty() {
            for home in self.homes.clone() {
                let s = self.fresh(home, 0)?;
                s.load(&w.vertices, &w.edges)?;
                s.settle()?;
                stores.push((home, s));
            }
        }
        let csr = w.csr()?;
        let snaps: Vec<(&'static str, Snapshot)> = stores
            .iter()
            .map(|(h, s)| (h.system(), s.graph.snapshot()))
            .collect();
        for (sys, snap) in &snaps {
            check_identity(snap).map_err(|e| format!("{sys}: {e}"))?;
            if snap.edge_count() != r.edges {
                return Err(format!("{sys}: {} edges before the reads", snap.edge_count()).into());
            }
        }
        let mut systems: Vec<(&'static str, &dyn W1Reads)> = vec![(CSR, &csr)];
        systems.extend(snaps.iter().map(|(sys, s)| (*sys, s as &dyn W1Reads)));
        let n = r.vertices as u32;
        for t in self.threads.clone() {
            let found = w.searches.len() as u64;
            let lookups = Some(w.searches.len());
            self.timed_reads(&systems, "search_edge", t, lookups, found, "found", |g| {
                search(g, &w.searches, t)
            })?;
            self.timed_reads(&systems, "scan_seq", t, None, r.sum_dst, "sum_dst", |g| {
                scan_seq(g, n, t)
            })?;
            self.timed_reads(&systems, "scan_rand", t, None, r.sum_dst, "sum_dst", |g| {
                scan_rand(g, &w.perm, t)
            })?;
        }
        let source = csr
            .dense_id(r.bfs_source)
            .ok_or("the BFS source is not a vertex")?;
        for t in self.threads.clone() {
            for kernel in KERNELS {
                let mut secs = vec![Vec::new(); snaps.len() + 1];
                let mut checks = vec![String::new(); snaps.len() + 1];
                for _ in 0..self.runs {
                    let start = Instant::now();
                    checks[0] = kernel_run(&csr, kernel, source, t, r)?;
                    secs[0].push(start.elapsed().as_secs_f64());
                    for (i, (_, snap)) in snaps.iter().enumerate() {
                        let start = Instant::now();
                        checks[i + 1] = kernel_run(snap, kernel, source, t, r)?;
                        secs[i + 1].push(start.elapsed().as_secs_f64());
                    }
                }
                let names = std::iter::once(CSR).chain(snaps.iter().map(|s| s.0));
                for (i, sys) in names.enumerate() {
                    self.push(sys, kernel, t, median(&secs[i]), "s", checks[i].clone());
                }
            }
        }
        Ok(())
    }

    /// Times `op` on every system, checking its result each run. With
    /// `rate_of = Some(items)` the row is items per second, else seconds.
    #[allow(clippy::too_many_arguments)]
    fn timed_reads(
        &mut self,
        systems: &[(&'static str, &dyn W1Reads)],
        op: &str,
        threads: usize,
        rate_of: Option<usize>,
        expected: u64,
        what: &str,
        f: impl Fn(&dyn W1Reads) -> u64,
    ) -> Res<()> {
        let mut secs = vec![Vec::new(); systems.len()];
        for _ in 0..self.runs {
            for (i, &(sys, g)) in systems.iter().enumerate() {
                let start = Instant::now();
                let got = std::hint::black_box(f(g));
                secs[i].push(start.elapsed().as_secs_f64());
                if got != expected {
                    return Err(format!("{sys} {op}: {what} {got}, reference {expected}").into());
                }
            }
        }
        for (i, &(sys, _)) in systems.iter().enumerate() {
            let (value, unit) = match rate_of {
                Some(items) => (items as f64 / median(&secs[i]), "ops/s"),
                None => (median(&secs[i]), "s"),
            };
            self.push(sys, op, threads, value, unit, format!("{what}={expected}"));
        }
        Ok(())
    }

    /// TC on `kS_u.bin`, loaded into an undirected store per home.
    pub(super) fn triangles(&mut self) -> Res<()> {
        let w = self.work;
        let r = &w.reference;
        let csr = CsrGraph::from_edges(&w.undirected, Some(&w.vertices), false, false)?;
        let mut stores = Vec::new();
        for home in self.homes.clone() {
            let s = Store::fresh(home, false, 0, &self.scratch)?;
            s.load(&w.vertices, &w.undirected)?;
            s.settle()?;
            stores.push((home.system(), s));
        }
        let snaps: Vec<(&'static str, Snapshot)> = stores
            .iter()
            .map(|(sys, s)| (*sys, s.graph.snapshot()))
            .collect();
        for t in self.threads.clone() {
            let mut secs = vec![Vec::new(); snaps.len() + 1];
            let mut checks = vec![String::new(); snaps.len() + 1];
            for _ in 0..self.runs {
                let start = Instant::now();
                checks[0] = kernel_run(&csr, "tc", 0, t, r)?;
                secs[0].push(start.elapsed().as_secs_f64());
                for (i, (_, snap)) in snaps.iter().enumerate() {
                    let start = Instant::now();
                    checks[i + 1] = kernel_run(snap, "tc", 0, t, r)?;
                    secs[i + 1].push(start.elapsed().as_secs_f64());
                }
            }
            let names = std::iter::once(CSR).chain(snaps.iter().map(|s| s.0));
            for (i, sys) in names.enumerate() {
                self.push(sys, "tc", t, median(&secs[i]), "s", checks[i].clone());
            }
        }
        Ok(())
    }
}
