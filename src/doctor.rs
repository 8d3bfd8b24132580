//! `sextant doctor`: what sextant would use on this machine, and what is
//! missing.

use std::path::Path;

use crate::context::Context;
use crate::lsp::choose::{Walks, as_run, choose};
use crate::lsp::config::LanguageConfig;
use crate::lsp::{install, shown};
use crate::model::{DoctorReport, InstanceCheck, LanguageCheck, ServerCheck};

/// Checks every configured language's server and renders the report, with
/// what the workspace's shared instance is doing.
pub async fn report(ctx: &Context, instance: InstanceCheck) -> String {
    crate::render::doctor(&check(ctx, instance).await)
}

pub async fn check(ctx: &Context, instance: InstanceCheck) -> DoctorReport {
    let config = ctx.lsp.config();
    let root = ctx.workspace.root();
    let mut languages = Vec::new();
    for language in &config.languages {
        let choice = choose(language, root, root, &config.tools_dir, Walks::FRESH);
        let mut servers = Vec::new();
        for server in language.servers() {
            let server = as_run(server, root, root, &config.tools_dir, Walks::FRESH);
            servers.push(check_server(&server, root, &config.tools_dir).await);
        }
        languages.push(LanguageCheck {
            language: language.name.clone(),
            extensions: language.extensions.clone(),
            chosen: choice.language.server_name().to_string(),
            reason: choice.reason,
            servers,
        });
    }
    DoctorReport {
        version: env!("CARGO_PKG_VERSION").to_string(),
        workspace: ctx.workspace.root().display().to_string(),
        config_files: config.sources.clone(),
        tools_dir: config.tools_dir.display().to_string(),
        auto_install: config.auto_install,
        languages,
        instance,
        grammars: Vec::new(),
        library_roots: ctx
            .workspace
            .library_roots()
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
    }
}

/// Whether `server` is found where sextant looks, and runs.
async fn check_server(server: &LanguageConfig, root: &Path, tools_dir: &Path) -> ServerCheck {
    let found = install::locate(server, root, tools_dir);
    let version = match &found {
        Some(program) => install::version(program, &server.version_args).await,
        None => None,
    };
    let hint = match (&found, &version) {
        (Some(_), Some(_)) => None,
        (Some(program), None) => Some(format!(
            "{} did not run `{} {}`; {}",
            program.display(),
            server.command,
            server.version_args.join(" "),
            install::install_hint(server, tools_dir)
        )),
        (None, _) => Some(install::install_hint(server, tools_dir)),
    };
    let program = match Path::new(&server.command).is_absolute() {
        true => shown(Path::new(&server.command), root),
        false => server.command.clone(),
    };
    ServerCheck {
        server: server.server_name().to_string(),
        command: std::iter::once(program)
            .chain(server.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
        found: found.map(|p| p.display().to_string()),
        version,
        hint,
    }
}
