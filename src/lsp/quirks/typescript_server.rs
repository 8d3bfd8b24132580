//! TypeScript's choice of server (see `choose`), per project: for
//! `server = "auto"`, the one the project's own TypeScript calls for.
//!
//! TypeScript 7 (the native port) has
//! its own language server, `tsc --lsp --stdio`, several times faster than
//! typescript-language-server and a third of its memory; but it has no
//! tsserver, so a project that pins TypeScript 6 or older keeps
//! typescript-language-server running that TypeScript, whose checks are the
//! ones the project builds with. The native server's `tsc` is the platform
//! binary that npm installs beside the `typescript` package (the `tsc` in
//! `node_modules/.bin` is a node shim that would stand between sextant and
//! the server's pid), never a `tsc` on PATH, which is usually an older,
//! JavaScript TypeScript.

use std::path::{Path, PathBuf};

use super::super::config::{Choice, LanguageConfig, ServerChoice};
use super::super::shown;
use crate::fs::memo::Memo;
use crate::fs::workspace::normalize;

/// The built-in names of TypeScript's two servers (`languages.toml`).
pub const TYPESCRIPT_GO: &str = "typescript-go";
pub const TYPESCRIPT_LANGUAGE_SERVER: &str = "typescript-language-server";

/// The choice among TypeScript's two servers for a project, when
/// `choice` is theirs: the native server when the configuration picks it
/// (with the program it runs), or `auto`'s choice by the project's own
/// TypeScript. `None` for any other choice (see `choose`).
pub(in crate::lsp) fn choose(
    choice: &ServerChoice,
    project_root: &Path,
    workspace_root: &Path,
    tools_dir: &Path,
    walks: Walks<'_>,
) -> Option<Choice> {
    let named = |name: &str| choice.servers.iter().find(|s| s.server == name);
    let project = || TypeScriptProject::find(project_root, workspace_root, walks);
    match &choice.pick {
        Some(name) if name == TYPESCRIPT_GO => {
            let server = named(name)?;
            let (native, _) = native_server(server, &project(), workspace_root, tools_dir);
            Some(Choice {
                language: native,
                reason: Some(format!("server = \"{name}\" in the configuration")),
            })
        }
        Some(_) => None,
        None => {
            let (native, javascript) =
                named(TYPESCRIPT_GO).zip(named(TYPESCRIPT_LANGUAGE_SERVER))?;
            // No project file at all: the server that can hold the files in one
            // project (`loose_files`) answers for all of them; the native server
            // would check each opened file alone.
            if let Some(loose) = &javascript.loose_files
                && walks.kept(
                    |walked| &walked.loose_files,
                    (project_root.to_path_buf(), loose.extensions.clone()),
                    || super::loose_files::wanted(project_root, &loose.extensions),
                )
            {
                return Some(Choice {
                language: javascript.clone(),
                reason: Some(
                    "no tsconfig.json or jsconfig.json: it holds the files in one project (the native server would check each opened file alone)"
                        .into(),
                ),
            });
            }
            Some(typescript_auto(
                native,
                javascript,
                &project(),
                workspace_root,
                tools_dir,
            ))
        }
    }
}

/// `server` as it would run for the project, if it is the native
/// TypeScript server: with the program it would run as its `command`.
pub(in crate::lsp) fn as_run(
    server: &LanguageConfig,
    project_root: &Path,
    workspace_root: &Path,
    tools_dir: &Path,
    walks: Walks<'_>,
) -> Option<LanguageConfig> {
    if server.server != TYPESCRIPT_GO {
        return None;
    }
    let project = TypeScriptProject::find(project_root, workspace_root, walks);
    Some(native_server(server, &project, workspace_root, tools_dir).0)
}

