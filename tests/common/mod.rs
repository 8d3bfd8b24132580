//! Shared test helpers: fixture copies in temporary folders, calling a tool
//! the way the MCP edge does, a language server's outline of a fixture file,
//! waiting for a process to exit, tables of cases that report every failing
//! case, and the list of tools. `mcp` drives the built binary over stdio
//! with rmcp's client.
#![allow(dead_code)]

pub mod mcp;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;
use sextant::context::Context;
use sextant::fs::workspace::Workspace;
use sextant::lsp::Need;
use sextant::lsp::config::Config;
use sextant::lsp::symbols::document_symbols;
use sextant::model::OutlineSymbol;
use sextant::tools;

/// A copy of `fixtures/<name>` in a temporary folder (dropped with it).
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub ctx: Arc<Context>,
}

impl Fixture {
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// Starts the file watcher and waits for its first walk, which adds a
    /// watch per folder: a write before that is not seen.
    pub async fn watch_files(&self) {
        self.ctx.lsp.watch_files();
        wait_for(
            "the file watcher's first walk",
            || std::future::ready(format!("{:?}", self.ctx.lsp.watch_status())),
            |status| status.contains("walking: false"),
        )
        .await;
    }

    /// Writes `text` to `relative` and puts its old modification time
    /// back: a write that, with the length kept too, the file watcher
    /// tells of, and a file's stamp only by its status change time.
    pub fn rewrite_keeping_time(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        let old_time = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, text).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old_time)
            .unwrap();
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path(relative)).unwrap()
    }

    /// Runs a tool and returns the text an agent would read: the blocks
    /// joined by a visible separator, or the error line.
    pub async fn run(&self, tool: &str, args: Value) -> String {
        let root = self.ctx.workspace.root().display().to_string();
        run(&self.ctx, tool, args).await.replace(&root, "<root>")
    }
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Copies a fixture project. Every file gets a distinct modification time
/// in path order (the last path is the newest), so `find` answers are stable.
pub fn fixture(name: &str) -> Fixture {
    fixture_with(name, &[])
}

/// TypeScript 7's compiler, as the test command installs it.
pub fn tsc() -> PathBuf {
    let tools = sextant::lsp::config::Config::built_in().tools_dir;
    let scope = tools.join("typescript-go/node_modules/@typescript");
    std::fs::read_dir(&scope)
        .unwrap_or_else(|err| panic!("{}: {err}", scope.display()))
        .filter_map(Result::ok)
        .map(|e| e.path().join("lib/tsc"))
        .find(|p| p.is_file())
        .expect("the native TypeScript compiler")
}

/// Names of TypeScript's two servers, as `server = ...` takes them.
pub const TYPESCRIPT_GO: &str = "typescript-go";
pub const TYPESCRIPT_LANGUAGE_SERVER: &str = "typescript-language-server";

/// A fixture whose `sextant.toml` makes TypeScript run `server`.
pub fn fixture_on(name: &str, server: &str) -> Fixture {
    fixture_on_with(name, server, &[])
}

/// [`fixture_on`] with `extra` files, as [`fixture_with`] writes them.
pub fn fixture_on_with(name: &str, server: &str, extra: &[(&str, &str)]) -> Fixture {
    let config = format!("[language.typescript]\nserver = \"{server}\"\n");
    let mut files = vec![("sextant.toml", config.as_str())];
    files.extend_from_slice(extra);
    fixture_with(name, &files)
}

/// A fixture with `extra` files (path, text) written into the copy before
/// the context reads its configuration.
pub fn fixture_with(name: &str, extra: &[(&str, &str)]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    copy_tree(&fixtures_dir().join(name), dir.path(), &mut files);
    for (path, text) in extra {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        files.push(path);
    }
    files.sort();
    let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    for (i, file) in files.iter().enumerate() {
        let f = std::fs::File::options().write(true).open(file).unwrap();
        f.set_modified(base + Duration::from_secs(i as u64 * 60))
            .unwrap();
    }
    let ctx = context(dir.path(), false);
    Fixture { dir, ctx }
}

