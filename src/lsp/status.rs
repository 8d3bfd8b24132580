//! What `logs` and `doctor` show of the servers: each configured
//! language's server(s), running or not, with why that one was chosen, its
//! state (not started, starting, indexing, ready, crashed, failed,
//! missing), command line, pid, uptime and restarts.

use std::path::Path;
use std::sync::Arc;

use super::choose::choose;
use super::config::LanguageConfig;
use super::install;
use super::readiness::Readiness;
use super::supervisor::{MAX_RESTARTS, Slot, Supervisor};
use crate::model::{ServerState, ServerStatus};
use crate::sync::lock;

impl Supervisor {
    /// The status of every configured language's server(s), for `logs`.
    pub fn statuses(&self, display: impl Fn(&Path) -> String) -> Vec<ServerStatus> {
        let slots: Vec<Arc<Slot>> = lock(&self.slots).clone();
        let mut statuses = Vec::new();
        for language in &self.config.languages {
            let mine: Vec<&Arc<Slot>> = slots.iter().filter(|s| s.name == language.name).collect();
            if mine.is_empty() {
                // What would run for a file at the workspace root.
                let choice = choose(
                    language,
                    &self.workspace_root,
                    &self.workspace_root,
                    &self.config.tools_dir,
                    self.walks(),
                );
                let language = &choice.language;
                let state = match self.locate(language) {
                    Some(_) => ServerState::NotStarted,
                    None if self.config.auto_install && language.install.is_some() => {
                        ServerState::NotStarted
                    }
                    None => ServerState::Missing {
                        hint: install::install_hint(language, &self.config.tools_dir),
                    },
                };
                statuses.push(ServerStatus {
                    language: language.name.clone(),
                    server: language.server_name().to_string(),
                    root: None,
                    command: command_line(language, &display),
                    reason: choice.reason,
                    state,
                    pid: None,
                    uptime_secs: None,
                    restarts: 0,
                });
            }
            for slot in mine {
                let info = slot.info();
                let running = info.client.as_ref().filter(|c| c.is_alive());
                let state = if let Some(client) = running {
                    match client.readiness() {
                        Readiness::Ready => ServerState::Ready,
                        Readiness::Indexing { title, percentage } => {
                            ServerState::Indexing { percentage, title }
                        }
                    }
                } else if info.starting {
                    ServerState::Starting
                } else if let Some(hint) = &info.missing {
                    ServerState::Missing { hint: hint.clone() }
                } else if let Some(dead) = info.client.as_ref() {
                    ServerState::Crashed {
                        exit: dead.end().unwrap_or_else(|| "the connection broke".into()),
                        stderr_tail: dead
                            .shared
                            .state()
                            .stderr_tail
                            .iter()
                            .rev()
                            .take(5)
                            .rev()
                            .cloned()
                            .collect(),
                        gave_up: info.crashes.len() >= MAX_RESTARTS,
                    }
                } else if let Some(error) = &info.failed {
                    match &info.last_crash {
                        Some((exit, stderr)) => ServerState::Crashed {
                            exit: exit.clone(),
                            stderr_tail: stderr.iter().rev().take(5).rev().cloned().collect(),
                            gave_up: info.gave_up,
                        },
                        None => ServerState::Failed {
                            error: error.clone(),
                        },
                    }
                } else {
                    ServerState::NotStarted
                };
                statuses.push(ServerStatus {
                    language: language.name.clone(),
                    server: slot.language.server_name().to_string(),
                    root: Some(display(&slot.root)),
                    command: command_line(&slot.language, &display),
                    reason: slot.reason.clone(),
                    state,
                    pid: running.and_then(|c| c.pid()),
                    uptime_secs: running.map(|c| c.started.elapsed().as_secs()),
                    restarts: info.restarts,
                });
            }
        }
        statuses
    }
}

/// The server's command line, a program found by path shown as `display`
/// shows paths.
fn command_line(language: &LanguageConfig, display: impl Fn(&Path) -> String) -> String {
    let program = Path::new(&language.command);
    let program = if program.is_absolute() {
        display(program)
    } else {
        language.command.clone()
    };
    std::iter::once(program)
        .chain(language.args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}
