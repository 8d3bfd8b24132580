//! `diagnostics`: errors and warnings from the language servers, fresh for
//! the files as they are on disk now.

mod notes;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;

use self::notes::{
    not_compiled_note, outside_note, syntax_only_note, unbuilt_note, unchecked_note, unlinked_note,
};
use super::Tool;
use super::page::Pager;
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::lsp::diagnostics::{diagnose, published_for};
use crate::lsp::{LspError, Need, ServerId};
use crate::model::{
    Diagnostic, DiagnosticsReport, DiagnosticsScope, FileDiagnostics, Page, Severity,
};
use crate::sync::lock;
use crate::{progress, render};

/// Files of a workspace report checked at once: enough to keep a server
/// that answers in parallel busy (TypeScript 7's native server), and its
/// requests queue for one that does not.
const FILES_IN_FLIGHT: usize = 8;

/// LSP's codes for a request the server cancelled or gave up on because
/// its state moved (RequestCancelled, ContentModified, ServerCancelled).
const CANCELLED: [i64; 3] = [-32800, -32801, -32802];

/// How long one file's diagnostics may take to arrive from a server that
/// only publishes them.
const PER_FILE_WAIT: Duration = Duration::from_secs(10);

/// How often a file whose answer a server's crash lost is asked again.
const CRASH_RETRIES: usize = 2;

pub struct Diagnostics;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// File or folder
    pub file: Option<String>,
    /// Least severe shown: warning
    pub severity: Option<Severity>,
    pub limit: Option<usize>,
    pub offset: Option<usize>,
}

impl Tool for Diagnostics {
    const NAME: &'static str = "diagnostics";
    const DESCRIPTION: &'static str = "Errors and warnings of the files as on disk now, from the language servers; \
faster than a build. Without `file`: the workspace.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = DiagnosticsReport;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<DiagnosticsReport> {
        let min_severity = params.severity.unwrap_or(Severity::Warning);
        let pager = Pager::new(params.offset.unwrap_or(0), params.limit);
        let report = match &params.file {
            None => folder_report(&ctx, None, min_severity).await?,
            Some(file) => {
                let path = ctx.resolve_read(file)?;
                if path.is_dir() {
                    folder_report(&ctx, Some(path), min_severity).await?
                } else {
                    file_report(&ctx, &path, min_severity).await?
                }
            }
        };
        Ok(paged(report, pager))
    }

    fn render(output: &DiagnosticsReport) -> Vec<String> {
        crate::render::diagnostics(output)
    }
}

async fn file_report(
    ctx: &Context,
    path: &Path,
    min_severity: Severity,
) -> ToolResult<DiagnosticsReport> {
    let shown = ctx.workspace.display(path);
    let session = ctx.lsp.open(path, Need::DOCUMENT).await?;
    let diagnosed = diagnose(&session, None, true).await?;
    // From the diagnostics just pulled: asking again costs a round trip.
    let unlinked = session.unlinked_note_in(&diagnosed.diagnostics);
    let mut notes = Vec::new();
    for note in diagnosed.notes {
        push_once(&mut notes, note);
    }
    let files = shown_files(vec![(shown.clone(), diagnosed.diagnostics)], min_severity);
    // No errors in a file the server does not check is no news.
    if files.is_empty()
        && let Some(note) = unlinked
    {
        notes.push(note);
    }
    // Without its compilation database the server checks with guessed
    // flags: an include it cannot find is an error of that, not the code.
    if let Some(why) = session.started_without() {
        notes.push(why);
    }
    let coverage = ctx.lsp.coverage(&[path.to_path_buf()]).await;
    if !coverage.outside.is_empty() && !files.is_empty() {
        notes.push(outside_note(std::slice::from_ref(&shown), coverage.configs));
    }
    // No errors in a file checked for syntax only says little.
    if !coverage.syntax_only.is_empty() {
        notes.push(syntax_only_note(
            std::slice::from_ref(&shown),
            coverage.full_checking,
        ));
    }
    if let Some((_, why)) = coverage.unbuilt.first()
        && !files.is_empty()
    {
        notes.push(format!(
            "the build leaves {shown} out ({why}, off in the workspace's features): `cargo check --workspace --all-targets` reports none of these"
        ));
    }
    if !coverage.not_compiled.is_empty() && !files.is_empty() {
        notes.push(format!(
            "no {} entry compiles {shown}: the server checked it alone with the flags of a file near it, which the build never does, so these may be none of the build's (a header's own errors show in the files that include it)",
            coverage.database
        ));
    }
    Ok(unpaged(
        DiagnosticsScope::File(shown),
        min_severity,
        files,
        1,
        notes,
    ))
}