pub fn context(root: &Path, read_only: bool) -> Arc<Context> {
    let config = Config::load(root, None).unwrap();
    Arc::new(Context::new(
        Workspace::new(root, &[]).unwrap(),
        config,
        read_only,
    ))
}

/// Copies `from` into `to` (dependency folders left out), listing the files.
pub fn copy_tree(from: &Path, to: &Path, files: &mut Vec<PathBuf>) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == "node_modules" {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target, files);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            files.push(target);
        }
    }
}

pub async fn run(ctx: &Arc<Context>, tool: &str, args: Value) -> String {
    let Value::Object(args) = args else {
        panic!("tool arguments must be a JSON object");
    };
    match tools::call(ctx, tool, args).await {
        Ok(answer) => match answer.json {
            Some(json) => serde_json::to_string_pretty(&json).unwrap(),
            None => answer.blocks.join("\n\n=== next block ===\n\n"),
        },
        Err(err) => err.to_string(),
    }
}

/// The language server's documentSymbol answer for `file`, as it comes (no
/// filter). The server must be ready and done indexing.
pub async fn server_outline(f: &Fixture, file: &str) -> Vec<OutlineSymbol> {
    let session = f
        .ctx
        .lsp
        .open(&f.path(file), Need::DOCUMENT)
        .await
        .expect("a ready server");
    assert!(
        session.index_complete(),
        "{} still indexing after its ready_timeout",
        session.server()
    );
    document_symbols(&session)
        .await
        .expect("documentSymbol answers")
}

/// An outline flattened in order: one `@line:char Kind - name` row per
/// symbol (the name's position), two spaces of indent per level, each with
/// its symbol.
pub fn outline_rows(symbols: &[OutlineSymbol]) -> Vec<(String, &OutlineSymbol)> {
    fn walk<'a>(
        symbols: &'a [OutlineSymbol],
        depth: usize,
        out: &mut Vec<(String, &'a OutlineSymbol)>,
    ) {
        for symbol in symbols {
            let row = format!(
                "{}@{} {} - {}",
                "  ".repeat(depth),
                symbol.selection_range.start,
                symbol.kind.name(),
                symbol.name
            );
            out.push((row, symbol));
            walk(&symbol.children, depth + 1, out);
        }
    }
    let mut out = Vec::new();
    walk(symbols, 0, &mut out);
    out
}

/// Whether process `pid` exists; a zombie (state Z) counts as gone.
/// Every live descendant of `root`: (pid, command name).
pub fn descendants(root: u32) -> Vec<(u32, String)> {
    let mut children: std::collections::HashMap<u32, Vec<(u32, String)>> =
        std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_string();
        let Some(parent) = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
        else {
            continue;
        };
        children.entry(parent).or_default().push((pid, name));
    }
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        for child in children.get(&pid).into_iter().flatten() {
            stack.push(child.0);
            found.push(child.clone());
        }
    }
    found
}

pub fn process_exists(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| !stat.split(") ").nth(1).unwrap_or("").starts_with('Z'))
        .unwrap_or(false)
}