/// `auto` for TypeScript: the server that checks the way the project
/// checks itself. The project's scripts decide first: one that runs
/// `tsgo` keeps the native server; one that runs `tsc` runs the project's
/// own TypeScript, so TypeScript 6 or older gets typescript-language-server
/// even with a native preview installed beside it (for a benchmark, say).
/// With neither, the native server unless the project pins a JavaScript
/// TypeScript with no native compiler beside it.
fn typescript_auto(
    native: &LanguageConfig,
    javascript: &LanguageConfig,
    project: &TypeScriptProject,
    workspace_root: &Path,
    tools_dir: &Path,
) -> Choice {
    match (&project.checks_with, &project.typescript) {
        (Some(script), _) if script.program == "tsgo" => {
            let (language, _) = native_server(native, project, workspace_root, tools_dir);
            return Choice {
                language,
                reason: Some(format!("{} runs tsgo", script.shown(workspace_root))),
            };
        }
        (Some(script), Some(typescript)) if typescript.major < 7 => {
            return Choice {
                language: javascript.clone(),
                reason: Some(format!(
                    "{} runs tsc, and the project's TypeScript is {} ({})",
                    script.shown(workspace_root),
                    typescript.version,
                    shown(&typescript.dir, workspace_root)
                )),
            };
        }
        _ => {}
    }
    match (&project.typescript, &project.native_preview) {
        (Some(typescript), None) if typescript.major < 7 => Choice {
            language: javascript.clone(),
            reason: Some(format!(
                "the project pins TypeScript {} ({}) with no native compiler beside it",
                typescript.version,
                shown(&typescript.dir, workspace_root)
            )),
        },
        _ => {
            let (language, reason) = native_server(native, project, workspace_root, tools_dir);
            Choice {
                language,
                reason: Some(reason),
            }
        }
    }
}

/// The native server with `command` set to the program it runs: the
/// project's TypeScript 7, else its native preview, else sextant's own
/// TypeScript 7 in the tools directory (installed there on first use).
fn native_server(
    native: &LanguageConfig,
    project: &TypeScriptProject,
    workspace_root: &Path,
    tools_dir: &Path,
) -> (LanguageConfig, String) {
    let mut language = native.clone();
    let mut missing_binary = None;
    if let Some(typescript) = project.typescript.as_ref().filter(|t| t.major >= 7) {
        match typescript.native_binary() {
            Some(binary) => {
                language.command = binary.display().to_string();
                let reason = format!(
                    "the project uses TypeScript {} ({})",
                    typescript.version,
                    shown(&typescript.dir, workspace_root)
                );
                return (language, reason);
            }
            None => missing_binary = Some(typescript),
        }
    }
    if let Some(preview) = &project.native_preview
        && let Some(binary) = preview.native_binary()
    {
        language.command = binary.display().to_string();
        let beside = match &project.typescript {
            Some(typescript) => format!(" beside TypeScript {}", typescript.version),
            None => String::new(),
        };
        let reason = format!(
            "the project has the native preview {} ({}){beside}",
            preview.version,
            shown(&preview.dir, workspace_root)
        );
        return (language, reason);
    }
    let own = tools_dir.join(&native.server).join("node_modules");
    let package = Package::read(&own.join("typescript"), "typescript");
    language.command = package
        .as_ref()
        .and_then(Package::native_binary)
        .unwrap_or_else(|| platform_binary(&own, "typescript", "tsc"))
        .display()
        .to_string();
    let why = match missing_binary {
        Some(typescript) => format!(
            "the project's TypeScript {} ({}) has no native compiler for this platform installed",
            typescript.version,
            shown(&typescript.dir, workspace_root)
        ),
        None => "no TypeScript in the project".to_string(),
    };
    (language, format!("{why}: sextant's own TypeScript 7"))
}

/// The TypeScript packages a project can see, and how it checks itself.
#[derive(Debug, Default)]
struct TypeScriptProject {
    typescript: Option<Package>,
    native_preview: Option<Package>,
    /// The script that type-checks the project, where one does.
    checks_with: Option<Script>,
}

