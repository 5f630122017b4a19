//! Opening an on-disk store: locking its directory, reading its manifest,
//! opening and arranging its level files, replaying its log, and removing
//! files a crash left behind. `check` reads a store through the same
//! functions without changing it.
//!
//! Recovery happens in two steps so that a damaged store changes nothing:
//! first every level file's checksums and every log segment are checked
//! (`wal::recover::read` hands back the logged commits and rebuilds the id
//! dictionary in memory); only then are the commits newer than the
//! manifest re-applied, in timestamp order, through the same code that
//! applied them the first time (a transaction's net writes, or the batch
//! call as made). The store was in the same state before each of them
//! then, so each has the same effect now.
//!
//! Timestamp order is the order that matters: commits that touch a common
//! vertex were appended in timestamp order (see `wal::writer`), and commits
//! that do not commute with nothing, so any interleaving of them is
//! equivalent.

use crate::csr::Segment;
use crate::direction::Direction;
use crate::error::{Error, Result};
use crate::ids::IdMap;
use crate::keys::Keys;
use crate::lsm::layers::{FlushedRun, Layers, Level};
use crate::manifest::{Manifest, PropsFile, RunFiles, Totals, VertexIds, VertexTable};
use crate::options::Options;
use crate::props::file as props_file;
use crate::read::Snapshot;
use crate::store::maintain::{self, LsmState};
use crate::store::Store;
use crate::util::dir_lock;
use crate::util::faults::{hit, FileOp};
use crate::util::files::io_error;
use crate::version::Clock;
use crate::vertex_file;
use crate::wal::record::Record;
use crate::wal::recover::{LogLoss, Logged};
use crate::wal::{self, Wal};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Opens (creating if it holds none) the store in `dir`: see `Graph::open`.
/// Nothing is modified when it fails, and the store it returns is
/// recovered, checkpointed and logging.
pub(crate) fn open(dir: &Path, opts: Options) -> Result<Arc<Store>> {
    open_with(dir, opts, false).map(|(store, _)| store)
}

/// What `repair` did to a store.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepairReport {
    /// What could not be kept of the log (`None`: nothing was lost, and
    /// the store opened as it would have without repair).
    pub loss: Option<LogLoss>,
    /// Logged commits newer than the level files that were kept and
    /// replayed.
    pub commits_recovered: usize,
}

/// Opens the store in `dir` keeping every commit its log holds before the
/// first damage (a lost or shortened segment, a damaged record), sets the
/// segments from the damage on aside as `<name>.lost` files, makes the
/// store consistent on disk and closes it: afterwards it opens normally.
/// Damage outside the log (a level file, the MANIFEST) is not repaired:
/// the error says what it is.
///
/// # Errors
/// As [`crate::Graph::open`], except for log damage.
pub fn repair(dir: impl AsRef<Path>, opts: Options) -> Result<RepairReport> {
    let opts = Options {
        create_if_missing: false,
        read_only: false,
        ..opts
    };
    let (store, report) = open_with(dir.as_ref(), opts, true)?;
    store.close()?;
    Ok(report)
}

