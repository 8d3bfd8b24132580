//! The documents a server has open, kept equal to the disk: opened, sent
//! their new text, or closed when gone, before any request about them; the
//! files changed on disk since the last request (the file watcher notes
//! them) synchronised too, since a server trusts its open documents over
//! the disk; and the text of any file an answer points into, as the server
//! sees it, for converting its positions.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument,
};
use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, FileChangeType, FileEvent,
    TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem, Url,
    VersionedTextDocumentIdentifier,
};

use super::LspError;
use super::capabilities::Feature;
use super::client::LspClient;
use super::convert::{LineIndex, url_path};
use super::watch::{ChangeKind, FileChange};
use crate::fast_map::{FastMap, FastSet};
use crate::fs::stamped::{Stamp, StampedCache, Watch, is_symlink};
use crate::sync::lock;

/// Files changed on disk between two requests, past this many the open
/// documents are all synchronised instead (a checkout of a whole branch).
const MAX_NOTED_CHANGES: usize = 10_000;

/// The line indexes of files not open kept at most, in bytes of text:
/// an answer pointing into hundreds of files then reads none of them again
/// while they are unchanged.
const MAX_DISK_INDEX_BYTES: usize = 64 * 1024 * 1024;

/// Documents a server keeps open at most: past it the least recently used
/// is closed. A server keeps each open document's analysis in memory (a
/// TypeScript server given thousands of library files grew to gigabytes
/// and slowed every answer); a closed one is answered from the disk, and
/// opened again when asked about.
pub(super) const MAX_OPEN_DOCUMENTS: usize = 200;

/// A document as the server has it.
#[derive(Debug, Clone)]
pub(super) struct Document {
    pub path: PathBuf,
    pub uri: Url,
    pub version: i32,
    pub index: Arc<LineIndex>,
    /// The server's publish count when this version was sent: diagnostics
    /// published after it may describe it.
    pub sent_at: u64,
    /// The publish count when the text last changed under the server (0
    /// when it never did since it was opened): results of a checker that
    /// reads the disk (cargo check) published after this are current.
    pub changed_at: u64,
    /// When a request was last about it, in syncs of this client: the
    /// least recently used is closed first.
    used: u64,
    /// The stamp of the file its text was last read from, when settled
    /// (see `fs::stamped`): while the file keeps it, the text is current.
    disk: Option<Stamp>,
    /// Found current (read, or checked by its stamp) while the file
    /// watcher heard the file: while it hears it under the same watch and
    /// has handed the client no change since, the text is current without
    /// a `stat`
    /// (see `LspClient::vouched`).
    vouch: Option<Ticket>,
}

/// What the file watcher said before a document's stamp was read: the
/// number of the watch on its file's folder, and the changes handed to
/// the client by then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ticket {
    watch: u64,
    noted: u64,
}

/// A document after `LspClient::sync`, and whether that call opened it.
pub(super) struct Synced {
    pub document: Document,
    pub opened: bool,
}

/// What a client keeps about documents and the disk.
#[derive(Debug, Default)]
pub(super) struct Documents {
    open: tokio::sync::Mutex<FastMap<PathBuf, Document>>,
    /// Syncs so far, to tell the least recently used document.
    syncs: std::sync::atomic::AtomicU64,
    /// Files changed on disk since the last request (the file watcher says
    /// so): the open ones among them are synchronised before the next one.
    changed_on_disk: Mutex<ChangedOnDisk>,
    /// Held while the noted changes are synchronised: a request made
    /// meanwhile waits for them, rather than finding the noted set already
    /// taken and asking about documents the server still has old.
    syncing_changed: tokio::sync::Mutex<()>,
    /// When the server was last told of changed files (didChangeWatchedFiles).
    announced_at: Mutex<Option<Instant>>,
    /// Changes to the server's files so far: those the file watcher told
    /// of, and the changed texts syncs sent.
    disk: Mutex<DiskChanges>,
    /// Line indexes of files not open, as last read from the disk.
    disk_indexes: DiskIndexes,
    /// The batches of changed files handed to this client so far (see
    /// `note_changed`), whichever files: a document found current before
    /// the last one may not be now.
    noted: std::sync::atomic::AtomicU64,
}

