//! Files created, changed and deleted on disk, for the language servers
//! that asked to hear of them (`workspace/didChangeWatchedFiles`, which a
//! server registers with globs once it runs).
//!
//! A server that leaves file watching to its client (rust-analyzer does)
//! never learns of a file it has not opened otherwise: a new module stays
//! "unresolved" and a deleted one keeps answering. Opened documents are
//! synchronised before every request (see `LspClient::sync`); everything
//! else goes through here.
//!
//! One [`FileWatcher`] per workspace, started with its first server. It
//! watches every folder a walk of the workspace reaches (.gitignore and
//! hidden folders left out, so `target/`, `node_modules/` and `.git/` cost
//! nothing), one watch per folder, and adds folders as they appear. Events
//! are gathered per path and turned into one change each by looking at the
//! disk when they are handed out: after a short pause, or at once when a
//! request is about to go to a server ([`FileWatcher::flush_now`]), so a server
//! hears of a file written before the request first. (The kernel queues a
//! file's events as it is written, and notify's thread reads them within
//! microseconds, a few milliseconds on a loaded machine: always before an
//! agent's next request, which is a model turn away.)

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use globset::{GlobBuilder, GlobMatcher};
use lsp_types::{FileSystemWatcher, GlobPattern, OneOf, WatchKind};
use notify::event::{CreateKind, EventKind, ModifyKind, RenameMode};
use notify::{Config, EventKindMask, RecommendedWatcher, RecursiveMode, Watcher};

use crate::fast_map::FastMap;
use crate::fs::stamped::Watch;
use crate::logbook::LogBook;
use crate::model::{LogLevel, WatchStatus};
use crate::sync::lock;

/// Folders watched at most (each takes one inotify watch).
const MAX_WATCHED_FOLDERS: usize = 20_000;

/// The events asked of the system: what changes a file's content or
/// presence. Not opens and closes (inotify would otherwise queue an event
/// for every file any process reads in the workspace, the servers' and
/// sextant's own reads included, which doubles the cost of opening a file
/// there and wakes notify's thread each time), nor metadata.
const CHANGES: EventKindMask = EventKindMask::CREATE
    .union(EventKindMask::REMOVE)
    .union(EventKindMask::MODIFY_DATA)
    .union(EventKindMask::MODIFY_NAME);

/// How long events gather before they are handed out on their own.
const BATCH_PAUSE: Duration = Duration::from_millis(50);

/// What happened to a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Created,
    Changed,
    Deleted,
}

/// One path's change, as the disk shows it when handed out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: PathBuf,
    pub kind: ChangeKind,
    /// A deleted folder: reported as itself, as LSP clients do, since the
    /// files it held are gone without events of their own.
    pub folder: bool,
}

/// Where the changes go: every running server of the workspace.
pub type Deliver = Box<dyn Fn(&[FileChange]) + Send + Sync>;

/// Watches a workspace until dropped or stopped.
pub struct FileWatcher {
    inner: Arc<Inner>,
    task: tokio::task::JoinHandle<()>,
    /// [`writes_reported_at_once`] under the root, asked once, not with a
    /// `statfs` for every file of an answer (a call tree asks per node).
    reported_at_once: bool,
}

struct Inner {
    root: PathBuf,
    /// Folders watched at most ([`MAX_WATCHED_FOLDERS`] but in tests).
    max_folders: usize,
    logs: Arc<LogBook>,
    deliver: Deliver,
    watcher: Mutex<Option<RecommendedWatcher>>,
    /// The folders watched, and whether watching stopped at a limit.
    folders: Mutex<Folders>,
    pending: Mutex<Pending>,
    /// Held while changes are handed out, so they go out in order.
    flushing: Mutex<()>,
    wake: tokio::sync::Notify,
}

#[derive(Default)]
struct Folders {
    /// Each with the number of its watch: a folder replaced (deleted and
    /// made again, or another moved in its place) is watched anew under
    /// another, so what was kept of its old files is no longer taken as
    /// heard (see `fs::stamped::Watch`). By the path's bytes: every file of
    /// an answer asks for its folder (`hears`), and a `Path` is hashed and
    /// compared component by component.
    watched: FastMap<OsString, u64>,
    /// The number the next watch takes.
    next_watch: u64,
    /// No more folders are added: the limit was reached (until folders go).
    full: bool,
    /// A folder went unwatched at a limit: it stays so when room comes
    /// back (only a rescan walks the tree again), so the workspace is not
    /// covered.
    missed: bool,
    /// The system's watch limit was reached: no more folders, for good.
    system_full: bool,
    /// The first walk is still going.
    walking: bool,
}

impl Folders {
    /// The number of the watch on the folder of the file at `path`, where
    /// that folder is watched.
    fn watch_of(&self, path: &Path) -> Option<u64> {
        self.watched.get(path.parent()?.as_os_str()).copied()
    }
}

/// Events gathered since the last hand-out, per path, in arrival order.
#[derive(Default)]
struct Pending {
    order: Vec<PathBuf>,
    seen: HashMap<PathBuf, Seen>,
    /// Folders that appeared: watched, and their files reported, on the
    /// next hand-out.
    new_folders: Vec<PathBuf>,
    /// Events were lost (the kernel's queue overflowed): every file is
    /// reported as changed on the next hand-out.
    rescan: bool,
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    /// The path was there before the batch's first event (which was a
    /// change, a removal or a move away), so if it is there at the end it
    /// changed, and if not it was deleted.
    existed: bool,
    /// The path was a watched folder when it went away (or was replaced).
    folder: bool,
}