/// One file of a folder report, as it ended.
enum FileOutcome {
    Diagnostics(String, Vec<Diagnostic>),
    /// No server could be had for it (none configured, missing, failed to
    /// start).
    NoServer(LspError),
    /// The server failed on it: a note, not the report.
    Failed(String),
    /// The server cancelled its answer, again and again, while other files
    /// opened (ty cancels every request in flight when a document opens):
    /// asked again alone, after the rest.
    Cancelled(PathBuf),
    /// The time bound came first.
    OutOfTime(PathBuf),
}

/// Every file of a configured language under `folder` (the workspace when
/// `None`), checked a few at a time until the workspace diagnostics bound;
/// what was not checked by then is named, with how to check it.
async fn folder_report(
    ctx: &Context,
    folder: Option<PathBuf>,
    min_severity: Severity,
) -> ToolResult<DiagnosticsReport> {
    let root = folder
        .clone()
        .unwrap_or_else(|| ctx.workspace.root().to_path_buf());
    let config = ctx.lsp.config().clone();
    let listed = root.clone();
    let paths = tokio::task::spawn_blocking(move || {
        workspace_files(&listed, |p| config.language_for(p).is_some())
    })
    .await
    .map_err(|err| {
        ToolError::new(
            ErrorCode::Io,
            format!("listing the workspace failed: {err}"),
        )
    })?;
    let scope = match &folder {
        Some(folder) => DiagnosticsScope::Folder(ctx.workspace.display(folder)),
        None => DiagnosticsScope::Workspace,
    };
    let deadline = tokio::time::Instant::now() + ctx.lsp.config().workspace_diagnostics_timeout;
    let progress = Progress::new(paths.len());
    let before = ctx.lsp.activity();

    // The first file of each server first, one per server at once: it
    // starts the server, and a server that checks on save (cargo check)
    // runs its one check for the whole project there, so the other files'
    // answers include its results.
    let mut firsts = Vec::new();
    let mut seen: Vec<ServerId> = Vec::new();
    let mut rest = Vec::new();
    let mut results = Vec::new();
    for path in &paths {
        match ctx.lsp.server_of(path).await {
            Ok(server) if !seen.contains(&server) => {
                seen.push(server);
                firsts.push(path.clone());
            }
            Ok(_) => rest.push(path.clone()),
            Err(err) => results.push(FileOutcome::NoServer(err)),
        }
    }
    let progress = &progress;
    let check = |paths: Vec<PathBuf>, first: bool| {
        futures::stream::iter(paths)
            .map(move |path| check_one(ctx, path, first, deadline, progress))
            .buffer_unordered(FILES_IN_FLIGHT)
            .collect::<Vec<_>>()
    };
    let mut notes = Vec::new();
    for (checked, note) in check(firsts, true)
        .await
        .into_iter()
        .chain(check(rest, false).await)
    {
        results.push(checked);
        notes.extend(note);
    }
    // Servers may also publish for files nobody opened (rust-analyzer's
    // cargo check does, TypeScript's servers for a project's
    // tsconfig.json): include those inside the folder, once they have
    // stopped coming.
    ctx.lsp
        .publications_settled(
            PUBLICATIONS_QUIET,
            (tokio::time::Instant::now() + PUBLICATIONS_WAIT).min(deadline),
            &before,
        )
        .await;
    let mut published = ctx.lsp.published_under(&root);
    published.retain(|path| !paths.contains(path));
    // A file no language serves (a project's tsconfig.json) cannot be
    // asked about: what its server published is what there is to say.
    let (served, unserved): (Vec<PathBuf>, Vec<PathBuf>) = published
        .into_iter()
        .partition(|path| ctx.lsp.config().language_for(path).is_some());
    for (checked, note) in check(served, false).await {
        results.push(checked);
        notes.extend(note);
    }
    for path in unserved {
        let diagnostics = published_for(&ctx.lsp, &path).await;
        results.push(FileOutcome::Diagnostics(
            ctx.workspace.display(&path),
            diagnostics,
        ));
    }
    // Answers the server cancelled as others opened: asked one at a time.
    let (cancelled, mut results): (Vec<FileOutcome>, Vec<FileOutcome>) = results
        .into_iter()
        .partition(|outcome| matches!(outcome, FileOutcome::Cancelled(_)));
    for outcome in cancelled {
        let FileOutcome::Cancelled(path) = outcome else {
            continue;
        };
        let (checked, note) = check_one(ctx, path, false, deadline, progress).await;
        results.push(match checked {
            FileOutcome::Cancelled(path) => FileOutcome::Failed(cancelled_note(ctx, &path)),
            other => other,
        });
        notes.extend(note);
    }

    let mut checked = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut no_server = None;
    let mut unchecked = Vec::new();
    for result in results {
        match result {
            FileOutcome::Diagnostics(shown, diagnostics) => checked.push((shown, diagnostics)),
            FileOutcome::NoServer(err) => {
                failures.push(err.to_string());
                no_server.get_or_insert(err);
            }
            FileOutcome::Failed(note) => failures.push(note),
            // Asked again above: none is left, but none is lost either.
            FileOutcome::Cancelled(path) => failures.push(cancelled_note(ctx, &path)),
            FileOutcome::OutOfTime(path) => unchecked.push(path),
        }
    }
    // No file had a server (none installed, say): that is the answer, not
    // "no errors in 0 files".
    if checked.is_empty()
        && unchecked.is_empty()
        && let Some(err) = no_server
    {
        return Err(err.into());
    }
    let mut kept = Vec::new();
    for note in notes.into_iter().chain(failures) {
        push_once(&mut kept, note);
    }
    let mut notes = kept;
    if !unchecked.is_empty() {
        notes.push(unchecked_note(ctx, &unchecked, paths.len()));
    }
    // Files in none of their server's projects: nothing checked them.
    let mut unlinked: Vec<PathBuf> = Vec::new();
    for (shown, diagnostics) in &checked {
        let path = ctx.workspace.root().join(shown);
        let Some(said) = ctx
            .lsp
            .config()
            .language_for(&path)
            .and_then(|l| l.unlinked.as_ref())
        else {
            continue;
        };
        if diagnostics
            .iter()
            .any(|d| d.code.as_deref() == Some(said.code.as_str()))
        {
            unlinked.push(path);
        }
    }
    if !unlinked.is_empty() {
        notes.push(unlinked_note(ctx, &unlinked, checked.len()));
    }
    let files_checked = checked.len() - unlinked.len();
    let files = shown_files(checked, min_severity);
    // Files whose findings the project's own check would not have: their
    // server checked them outside every project, with its defaults.
    let coverage = ctx.lsp.coverage(&paths).await;
    // Files of targets the build leaves out: what is found there is no
    // error of the build's, so it is counted apart.
    let unbuilt: Vec<(String, &str)> = coverage
        .unbuilt
        .iter()
        .map(|(path, why)| (ctx.workspace.display(path), why.as_str()))
        .collect();
    let (apart, files): (Vec<FileDiagnostics>, Vec<FileDiagnostics>) = files
        .into_iter()
        .partition(|file| unbuilt.iter().any(|(shown, _)| *shown == file.path));
    if !apart.is_empty() {
        notes.push(unbuilt_note(&apart, &unbuilt));
    }
    let not_compiled: Vec<String> = coverage
        .not_compiled
        .iter()
        .map(|path| ctx.workspace.display(path))
        .collect();
    let (apart, files): (Vec<FileDiagnostics>, Vec<FileDiagnostics>) = files
        .into_iter()
        .partition(|file| not_compiled.contains(&file.path));
    if !apart.is_empty() {
        notes.push(not_compiled_note(&apart, &coverage.database));
    }
    let shown_outside: Vec<String> = coverage
        .outside
        .iter()
        .map(|path| ctx.workspace.display(path))
        .filter(|shown| files.iter().any(|file| file.path == *shown))
        .collect();
    if !shown_outside.is_empty() {
        notes.push(outside_note(&shown_outside, coverage.configs));
    }
    let syntax_only: Vec<String> = coverage
        .syntax_only
        .iter()
        .map(|path| ctx.workspace.display(path))
        .collect();
    if !syntax_only.is_empty() {
        notes.push(syntax_only_note(&syntax_only, coverage.full_checking));
    }
    if scope == DiagnosticsScope::Workspace {
        notes.extend(ctx.lsp.uncovered_note("not checked").await);
    }
    Ok(unpaged(scope, min_severity, files, files_checked, notes))
}

