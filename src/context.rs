//! What every tool call shares: the workspace sandbox, the language-server
//! supervisor, the symbol index, the log book, and the session's own
//! patches waiting to be applied, code actions listed, and mode.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use crate::error::ToolResult;
use crate::fs::patch::PatchStore;
use crate::fs::stamped::{StampedCache, Watch};
use crate::fs::workspace::Workspace;
use crate::index::{Indexed, SymbolIndex};
use crate::logbook::LogBook;
use crate::lsp::Supervisor;
use crate::lsp::config::Config;
use crate::model::{InstanceState, OutlineSymbol, Position};
use crate::sync::lock;
use crate::syntax::SourceFile;
use crate::tools::audit;

/// One MCP session's view of the workspace: the shared parts (one per
/// sextant process, shared by every session a shared instance or the HTTP
/// transport serves) and the session's own (its mode, its patches).
pub struct Context {
    pub workspace: Arc<Workspace>,
    pub lsp: Arc<Supervisor>,
    pub logs: Arc<LogBook>,
    /// The tree-sitter symbol index `search` falls back on.
    pub index: Arc<SymbolIndex>,
    /// The npm dependencies' declarations, for `search` with
    /// `include_external` (TypeScript's servers do not search them).
    pub dependencies: Arc<SymbolIndex>,
    /// Servers' outlines of files tree-sitter cannot parse whole.
    pub server_outlines: Arc<ServerOutlines>,
    /// What the text audit of references and renames found in the
    /// workspace's files, kept while they are unchanged.
    pub audit: Arc<audit::Kept>,
    /// Files as tree-sitter parsed them, by path, kept while each keeps
    /// its stamp: an answer that shows the lines and enclosing symbols of
    /// tens of files reads and hashes none of them again.
    pub parsed: Arc<StampedCache<PathBuf, SourceFile>>,
    /// The patches this session previewed: a patch id is applied only by
    /// the session that was shown it, so one agent never writes what
    /// another previewed.
    pub patches: PatchStore,
    /// The code actions `fix` listed to this session, so an action taken
    /// by its number is the one shown.
    pub fix_lists: FixLists,
    /// Writing tools are left out (`--read-only`).
    pub read_only: bool,
    /// The shared instance serving this session, when it is one.
    pub instance: Option<Arc<SharedInstance>>,
}

/// Servers' outlines of files tree-sitter cannot parse whole, each with
/// the text it was made from. An outline is the file's syntax, so an
/// unchanged file's is not asked for again: a call tree into the standard
/// library outlines the same large files on every call, and rust-analyzer
/// takes tens of milliseconds for each.
#[derive(Debug, Default)]
pub struct ServerOutlines(Mutex<HashMap<PathBuf, ServerOutline>>);

/// A kept server outline, with the parse whose text it was last found
/// equal to: the parse kept for an unchanged file is the same one call
/// after call, so a text of megabytes is compared once, not per call.
/// (A `Weak` keeps its allocation, so no other parse can take its place.)
#[derive(Debug)]
struct ServerOutline {
    outline: Arc<KeptOutline>,
    same_text_as: std::sync::Weak<crate::syntax::SourceFile>,
}

/// One server's outline of one file's text, with the text's line index:
/// a kept one is shared by every answer that outlines the file, not copied
/// and indexed again.
#[derive(Debug)]
pub struct KeptOutline {
    pub server: String,
    pub text: String,
    pub lines: crate::syntax::LineIndex,
    /// Filtered and nested as `read` shows them.
    pub symbols: Vec<OutlineSymbol>,
}

/// The source bytes of the parsed files kept by path (the parse cache
/// holds as many by content; the two share the parses).
const MAX_PARSED_BYTES: usize = crate::syntax::cache::MAX_SOURCE_BYTES;

/// How many files' server outlines are kept (all are forgotten past it).
const SERVER_OUTLINES_KEPT: usize = 256;