impl FileWatcher {
    /// Starts watching `root`: the folders are walked and watched in the
    /// background; changes go to `deliver`. Must run inside a tokio runtime.
    pub fn start(root: &Path, logs: Arc<LogBook>, deliver: Deliver) -> Result<FileWatcher, String> {
        Self::start_with_limit(root, logs, deliver, MAX_WATCHED_FOLDERS)
    }

    fn start_with_limit(
        root: &Path,
        logs: Arc<LogBook>,
        deliver: Deliver,
        max_folders: usize,
    ) -> Result<FileWatcher, String> {
        let inner = Arc::new(Inner {
            root: root.to_path_buf(),
            max_folders,
            logs,
            deliver,
            watcher: Mutex::new(None),
            folders: Mutex::new(Folders::default()),
            pending: Mutex::new(Pending::default()),
            flushing: Mutex::new(()),
            wake: tokio::sync::Notify::new(),
        });
        // The callback runs on notify's own thread; it must not keep the
        // watcher (which owns it) alive.
        let weak: Weak<Inner> = Arc::downgrade(&inner);
        let handler = move |event: notify::Result<notify::Event>| {
            let Some(inner) = weak.upgrade() else {
                return;
            };
            match event {
                Ok(event) => inner.record(event),
                Err(err) => inner.warn(format!("file watching: {err}")),
            }
        };
        let watcher = RecommendedWatcher::new(handler, Config::default().with_event_kinds(CHANGES))
            .map_err(|err| format!("cannot watch files: {err}"))?;
        *lock(&inner.watcher) = Some(watcher);

        lock(&inner.folders).walking = true;
        let walker = Arc::clone(&inner);
        tokio::task::spawn_blocking(move || {
            let root = walker.root.clone();
            walker.watch_tree(&root, None);
            lock(&walker.folders).walking = false;
        });
        let batcher = Arc::clone(&inner);
        let task = tokio::spawn(async move {
            loop {
                batcher.wake.notified().await;
                tokio::time::sleep(BATCH_PAUSE).await;
                Arc::clone(&batcher).flush_off_thread().await;
            }
        });
        Ok(FileWatcher {
            reported_at_once: writes_reported_at_once(root),
            inner,
            task,
        })
    }

    /// Hands out every change seen so far, now (after a hand-out already
    /// under way).
    #[cfg(test)]
    fn flush(&self) {
        self.inner.flush();
    }

    /// Hands out every change seen so far (after a hand-out already under
    /// way), before returning.
    pub async fn flush_now(&self) {
        // Most calls find nothing to hand out: they return without the
        // trip to the blocking pool, which costs an answer a thread switch.
        if self.inner.nothing_pending() {
            return;
        }
        Arc::clone(&self.inner).flush_off_thread().await;
    }

    /// Whether every folder of the workspace is watched: not stopped at a
    /// limit, and the first walk done (a folder it has not reached yet
    /// reports nothing). Only then may what was made from the workspace's
    /// files be kept until the watcher reports them written.
    pub fn covers_workspace(&self) -> bool {
        let folders = lock(&self.inner.folders);
        !(folders.missed || folders.system_full || folders.walking)
    }

    /// Whether every change under the root so far has been handed out and
    /// the next will be: the watcher runs, covers the workspace, hears
    /// writes at once, and nothing heard waits to go out. What a walk of
    /// the workspace finds may then be kept until the next hand-out.
    pub fn hears_everything(&self) -> bool {
        self.reported_at_once && self.covers_workspace() && self.inner.handed_out_all()
    }

    /// What kept values ask of the watcher to be taken without a `stat`
    /// (see `fs::stamped::Watch`); it does not keep the watcher alive.
    /// `None` where the system may not report a write to the watcher at
    /// once (see [`writes_reported_at_once`]).
    pub fn heard(&self) -> Option<Heard> {
        self.reported_at_once
            .then(|| Heard(Arc::downgrade(&self.inner)))
    }

    /// How watching stands, from one look at the folders.
    pub fn status(&self) -> WatchStatus {
        let folders = lock(&self.inner.folders);
        WatchStatus::Watching {
            folders: folders.watched.len(),
            full: folders.full || folders.system_full,
            walking: folders.walking,
        }
    }

    /// Stops watching: nothing is handed out any more.
    pub fn stop(&self) {
        self.task.abort();
        lock(&self.inner.watcher).take();
    }
}

/// Whether the system reports every write under `root` to the watcher at
/// once: inotify (Linux) on a file system of this machine. Not on a
/// network or FUSE file system (NFS, SMB, sshfs, a virtual machine's
/// shared folders), where writes from elsewhere go unreported, nor where
/// the watcher's events come late (macOS's FSEvents gathers them).
fn writes_reported_at_once(root: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        /// `statfs`'s `f_type` of the file systems left out: NFS, SMB,
        /// SMB2, CIFS, FUSE, 9P, Coda, AFS, Ceph, Lustre, GPFS.
        const REMOTE: [i64; 11] = [
            0x6969,
            0x517B,
            0xFE53_4D42,
            0xFF53_4D42,
            0x6573_5546,
            0x0102_1997,
            0x7375_7245,
            0x5346_414F,
            0x00C3_6400,
            0x0BD0_0BD0,
            0x4750_4653,
        ];
        let Ok(path) = std::ffi::CString::new(root.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: `path` is a NUL-terminated string that outlives the
        // call, and `found` is a plain struct statfs fills in.
        let mut found: libc::statfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statfs(path.as_ptr(), &mut found) } != 0 {
            return false;
        }
        !REMOTE.contains(&(found.f_type as i64))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = root;
        false
    }
}

/// The file watcher as kept values see it: whether it hears a file's
/// changes (a stopped or dropped watcher hears none).
#[derive(Clone)]
pub struct Heard(Weak<Inner>);