/// The line indexes of files read from the disk, each kept while its file
/// keeps its stamp (see `fs::stamped`).
#[derive(Debug)]
struct DiskIndexes(Arc<DiskIndexCache>);

/// Line indexes of files as on disk, by path. The key is the path's bytes:
/// a `Path` is hashed and compared component by component, which was a
/// tenth of a references answer's own time through 168 files of the
/// TypeScript SDK. (A path spelled two ways is only looked up twice.)
pub(super) type DiskIndexCache = StampedCache<OsString, LineIndex>;

impl Default for DiskIndexes {
    fn default() -> Self {
        DiskIndexes(Arc::new(StampedCache::new(MAX_DISK_INDEX_BYTES)))
    }
}

/// Changes on disk to files of the server's language (see `disk_changes`).
#[derive(Debug, Default)]
struct DiskChanges {
    /// How many were noted so far.
    count: u64,
    /// Whether a watcher covered the workspace at the last request (else
    /// changes may have gone unnoted).
    watched: bool,
}

/// The files noted as changed on disk since the last request.
#[derive(Debug, Default)]
struct ChangedOnDisk {
    paths: FastSet<PathBuf>,
    /// Too many to list: every open document is synchronised.
    all: bool,
}

impl LspClient {
    /// Makes the server's copy of `path` match the file on disk: opens it,
    /// or sends the new text, or closes it when it is gone. Answers are
    /// never computed from text older than the file.
    pub(super) async fn sync(&self, path: &Path) -> Result<Synced, LspError> {
        let watched = lock(&self.documents.disk).watched;
        self.sync_from_disk(path, watched).await
    }

