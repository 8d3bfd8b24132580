//! `sextant doctor`: what sextant would use on this machine, and what is
//! missing.

use crate::context::Context;
use crate::lsp::install;
use crate::model::{DoctorReport, LanguageCheck};

/// Checks every configured language's server and renders the report.
pub async fn report(ctx: &Context) -> String {
    crate::render::doctor(&check(ctx).await)
}

pub async fn check(ctx: &Context) -> DoctorReport {
    let config = ctx.lsp.config();
    let mut languages = Vec::new();
    for language in &config.languages {
        let found = install::locate(&language.command, ctx.workspace.root(), &config.tools_dir);
        let version = match &found {
            Some(program) => install::version(program, &language.version_args).await,
            None => None,
        };
        let hint = match (&found, &version) {
            (Some(_), Some(_)) => None,
            (Some(program), None) => Some(format!(
                "{} did not run `{} {}`; {}",
                program.display(),
                language.command,
                language.version_args.join(" "),
                install::install_hint(language, &config.tools_dir)
            )),
            (None, _) => Some(install::install_hint(language, &config.tools_dir)),
        };
        languages.push(LanguageCheck {
            language: language.name.clone(),
            extensions: language.extensions.clone(),
            command: std::iter::once(language.command.clone())
                .chain(language.args.iter().cloned())
                .collect::<Vec<_>>()
                .join(" "),
            found: found.map(|p| p.display().to_string()),
            version,
            hint,
        });
    }
    DoctorReport {
        version: env!("CARGO_PKG_VERSION").to_string(),
        workspace: ctx.workspace.root().display().to_string(),
        config_files: config.sources.clone(),
        tools_dir: config.tools_dir.display().to_string(),
        auto_install: config.auto_install,
        languages,
        grammars: Vec::new(),
        library_roots: ctx
            .workspace
            .library_roots()
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
    }
}
