//! Servers that run a checker when a file is saved and publish its results
//! later (`checks_on_save`: rust-analyzer's `cargo check`, its "flycheck").
//! `diagnostics` asks for a check by saying a document was saved (it is
//! what the disk holds, so that is true), waits for a check that began
//! after the last save anyone sent to end (bounded), then for its
//! publications to settle, and records what
//! the project looked like when it completed, so an unchanged project is
//! not checked again. One check at a time per server: a second didSave
//! restarts a running check. A server that `checks_workspace` is asked
//! with rust-analyzer's `runFlycheck` naming no document instead: a
//! didSave of a test's or an example's file checks that target alone, with
//! its package's own features, where cargo's build of the workspace turns
//! on what other members ask for.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lsp_types::TextDocumentIdentifier;
use lsp_types::notification::Notification;
use serde::{Deserialize, Serialize};

use super::super::LspError;
use super::super::client::LspClient;
use super::super::config::LanguageConfig;
use super::super::documents::Document;
use crate::fs::stamped::Stamp;
use crate::fs::walk;
use crate::sync::lock;

/// After a check ends, how long the server must stay quiet before its
/// results count as all published.
const CHECK_QUIET: Duration = Duration::from_millis(300);

/// The longest wait for that quiet.
const CHECK_SETTLE_LIMIT: Duration = Duration::from_secs(3);

/// How long a requested check may take to start (rust-analyzer begins at
/// once, but on a loaded machine seconds later).
const CHECK_START: Duration = Duration::from_secs(10);

/// rust-analyzer's request for a check: of the document's target (and
/// what depends on it), or with none of every workspace.
enum RunFlycheck {}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunFlycheckParams {
    text_document: Option<TextDocumentIdentifier>,
}

impl Notification for RunFlycheck {
    type Params = RunFlycheckParams;
    const METHOD: &'static str = "rust-analyzer/runFlycheck";
}

/// A client's checker state.
#[derive(Debug, Default)]
pub(in crate::lsp) struct Checks {
    /// The project's files as they were at the last completed check.
    checked: Mutex<Option<ProjectState>>,
    /// Held by whoever asks for a check and waits for it.
    turn: tokio::sync::Mutex<()>,
}

/// Whether a work-done progress is the checker's (it does not make the
/// server unready): rust-analyzer's tokens name it "flycheck", its titles
/// "cargo check".
pub(in crate::lsp) fn is_check_progress(
    language: &LanguageConfig,
    token: &str,
    title: &str,
) -> bool {
    language.checks_on_save
        && (token.contains("flycheck")
            || title.eq_ignore_ascii_case("cargo check")
            || title.starts_with("cargo check"))
}

/// The title of a running check, if any.
fn check_running(client: &LspClient) -> Option<String> {
    let state = client.shared.state();
    state
        .progress
        .values()
        .find(|progress| is_check_progress(&client.language, &progress.token, &progress.title))
        .map(|progress| progress.title.clone())
}

/// Whether a check began after the progress count was `since` (running
/// now, or already over).
fn check_began_after(client: &LspClient, since: u64) -> bool {
    let state = client.shared.state();
    state.progress.values().chain(&state.ended).any(|progress| {
        progress.begun > since
            && is_check_progress(&client.language, &progress.token, &progress.title)
    })
}

