//! `diagnostics`: errors and warnings from the language servers, fresh for
//! the files as they are on disk now.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use ignore::WalkBuilder;
use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::lsp::client::LspClient;
use crate::lsp::requests::{
    checker_published, published_diagnostics, pull_diagnostics, tsserver_diagnostics,
};
use crate::lsp::{LspError, Session};
use crate::model::{Diagnostic, DiagnosticsReport, FileDiagnostics, Severity};

/// After a check ends, how long the server must stay quiet before its
/// results count as all published.
const CHECK_QUIET: Duration = Duration::from_millis(300);

/// The longest wait for that quiet.
const CHECK_SETTLE_LIMIT: Duration = Duration::from_secs(3);

/// Files opened at most for a whole-workspace answer.
const MAX_WORKSPACE_FILES: usize = 300;
/// How long one file's diagnostics may take to arrive.
const PER_FILE_WAIT: Duration = Duration::from_secs(10);

pub struct Diagnostics;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// One file; omit for the whole workspace (every file of a configured language, .gitignore respected)
    pub file: Option<String>,
    /// The least severe level to show: error, warning (default), information, hint
    pub severity: Option<Severity>,
}

impl Tool for Diagnostics {
    const NAME: &'static str = "diagnostics";
    const DESCRIPTION: &'static str = "Errors and warnings from the language servers (TypeScript, rust-analyzer with cargo check, \
any configured server), computed for the files as they are on disk now: after an edit, the next call reports the new text, \
never the old. Without `file`, checks the whole workspace. Faster and more precise than running a build to see what broke.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = DiagnosticsReport;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<DiagnosticsReport> {
        let min_severity = params.severity.unwrap_or(Severity::Warning);
        match &params.file {
            Some(file) => file_report(&ctx, file, min_severity).await,
            None => workspace_report(&ctx, min_severity).await,
        }
    }

    fn render(output: &DiagnosticsReport) -> Vec<String> {
        crate::render::diagnostics(output)
    }
}

async fn file_report(
    ctx: &Context,
    file: &str,
    min_severity: Severity,
) -> ToolResult<DiagnosticsReport> {
    let path = ctx.workspace.resolve_read(file)?;
    let shown = ctx.workspace.display(&path);
    if path.is_dir() {
        return Err(ToolError::new(
            ErrorCode::NotAFile,
            format!("{shown} is a folder; pass a file, or omit `file` for the whole workspace"),
        ));
    }
    let session = ctx.lsp.open(&path).await?;
    let mut notes = Vec::new();
    let diagnostics = collect(
        &session,
        &shown,
        session.client.language.request_timeout,
        true,
        &mut notes,
    )
    .await?;
    let files = shown_files(vec![(shown.clone(), diagnostics)], min_severity);
    Ok(DiagnosticsReport {
        scope: Some(shown),
        min_severity,
        files,
        files_checked: 1,
        notes,
    })
}

async fn workspace_report(ctx: &Context, min_severity: Severity) -> ToolResult<DiagnosticsReport> {
    let root = ctx.workspace.root().to_path_buf();
    let config = ctx.lsp.config().clone();
    let (paths, more) = tokio::task::spawn_blocking(move || {
        workspace_files(&root, |p| config.language_for(p).is_some())
    })
    .await
    .map_err(|err| {
        ToolError::new(
            ErrorCode::Io,
            format!("listing the workspace failed: {err}"),
        )
    })?;
    let mut notes = Vec::new();
    if more > 0 {
        notes.push(format!(
            "only the first {MAX_WORKSPACE_FILES} files were opened ({more} more); pass `file` to check others"
        ));
    }
    let mut sessions = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let mut first_failure = None;
    for path in &paths {
        match ctx.lsp.open(path).await {
            Ok(session) => sessions.push(session),
            Err(err) => {
                push_once(&mut failures, err.to_string());
                first_failure.get_or_insert(err);
            }
        }
    }
    // Not one file could be checked (no server installed, say): that is
    // the answer, not "no errors in 0 files".
    if sessions.is_empty()
        && let Some(err) = first_failure
    {
        return Err(err.into());
    }
    let mut results = Vec::new();
    // One check per server is enough: it covers the whole project.
    let mut checked: Vec<String> = Vec::new();
    for session in &sessions {
        let server = session.client.server().to_string();
        let check = !checked.contains(&server);
        if check {
            checked.push(server);
        }
        let shown = ctx.workspace.display(&session.document.path);
        let outcome = collect(session, &shown, PER_FILE_WAIT, check, &mut notes).await;
        keep(outcome, shown, &mut results, &mut failures);
    }
    // Servers may also publish for files nobody opened (rust-analyzer's
    // cargo check does): include those inside the workspace.
    for client in ctx.lsp.clients() {
        let published: Vec<(PathBuf, Vec<lsp_types::Diagnostic>)> = {
            let state = client.shared.state();
            state
                .diagnostics
                .iter()
                .filter(|(_, p)| !p.items.is_empty())
                .filter_map(|(uri, p)| Some((uri.to_file_path().ok()?, p.items.clone())))
                .collect()
        };
        for (path, _) in published {
            if !path.starts_with(ctx.workspace.root()) || paths.contains(&path) {
                continue;
            }
            if let Ok(session) = ctx.lsp.open(&path).await {
                let shown = ctx.workspace.display(&path);
                let outcome = collect(&session, &shown, PER_FILE_WAIT, false, &mut notes).await;
                keep(outcome, shown, &mut results, &mut failures);
            }
        }
    }
    for failure in failures {
        notes.push(failure);
    }
    notes.dedup();
    let files_checked = results.len();
    Ok(DiagnosticsReport {
        scope: None,
        min_severity,
        files: shown_files(results, min_severity),
        files_checked,
        notes,
    })
}

