//! What was made from files (their line indexes, where a name appears in
//! them), kept while each file keeps its stamp: its length, the time it
//! was last written and, on Unix, its inode and the time its status last
//! changed ([`Changed`]). A call that looks at hundreds of files (an answer's
//! references, a rename's audit) then costs a `stat` per file, not a read
//! and a scan. Where the file watcher hears a file's changes (its folder
//! is watched, see [`Watch`]) and the cache's owner forgets the file's
//! values on each, a value checked by its stamp since is taken without
//! even the `stat` (`get_while_watched`).
//!
//! A file written twice within the file system's clock tick keeps its
//! modification time; were it also to keep its length, its stamp would not
//! tell the second write. So, as git does with its index, what is made
//! from a file written less than [`SETTLE`] ago is not kept: any later
//! write is then sure to change the time. A tool may also put a file's
//! old modification time back after writing it (`touch -r`, a copy that
//! keeps times): the status change time tells that write, as no call
//! sets it back, and the inode tells a file replaced by another (an
//! editor's save). (Two such writes within one tick of the status change
//! time, each putting back one old time at one length, would still look
//! alike, where the file system counts that time coarsely.) The cache's
//! owner also forgets the files the file watcher reports written
//! (`forget`).
//!
//! A text that is not on disk (a rename's result, before it is written) is
//! stamped by its length and hash instead. A value that says itself what
//! text it was made from may be taken whatever its stamp (`get_any`), for
//! its owner to check.

use std::borrow::Borrow;
use std::fs::Metadata;
use std::hash::Hash;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::fast_map::FastMap;
use crate::sync::lock;

/// How old a file's last write must be for what is made from it to be
/// kept: more than any file system's timestamp granularity (FAT's is two
/// seconds).
const SETTLE: Duration = Duration::from_secs(3);

/// A file's length, last write time and [`Changed`]; or, for a text not
/// on disk (a rename's result), its length and hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stamp {
    File {
        len: u64,
        modified: SystemTime,
        changed: Changed,
    },
    Text {
        len: u64,
        hash: u64,
    },
}

/// What tells a write that put the old modification time back (see the
/// module header): on Unix, the file's inode and the time its status
/// last changed, in nanoseconds; nothing elsewhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Changed {
    inode: u64,
    at: i128,
}

impl Changed {
    #[cfg(unix)]
    fn of(meta: &Metadata) -> Changed {
        use std::os::unix::fs::MetadataExt;
        Changed {
            inode: meta.ino(),
            at: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        }
    }

    #[cfg(not(unix))]
    fn of(_: &Metadata) -> Changed {
        Changed::default()
    }
}

impl Stamp {
    /// The stamp of a file's metadata; `None` where the platform gives no
    /// modification time (nothing is then kept).
    pub fn of(meta: &Metadata) -> Option<Stamp> {
        Some(Stamp::File {
            len: meta.len(),
            modified: meta.modified().ok()?,
            changed: Changed::of(meta),
        })
    }

    /// The stamp of a text not on disk: equal stamps are equal texts (but
    /// for a 64-bit hash collision).
    pub fn of_text(text: &str) -> Stamp {
        // XXH3 rather than std's SipHash: a rename's texts (megabytes) are
        // stamped on every preview, and XXH3 reads them ten times faster.
        Stamp::Text {
            len: text.len() as u64,
            hash: xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
        }
    }

    /// The length of the file or text.
    pub fn bytes(&self) -> u64 {
        match self {
            Stamp::File { len, .. } | Stamp::Text { len, .. } => *len,
        }
    }

    /// The stamp of the file at `path`, if it can be read.
    pub fn read(path: &Path) -> Option<Stamp> {
        Stamp::of(&std::fs::metadata(path).ok()?)
    }

    /// Whether a later write is sure to change this stamp (see the module
    /// header): written at least `SETTLE` ago.
    pub fn is_settled(&self) -> bool {
        self.settled(SystemTime::now())
    }

