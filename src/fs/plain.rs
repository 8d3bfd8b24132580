//! Paths known to be their own real path while the file watcher hears
//! them: no symlink anywhere on the way from the root, so resolving one
//! (to read it, or to check where a write would land) needs no look at the
//! disk.
//!
//! Finding a path's real path asks the disk about each of its components
//! (`canonicalize` reads each as a link: eight system calls for
//! `packages/server/src/server/mcp.ts`, each looking up every component
//! before it). After the idle of a model turn, or while a language server
//! works, the kernel's cache of those lookups has gone cold. Through the
//! TypeScript SDK, a rename preview of `McpServer.connect` made about 80
//! such calls to check where its 71 files would be written, and one now:
//! the versus bench, both orders, put its own time 0.13 and 0.16 ms lower,
//! and that of references of `McpServer` (one file resolved) 0.01 higher
//! and 0.11 lower.
//!
//! A path is kept once resolved to itself while the file watcher heard its
//! folder (see [`Watch`]), under the number of that folder's watch, and
//! taken as plain while the watcher still hears it under that number:
//! - the file itself replaced (by a symlink, say), created or deleted is an
//!   event in its folder, and the owner forgets the path at every change
//!   the watcher hands out ([`PlainPaths::forget`]);
//! - its folder, or a folder above it, replaced (by a symlink leading
//!   elsewhere) or moved away is an event in the folder above: the
//!   watcher drops that folder's watch and those under it, and watches a
//!   real folder there again under a new number. The watcher walks down
//!   from the (canonical) root and watches no folder through a symlink
//!   (`lsp::watch::is_real_folder`), so every folder between the root and
//!   a watched one is a real folder, itself watched.
//!
//! Only a path that resolved to itself is kept: a symlink's target may
//! change where no watch hears it.

use std::ffi::OsString;
use std::path::Path;
use std::sync::Mutex;

use super::stamped::Watch;
use crate::fast_map::FastMap;
use crate::sync::lock;

/// Paths kept at most; past it the memory starts over (a workspace's
/// files resolved by hand number hundreds, a rename's thousands).
const MAX_KEPT: usize = 100_000;

/// See the module header.
#[derive(Default)]
pub struct PlainPaths {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Each path (by its bytes: a `Path` hashes component by component)
    /// with the watch on its folder when it was found plain.
    watch_by_path: FastMap<OsString, u64>,
    /// How many times paths were forgotten: a path found plain while a
    /// change was handed out is not kept (the change may have been its).
    forgotten: u64,
}

/// What a path's resolution takes before it looks at the disk, to keep
/// the path if it finds it plain ([`PlainPaths::keep`]).
#[derive(Debug, Clone, Copy)]
pub struct Ticket {
    watch: u64,
    forgotten: u64,
}

/// What is known of a path before it is resolved ([`PlainPaths::look`]).
#[derive(Debug, Clone, Copy)]
pub enum Known {
    /// Its own real path: nothing to ask the disk.
    Plain,
    /// To be resolved on disk; with a ticket where `watch` hears it, to
    /// keep it if it proves plain.
    Unknown(Option<Ticket>),
}

impl PlainPaths {
    /// Whether `path` is known to be its own real path (kept under the
    /// watch that `watch` hears its folder under now), else the ticket to
    /// keep it once resolved: the watcher asked once for both.
    pub fn look(&self, path: &Path, watch: Option<&dyn Watch>) -> Known {
        let Some(heard) = watch.and_then(|watch| watch.hears(path)) else {
            return Known::Unknown(None);
        };
        let inner = lock(&self.inner);
        if inner.watch_by_path.get(path.as_os_str()) == Some(&heard) {
            return Known::Plain;
        }
        Known::Unknown(Some(Ticket {
            watch: heard,
            forgotten: inner.forgotten,
        }))
    }

    /// Whether `path` is known to be its own real path ([`PlainPaths::look`]).
    #[cfg(test)]
    pub fn holds(&self, path: &Path, watch: Option<&dyn Watch>) -> bool {
        matches!(self.look(path, watch), Known::Plain)
    }

    /// Keeps `path`, found plain on disk after `ticket` was taken, unless
    /// the watcher no longer hears it under the same watch or a change was
    /// handed out meanwhile.
    pub fn keep(&self, path: &Path, ticket: Option<Ticket>, watch: Option<&dyn Watch>) {
        let Some(ticket) = ticket else {
            return;
        };
        if watch.and_then(|watch| watch.hears(path)) != Some(ticket.watch) {
            return;
        }
        let mut inner = lock(&self.inner);
        if inner.forgotten != ticket.forgotten {
            return;
        }
        if inner.watch_by_path.len() >= MAX_KEPT {
            inner.watch_by_path.clear();
        }
        inner
            .watch_by_path
            .insert(path.as_os_str().to_owned(), ticket.watch);
    }