    /// [`LspClient::sync`]; `by_stamp`: a document whose file keeps the
    /// stamp of its last read is taken as the disk holds it, without a read
    /// (the blocking pool's, a thread switch) or a comparison. Only while
    /// the watcher covers the workspace: where the platform gives no
    /// status change time (see `fs::stamped`), a file rewritten with its
    /// length and time kept has the stamp of its last read, and only the
    /// watcher tells of it (`sync_changed` reads those).
    async fn sync_from_disk(&self, path: &Path, by_stamp: bool) -> Result<Synced, LspError> {
        // Taken before the stamp, as the stamp is before the read.
        let ticket = self.ticket(path);
        if by_stamp
            && let Some(ticket) = ticket
            && let Some(synced) = self.vouched(path, ticket).await
        {
            return Ok(synced);
        }
        // Taken before the read, as every stamp is.
        let stamp = Stamp::read(path).filter(Stamp::is_settled);
        // Kept as `disk` is, with a settled stamp only (a precaution: the
        // watcher tells of a write within the clock's tick), and not for a
        // symlink (a write to its target is not heard in its folder).
        let vouch = ticket.filter(|_| stamp.is_some() && !is_symlink(path));
        if let Some(stamp) = stamp.filter(|_| by_stamp) {
            let mut documents = self.documents.open.lock().await;
            if let Some(document) = documents.get_mut(path)
                && document.disk == Some(stamp)
            {
                document.used = 1 + self
                    .documents
                    .syncs
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                document.vouch = vouch;
                return Ok(Synced {
                    document: document.clone(),
                    opened: false,
                });
            }
        }
        let text = match tokio::fs::read(path).await {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => {
                return Err(LspError::Io {
                    detail: format!("{}: {err}", path.display()),
                });
            }
        };
        let mut documents = self.documents.open.lock().await;
        let Some(text) = text else {
            if let Some(old) = documents.remove(path) {
                self.notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
                    text_document: TextDocumentIdentifier {
                        uri: old.uri.clone(),
                    },
                })?;
                self.announce_changes(&[FileChange {
                    path: path.to_path_buf(),
                    kind: ChangeKind::Deleted,
                    folder: false,
                }])?;
            }
            return Err(LspError::Io {
                detail: format!("{} does not exist", path.display()),
            });
        };
        let sent_at = self.shared.state().publish_count;
        let now = 1 + self
            .documents
            .syncs
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some(document) = documents.get_mut(path) {
            document.used = now;
            document.disk = stamp;
            document.vouch = vouch;
            if document.index.text() == text {
                return Ok(Synced {
                    document: document.clone(),
                    opened: false,
                });
            }
            document.version += 1;
            document.index = Arc::new(LineIndex::new(&text));
            document.sent_at = sent_at;
            document.changed_at = sent_at;
            // A change of the project's, whether or not the watcher has
            // told of it yet (see `disk_changes`).
            lock(&self.documents.disk).count += 1;
            self.notify::<DidChangeTextDocument>(DidChangeTextDocumentParams {
                text_document: VersionedTextDocumentIdentifier {
                    uri: document.uri.clone(),
                    version: document.version,
                },
                content_changes: vec![TextDocumentContentChangeEvent {
                    range: None,
                    range_length: None,
                    text,
                }],
            })?;
            // The new text is what the disk holds, so it is saved: servers
            // that check on save (rust-analyzer's cargo check) run now.
            if self.supports(Feature::SaveNotifications) {
                self.notify_saved(&document.uri)?;
            }
            return Ok(Synced {
                document: document.clone(),
                opened: false,
            });
        }
        let uri = Url::from_file_path(path).map_err(|()| LspError::Io {
            detail: format!("{} is not an absolute path", path.display()),
        })?;
        let document = Document {
            path: path.to_path_buf(),
            uri: uri.clone(),
            version: 1,
            index: Arc::new(LineIndex::new(&text)),
            sent_at,
            changed_at: 0,
            used: now,
            disk: stamp,
            vouch,
        };
        if documents.len() >= MAX_OPEN_DOCUMENTS {
            self.close_least_used(&mut documents)?;
        }
        self.notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
            text_document: TextDocumentItem {
                uri,
                language_id: self.language.language_id_for(path).to_string(),
                version: 1,
                text,
            },
        })?;
        documents.insert(path.to_path_buf(), document.clone());
        Ok(Synced {
            document,
            opened: true,
        })
    }

    /// Whether the server has `path` open.
    pub(super) async fn is_open(&self, path: &Path) -> bool {
        self.documents.open.lock().await.contains_key(path)
    }

    /// `path`, which the server does not have open, as it has the file
    /// without opening it: the file's text on disk, for a question a
    /// server answers from its copy of the files the watcher keeps current
    /// (a pull of diagnostics, see `pulls_unopened`). Not opened, so not
    /// closed again: each file a workspace report opened and closed had
    /// rust-analyzer publish its diagnostics anew.
    pub(super) async fn unopened(&self, path: &Path) -> Result<Synced, LspError> {
        let uri = Url::from_file_path(path).map_err(|()| LspError::Io {
            detail: format!("{} is not an absolute path", path.display()),
        })?;
        let Some(index) = self
            .line_indexes([path.to_path_buf()])
            .await
            .remove(path)
            .flatten()
        else {
            return Err(LspError::Io {
                detail: format!("{} could not be read", path.display()),
            });
        };
        Ok(Synced {
            document: Document {
                path: path.to_path_buf(),
                uri,
                // Not a version the server was sent: it has none for a file
                // it reads from the disk.
                version: 0,
                index,
                sent_at: self.shared.state().publish_count,
                changed_at: 0,
                used: 0,
                disk: None,
                vouch: None,
            },
            opened: false,
        })
    }

    /// Closes `path` if the server has it open: a document opened for one
    /// answer only (a workspace report) is not kept.
    pub(super) async fn close(&self, path: &Path) -> Result<(), LspError> {
        // Told under the lock, so a `sync` of the same file cannot send its
        // didOpen between our removal and our didClose.
        let mut documents = self.documents.open.lock().await;
        let Some(document) = documents.remove(path) else {
            return Ok(());
        };
        self.notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
            text_document: TextDocumentIdentifier { uri: document.uri },
        })
    }

    /// Closes the least recently used of `documents` (told under their
    /// lock, as `close` does).
    fn close_least_used(&self, documents: &mut FastMap<PathBuf, Document>) -> Result<(), LspError> {
        let Some(path) = documents
            .values()
            .min_by_key(|document| document.used)
            .map(|document| document.path.clone())
        else {
            return Ok(());
        };
        let Some(document) = documents.remove(&path) else {
            return Ok(());
        };
        self.notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
            text_document: TextDocumentIdentifier { uri: document.uri },
        })
    }

    /// `didSave` for a document whose text is what the disk holds.
    pub(super) fn notify_saved(&self, uri: &Url) -> Result<(), LspError> {
        self.count_save();
        self.notify::<DidSaveTextDocument>(DidSaveTextDocumentParams {
            text_document: TextDocumentIdentifier { uri: uri.clone() },
            text: None,
        })
    }

    /// Notes a save, or another request for a check (see
    /// `quirks::check_on_save`): a check begun before it does not hold
    /// what the disk holds now.
    pub(super) fn count_save(&self) {
        let mut state = self.shared.state();
        state.saves += 1;
        state.last_save = Some((state.progress_begun, std::time::Instant::now()));
    }

    /// Tells the server of the files created, changed or deleted on disk
    /// that its registered watchers cover (none unless it registered some).
    pub(super) fn announce_changes(&self, changes: &[FileChange]) -> Result<(), LspError> {
        let events: Vec<FileEvent> = changes
            .iter()
            .filter(|change| self.shared.watches(change))
            .filter_map(|change| {
                let uri = Url::from_file_path(&change.path).ok()?;
                let typ = match change.kind {
                    ChangeKind::Created => FileChangeType::CREATED,
                    ChangeKind::Changed => FileChangeType::CHANGED,
                    ChangeKind::Deleted => FileChangeType::DELETED,
                };
                Some(FileEvent { uri, typ })
            })
            .collect();
        if events.is_empty() {
            return Ok(());
        }
        *lock(&self.documents.announced_at) = Some(Instant::now());
        self.notify::<DidChangeWatchedFiles>(DidChangeWatchedFilesParams { changes: events })
    }

    /// Counts the changes to the project's files among `changes` (a folder
    /// deleted may have held some).
    pub(super) fn count_disk_changes(&self, changes: &[FileChange]) {
        let ours = changes
            .iter()
            .filter(|c| c.folder || self.language.is_project_file(&c.path))
            .count();
        lock(&self.documents.disk).count += ours as u64;
    }

    /// A count of the changes on disk to the project's files (its
    /// language's sources and root markers) the file watcher has told of;
    /// `None` when no watcher covered the workspace at the last request,
    /// so only a look at the disk tells whether the project changed.
    pub(in crate::lsp) fn disk_changes(&self) -> Option<u64> {
        let disk = lock(&self.documents.disk);
        disk.watched.then_some(disk.count)
    }

    /// How much of `settle` is left since the server was last told of
    /// changed files; `None` once it has passed.
    pub(super) fn settling(&self, settle: Duration) -> Option<Duration> {
        let announced = (*lock(&self.documents.announced_at))?;
        settle
            .checked_sub(announced.elapsed())
            .filter(|left| !left.is_zero())
    }

    /// Notes files that changed on disk (see `sync_changed`).
    pub(super) fn note_changed(&self, paths: impl IntoIterator<Item = PathBuf>) {
        // Before the changes are handed on: a document found current
        // before them is looked at again (see `vouched`).
        self.documents
            .noted
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let paths: FastSet<PathBuf> = paths.into_iter().collect();
        self.documents
            .disk_indexes
            .0
            .forget(|path| paths.contains(Path::new(path)));
        let mut changed = lock(&self.documents.changed_on_disk);
        if !changed.all {
            changed.paths.extend(paths);
            if changed.paths.len() > MAX_NOTED_CHANGES {
                *changed = ChangedOnDisk {
                    paths: FastSet::default(),
                    all: true,
                };
            }
        }
    }

    /// The open document of `path` where the file watcher vouches for it
    /// (`now`, its ticket just taken): it was found current while the
    /// watcher heard the file, which it still hears under the same watch,
    /// and no change was handed to the client since (any file's: a look at
    /// the set of noted paths would race with `sync_changed` taking it). Spares the `stat` of every request's
    /// document, a path lookup on a kernel cache gone cold while the
    /// server worked. Not vouched for: a write the file's folder does not
    /// hear (through a hard link elsewhere, or a shared mapping), as the
    /// kept values of `fs::stamped` are not.
    async fn vouched(&self, path: &Path, now: Ticket) -> Option<Synced> {
        let mut documents = self.documents.open.lock().await;
        let document = documents.get_mut(path)?;
        if document.vouch != Some(now) {
            return None;
        }
        document.used = 1 + self
            .documents
            .syncs
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(Synced {
            document: document.clone(),
            opened: false,
        })
    }

    /// The file watcher's ticket for `path` now; `None` where it does not
    /// hear it (no watcher, a folder not watched, events waiting to go
    /// out or going out). The watcher is asked first, the count read
    /// after: a hand-out's changes are noted (`note_changed`) while
    /// `hears` says one is under way, so a count read after it includes
    /// every hand-out before it.
    fn ticket(&self, path: &Path) -> Option<Ticket> {
        let watch = self.heard.get()?.hears(path)?;
        let noted = self
            .documents
            .noted
            .load(std::sync::atomic::Ordering::SeqCst);
        Some(Ticket { watch, noted })
    }

    /// Synchronises the open documents noted as changed on disk (a deleted
    /// one is closed); every open document when `all`, for when no file
    /// watcher notes changes. The caller's own document too: a request made
    /// meanwhile about another file waits for all of them (see
    /// `syncing_changed`), and the caller's own sync after is then free.
    pub(super) async fn sync_changed(&self, all: bool) {
        lock(&self.documents.disk).watched = !all;
        let _turn = self.documents.syncing_changed.lock().await;
        let noted = std::mem::take(&mut *lock(&self.documents.changed_on_disk));
        let open = self.open_documents().await;
        for path in open
            .into_iter()
            .filter(|p| all || noted.all || noted.paths.contains(p))
        {
            let _ = self.sync_from_disk(&path, false).await;
        }
    }

    /// The line index of `uri` as the server sees it: the open document's,
    /// else the file on disk's; `None` when it cannot be read.
    pub(super) async fn line_index(&self, uri: &Url) -> Option<Arc<LineIndex>> {
        let path = url_path(uri)?;
        self.line_indexes([path.clone()])
            .await
            .remove(&path)
            .flatten()
    }

    /// The line indexes of the files at `paths`, each as `line_index` gives
    /// it. The files not open are read in one blocking task: an answer
    /// pointing into many files would otherwise pay a thread hand-off per
    /// file.
    pub(super) async fn line_indexes(
        &self,
        paths: impl IntoIterator<Item = PathBuf>,
    ) -> FastMap<PathBuf, Option<Arc<LineIndex>>> {
        // Sized at once for the paths given (an answer may name hundreds
        // of files; some give a path for each location, repeats and all).
        // A `Vec` given is taken as it is.
        let paths: Vec<PathBuf> = paths.into_iter().collect();
        let mut indexes = FastMap::with_capacity_and_hasher(paths.len(), Default::default());
        let mut unread = FastSet::default();
        let watch = self.heard.get().map(|heard| heard as &dyn Watch);
        {
            // The open document's, else a kept one (a `stat` each, but
            // where the file watcher hears the file), all looked up at
            // once: only the files to read go to the blocking pool, a
            // thread switch.
            let documents = self.documents.open.lock().await;
            let mut on_disk: Vec<PathBuf> = Vec::with_capacity(paths.len());
            for path in paths {
                if indexes.contains_key(&path) {
                    continue;
                }
                match documents.get(&path) {
                    Some(document) => {
                        indexes.insert(path, Some(Arc::clone(&document.index)));
                    }
                    None => on_disk.push(path),
                }
            }
            // Each once (an answer may give a path for each location).
            let first: Vec<bool> = {
                let mut seen = FastSet::default();
                on_disk
                    .iter()
                    .map(|path| seen.insert(path.as_os_str()))
                    .collect()
            };
            let mut first = first.into_iter();
            on_disk.retain(|_| first.next().unwrap_or(false));
            let files: Vec<(&std::ffi::OsStr, &Path)> = on_disk
                .iter()
                .map(|path| (path.as_os_str(), path.as_path()))
                .collect();
            let kept = self.documents.disk_indexes.0.get_fresh_all(&files, watch);
            for (path, kept) in on_disk.into_iter().zip(kept) {
                match kept {
                    Ok(index) => {
                        indexes.insert(path, Some(index));
                    }
                    Err(_) => {
                        unread.insert(path);
                    }
                }
            }
        }
        if !unread.is_empty() {
            let kept = Arc::clone(&self.documents.disk_indexes.0);
            let read = tokio::task::spawn_blocking(move || {
                unread
                    .into_iter()
                    .map(|path| {
                        let index = disk_index(&kept, &path);
                        (path, index)
                    })
                    .collect::<Vec<_>>()
            })
            .await
            .unwrap_or_default();
            indexes.extend(read);
        }
        indexes
    }

    /// Its kept line indexes of files as on disk (see `disk_index`).
    pub(super) fn disk_indexes(&self) -> Arc<DiskIndexCache> {
        Arc::clone(&self.documents.disk_indexes.0)
    }

    /// Paths of the documents the server has open.
    pub async fn open_documents(&self) -> Vec<PathBuf> {
        self.documents.open.lock().await.keys().cloned().collect()
    }

    /// Reopens `paths` (the documents a crashed server had open).
    pub(super) async fn reopen(&self, paths: &[PathBuf]) {
        for path in paths {
            let _ = self.sync(path).await;
        }
    }
}