    /// Whether a later write is sure to change this stamp (see the module
    /// header): written at least `SETTLE` before `now`.
    fn settled(&self, now: SystemTime) -> bool {
        match self {
            Stamp::File { modified, .. } => {
                now.duration_since(*modified).is_ok_and(|age| age >= SETTLE)
            }
            Stamp::Text { .. } => true,
        }
    }
}

/// The file watcher, as kept values see it.
pub trait Watch: Send + Sync {
    /// Whether every change to the file at `path` so far has been handed
    /// out (so the caches that listen have forgotten what it made stale),
    /// and the next will be: its folder is watched, and nothing heard is
    /// waiting to go out. Then the number of the folder's watch, which a
    /// folder replaced since (watched anew) does not have. (A change
    /// reaches the watcher a moment after the write, microseconds; the
    /// agent's next call is a model turn away.)
    fn hears(&self, path: &Path) -> Option<u64>;

    /// [`Watch::hears`] of each of `paths`, in order: for a watcher that
    /// can look at them all at once.
    fn hears_all(&self, paths: &[&Path]) -> Vec<Option<u64>> {
        paths.iter().map(|path| self.hears(path)).collect()
    }
}

/// Whether `path` is a symlink (a write to its target is not heard in
/// its own folder).
pub(crate) fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
}

/// Values made from files, by key (a path, or a path and what was looked
/// for in it), each valid while its file keeps the stamp it was made at.
/// The values' weights (their bytes, roughly) are bounded: past the bound
/// the least recently used go.
pub struct StampedCache<K, V> {
    inner: Mutex<Inner<K, V>>,
    max_weight: usize,
}

struct Inner<K, V> {
    entries: FastMap<K, Entry<V>>,
    weight: usize,
    /// Counts uses, to tell the least recently used.
    clock: u64,
}

struct Entry<V> {
    stamp: Stamp,
    value: Arc<V>,
    weight: usize,
    used: u64,
    /// When it was kept (by `Inner::clock`).
    made: u64,
    /// The watch on its file's folder when it was checked by its stamp
    /// while the file watcher heard the file's changes: every later change
    /// forgets it, so it holds without a `stat` while that watch lasts.
    /// Never set at `put` (a change handed out between the stamp and the
    /// put would have had nothing to forget), nor by a check whose stamp
    /// was read before the value was kept, nor for a symlink (a write to
    /// its target is not heard in its folder).
    heard: Option<u64>,
}

impl<K: Eq + Hash + Clone, V> StampedCache<K, V> {
    pub fn new(max_weight: usize) -> StampedCache<K, V> {
        StampedCache {
            inner: Mutex::new(Inner {
                entries: FastMap::default(),
                weight: 0,
                clock: 0,
            }),
            max_weight,
        }
    }

