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
/// workspace's `node_modules/.bin`, where its own install recipe puts it,
/// and the tools directory's shared `node_modules/.bin` and `bin`.
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
        .chain([workspace_root.join("node_modules/.bin")])
        .chain(installed_bin(tools_dir, language))
        .chain([tools_dir.join("node_modules/.bin"), tools_dir.join("bin")])
        .map(|dir| dir.join(command))
        .find(|path| is_executable(path))
}

/// Where a server installs: a folder of its own in the tools directory, so
/// two servers can pin different versions of one package (TypeScript 7
/// for the native server, 6 for typescript-language-server).
pub fn install_dir(tools_dir: &Path, language: &LanguageConfig) -> PathBuf {
    tools_dir.join(language.server_name())
}

/// The folder the server's own install recipe puts its program in.
fn installed_bin(tools_dir: &Path, language: &LanguageConfig) -> Option<PathBuf> {
    let dir = install_dir(tools_dir, language);
    match language.install.as_ref()? {
        Install::Npm(_) => Some(dir.join("node_modules/.bin")),
        Install::Pip { bin, .. } => Some(dir.join(bin)),
        Install::Go(_) => Some(dir.join("bin")),
        Install::Rustup(_) => None,
    }
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
    let yourself = "(sextant does so itself when auto_install is on)";
    match &language.install {
        Some(recipe @ (Install::Npm(_) | Install::Pip { .. } | Install::Go(_))) => {
            let command = recipe_command(recipe, &install_dir(tools_dir, language));
            format!("install it with `{}` {yourself}", shell_words(&command))
        }
        Some(Install::Rustup(component)) => {
            format!("install it with `rustup component add {component}`")
        }
        None => format!(
            "install `{}` and put it on PATH, or set `command` for [language.{}] in sextant.toml",
            language.command, language.name
        ),
    }
}

/// The runtime a recipe runs with, and what to tell a person who lacks it.
fn runtime(recipe: &Install) -> (&'static str, &'static str) {
    match recipe {
        Install::Npm(_) => ("npm", "install Node.js (with npm) and put `npm` on PATH"),
        Install::Pip { .. } => (
            "python3",
            "install Python 3 with pip (`python3 -m pip` must run; Debian: `apt install python3-pip`)",
        ),
        Install::Go(_) => ("go", "install Go (https://go.dev/dl) and put `go` on PATH"),
        Install::Rustup(_) => ("rustup", "install Rust with rustup (https://rustup.rs)"),
    }
}

/// The command a recipe runs, installing into `dir` (the server's own
/// folder of the tools directory).
fn recipe_command(recipe: &Install, dir: &Path) -> std::process::Command {
    let (program, _) = runtime(recipe);
    let mut command = std::process::Command::new(program);
    match recipe {
        Install::Npm(packages) => {
            command
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(dir)
                .args(packages);
        }
        Install::Pip { packages, .. } => {
            // `--target`: a folder of its own, also where pip refuses to
            // install into a system Python (PEP 668).
            command
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--no-input",
                ])
                .arg("--target")
                .arg(dir)
                .args(packages);
        }
        Install::Go(package) => {
            command
                .args(["install", package])
                .env("GOBIN", dir.join("bin"));
        }
        Install::Rustup(component) => {
            command.args(["component", "add", component]);
        }
    }
    command
}

/// A command as a person would type it (its `GOBIN=` included).
fn shell_words(command: &std::process::Command) -> String {
    let env = command
        .get_envs()
        .filter_map(|(key, value)| Some(format!("{}={}", key.to_str()?, value?.to_str()?)));
    let words = std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|word| word.to_string_lossy().into_owned());
    env.chain(words).collect::<Vec<_>>().join(" ")
}

/// Runs the server's install recipe; the error carries the tool's own
/// output, or what to install first when the recipe's runtime is missing.
pub async fn install(language: &LanguageConfig, tools_dir: &Path) -> Result<String, String> {
    let Some(recipe) = &language.install else {
        return Err(format!("{} has no install recipe", language.server_name()));
    };
    let dir = install_dir(tools_dir, language);
    if !matches!(recipe, Install::Rustup(_)) {
        std::fs::create_dir_all(&dir)
            .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    }
    let (_, fix) = runtime(recipe);
    run_recipe(recipe_command(recipe, &dir), fix).await
}

/// Runs an install command; `fix` says what to install when its program
/// is missing.
async fn run_recipe(command: std::process::Command, fix: &str) -> Result<String, String> {
    let shown = shell_words(&command);
    let program = command.get_program().to_string_lossy().into_owned();
    let mut command = tokio::process::Command::from(command);
    command
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = match tokio::time::timeout(Duration::from_secs(600), command.output()).await {
        Err(_) => return Err(format!("`{shown}` took more than 10 minutes")),
        Ok(Err(err)) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("`{program}` is not installed: {fix}"));
        }
        Ok(Err(err)) => return Err(format!("`{shown}` could not run: {err}")),
        Ok(Ok(output)) => output,
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        Ok(shown)
    } else if stderr.contains("No module named pip") {
        Err(format!("Python has no pip: {fix}"))
    } else {
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        Err(format!(
            "`{shown}` failed: {}",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::config::Config;

    #[test]
    fn each_recipe_says_what_to_run() {
        let config = Config::built_in();
        let tools = Path::new("/tools");
        let hint = |name: &str| install_hint(config.language(name).unwrap(), tools);
        assert_eq!(
            hint("python"),
            "install it with `python3 -m pip install --disable-pip-version-check --no-input --target /tools/ty ty==0.0.107` (sextant does so itself when auto_install is on)"
        );
        assert_eq!(
            hint("rust"),
            "install it with `rustup component add rust-analyzer`"
        );
        let mut gopls = config.language("python").unwrap().clone();
        gopls.server = "gopls".into();
        gopls.install = Some(Install::Go("golang.org/x/tools/gopls@v0.21.0".into()));
        assert_eq!(
            install_hint(&gopls, tools),
            "install it with `GOBIN=/tools/gopls/bin go install golang.org/x/tools/gopls@v0.21.0` (sextant does so itself when auto_install is on)"
        );
        assert_eq!(
            installed_bin(tools, &gopls),
            Some(PathBuf::from("/tools/gopls/bin"))
        );
    }

    /// A recipe whose runtime is missing says what to install, in one line.
    #[tokio::test]
    async fn a_missing_runtime_is_named_with_its_fix() {
        let command = std::process::Command::new("sextant-no-such-runtime");
        let err = run_recipe(command, "install the runtime")
            .await
            .unwrap_err();
        assert_eq!(
            err,
            "`sextant-no-such-runtime` is not installed: install the runtime"
        );
    }
}
