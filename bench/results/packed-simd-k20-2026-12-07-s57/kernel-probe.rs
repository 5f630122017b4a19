// Throwaway probe (session 57): where packed PageRank's time goes.
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
    let fresh = !dir.exists();
    let g = Graph::open(dir, opts).unwrap();
    if fresh {
        let vs: Vec<u64> = (0..n).collect();
        g.insert_vertices(&vs).unwrap();
        let es: Vec<(u64, u64, f64)> = pairs.iter().map(|&(a, b)| (a, b, 1.0)).collect();
        g.insert_edges(&es).unwrap();
        g.compact().unwrap();
    }
    let vs: Vec<u64> = (0..n).collect();
    let csr = CsrGraph::from_pairs(&pairs, Some(&vs), true).unwrap();
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
    if what == "sssp" {
        for _ in 0..15 {
            std::hint::black_box(sssp(&snap, 897293, 1).unwrap());
        }
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
