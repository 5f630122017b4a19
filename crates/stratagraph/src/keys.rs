//! Vertex keys: the string ids of a store created with
//! `Options::string_ids`.
//!
//! Such a store gives each key a `VertexId` the first time it sees it
//! (0, 1, 2, ... in that order), and everything below the public API works
//! on those ids as on integer ones: the log, the id map, the levels. Dense
//! numbers keep the id map on its direct path. The dictionary is durable
//! as the id map is: every new key is journalled into the log (a `Keys`
//! record, `docs/FORMAT.md` §3.2) before a commit that uses it can be, and
//! the properties file holds the whole dictionary as of its flush.

use parking_lot::RwLock;
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Where new keys are recorded durably (the log of an on-disk store).
pub(crate) trait KeyJournal: Send + Sync {
    /// Records that `key` gets id `id` (the next one in order).
    fn note_key(&self, id: u64, key: &str);
}

/// The key dictionary of one store (empty and unused in an integer store).
pub(crate) struct Keys {
    enabled: bool,
    /// Key to id; its lock also orders assignment.
    ids: RwLock<FxHashMap<Arc<str>, u64>>,
    /// Id to key.
    names: RwLock<Vec<Arc<str>>>,
    journal: OnceLock<Arc<dyn KeyJournal>>,
    /// Whether a key was added since the last `take_dirty`.
    dirty: AtomicBool,
}

impl Keys {
    pub(crate) fn new(enabled: bool) -> Self {
        Keys {
            enabled,
            ids: RwLock::default(),
            names: RwLock::default(),
            journal: OnceLock::new(),
            dirty: AtomicBool::new(false),
        }
    }

    /// Whether the store names its vertices by keys.
    #[inline]
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// Records every key added from now on in `journal`.
    pub(crate) fn attach_journal(&self, journal: Arc<dyn KeyJournal>) {
        let _ = self.journal.set(journal);
    }

    /// The id of `key`, if it has one.
    pub(crate) fn lookup(&self, key: &str) -> Option<u64> {
        self.ids.read().get(key).copied()
    }

    /// The id of `key`, giving it the next one on first sight. The caller
    /// has checked the key (`props::names::check`).
    pub(crate) fn intern(&self, key: &str) -> u64 {
        if let Some(id) = self.lookup(key) {
            return id;
        }
        let mut ids = self.ids.write();
        if let Some(&id) = ids.get(key) {
            return id;
        }
        let mut names = self.names.write();
        let id = names.len() as u64;
        if let Some(j) = self.journal.get() {
            j.note_key(id, key);
        }
        let key: Arc<str> = Arc::from(key);
        names.push(key.clone());
        ids.insert(key, id);
        self.dirty.store(true, Ordering::Release);
        id
    }

    /// The key of id `id`, if it was given one.
    pub(crate) fn name(&self, id: u64) -> Option<Arc<str>> {
        self.names.read().get(usize::try_from(id).ok()?).cloned()
    }

    /// Whether `id` is the id of a key.
    #[inline]
    pub(crate) fn is_key_id(&self, id: u64) -> bool {
        id < self.names.read().len() as u64
    }

    /// Every key, by id, and clears the dirty mark: for a properties file,
    /// which holds at least what this returns.
    pub(crate) fn snapshot_for_file(&self) -> Vec<Arc<str>> {
        self.dirty.store(false, Ordering::Release);
        self.names.read().clone()
    }

    /// Whether a key was added since the last `snapshot_for_file`.
    pub(crate) fn is_dirty(&self) -> bool {
        self.dirty.load(Ordering::Acquire)
    }

    /// Marks the dictionary as needing a new file (a file write failed).
    pub(crate) fn mark_dirty(&self) {
        self.dirty.store(true, Ordering::Release);
    }

    /// Learns keys `first..` from a properties file or the log, while the
    /// store is being opened: a key already known must be the same one
    /// (a file and the log may both hold it); a gap or a different key is
    /// refused with what is wrong.
    pub(crate) fn learn(&self, first: u64, keys: &[impl AsRef<str>]) -> Result<(), String> {
        let mut ids = self.ids.write();
        let mut names = self.names.write();
        for (i, key) in keys.iter().enumerate() {
            let key = key.as_ref();
            let id = first + i as u64;
            match names.get(id as usize) {
                Some(known) if &**known == key => {}
                Some(known) => {
                    return Err(format!("key id {id} is {known:?}, not {key:?}"));
                }
                None if id == names.len() as u64 => {
                    if ids.contains_key(key) {
                        return Err(format!("key {key:?} is given two ids"));
                    }
                    let key: Arc<str> = Arc::from(key);
                    names.push(key.clone());
                    ids.insert(key, id);
                }
                None => {
                    return Err(format!(
                        "key id {id} follows {} known keys: ids are missing",
                        names.len()
                    ))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;

    #[test]
    fn keys_get_dense_ids_in_order_and_learning_checks_them() {
        let k = Keys::new(true);
        assert_eq!(k.intern("marko"), 0);
        assert_eq!(k.intern("vadas"), 1);
        assert_eq!(k.intern("marko"), 0);
        assert_eq!(k.name(1).as_deref(), Some("vadas"));
        assert!(k.is_key_id(1) && !k.is_key_id(2));
        assert!(k.learn(1, &["vadas", "josh"]).is_ok(), "overlap is fine");
        assert_eq!(k.lookup("josh"), Some(2));
        assert!(k.learn(2, &["peter"]).is_err(), "a different key");
        assert!(k.learn(5, &["x"]).is_err(), "a gap");
        assert!(k.learn(3, &["marko"]).is_err(), "a key twice");
    }
}
