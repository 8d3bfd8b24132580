//! The workspace's projects: which folder roots a file's server (the
//! outermost one with a root marker), one file of each (language, project)
//! for the requests that reach every server (search), one file of each
//! project a server searches only while it has a file of it open
//! (`project_files`: a `tsconfig.json`), and the waits for a server to have
//! loaded them, where it loads them after answering (see
//! `quirks::tsserver`).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::client::LspClient;
use super::config::{Config, LanguageConfig};
use super::documents::Document;
use super::quirks::cargo_features;
use super::quirks::tsconfig::{self, Chosen};
use super::quirks::tsserver;
use super::supervisor::Supervisor;
use super::watch::{ChangeKind, FileChange};
use crate::fs::memo::Memo;
use crate::fs::stamped::Watch;
use crate::fs::walk;
use crate::sync::lock;

/// What a server's checks of some files leave out
/// ([`Supervisor::coverage`]).
#[derive(Debug, Default)]
pub struct Coverage {
    /// Files in no project of their server.
    pub outside: Vec<PathBuf>,
    /// The configs that would make them part of one, as the user writes
    /// them (`tsconfig*.json`).
    pub configs: &'static str,
    /// Files their server checks for syntax only (JavaScript its project
    /// does not type-check), whether in a project or not.
    pub syntax_only: Vec<PathBuf>,
    /// How to have those checked fully.
    pub full_checking: &'static str,
    /// Files of targets the project's build leaves out (a cargo target
    /// whose `required-features` are off), each with why.
    pub unbuilt: Vec<(PathBuf, String)>,
    /// Files no entry of their compilation database compiles (headers,
    /// sources the build leaves out), checked alone with a neighbour's
    /// flags, and the database's file name.
    pub not_compiled: Vec<PathBuf>,
    pub database: String,
}

/// One file per (language, project root): the language's name and the file.
pub(super) type Projects = Vec<(String, PathBuf)>;

/// What walks of the workspace found out about its projects, kept until
/// the file watcher sees a change that can alter it
/// ([`forget_projects_if_changed`]).
#[derive(Default)]
pub(super) struct Known {
    /// One file per (language, project root) (see `Supervisor::projects`).
    files: Option<Projects>,
    /// The TypeScript configs as read, for [`Supervisor::coverage`].
    typescript: Option<Arc<tsconfig::ConfigSet>>,
    /// The cargo targets the workspace's build leaves out, likewise.
    unbuilt: Option<Arc<Vec<cargo_features::Unbuilt>>>,
}

/// How long a request waits for a server to load the project of a document
/// it was just given, or every project it was given a file of.
pub const PROJECT_LOAD_WAIT: Duration = Duration::from_secs(10);

/// How long after opening its projects a server is waited for to load
/// them, over all requests: a project that never loads (its file never
/// gets its sign) must not stall every later request, which then answers
/// at once, with its note.
pub const PROJECTS_LOAD_BUDGET: Duration = Duration::from_secs(60);

/// The files `Supervisor::open_projects` opened for a server, one per
/// project, added to as requests need more projects, and whether the
/// server has been seen to load all their projects (see
/// [`projects_loaded`]).
#[derive(Debug, Default)]
pub(super) struct OpenedProjects {
    /// One opening at a time.
    turn: tokio::sync::Mutex<()>,
    opened: Mutex<Opened>,
    /// The projects chosen for a file already asked about: finding them
    /// walks the workspace and reads every config and package.json (some
    /// 50 ms on a 150-project monorepo), the same for every question about
    /// that file until a file is created or deleted or a config changes.
    chosen: Mutex<std::collections::HashMap<PathBuf, Chosen>>,
    /// A task waits for them to load, left by a caller that could not.
    pub loading_behind: AtomicBool,
}

#[derive(Debug, Default, Clone)]
struct Opened {
    /// Each opened file's path, URI, and the server's publish count when
    /// it was sent (a publication after it is the sign).
    files: Vec<(PathBuf, lsp_types::Url, u64)>,
    /// When the last of them were opened.
    at: Option<tokio::time::Instant>,
    /// The server was seen to load every one of them.
    loaded: bool,
    /// Every project was opened: no request needs more.
    all: bool,
}