impl TypeScriptProject {
    fn find(project_root: &Path, workspace_root: &Path, walks: Walks<'_>) -> TypeScriptProject {
        TypeScriptProject {
            // The TypeScript whose `tsc` the scripts run: the package that
            // owns `node_modules/.bin/tsc` (an alias such as
            // `"typescript70": "npm:typescript@7…"` may own it while
            // `node_modules/typescript` is older), else `typescript`.
            typescript: bin_tsc_package(project_root, workspace_root)
                .or_else(|| find_package("typescript", project_root, workspace_root)),
            native_preview: find_package(
                "@typescript/native-preview",
                project_root,
                workspace_root,
            ),
            checks_with: walks.kept(
                |walked| &walked.checks_with,
                project_root.to_path_buf(),
                || checks_with(project_root, workspace_root),
            ),
        }
    }
}

/// What choosing finds by walking a project's files, by project root: the
/// most of a choice's time (a walk of the workspace for loose files and
/// one for package.json scripts: 4 ms of every `logs` on ripgrep, which
/// shows the choice for each language not started). The packages a project
/// sees are not among it: they are looked up in `node_modules` on every
/// choice (a few `stat`s), as are the tools directory and `PATH`, which
/// are outside the workspace.
#[derive(Debug, Default)]
pub struct Walked {
    /// By project root and the extensions looked for.
    loose_files: Memo<(PathBuf, Vec<String>), bool>,
    checks_with: Memo<PathBuf, Option<Script>>,
}

impl Walked {
    /// Forgets everything found (the workspace changed); a walk under way
    /// keeps nothing.
    pub fn forget(&self) {
        self.loose_files.forget();
        self.checks_with.forget();
    }
}

/// Where what choosing walks for is kept, if it may be: the supervisor
/// keeps a [`Walked`] while its file watcher hears every change in the
/// workspace, and forgets it at the first change handed out.
#[derive(Clone, Copy)]
pub struct Walks<'a>(Option<&'a Walked>);

impl<'a> Walks<'a> {
    /// Every walk made afresh: nothing would tell when what it found went
    /// stale.
    pub const FRESH: Walks<'static> = Walks(None);

    /// What is found kept in `walked`, and taken from it while there.
    pub fn kept_in(walked: &'a Walked) -> Walks<'a> {
        Walks(Some(walked))
    }

    /// What `walk` finds for `key`, as kept in the field `of` or walked
    /// now (see `Memo::get_or`).
    fn kept<K: Eq + std::hash::Hash, T: Clone>(
        self,
        of: fn(&Walked) -> &Memo<K, T>,
        key: K,
        walk: impl FnOnce() -> T,
    ) -> T {
        match self.0 {
            Some(walked) => of(walked).get_or(key, walk),
            None => walk(),
        }
    }
}

/// A package.json script that runs TypeScript's compiler.
#[derive(Debug, Clone)]
struct Script {
    manifest: PathBuf,
    name: String,
    /// `tsgo` or `tsc`.
    program: &'static str,
}

impl Script {
    fn shown(&self, workspace_root: &Path) -> String {
        format!(
            "the `{}` script of {}",
            self.name,
            shown(&self.manifest, workspace_root)
        )
    }
}

/// Package manifests read for scripts, at most.
const MAX_MANIFESTS: usize = 200;

/// How the project checks itself: a script of its package.json, of its
/// workspace packages' (one server serves a monorepo's packages), or of
/// the workspace root's, that runs `tsgo` (first, wherever it is) or
/// `tsc`.
fn checks_with(project_root: &Path, workspace_root: &Path) -> Option<Script> {
    let mut manifests: Vec<PathBuf> = crate::fs::walk::sources(project_root)
        .max_depth(4)
        .sorted()
        .files()
        .filter(|path| path.file_name().is_some_and(|n| n == "package.json"))
        .take(MAX_MANIFESTS)
        .collect();
    let root_manifest = workspace_root.join("package.json");
    if !manifests.contains(&root_manifest) && root_manifest.is_file() {
        manifests.push(root_manifest);
    }
    let scripts: Vec<Script> = manifests
        .iter()
        .flat_map(|manifest| {
            let json: serde_json::Value = std::fs::read_to_string(manifest)
                .ok()
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or_default();
            let scripts = json
                .get("scripts")
                .and_then(serde_json::Value::as_object)
                .cloned()
                .unwrap_or_default();
            scripts
                .into_iter()
                .filter_map(|(name, command)| {
                    let program = runs(command.as_str()?)?;
                    Some(Script {
                        manifest: manifest.clone(),
                        name,
                        program,
                    })
                })
                .collect::<Vec<_>>()
        })
        .collect();
    scripts
        .iter()
        .find(|script| script.program == "tsgo")
        .or_else(|| scripts.first())
        .cloned()
}

/// Which of TypeScript's compilers a script's command runs, if one: a
/// command word `tsgo` or `tsc` (`tsc -p tsconfig.json`, `pnpm exec tsgo
/// --noEmit`, `... && tsc -b`).
fn runs(command: &str) -> Option<&'static str> {
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, '&' | '|' | ';' | '(' | ')'))
        .filter(|word| !word.is_empty())
        .collect();
    let mentions = |program: &str| {
        words
            .iter()
            .any(|word| *word == program || word.ends_with(&format!("/{program}")))
    };
    if mentions("tsgo") {
        Some("tsgo")
    } else if mentions("tsc") {
        Some("tsc")
    } else {
        None
    }
}