    /// The value kept for `key`, if it was made from the file as `stamp`
    /// says it is now.
    pub fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q, stamp: Stamp) -> Option<Arc<V>>
    where
        K: Borrow<Q>,
    {
        self.get_checked(key, stamp, None)
    }

    /// The value kept for `key` whatever it was made from: for a value
    /// that says itself what it was made from, which its caller checks.
    pub fn get_any<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<Arc<V>>
    where
        K: Borrow<Q>,
    {
        self.take(key, |_| true)
    }

    /// The value kept for `key` where `accept` takes its entry (and
    /// marks it as it will), counted as used.
    fn take<Q: Hash + Eq + ?Sized>(
        &self,
        key: &Q,
        accept: impl FnOnce(&mut Entry<V>) -> bool,
    ) -> Option<Arc<V>>
    where
        K: Borrow<Q>,
    {
        let mut inner = lock(&self.inner);
        let clock = inner.tick();
        inner.take(key, clock, accept)
    }

    /// The cache's clock now: read before a stamp that `get_checked`
    /// then checks.
    fn now(&self) -> u64 {
        lock(&self.inner).clock
    }

    /// [`StampedCache::get`]; `heard`: the clock read before `stamp` and
    /// the watch under which the file watcher hears the file from now on,
    /// for an owner that forgets the file's values on each change: a value
    /// found that was kept before that clock holds from now until then,
    /// and `get_while_watched` gives it without a stamp.
    fn get_checked<Q: Hash + Eq + ?Sized>(
        &self,
        key: &Q,
        stamp: Stamp,
        heard: Option<(u64, u64)>,
    ) -> Option<Arc<V>>
    where
        K: Borrow<Q>,
    {
        self.take(key, |entry| {
            if entry.stamp != stamp {
                return false;
            }
            if let Some((since, watch)) = heard
                && entry.made <= since
                && matches!(stamp, Stamp::File { .. })
            {
                entry.heard = Some(watch);
            }
            true
        })
    }

    /// The value kept for `key` if it was checked by its stamp while the
    /// file watcher heard its file's changes under `watch`
    /// (`get_checked`), whatever the file's stamp now: for an owner
    /// that forgets a file's values whenever the watcher reports it
    /// written, and asks while the watcher still hears the file under that
    /// watch, which spares a `stat` per file.
    fn get_while_watched<Q: Hash + Eq + ?Sized>(&self, key: &Q, watch: u64) -> Option<Arc<V>>
    where
        K: Borrow<Q>,
    {
        self.take(key, |entry| entry.heard == Some(watch))
    }

    /// The value kept for the file at `path` (under `key`), as the disk
    /// holds the file now: without a `stat` where `watch` hears the
    /// file's changes and the value was checked since; else by the stamp
    /// read now (and, where `watch` hears the file, checked as heard).
    /// `Err` holds that stamp, taken before any read, to keep a value
    /// made now under.
    pub fn get_fresh<Q: Hash + Eq + ?Sized>(
        &self,
        key: &Q,
        path: &Path,
        watch: Option<&dyn Watch>,
    ) -> Result<Arc<V>, Option<Stamp>>
    where
        K: Borrow<Q>,
    {
        let heard = watch.and_then(|watch| watch.hears(path));
        if let Some(heard) = heard
            && let Some(value) = self.get_while_watched(key, heard)
        {
            return Ok(value);
        }
        self.get_stamped(key, path, heard)
    }

    /// [`StampedCache::get_fresh`] of each of `files` (a key and its
    /// file's path), in order. The watcher is asked, and the cache locked,
    /// once for all the files it hears, not once each: an answer's
    /// positions in 168 files of the TypeScript SDK took 0.17 ms past the
    /// server's answer to find their line indexes one by one (five locks a
    /// file, on memory gone cold while the server worked), and 0.12 this
    /// way (timing marks in a scratch build). The others are looked at one
    /// by one, as `get_fresh` does.
    pub fn get_fresh_all<Q: Hash + Eq + ?Sized>(
        &self,
        files: &[(&Q, &Path)],
        watch: Option<&dyn Watch>,
    ) -> Vec<Result<Arc<V>, Option<Stamp>>>
    where
        K: Borrow<Q>,
    {
        if files.is_empty() {
            return Vec::new();
        }
        let heard = match watch {
            Some(watch) => {
                watch.hears_all(&files.iter().map(|(_, path)| *path).collect::<Vec<_>>())
            }
            None => vec![None; files.len()],
        };
        // Only files the watcher hears are taken without a stamp.
        let watched = if heard.iter().all(Option::is_none) {
            vec![None; files.len()]
        } else {
            let mut inner = lock(&self.inner);
            let clock = inner.tick();
            files
                .iter()
                .zip(&heard)
                .map(|((key, _), heard)| {
                    let heard = (*heard)?;
                    inner.take(*key, clock, |entry| entry.heard == Some(heard))
                })
                .collect::<Vec<_>>()
        };
        files
            .iter()
            .zip(heard)
            .zip(watched)
            .map(|(((key, path), heard), watched)| match watched {
                Some(value) => Ok(value),
                None => self.get_stamped(*key, path, heard),
            })
            .collect()
    }

    /// The value kept for `key` if its file's stamp, read now, is the one
    /// it was made at; marked as heard under `heard`, the watch that hears
    /// the file (see `get_checked`).
    fn get_stamped<Q: Hash + Eq + ?Sized>(
        &self,
        key: &Q,
        path: &Path,
        heard: Option<u64>,
    ) -> Result<Arc<V>, Option<Stamp>>
    where
        K: Borrow<Q>,
    {
        let since = self.now();
        let stamp = Stamp::read(path);
        let heard = heard
            .filter(|_| !is_symlink(path))
            .map(|watch| (since, watch));
        stamp
            .and_then(|stamp| self.get_checked(key, stamp, heard))
            .ok_or(stamp)
    }

    /// Keeps `value`, made from the file when it had `stamp`, unless the
    /// file was written too recently to trust its stamp (see the module
    /// header) or the value alone outweighs the bound.
    pub fn put(&self, key: K, stamp: Stamp, value: Arc<V>, weight: usize) {
        if !stamp.settled(SystemTime::now()) || weight > self.max_weight {
            return;
        }
        let mut inner = lock(&self.inner);
        let clock = inner.tick();
        let entry = Entry {
            stamp,
            value,
            weight,
            used: clock,
            made: clock,
            heard: None,
        };
        if let Some(old) = inner.entries.insert(key, entry) {
            inner.weight -= old.weight;
        }
        inner.weight += weight;
        if inner.weight > self.max_weight {
            inner.evict(self.max_weight);
        }
    }

    /// Forgets the values whose key `matches`: those of files written.
    pub fn forget(&self, matches: impl Fn(&K) -> bool) {
        let mut inner = lock(&self.inner);
        let mut freed = 0;
        inner.entries.retain(|key, entry| {
            let gone = matches(key);
            if gone {
                freed += entry.weight;
            }
            !gone
        });
        inner.weight -= freed;
    }

    /// How many values are kept.
    pub fn len(&self) -> usize {
        lock(&self.inner).entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<K, V> std::fmt::Debug for StampedCache<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = lock(&self.inner);
        f.debug_struct("StampedCache")
            .field("entries", &inner.entries.len())
            .field("weight", &inner.weight)
            .field("max_weight", &self.max_weight)
            .finish()
    }
}