impl OpenedProjects {
    /// Whether any project was opened.
    pub fn any(&self) -> bool {
        !lock(&self.opened).files.is_empty()
    }

    /// Forgets the projects chosen for files when `changes` can change
    /// them: a file created or deleted, or a config or package.json
    /// changed.
    pub fn forget_choices_if_changed(&self, changes: &[FileChange]) {
        let moves = changes.iter().any(|change| {
            change.kind != ChangeKind::Changed
                || change.folder
                || change.path.extension().is_some_and(|e| e == "json")
        });
        if moves {
            lock(&self.chosen).clear();
        }
    }
}

impl Supervisor {
    /// The outermost folder above `path`, inside the workspace, holding one
    /// of the language's root markers; else the workspace root.
    ///
    /// Outermost, not nearest: the member crates of a cargo workspace and
    /// the packages under `node_modules` have markers of their own, and one
    /// server per member or package would each load the whole project
    /// again. rust-analyzer and tsserver both serve nested projects from
    /// the top (a crate's own Cargo.toml, a package's own tsconfig.json).
    ///
    /// Every request asks it, and it looks for each marker in each folder
    /// up to the root (15 `stat`s for a file of the TypeScript SDK, a tenth
    /// of a search's own time): a folder's is kept while the file watcher
    /// hears every change, until it hands out the next. Only a watched
    /// folder's (its way up walked and watched too): a marker written in
    /// a folder the watcher leaves out (ignored, hidden) is never heard.
    pub(super) fn project_root(&self, path: &Path, language: &LanguageConfig) -> PathBuf {
        let root = &self.workspace_root;
        let heard = || {
            self.heard()
                .is_some_and(|heard| heard.hears(path).is_some())
        };
        match path.parent() {
            Some(folder) if folder.starts_with(root) && self.hears_everything() && heard() => self
                .roots
                .get_or((language.name.clone(), folder.to_path_buf()), || {
                    outermost_root(root, path, language)
                }),
            _ => outermost_root(root, path, language),
        }
    }

    /// Opens one file of each project under `client`'s root that its
    /// language lists in `project_files` (a `tsconfig.json`) and that can
    /// see `seeing` (its own, and those of packages depending on it: see
    /// `quirks::tsconfig`), or of every project without it (a search), each
    /// once per server: tsserver and TypeScript 7's server search and find
    /// references only in the projects they have a file of open, and each
    /// project costs memory (tsserver aborts at node's heap limit). At most
    /// [`MAX_PROJECTS`]. Whether this call opened some.
    ///
    /// typescript-language-server loads a project some time after its file
    /// is opened, and answers meanwhile from what it has: ask
    /// [`projects_loaded`] before trusting a workspace-wide answer.
    ///
    /// Given `seeing`, at most the server's `max_projects`, nearest first;
    /// also answers the configs of those that can see the file but were
    /// left out.
    pub(super) async fn open_projects(
        &self,
        client: &Arc<LspClient>,
        seeing: Option<&Path>,
    ) -> (bool, Vec<PathBuf>) {
        let projects = &client.projects_opened;
        let _turn = projects.turn.lock().await;
        if open_first(client).await {
            return (true, Vec::new());
        }
        if lock(&projects.opened).all {
            return (false, Vec::new());
        }
        let (root, language) = (client.root.clone(), Arc::clone(&client.language));
        let about = seeing.map(Path::to_path_buf);
        // Every project's choice is kept under the root's path.
        let key = about.clone().unwrap_or_else(|| root.clone());
        let started = std::time::Instant::now();
        let known = lock(&projects.chosen).get(&key).cloned();
        let chosen = match known {
            Some(chosen) => chosen,
            None => {
                let chosen = tokio::task::spawn_blocking(move || {
                    project_files(&root, &language, about.as_deref())
                })
                .await
                .unwrap_or_default();
                lock(&projects.chosen).insert(key, chosen.clone());
                chosen
            }
        };
        let (files, left_out) = (chosen.files, chosen.left_out);
        client.shared.logs.record(
            crate::model::LogLevel::Debug,
            client.server(),
            format!(
                "{} projects to open, {} left out, found in {:.1} ms",
                files.len(),
                left_out.len(),
                started.elapsed().as_secs_f64() * 1000.0
            ),
        );
        let fresh: Vec<PathBuf> = {
            let opened = lock(&projects.opened);
            files
                .into_iter()
                .filter(|file| !opened.files.iter().any(|(path, _, _)| path == file))
                .collect()
        };
        // Every project opened: no later question needs more.
        if seeing.is_none() && left_out.is_empty() {
            lock(&projects.opened).all = true;
        }
        if fresh.is_empty() {
            return (false, left_out);
        }
        let mut sent = Vec::with_capacity(fresh.len());
        for file in fresh {
            if let Ok(synced) = client.sync(&file).await {
                sent.push((file, synced.document.uri, synced.document.sent_at));
            }
        }
        let mut opened = lock(&projects.opened);
        opened.files.extend(sent);
        opened.at = Some(tokio::time::Instant::now());
        opened.loaded = false;
        (true, left_out)
    }