/// One document's diagnostics: pulled where the server can, else the ones
/// it publishes for this version, after any `cargo check` it runs.
async fn collect(
    session: &Session,
    shown: &str,
    wait: Duration,
    check: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<Diagnostic>, LspError> {
    let server = session.client.server().to_string();
    if !session.index_complete {
        push_once(
            notes,
            format!("{server} was still indexing; diagnostics may be incomplete"),
        );
    }
    if session.client.language.tsserver_diagnostics {
        return tsserver_diagnostics(session).await;
    }
    let pulled = pull_diagnostics(session).await?;
    let mut diagnostics = match &pulled {
        Some(pulled) => pulled.clone(),
        None => match published_diagnostics(session, wait).await {
            Some(published) => published,
            // Nothing came because the server died: that is no clean bill.
            None if !session.client.is_alive() => {
                let exit = session.client.wait_exit(Duration::from_secs(1)).await;
                return Err(LspError::Crashed {
                    server,
                    detail: exit
                        .map(|e| e.description)
                        .unwrap_or_else(|| "the connection closed".into()),
                });
            }
            None => {
                notes.push(format!(
                    "{server} published no diagnostics for {shown} within {} s",
                    wait.as_secs()
                ));
                Vec::new()
            }
        },
    };
    // A server that checks on save (rust-analyzer's cargo check) publishes
    // the checker's results later, beside (or merged into) its own: ask for
    // a check, wait for it to start and finish (bounded), then add them.
    let client = &session.client;
    if check && client.language.checks_on_save {
        // One check at a time per server: a second call's didSave would
        // restart the first one's check, and after it the project is
        // usually checked already.
        let _turn = client.one_check().await;
        // A check reads the disk: it is needed only if a file of the project
        // changed since the last one completed.
        let (root, language) = (client.root.clone(), Arc::clone(&client.language));
        let fingerprint =
            tokio::task::spawn_blocking(move || LspClient::project_fingerprint(&root, &language))
                .await
                .ok();
        let current = fingerprint.is_some_and(|f| client.checked_as(f));
        if !current && client.request_check(&session.document)? {
            let started = tokio::time::Instant::now() + Duration::from_secs(3);
            while client.check_running().is_none() && tokio::time::Instant::now() < started {
                client.changed_before(started).await;
            }
            let deadline = tokio::time::Instant::now() + client.language.request_timeout;
            while client.check_running().is_some() && tokio::time::Instant::now() < deadline {
                client.changed_before(deadline).await;
            }
            // The publications that follow the end of the check: it may
            // publish a file's results in parts, so until the server has
            // been quiet for a moment (bounded), not just the first one.
            let limit = tokio::time::Instant::now() + CHECK_SETTLE_LIMIT;
            loop {
                let quiet = (tokio::time::Instant::now() + CHECK_QUIET).min(limit);
                if !client.changed_before(quiet).await || tokio::time::Instant::now() >= limit {
                    break;
                }
            }
            match (client.check_running(), fingerprint) {
                (Some(check), _) => push_once(
                    notes,
                    format!("{server}: {check} is still running; its results are not included yet"),
                ),
                (None, Some(fingerprint)) => client.record_check(fingerprint),
                (None, None) => {}
            }
        }
    }
    if client.language.checks_on_save
        && let Some(checked) = checker_published(session)
    {
        match pulled {
            // Pulled diagnostics are the server's own; published ones are
            // the checker's. Both often find the same error (E0583 from
            // rust-analyzer and from rustc): the checker's, the compiler's
            // word, is kept.
            Some(_) => {
                diagnostics.retain(|own| !checked.iter().any(|c| same_finding(c, own)));
                diagnostics.extend(checked);
            }
            // One publication holds both.
            None => diagnostics = checked,
        }
    }
    Ok(diagnostics)
}

/// One file's outcome in a workspace report: its diagnostics, or a note
/// saying why it could not be checked (it costs that file, not the report).
fn keep(
    outcome: Result<Vec<Diagnostic>, LspError>,
    shown: String,
    results: &mut Vec<(String, Vec<Diagnostic>)>,
    failures: &mut Vec<String>,
) {
    match outcome {
        Ok(diagnostics) => results.push((shown, diagnostics)),
        Err(err) => push_once(failures, format!("{shown}: {err}")),
    }
}

/// Two reports of one error: the same code at the same place.
fn same_finding(a: &Diagnostic, b: &Diagnostic) -> bool {
    a.code.is_some() && a.code == b.code && a.position == b.position
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
            FileDiagnostics { path, diagnostics }
        })
        .filter(|f| !f.diagnostics.is_empty())
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// Files under `root` that a language server serves, .gitignore respected,
/// in path order; and how many more there were past the limit.
fn workspace_files(root: &Path, served: impl Fn(&Path) -> bool) -> (Vec<PathBuf>, usize) {
    let mut files: Vec<PathBuf> = WalkBuilder::new(root)
        .require_git(false)
        .filter_entry(|e| {
            e.file_name() != ".git" && e.file_name() != "node_modules" && e.file_name() != "target"
        })
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .filter(|p| served(p))
        .collect();
    files.sort();
    let more = files.len().saturating_sub(MAX_WORKSPACE_FILES);
    files.truncate(MAX_WORKSPACE_FILES);
    (files, more)
}