impl<K: Eq + Hash + Clone, V> Inner<K, V> {
    /// The clock moved on for a use.
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// The value kept for `key` where `accept` takes its entry (and marks
    /// it as it will), counted as used at `clock`.
    fn take<Q: Hash + Eq + ?Sized>(
        &mut self,
        key: &Q,
        clock: u64,
        accept: impl FnOnce(&mut Entry<V>) -> bool,
    ) -> Option<Arc<V>>
    where
        K: Borrow<Q>,
    {
        let entry = self.entries.get_mut(key)?;
        if !accept(entry) {
            return None;
        }
        entry.used = clock;
        Some(Arc::clone(&entry.value))
    }

    /// Drops the least recently used values until the rest weigh at most
    /// three quarters of `max_weight` (so one eviction serves many puts).
    fn evict(&mut self, max_weight: usize) {
        let target = max_weight / 4 * 3;
        let mut by_use: Vec<(u64, K)> = self
            .entries
            .iter()
            .map(|(key, entry)| (entry.used, key.clone()))
            .collect();
        by_use.sort_unstable_by_key(|(used, _)| *used);
        for (_, key) in by_use {
            if self.weight <= target {
                break;
            }
            if let Some(entry) = self.entries.remove(&key) {
                self.weight -= entry.weight;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn stamp(len: u64, seconds_ago: u64) -> Stamp {
        Stamp::File {
            len,
            modified: SystemTime::now() - Duration::from_secs(seconds_ago),
            changed: Changed::default(),
        }
    }

    #[test]
    fn a_value_holds_while_its_file_keeps_its_stamp() {
        let cache = StampedCache::new(100);
        let old = stamp(10, 60);
        cache.put("a", old, Arc::new(1), 1);
        assert_eq!(cache.get(&"a", old).as_deref(), Some(&1));
        // Written again: another length, or another time.
        assert_eq!(cache.get(&"a", stamp(11, 60)), None);
        assert_eq!(cache.get(&"a", stamp(10, 30)), None);
    }

    /// A file written again at its length, its old modification time put
    /// back, is stamped anew: by its status change time. Read again
    /// unwritten, its stamp holds.
    #[cfg(unix)]
    #[test]
    fn a_write_that_puts_the_old_time_back_changes_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.rs");
        let old = SystemTime::now() - Duration::from_secs(60);
        let write = |text: &str| {
            std::fs::write(&path, text).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(old).unwrap();
        };
        write("fn f() {}");
        let first = Stamp::read(&path).unwrap();
        assert_eq!(Stamp::read(&path), Some(first));
        assert!(first.is_settled());
        // The status change time moves on with the kernel's clock tick
        // (at most 10 ms): two writes 50 ms apart differ.
        std::thread::sleep(Duration::from_millis(50));
        write("fn g() {}");
        let second = Stamp::read(&path).unwrap();
        assert_eq!(first.bytes(), second.bytes());
        assert_ne!(first, second);
        // Replaced by another file, written with the same time.
        let other = dir.path().join("b.rs");
        std::fs::write(&other, "fn h() {}").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(old)
            .unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_ne!(Stamp::read(&path), Some(second));
    }

    #[test]
    fn a_text_not_on_disk_is_kept_by_its_content() {
        let cache = StampedCache::new(100);
        cache.put("a", Stamp::of_text("fn f() {}"), Arc::new(1), 1);
        assert_eq!(
            cache.get(&"a", Stamp::of_text("fn f() {}")).as_deref(),
            Some(&1)
        );
        assert_eq!(cache.get(&"a", Stamp::of_text("fn g() {}")), None);
    }

    #[test]
    fn a_file_written_just_now_is_not_kept() {
        let cache = StampedCache::new(100);
        let fresh = stamp(10, 0);
        cache.put("a", fresh, Arc::new(1), 1);
        assert_eq!(cache.get(&"a", fresh), None);
        assert!(cache.is_empty());
    }

    #[test]
    fn while_watched_a_value_checked_as_heard_is_taken_without_a_stamp() {
        let cache = StampedCache::new(100);
        let old = stamp(10, 60);
        let since = cache.now();
        cache.put("a", old, Arc::new(1), 1);
        cache.put("b", Stamp::of_text("fn f() {}"), Arc::new(2), 1);
        // Kept, but not yet checked while the watcher heard the file: a
        // change handed out between its stamp and its put forgot nothing.
        assert_eq!(cache.get_while_watched(&"a", 7), None);
        assert_eq!(cache.get(&"a", old).as_deref(), Some(&1));
        assert_eq!(cache.get_while_watched(&"a", 7), None);
        // Nor by a check whose stamp was read before it was kept.
        assert!(cache.get_checked(&"a", old, Some((since, 7))).is_some());
        assert_eq!(cache.get_while_watched(&"a", 7), None);
        let since = cache.now();
        assert!(cache.get_checked(&"a", old, Some((since, 7))).is_some());
        assert_eq!(cache.get_while_watched(&"a", 7).as_deref(), Some(&1));
        // Under another watch of its folder (replaced since), it is not.
        assert_eq!(cache.get_while_watched(&"a", 8), None);
        // A rename's text is not the file on disk.
        let since = cache.now();
        let text = Stamp::of_text("fn f() {}");
        assert!(cache.get_checked(&"b", text, Some((since, 7))).is_some());
        assert_eq!(cache.get_while_watched(&"b", 7), None);
        // Forgotten on a change; kept again, it is checked again.
        cache.forget(|key| *key == "a");
        assert_eq!(cache.get_while_watched(&"a", 7), None);
        cache.put("a", old, Arc::new(3), 1);
        assert_eq!(cache.get_while_watched(&"a", 7), None);
    }

    /// A watcher that hears the files it lists, under watch 1.
    struct Hears(Vec<PathBuf>);

    impl Watch for Hears {
        fn hears(&self, path: &Path) -> Option<u64> {
            self.0.iter().any(|heard| heard == path).then_some(1)
        }
    }

    fn old_file(path: &Path, text: &str) {
        std::fs::write(path, text).unwrap();
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(60))
            .unwrap();
    }

    #[test]
    fn a_fresh_value_costs_a_stamp_until_checked_where_the_watcher_hears_its_file() {
        let folder = tempfile::tempdir().unwrap();
        let path = |name: &str| folder.path().join(name);
        let (heard, unheard, link) = (path("heard.rs"), path("unheard.rs"), path("link.rs"));
        old_file(&heard, "fn f() {}");
        old_file(&unheard, "fn f() {}");
        std::os::unix::fs::symlink(&unheard, &link).unwrap();
        let watch = Hears(vec![heard.clone(), link.clone()]);
        let watch: Option<&dyn Watch> = Some(&watch);
        let cache = StampedCache::new(100);
        for path in [&heard, &unheard, &link] {
            let stamp = cache.get_fresh(path, path, watch).unwrap_err();
            assert_eq!(stamp, Stamp::read(path));
            cache.put(path.clone(), stamp.unwrap(), Arc::new(1), 1);
            assert!(cache.get_fresh(path, path, watch).is_ok());
        }
        // Written behind the cache's back (no change handed out): the file
        // the watcher hears keeps its value; the others are checked (a
        // symlink's target is written where its folder's watch does not
        // hear it).
        std::fs::write(&heard, "fn longer() {}").unwrap();
        std::fs::write(&unheard, "fn longer() {}").unwrap();
        assert!(cache.get_fresh(&heard, &heard, watch).is_ok());
        for path in [&unheard, &link] {
            assert_eq!(
                cache.get_fresh(path, path, watch).unwrap_err(),
                Stamp::read(path)
            );
        }
        // Without the watcher, every value is checked.
        assert!(cache.get_fresh(&heard, &heard, None).is_err());
    }

    /// Several files' values at once are as each's alone: a value the
    /// watcher hears kept through a write behind the cache's back, the
    /// others checked by their stamps, a file gone without one.
    #[test]
    fn values_of_several_files_are_found_as_each_alone() {
        let folder = tempfile::tempdir().unwrap();
        let path = |name: &str| folder.path().join(name);
        let (heard, unheard, link) = (path("heard.rs"), path("unheard.rs"), path("link.rs"));
        let gone = path("gone.rs");
        old_file(&heard, "fn f() {}");
        old_file(&unheard, "fn f() {}");
        std::os::unix::fs::symlink(&unheard, &link).unwrap();
        let watch = Hears(vec![heard.clone(), link.clone(), gone.clone()]);
        let watch: Option<&dyn Watch> = Some(&watch);
        let cache = StampedCache::new(100);
        let files: Vec<(&PathBuf, &Path)> = [&heard, &unheard, &link, &gone]
            .into_iter()
            .map(|path| (path, path.as_path()))
            .collect();
        let stamps: Vec<Option<Stamp>> = cache
            .get_fresh_all(&files, watch)
            .into_iter()
            .map(|found| found.unwrap_err())
            .collect();
        assert_eq!(
            stamps[..3],
            files[..3]
                .iter()
                .map(|(_, path)| Stamp::read(path))
                .collect::<Vec<_>>()
        );
        assert_eq!(stamps[3], None);
        for ((key, _), stamp) in files.iter().zip(&stamps).take(3) {
            cache.put((*key).clone(), stamp.unwrap(), Arc::new(1), 1);
        }
        // Checked once by its stamp, the heard file's value is taken
        // without one after.
        let found = cache.get_fresh_all(&files, watch);
        assert!(found[..3].iter().all(Result::is_ok), "{found:?}");
        std::fs::write(&heard, "fn longer() {}").unwrap();
        std::fs::write(&unheard, "fn longer() {}").unwrap();
        let found = cache.get_fresh_all(&files, watch);
        assert!(found[0].is_ok());
        assert_eq!(found[1].as_ref().unwrap_err(), &Stamp::read(&unheard));
        assert_eq!(found[2].as_ref().unwrap_err(), &Stamp::read(&link));
        assert_eq!(found[3].as_ref().unwrap_err(), &None);
        // Without the watcher, every value is checked.
        assert!(cache.get_fresh_all(&files, None)[0].is_err());
    }

    /// A value taken without a stamp among several is counted as used:
    /// past the weight bound, one kept after it but not asked for goes
    /// first.
    #[test]
    fn values_found_at_once_are_counted_as_used() {
        let folder = tempfile::tempdir().unwrap();
        let (asked, other, last) = (
            folder.path().join("asked.rs"),
            folder.path().join("other.rs"),
            folder.path().join("last.rs"),
        );
        old_file(&asked, "fn f() {}");
        let watch = Hears(vec![asked.clone()]);
        let watch: Option<&dyn Watch> = Some(&watch);
        // Three of these fill it; past it, it keeps two.
        let cache = StampedCache::new(8);
        let files = [(&asked, asked.as_path())];
        cache.put(asked.clone(), Stamp::read(&asked).unwrap(), Arc::new(1), 3);
        // Checked by its stamp once, then kept before `other`.
        assert!(cache.get_fresh_all(&files, watch)[0].is_ok());
        cache.put(other.clone(), stamp(1, 60), Arc::new(2), 3);
        assert!(cache.get_fresh_all(&files, watch)[0].is_ok());
        cache.put(last.clone(), stamp(1, 60), Arc::new(3), 3);
        assert!(cache.get_fresh_all(&files, watch)[0].is_ok());
        assert_eq!(cache.get(&other, stamp(1, 60)), None);
    }

    #[test]
    fn forgotten_values_go() {
        let cache = StampedCache::new(100);
        let old = stamp(10, 60);
        cache.put("a", old, Arc::new(1), 1);
        cache.put("b", old, Arc::new(2), 1);
        cache.forget(|key| *key == "a");
        assert_eq!(cache.get(&"a", old), None);
        assert_eq!(cache.get(&"b", old).as_deref(), Some(&2));
    }

    #[test]
    fn past_the_weight_bound_the_least_recently_used_go() {
        let cache = StampedCache::new(10);
        let old = stamp(10, 60);
        for key in 0..5 {
            cache.put(key, old, Arc::new(key), 2);
        }
        // 0 used again: 1 is now the least recently used.
        assert!(cache.get(&0, old).is_some());
        cache.put(5, old, Arc::new(5), 2);
        assert_eq!(cache.get(&1, old), None);
        assert!(cache.get(&0, old).is_some() && cache.get(&5, old).is_some());
        let inner = lock(&cache.inner);
        assert!(inner.weight <= 10);
        assert_eq!(
            inner.weight,
            inner.entries.values().map(|e| e.weight).sum::<usize>()
        );
        drop(inner);
        // A value heavier than the whole bound is not kept.
        cache.put(9, old, Arc::new(9), 11);
        assert_eq!(cache.get(&9, old), None);
    }
}