    /// Of `paths`, the files in no project of their language's server:
    /// those it checks with its default settings, which the project's own
    /// check never sees (TypeScript files no `tsconfig*.json` includes);
    /// empty for languages that cannot tell, and for a workspace with no
    /// project configs at all. And the files it checks for syntax only
    /// (JavaScript without `checkJs` or `// @ts-check`).
    pub async fn coverage(&self, paths: &[PathBuf]) -> Coverage {
        let of = |applies: fn(&LanguageConfig) -> bool| -> Vec<PathBuf> {
            paths
                .iter()
                .filter(|path| self.config.language_for(path).is_some_and(applies))
                .cloned()
                .collect()
        };
        let typescript = of(tsconfig::applies);
        let cargo = of(|language| language.cargo_projects);
        // What the configs say is read by a walk of the workspace: kept
        // while the file watcher covers it (it forgets them on a change
        // that can alter them), read afresh otherwise.
        let watched = self.flush_changes().await;
        let mut coverage = Coverage::default();
        if !typescript.is_empty() {
            let configs = self
                .known(watched, |k| &mut k.typescript, tsconfig::ConfigSet::read)
                .await;
            let (outside, syntax_only) = configs.coverage(&typescript);
            coverage = Coverage {
                outside,
                configs: tsconfig::CONFIGS,
                syntax_only,
                full_checking: tsconfig::TYPE_CHECKING,
                ..Coverage::default()
            };
        }
        if !cargo.is_empty() {
            let targets = self
                .known(watched, |k| &mut k.unbuilt, cargo_features::unbuilt)
                .await;
            coverage.unbuilt = cargo
                .into_iter()
                .filter_map(|path| {
                    let target = targets.iter().find(|t| t.holds(&path))?;
                    Some((path, target.why.clone()))
                })
                .collect();
        }
        // A file its server's compilation database does not compile, once
        // that server runs (it has, for a file asked about).
        for path in of(|language| language.compile_database.is_some()) {
            let (Some(compiled), Some(language)) =
                (self.compiled_files(&path), self.config.language_for(&path))
            else {
                continue;
            };
            let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
            if !compiled.contains(&canonical)
                && let Some(spec) = &language.compile_database
            {
                coverage.database.clone_from(&spec.file);
                coverage.not_compiled.push(path);
            }
        }
        coverage
    }