/// Has the server check the project unless the last completed check saw it
/// as it is now, and waits for the check's results (bounded by the
/// request timeout). The note to add when the check was still running at
/// the end of the wait. Nothing for a server that does not check on save.
pub(in crate::lsp) async fn check(
    client: &LspClient,
    document: &Document,
) -> Result<Option<String>, LspError> {
    use super::super::capabilities::Feature;
    if !client.language.checks_on_save || !client.supports(Feature::SaveNotifications) {
        return Ok(None);
    }
    // One check at a time per server: a second call's didSave would
    // restart the first one's check, and after it the project is usually
    // checked already.
    let _turn = client.checks.turn.lock().await;
    // A check reads the disk: it is needed only if a file of the project
    // changed since the last one completed. The file watcher counts the
    // changes; without one, the disk is looked at.
    let fingerprint = match client.disk_changes() {
        Some(count) => Some(ProjectState::Noted(count)),
        None => {
            let (root, language) = (client.root.clone(), Arc::clone(&client.language));
            tokio::task::spawn_blocking(move || project_fingerprint(&root, &language))
                .await
                .ok()
                .map(ProjectState::OnDisk)
        }
    };
    if fingerprint.is_some() && *lock(&client.checks.checked) == fingerprint {
        return Ok(None);
    }
    // The check that counts is one that began after the last save anyone
    // sent (ours, or a sync's of an edited file): a save restarts a running
    // check, which then ends before its results are all in, and the
    // restarted one may begin a while later (a busy server, or its own
    // debounce), so "no check running" alone is not "checked".
    client.shared.state().parts = Some(Default::default());
    let parts = Parts(client);
    if client.language.checks_workspace {
        client.count_save();
        client.notify::<RunFlycheck>(RunFlycheckParams {
            text_document: None,
        })?;
    } else {
        client.notify_saved(&document.uri)?;
    }
    let deadline = tokio::time::Instant::now() + client.language.request_timeout;
    loop {
        let (saves, last_save) = {
            let state = client.shared.state();
            (state.saves, state.last_save)
        };
        let Some((saved, at)) = last_save else {
            break;
        };
        let started = tokio::time::Instant::from_std(at) + CHECK_START;
        client
            .wait_until(started.min(deadline), || check_began_after(client, saved))
            .await;
        client
            .wait_until(deadline, || check_running(client).is_none())
            .await;
        // The publications that follow the end of the check: it may publish
        // a file's results in parts, so until the server has been quiet
        // for a moment (bounded), not just the first one.
        let limit = tokio::time::Instant::now() + CHECK_SETTLE_LIMIT;
        loop {
            let quiet = (tokio::time::Instant::now() + CHECK_QUIET).min(limit);
            if !client.changed_before(quiet).await || tokio::time::Instant::now() >= limit {
                break;
            }
        }
        // Done unless a check runs again or another save came meanwhile.
        let settled = check_running(client).is_none() && client.shared.state().saves == saves;
        if settled || tokio::time::Instant::now() >= deadline {
            break;
        }
    }
    parts.merge();
    let last_save = client.shared.state().last_save.map(|(saved, _)| saved);
    let began = last_save.is_some_and(|saved| check_began_after(client, saved));
    Ok(match (check_running(client), began, fingerprint) {
        (Some(check), ..) => Some(format!(
            "{}: {check} is still running; its results are not included yet",
            client.server()
        )),
        // Never "checked" on a check that did not run.
        (None, false, _) => Some(format!(
            "{}: the check asked for had not begun after {} s; its results are not included (ask again)",
            client.server(),
            CHECK_START.as_secs()
        )),
        (None, true, fingerprint) => {
            if fingerprint.is_some() {
                *lock(&client.checks.checked) = fingerprint;
            }
            None
        }
    })
}

/// The items a check published in parts, kept while it runs (see
/// `inbound::State::parts`) and merged when it is done: rust-analyzer
/// publishes a file's results target by target with `--all-targets`,
/// clearing the file's results between targets, and cargo reports a
/// warning once for all targets, so the last part of a file compiled for
/// two targets can lack the warning the first had. What the check found
/// for a file is every item it published for it after it began.
struct Parts<'a>(&'a LspClient);

impl Parts<'_> {
    /// Gives each document whose latest publication came from the check
    /// that counts (the last one begun after the last save) every item
    /// that check published for it.
    fn merge(self) {
        let client = self.0;
        let mut state = client.shared.state();
        let Some(parts) = state.parts.take() else {
            return;
        };
        let saved = state.last_save.map_or(0, |(saved, _)| saved);
        let Some(since) = state
            .progress
            .values()
            .chain(&state.ended)
            .filter(|p| p.begun > saved && is_check_progress(&client.language, &p.token, &p.title))
            .map(|p| p.published_before)
            .max()
        else {
            return;
        };
        for (uri, kept) in parts {
            let Some(published) = state.diagnostics.get_mut(&uri) else {
                continue;
            };
            if published.sequence <= since {
                continue;
            }
            for (sequence, item) in kept {
                if sequence > since && !published.items.contains(&item) {
                    published.items.push(item);
                }
            }
        }
    }
}

impl Drop for Parts<'_> {
    /// A check given up on (an error) keeps nothing.
    fn drop(&mut self) {
        self.0.shared.state().parts = None;
    }
}

/// Where the project's files stood at a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProjectState {
    /// This many changes to them noted by the file watcher.
    Noted(u64),
    /// Their [`project_fingerprint`].
    OnDisk(u64),
}

/// A fingerprint of the project's source files on disk (the paths and
/// stamps, `fs::stamped`, of the files this server's language covers, and
/// of its root markers), .gitignore respected. Cheap next to a check.
fn project_fingerprint(root: &Path, language: &LanguageConfig) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut entries: Vec<(PathBuf, Option<Stamp>)> = walk::sources(root)
        .file_entries()
        .filter(|e| language.is_project_file(e.path()))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((e.into_path(), Stamp::of(&meta)))
        })
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    entries.hash(&mut hasher);
    hasher.finish()
}
