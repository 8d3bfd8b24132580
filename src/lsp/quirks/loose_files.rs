//! A project for files no project file holds (`loose_files`): a JavaScript
//! workspace with no tsconfig.json or jsconfig.json. tsserver puts each
//! such file it opens in an inferred project with only what that file
//! imports, so references, incoming calls and renames miss every file that
//! uses a name and is not open (a CommonJS helper: 1 reference of 9, and a
//! rename that broke the tests). typescript-language-server is told of one
//! project holding them all, through tsserver's `openExternalProject`: a
//! project its client defines, written nowhere, so the user's tree is left
//! as it is. Created and deleted files update it before the next request.
//!
//! Only where the server's root holds no project file at all: configs say
//! what their projects hold, and the files they leave out are named in the
//! answers (`Supervisor::coverage`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::super::LspError;
use super::super::client::LspClient;
use super::super::watch::{ChangeKind, FileChange};
use super::tsserver::tsserver_command;
use crate::fs::walk;
use crate::model::LogLevel;
use crate::sync::lock;

/// The most files the project holds (each costs the server memory and
/// start-up time): those beyond, in path order, are named in answers.
pub const MAX_FILES: usize = 5000;

/// The name tsserver knows the project by: a path under the root that is
/// never written.
const PROJECT_NAME: &str = "sextant-loose-files";

/// What the project holds, kept by the server's client.
#[derive(Debug, Default)]
pub struct LooseProject {
    /// A file of its extensions was created or deleted since it was sent.
    stale: AtomicBool,
    /// The server has it (sent and not closed).
    sent: AtomicBool,
    /// The files beyond [`MAX_FILES`] when it was last sent.
    left_out: Mutex<usize>,
}

impl LooseProject {
    /// The files it could not hold, if any.
    pub fn left_out(&self) -> usize {
        *lock(&self.left_out)
    }
}

/// The files of `extensions` under `root`, in path order, if no project
/// file (tsconfig*.json, jsconfig*.json) is among them; `None` if one is.
fn loose_files(root: &Path, extensions: &[String]) -> Option<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in walk::sources(root).sorted().files() {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if super::tsconfig::is_config_name(name) {
            return None;
        }
        if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.iter().any(|x| x == e))
        {
            files.push(path);
        }
    }
    Some(files)
}

/// Whether `root` holds files of `extensions` and no project file: a
/// server with `loose_files` answers for it best.
pub(in crate::lsp) fn wanted(root: &Path, extensions: &[String]) -> bool {
    loose_files(root, extensions).is_some_and(|files| !files.is_empty())
}

/// Tells the server of the project, if its language has `loose_files` and
/// its root holds no project file; again after files were created or
/// deleted (`refresh`).
pub(in crate::lsp) async fn open(client: &LspClient) -> Result<(), LspError> {
    let Some(loose) = &client.language.loose_files else {
        return Ok(());
    };
    client.loose_project.stale.store(false, Ordering::Relaxed);
    let (root, extensions) = (client.root.clone(), loose.extensions.clone());
    let files = tokio::task::spawn_blocking(move || loose_files(&root, &extensions))
        .await
        .ok()
        .flatten();
    let project_name = client.root.join(PROJECT_NAME).display().to_string();
    let Some(mut files) = files.filter(|files| !files.is_empty()) else {
        // A project file appeared: its projects hold the files now.
        if client.loose_project.sent.swap(false, Ordering::Relaxed) {
            let arguments = serde_json::json!({ "projectFileName": project_name });
            tsserver_command(client, "closeExternalProject", arguments).await?;
        }
        *lock(&client.loose_project.left_out) = 0;
        return Ok(());
    };
    let left_out = files.len().saturating_sub(MAX_FILES);
    files.truncate(MAX_FILES);
    let arguments = serde_json::json!({
        "projectFileName": project_name,
        "rootFiles": files
            .iter()
            .map(|file| serde_json::json!({ "fileName": file.display().to_string() }))
            .collect::<Vec<_>>(),
        "options": loose.options_json(),
    });
    let answer = tsserver_command(client, "openExternalProject", arguments).await?;
    if answer.get("success").and_then(|s| s.as_bool()) != Some(true) {
        client.shared.logs.record(
            LogLevel::Warn,
            client.server(),
            format!("its project of files no config holds was refused: {answer}"),
        );
        return Ok(());
    }
    client.loose_project.sent.store(true, Ordering::Relaxed);
    *lock(&client.loose_project.left_out) = left_out;
    let held = files.len();
    client.shared.logs.record(
        LogLevel::Info,
        client.server(),
        if left_out > 0 {
            format!(
                "{held} files no tsconfig or jsconfig holds are one project ({left_out} more left out: at most {MAX_FILES})"
            )
        } else {
            format!("{held} files no tsconfig or jsconfig holds are one project")
        },
    );
    Ok(())
}

/// Marks the project stale when a file it would hold was created or
/// deleted (a project file created means it is no longer wanted).
pub(in crate::lsp) fn note_changes(client: &LspClient, changes: &[FileChange]) {
    let Some(loose) = &client.language.loose_files else {
        return;
    };
    let moved = changes.iter().any(|change| {
        (change.kind != ChangeKind::Changed || change.folder)
            && (change.folder
                || change
                    .path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| loose.extensions.iter().any(|x| x == e))
                || change
                    .path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(super::tsconfig::is_config_name))
    });
    if moved {
        client.loose_project.stale.store(true, Ordering::Relaxed);
    }
}

/// Sends the project again if files were created or deleted since.
pub(in crate::lsp) async fn refresh(client: &LspClient) {
    if !client.loose_project.stale.load(Ordering::Relaxed) {
        return;
    }
    if let Err(err) = open(client).await {
        client
            .shared
            .logs
            .record(LogLevel::Warn, client.server(), err.to_string());
    }
}
