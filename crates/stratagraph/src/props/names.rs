//! Interned names: property keys and labels get small ids the first time
//! a store sees them, so versions hold a `u32` instead of a string.

use parking_lot::RwLock;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The longest name (in bytes) a key or label may have.
pub const MAX_NAME_BYTES: usize = 1024;

/// One namespace of names (keys or labels), each with an id for the life
/// of the store. Ids are never reused.
#[derive(Default)]
pub(crate) struct Names {
    inner: RwLock<Inner>,
}

#[derive(Default)]
struct Inner {
    by_id: Vec<Arc<str>>,
    by_name: FxHashMap<Arc<str>, u32>,
}

impl Names {
    /// The id of `name`, giving it one if it is new. The caller has checked
    /// the name (`check`).
    pub(crate) fn intern(&self, name: &str) -> u32 {
        if let Some(id) = self.lookup(name) {
            return id;
        }
        let mut inner = self.inner.write();
        if let Some(&id) = inner.by_name.get(name) {
            return id;
        }
        let id = u32::try_from(inner.by_id.len()).expect("fewer than 2^32 names");
        let name: Arc<str> = Arc::from(name);
        inner.by_id.push(name.clone());
        inner.by_name.insert(name, id);
        id
    }

    /// The id of `name`, if it has one.
    pub(crate) fn lookup(&self, name: &str) -> Option<u32> {
        self.inner.read().by_name.get(name).copied()
    }

    /// The name of `id`.
    pub(crate) fn name(&self, id: u32) -> Arc<str> {
        self.inner.read().by_id[id as usize].clone()
    }

    /// The name of `id`, or `None` if no name has that id.
    pub(crate) fn try_name(&self, id: u32) -> Option<Arc<str>> {
        self.inner.read().by_id.get(id as usize).cloned()
    }
}

/// Why a name is refused, if it is: empty, too long, or holding a control
/// character (names appear in errors, logs and query text).
pub(crate) fn check(name: &str) -> Option<String> {
    if name.is_empty() {
        Some("is empty".into())
    } else if name.len() > MAX_NAME_BYTES {
        Some(format!(
            "is {} bytes long; the most is {MAX_NAME_BYTES}",
            name.len()
        ))
    } else if let Some((at, c)) = name.char_indices().find(|(_, c)| c.is_control()) {
        Some(format!("holds the control character {c:?} at byte {at}"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_keeps_its_id() {
        let n = Names::default();
        let a = n.intern("age");
        let b = n.intern("name");
        assert_ne!(a, b);
        assert_eq!(n.intern("age"), a);
        assert_eq!(n.lookup("name"), Some(b));
        assert_eq!(n.lookup("nope"), None);
        assert_eq!(&*n.name(b), "name");
    }

    #[test]
    fn bad_names_are_refused_with_a_reason() {
        assert!(check("").is_some());
        assert!(check("a\nb").unwrap().contains("byte 1"));
        assert!(check(&"x".repeat(MAX_NAME_BYTES + 1)).is_some());
        assert!(check("name").is_none());
        assert!(check("ünïcode ok").is_none());
    }
}
