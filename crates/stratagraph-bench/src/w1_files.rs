//! Reading the W1 workload files that `shared/bench/gen_graph.py` writes.
//!
//! The generator is the single source of the benchmark's graphs and
//! operation streams; this module only decodes its little-endian `u32`
//! records and its `kS.ref.json` checksums, so every system measured reads
//! byte-for-byte the same work.

use std::path::{Path, PathBuf};

/// A missing or malformed workload file, naming the file.
#[derive(Debug)]
pub struct FileError {
    path: PathBuf,
    what: String,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.what)
    }
}

impl std::error::Error for FileError {}

/// The reference figures the generator computed with scipy.
#[derive(Debug, Clone)]
pub struct Reference {
    /// Vertex ids `0..vertices` all exist.
    pub vertices: u64,
    /// Directed edges in `kS.bin`.
    pub edges: u64,
    /// Sum of destination ids over all edges.
    pub sum_dst: u64,
    /// BFS/SSSP source: the vertex of maximum out-degree.
    pub bfs_source: u64,
    /// Vertices BFS reaches, the source included.
    pub bfs_reached: u64,
    /// WCC components counting every id (isolated ones are components).
    pub wcc_components: u64,
    /// Sum of SSSP distances over reached vertices.
    pub sssp_dist_sum: f64,
    /// Edges after applying `kS.ops.bin` (absent in hand-made test files).
    pub edges_after_ops: Option<u64>,
    /// Triangles of `kS_u.bin`, from `kS.ref_extra.json` or WORKLOAD.md.
    pub triangles: Option<u64>,
    /// The vertex of maximum PageRank, from `kS.ref_extra.json` or WORKLOAD.md.
    pub pagerank_top: Option<u64>,
    /// Sum of destination ids after `kS.ops.bin`, from `kS.ref_extra.json`.
    pub sum_dst_after_ops: Option<u64>,
}

/// The figures WORKLOAD.md lists that `kS.ref.json` lacks, for the scales
/// it lists them for: (scale, triangles, PageRank top vertex).
const WORKLOAD_TABLE: [(u32, u64, u64); 2] = [(16, 15_588_932, 16_657), (20, 424_267_437, 897_293)];

impl Reference {
    /// A figure the caller cannot check without, or an error saying how to
    /// produce it.
    pub fn require(value: Option<u64>, what: &str) -> Result<u64, String> {
        value.ok_or_else(|| {
            format!(
                "no reference {what} for this scale: WORKLOAD.md lists it only for k16 and k20; \
                 compute it with `python3 bench/ref_extra.py --scales S --data DIR` (numpy, scipy)"
            )
        })
    }
}

/// The files of one scale.
pub struct W1Files {
    dir: PathBuf,
    scale: u32,
}

impl W1Files {
    /// The files of scale `scale` in `dir` (nothing is read yet).
    pub fn new(dir: &Path, scale: u32) -> Self {
        W1Files {
            dir: dir.to_path_buf(),
            scale,
        }
    }

    fn path(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("k{}{suffix}", self.scale))
    }

    /// `kS.bin`, for readers that stream it.
    pub(crate) fn edges_path(&self) -> PathBuf {
        self.path(".bin")
    }

    /// `kS.perm.bin`, for readers that stream it.
    pub(crate) fn perm_path(&self) -> PathBuf {
        self.path(".perm.bin")
    }

    /// The graph's name in result rows (`k20`).
    pub fn graph_name(&self) -> String {
        format!("k{}", self.scale)
    }

    /// The directed edges of `kS.bin`, in insert order.
    pub fn edges(&self) -> Result<Vec<(u32, u32)>, FileError> {
        let words = read_u32s(&self.path(".bin"), 2)?;
        Ok(words.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }

    /// `kS.ref.json`.
    pub fn reference(&self) -> Result<Reference, FileError> {
        let path = self.path(".ref.json");
        let text = std::fs::read_to_string(&path).map_err(|e| FileError {
            path: path.clone(),
            what: e.to_string(),
        })?;
        let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| FileError {
            path: path.clone(),
            what: format!("not valid JSON: {e}"),
        })?;
        let field = |name: &str| {
            json.get(name)
                .and_then(serde_json::Value::as_u64)
                .ok_or_else(|| FileError {
                    path: path.clone(),
                    what: format!("missing unsigned integer field {name:?}"),
                })
        };
        let sssp_dist_sum = json
            .get("sssp_dist_sum")
            .and_then(serde_json::Value::as_f64)
            .ok_or_else(|| FileError {
                path: path.clone(),
                what: "missing number field \"sssp_dist_sum\"".into(),
            })?;
        let extra = self.extra_reference()?;
        let from_extra = |name: &str| {
            extra
                .as_ref()
                .and_then(|e| e.get(name))
                .and_then(serde_json::Value::as_u64)
        };
        let listed = WORKLOAD_TABLE.iter().find(|r| r.0 == self.scale);
        let mut triangles = from_extra("triangles");
        let mut pagerank_top = from_extra("pagerank_top");
        if let Some(&(_, tri, top)) = listed {
            // WORKLOAD.md is the authority; a disagreeing side file is damaged.
            for (what, got, want) in [
                ("triangles", triangles, tri),
                ("pagerank_top", pagerank_top, top),
            ] {
                if got.is_some_and(|g| g != want) {
                    return Err(FileError {
                        path: self.path(".ref_extra.json"),
                        what: format!("{what} {got:?} disagrees with WORKLOAD.md's {want}"),
                    });
                }
            }
            triangles = Some(tri);
            pagerank_top = Some(top);
        }
        Ok(Reference {
            vertices: field("vertices")?,
            edges: field("edges")?,
            sum_dst: field("sum_dst")?,
            bfs_source: field("bfs_source")?,
            bfs_reached: field("bfs_reached")?,
            wcc_components: field("wcc_components_all_ids")?,
            sssp_dist_sum,
            edges_after_ops: json
                .get("edges_after_ops")
                .and_then(serde_json::Value::as_u64),
            triangles,
            pagerank_top,
            sum_dst_after_ops: from_extra("sum_dst_after_ops"),
        })
    }

    /// `kS.ref_extra.json` (written by `bench/ref_extra.py`), if present.
    fn extra_reference(&self) -> Result<Option<serde_json::Value>, FileError> {
        let path = self.path(".ref_extra.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| FileError {
                path,
                what: format!("not valid JSON: {e}"),
            })
    }

    /// The undirected edges of `kS_u.bin` (each edge in both directions).
    pub fn undirected_edges(&self) -> Result<Vec<(u32, u32)>, FileError> {
        let words = read_u32s(&self.path("_u.bin"), 2)?;
        Ok(words.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }

    /// The delete_mixed stream of `kS.ops.bin`: (insert?, src, dst).
    pub fn ops(&self) -> Result<Vec<(bool, u32, u32)>, FileError> {
        let path = self.path(".ops.bin");
        let words = read_u32s(&path, 3)?;
        words
            .chunks_exact(3)
            .map(|t| match t[0] {
                0 | 1 => Ok((t[0] == 1, t[1], t[2])),
                kind => Err(FileError {
                    path: path.clone(),
                    what: format!("operation kind {kind} is neither 0 (delete) nor 1 (insert)"),
                }),
            })
            .collect()
    }

    /// The edge look-ups of `kS.search.bin`.
    pub fn searches(&self) -> Result<Vec<(u32, u32)>, FileError> {
        let words = read_u32s(&self.path(".search.bin"), 2)?;
        Ok(words.chunks_exact(2).map(|p| (p[0], p[1])).collect())
    }

    /// The scan_rand vertex order of `kS.perm.bin`.
    pub fn permutation(&self) -> Result<Vec<u32>, FileError> {
        read_u32s(&self.path(".perm.bin"), 1)
    }
}

