//! Values worked out from the workspace's files, kept between calls until
//! a change may have made them stale: the file lists of walks, what the
//! TypeScript server's choice walks for, the project roots of folders, the
//! audit's sweeps for a name.
//! The owner says when to forget (a change the file watcher handed out);
//! the memo makes sure a value worked out while a change came is not kept,
//! since its work may have read the files before the change.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;

use crate::sync::lock;

/// Values by key, kept until forgotten.
#[derive(Debug)]
pub struct Memo<K, V> {
    inner: Mutex<Entries<K, V>>,
    /// The most values kept: one more forgets them all first.
    most: usize,
}

#[derive(Debug)]
struct Entries<K, V> {
    by_key: HashMap<K, V>,
    /// Counts the forgettings: work begun before one is not kept.
    forgotten: u64,
}

/// When the work on a value began, for [`Memo::keep`]: the forgettings
/// counted then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Since(u64);

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo::bounded(usize::MAX)
    }
}

impl<K, V> Memo<K, V> {
    /// A memo of at most `most` values.
    pub fn bounded(most: usize) -> Self {
        Memo {
            inner: Mutex::new(Entries {
                by_key: HashMap::new(),
                forgotten: 0,
            }),
            most,
        }
    }

    /// Forgets every value.
    pub fn forget(&self) {
        self.forget_where(|_, _| true);
    }

    /// Forgets the values `stale` picks (called under the memo's lock:
    /// it must not use the memo). It counts as a forgetting either way:
    /// work under way may have read what changed, even for a key nothing
    /// is kept for yet.
    pub fn forget_where(&self, mut stale: impl FnMut(&K, &V) -> bool) {
        let mut entries = lock(&self.inner);
        entries.forgotten += 1;
        entries.by_key.retain(|key, value| !stale(key, value));
    }

    /// When work on a value begins now. Take it before the work reads
    /// anything.
    pub fn since(&self) -> Since {
        Since(lock(&self.inner).forgotten)
    }
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    /// The value kept for `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        lock(&self.inner).by_key.get(key).cloned()
    }

    /// Keeps `value` for `key`, unless a forgetting came since its work
    /// began.
    pub fn keep(&self, key: K, value: V, since: Since) {
        let mut entries = lock(&self.inner);
        if entries.forgotten != since.0 {
            return;
        }
        if entries.by_key.len() >= self.most && !entries.by_key.contains_key(&key) {
            entries.by_key.clear();
        }
        entries.by_key.insert(key, value);
    }

    /// The value kept for `key`, else `work`'s, kept as [`Memo::keep`]
    /// does. The work runs without the lock: whoever forgets must not
    /// wait for it.
    pub fn get_or(&self, key: K, work: impl FnOnce() -> V) -> V {
        let since = {
            let entries = lock(&self.inner);
            if let Some(value) = entries.by_key.get(&key) {
                return value.clone();
            }
            Since(entries.forgotten)
        };
        let value = work();
        self.keep(key, value.clone(), since);
        value
    }

    /// Forgets the value kept for `key`, without counting a forgetting
    /// (nothing changed; its owner stops keeping it).
    pub fn remove<Q>(&self, key: &Q)
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        lock(&self.inner).by_key.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_kept_until_forgotten() {
        let memo: Memo<&str, u32> = Memo::default();
        let mut works = 0;
        let mut work = |value| {
            works += 1;
            value
        };
        assert_eq!(memo.get_or("a", || work(1)), 1);
        assert_eq!(memo.get_or("a", || work(2)), 1);
        assert_eq!(memo.get("a"), Some(1));
        memo.forget();
        assert_eq!(memo.get("a"), None);
        assert_eq!(memo.get_or("a", || work(3)), 3);
        assert_eq!(works, 2);
    }

    #[test]
    fn work_a_forgetting_came_during_is_not_kept() {
        let memo: Memo<&str, u32> = Memo::default();
        // Forgetting another key, or one nothing is kept for, counts too.
        let value = memo.get_or("a", || {
            memo.forget_where(|key, _| *key == "b");
            1
        });
        assert_eq!(value, 1);
        assert_eq!(memo.get("a"), None);
        let since = memo.since();
        memo.forget();
        memo.keep("a", 2, since);
        assert_eq!(memo.get("a"), None);
        memo.keep("a", 3, memo.since());
        assert_eq!(memo.get("a"), Some(3));
    }

    #[test]
    fn forgetting_some_keeps_the_rest() {
        let memo: Memo<&str, u32> = Memo::default();
        for (key, value) in [("a", 1), ("b", 2)] {
            memo.keep(key, value, memo.since());
        }
        memo.forget_where(|_, value| *value == 2);
        assert_eq!((memo.get("a"), memo.get("b")), (Some(1), None));
        // Removing counts no forgetting.
        let since = memo.since();
        memo.remove("a");
        memo.keep("b", 4, since);
        assert_eq!((memo.get("a"), memo.get("b")), (None, Some(4)));
    }

    #[test]
    fn past_its_bound_it_starts_afresh() {
        let memo: Memo<u32, u32> = Memo::bounded(2);
        for key in 0..2 {
            memo.keep(key, key, memo.since());
        }
        // A kept key is replaced in place.
        memo.keep(1, 10, memo.since());
        assert_eq!((memo.get(&0), memo.get(&1)), (Some(0), Some(10)));
        memo.keep(2, 2, memo.since());
        assert_eq!(
            (memo.get(&0), memo.get(&1), memo.get(&2)),
            (None, None, Some(2))
        );
    }
}