    /// Forgets `paths`: the file watcher handed out a change of each.
    pub fn forget<'p>(&self, paths: impl IntoIterator<Item = &'p Path>) {
        let mut inner = lock(&self.inner);
        inner.forgotten += 1;
        for path in paths {
            inner.watch_by_path.remove(path.as_os_str());
        }
    }
}

impl std::fmt::Debug for PlainPaths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = lock(&self.inner).watch_by_path.len();
        write!(f, "PlainPaths({kept} kept)")
    }
}

/// A watcher for tests of what it vouches for: it hears the files of the
/// folders it is given, each under its number.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Folders(Mutex<FastMap<std::path::PathBuf, u64>>);

#[cfg(test)]
impl Folders {
    pub(crate) fn watch(&self, folder: impl AsRef<Path>, number: u64) {
        lock(&self.0).insert(folder.as_ref().to_path_buf(), number);
    }

    pub(crate) fn unwatch(&self, folder: impl AsRef<Path>) {
        lock(&self.0).remove(folder.as_ref());
    }
}

#[cfg(test)]
impl Watch for Folders {
    fn hears(&self, path: &Path) -> Option<u64> {
        lock(&self.0).get(path.parent()?).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ticket to keep `path`, which is not known plain yet.
    fn ticket(plain: &PlainPaths, folders: &Folders, path: &str) -> Option<Ticket> {
        match plain.look(Path::new(path), Some(folders)) {
            Known::Unknown(ticket) => ticket,
            Known::Plain => panic!("{path} is known plain already"),
        }
    }

    fn kept(plain: &PlainPaths, folders: &Folders, path: &str) {
        let ticket = ticket(plain, folders, path);
        plain.keep(Path::new(path), ticket, Some(folders));
    }

    #[test]
    fn a_path_holds_while_its_folder_keeps_its_watch_and_no_change_of_it_is_handed_out() {
        let (plain, folders) = (PlainPaths::default(), Folders::default());
        folders.watch("/w/src", 1);
        kept(&plain, &folders, "/w/src/a.ts");
        kept(&plain, &folders, "/w/src/b.ts");
        assert!(plain.holds(Path::new("/w/src/a.ts"), Some(&folders)));
        // Without the watcher, nothing is taken on trust.
        assert!(!plain.holds(Path::new("/w/src/a.ts"), None));
        // Never kept.
        assert!(!plain.holds(Path::new("/w/src/c.ts"), Some(&folders)));

        // A change of the file forgets it, not the others.
        plain.forget([Path::new("/w/src/a.ts")]);
        assert!(!plain.holds(Path::new("/w/src/a.ts"), Some(&folders)));
        assert!(plain.holds(Path::new("/w/src/b.ts"), Some(&folders)));

        // The folder watched anew (replaced): its files are not plain any
        // more until found so again.
        folders.watch("/w/src", 2);
        assert!(!plain.holds(Path::new("/w/src/b.ts"), Some(&folders)));
        kept(&plain, &folders, "/w/src/b.ts");
        assert!(plain.holds(Path::new("/w/src/b.ts"), Some(&folders)));
        // Not watched at all.
        folders.unwatch("/w/src");
        assert!(!plain.holds(Path::new("/w/src/b.ts"), Some(&folders)));
    }

    #[test]
    fn a_path_found_plain_while_a_change_went_out_or_its_watch_changed_is_not_kept() {
        let (plain, folders) = (PlainPaths::default(), Folders::default());
        folders.watch("/w/src", 1);
        // Not heard when the resolution began: no ticket.
        assert!(ticket(&plain, &folders, "/w/lib/a.ts").is_none());

        // A change handed out between the ticket and the keep.
        let taken = ticket(&plain, &folders, "/w/src/a.ts");
        plain.forget([Path::new("/w/src/other.ts")]);
        plain.keep(Path::new("/w/src/a.ts"), taken, Some(&folders));
        assert!(!plain.holds(Path::new("/w/src/a.ts"), Some(&folders)));

        // The folder watched anew meanwhile.
        let taken = ticket(&plain, &folders, "/w/src/a.ts");
        folders.watch("/w/src", 2);
        plain.keep(Path::new("/w/src/a.ts"), taken, Some(&folders));
        assert!(!plain.holds(Path::new("/w/src/a.ts"), Some(&folders)));
    }
}