impl ServerOutlines {
    /// The outline kept for `path`, if it was made from the text of
    /// `parsed`.
    pub fn get(
        &self,
        path: &Path,
        parsed: &Arc<crate::syntax::SourceFile>,
    ) -> Option<Arc<KeptOutline>> {
        let mut kept = lock(&self.0);
        let kept = kept.get_mut(path)?;
        if kept.same_text_as.as_ptr() != Arc::as_ptr(parsed) {
            if kept.outline.text != parsed.text() {
                return None;
            }
            kept.same_text_as = Arc::downgrade(parsed);
        }
        Some(Arc::clone(&kept.outline))
    }

    pub fn keep(&self, path: &Path, outline: Arc<KeptOutline>) {
        let mut kept = lock(&self.0);
        if kept.len() >= SERVER_OUTLINES_KEPT && !kept.contains_key(path) {
            kept.clear();
        }
        let outline = ServerOutline {
            outline,
            same_text_as: std::sync::Weak::new(),
        };
        kept.insert(path.to_path_buf(), outline);
    }
}

/// How many places' lists of code actions a session keeps (the newest).
const FIX_LISTS_KEPT: usize = 64;

/// The code actions listed at each place, with a hash of the file's text
/// then: an action number taken later names the action shown only while
/// the file is unchanged and the list the same.
#[derive(Debug, Default)]
pub struct FixLists {
    lists: Mutex<std::collections::VecDeque<FixListed>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixListed {
    pub path: PathBuf,
    pub position: Position,
    pub text_hash: u64,
    pub titles: Vec<String>,
}

impl FixLists {
    /// Keeps `listed`, in place of an older list of the same place.
    pub fn keep(&self, listed: FixListed) {
        let mut lists = lock(&self.lists);
        lists.retain(|l| (&l.path, l.position) != (&listed.path, listed.position));
        lists.push_back(listed);
        while lists.len() > FIX_LISTS_KEPT {
            lists.pop_front();
        }
    }

    /// The list last shown for the place, if any.
    pub fn shown(&self, path: &std::path::Path, position: Position) -> Option<FixListed> {
        lock(&self.lists)
            .iter()
            .find(|l| l.path == path && l.position == position)
            .cloned()
    }
}

impl Context {
    pub fn new(workspace: Workspace, config: Config, read_only: bool) -> Context {
        let logs = Arc::new(LogBook::default());
        let lsp = Supervisor::new(config, workspace.root(), Arc::clone(&logs));
        let index = Arc::new(SymbolIndex::new(Indexed::Workspace));
        let dependencies = Arc::new(SymbolIndex::new(Indexed::NpmDependencies));
        let audit = Arc::new(audit::Kept::default());
        let parsed = Arc::new(StampedCache::new(MAX_PARSED_BYTES));
        let listening = [Arc::clone(&index), Arc::clone(&dependencies)];
        let (audited, kept_parsed) = (Arc::clone(&audit), Arc::clone(&parsed));
        let plain = workspace.plain_paths();
        lsp.on_file_changes(Box::new(move |paths| {
            plain.forget(paths.iter().map(PathBuf::as_path));
            for index in &listening {
                index.note_changed(paths.iter().map(PathBuf::as_path));
            }
            audited.note_changed(paths);
            let written: std::collections::HashSet<&PathBuf> = paths.iter().collect();
            kept_parsed.forget(|path| written.contains(path));
        }));
        Context {
            lsp: Arc::new(lsp),
            workspace: Arc::new(workspace),
            logs,
            index,
            dependencies,
            server_outlines: Arc::default(),
            audit,
            parsed,
            patches: PatchStore::default(),
            fix_lists: FixLists::default(),
            read_only,
            instance: None,
        }
    }