    /// What `read` finds walking the workspace from its root: as known, or
    /// read now (off the async threads) and kept where `keep`. A read that
    /// failed (its thread panicked) finds nothing and is not kept.
    async fn known<T: Default + Send + Sync + 'static>(
        &self,
        keep: bool,
        field: fn(&mut Known) -> &mut Option<Arc<T>>,
        read: fn(&Path) -> T,
    ) -> Arc<T> {
        if keep && let Some(known) = field(&mut lock(&self.projects)).clone() {
            return known;
        }
        let root = self.workspace_root.clone();
        let Ok(found) = tokio::task::spawn_blocking(move || read(&root)).await else {
            return Arc::default();
        };
        let found = Arc::new(found);
        if keep {
            *field(&mut lock(&self.projects)) = Some(Arc::clone(&found));
        }
        found
    }

    /// One file of each (language, project root) the workspace holds, in
    /// path order: asking for a session on each reaches every server a
    /// workspace-wide request (search) needs. Found by one walk on first
    /// use, .gitignore respected and dependency folders left out.
    pub async fn projects(&self) -> Vec<PathBuf> {
        if let Some(known) = lock(&self.projects).files.as_ref() {
            return known.iter().map(|(_, file)| file.clone()).collect();
        }
        let (root, config) = (self.workspace_root.clone(), self.config.clone());
        let found = tokio::task::spawn_blocking(move || {
            let mut seen = std::collections::HashSet::new();
            let mut found = Vec::new();
            for path in walk::sources(&root).sorted().files() {
                let Some(language) = config.language_for(&path) else {
                    continue;
                };
                let project = outermost_root(&root, &path, language);
                if seen.insert((language.name.clone(), project)) {
                    found.push((language.name.clone(), path));
                }
            }
            found
        })
        .await
        .unwrap_or_default();
        let files = found.iter().map(|(_, file)| file.clone()).collect();
        lock(&self.projects).files = Some(found);
        files
    }
}

/// Opens the file the server must see before it knows its project
/// (`opens_first`: clangd loads its compilation database when it opens
/// its first file), once, and waits for the work that starts (clangd's
/// background index) to be announced, so the readiness wait after this
/// sees it. Whether it opened the file.
async fn open_first(client: &LspClient) -> bool {
    let Some(file) = client.language.opens_first.as_ref() else {
        return false;
    };
    let opened = &client.projects_opened.opened;
    if lock(opened).files.iter().any(|(path, _, _)| path == file) {
        return false;
    }
    let begun = client.shared.state().progress_begun;
    let Ok(synced) = client.sync(file).await else {
        return false;
    };
    {
        let mut opened = lock(opened);
        opened
            .files
            .push((file.clone(), synced.document.uri, synced.document.sent_at));
        opened.at = Some(tokio::time::Instant::now());
        opened.loaded = false;
    }
    let announced = tokio::time::Instant::now() + WORK_ANNOUNCED_WAIT;
    client
        .wait_until(announced, || client.shared.state().progress_begun > begun)
        .await;
    true
}

/// How long a server that learns its project from its first open file
/// may take to announce the work that starts (clangd: a few ms; nothing,
/// with its index already up to date).
const WORK_ANNOUNCED_WAIT: Duration = Duration::from_secs(1);

/// Waits until the server has `document` in a loaded project, where that
/// is not so when it answers (typescript-language-server, see
/// `quirks::tsserver`); other servers load the project before they answer.
/// False when the wait ended without the sign (after
/// [`PROJECT_LOAD_WAIT`], or the server gone): an answer may then cover the
/// document alone. The wait ends at the sign, so its bound costs nothing on
/// a quick machine; on a loaded one tsserver has taken over 3 s.
pub(super) async fn document_loaded(client: &LspClient, document: &Document) -> bool {
    if !tsserver::applies(client) {
        return true;
    }
    let deadline = tokio::time::Instant::now() + PROJECT_LOAD_WAIT;
    let fresh = || {
        let state = client.shared.state();
        state
            .diagnostics
            .get(&document.uri)
            .is_some_and(|published| match published.version {
                Some(version) => version == document.version,
                None => published.sequence > document.sent_at,
            })
    };
    client.wait_until(deadline, fresh).await
}