/// Waits up to 5 s for process `pid` to be gone; false if it is still there.
pub async fn process_gone(pid: u32) -> bool {
    for _ in 0..100 {
        if !process_exists(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// How long a test waits for what should follow at once (a file event
/// through the watcher, a message reaching a server) before it fails.
pub const EVENT_DEADLINE: Duration = Duration::from_secs(10);

/// Asks `probe` every 10 ms until its answer is `done`, for up to
/// [`EVENT_DEADLINE`], and returns that answer; fails otherwise, saying
/// `what` did not happen and showing the last answer. For a test that needs
/// an event to have happened, instead of sleeping a guessed time for it.
pub async fn wait_for<F: std::future::Future<Output = String>>(
    what: &str,
    mut probe: impl FnMut() -> F,
    done: impl Fn(&str) -> bool,
) -> String {
    let deadline = tokio::time::Instant::now() + EVENT_DEADLINE;
    loop {
        let answer = probe().await;
        if done(&answer) {
            return answer;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what}: not within {EVENT_DEADLINE:?}; the last answer:\n{answer}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Writes a TypeScript monorepo of `packages` packages with `files` modules
/// each under `root` (npm workspaces, a tsconfig per package, none at the
/// root): `packages/pK/src/mI.ts`, each importing the module before it.
/// Every 40th module assigns a string to a number (error 2322), so the
/// project has `packages * files / 40` errors, one per file.
pub fn generate_monorepo(root: &Path, packages: usize, files: usize) {
    std::fs::write(
        root.join("package.json"),
        r#"{ "name": "generated", "private": true, "workspaces": ["packages/*"] }"#,
    )
    .unwrap();
    for p in 0..packages {
        let package = root.join(format!("packages/p{p}"));
        std::fs::create_dir_all(package.join("src")).unwrap();
        std::fs::write(
            package.join("package.json"),
            format!(r#"{{ "name": "p{p}", "version": "1.0.0", "type": "module" }}"#),
        )
        .unwrap();
        std::fs::write(
            package.join("tsconfig.json"),
            r#"{ "compilerOptions": { "target": "ES2022", "module": "ES2022", "moduleResolution": "bundler", "strict": true, "noEmit": true }, "include": ["src/**/*.ts"] }"#,
        )
        .unwrap();
        for i in 0..files {
            let mut text = String::new();
            if i > 0 {
                text.push_str(&format!(
                    "import {{ Thing{}, make{} }} from \"./m{}\";\n\n",
                    i - 1,
                    i - 1,
                    i - 1
                ));
            }
            text.push_str(&format!(
                "/** Thing number {i} of package {p}. */\nexport class Thing{i} {{\n  constructor(readonly value: number) {{}}\n\n  double(): number {{\n    return this.value * 2;\n  }}\n}}\n\nexport function make{i}(value: number): Thing{i} {{\n  return new Thing{i}(value);\n}}\n"
            ));
            if i > 0 {
                text.push_str(&format!(
                    "\nexport const chained{i}: number = make{}(1).double() + new Thing{}(2).value;\n",
                    i - 1,
                    i - 1
                ));
            }
            if (p * files + i) % 40 == 39 {
                text.push_str(&format!(
                    "\nexport const wrong{i}: number = \"not a number\";\n"
                ));
            }
            std::fs::write(package.join(format!("src/m{i}.ts")), text).unwrap();
        }
    }
}

/// The middle sample (the benches' figures).
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The fake language server (examples/fake_lsp.rs), built if needed.
pub fn fake_server() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            // target/debug/deps/faults-HASH -> target/debug/examples/fake_lsp
            let exe = std::env::current_exe().unwrap();
            let path = exe
                .parent()
                .unwrap()
                .parent()
                .unwrap()
                .join("examples")
                .join("fake_lsp");
            // A whole `cargo test` builds examples; a filtered run may not.
            let status = std::process::Command::new(env!("CARGO"))
                .args(["build", "--quiet", "--example", "fake_lsp"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("cargo runs");
            assert!(
                status.success() && path.exists(),
                "{} could not be built",
                path.display()
            );
            path
        })
        .clone()
}

/// The session's document and the LSP position of `address` (resolved the
/// way the tools resolve it), every project of the server opened and
/// loaded as the tools that ask about the workspace have them.
pub async fn lsp_position(
    ctx: &Arc<Context>,
    address: &Value,
) -> (
    Arc<sextant::lsp::LspClient>,
    lsp_types::TextDocumentPositionParams,
) {
    let at: sextant::tools::address::Address = serde_json::from_value(address.clone()).unwrap();
    let resolved = sextant::tools::address::resolve(ctx, &at).await.unwrap();
    let session = ctx.lsp.open(&resolved.path, Need::WORKSPACE).await.unwrap();
    let position = session.position_params(resolved.target.position).unwrap();
    (Arc::clone(session.client()), position)
}

/// Writes a Rust workspace of `crates` crates with `modules` modules
/// each: `cK/src/mI.rs`, each with a struct, its impl and a function
/// calling the module before it; crate K uses crate K-1.
pub fn generate_rust_workspace(root: &Path, crates: usize, modules: usize) {
    let members: Vec<String> = (0..crates).map(|k| format!("\"c{k}\"")).collect();
    std::fs::write(
        root.join("Cargo.toml"),
        format!(
            "[workspace]\nmembers = [{}]\nresolver = \"2\"\n",
            members.join(", ")
        ),
    )
    .unwrap();
    for k in 0..crates {
        let krate = root.join(format!("c{k}"));
        std::fs::create_dir_all(krate.join("src")).unwrap();
        let dependency = match k {
            0 => String::new(),
            _ => format!("c{} = {{ path = \"../c{}\" }}\n", k - 1, k - 1),
        };
        std::fs::write(
            krate.join("Cargo.toml"),
            format!(
                "[package]\nname = \"c{k}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{dependency}"
            ),
        )
        .unwrap();
        let mut lib = String::new();
        for i in 0..modules {
            writeln!(lib, "pub mod m{i};").unwrap();
        }
        if k > 0 {
            writeln!(
                lib,
                "\n/// The first thing of the crate before.\npub fn first() -> i64 {{\n    c{}::m0::make0(1).double()\n}}",
                k - 1
            )
            .unwrap();
        }
        std::fs::write(krate.join("src/lib.rs"), lib).unwrap();
        for i in 0..modules {
            let mut text = format!(
                "/// Thing number {i} of crate {k}.\n#[derive(Debug, Clone)]\npub struct Thing{i} {{\n    pub value: i64,\n}}\n\nimpl Thing{i} {{\n    /// Twice the value.\n    pub fn double(&self) -> i64 {{\n        self.value * 2\n    }}\n}}\n\n/// A new Thing{i}.\npub fn make{i}(value: i64) -> Thing{i} {{\n    Thing{i} {{ value }}\n}}\n"
            );
            if i > 0 {
                write!(
                    text,
                    "\n/// Uses the module before.\npub fn chained{i}() -> i64 {{\n    let thing = crate::m{p}::make{p}(1);\n    thing.double() + crate::m{p}::Thing{p} {{ value: 2 }}.value\n}}\n",
                    p = i - 1
                )
                .unwrap();
            }
            std::fs::write(krate.join(format!("src/m{i}.rs")), text).unwrap();
        }
    }
}

/// The TypeScript fixture in `web/` and the Rust fixture in `ledger/` of
/// one workspace.
pub fn two_language_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    copy_tree(
        &fixtures_dir().join("ts"),
        &dir.path().join("web"),
        &mut files,
    );
    copy_tree(
        &fixtures_dir().join("rust"),
        &dir.path().join("ledger"),
        &mut files,
    );
    dir
}

/// The files a patch staged beside its targets (`.sextant-*`) still in
/// `dir`: none once an apply has ended, however it ended.
pub fn staged_files_left(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".sextant-"))
        .collect()
}

// ---- the tools ----

/// What a tool may do to files, as a read-only server treats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only reads: listed everywhere, with the read-only hint.
    Reads,
    /// Writes, but only previews on a read-only server, which lists it.
    Previews,
    /// Writes: a read-only server leaves it out.
    Writes,
}

/// Every tool, in the order tools/list and `--help` give them: the one list
/// the tests hold the server to (`mcp.rs` checks it is the registry's).
pub const TOOLS: [(&str, Access); 17] = [
    ("search", Access::Reads),
    ("read", Access::Reads),
    ("inspect", Access::Reads),
    ("references", Access::Reads),
    ("call_hierarchy", Access::Reads),
    ("completion", Access::Reads),
    ("rename", Access::Previews),
    ("fix", Access::Previews),
    ("read_file", Access::Reads),
    ("find", Access::Reads),
    ("grep", Access::Reads),
    ("edit", Access::Writes),
    ("apply_patch", Access::Writes),
    ("create_file", Access::Writes),
    ("pipe", Access::Reads),
    ("diagnostics", Access::Reads),
    ("logs", Access::Reads),
];

/// The names of [`TOOLS`], in order.
pub fn tool_names() -> Vec<&'static str> {
    TOOLS.iter().map(|(name, _)| *name).collect()
}