    /// A path given to read, resolved (see `Workspace::resolve_read`): one
    /// found to be its own real path before is taken as it is while the
    /// file watcher hears it (see `fs::plain`).
    pub fn resolve_read(&self, input: &str) -> ToolResult<PathBuf> {
        let heard = self.lsp.heard();
        self.workspace
            .resolve_read_heard(input, heard.as_ref().map(|heard| heard as &dyn Watch))
    }

    /// Another session over the same workspace, servers and indexes, with
    /// its own mode and patches.
    pub fn session(&self, read_only: bool) -> Context {
        Context {
            workspace: Arc::clone(&self.workspace),
            lsp: Arc::clone(&self.lsp),
            logs: Arc::clone(&self.logs),
            index: Arc::clone(&self.index),
            dependencies: Arc::clone(&self.dependencies),
            server_outlines: Arc::clone(&self.server_outlines),
            audit: Arc::clone(&self.audit),
            parsed: Arc::clone(&self.parsed),
            patches: PatchStore::default(),
            fix_lists: FixLists::default(),
            read_only,
            instance: self.instance.clone(),
        }
    }
}

/// A shared instance's sessions over time: how many are attached, and how
/// long it has had none (it ends after `idle_exit` of that).
#[derive(Debug)]
pub struct SharedInstance {
    started: Instant,
    idle_exit: Duration,
    log: PathBuf,
    tally: Mutex<Tally>,
    changed: Notify,
}

#[derive(Debug)]
struct Tally {
    sessions: usize,
    /// When the count last changed.
    since: Instant,
    /// No session has come yet.
    waiting_for_first: bool,
}

/// How long a new instance waits for its first session however short its
/// idle time: the relay that started it connects a moment later.
const FIRST_SESSION_WAIT: Duration = Duration::from_secs(30);

impl SharedInstance {
    pub fn new(idle_exit: Duration, log: PathBuf) -> SharedInstance {
        let now = Instant::now();
        SharedInstance {
            started: now,
            idle_exit,
            log,
            tally: Mutex::new(Tally {
                sessions: 0,
                since: now,
                waiting_for_first: true,
            }),
            changed: Notify::new(),
        }
    }

    pub fn session_began(&self) {
        let mut tally = lock(&self.tally);
        tally.sessions += 1;
        tally.since = Instant::now();
        tally.waiting_for_first = false;
        self.changed.notify_waiters();
    }

    pub fn session_ended(&self) {
        let mut tally = lock(&self.tally);
        tally.sessions = tally.sessions.saturating_sub(1);
        tally.since = Instant::now();
        self.changed.notify_waiters();
    }

    /// Returns once the instance has had no session for its idle time.
    pub async fn idle_elapsed(&self) {
        loop {
            let changed = self.changed.notified();
            let idle_until = {
                let tally = lock(&self.tally);
                let wait = if tally.waiting_for_first {
                    self.idle_exit.max(FIRST_SESSION_WAIT)
                } else {
                    self.idle_exit
                };
                (tally.sessions == 0).then(|| tally.since + wait)
            };
            match idle_until {
                Some(until) => tokio::select! {
                    () = tokio::time::sleep_until(until.into()) => return,
                    () = changed => {}
                },
                None => changed.await,
            }
        }
    }