impl Watch for Heard {
    fn hears(&self, path: &Path) -> Option<u64> {
        self.0.upgrade()?.hears(path)
    }

    fn hears_all(&self, paths: &[&Path]) -> Vec<Option<u64>> {
        match self.0.upgrade() {
            Some(inner) => inner.hears_all(paths),
            None => vec![None; paths.len()],
        }
    }
}

impl std::fmt::Debug for Heard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Heard")
    }
}

impl Drop for FileWatcher {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether `path` is a folder itself, not a symlink to one. The first walk
/// watches no folder through a symlink, and none is watched through one
/// later: its watch would hear the folder it leads to under the link's
/// path, and stay when the link is replaced by a real folder (not itself
/// watched, so its replacement drops no watch below it), while what is
/// kept of those paths (`fs::plain`, `fs::stamped`) is taken as heard.
fn is_real_folder(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir())
}

impl Inner {
    /// Takes one event from notify.
    fn record(&self, event: notify::Event) {
        let mut pending = lock(&self.pending);
        if event.need_rescan() {
            pending.rescan = true;
        }
        let paths = &event.paths;
        match event.kind {
            EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) => return,
            EventKind::Create(kind) => {
                for path in paths {
                    pending.note(path, false);
                    if kind == CreateKind::Folder
                        || (kind != CreateKind::File && is_real_folder(path))
                    {
                        pending.new_folders.push(path.clone());
                    }
                }
            }
            EventKind::Modify(ModifyKind::Name(mode)) => {
                for (i, path) in paths.iter().enumerate() {
                    // `Both` lists the old path, then the new one.
                    let arrived = match mode {
                        RenameMode::To => true,
                        RenameMode::Both => i == 1,
                        _ => false,
                    };
                    pending.note(path, !arrived);
                    if arrived && is_real_folder(path) {
                        pending.new_folders.push(path.clone());
                    }
                }
            }
            EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any | EventKind::Other => {
                for path in paths {
                    pending.note(path, true);
                }
            }
        }
        drop(pending);
        self.wake.notify_one();
    }

    /// The number of the watch on the folder of the file at `path` when
    /// every change to the file so far was handed out and the next will
    /// be: its folder is watched (inotify tells of the files in a folder
    /// by name, whatever the ignore files say), the watcher runs, and
    /// nothing heard waits to go out.
    fn hears(&self, path: &Path) -> Option<u64> {
        let watch = lock(&self.folders).watch_of(path)?;
        self.handed_out_all().then_some(watch)
    }

    /// [`Inner::hears`] of each of `paths`, in the same order: the
    /// folders looked at once, then the watcher's state once.
    fn hears_all(&self, paths: &[&Path]) -> Vec<Option<u64>> {
        let watches: Vec<Option<u64>> = {
            let folders = lock(&self.folders);
            paths.iter().map(|path| folders.watch_of(path)).collect()
        };
        match self.handed_out_all() {
            true => watches,
            false => vec![None; paths.len()],
        }
    }

    /// Whether the watcher runs and everything it heard has been handed
    /// out.
    fn handed_out_all(&self) -> bool {
        lock(&self.watcher).is_some() && self.nothing_pending()
    }

    /// Whether there is nothing to hand out and no hand-out under way (a
    /// caller of `flush_now` waits for one that is).
    fn nothing_pending(&self) -> bool {
        let Ok(_order) = self.flushing.try_lock() else {
            return false;
        };
        let pending = lock(&self.pending);
        pending.order.is_empty() && pending.new_folders.is_empty() && !pending.rescan
    }

    /// [`Inner::flush`] on the blocking pool: it looks at the disk and
    /// may walk new folders.
    async fn flush_off_thread(self: Arc<Self>) {
        let _ = tokio::task::spawn_blocking(move || self.flush()).await;
    }

    /// Hands out what is pending: new folders are watched first (and their
    /// files reported, since they may have been written before the watch),
    /// then each path becomes one change by what the disk holds now.
    fn flush(&self) {
        let _order = lock(&self.flushing);
        let Pending {
            mut order,
            mut seen,
            mut new_folders,
            rescan,
        } = std::mem::take(&mut *lock(&self.pending));
        if rescan {
            self.warn(
                "file events were lost (the system's queue overflowed); every file is reported as changed"
                    .into(),
            );
            // Folders replaced meanwhile went unheard too: all are watched
            // anew.
            let mut folders = lock(&self.folders);
            folders.watched.clear();
            folders.missed = false;
            drop(folders);
            new_folders = vec![self.root.clone()];
        }
        // A watched folder that is gone (deleted, or moved away) goes out as
        // a folder: its files had no events of their own. One that is
        // there again was replaced within the batch: its watch (and those
        // under it) watched the old folder, so it is watched anew.
        {
            let mut folders = lock(&self.folders);
            for path in &order {
                if !folders.watched.contains_key(path.as_os_str()) {
                    continue;
                }
                folders
                    .watched
                    .retain(|f, _| !Path::new(f).starts_with(path));
                if is_real_folder(path) {
                    new_folders.push(path.clone());
                }
                if let Some(seen) = seen.get_mut(path) {
                    seen.folder = true;
                }
            }
            // Room again below the limit.
            folders.full &= folders.watched.len() >= self.max_folders;
        }
        new_folders.sort();
        new_folders.dedup();
        let mut listings = HashMap::new();
        for folder in new_folders {
            if !is_real_folder(&folder)
                || (folder != self.root && is_left_out(&folder, &mut listings))
            {
                continue;
            }
            self.watch_tree(
                &folder,
                Some(&mut |file| {
                    seen.entry(file.to_path_buf()).or_insert_with(|| {
                        order.push(file.to_path_buf());
                        Seen {
                            existed: rescan,
                            folder: false,
                        }
                    });
                }),
            );
        }
        let changes: Vec<FileChange> = order
            .into_iter()
            .filter_map(|path| {
                let seen = seen.get(&path).copied()?;
                let kind = match std::fs::symlink_metadata(&path) {
                    // A file that was there, replaced by a folder: the file
                    // is gone (the folder's files have changes of their
                    // own).
                    Ok(meta) if meta.is_dir() && seen.existed && !seen.folder => {
                        ChangeKind::Deleted
                    }
                    // A folder's own events say nothing a server needs: its
                    // files have theirs.
                    Ok(meta) if meta.is_dir() => return None,
                    Ok(_) if seen.existed => ChangeKind::Changed,
                    Ok(_) => ChangeKind::Created,
                    // Gone; or came and went within the batch: an editor's
                    // temporary file, or a file renamed over one that was
                    // there (its arrival cannot tell) and then deleted,
                    // whose kept values and open documents must go. A
                    // deletion of a file a server never knew is nothing to
                    // it.
                    Err(_) => ChangeKind::Deleted,
                };
                Some(FileChange {
                    path,
                    kind,
                    folder: seen.folder && kind == ChangeKind::Deleted,
                })
            })
            .collect();
        if !changes.is_empty() {
            (self.deliver)(&changes);
        }
    }

    /// Watches `folder` and the folders under it that are not left out
    /// (as many as the limit allows), and calls `file` with each file found
    /// there. Without `file`, the walk ends when no more folders can be
    /// watched: the rest of a huge tree (a home folder) is not walked for
    /// nothing.
    fn watch_tree(&self, folder: &Path, mut file: Option<&mut dyn FnMut(&Path)>) {
        // A dependency folder that no ignore file leaves out is watched
        // (it is part of the tree as the project's own tools see it).
        let walk = crate::fs::walk::sources(folder).with_dependency_folders();
        for entry in walk.entries() {
            if !entry.file_type().is_some_and(|t| t.is_dir()) {
                if let Some(file) = file.as_mut() {
                    file(entry.path());
                }
                continue;
            }
            if !self.watch_folder(entry.path()) && file.is_none() {
                return;
            }
        }
    }

    /// Watches one folder; false once no more folders can be watched.
    fn watch_folder(&self, path: &Path) -> bool {
        let mut folders = lock(&self.folders);
        if folders.watched.contains_key(path.as_os_str()) {
            return true;
        }
        if folders.full || folders.system_full {
            folders.missed = true;
            return false;
        }
        if folders.watched.len() >= self.max_folders {
            folders.full = true;
            folders.missed = true;
            self.warn(format!(
                "file watching stopped at {} folders; files elsewhere are seen by the servers only when a tool opens them",
                self.max_folders
            ));
            return false;
        }
        let mut watcher = lock(&self.watcher);
        let Some(watcher) = watcher.as_mut() else {
            return false;
        };
        match watcher.watch(path, RecursiveMode::NonRecursive) {
            Ok(()) => {
                folders.next_watch += 1;
                let watch = folders.next_watch;
                folders.watched.insert(path.into(), watch);
            }
            Err(err) if matches!(err.kind, notify::ErrorKind::MaxFilesWatch) => {
                folders.system_full = true;
                folders.missed = true;
                self.warn(format!(
                    "file watching stopped at {} folders: {err}; raise fs.inotify.max_user_watches to watch more",
                    folders.watched.len()
                ));
            }
            // Gone between the walk and the watch, or unreadable: skipped.
            Err(err) => self.logs.record(
                LogLevel::Debug,
                "sextant",
                format!("not watching {}: {err}", path.display()),
            ),
        }
        !(folders.full || folders.system_full)
    }

    fn warn(&self, message: String) {
        self.logs.record(LogLevel::Warn, "sextant", message);
    }
}