/// A file whose server cancelled its answer every time it was asked.
fn cancelled_note(ctx: &Context, path: &Path) -> String {
    format!(
        "{}: its server cancelled the answer every time it was asked",
        ctx.workspace.display(path)
    )
}

/// A report before `paged` counts it and cuts its page: its counts,
/// folders and page are derived there.
fn unpaged(
    scope: DiagnosticsScope,
    min_severity: Severity,
    files: Vec<FileDiagnostics>,
    files_checked: usize,
    notes: Vec<String>,
) -> DiagnosticsReport {
    DiagnosticsReport {
        scope,
        min_severity,
        files,
        files_checked,
        notes,
        counts: [0; 4],
        files_with: 0,
        folders: Vec::new(),
        folders_total: 0,
        page: Page::default(),
    }
}

/// One file of a folder report, checked, unless the bound came first: as
/// a pull of its diagnostics needs it (see `Supervisor::open_to_pull`),
/// so opened if the server did not have it open (and closed again after)
/// unless its server pulls them from its own copy of the file.
async fn check_one(
    ctx: &Context,
    path: PathBuf,
    first: bool,
    deadline: tokio::time::Instant,
    progress: &Progress,
) -> (FileOutcome, Vec<String>) {
    let checked = if tokio::time::Instant::now() >= deadline {
        None
    } else {
        tokio::time::timeout_at(deadline, check_file(ctx, &path, first, deadline))
            .await
            .ok()
    };
    progress.one_done();
    checked.unwrap_or((FileOutcome::OutOfTime(path), Vec::new()))
}