/// The tools a read-only server lists, in order.
pub fn read_only_tool_names() -> Vec<&'static str> {
    TOOLS
        .iter()
        .filter(|(_, access)| *access != Access::Writes)
        .map(|(name, _)| *name)
        .collect()
}

/// Whether tool `name` may write files (and so has no read-only hint).
pub fn writes(name: &str) -> bool {
    TOOLS
        .iter()
        .any(|(tool, access)| *tool == name && *access != Access::Reads)
}

// ---- tables of cases ----

/// What a case's answer must be.
#[derive(Debug, Clone, Copy)]
pub enum Expect {
    /// The file snapshot named after the case,
    /// `tests/snapshots/<test file>__<case>.snap`, compared by insta.
    Snapshot,
    /// Exactly this text: what an inline snapshot held, without the
    /// indentation of its literal (as insta compared it).
    Text(&'static str),
}

/// Compares a named file snapshot; [`cases!`] writes it in the test file,
/// where insta finds that file's snapshots.
pub type SnapshotCheck = fn(&str, &str);

/// The outcomes of a table of cases. Every case is checked and its failure
/// kept, so a failing case names itself and hides none of the others;
/// [`Cases::finish`] then fails once, naming each failed case with its
/// answer. Make one with [`cases!`].
pub struct Cases {
    snapshot: SnapshotCheck,
    /// Every case's answer, for the steps that build on one.
    answers: Vec<(String, String)>,
    /// Each failed case with what it answered (and expected).
    failures: Vec<(String, String)>,
    /// The names of the cases checked, each once.
    checked: Vec<String>,
    finished: bool,
}

/// A [`Cases`] whose file snapshots are the test file's own (insta names
/// them after the file that invokes its macro and looks for them beside it).
#[allow(unused_macros)]
macro_rules! cases {
    () => {
        $crate::common::Cases::new(|name, actual| insta::assert_snapshot!(name, actual))
    };
}
#[allow(unused_imports)]
pub(crate) use cases;

impl Cases {
    pub fn new(snapshot: SnapshotCheck) -> Cases {
        Cases {
            snapshot,
            answers: Vec::new(),
            failures: Vec::new(),
            checked: Vec::new(),
            finished: false,
        }
    }

