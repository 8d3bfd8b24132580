//! The parse cache: parsed files by content hash, bounded in memory.
//!
//! A hit needs the same language and the same bytes (the hash finds the
//! entry, a comparison confirms it), so a file edited on disk is parsed
//! again and an unchanged one never is. An entry keeps everything derived
//! from its text (outline, declarations), which makes a repeated outline of
//! a large `.d.ts` nearly free. The least recently used entries go first
//! once the cache holds more than its entry count or its source bytes;
//! trees and outlines take a few times the source's size on top.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, LazyLock, Mutex};

use super::{Language, SourceFile};
use crate::sync::lock;

/// Entries kept at most.
pub const MAX_ENTRIES: usize = 4096;
/// Source bytes kept at most (trees and outlines come on top of this, a
/// few times as much).
pub const MAX_SOURCE_BYTES: usize = 24 * 1024 * 1024;

#[derive(Debug)]
pub struct ParseCache {
    max_entries: usize,
    max_bytes: usize,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    entries: Vec<Entry>,
    bytes: usize,
    clock: u64,
    hits: u64,
    misses: u64,
}

#[derive(Debug)]
struct Entry {
    hash: u64,
    file: Arc<SourceFile>,
    last_used: u64,
}

/// How the cache has done so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheStats {
    pub entries: usize,
    pub bytes: usize,
    pub hits: u64,
    pub misses: u64,
}

static GLOBAL: LazyLock<ParseCache> =
    LazyLock::new(|| ParseCache::new(MAX_ENTRIES, MAX_SOURCE_BYTES));

impl ParseCache {
    pub fn new(max_entries: usize, max_bytes: usize) -> ParseCache {
        ParseCache {
            max_entries: max_entries.max(1),
            max_bytes,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The process-wide cache that [`super::parse`] uses.
    pub fn global() -> &'static ParseCache {
        &GLOBAL
    }

    /// The parsed file for this content: from the cache, or parsed now
    /// (outside the lock, so other files are served meanwhile).
    pub fn get_or_parse(&self, language: Language, text: String) -> Arc<SourceFile> {
        let hash = content_hash(language, &text);
        if let Some(file) = self.lookup(hash, language, &text) {
            return file;
        }
        let file = Arc::new(SourceFile::parse(language, text));
        let mut inner = self.lock();
        inner.misses += 1;
        inner.clock += 1;
        let clock = inner.clock;
        // Another thread may have parsed the same text meanwhile.
        if let Some(entry) = inner
            .entries
            .iter_mut()
            .find(|e| e.hash == hash && same(&e.file, language, file.text()))
        {
            entry.last_used = clock;
            return Arc::clone(&entry.file);
        }
        inner.bytes += file.text().len();
        inner.entries.push(Entry {
            hash,
            file: Arc::clone(&file),
            last_used: clock,
        });
        while inner.entries.len() > self.max_entries
            || (inner.bytes > self.max_bytes && inner.entries.len() > 1)
        {
            let oldest = inner
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(i, _)| i)
                .expect("the cache is not empty");
            let gone = inner.entries.swap_remove(oldest);
            inner.bytes -= gone.file.text().len();
        }
        file
    }

    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            entries: inner.entries.len(),
            bytes: inner.bytes,
            hits: inner.hits,
            misses: inner.misses,
        }
    }

    fn lookup(&self, hash: u64, language: Language, text: &str) -> Option<Arc<SourceFile>> {
        let mut inner = self.lock();
        inner.clock += 1;
        let clock = inner.clock;
        let entry = inner
            .entries
            .iter_mut()
            .find(|e| e.hash == hash && same(&e.file, language, text))?;
        entry.last_used = clock;
        let file = Arc::clone(&entry.file);
        inner.hits += 1;
        Some(file)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (every
        // update is a single push, remove or counter change).
        lock(&self.inner)
    }
}

fn same(file: &SourceFile, language: Language, text: &str) -> bool {
    file.language() == language && file.text() == text
}

fn content_hash(language: Language, text: &str) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    language.hash(&mut hasher);
    text.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_need_the_same_bytes_and_old_entries_go_first() {
        let cache = ParseCache::new(2, usize::MAX);
        let a = cache.get_or_parse(Language::named("Rust").unwrap(), "fn a() {}".into());
        let again = cache.get_or_parse(Language::named("Rust").unwrap(), "fn a() {}".into());
        assert!(Arc::ptr_eq(&a, &again));
        // Same text, another grammar: another entry.
        let ts = cache.get_or_parse(Language::named("TypeScript").unwrap(), "fn a() {}".into());
        assert!(!Arc::ptr_eq(&a, &ts));
        assert_eq!(cache.stats().hits, 1);
        assert_eq!(cache.stats().misses, 2);
        // A third entry evicts the least recently used (the TypeScript one
        // was used last, so the Rust one goes).
        cache.get_or_parse(Language::named("Rust").unwrap(), "fn b() {}".into());
        assert_eq!(cache.stats().entries, 2);
        let a_again = cache.get_or_parse(Language::named("Rust").unwrap(), "fn a() {}".into());
        assert!(!Arc::ptr_eq(&a, &a_again));
    }

    #[test]
    fn bounded_by_source_bytes() {
        let cache = ParseCache::new(10, 20);
        cache.get_or_parse(
            Language::named("Rust").unwrap(),
            "fn aaaaaaaaaaaa() {}".into(),
        );
        cache.get_or_parse(
            Language::named("Rust").unwrap(),
            "fn bbbbbbbbbbbb() {}".into(),
        );
        let stats = cache.stats();
        assert_eq!(stats.entries, 1);
        assert_eq!(stats.bytes, 20);
    }
}
