//! The edge table with internal ids (`VertexIds::Internal`), where the
//! lists a snapshot reads straight from a segment go out as that
//! segment's own columns: the Arrow buffers of `_dst` and `_weight` are
//! the level's bytes in memory or in the mapped file, kept alive by the
//! `SharedColumn` each buffer owns (`bytes::Bytes::from_owner`), so no
//! `unsafe` code is needed and the store may compact or close meanwhile.

use super::{edge_kinds, label_type, EdgeRows, IdType, ReservedKey, BATCH_ROWS};
use super::{DST, ID, LABEL, SRC, WEIGHT};
use arrow_array::types::{ArrowPrimitiveType, Float64Type, UInt32Type};
use arrow_array::{
    new_null_array, ArrayRef, Float64Array, PrimitiveArray, RecordBatch, UInt32Array,
};
use arrow_buffer::{Buffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::Arc;
use stratagraph::{SharedColumn, SharedLists, Snapshot};

/// Runs of fewer entries are copied with the lists around them: a batch
/// of their own would cost consumers more than the copy saves.
const MIN_SHARED: usize = 4096;

/// Weighted edges of consecutive sources, in source order.
enum Piece {
    Copied {
        src: Vec<u32>,
        dst: Vec<u32>,
        weights: Vec<f64>,
    },
    /// A run's lists: `src` built from its offsets, the rest its columns.
    Shared { src: Vec<u32>, run: SharedLists },
}

impl Piece {
    fn copied() -> Piece {
        Piece::Copied {
            src: Vec::new(),
            dst: Vec::new(),
            weights: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        match self {
            Piece::Copied { src, .. } | Piece::Shared { src, .. } => src.len(),
        }
    }

    /// Whether some weight here is not 1.0 (a shared run: whether its
    /// segment keeps weights at all).
    fn weighted(&self) -> bool {
        match self {
            Piece::Copied { weights, .. } => weights.iter().any(|&w| w != 1.0),
            Piece::Shared { run, .. } => run.weights().is_some(),
        }
    }
}

/// The weighted edges of `snap`, source by source, as pieces: shared
/// runs where the snapshot has them (directed graphs), copied lists
/// between them.
fn weighted_pieces(snap: &Snapshot) -> Vec<Piece> {
    let directed = snap.is_directed();
    let runs = if directed {
        snap.shared_out_lists()
    } else {
        Vec::new()
    };
    let mut pieces = Vec::new();
    let mut cur = Piece::copied();
    let copy = |cur: &mut Piece, range: std::ops::Range<u32>| {
        let Piece::Copied { src, dst, weights } = cur else {
            return;
        };
        for u in range.filter(|&u| snap.contains(u)) {
            for (o, w) in snap.out_weighted_of(u) {
                if directed || o >= u {
                    src.push(u);
                    dst.push(o);
                    weights.push(w);
                }
            }
        }
    };
    let mut next = 0;
    for run in runs {
        let vs = run.vertices();
        copy(&mut cur, next..vs.start);
        next = vs.end;
        if run.dsts().len() < MIN_SHARED {
            copy(&mut cur, vs);
            continue;
        }
        if cur.len() > 0 {
            pieces.push(std::mem::replace(&mut cur, Piece::copied()));
        }
        let mut src = Vec::with_capacity(run.dsts().len());
        for (v, w) in vs.zip(run.offsets().windows(2)) {
            src.resize(src.len() + (w[1] - w[0]) as usize, v);
        }
        pieces.push(Piece::Shared { src, run });
    }
    copy(&mut cur, next..snap.id_bound());
    if cur.len() > 0 {
        pieces.push(cur);
    }
    pieces
}

/// `len` values of type `T` in `col`'s bytes as an Arrow array sharing
/// them; `None` if the bytes are not aligned for `T` or not `len` values
/// long (segments keep both, so this is a guard, not a path).
fn shared<T: ArrowPrimitiveType>(col: SharedColumn, len: usize) -> Option<PrimitiveArray<T>> {
    let width = std::mem::size_of::<T::Native>();
    let buf = Buffer::from(bytes::Bytes::from_owner(col));
    if buf.len() != len * width || buf.as_ptr().align_offset(width) != 0 {
        return None;
    }
    Some(PrimitiveArray::new(ScalarBuffer::new(buf, 0, len), None))
}

/// The whole `_dst` and `_weight` columns of one piece (`None`: no
/// weight column).
fn piece_columns(piece: Piece, weighted: bool) -> (Vec<u32>, ArrayRef, Option<ArrayRef>) {
    match piece {
        Piece::Copied { src, dst, weights } => {
            let w = weighted.then(|| Arc::new(Float64Array::from(weights)) as ArrayRef);
            (src, Arc::new(UInt32Array::from(dst)), w)
        }
        Piece::Shared { src, run } => {
            let n = src.len();
            let dst: ArrayRef = match shared::<UInt32Type>(run.dsts_column(), n) {
                Some(a) => Arc::new(a),
                None => Arc::new(UInt32Array::from(run.dsts().to_vec())),
            };
            let w = weighted.then(|| -> ArrayRef {
                let kept = run
                    .weights_column()
                    .and_then(|c| shared::<Float64Type>(c, n));
                match (kept, run.weights()) {
                    (Some(a), _) => Arc::new(a),
                    (None, Some(w)) => Arc::new(Float64Array::from(w.to_vec())),
                    (None, None) => Arc::new(Float64Array::from(vec![1.0; n])),
                }
            });
            (src, dst, w)
        }
    }
}

pub(super) fn edge_table(snap: &Snapshot) -> Result<(SchemaRef, Vec<RecordBatch>), ReservedKey> {
    let (kinds, property_edges) = edge_kinds(snap)?;
    let pieces = weighted_pieces(snap);
    let weighted = property_edges || pieces.iter().any(Piece::weighted);
    let mut fields = Vec::new();
    if property_edges {
        fields.push(Field::new(ID, DataType::UInt64, true));
    }
    fields.push(Field::new(SRC, DataType::UInt32, false));
    fields.push(Field::new(DST, DataType::UInt32, false));
    if property_edges {
        fields.push(Field::new(LABEL, label_type(), true));
    }
    if weighted {
        fields.push(Field::new(WEIGHT, DataType::Float64, true));
    }
    if property_edges {
        fields.extend(kinds.fields());
    }
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let mut batches = Vec::new();
    if property_edges {
        let mut rows = EdgeRows::new(&kinds);
        for v in snap.vertices() {
            let src = snap.external_id_unchecked(v);
            rows.property_edges_of(snap, src, IdType::Internal, &schema, &kinds, &mut batches);
        }
        if !rows.src.is_empty() {
            rows.flush(snap, IdType::Internal, &schema, &kinds, &mut batches);
        }
    }
    for piece in pieces {
        let (src, dst, w) = piece_columns(piece, weighted);
        let src = UInt32Array::from(src);
        let mut at = 0;
        while at < src.len() {
            let n = BATCH_ROWS.min(src.len() - at);
            let columns = schema
                .fields()
                .iter()
                .map(|f| match f.name().as_str() {
                    SRC => Arc::new(src.slice(at, n)) as ArrayRef,
                    DST => dst.slice(at, n),
                    WEIGHT => match &w {
                        Some(w) => w.slice(at, n),
                        None => new_null_array(f.data_type(), n),
                    },
                    _ => new_null_array(f.data_type(), n),
                })
                .collect();
            // Columns built to the schema's own fields and types.
            if let Ok(b) = RecordBatch::try_new(schema.clone(), columns) {
                batches.push(b);
            }
            at += n;
        }
    }
    if batches.is_empty() {
        batches.push(RecordBatch::new_empty(schema.clone()));
    }
    Ok((schema, batches))
}
