//! Changes to what the store keeps about its data rather than to the data:
//! property indexes. Like a batch, a schema change takes the writers' gate
//! exclusively, gets one timestamp and one log record.

use crate::batch::{check_log, log_batch};
use crate::error::{Error, Op, Result};
use crate::props::names;
use crate::store::Store;
use crate::version::Timestamp;
use crate::wal::record;

/// Creates the index on (`label`, `key`) over everything committed so far
/// and every commit after: `Some(ts)`, its timestamp, or `None` if it
/// exists already (nothing is written).
pub(crate) fn create_index(store: &Store, label: &str, key: &str) -> Result<Option<Timestamp>> {
    for (what, name) in [("label", label), ("property key", key)] {
        if let Some(reason) = names::check(name) {
            return Err(Error::InvalidName {
                op: Op::CreateIndex,
                what,
                name: name.to_owned(),
                reason,
            });
        }
    }
    check_log(store, "create_index")?;
    let _gate = store.writers.write();
    store.check_writable("create_index")?;
    let (l, k) = (
        store.props.labels.intern(label),
        store.props.keys.intern(key),
    );
    if store.props.index(l, k).is_some() {
        return Ok(None);
    }
    let ticket = store.clock.take();
    let ts = ticket.ts();
    if let Err(v) = store.props.create_index(l, k, ts) {
        return Err(Error::NotIndexable {
            vertex: store.ids.external(v),
            label: label.to_owned(),
            key: key.to_owned(),
        });
    }
    let durable = log_batch(store, ts, |b, ts| {
        record::encode_create_index(b, ts, label, key)
    });
    ticket.settle(durable, 0, 0).map(Some)
}
