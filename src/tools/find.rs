//! `find`: files by glob, newest first, .gitignore respected.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use ignore::WalkState;
use schemars::JsonSchema;
use serde::Deserialize;

use super::page::Pager;
use super::{Tool, blocking};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::walk::{WalkOptions, compile_glob, walker};
use crate::model::FoundFiles;
use crate::render::count;
use crate::sync::lock;

const DEFAULT_LIMIT: usize = 250;

pub struct Find;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Glob relative to path: `*` stays in one folder, `**` crosses folders
    pub pattern: String,
    pub path: Option<String>,
    pub include_ignored: Option<bool>,
    pub limit: Option<usize>,
    pub offset: Option<usize>,
}

impl Tool for Find {
    const NAME: &'static str = "find";
    const DESCRIPTION: &'static str =
        "Files by glob (`**/*.ts`), newest first, .gitignore respected.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = FoundFiles;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<FoundFiles> {
        blocking(move || find(&ctx, &params)).await
    }

    fn render(output: &FoundFiles) -> Vec<String> {
        crate::render::found_files(output)
    }
}

fn find(ctx: &Context, params: &Params) -> ToolResult<FoundFiles> {
    let base = ctx.resolve_read(params.path.as_deref().unwrap_or("."))?;
    let shown_base = ctx.workspace.display(&base);
    if !base.is_dir() {
        return Err(ToolError::new(
            ErrorCode::NotADirectory,
            format!("{shown_base} is a file, not a folder; pass the folder to search in"),
        ));
    }
    // Globs match paths relative to the folder searched: `./src/*.ts` means
    // `src/*.ts`.
    let glob = compile_glob(params.pattern.trim_start_matches("./"))?;
    let options = WalkOptions {
        include_ignored: params.include_ignored.unwrap_or(false),
        ..WalkOptions::default()
    };
    let found: Arc<Mutex<Vec<(SystemTime, PathBuf)>>> = Arc::default();
    walker(&base, &options)?.run(|| {
        let glob = glob.clone();
        let base = base.clone();
        let found = Arc::clone(&found);
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let relative = entry.path().strip_prefix(&base).unwrap_or(entry.path());
            if glob.is_match(relative) {
                let modified = entry
                    .metadata()
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                lock(&found).push((modified, entry.into_path()));
            }
            WalkState::Continue
        })
    });
    let mut found = std::mem::take(&mut *lock(&found));
    // Newest first; the same time falls back to path order, so paging is stable.
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));

    let offset = params.offset.unwrap_or(0);
    if offset > 0 && offset >= found.len() && !found.is_empty() {
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!(
                "{} match {}; offset {offset} is past the last one",
                count(found.len(), "file", "files"),
                params.pattern
            ),
        ));
    }
    let limit = params.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let mut pager = Pager::new(offset, Some(limit));
    let mut files = Vec::new();
    for (_, path) in &found {
        if pager.skip() {
            continue;
        }
        let shown = ctx.workspace.display(path);
        // One path a line.
        if !pager.admit(shown.len() + 1) {
            break;
        }
        files.push(shown);
    }
    Ok(FoundFiles {
        pattern: params.pattern.clone(),
        base: shown_base,
        files,
        offset,
        total: found.len(),
    })
}
