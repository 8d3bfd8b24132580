//! `create_file`: a new file (or, with `overwrite`, a replaced one), written
//! atomically inside the workspace.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::impact::measured_write;
use super::{Tool, blocking};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::new_text::NewText;
use crate::fs::patch::{FileEdit, write_atomic};
use crate::model::CreatedFile;

pub struct CreateFile;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub path: String,
    pub content: String,
    pub overwrite: Option<bool>,
    pub impact: Option<bool>,
}

/// The largest file whose text an overwrite keeps to tell the lines the
/// write changed.
const MAX_OLD_TEXT: u64 = 4 * 1024 * 1024;

/// Where the file goes, as shown, and the text it replaces (`None` for a
/// new file; an existing one is replaced only with `overwrite`, and its
/// text read only when the write's impact is measured).
fn target(
    ctx: &Context,
    path: &str,
    overwrite: bool,
    measure: bool,
) -> ToolResult<(std::path::PathBuf, String, Option<String>)> {
    let path = ctx.workspace.resolve_write(path)?;
    let shown = ctx.workspace.display(&path);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => Err(ToolError::new(
            ErrorCode::NotAFile,
            format!("{shown} is a folder; pass a file path"),
        )),
        Ok(_) if !overwrite => Err(ToolError::new(
            ErrorCode::Exists,
            format!(
                "{shown} already exists; pass overwrite: true to replace it, or use edit to change part of it"
            ),
        )),
        // What it held, for the impact's lines (lossy, and none of a
        // large one: a file replaced whole needs no exact old text).
        Ok(meta) => {
            // A regular file only: a FIFO's read waits for a writer.
            let old = match measure && meta.is_file() && meta.len() <= MAX_OLD_TEXT {
                true => std::fs::read(&path).unwrap_or_default(),
                false => Vec::new(),
            };
            Ok((
                path,
                shown,
                Some(String::from_utf8_lossy(&old).into_owned()),
            ))
        }
        Err(_) => Ok((path, shown, None)),
    }
}

impl Tool for CreateFile {
    const NAME: &'static str = "create_file";
    const DESCRIPTION: &'static str =
        "Create a file, and its folders; overwrite: true replaces one.";
    const WRITES: bool = true;
    type Params = Params;
    type Output = CreatedFile;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<CreatedFile> {
        let measure = params.impact.unwrap_or(true);
        let checking = Arc::clone(&ctx);
        let path = params.path.clone();
        let overwrite = params.overwrite.unwrap_or(false);
        let (path, shown, existing) =
            blocking(move || target(&checking, &path, overwrite, measure)).await?;
        let existed = existing.is_some();
        let file = Arc::new(FileEdit {
            path,
            shown,
            before: existing.map(Arc::from),
            after: Some(params.content.into()),
        });
        let writing = Arc::clone(&file);
        let impact = measured_write(&ctx, std::slice::from_ref(&*file), measure, move || {
            let content = writing.after.as_ref().map_or("", NewText::as_str);
            write_atomic(&writing.path, &writing.shown, content.as_bytes())
        })
        .await?;
        let content = file.after.as_ref().map_or("", NewText::as_str);
        Ok(CreatedFile {
            path: file.shown.clone(),
            overwritten: existed,
            lines: content.lines().count(),
            bytes: content.len(),
            impact,
        })
    }

    fn render(output: &CreatedFile) -> Vec<String> {
        crate::render::created_file(output)
    }
}