/// The W1 SSSP weight of edge `(u, v)`: in [1, 2), from WORKLOAD.md.
pub fn w1_weight(u: u64, v: u64) -> f64 {
    let h = u.wrapping_mul(2_654_435_761) ^ v.wrapping_mul(40_503);
    1.0 + (h % 255) as f64 / 255.0
}

/// Reads a file of little-endian `u32`s whose count is a multiple of `group`.
fn read_u32s(path: &Path, group: usize) -> Result<Vec<u32>, FileError> {
    let bytes = std::fs::read(path).map_err(|e| FileError {
        path: path.to_path_buf(),
        what: format!(
            "{e} (generate it with `python3 ../shared/bench/gen_graph.py --scales S --out DIR`)"
        ),
    })?;
    let record = 4 * group;
    if bytes.len() % record != 0 {
        return Err(FileError {
            path: path.to_path_buf(),
            what: format!(
                "length {} is not a multiple of the {record}-byte record; the file is truncated",
                bytes.len()
            ),
        });
    }
    Ok(bytes.chunks_exact(4).map(le_u32).collect())
}

fn le_u32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Hands `f` the little-endian `u32`s of the file at `path` from word
/// `skip` on, `count` of them (`None`: to the end of the file), in pieces
/// of at most `piece`, read as they are needed: for readers that must not
/// hold a whole file. A file that ends before `count` words is an error.
pub(crate) fn stream_u32s(
    path: &Path,
    skip: u64,
    count: Option<u64>,
    piece: usize,
    mut f: impl FnMut(&[u32]) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(), Box<dyn std::error::Error>> {
    use std::io::{Read, Seek};
    let fail = |what: String| FileError {
        path: path.to_path_buf(),
        what,
    };
    let mut file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    file.seek(std::io::SeekFrom::Start(skip * 4))
        .map_err(|e| fail(e.to_string()))?;
    let mut file = std::io::BufReader::with_capacity(1 << 20, file);
    let mut bytes = vec![0u8; piece * 4];
    let mut words = Vec::with_capacity(piece);
    let mut left = count.unwrap_or(u64::MAX);
    let mut read = 0u64;
    while left > 0 {
        let want = left.min(piece as u64) as usize * 4;
        let mut got = 0;
        while got < want {
            match file
                .read(&mut bytes[got..want])
                .map_err(|e| fail(e.to_string()))?
            {
                0 => break,
                k => got += k,
            }
        }
        if got % 4 != 0 || (count.is_some() && got < want) {
            let end = (skip + read) * 4 + got as u64;
            return Err(fail(match count {
                Some(c) => format!("ends at byte {end}, before word {} of the file", skip + c),
                None => format!("ends at byte {end}, not a whole number of u32 words"),
            })
            .into());
        }
        if got == 0 {
            break;
        }
        words.clear();
        words.extend(bytes[..got].chunks_exact(4).map(le_u32));
        f(&words)?;
        left -= (got / 4) as u64;
        read += (got / 4) as u64;
    }
    Ok(())
}