impl Pending {
    /// Notes an event for `path`; `existed` says whether the path was there
    /// before this event, which counts only for the batch's first event.
    fn note(&mut self, path: &Path, existed: bool) {
        if !self.seen.contains_key(path) {
            self.order.push(path.to_path_buf());
            self.seen.insert(
                path.to_path_buf(),
                Seen {
                    existed,
                    folder: false,
                },
            );
        }
    }
}

/// A folder the watch leaves out: hidden, or excluded by an ignore file
/// (looked up the way a walk of its parent would; each parent is listed
/// once per hand-out).
fn is_left_out(folder: &Path, listings: &mut HashMap<PathBuf, HashSet<PathBuf>>) -> bool {
    let Some(parent) = folder.parent() else {
        return false;
    };
    let listed = listings.entry(parent.to_path_buf()).or_insert_with(|| {
        crate::fs::walk::sources(parent)
            .with_dependency_folders()
            .max_depth(1)
            .entries()
            .filter(|entry| entry.depth() == 1)
            .map(|entry| entry.into_path())
            .collect()
    });
    !listed.contains(folder)
}

/// One registered watcher: a glob (relative to a base folder, or absolute)
/// and the kinds of change it wants.
#[derive(Debug, Clone)]
pub struct WatchedGlob {
    /// Paths are matched relative to this folder; `None` for an absolute
    /// glob, matched against the whole path.
    base: Option<PathBuf>,
    matcher: GlobMatcher,
    kinds: WatchKind,
}