fn open_with(dir: &Path, opts: Options, salvage: bool) -> Result<(Arc<Store>, RepairReport)> {
    let dir = dir.to_path_buf();
    let manifest_file = dir.join(crate::manifest::FILE);
    let read_only = opts.read_only;
    let no_store = || Error::NotAStore {
        dir: dir.display().to_string(),
        what: "it holds no store (no MANIFEST), and a read-only open needs one".into(),
    };
    // Before the lock file is made, so a refused directory stays as it
    // was; the MANIFEST is looked for again under the lock below.
    if !manifest_file.exists() {
        if read_only {
            return Err(no_store());
        }
        if !opts.create_if_missing {
            return Err(Error::NotAStore {
                dir: dir.display().to_string(),
                what: "it holds no store (no MANIFEST), and the options do not allow \
                       creating one"
                    .into(),
            });
        }
        if dir.is_dir() {
            holds_no_store_data(&dir)?;
        }
    }
    let lock = if read_only {
        dir_lock::shared(&dir)?
    } else {
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "create directory", &e))?;
        Some(dir_lock::exclusive(&dir)?)
    };
    let manifest = match Manifest::read(&dir)? {
        Some(m) => m,
        None if read_only => return Err(no_store()),
        None => {
            holds_no_store_data(&dir)?;
            Manifest {
                directed: opts.directed,
                string_ids: opts.string_ids,
                last_ts: 0,
                next_run: 0,
                vertices: VertexTable::default(),
                runs: Vec::new(),
                totals: Totals::default(),
                log: None,
                props: None,
            }
        }
    };
    let manifest_path = manifest_file.display().to_string();
    let durable_ts = manifest.last_ts;
    if manifest.directed != opts.directed {
        return Err(mismatch(&dir, manifest.directed, opts.directed));
    }
    if manifest.string_ids != opts.string_ids {
        let kind = |s: bool| if s { "string keys" } else { "integer ids" };
        return Err(Error::OptionsMismatch {
            file: manifest_file.display().to_string(),
            what: format!(
                "the store names vertices by {}, the options ask for {}",
                kind(manifest.string_ids),
                kind(opts.string_ids)
            ),
        });
    }
    let layers = open_layers(&dir, &manifest, &manifest_path)?;
    let props = read_props(&dir, &manifest)?;
    let ids = IdMap::new();
    intern_vertices(&dir, &manifest, &ids)?;
    let keys = Keys::new(manifest.string_ids);
    if let (Some(contents), Some(file)) = (&props, manifest.props) {
        keys.learn(0, &contents.keys)
            .map_err(|what| Error::Corrupt {
                file: props_file::path(&dir, file.id).display().to_string(),
                offset: 0,
                what,
            })?;
    }
    // Checks the whole log before anything is changed.
    let mut log = wal::recover::read(
        &dir,
        &ids,
        &keys,
        manifest.last_ts,
        manifest.log.as_deref(),
        salvage,
    )?;
    if let Some(loss) = &log.loss {
        // Kept as `.lost` files before anything changes; the segments
        // themselves go with the garbage once the store is consistent.
        for name in &loss.set_aside {
            let lost = PathBuf::from(format!("{name}.lost"));
            let _ = std::fs::remove_file(&lost);
            std::fs::hard_link(name, &lost).map_err(|e| io_error(&lost, "link", &e))?;
        }
    }
    let report = RepairReport {
        loss: log.loss.take(),
        commits_recovered: log.commits.len(),
    };
    let policy = opts.sync;
    let store = Arc::new(Store::new(
        opts,
        ids,
        keys,
        Clock::resume(manifest.last_ts),
        layers,
        LsmState::resume(&manifest),
        Some((dir.clone(), lock)),
    ));
    let mut alive = 0u64;
    for v in manifest.vertices.alive() {
        // Existing since before every snapshot of this session.
        store.mem.exists_on_open(v, true);
        alive += 1;
    }
    if let (Some(contents), Some(file)) = (props, manifest.props) {
        if let Err((label, key)) = store.props.load(contents) {
            return Err(Error::Corrupt {
                file: props_file::path(&dir, file.id).display().to_string(),
                offset: 0,
                what: format!("holds NaN where its index on ({label:?}, {key:?}) is"),
            });
        }
    }
    let edges = count_edges(&store);
    store.clock.set_counts(edges, alive);
    replay(&store, std::mem::take(&mut log.commits))?;
    if read_only {
        // Recovered in memory only: the torn tail, garbage segments and
        // orphans stay for the next writer, and no log is started.
        store.ids.limit(store.opts.max_vertex_ids);
        store.set_read_only(log.segments.len());
        return Ok((store, report));
    }
    wal::recover::cut_newest(&log)?;
    // Commits up to the durable cut may be missing from the log files
    // left: in a store from before the archive of changes (whose retired
    // segments were deleted), or where a crash left retired segments
    // behind (removed below). `Graph::changes` then refuses to reach back
    // that far.
    let oldest_live = log.segments.first().map_or(log.next_segment, |s| s.number);
    let before_archive =
        oldest_live > 1 && wal::archive::list(&dir)?.is_empty() && wal::archive::floor(&dir)? == 0;
    if before_archive || !log.garbage.is_empty() {
        wal::archive::raise_floor(&dir, durable_ts)?;
    }
    let wal = Wal::create(
        &dir,
        policy,
        log.next_segment,
        std::mem::take(&mut log.segments),
        store.ids.bound(),
        store.opts.change_log_bytes,
    )?;
    // After recovery, which must take back every id the log assigned.
    store.ids.limit(store.opts.max_vertex_ids);
    store.ids.attach_journal(wal.clone());
    store.keys.attach_journal(wal.clone());
    let _ = store.wal.set(wal);
    maintain::checkpoint(&store)?;
    remove_orphans(&dir, &store.layers.read(), store.lsm.props_file());
    crate::store::checkpoint::remove_leftovers(&dir);
    // The manifest just written needs none of these: segments older than
    // the ones the last manifest listed, and (salvage) those set aside.
    let set_aside = report
        .loss
        .iter()
        .flat_map(|l| l.set_aside.iter().map(PathBuf::from));
    for path in log.garbage.iter().cloned().chain(set_aside) {
        match hit(&path, FileOp::Remove).and_then(|()| std::fs::remove_file(&path)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(&path, "remove", &e)),
        }
    }
    Ok((store, report))
}