/// An installed npm package.
#[derive(Debug, Clone)]
struct Package {
    name: String,
    /// Its folder as found (through pnpm's symlinks, not resolved).
    dir: PathBuf,
    version: String,
    major: u32,
    /// The `name` its package.json gives (an alias's folder has its own).
    manifest_name: Option<String>,
}

impl Package {
    fn read(dir: &Path, name: &str) -> Option<Package> {
        let manifest = std::fs::read_to_string(dir.join("package.json")).ok()?;
        let manifest: serde_json::Value = serde_json::from_str(&manifest).ok()?;
        let version = manifest.get("version")?.as_str()?.to_string();
        let major = version.split('.').next()?.parse().ok()?;
        let manifest_name = manifest
            .get("name")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string);
        Some(Package {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            version,
            major,
            manifest_name,
        })
    }

    /// The native compiler this package runs, for this platform: npm puts
    /// `@typescript/<package>-<os>-<arch>` where node resolves it from the
    /// package's real folder (nested, hoisted, or beside it in pnpm's store).
    fn native_binary(&self) -> Option<PathBuf> {
        let (base, program) = match self.name.as_str() {
            "typescript" => ("typescript", "tsc"),
            "@typescript/native-preview" => ("native-preview", "tsgo"),
            _ => return None,
        };
        let real = self.dir.canonicalize().ok()?;
        std::iter::once(real.join("node_modules"))
            .chain(
                real.ancestors()
                    .filter(|dir| dir.file_name().is_some_and(|n| n == "node_modules"))
                    .map(Path::to_path_buf),
            )
            .map(|node_modules| platform_binary(&node_modules, base, program))
            .find(|binary| binary.is_file())
    }
}

/// Where npm puts `@typescript/<base>-<os>-<arch>`'s program under a
/// `node_modules` folder.
fn platform_binary(node_modules: &Path, base: &str, program: &str) -> PathBuf {
    let (os, arch) = node_platform();
    let exe = if cfg!(windows) { ".exe" } else { "" };
    node_modules
        .join("@typescript")
        .join(format!("{base}-{os}-{arch}"))
        .join("lib")
        .join(format!("{program}{exe}"))
}

/// This machine as node names it (`process.platform`, `process.arch`).
fn node_platform() -> (&'static str, &'static str) {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "x86" => "ia32",
        "powerpc64" => "ppc64",
        other => other,
    };
    (os, arch)
}