    /// Checks case `name`'s answer against what it must be, and keeps the
    /// answer for the steps after it ([`Cases::answer`]).
    pub fn expect(&mut self, name: &str, actual: &str, expect: Expect) {
        match expect {
            Expect::Snapshot => {
                // insta panics on a mismatch (after printing the diff and
                // writing the `.snap.new`); the panic is this case's failure.
                let snapshot = self.snapshot;
                let matches = std::panic::catch_unwind(|| snapshot(name, actual)).is_ok();
                self.check(
                    name,
                    matches,
                    format_args!("does not match its snapshot; the answer:\n{actual}"),
                );
            }
            Expect::Text(expected) => self.check_text(name, actual, expected),
        }
        self.answers.push((name.to_string(), actual.to_string()));
    }

    /// Checks that case `name`'s answer is exactly `expected`.
    pub fn check_text(&mut self, name: &str, actual: &str, expected: &str) {
        self.check(
            name,
            actual == expected,
            format_args!("expected:\n{expected}\n--- the answer:\n{actual}"),
        );
    }

    /// Checks a property of case `name`'s answer; `shown` is what a failure
    /// shows (the answer, usually).
    pub fn check(&mut self, name: &str, ok: bool, shown: impl std::fmt::Display) {
        if self.checked.iter().any(|checked| checked == name) {
            self.failures
                .push((name.to_string(), "two cases have this name".to_string()));
        }
        self.checked.push(name.to_string());
        if !ok {
            self.failures.push((name.to_string(), shown.to_string()));
        }
    }

