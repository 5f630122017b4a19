// Throwaway probe (session 58): the kernels on a packed k20 store against a weighted CSR.
fn w1_weight(u: u64, v: u64) -> f64 {
    let h = u.wrapping_mul(2_654_435_761) ^ v.wrapping_mul(40_503);
    1.0 + (h % 255) as f64 / 255.0
}
use std::time::Instant;
use stratagraph::{Graph, Options, SyncPolicy};
use stratagraph_algo::{bfs, pagerank, sssp, wcc, CsrGraph, GraphView};

fn med(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[1]);
    let what = args.get(2).map(String::as_str).unwrap_or("all");
    let bytes = std::fs::read("/work/data/k20.bin").unwrap();
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let pairs: Vec<(u64, u64)> = words
        .chunks_exact(2)
        .map(|p| (p[0] as u64, p[1] as u64))
        .collect();
    let n = 1u64 << 20;
    let opts = Options {
        directed: true,
        sync: SyncPolicy::Never,
        pack_levels: true,
        ..Options::default()
    };
    let in_mem = std::env::var("PROBE_MEM").is_ok();
    let fresh = in_mem || !dir.exists();
    let g = if in_mem { Graph::in_memory(opts) } else { Graph::open(dir, opts).unwrap() };
    if fresh {
        let vs: Vec<u64> = (0..n).collect();
        g.insert_vertices(&vs).unwrap();
        let es: Vec<(u64, u64, f64)> = pairs.iter().map(|&(a, b)| (a, b, w1_weight(a, b))).collect();
        g.insert_edges(&es).unwrap();
        g.compact().unwrap();
    }
    let vs: Vec<u64> = (0..n).collect();
    let wes: Vec<(u64, u64, f64)> = pairs.iter().map(|&(a, b)| (a, b, w1_weight(a, b))).collect();
    let csr = CsrGraph::from_edges(&wes, Some(&vs), true, true).unwrap();
    drop(wes);
    let snap = g.snapshot();
    let contrib: Vec<f64> = (0..n).map(|v| (v % 7) as f64).collect();
    if what == "ids" || what == "idscsr" || what == "none" {
        let s = Instant::now();
        let mut acc = 0u64;
        for _ in 0..if what == "none" { 0 } else { 60 } {
            if what == "idscsr" {
                GraphView::scan_in_unordered(&csr, 0..n as u32, |_, p| {
                    for l in p {
                        for &u in *l {
                            acc += u as u64;
                        }
                    }
                });
                continue;
            }
            GraphView::scan_in_unordered(&snap, 0..n as u32, |_, p| {
                for l in p {
                    for &u in *l {
                        acc += u as u64;
                    }
                }
            });
        }
        println!("ids packed x60 {:.3} s {acc}", s.elapsed().as_secs_f64());
        return;
    }
    if what == "chunks" {
        for chunk in [256u32, 1 << 20, 256, 1 << 20] {
            let mut ts = vec![];
            for _ in 0..9 {
                let s = Instant::now();
                let mut acc = 0.0;
                let mut v = 0;
                while v < n as u32 {
                    GraphView::scan_in_unordered(&snap, v..v + chunk, |_, p| {
                        for l in p {
                            for &u in *l {
                                acc += contrib[u as usize];
                            }
                        }
                    });
                    v += chunk;
                }
                ts.push(s.elapsed().as_secs_f64());
                std::hint::black_box(acc);
            }
            println!("chunk {chunk} median {:.4}", med(ts));
        }
        return;
    }
    if what == "wpass" {
        fn pass<G: GraphView>(g: &G) -> f64 {
            let s = Instant::now();
            let mut acc = 0.0;
            for v in 0..g.id_bound() {
                g.for_each_out_weight_unordered(v, |w| acc += w);
            }
            std::hint::black_box(acc);
            s.elapsed().as_secs_f64()
        }
        fn pass2<G: GraphView>(g: &G) -> f64 {
            let s = Instant::now();
            let mut acc = 0.0;
            for v in 0..g.id_bound() {
                g.for_each_out_weighted_unordered(v, |u, w| acc += w + u as f64);
            }
            std::hint::black_box(acc);
            s.elapsed().as_secs_f64()
        }
        fn pass3<G: GraphView>(g: &G) -> f64 {
            let s = Instant::now();
            let mut acc = 0u64;
            for v in 0..g.id_bound() {
                g.for_each_out_unordered(v, |u| acc += u as u64);
            }
            std::hint::black_box(acc);
            s.elapsed().as_secs_f64()
        }
        fn pass4<G: GraphView>(g: &G) -> f64 {
            let s = Instant::now();
            let mut acc = 0.0;
            let n = g.id_bound();
            for i in 0..n {
                let v = i.wrapping_mul(0x9E37_79B1) & (n - 1);
                g.for_each_out_weighted_unordered(v, |u, w| acc += w + u as f64);
            }
            std::hint::black_box(acc);
            s.elapsed().as_secs_f64()
        }
        if std::env::var("PROBE_LOOP").is_ok() {
            let mut t = vec![];
            for _ in 0..40 {
                t.push(pass2(&snap));
            }
            println!("store weighted in order {:.4}", med(t));
            return;
        }
        let mut t: Vec<Vec<f64>> = vec![vec![]; 8];
        for _ in 0..9 {
            t[0].push(pass(&csr));
            t[1].push(pass(&snap));
            t[2].push(pass2(&csr));
            t[3].push(pass2(&snap));
            t[4].push(pass3(&csr));
            t[5].push(pass3(&snap));
            t[6].push(pass4(&csr));
            t[7].push(pass4(&snap));
        }
        let m: Vec<f64> = t.into_iter().map(med).collect();
        println!("weights pass csr {:.4} store {:.4}; weighted lists csr {:.4} store {:.4}; plain lists csr {:.4} store {:.4}; weighted random csr {:.4} store {:.4}", m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]);
        return;
    }
    if what == "wcc" || what == "wcccsr" || what == "bfsk" || what == "bfscsr" {
        let mut t = vec![];
        for _ in 0..40 {
            let s = Instant::now();
            match what {
                "wcc" => drop(std::hint::black_box(wcc(&snap, 1))),
                "wcccsr" => drop(std::hint::black_box(wcc(&csr, 1))),
                "bfsk" => drop(std::hint::black_box(bfs(&snap, 897293, 1))),
                _ => drop(std::hint::black_box(bfs(&csr, 897293, 1))),
            }
            t.push(s.elapsed().as_secs_f64());
        }
        println!("{what} median {:.4}", med(t));
        return;
    }
    if what == "wccparts" {
        fn parts<G: GraphView>(g: &G, t: &mut [Vec<f64>]) {
            let n = g.id_bound();
            let s = Instant::now();
            let alive: Vec<bool> = (0..n).map(|v| g.contains(v)).collect();
            t[0].push(s.elapsed().as_secs_f64());
            let s = Instant::now();
            let mut acc = 0u64;
            g.scan_out_partial(0..n, |_| 2, |_, p| {
                for l in p {
                    for &u in l.iter().take(2) {
                        acc += u as u64;
                    }
                }
            });
            t[1].push(s.elapsed().as_secs_f64());
            let want = |v: u32| if alive[v as usize] && v % 2 == 0 { usize::MAX } else { 0 };
            let s = Instant::now();
            g.scan_out_partial(0..n, want, |v, p| {
                if want(v) > 0 {
                    for l in p {
                        for &u in l.iter() {
                            acc += u as u64;
                        }
                    }
                }
            });
            t[2].push(s.elapsed().as_secs_f64());
            let s = Instant::now();
            g.scan_in_partial(0..n, want, |v, p| {
                if want(v) > 0 {
                    for l in p {
                        for &u in l.iter() {
                            acc += u as u64;
                        }
                    }
                }
            });
            t[3].push(s.elapsed().as_secs_f64());
            std::hint::black_box(acc);
        }
        let mut tc: Vec<Vec<f64>> = vec![vec![]; 4];
        let mut ts: Vec<Vec<f64>> = vec![vec![]; 4];
        for _ in 0..11 {
            parts(&csr, &mut tc);
            parts(&snap, &mut ts);
        }
        for (i, name) in ["alive", "first two", "out half", "in half"].iter().enumerate() {
            println!("{name:10} csr {:.4} store {:.4}", med(tc[i].clone()), med(ts[i].clone()));
        }
        return;
    }
    if what == "sssp" || what == "ssspcsr" {
        let mut t = vec![];
        for _ in 0..15 {
            let s = Instant::now();
            if what == "sssp" {
                std::hint::black_box(sssp(&snap, 897293, 1).unwrap());
            } else {
                std::hint::black_box(sssp(&csr, 897293, 1).unwrap());
            }
            t.push(s.elapsed().as_secs_f64());
        }
        println!("{what} median {:.4}", med(t));
        return;
    }
    if what == "kernels" {
        let names = ["bfs", "pr", "wcc", "sssp", "ids"];
        let mut tc = vec![vec![]; 5];
        let mut ts = vec![vec![]; 5];
        let src = 897293u32;
        fn one<G: GraphView>(g: &G, k: usize, src: u32) -> f64 {
            let s = Instant::now();
            match k {
                0 => {
                    std::hint::black_box(bfs(g, src, 1));
                }
                1 => {
                    std::hint::black_box(pagerank(g, 0.85, 20, 1));
                }
                2 => {
                    std::hint::black_box(wcc(g, 1));
                }
                3 => {
                    std::hint::black_box(sssp(g, src, 1).unwrap());
                }
                _ => {
                    let mut acc = 0u64;
                    g.scan_in_unordered(0..1 << 20, |_, p| {
                        for l in p {
                            for &u in *l {
                                acc += u as u64;
                            }
                        }
                    });
                    std::hint::black_box(acc);
                }
            }
            s.elapsed().as_secs_f64()
        }
        {
            let a = sssp(&csr, src, 1).unwrap();
            let b = sssp(&snap, src, 1).unwrap();
            let sa: f64 = a.iter().filter(|x| x.is_finite()).sum();
            let sb: f64 = b.iter().filter(|x| x.is_finite()).sum();
            println!("sssp sums csr {sa:.3} store {sb:.3}");
        }
        for _ in 0..7 {
            for k in 0..5 {
                tc[k].push(one(&csr, k, src));
                ts[k].push(one(&snap, k, src));
            }
        }
        for k in 0..5 {
            let mc = med(tc[k].clone());
            let ms = med(ts[k].clone());
            let nc = tc[k].iter().cloned().fold(9e9, f64::min);
            let ns = ts[k].iter().cloned().fold(9e9, f64::min);
            let mut r: Vec<f64> = tc[k].iter().zip(&ts[k]).map(|(c, s)| s / c).collect();
            println!("{:5} csr med {mc:.4} min {nc:.4} | packed med {ms:.4} min {ns:.4} | ratio of meds {:.2} of mins {:.2} med of pair ratios {:.2}", names[k], ms / mc, ns / nc, med(std::mem::take(&mut r)));
        }
        return;
    }
    let runs = if what == "micro" { 21 } else { 9 };
    let mut t = [vec![], vec![], vec![], vec![], vec![], vec![]];
    for _ in 0..runs {
        if what == "all" || what == "pr" || what == "prw" {
            let s = Instant::now();
            let r = pagerank(&csr, 0.85, 20, 1);
            t[0].push(s.elapsed().as_secs_f64());
            std::hint::black_box(r);
            let s = Instant::now();
            let r = pagerank(&snap, 0.85, 20, 1);
            t[1].push(s.elapsed().as_secs_f64());
            std::hint::black_box(r);
        }
        // One pull iteration.
        let s = Instant::now();
        let mut acc = 0.0;
        GraphView::scan_in_unordered(&csr, 0..n as u32, |_, p| {
            for l in p {
                for &u in *l {
                    acc += contrib[u as usize];
                }
            }
        });
        t[2].push(s.elapsed().as_secs_f64());
        std::hint::black_box(acc);
        let s = Instant::now();
        let mut acc = 0.0;
        GraphView::scan_in_unordered(&snap, 0..n as u32, |_, p| {
            for l in p {
                for &u in *l {
                    acc += contrib[u as usize];
                }
            }
        });
        t[3].push(s.elapsed().as_secs_f64());
        std::hint::black_box(acc);
        // Decode only.
        let s = Instant::now();
        let mut acc = 0u64;
        GraphView::scan_in_unordered(&csr, 0..n as u32, |_, p| {
            for l in p {
                for &u in *l {
                    acc += u as u64;
                }
            }
        });
        t[4].push(s.elapsed().as_secs_f64());
        let acc_csr = acc;
        let s = Instant::now();
        let mut acc = 0u64;
        GraphView::scan_in_unordered(&snap, 0..n as u32, |_, p| {
            for l in p {
                for &u in *l {
                    acc += u as u64;
                }
            }
        });
        t[5].push(s.elapsed().as_secs_f64());
        assert_eq!(acc, acc_csr);
    }
    let names = [
        "pr csr",
        "pr packed",
        "pull csr",
        "pull packed",
        "ids csr",
        "ids packed",
    ];
    for (i, name) in names.iter().enumerate() {
        if !t[i].is_empty() {
            let m = med(t[i].clone());
            let mn = t[i].iter().cloned().fold(f64::MAX, f64::min);
            println!("{name:12} median {m:.4} min {mn:.4}");
        }
    }
}