/// `name` as node would resolve it from the project: `node_modules/<name>`
/// in the project's folder or a folder above it, within the workspace; else
/// the newest copy in pnpm's store, for a monorepo whose root lists it in
/// no package.json of its own.
fn find_package(name: &str, project_root: &Path, workspace_root: &Path) -> Option<Package> {
    let above = project_root
        .ancestors()
        .take_while(|dir| dir.starts_with(workspace_root))
        .find_map(|dir| Package::read(&dir.join("node_modules").join(name), name));
    above.or_else(|| {
        let store = project_root.join("node_modules/.pnpm");
        let prefix = format!("{}@", name.replace('/', "+"));
        std::fs::read_dir(store)
            .ok()?
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().starts_with(&prefix))
            .filter_map(|entry| Package::read(&entry.path().join("node_modules").join(name), name))
            .max_by(|a, b| version_key(&a.version).cmp(&version_key(&b.version)))
    })
}

/// The TypeScript package whose compiler `node_modules/.bin/tsc` runs, in
/// the project's folder or the nearest folder above it within the
/// workspace that has one: npm links it to the package's `bin/tsc`, pnpm
/// and Windows write a shim script that names that path.
fn bin_tsc_package(project_root: &Path, workspace_root: &Path) -> Option<Package> {
    let bin = project_root
        .ancestors()
        .take_while(|dir| dir.starts_with(workspace_root))
        .map(|dir| dir.join("node_modules/.bin/tsc"))
        .find(|bin| bin.symlink_metadata().is_ok())?;
    let bin_dir = bin.parent()?;
    let targets: Vec<PathBuf> = match std::fs::read_link(&bin) {
        Ok(target) => vec![bin_dir.join(target)],
        // A shim: the paths it runs (`"$basedir/../typescript/bin/tsc"`,
        // pnpm's `"$basedir_abs"/'../.pnpm/…/bin/tsc'` and its
        // `# cmd-shim-target=/…/bin/tsc`), `$basedir` being its folder.
        Err(_) => std::fs::read_to_string(&bin)
            .ok()?
            .replace(['"', '\''], "")
            .split_whitespace()
            .filter_map(|word| {
                let word = word.strip_prefix("cmd-shim-target=").unwrap_or(word);
                if !word.ends_with("/bin/tsc") {
                    return None;
                }
                let relative = ["$basedir_abs/", "$basedir_win/", "$basedir/"]
                    .iter()
                    .find_map(|prefix| word.strip_prefix(prefix));
                Some(match relative {
                    Some(relative) => bin_dir.join(relative),
                    None => PathBuf::from(word),
                })
            })
            .collect(),
    };
    targets.iter().find_map(|target| {
        let target = normalize(target);
        target
            .ancestors()
            .skip(1)
            .find(|dir| dir.join("package.json").is_file())
            .and_then(|dir| Package::read(dir, "typescript"))
            .filter(|package| package.manifest_name.as_deref() == Some("typescript"))
    })
}