/// Interns the external ids of the vertices `manifest` lists into `ids`
/// (empty), in internal id order, read from the manifest or its vertex
/// file; an id listed twice is `Corrupt`.
pub(crate) fn intern_vertices(dir: &Path, manifest: &Manifest, ids: &IdMap) -> Result<()> {
    manifest.vertices.each_external(dir, |i, ext| {
        if ids.intern(ext) == Some(i) {
            return Ok(());
        }
        let file = match manifest.vertices.ids {
            VertexIds::Listed(_) => dir.join(crate::manifest::FILE),
            VertexIds::File { .. } => dir.join(vertex_file::FILE),
        };
        Err(Error::Corrupt {
            file: file.display().to_string(),
            offset: 0,
            what: format!("external id {ext} is listed twice (internal id {i})"),
        })
    })
}

/// Reads and checks the properties file the manifest names (every label
/// and property as of its cut), before anything is changed.
pub(crate) fn read_props(dir: &Path, manifest: &Manifest) -> Result<Option<props_file::Contents>> {
    let Some(file) = manifest.props else {
        return Ok(None);
    };
    let path = props_file::path(dir, file.id);
    let name = path.display().to_string();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::Corrupt {
                file: name,
                offset: 0,
                what: "the properties file the MANIFEST names is missing".into(),
            })
        }
        Err(e) => return Err(io_error(&path, "read", &e)),
    };
    let contents = props_file::decode(&bytes, &name)?;
    let (cut, vertices) = (contents.cut, &contents.vertices);
    let corrupt = |what: String| Error::Corrupt {
        file: name.clone(),
        offset: 0,
        what,
    };
    if cut != file.cut {
        return Err(corrupt(format!(
            "holds the state at {cut}, the MANIFEST expects {}",
            file.cut
        )));
    }
    let known = manifest.vertices.len as usize;
    if let Some((v, _, _)) = vertices.iter().find(|(v, _, _)| *v as usize >= known) {
        return Err(corrupt(format!(
            "names vertex {v}, beyond the {known} the MANIFEST lists"
        )));
    }
    if let Some((id, src, dst, ..)) = contents
        .edges
        .iter()
        .find(|(_, s, d, ..)| *s as usize >= known || *d as usize >= known)
    {
        return Err(corrupt(format!(
            "edge {id} runs {src} -> {dst}, beyond the {known} vertices the MANIFEST lists"
        )));
    }
    Ok(Some(contents))
}

/// Refuses to start a new store in `dir`, which has no MANIFEST, when it
/// holds anything a new store could not: level files or log records (a
/// store whose MANIFEST was lost: starting an empty one would hide them and
/// remove the level files as orphans), or files that are not a store's.
/// What may be there is what a first open that died before writing its
/// MANIFEST leaves: the lock file and log segments without a record.
pub(crate) fn holds_no_store_data(dir: &Path) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, "list directory", &e))?;
    let mut data = Vec::new();
    let mut foreign = Vec::new();
    for e in entries {
        let e = e.map_err(|e| io_error(dir, "list directory", &e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "LOCK" {
            continue;
        }
        if wal::segment_number(&name).is_some() {
            // Read as a newest segment: a torn tail is no reason to refuse.
            let scan = wal::frame::read_segment(&e.path(), true)?;
            if !scan.records.is_empty() {
                data.push(name);
            }
        } else if name.starts_with("run-")
            || wal::archive::is_archive_file(&name)
            || name == crate::store::checkpoint::CHECKPOINTS_DIR
            || name.starts_with("props-")
            || name.starts_with(crate::manifest::FILE)
            || name == crate::vertex_file::FILE
        {
            data.push(name);
        } else {
            foreign.push(name);
        }
    }
    data.sort();
    foreign.sort();
    let some = |names: &[String]| {
        let shown: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
        let more = names.len().saturating_sub(3);
        if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        }
    };
    if !data.is_empty() {
        return Err(Error::Corrupt {
            file: dir.join(crate::manifest::FILE).display().to_string(),
            offset: 0,
            what: format!(
                "the MANIFEST is missing but the directory holds store data ({}); \
                 opening would start an empty store over it, so nothing was changed \
                 (restore the MANIFEST from a copy)",
                some(&data)
            ),
        });
    }
    if !foreign.is_empty() {
        return Err(Error::NotAStore {
            dir: dir.display().to_string(),
            what: format!(
                "it holds files that are not a store's ({}); open an empty or new \
                 directory",
                some(&foreign)
            ),
        });
    }
    Ok(())
}