impl WatchedGlob {
    /// A server's watcher; `root` is the base of a plain glob that is not
    /// absolute. `None` for a glob that does not compile or a base that is
    /// not a file URI (logged by the caller).
    pub fn new(watcher: &FileSystemWatcher, root: &Path) -> Result<WatchedGlob, String> {
        let (base, pattern) = match &watcher.glob_pattern {
            GlobPattern::String(pattern) if Path::new(pattern).is_absolute() => {
                (None, pattern.as_str())
            }
            GlobPattern::String(pattern) => (Some(root.to_path_buf()), pattern.as_str()),
            GlobPattern::Relative(relative) => {
                let uri = match &relative.base_uri {
                    OneOf::Left(folder) => &folder.uri,
                    OneOf::Right(uri) => uri,
                };
                let base = uri
                    .to_file_path()
                    .map_err(|()| format!("watcher base {uri} is not a file URI"))?;
                (Some(base), relative.pattern.as_str())
            }
        };
        let matcher = GlobBuilder::new(pattern)
            // LSP globs: `*` stays within a path segment, `**` crosses them.
            .literal_separator(true)
            .build()
            .map_err(|err| format!("watcher glob {pattern:?}: {err}"))?
            .compile_matcher();
        Ok(WatchedGlob {
            base,
            matcher,
            kinds: watcher.kind.unwrap_or(WatchKind::all()),
        })
    }