/// `check_one` without the bound: the file's diagnostics and the notes
/// they came with.
async fn check_file(
    ctx: &Context,
    path: &Path,
    first: bool,
    deadline: tokio::time::Instant,
) -> (FileOutcome, Vec<String>) {
    let shown = ctx.workspace.display(path);
    if let Err(err) = ctx.lsp.server_of(path).await {
        return (FileOutcome::NoServer(err), Vec::new());
    }
    // The first file of a server opens every project of it, and they stay
    // open: a project whose last file closes takes its config's
    // diagnostics with it (TypeScript's servers clear them), so a sweep
    // that opened and closed each file would lose them.
    let need = if first {
        Need::WORKSPACE
    } else {
        Need::DOCUMENT
    };
    let mut attempt = 0;
    let mut opened = false;
    loop {
        let session = if opened {
            ctx.lsp.open(path, need).await
        } else {
            ctx.lsp.open_to_pull(path, need, first).await
        };
        let outcome = match session {
            Ok(session) => {
                let wait = PER_FILE_WAIT
                    .min(deadline.saturating_duration_since(tokio::time::Instant::now()));
                let unopened = session.unopened();
                let outcome = diagnose(&session, Some(wait), first).await;
                session.release().await;
                // A file the server does not know unless it is opened (one
                // under no Cargo.toml: "file not found"): asked again, open.
                if unopened
                    && matches!(&outcome, Err(LspError::Rpc { code, .. }) if !CANCELLED.contains(code))
                {
                    opened = true;
                    continue;
                }
                outcome
            }
            Err(err) => Err(err),
        };
        match outcome {
            Ok(diagnosed) => {
                return (
                    FileOutcome::Diagnostics(shown, diagnosed.diagnostics),
                    diagnosed.notes,
                );
            }
            // The server crashed with this file's answer in flight (maybe on
            // this very file): it restarts on the next request, which asks
            // again, a few times.
            Err(LspError::Crashed { .. }) if attempt < CRASH_RETRIES => attempt += 1,
            Err(LspError::Rpc { code, .. }) if CANCELLED.contains(&code) => {
                return (FileOutcome::Cancelled(path.to_path_buf()), Vec::new());
            }
            Err(err) => return (FileOutcome::Failed(format!("{shown}: {err}")), Vec::new()),
        }
    }
}

/// Progress of a folder report, told to the MCP client now and then.
struct Progress {
    total: usize,
    done: std::sync::atomic::AtomicUsize,
    last: std::sync::Mutex<std::time::Instant>,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            done: std::sync::atomic::AtomicUsize::new(0),
            last: std::sync::Mutex::new(std::time::Instant::now()),
        }
    }

    /// One more file done: reported at most every 250 ms.
    fn one_done(&self) {
        let done = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let mut last = lock(&self.last);
        if last.elapsed() < Duration::from_millis(250) && done < self.total {
            return;
        }
        *last = std::time::Instant::now();
        progress::report(
            &format!("diagnostics: {done} of {} files", self.total),
            Some(done as f64 / self.total.max(1) as f64),
        );
    }
}

fn push_once(notes: &mut Vec<String>, note: String) {
    if !notes.contains(&note) {
        notes.push(note);
    }
}