/// Whether the store in `dir` is directed, as its manifest says: `None` if
/// `dir` is no directory or holds no manifest (no store yet).
///
/// # Errors
/// `Io`, `Corrupt` or `UnsupportedFormat` if the manifest cannot be read.
pub fn stored_kind(dir: impl AsRef<Path>) -> Result<Option<bool>> {
    let dir = dir.as_ref();
    if !dir.is_dir() {
        return Ok(None); // opening will say why it cannot create it
    }
    Ok(Manifest::read(dir)?.map(|m| m.directed))
}

/// Whether the store in `dir` names its vertices by string keys
/// (`Options::string_ids`); `None` if there is no store there yet.
///
/// # Errors
/// As [`stored_kind`].
pub fn stored_string_ids(dir: impl AsRef<Path>) -> Result<Option<bool>> {
    let dir = dir.as_ref();
    if !dir.is_dir() {
        return Ok(None);
    }
    Ok(Manifest::read(dir)?.map(|m| m.string_ids))
}

/// Whether to open the store in `dir` as directed: its manifest decides
/// for an existing store, `asked` (directed when `None`) for a new one.
/// Front ends whose users may leave the kind unsaid (the CLI, Python) call
/// this, so only creating a store needs a flag.
///
/// # Errors
/// `OptionsMismatch` naming the manifest and both kinds if `asked`
/// contradicts an existing store; as [`stored_kind`] otherwise.
pub fn resolve_directed(dir: impl AsRef<Path>, asked: Option<bool>) -> Result<bool> {
    let dir = dir.as_ref();
    match (stored_kind(dir)?, asked) {
        (Some(stored), Some(asked)) if stored != asked => Err(mismatch(dir, stored, asked)),
        (Some(stored), _) => Ok(stored),
        (None, asked) => Ok(asked.unwrap_or(true)),
    }
}

/// The error for options that ask for another kind than the stored one.
fn mismatch(dir: &Path, stored: bool, asked: bool) -> Error {
    Error::OptionsMismatch {
        file: dir.join(crate::manifest::FILE).display().to_string(),
        what: format!(
            "the store is {}, the options ask for {}",
            kind(stored),
            kind(asked)
        ),
    }
}

/// "directed" or "undirected", for messages.
fn kind(directed: bool) -> &'static str {
    if directed {
        "directed"
    } else {
        "undirected"
    }
}

/// Edges visible now, counted from the adjacency (undirected: once).
///
/// A directed store needs the degrees alone (the offsets); only an
/// undirected one looks up each vertex's self-loop, which is listed once
/// where any other edge is listed at both ends. Those look-ups read every
/// list of the store, which under a memory cap also pushes out of the page
/// cache whatever the first reads after the open need.
fn count_edges(store: &Arc<Store>) -> u64 {
    let snap = Snapshot::open(store.clone());
    let directed = store.opts.directed;
    let (mut n, mut loops) = (0u64, 0u64);
    for v in 0..snap.id_bound() {
        n += snap.out_degree_of(v) as u64;
        if !directed {
            loops += u64::from(snap.weight_of(v, v).is_some());
        }
    }
    if directed {
        n
    } else {
        (n + loops) / 2
    }
}

