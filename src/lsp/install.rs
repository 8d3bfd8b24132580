//! Finding a server's executable, and installing a built-in one into
//! sextant's tools directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::LspError;
use super::config::{Install, LanguageConfig};
use super::supervisor::{Slot, Supervisor};
use crate::model::LogLevel;
use crate::progress;

/// Where a server's program is: its `command` as a path (relative to the
/// workspace root) when it has a `/`, else the first of PATH, the
/// workspace's `node_modules/.bin`, and the tools directory (the server's
/// own npm prefix, then the shared `node_modules/.bin` and `bin`).
pub fn locate(
    language: &LanguageConfig,
    workspace_root: &Path,
    tools_dir: &Path,
) -> Option<PathBuf> {
    let command = &language.command;
    if command.contains('/') {
        let path = workspace_root.join(command);
        return is_executable(&path).then_some(path);
    }
    let path_dirs = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    path_dirs
        .into_iter()
        .chain([
            workspace_root.join("node_modules/.bin"),
            npm_prefix(tools_dir, language).join("node_modules/.bin"),
            tools_dir.join("node_modules/.bin"),
            tools_dir.join("bin"),
        ])
        .map(|dir| dir.join(command))
        .find(|path| is_executable(path))
}

/// Where npm installs a server: a prefix of its own in the tools directory,
/// so two servers can pin different versions of one package (TypeScript 7
/// for the native server, 6 for typescript-language-server).
pub fn npm_prefix(tools_dir: &Path, language: &LanguageConfig) -> PathBuf {
    tools_dir.join(language.server_name())
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// What a person should run to install the server themselves.
pub fn install_hint(language: &LanguageConfig, tools_dir: &Path) -> String {
    match &language.install {
        Some(Install::Npm(packages)) => format!(
            "install it with `npm install --prefix {} {}` (sextant does so itself when auto_install is on)",
            npm_prefix(tools_dir, language).display(),
            packages.join(" "),
        ),
        Some(Install::Rustup(component)) => {
            format!("install it with `rustup component add {component}`")
        }
        None => format!(
            "install `{}` and put it on PATH, or set `command` for [language.{}] in sextant.toml",
            language.command, language.name
        ),
    }
}

/// Runs the server's install recipe; the error carries the tool's own
/// output.
pub async fn install(language: &LanguageConfig, tools_dir: &Path) -> Result<String, String> {
    let Some(recipe) = &language.install else {
        return Err(format!("{} has no install recipe", language.server_name()));
    };
    let mut command = match recipe {
        Install::Npm(packages) => {
            let prefix = npm_prefix(tools_dir, language);
            std::fs::create_dir_all(&prefix)
                .map_err(|err| format!("cannot create {}: {err}", prefix.display()))?;
            let mut command = tokio::process::Command::new("npm");
            command
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(&prefix)
                .args(packages);
            command
        }
        Install::Rustup(component) => {
            let mut command = tokio::process::Command::new("rustup");
            command.args(["component", "add", component]);
            command
        }
    };
    let shown = format!("{:?}", command.as_std());
    command
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(600), command.output())
        .await
        .map_err(|_| format!("{shown} took more than 10 minutes"))?
        .map_err(|err| format!("{shown} could not run: {err}"))?;
    if output.status.success() {
        Ok(shown)
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        Err(format!(
            "{shown} failed: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        ))
    }
}

/// The server's version line (`--version`), for `sextant doctor`.
pub async fn version(program: &Path, args: &[String]) -> Option<String> {
    let output = tokio::time::timeout(
        Duration::from_secs(15),
        tokio::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output(),
    )
    .await
    .ok()?
    .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .next()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
}

/// Installing a missing server on first use, as the supervisor does it.
impl Supervisor {
    pub(super) fn can_install(&self, slot: &Slot) -> bool {
        self.config.auto_install && slot.language.install.is_some() && !slot.info().install_tried
    }

    pub(super) fn missing(&self, slot: &Slot) -> LspError {
        LspError::Missing {
            server: slot.language.server_name().to_string(),
            hint: install_hint(&slot.language, &self.config.tools_dir),
        }
    }

    /// Installs the server if its configuration says how and auto-install
    /// is on; otherwise answers what to install.
    pub(super) async fn try_install(&self, slot: &Slot) -> Result<(), LspError> {
        if !self.can_install(slot) {
            return Err(self.missing(slot));
        }
        slot.info().install_tried = true;
        let server = slot.language.server_name().to_string();
        progress::report(&format!("installing {server}"), None);
        self.logs
            .record(LogLevel::Info, &server, "not found: installing it");
        match install(&slot.language, &self.config.tools_dir).await {
            Ok(ran) => {
                self.logs
                    .record(LogLevel::Info, &server, format!("installed with {ran}"));
                Ok(())
            }
            Err(err) => {
                self.logs
                    .record(LogLevel::Error, &server, format!("install failed: {err}"));
                Err(LspError::Missing {
                    server,
                    hint: format!(
                        "installing it failed ({err}); {}",
                        install_hint(&slot.language, &self.config.tools_dir)
                    ),
                })
            }
        }
    }
}