/// Waits until the server has loaded every project
/// `Supervisor::open_projects` opened a file of: until then a search or
/// references answer covers some projects only. Once seen, it holds for
/// good (a file edited or closed later does not make its project
/// unloaded). False when `deadline` came first or the server is gone; true
/// at once when no projects were opened. Waits end
/// [`PROJECTS_LOAD_BUDGET`] after the projects were opened.
///
/// The sign: typescript-language-server's diagnostics published for each
/// opened file (see `quirks::tsserver`); for other servers, the answer to
/// a request sent after the files were opened. A server handles a
/// document's opening before the requests sent after it, and TypeScript
/// 7's server loads a file's project while it handles the opening, one at
/// a time: opening the 30 projects of a monorepo takes it seconds, and a
/// request made meanwhile waits behind them all.
pub(super) async fn projects_loaded(client: &LspClient, deadline: tokio::time::Instant) -> bool {
    let opened = lock(&client.projects_opened.opened).clone();
    let Some(at) = opened.at else {
        return true;
    };
    if opened.loaded {
        return true;
    }
    let deadline = deadline.min(at + PROJECTS_LOAD_BUDGET);
    let loaded = if tsserver::applies(client) {
        let all_published = || {
            opened
                .files
                .iter()
                .all(|(_, uri, sent_at)| tsserver::published_since(client, uri, *sent_at))
        };
        client.wait_until(deadline, all_published).await
    } else {
        match opened.files.last() {
            Some((_, uri, _)) => tokio::time::timeout_at(deadline, handled_before(client, uri))
                .await
                .is_ok(),
            None => true,
        }
    };
    if loaded {
        // Unless more were opened meanwhile.
        let mut now = lock(&client.projects_opened.opened);
        if now.files.len() == opened.files.len() {
            now.loaded = true;
        }
    }
    loaded
}