/// A version's numeric parts, for ordering (`7.0.2` > `6.0.3`).
fn version_key(version: &str) -> Vec<u64> {
    version
        .split(['.', '-', '+'])
        .map_while(|part| part.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::choose::choose;
    use crate::lsp::config::Config;

    /// A workspace with `packages` (`name@version` under `dir`/node_modules)
    /// and the native binaries npm would put beside them.
    struct Layout {
        dir: tempfile::TempDir,
    }

    impl Layout {
        fn new() -> Layout {
            Layout {
                dir: tempfile::tempdir().unwrap(),
            }
        }

        fn root(&self) -> &Path {
            self.dir.path()
        }

        fn package(&self, node_modules: &str, name: &str, version: &str) -> &Layout {
            let dir = self.root().join(node_modules).join(name);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join("package.json"),
                format!(r#"{{"name": "{name}", "version": "{version}"}}"#),
            )
            .unwrap();
            self
        }

        fn binary(&self, node_modules: &str, base: &str, program: &str) -> PathBuf {
            let path = platform_binary(&self.root().join(node_modules), base, program);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "").unwrap();
            path
        }

        fn choose(&self, config: &str) -> (String, String, String) {
            std::fs::write(self.root().join("sextant.toml"), config).unwrap();
            let config = Config::load(self.root(), None).unwrap();
            let tools = self.root().join("tools");
            let language = config.language("typescript").unwrap();
            let choice = choose(language, self.root(), self.root(), &tools, Walks::FRESH);
            let command = shown(Path::new(&choice.language.command), self.root());
            (
                choice.language.server,
                command,
                choice.reason.unwrap_or_default(),
            )
        }
    }

    const AUTO: &str = "";
    const NATIVE: &str = "[language.typescript]\nserver = \"typescript-go\"\n";
    const TSSERVER: &str = "[language.typescript]\nserver = \"typescript-language-server\"\n";

    fn own_binary() -> String {
        shown(
            &platform_binary(
                Path::new("tools/typescript-go/node_modules"),
                "typescript",
                "tsc",
            ),
            Path::new(""),
        )
    }

    #[test]
    fn javascript_with_no_config_runs_the_server_that_holds_it_in_one_project() {
        let w = Layout::new();
        w.package("node_modules", "typescript", "7.0.2");
        w.binary("node_modules", "typescript", "tsc");
        std::fs::create_dir_all(w.root().join("lib")).unwrap();
        std::fs::write(w.root().join("lib/app.js"), "exports.x = 1;\n").unwrap();
        let (server, _, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-language-server");
        assert!(
            reason.starts_with("no tsconfig.json or jsconfig.json"),
            "{reason}"
        );
        // A config says what its project holds: the usual choice.
        std::fs::write(w.root().join("jsconfig.json"), "{}").unwrap();
        let (server, _, _) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        // Asked for by name, the native server runs all the same.
        std::fs::remove_file(w.root().join("jsconfig.json")).unwrap();
        let (server, _, _) = w.choose(NATIVE);
        assert_eq!(server, "typescript-go");
    }

    #[test]
    fn typescript_7_in_the_workspace_runs_its_native_server() {
        let w = Layout::new();
        w.package("node_modules", "typescript", "7.0.2");
        let binary = w.binary("node_modules", "typescript", "tsc");
        let (server, command, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        assert_eq!(command, shown(&binary, w.root()));
        assert_eq!(
            reason,
            "the project uses TypeScript 7.0.2 (node_modules/typescript)"
        );
        // Forcing typescript-language-server is obeyed.
        let (server, command, reason) = w.choose(TSSERVER);
        assert_eq!(
            (server.as_str(), command.as_str(), reason.as_str()),
            (
                "typescript-language-server",
                "typescript-language-server",
                "server = \"typescript-language-server\" in the configuration"
            )
        );
    }

    #[test]
    fn pnpms_store_is_followed_to_the_binary_beside_the_package() {
        let w = Layout::new();
        let store = "node_modules/.pnpm/typescript@7.0.2/node_modules";
        w.package(store, "typescript", "7.0.2");
        let binary = w.binary(store, "typescript", "tsc");
        std::os::unix::fs::symlink(
            w.root().join(store).join("typescript"),
            w.root().join("node_modules/typescript"),
        )
        .unwrap();
        let (server, command, _) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        assert_eq!(
            Path::new(&w.root().join(&command)).canonicalize().unwrap(),
            binary.canonicalize().unwrap()
        );

        // A monorepo root that lists TypeScript in no package.json of its
        // own: only pnpm's store has it.
        std::fs::remove_file(w.root().join("node_modules/typescript")).unwrap();
        let (server, _, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        assert!(
            reason.starts_with("the project uses TypeScript 7.0.2 (node_modules/.pnpm/"),
            "{reason}"
        );
    }

    #[test]
    fn the_native_preview_beside_typescript_5_runs_the_native_server() {
        let w = Layout::new();
        w.package("node_modules", "typescript", "5.9.3").package(
            "node_modules",
            "@typescript/native-preview",
            "7.0.0-dev.20260707.2",
        );
        let binary = w.binary("node_modules", "native-preview", "tsgo");
        let (server, command, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        assert_eq!(command, shown(&binary, w.root()));
        assert_eq!(
            reason,
            "the project has the native preview 7.0.0-dev.20260707.2 (node_modules/@typescript/native-preview) beside TypeScript 5.9.3"
        );
    }

    /// The project's own check decides: a script running `tsc` with
    /// TypeScript 5 gets typescript-language-server though a native preview
    /// is installed beside it; one running `tsgo`, in any package of a
    /// monorepo, keeps the native server.
    #[test]
    fn the_script_that_checks_the_project_decides() {
        let w = Layout::new();
        w.package("node_modules", "typescript", "5.9.3").package(
            "node_modules",
            "@typescript/native-preview",
            "7.0.0-dev.20260707.2",
        );
        let binary = w.binary("node_modules", "native-preview", "tsgo");
        std::fs::write(
            w.root().join("package.json"),
            r#"{"scripts": {"bench": "node bench.js", "test": "tsc -p tsconfig.test.json && vitest"}}"#,
        )
        .unwrap();
        let (server, _, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-language-server");
        assert_eq!(
            reason,
            "the `test` script of package.json runs tsc, and the project's TypeScript is 5.9.3 (node_modules/typescript)"
        );
        let package = w.root().join("packages/core");
        std::fs::create_dir_all(&package).unwrap();
        std::fs::write(
            package.join("package.json"),
            r#"{"scripts": {"typecheck": "tsgo -p tsconfig.json --noEmit"}}"#,
        )
        .unwrap();
        let (server, command, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        assert_eq!(command, shown(&binary, w.root()));
        assert_eq!(
            reason,
            "the `typecheck` script of packages/core/package.json runs tsgo"
        );
    }

    /// `node_modules/.bin/tsc` decides which TypeScript a `tsc` script
    /// runs: an alias package may own it while `node_modules/typescript`
    /// is older.
    #[test]
    fn the_typescript_that_owns_bin_tsc_is_the_one_scripts_run() {
        let w = Layout::new();
        w.package("node_modules", "typescript", "6.0.3");
        let alias = w.root().join("node_modules/typescript70");
        std::fs::create_dir_all(&alias).unwrap();
        std::fs::write(
            alias.join("package.json"),
            r#"{"name": "typescript", "version": "7.0.2"}"#,
        )
        .unwrap();
        let binary = w.binary(
            "node_modules/typescript70/node_modules",
            "typescript",
            "tsc",
        );
        std::fs::create_dir_all(w.root().join("node_modules/.bin")).unwrap();
        std::fs::write(
            w.root().join("package.json"),
            r#"{"scripts": {"build": "tsc --build"}}"#,
        )
        .unwrap();
        // npm links it.
        let bin = w.root().join("node_modules/.bin/tsc");
        std::os::unix::fs::symlink("../typescript70/bin/tsc", &bin).unwrap();
        let (server, command, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        assert_eq!(command, shown(&binary, w.root()));
        assert_eq!(
            reason,
            "the project uses TypeScript 7.0.2 (node_modules/typescript70)"
        );
        // pnpm writes a shim that names it.
        std::fs::remove_file(&bin).unwrap();
        std::fs::write(
            &bin,
            "#!/bin/sh\nbasedir=$(dirname \"$0\")\nexec node  \"$basedir/../typescript70/bin/tsc\" \"$@\"\n",
        )
        .unwrap();
        let (server, _, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        assert!(
            reason.contains("7.0.2 (node_modules/typescript70)"),
            "{reason}"
        );
        // pnpm 11's shim: single-quoted paths after `$basedir_abs`.
        std::fs::write(
            &bin,
            "exec node  \"$basedir_abs\"/'../typescript70/bin/tsc' \"$@\"\n# cmd-shim-target=/elsewhere/bin/tsc\n",
        )
        .unwrap();
        let (server, _, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        assert!(
            reason.contains("7.0.2 (node_modules/typescript70)"),
            "{reason}"
        );
        // Owned by the older one: its server.
        std::fs::write(
            &bin,
            "exec node  \"$basedir/../typescript/bin/tsc\" \"$@\"\n",
        )
        .unwrap();
        let (server, _, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-language-server");
        assert!(
            reason.contains("runs tsc, and the project's TypeScript is 6.0.3"),
            "{reason}"
        );
    }

    #[test]
    fn a_script_runs_a_compiler_when_it_is_a_command_word() {
        assert_eq!(runs("tsc -p ."), Some("tsc"));
        assert_eq!(runs("pnpm exec tsgo --noEmit"), Some("tsgo"));
        assert_eq!(runs("eslint . && ./node_modules/.bin/tsc -b"), Some("tsc"));
        assert_eq!(runs("tsc-alias && echo tsconfig"), None);
        assert_eq!(runs("node scripts/tsc.js"), None);
    }

    #[test]
    fn typescript_5_alone_runs_typescript_language_server() {
        let w = Layout::new();
        w.package("node_modules", "typescript", "5.9.3");
        let (server, _, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-language-server");
        assert_eq!(
            reason,
            "the project pins TypeScript 5.9.3 (node_modules/typescript) with no native compiler beside it"
        );
        // Forcing the native server: sextant's own TypeScript 7.
        let (server, command, reason) = w.choose(NATIVE);
        assert_eq!(server, "typescript-go");
        assert_eq!(command, own_binary());
        assert_eq!(reason, "server = \"typescript-go\" in the configuration");
    }

    #[test]
    fn no_typescript_runs_sextants_own_typescript_7() {
        let w = Layout::new();
        let (server, command, reason) = w.choose(AUTO);
        assert_eq!(server, "typescript-go");
        assert_eq!(command, own_binary());
        assert_eq!(
            reason,
            "no TypeScript in the project: sextant's own TypeScript 7"
        );

        // TypeScript 7 whose platform package was not installed (a lock
        // file from another machine, --no-optional): sextant's own.
        w.package("node_modules", "typescript", "7.0.2");
        let (server, command, reason) = w.choose(AUTO);
        assert_eq!((server.as_str(), command), ("typescript-go", own_binary()));
        assert_eq!(
            reason,
            "the project's TypeScript 7.0.2 (node_modules/typescript) has no native compiler for this platform installed: sextant's own TypeScript 7"
        );
    }

    #[test]
    fn a_nested_project_sees_the_packages_above_it() {
        let w = Layout::new();
        w.package("node_modules", "typescript", "6.0.3");
        std::fs::create_dir_all(w.root().join("packages/web")).unwrap();
        let config = Config::built_in();
        let language = config.language("typescript").unwrap();
        let choice = choose(
            language,
            &w.root().join("packages/web"),
            w.root(),
            &w.root().join("tools"),
            Walks::FRESH,
        );
        assert_eq!(choice.language.server, "typescript-language-server");
    }

    /// A kept finding is taken again without a walk; forgotten, the next
    /// call walks; a walk during which it was forgotten keeps nothing.
    #[test]
    fn walks_kept_are_taken_until_forgotten() {
        let walked = Walked::default();
        let walks = Walks::kept_in(&walked);
        let root = PathBuf::from("/project");
        let walks_made = std::cell::Cell::new(0);
        let walk = || {
            walks_made.set(walks_made.get() + 1);
            None
        };
        let script = |walks: Walks<'_>| walks.kept(|w| &w.checks_with, root.clone(), walk);
        assert!(script(walks).is_none() && script(walks).is_none());
        assert_eq!(walks_made.get(), 1);
        walked.forget();
        script(walks);
        assert_eq!(walks_made.get(), 2);
        // Forgotten while walking: walked again next time.
        let other = |during: &dyn Fn()| {
            walks.kept(
                |w| &w.checks_with,
                PathBuf::from("/other"),
                || {
                    during();
                    None
                },
            )
        };
        other(&|| walked.forget());
        script(walks);
        assert_eq!(walks_made.get(), 3);
        other(&|| walks_made.set(walks_made.get() + 1));
        assert_eq!(walks_made.get(), 4, "the walk forgotten meanwhile was kept");
        // Afresh, nothing is kept.
        script(Walks::FRESH);
        script(Walks::FRESH);
        assert_eq!(walks_made.get(), 6);
    }
}
