//! The projects the benches ask of, and what they ask: the real ones
//! `--corpus NAME=DIR` names (a fetched checkout), each with a file, a
//! class, a function with callers, a completion spot, a name to search
//! for and a glob of its sources. `table` adds the fixtures and the
//! generated projects.

// Each bench uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::common;

/// A project and what to ask of it.
pub struct Project {
    pub name: String,
    pub root: PathBuf,
    /// The copy `root` is in, for a generated project or a fixture; a real
    /// project given on the command line is measured where it is.
    pub _copy: Option<tempfile::TempDir>,
    /// A file to read, check and edit.
    pub file: &'static str,
    /// A class or struct used in several files, as a `symbol` address.
    pub symbol: Value,
    /// A function with callers.
    pub function: Value,
    /// `file`, `line`, `character` right after a `value.`.
    pub completion: Value,
    /// A name to search for, and a word to grep.
    pub query: &'static str,
    /// A glob of the project's source files.
    pub glob: &'static str,
    /// Text of `file` an edit replaces (and puts back).
    pub edit: (&'static str, &'static str),
    /// Whether the tools that write (`create_file`, `apply_patch`) are
    /// measured: never in a real project, which stays as it was.
    pub writes: bool,
}

/// The real projects `--corpus NAME=DIR` measures, by NAME: a fetched
/// checkout of each, its dependencies installed (`pnpm install` for the
/// TypeScript SDK; ripgrep needs none). Addresses are by name, so they
/// hold across versions of the project.
pub const CORPORA: &[&str] = &["ripgrep", "ts-sdk"];

pub fn corpus(name: &str, root: PathBuf) -> Project {
    let project = |file, symbol: &str, function: Value, completion, query, glob, edit| Project {
        name: format!("{name} (real)"),
        root: root.clone(),
        _copy: None,
        file,
        symbol: json!({"file": file, "symbol": symbol}),
        function,
        completion,
        query,
        glob,
        edit,
        writes: false,
    };
    match name {
        // ripgrep: rust-analyzer on a cargo workspace of 10 crates.
        "ripgrep" => {
            let file = "crates/searcher/src/searcher/mod.rs";
            project(
                file,
                "Searcher",
                json!({"file": "crates/cli/src/hostname.rs", "symbol": "gethostname"}),
                after(&root, file, "self.config."),
                "Searcher",
                "crates/**/*.rs",
                ("pub struct Searcher {", "pub struct  Searcher {"),
            )
        }
        // The MCP TypeScript SDK: a pnpm monorepo on TypeScript 7.
        "ts-sdk" => {
            let file = "packages/server/src/server/mcp.ts";
            project(
                file,
                "McpServer",
                json!({"file": file, "symbol": "McpServer.connect"}),
                after(&root, file, "this.server."),
                "McpServer",
                "packages/**/*.ts",
                ("export class McpServer", "export class  McpServer"),
            )
        }
        other => panic!("no corpus named {other}; known: {}", CORPORA.join(", ")),
    }
}

/// The `--corpus NAME=DIR` arguments.
pub fn corpora_asked() -> Vec<Project> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .zip(args.iter().skip(1))
        .filter(|(flag, _)| *flag == "--corpus")
        .map(|(_, value)| {
            let (name, dir) = value
                .split_once('=')
                .unwrap_or_else(|| panic!("--corpus NAME=DIR, NAME one of {}", CORPORA.join(", ")));
            let root = std::fs::canonicalize(dir).unwrap_or_else(|err| panic!("{dir}: {err}"));
            corpus(name, root)
        })
        .collect()
}

/// The completion address right after the first `needle` in `file`.
pub fn after(root: &Path, file: &str, needle: &str) -> Value {
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    let (line, found) = text
        .lines()
        .enumerate()
        .find_map(|(n, line)| {
            line.find(needle)
                .map(|at| (n + 1, line[..at + needle.len()].chars().count()))
        })
        .unwrap_or_else(|| panic!("no {needle} in {file}"));
    json!({"file": file, "line": line, "character": found + 1})
}

/// Waits until `search` is answered by the project's server, not by the
/// tree-sitter index while the server starts (or for at most two
/// minutes): the tools are timed against a ready server, as the raw
/// requests are.
pub async fn servers_answer_search(client: &common::mcp::Client, query: &str) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let result = common::mcp::call(client, "search", json!({"query": query})).await;
        let text = common::mcp::texts(&result).concat();
        let first = text.lines().next().unwrap_or_default();
        let still = text.contains(" is still ") || text.contains(" was still ");
        if (!first.ends_with("from tree-sitter") && !still) || Instant::now() > deadline {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