/// Resolves once the server has handled everything sent before this call:
/// it answers a request about `uri` (the last file opened) after handling
/// the notifications sent before it. A failed or refused request counts:
/// it was handled too.
async fn handled_before(client: &LspClient, uri: &lsp_types::Url) {
    use lsp_types::request::DocumentSymbolRequest;
    if !client.supports(super::capabilities::Feature::DocumentSymbols) {
        return;
    }
    let params = lsp_types::DocumentSymbolParams {
        text_document: lsp_types::TextDocumentIdentifier { uri: uri.clone() },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let _ = client
        .transport
        .request::<DocumentSymbolRequest>(params, client.language.request_timeout)
        .await;
}

/// The outermost folder above `path`, inside `workspace_root`, holding one
/// of the language's root markers; else the workspace root (see
/// `Supervisor::project_root`).
fn outermost_root(workspace_root: &Path, path: &Path, language: &LanguageConfig) -> PathBuf {
    let mut root = None;
    if path.starts_with(workspace_root) {
        for dir in path.ancestors().skip(1) {
            if !dir.starts_with(workspace_root) {
                break;
            }
            if language.root_markers.iter().any(|m| dir.join(m).exists()) {
                root = Some(dir);
            }
        }
    }
    root.map_or_else(|| workspace_root.to_path_buf(), Path::to_path_buf)
}

/// Forgets what walks found of the workspace's projects when a change can
/// alter it. The projects' files: a root marker, or a file of a language
/// that had none. The configs' word: a TypeScript config or a cargo
/// manifest written, or any file or folder created or deleted (a config,
/// a target's file).
pub(super) fn forget_projects_if_changed(
    known: &Mutex<Known>,
    config: &Config,
    changes: &[FileChange],
) {
    let mut known = lock(known);
    let name = |change: &FileChange| {
        change
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string()
    };
    if let Some(found) = known.files.as_ref() {
        let moves_a_project = changes.iter().any(|change| {
            let name = name(change);
            let marker = config
                .languages
                .iter()
                .any(|l| l.root_markers.contains(&name));
            let unrepresented = config
                .language_for(&change.path)
                .is_some_and(|l| !found.iter().any(|(name, _)| *name == l.name));
            marker || unrepresented || change.folder
        });
        if moves_a_project {
            known.files = None;
        }
    }
    let alters_configs = changes.iter().any(|change| {
        let name = name(change);
        change.folder
            || change.kind != ChangeKind::Changed
            || tsconfig::is_config_name(&name)
            || name == "Cargo.toml"
    });
    if alters_configs {
        known.typescript = None;
        known.unbuilt = None;
    }
}

/// Project roots kept by language and folder (see
/// `Supervisor::project_root`).
pub(super) type ProjectRoots = Memo<(String, PathBuf), PathBuf>;

/// Project roots kept at most: one more forgets them all first.
pub(super) const MAX_KEPT_ROOTS: usize = 50_000;

/// Projects opened at most for a workspace search.
pub const MAX_PROJECTS: usize = 200;

/// One source file of each project under `root` (a folder holding one of
/// the language's `project_files`), dependency folders left out: for
/// TypeScript's configs, one each holds (`quirks::tsconfig`); else the
/// first source file near each.
fn project_files(root: &Path, language: &LanguageConfig, seeing: Option<&Path>) -> Chosen {
    if language.project_files.is_empty() {
        return Chosen::default();
    }
    if tsconfig::applies(language) {
        let max = language
            .max_projects
            .unwrap_or(MAX_PROJECTS)
            .min(MAX_PROJECTS);
        return tsconfig::project_files(root, language, seeing, max);
    }
    let mut projects: Vec<PathBuf> = walk::sources(root)
        .entries()
        .filter(|e| {
            let name = e.file_name().to_string_lossy();
            language.project_files.iter().any(|m| *m == name)
        })
        .filter_map(|e| e.path().parent().map(Path::to_path_buf))
        .collect();
    projects.sort();
    projects.dedup();
    projects.truncate(MAX_PROJECTS);
    let served = |path: &Path| {
        path.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|ext| language.extensions.iter().any(|x| x == ext))
    };
    let files = projects
        .iter()
        .filter_map(|project| {
            walk::sources(project)
                .max_depth(4)
                .sorted()
                .files()
                .find(|p| served(p) && !p.to_string_lossy().ends_with(".d.ts"))
        })
        .collect();
    Chosen {
        files,
        left_out: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logbook::LogBook;

    /// The members of a cargo workspace and the packages under
    /// node_modules belong to the outermost project around them.
    #[test]
    fn a_project_root_is_the_outermost_marker() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "Cargo.toml",
            "crates/a/Cargo.toml",
            "crates/a/src/lib.rs",
            "web/package.json",
            "web/src/app.ts",
            "web/node_modules/foo/package.json",
            "web/node_modules/foo/index.d.ts",
            "loose.ts",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let config = Config::load(root, None).unwrap();
        let supervisor = Supervisor::new(config.clone(), root, Arc::new(LogBook::default()));
        let root_of = |file: &str| {
            let path = root.join(file);
            let language = config.language_for(&path).unwrap();
            supervisor.project_root(&path, language)
        };
        assert_eq!(root_of("crates/a/src/lib.rs"), root);
        assert_eq!(root_of("web/src/app.ts"), root.join("web"));
        assert_eq!(root_of("web/node_modules/foo/index.d.ts"), root.join("web"));
        assert_eq!(root_of("loose.ts"), root);
        // No watcher: nothing is kept.
        let language = config.language_for(&root.join("loose.ts")).unwrap();
        assert_eq!(
            supervisor
                .roots
                .get(&(language.name.clone(), root.to_path_buf())),
            None
        );
    }

    /// A folder's project root is kept while the watcher hears every
    /// change, and found again once a marker is written above it; one in a
    /// folder the watcher leaves out is not kept. (Where writes are heard
    /// at once: Linux.)
    #[cfg(target_os = "linux")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_kept_project_root_is_found_again_after_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let file = root.join("web/src/app.ts");
        let hidden = root.join(".storybook/main.ts");
        for path in [&file, &hidden] {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let config = Config::load(&root, None).unwrap();
        let language = config.language_for(&file).unwrap();
        let supervisor = Supervisor::new(config.clone(), &root, Arc::new(LogBook::default()));
        supervisor.watch_files();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !supervisor.hears_everything() {
            assert!(
                std::time::Instant::now() < deadline,
                "the watcher never covered the workspace"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(supervisor.project_root(&file, language), root);
        let key = (language.name.clone(), root.join("web/src"));
        assert_eq!(supervisor.roots.get(&key), Some(root.clone()), "not kept");
        assert_eq!(supervisor.project_root(&hidden, language), root);
        let unwatched = (language.name.clone(), root.join(".storybook"));
        assert_eq!(supervisor.roots.get(&unwatched), None, "kept unwatched");

        // Until the change is handed out the root is found afresh; after,
        // it is kept again: it must be the new one.
        std::fs::write(root.join("web/package.json"), "{}").unwrap();
        while !(supervisor.hears_everything()
            && supervisor.project_root(&file, language) == root.join("web"))
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the kept root was never forgotten"
            );
            supervisor.changes_watched().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}