/// Re-applies the logged commits to a freshly opened store (no other
/// handle exists yet and the log is not attached, so nothing is re-logged).
fn replay(store: &Arc<Store>, commits: Vec<Logged>) -> Result<()> {
    for c in commits {
        let ts = c.ts;
        store.clock.resume_at(ts - 1);
        let applied = match c.record {
            Record::Txn {
                vertices,
                edges,
                labels,
                props,
                edge_writes,
                ..
            } => crate::txn::replay(store, &vertices, &edges, &labels, &props, &edge_writes),
            Record::InsertEdges { edges, .. } => {
                crate::batch::insert_edges(store, &edges).map(|(ts, _)| ts)
            }
            Record::DeleteEdges { edges, .. } => crate::batch::delete_edges(store, &edges),
            Record::InsertVertices { vertices, .. } => {
                crate::batch::insert_vertices(store, &vertices.into_vec())
            }
            Record::CreateIndex { label, key, .. } => {
                match crate::schema::create_index(store, &label, &key) {
                    Ok(Some(ts)) => Ok(ts),
                    // Already there (from a properties file written after
                    // it was created): the timestamp still goes by.
                    Ok(None) => Ok(store.clock.take().publish(0, 0)),
                    Err(e) => Err(e),
                }
            }
            Record::Ids { .. } | Record::Keys { .. } => continue,
        };
        match applied {
            Ok(got) if got == ts => {}
            Ok(got) => {
                return Err(Error::Corrupt {
                    file: c.file,
                    offset: c.offset,
                    what: format!("commit {ts} was re-applied as commit {got}"),
                })
            }
            Err(e) => {
                return Err(Error::Corrupt {
                    file: c.file,
                    offset: c.offset,
                    what: format!("commit {ts} does not apply to the recovered store: {e}"),
                })
            }
        }
    }
    Ok(())
}

/// Opens the level files a manifest names (see `open_level_file`) and
/// arranges them as L0 runs and levels (see `arrange_layers`).
fn open_layers(dir: &Path, manifest: &Manifest, manifest_path: &str) -> Result<Layers> {
    let vertices = manifest.vertices.len as usize;
    let mut runs = Vec::with_capacity(manifest.runs.len());
    for r in &manifest.runs {
        let out = open_level_file(&RunFiles::path(dir, r.id, Direction::Out), vertices)?;
        let inn = if r.has_in {
            Some(open_level_file(
                &RunFiles::path(dir, r.id, Direction::In),
                vertices,
            )?)
        } else {
            None
        };
        runs.push(FlushedRun {
            id: r.id,
            out,
            inn,
            cut: r.cut,
        });
    }
    arrange_layers(manifest, runs, manifest_path)
}

/// Arranges a manifest's opened runs (in its order) as L0 runs and levels,
/// checking that each level's parts form one: disjoint vertex ranges
/// starting on index pages.
pub(crate) fn arrange_layers(
    manifest: &Manifest,
    opened: Vec<FlushedRun>,
    manifest_path: &str,
) -> Result<Layers> {
    let mut runs = Vec::new();
    let mut levels: Vec<Vec<Arc<FlushedRun>>> = Vec::new();
    for (r, run) in manifest.runs.iter().zip(opened) {
        match usize::from(r.level) {
            0 => runs.push(Arc::new(run)),
            l => {
                levels.resize_with(levels.len().max(l), Vec::new);
                levels[l - 1].push(Arc::new(run));
            }
        }
    }
    let levels = levels
        .into_iter()
        .map(|parts| {
            Level::new(parts).map_err(|what| Error::Corrupt {
                file: manifest_path.to_string(),
                offset: 0,
                what,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Layers::new(runs, levels))
}

/// Opens one level file of a store whose manifest lists `vertices` ids,
/// checking every block checksum and that it covers no vertex beyond them:
/// reads go straight to the mapped bytes without per-read checks, so damage
/// must be found here or it would be returned as data. (CRC-32C runs at
/// several GB/s, so this costs a fraction of reading the file once.)
pub(crate) fn open_level_file(path: &Path, vertices: usize) -> Result<Segment> {
    let seg = Segment::open(path)?;
    seg.verify()?;
    if seg.vertex_range().end as usize > vertices {
        return Err(Error::Corrupt {
            file: seg.name().to_string(),
            offset: 0,
            what: format!(
                "covers vertices up to {} but the manifest has {vertices}",
                seg.vertex_range().end
            ),
        });
    }
    Ok(seg)
}

/// Deletes run files (and temporaries) in `dir` that the manifest does not
/// name: left by a crash between writing a file and the manifest naming it,
/// or between a compaction's manifest and the deletion of what it replaced.
/// Best effort: a file that cannot be removed only wastes space.
fn remove_orphans(dir: &Path, live: &Layers, props: Option<PropsFile>) {
    let keep: std::collections::HashSet<PathBuf> = live
        .all()
        .flat_map(|r| {
            let mut v = vec![RunFiles::path(dir, r.id, Direction::Out)];
            if r.inn.is_some() {
                v.push(RunFiles::path(dir, r.id, Direction::In));
            }
            v
        })
        .chain(props.map(|p| props_file::path(dir, p.id)))
        .collect();
    maintain::remove_runs_except(dir, &keep);
}