/// The line index of the file at `path` as the disk holds it: kept from an
/// earlier read while the file keeps its stamp, else read now (and kept);
/// a file that is not UTF-8 is read lossily, and not kept.
fn disk_index(kept: &DiskIndexCache, path: &Path) -> Option<Arc<LineIndex>> {
    match strict_disk_index(kept, None, path) {
        Ok(index) => index,
        Err(_) => {
            let bytes = std::fs::read(path).ok()?;
            Some(Arc::new(LineIndex::new(&String::from_utf8_lossy(&bytes))))
        }
    }
}

/// [`disk_index`] for a file about to be edited: its text exactly (an
/// error for one that is not UTF-8), `None` for one that does not exist.
/// A kept index of a file `watch` hears is taken without a `stat`.
pub(super) fn strict_disk_index(
    kept: &DiskIndexCache,
    watch: Option<&dyn Watch>,
    path: &Path,
) -> Result<Option<Arc<LineIndex>>, String> {
    let stamp = match kept.get_fresh(path.as_os_str(), path, watch) {
        Ok(index) => return Ok(Some(index)),
        Err(stamp) => stamp,
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("{}: {err}", path.display())),
    };
    let text =
        String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))?;
    let index = Arc::new(LineIndex::new(&text));
    // The stamp is taken before the read: a write during the read leaves
    // the file with another stamp than the one kept, so it is read again.
    if let Some(stamp) = stamp {
        kept.put(path.into(), stamp, Arc::clone(&index), index.weight());
    }
    Ok(Some(index))
}
