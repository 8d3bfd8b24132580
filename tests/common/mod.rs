//! Shared test helpers: fixture copies in temporary folders, and calling a
//! tool the way the MCP edge does.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::Value;
use sextant::context::Context;
use sextant::fs::workspace::Workspace;
use sextant::lsp::config::Config;
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
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    copy_tree(&fixtures_dir().join(name), dir.path(), &mut files);
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

fn copy_tree(from: &Path, to: &Path, files: &mut Vec<PathBuf>) {
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