    pub fn state(&self) -> InstanceState {
        let tally = lock(&self.tally);
        InstanceState {
            pid: std::process::id(),
            sessions: tally.sessions,
            uptime_secs: self.started.elapsed().as_secs(),
            idle_exit_secs: self.idle_exit.as_secs(),
            idle_secs: (tally.sessions == 0).then(|| tally.since.elapsed().as_secs()),
            log: self.log.clone(),
        }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("root", &self.workspace.root())
            .field("read_only", &self.read_only)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paths found to be their own real path (`fs::plain`) are
    /// forgotten at the changes the file watcher hands out to the context:
    /// a file replaced by a symlink out of the root is refused once the
    /// change is heard, where the path kept would be taken as it was.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_path_kept_plain_is_refused_once_the_watcher_hears_it_lead_out() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        crate::fs::write_test_file(dir.path(), "src/a.rs", "");
        crate::fs::write_test_file(outside.path(), "a.rs", "");
        let workspace = Workspace::new(dir.path(), &[]).unwrap();
        let file = workspace.root().join("src/a.rs");
        let ctx = Context::new(workspace, crate::lsp::config::Config::built_in(), false);
        ctx.lsp.watch_files();
        let deadline = Instant::now() + Duration::from_secs(10);
        let heard = loop {
            if let Some(heard) = ctx.lsp.heard()
                && heard.hears(&file).is_some()
            {
                break heard;
            }
            assert!(
                Instant::now() < deadline,
                "the watcher never heard the file"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        assert_eq!(ctx.resolve_read("src/a.rs").unwrap(), file);
        assert!(ctx.workspace.plain_paths().holds(&file, Some(&heard)));
        std::fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(outside.path().join("a.rs"), &file).unwrap();
        // The change reaches the watcher, waits for its pause, goes out.
        tokio::time::sleep(Duration::from_millis(200)).await;
        while heard.hears(&file).is_none() {
            assert!(Instant::now() < deadline, "the change never went out");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let refused = ctx.resolve_read("src/a.rs").unwrap_err();
        assert_eq!(refused.code, crate::error::ErrorCode::OutsideRoot);
    }

    fn outline(text: &str) -> Arc<KeptOutline> {
        Arc::new(KeptOutline {
            server: "a-server".into(),
            text: text.into(),
            lines: crate::syntax::LineIndex::new(text),
            symbols: Vec::new(),
        })
    }

    fn parse(text: &str) -> Arc<crate::syntax::SourceFile> {
        let rust = crate::syntax::Language::from_path(Path::new("a.rs")).unwrap();
        crate::syntax::parse(rust, text.to_string())
    }

    #[test]
    fn a_server_outline_is_kept_for_its_text_only() {
        let kept = ServerOutlines::default();
        let path = Path::new("/w/a.rs");
        kept.keep(path, outline("fn a() {}"));
        let a = parse("fn a() {}");
        // Found equal once, the same parse is remembered (and not compared
        // again); another parse is compared.
        assert!(kept.get(path, &a).is_some());
        let remembered = |parsed: &Arc<crate::syntax::SourceFile>| {
            lock(&kept.0)[path].same_text_as.as_ptr() == Arc::as_ptr(parsed)
        };
        assert!(remembered(&a));
        assert!(kept.get(path, &a).is_some());
        let same_text = parse("fn a() {}");
        assert!(kept.get(path, &same_text).is_some());
        assert!(remembered(&same_text));
        assert!(
            kept.get(path, &parse("fn b() {}")).is_none(),
            "the file changed"
        );
        assert!(kept.get(path, &parse("fn a() {}")).is_some());
        assert!(kept.get(Path::new("/w/b.rs"), &a).is_none());
        kept.keep(path, outline("fn b() {}"));
        assert!(kept.get(path, &a).is_none(), "kept anew, compared anew");
        let b = parse("fn b() {}");
        assert!(kept.get(path, &b).is_some());
        // The parse it was found equal to gone, a new one of another text
        // cannot pass for it.
        drop(b);
        for _ in 0..8 {
            assert!(kept.get(path, &parse("fn c() {}")).is_none());
        }
    }

    #[test]
    fn server_outlines_kept_are_bounded() {
        let kept = ServerOutlines::default();
        for i in 0..=SERVER_OUTLINES_KEPT {
            kept.keep(&PathBuf::from(format!("/w/{i}.rs")), outline("x"));
        }
        assert!(lock(&kept.0).len() <= SERVER_OUTLINES_KEPT);
        let last = PathBuf::from(format!("/w/{SERVER_OUTLINES_KEPT}.rs"));
        assert!(kept.get(&last, &parse("x")).is_some(), "the newest is kept");
    }
}