/// Keeps what is at least as severe as asked, sorted by severity then
/// position; drops files left empty.
fn shown_files(
    results: Vec<(String, Vec<Diagnostic>)>,
    min_severity: Severity,
) -> Vec<FileDiagnostics> {
    let mut files: Vec<FileDiagnostics> = results
        .into_iter()
        .map(|(path, mut diagnostics)| {
            diagnostics.retain(|d| d.severity <= min_severity);
            diagnostics.sort_by(|a, b| {
                (a.severity, a.position, &a.message).cmp(&(b.severity, b.position, &b.message))
            });
            diagnostics.dedup();
            FileDiagnostics::whole(path, diagnostics)
        })
        .filter(|f| !f.diagnostics.is_empty())
        .collect();
    // Files with errors first: what breaks the build leads every page.
    files.sort_by(|a, b| (a.counts[0] == 0, &a.path).cmp(&(b.counts[0] == 0, &b.path)));
    files
}

/// How long no server may publish before a report takes what they
/// published for files nobody asked about, and the most it waits for that.
const PUBLICATIONS_QUIET: std::time::Duration = std::time::Duration::from_millis(300);
const PUBLICATIONS_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Files with findings past which a report also counts them by folder.
const FOLDERS_FROM: usize = 20;

/// Folders named in a report's summary, at most.
const FOLDERS_SHOWN: usize = 10;

/// A large report's counts by folder, two levels deep (`packages/core`),
/// the folders with the most errors (then warnings) first: where the
/// problems are, before the first page's files.
fn by_folder(files: &[FileDiagnostics]) -> (Vec<(String, [usize; 4])>, usize) {
    if files.len() < FOLDERS_FROM {
        return (Vec::new(), 0);
    }
    let mut folders: Vec<(String, [usize; 4])> = Vec::new();
    for file in files {
        let parts: Vec<&str> = file.path.split('/').collect();
        let folder = parts[..parts.len().saturating_sub(1).min(2)].join("/");
        let folder = if folder.is_empty() {
            ".".to_string()
        } else {
            folder
        };
        match folders.iter_mut().find(|(f, _)| *f == folder) {
            Some((_, counts)) => {
                for (total, n) in counts.iter_mut().zip(file.counts) {
                    *total += n;
                }
            }
            None => folders.push((folder, file.counts)),
        }
    }
    if folders.len() < 2 {
        return (Vec::new(), 0);
    }
    let total = folders.len();
    folders.sort_by(|a, b| (b.1[0], b.1[1], &a.0).cmp(&(a.1[0], a.1[1], &b.0)));
    folders.truncate(FOLDERS_SHOWN);
    (folders, total)
}

/// `report` with its files cut to the page `pager` admits, counted whole
/// first: a file split across pages keeps its whole counts in its header.
fn paged(mut report: DiagnosticsReport, mut pager: Pager) -> DiagnosticsReport {
    let all = std::mem::take(&mut report.files);
    report.files_with = all.len();
    report.counts = [0; 4];
    for file in &all {
        for (total, n) in report.counts.iter_mut().zip(file.counts) {
            *total += n;
        }
    }
    let total: usize = report.counts.iter().sum();
    (report.folders, report.folders_total) = by_folder(&all);
    // The summary, its folders and notes go in every page.
    let header: usize = report
        .notes
        .iter()
        .map(|note| note.len() + 7)
        .sum::<usize>()
        + report
            .folders
            .iter()
            .map(|(folder, _)| folder.len() + 24)
            .sum::<usize>();
    pager.add(header + 120);
    'files: for file in all {
        if pager.skip_many(file.diagnostics.len()) {
            continue;
        }
        let mut page = FileDiagnostics {
            diagnostics: Vec::new(),
            ..file.clone()
        };
        for diagnostic in file.diagnostics {
            if pager.skip() {
                continue;
            }
            let mut size = render::diagnostic_line(&diagnostic).len();
            if page.diagnostics.is_empty() {
                size += render::diagnostics_header(&page).len() + 2;
            }
            if !pager.admit(size) {
                if !page.diagnostics.is_empty() {
                    report.files.push(page);
                }
                break 'files;
            }
            page.diagnostics.push(diagnostic);
        }
        report.files.push(page);
    }
    report.page = pager.page(total);
    report
}

/// Files under `root` that a language server serves, .gitignore respected,
/// in path order.
fn workspace_files(root: &Path, served: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = crate::fs::walk::sources(root)
        .files()
        .filter(|p| served(p))
        .collect();
    files.sort();
    files
}