    /// Whether the server wants to hear of `change`. A deleted folder is
    /// wanted by every watcher of deletions whose base holds it: its files
    /// may match.
    pub fn covers(&self, change: &FileChange) -> bool {
        let kind = match change.kind {
            ChangeKind::Created => WatchKind::Create,
            ChangeKind::Changed => WatchKind::Change,
            ChangeKind::Deleted => WatchKind::Delete,
        };
        if !self.kinds.contains(kind) {
            return false;
        }
        let path = match &self.base {
            Some(base) => match change.path.strip_prefix(base) {
                Ok(relative) => relative,
                Err(_) => return false,
            },
            None => change.path.as_path(),
        };
        change.folder || self.matcher.is_match(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{RelativePattern, Url};

    fn watcher(pattern: GlobPattern, kind: Option<WatchKind>) -> FileSystemWatcher {
        FileSystemWatcher {
            glob_pattern: pattern,
            kind,
        }
    }

    /// A watcher of `root` (at most `max_folders` folders) whose changes
    /// arrive on the receiver.
    fn sending(
        root: &Path,
        logs: Arc<LogBook>,
        max_folders: usize,
    ) -> (
        FileWatcher,
        tokio::sync::mpsc::UnboundedReceiver<Vec<FileChange>>,
    ) {
        let (send, received) = tokio::sync::mpsc::unbounded_channel();
        let deliver: Deliver = Box::new(move |changes| {
            let _ = send.send(changes.to_vec());
        });
        let watcher = FileWatcher::start_with_limit(root, logs, deliver, max_folders).unwrap();
        (watcher, received)
    }

    fn watched(watcher: &FileWatcher) -> usize {
        lock(&watcher.inner.folders).watched.len()
    }

    fn walking(watcher: &FileWatcher) -> bool {
        lock(&watcher.inner.folders).walking
    }

    /// Once the watcher's first walk has ended (a second at most).
    async fn walked(watcher: &FileWatcher) {
        for _ in 0..100 {
            if !walking(watcher) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn change(path: &str, kind: ChangeKind) -> FileChange {
        FileChange {
            path: PathBuf::from(path),
            kind,
            folder: false,
        }
    }

    #[test]
    fn globs_match_as_lsp_says() {
        let root = Path::new("/w");
        let relative =
            WatchedGlob::new(&watcher(GlobPattern::String("**/*.rs".into()), None), root).unwrap();
        assert!(relative.covers(&change("/w/src/a.rs", ChangeKind::Created)));
        assert!(relative.covers(&change("/w/a.rs", ChangeKind::Deleted)));
        assert!(!relative.covers(&change("/w/src/a.ts", ChangeKind::Changed)));
        assert!(!relative.covers(&change("/elsewhere/a.rs", ChangeKind::Changed)));

        // `*` stays within a segment.
        let top =
            WatchedGlob::new(&watcher(GlobPattern::String("*.toml".into()), None), root).unwrap();
        assert!(top.covers(&change("/w/Cargo.toml", ChangeKind::Changed)));
        assert!(!top.covers(&change("/w/crates/x/Cargo.toml", ChangeKind::Changed)));

        // rust-analyzer's absolute globs, without relative pattern support.
        let absolute = WatchedGlob::new(
            &watcher(
                GlobPattern::String("/w/**/{Cargo.toml,Cargo.lock}".into()),
                None,
            ),
            Path::new("/other"),
        )
        .unwrap();
        assert!(absolute.covers(&change("/w/crates/x/Cargo.toml", ChangeKind::Changed)));
        assert!(!absolute.covers(&change("/w/crates/x/lib.rs", ChangeKind::Changed)));

        // A relative pattern with its own base, wanting creations only.
        let based = WatchedGlob::new(
            &watcher(
                GlobPattern::Relative(RelativePattern {
                    base_uri: OneOf::Right(Url::from_file_path("/w/data").unwrap()),
                    pattern: "**".into(),
                }),
                Some(WatchKind::Create),
            ),
            root,
        )
        .unwrap();
        assert!(based.covers(&change("/w/data/x/y.bin", ChangeKind::Created)));
        assert!(!based.covers(&change("/w/data/x/y.bin", ChangeKind::Changed)));
        assert!(!based.covers(&change("/w/src/y.bin", ChangeKind::Created)));

        // A deleted folder goes to watchers of deletions under their base.
        let folder = FileChange {
            folder: true,
            ..change("/w/src/nested", ChangeKind::Deleted)
        };
        assert!(relative.covers(&folder));
        assert!(!based.covers(&folder));

        assert!(WatchedGlob::new(&watcher(GlobPattern::String("a[".into()), None), root).is_err());
    }

    /// `hears_all` of `paths` says what `hears` says of each.
    fn heard_all_as_each(heard: &Heard, paths: &[&Path]) {
        let each: Vec<Option<u64>> = paths.iter().map(|path| heard.hears(path)).collect();
        assert_eq!(heard.hears_all(paths), each, "{paths:?}");
    }

    /// What kept values ask of the watcher: a file is heard in a watched
    /// folder while nothing heard waits to go out; not in a folder the
    /// walk leaves out or has not watched, nor once the watcher stops. A
    /// folder replaced within a batch is watched anew, under another
    /// number, and changes in the new one are heard. Asked of several
    /// files at once, it answers as of each.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_file_is_heard_in_a_watched_folder_while_nothing_waits() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
        std::fs::create_dir(root.join("ignored")).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("a.rs"), "").unwrap();
        std::fs::write(root.join("src/b.rs"), "").unwrap();
        let (watcher, mut received) =
            sending(&root, Arc::new(LogBook::default()), MAX_WATCHED_FOLDERS);
        walked(&watcher).await;
        let heard = watcher
            .heard()
            .expect("a temporary folder is on a local file system");
        let (file, nested) = (root.join("a.rs"), root.join("src/b.rs"));
        assert!(heard.hears(&file).is_some());
        assert!(
            heard.hears(&root.join("new.rs")).is_some(),
            "its folder is watched"
        );
        assert!(heard.hears(&root.join("ignored/x.rs")).is_none());
        assert!(heard.hears(&root.join("other/y.rs")).is_none());
        let (new, ignored, other) = (
            root.join("new.rs"),
            root.join("ignored/x.rs"),
            root.join("other/y.rs"),
        );
        let asked: [&Path; 5] = [&file, &new, &ignored, &other, &nested];
        heard_all_as_each(&heard, &asked);
        // The batcher stopped, a change waits until handed out (a write
        // is several events: all of them are in before the hand-out).
        watcher.task.abort();
        let settle = || tokio::time::sleep(Duration::from_millis(200));
        std::fs::write(&file, "fn a() {}").unwrap();
        settle().await;
        assert!(
            heard.hears(&file).is_none(),
            "a change heard waits to go out"
        );
        assert_eq!(heard.hears_all(&asked), vec![None; asked.len()]);
        watcher.flush();
        assert!(heard.hears(&file).is_some());
        // A folder replaced within a batch: watched anew, its files
        // reported, and a change in it heard.
        let before = heard.hears(&nested).unwrap();
        std::fs::remove_dir_all(root.join("src")).unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(&nested, "fn b() {}").unwrap();
        settle().await;
        watcher.flush();
        let after = heard.hears(&nested).expect("watched anew");
        assert_ne!(before, after);
        while received.try_recv().is_ok() {}
        std::fs::write(&nested, "fn b() { 1; }").unwrap();
        settle().await;
        assert!(heard.hears(&nested).is_none(), "heard in the new folder");
        watcher.flush();
        let changes = received.try_recv().unwrap_or_default();
        assert!(changes.iter().any(|c| c.path == nested), "{changes:?}");
        heard_all_as_each(&heard, &asked);
        watcher.stop();
        assert!(heard.hears(&file).is_none());
        assert_eq!(heard.hears_all(&asked), vec![None; asked.len()]);
        drop(watcher);
        assert!(heard.hears(&file).is_none());
    }

    /// The paths a workspace found to be their own real path (`fs::plain`)
    /// are taken so while the watcher hears them, and no longer once it
    /// hands out a change that makes them lead elsewhere: a file replaced
    /// by a symlink out of the root (its path forgotten), and a folder
    /// above a file replaced by one (the watches below it dropped, none
    /// made through the link). Each is then refused, to read and to write,
    /// as it is without the watcher. The link replaced by a real folder
    /// again, that folder is watched itself: a file in it replaced by a
    /// symlink is heard too.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_plain_path_replaced_by_a_symlink_out_of_the_root_is_refused_once_heard() {
        use crate::error::ErrorCode;
        use crate::fs::workspace::{RealFolders, Workspace};
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let files = ["src/a.rs", "src/b.rs", "lib/sub/c.rs"];
        for file in files {
            crate::fs::write_test_file(&root, file, "");
            crate::fs::write_test_file(outside.path(), file, "");
        }
        let workspace = Workspace::new(&root, &[]).unwrap();
        let plain = workspace.plain_paths();
        let deliver: Deliver = Box::new(move |changes| {
            plain.forget(changes.iter().map(|change| change.path.as_path()));
        });
        let watcher = FileWatcher::start_with_limit(
            &root,
            Arc::new(LogBook::default()),
            deliver,
            MAX_WATCHED_FOLDERS,
        )
        .unwrap();
        walked(&watcher).await;
        // Changes go out only when this test hands them out.
        watcher.task.abort();
        let heard = watcher
            .heard()
            .expect("a temporary folder is on a local file system");
        let watch = Some(&heard as &dyn Watch);
        let resolved = |file: &str| {
            let read = workspace.resolve_read_heard(file, watch);
            let write = workspace.resolve_write_among(file, &mut RealFolders::default(), watch);
            (read.map_err(|e| e.code), write.map_err(|e| e.code))
        };
        let own = |file: &str| (Ok(root.join(file)), Ok(root.join(file)));
        for file in files {
            assert_eq!(resolved(file), own(file));
            assert!(
                workspace.plain_paths().holds(&root.join(file), watch),
                "{file}"
            );
        }
        let settle = || tokio::time::sleep(Duration::from_millis(200));
        let link_out = |file: &str| {
            std::fs::remove_file(root.join(file)).unwrap();
            std::os::unix::fs::symlink(outside.path().join(file), root.join(file)).unwrap();
        };
        link_out("src/a.rs");
        std::fs::rename(root.join("lib"), root.join("lib-before")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("lib"), root.join("lib")).unwrap();
        settle().await;
        watcher.flush();
        assert!(heard.hears(&root.join("src/a.rs")).is_some());
        let out = (Err(ErrorCode::OutsideRoot), Err(ErrorCode::OutsideRoot));
        assert_eq!(resolved("src/a.rs"), out);
        assert_eq!(resolved("lib/sub/c.rs"), out);
        // No folder is watched through the link.
        assert!(heard.hears(&root.join("lib/sub/c.rs")).is_none());
        // The file beside it is still its own.
        assert!(workspace.plain_paths().holds(&root.join("src/b.rs"), watch));
        assert_eq!(resolved("src/b.rs"), own("src/b.rs"));

        // The link replaced by a real folder: watched itself, and a file in
        // it replaced by a symlink is heard.
        std::fs::remove_file(root.join("lib")).unwrap();
        crate::fs::write_test_file(&root, "lib/sub/c.rs", "");
        settle().await;
        watcher.flush();
        assert_eq!(resolved("lib/sub/c.rs"), own("lib/sub/c.rs"));
        link_out("lib/sub/c.rs");
        settle().await;
        watcher.flush();
        assert_eq!(resolved("lib/sub/c.rs"), out);
    }

    /// Real events on a real folder: a file written, changed, renamed and
    /// deleted, a new folder with a file written at once, and an ignored
    /// folder that stays unwatched.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn changes_on_disk_arrive_as_one_change_per_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
        std::fs::create_dir(root.join("ignored")).unwrap();
        std::fs::write(root.join("old.txt"), "old").unwrap();
        let (watcher, mut received) =
            sending(&root, Arc::new(LogBook::default()), MAX_WATCHED_FOLDERS);
        // The first walk runs in the background: wait for its watches.
        for _ in 0..100 {
            if watched(&watcher) == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(watched(&watcher), 1, "the root only");

        let mut all = Vec::new();
        let mut next = async |all: &mut Vec<FileChange>| {
            watcher.flush();
            // Whatever the batcher handed out already, too.
            tokio::time::sleep(BATCH_PAUSE * 3).await;
            while let Ok(batch) = received.try_recv() {
                all.extend(batch);
            }
            std::mem::take(all)
        };
        let rel = |changes: Vec<FileChange>| -> Vec<(String, ChangeKind, bool)> {
            changes
                .into_iter()
                .map(|c| {
                    let path = c.path.strip_prefix(&root).unwrap().display().to_string();
                    (path, c.kind, c.folder)
                })
                .collect()
        };

        std::fs::write(root.join("a.rs"), "fn a() {}").unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            rel(next(&mut all).await),
            [("a.rs".into(), ChangeKind::Created, false)]
        );
        std::fs::write(root.join("a.rs"), "fn a() { 1; }").unwrap();
        std::fs::write(root.join("ignored/x.rs"), "").unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            rel(next(&mut all).await),
            [("a.rs".into(), ChangeKind::Changed, false)]
        );
        std::fs::rename(root.join("old.txt"), root.join("new.txt")).unwrap();
        std::fs::remove_file(root.join("a.rs")).unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            rel(next(&mut all).await),
            [
                ("old.txt".into(), ChangeKind::Deleted, false),
                ("new.txt".into(), ChangeKind::Created, false),
                ("a.rs".into(), ChangeKind::Deleted, false),
            ]
        );
        // A folder and its file at once: the file is reported although it
        // was written before the folder's watch existed.
        std::fs::create_dir_all(root.join("src/nested")).unwrap();
        std::fs::write(root.join("src/nested/mod.rs"), "").unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            rel(next(&mut all).await),
            [("src/nested/mod.rs".into(), ChangeKind::Created, false)]
        );
        assert_eq!(watched(&watcher), 3, "root, src, src/nested");
        // Now watched: a change inside is seen.
        std::fs::write(root.join("src/nested/mod.rs"), "pub fn f() {}").unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            rel(next(&mut all).await),
            [("src/nested/mod.rs".into(), ChangeKind::Changed, false)]
        );
        // A folder moved: the old one goes as a folder (its files had no
        // events), the new one's files arrive, and the watches follow.
        std::fs::rename(root.join("src/nested"), root.join("src/moved")).unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            rel(next(&mut all).await),
            [
                ("src/nested".into(), ChangeKind::Deleted, true),
                ("src/moved/mod.rs".into(), ChangeKind::Created, false),
            ]
        );
        assert_eq!(watched(&watcher), 3, "root, src, src/moved");
        std::fs::remove_dir_all(root.join("src/moved")).unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let gone = rel(next(&mut all).await);
        assert!(
            gone.contains(&("src/moved/mod.rs".into(), ChangeKind::Deleted, false))
                && gone.contains(&("src/moved".into(), ChangeKind::Deleted, true)),
            "{gone:?}"
        );
        assert_eq!(watched(&watcher), 2, "root, src");

        // A file that was there, deleted, written again and deleted within
        // one batch: deleted.
        std::fs::write(root.join("b.rs"), "").unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        next(&mut all).await;
        std::fs::remove_file(root.join("b.rs")).unwrap();
        std::fs::write(root.join("b.rs"), "again").unwrap();
        std::fs::remove_file(root.join("b.rs")).unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            rel(next(&mut all).await),
            [("b.rs".into(), ChangeKind::Deleted, false)]
        );
        // A file renamed over one that was there, then deleted, within one
        // batch: both paths deleted (the arrival cannot tell that a file
        // was there before it).
        std::fs::write(root.join("c.rs"), "").unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        next(&mut all).await;
        std::fs::write(root.join("c.rs.new"), "new").unwrap();
        std::fs::rename(root.join("c.rs.new"), root.join("c.rs")).unwrap();
        std::fs::remove_file(root.join("c.rs")).unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            rel(next(&mut all).await),
            [
                ("c.rs.new".into(), ChangeKind::Deleted, false),
                ("c.rs".into(), ChangeKind::Deleted, false),
            ]
        );
        // A file replaced by a folder (with a file) within one batch: the
        // file deleted, the folder's file created.
        std::fs::write(root.join("d.rs"), "").unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        next(&mut all).await;
        std::fs::remove_file(root.join("d.rs")).unwrap();
        std::fs::create_dir(root.join("d.rs")).unwrap();
        std::fs::write(root.join("d.rs/e.rs"), "").unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            rel(next(&mut all).await),
            [
                ("d.rs".into(), ChangeKind::Deleted, false),
                ("d.rs/e.rs".into(), ChangeKind::Created, false),
            ]
        );
    }

    /// A tree with more folders than the limit: watching stops there and
    /// says so, the first walk ends there, yet files in new folders and
    /// after an overflow are still reported, and folders that go make room.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn watching_stops_at_the_folder_limit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for i in 0..6 {
            std::fs::create_dir_all(root.join(format!("d{i}/inner"))).unwrap();
        }
        let logs = Arc::new(LogBook::default());
        let (watcher, mut received) = sending(&root, Arc::clone(&logs), 4);
        walked(&watcher).await;
        assert!(!walking(&watcher));
        // Stopped at the limit: the workspace is not covered.
        assert!(!watcher.covers_workspace());
        assert_eq!(watched(&watcher), 4);
        let warnings: Vec<String> = logs
            .matching(|l| l.message.contains("file watching stopped"))
            .into_iter()
            .map(|l| l.message)
            .collect();
        assert_eq!(
            warnings,
            [
                "file watching stopped at 4 folders; files elsewhere are seen by the servers only when a tool opens them"
            ]
        );
        let mut changes = async || {
            tokio::time::sleep(Duration::from_millis(20)).await;
            watcher.flush();
            let mut changes = Vec::new();
            while let Ok(batch) = received.try_recv() {
                changes.extend(batch);
            }
            changes
        };

        // A folder created now is not watched, but its files are reported.
        std::fs::create_dir(root.join("late")).unwrap();
        std::fs::write(root.join("late/new.rs"), "").unwrap();
        assert_eq!(
            changes().await,
            [FileChange {
                path: root.join("late/new.rs"),
                kind: ChangeKind::Created,
                folder: false
            }]
        );
        assert_eq!(watched(&watcher), 4);

        // Events lost to an overflow: every file is reported as changed.
        lock(&watcher.inner.pending).rescan = true;
        assert_eq!(
            changes().await,
            [FileChange {
                path: root.join("late/new.rs"),
                kind: ChangeKind::Changed,
                folder: false
            }]
        );

        // A watched folder that goes makes room again.
        let gone = lock(&watcher.inner.folders)
            .watched
            .keys()
            .find(|f| **f != root)
            .cloned()
            .unwrap();
        std::fs::remove_dir_all(&gone).unwrap();
        changes().await;
        assert!(!lock(&watcher.inner.folders).full);
        // The folders left out at the limit are not watched for that: the
        // workspace is still not covered.
        assert!(!watcher.covers_workspace(), "{} folders", watched(&watcher));
        // It is once all are watched, but not while the first walk goes.
        lock(&watcher.inner.folders).missed = false;
        assert!(watcher.covers_workspace());
        lock(&watcher.inner.folders).walking = true;
        assert!(!watcher.covers_workspace());
    }

    /// The kernel is asked for changes only: a folder's watch leaves out
    /// opens (IN_OPEN, 0x20) and read-only closes (IN_CLOSE_NOWRITE, 0x10),
    /// which every read of a file in the workspace would otherwise queue.
    #[cfg(target_os = "linux")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_kernel_is_asked_for_changes_not_reads() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let watcher =
            FileWatcher::start(&root, Arc::new(LogBook::default()), Box::new(|_| {})).unwrap();
        for _ in 0..100 {
            if watched(&watcher) == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // /proc/self/fdinfo of an inotify descriptor lists each watch as
        // `inotify wd:1 ino:INODE sdev:... mask:MASK ...`, in hex.
        let inode = format!("ino:{:x} ", std::fs::metadata(&root).unwrap().ino());
        let masks: Vec<u32> = std::fs::read_dir("/proc/self/fdinfo")
            .unwrap()
            .flatten()
            .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
            .flat_map(|info| {
                info.lines()
                    .filter(|line| line.starts_with("inotify ") && line.contains(&inode))
                    .filter_map(|line| {
                        let mask = line
                            .split_whitespace()
                            .find_map(|f| f.strip_prefix("mask:"))?;
                        u32::from_str_radix(mask, 16).ok()
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(masks.len(), 1, "one watch on the folder: {masks:x?}");
        let (create, delete, modify) = (0x100, 0x200, 0x2);
        assert_eq!(
            masks[0] & (create | delete | modify),
            create | delete | modify
        );
        assert_eq!(masks[0] & (0x20 | 0x10), 0, "mask {:x}", masks[0]);
    }
}
