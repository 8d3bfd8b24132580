//! Which server runs a language that offers several (`servers` in its
//! configuration), per project: the one the configuration names, or, for
//! `server = "auto"`, the one the project's own tooling calls for. The
//! tooling is read by the quirk of the language that has one
//! (`quirks::typescript_server`); any other language gets its first server
//! installed. What the tooling's walks of a project find is kept while the
//! file watcher hears every change ([`Walks`]).

use std::path::Path;

pub use super::config::Choice;
use super::config::LanguageConfig;
use super::install;
use super::quirks::typescript_server;
pub use super::quirks::typescript_server::{Walked, Walks};

/// The server for `language` in the project at `project_root`.
pub fn choose(
    language: &LanguageConfig,
    project_root: &Path,
    workspace_root: &Path,
    tools_dir: &Path,
    walks: Walks<'_>,
) -> Choice {
    let Some(choice) = &language.choice else {
        return Choice {
            language: language.clone(),
            reason: None,
        };
    };
    if let Some(chosen) =
        typescript_server::choose(choice, project_root, workspace_root, tools_dir, walks)
    {
        return chosen;
    }
    let (server, reason) = match &choice.pick {
        Some(name) => (
            choice
                .servers
                .iter()
                .find(|s| s.server == *name)
                .expect("config checks the pick"),
            format!("server = \"{name}\" in the configuration"),
        ),
        // The first one installed, else the first one.
        None => match choice
            .servers
            .iter()
            .find(|s| install::locate(s, workspace_root, tools_dir).is_some())
        {
            Some(server) => (server, "the first of its servers installed".to_string()),
            None => (
                &choice.servers[0],
                "none of its servers is installed: the first".to_string(),
            ),
        },
    };
    Choice {
        language: server.clone(),
        reason: Some(reason),
    }
}

/// `server` as it would run for the project: the program a quirk runs it
/// as (TypeScript's native server), else as configured.
pub fn as_run(
    server: &LanguageConfig,
    project_root: &Path,
    workspace_root: &Path,
    tools_dir: &Path,
    walks: Walks<'_>,
) -> LanguageConfig {
    typescript_server::as_run(server, project_root, workspace_root, tools_dir, walks)
        .unwrap_or_else(|| server.clone())
}