    /// Checks that case `name`'s answer equals `expected`.
    pub fn check_eq<T: PartialEq + std::fmt::Debug>(&mut self, name: &str, actual: T, expected: T) {
        let ok = actual == expected;
        self.check(
            name,
            ok,
            format_args!("expected:\n{expected:?}\n--- the answer:\n{actual:?}"),
        );
    }

    /// Case `name` failed: `why`.
    pub fn fail(&mut self, name: &str, why: impl std::fmt::Display) {
        self.check(name, false, why);
    }

    /// The answer case `name` gave, for a step that builds on it.
    pub fn answer(&self, name: &str) -> Option<String> {
        self.answers
            .iter()
            .find(|(case, _)| case == name)
            .map(|(_, answer)| answer.clone())
    }

    /// Fails if any case failed, naming every one with its answer.
    pub fn finish(mut self) {
        self.finished = true;
        if self.failures.is_empty() {
            return;
        }
        let names: Vec<&str> = self
            .failures
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        let mut report = format!(
            "{} of {} cases failed: {}\n",
            self.failures.len(),
            self.checked.len(),
            names.join(", ")
        );
        for (name, shown) in &self.failures {
            report.push_str(&format!("\n---- {name} ----\n{shown}\n"));
        }
        panic!("{report}");
    }
}

impl Drop for Cases {
    /// A table left without [`Cases::finish`] would hide its failures.
    fn drop(&mut self) {
        if !self.finished && !std::thread::panicking() {
            panic!("a table of cases ended without finish(): its failures were not reported");
        }
    }
}

/// What `cargo check` (with `args` after `check`) reports in `root`: its
/// errors and warnings, one per line, in cargo's short form. It builds in
/// the project's own `target`: cargo hashes a path package by its place in
/// its workspace, so copies of one fixture sharing a CARGO_TARGET_DIR
/// would take each other's artifacts as their own.
pub fn cargo_check(root: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("cargo")
        .env_remove("CARGO_TARGET_DIR")
        .arg("check")
        .args(args)
        .args(["--offline", "--quiet", "--message-format", "short"])
        .current_dir(root)
        .output()
        .unwrap();
    findings(
        &String::from_utf8_lossy(&out.stderr),
        &[": error", ": warning"],
    )
}

/// The lines of a check's output that report a finding (those holding one
/// of `markers`, `": error"`), in order, one per line.
pub fn findings(output: &str, markers: &[&str]) -> String {
    output
        .lines()
        .filter(|line| markers.iter().any(|marker| line.contains(marker)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why the Go server tests cannot run here, if they cannot: no gopls where
/// sextant looks for one (PATH, its tools directory).
pub fn gopls_missing(f: &Fixture) -> Option<String> {
    let config = f.ctx.lsp.config();
    let go = config.language("go").expect("Go is built in");
    let found = sextant::lsp::install::locate(go, f.root(), &config.tools_dir);
    found.is_none().then(|| {
        "no gopls on PATH or in sextant's tools directory (`go install` needs Go's module proxy; Debian's `gopls` package is enough)".to_string()
    })
}

/// The moment between an agent's write and its next request, which is a
/// model turn at least: file events reach sextant's watcher thread well
/// within it. Without it a test's request would follow within microseconds.
///
/// A deliberate model of how an agent works, not a wait for an event: the
/// tests after it check that the request right after a turn sees the disk
/// as written, which waiting for sextant to have noticed the write would
/// take for granted. A quarter second, still far under a model's turn:
/// 50 ms was once too short for the watcher thread on two busy cores.
pub async fn agent_turn() {
    tokio::time::sleep(Duration::from_millis(250)).await;
}
