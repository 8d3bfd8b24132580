//! `create_file`: a new file (or, with `overwrite`, a replaced one), written
//! atomically inside the workspace.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Tool, blocking};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::patch::write_atomic;
use crate::model::CreatedFile;

pub struct CreateFile;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub path: String,
    pub content: String,
    pub overwrite: Option<bool>,
}

impl Tool for CreateFile {
    const NAME: &'static str = "create_file";
    const DESCRIPTION: &'static str =
        "Create a file, and its folders; overwrite: true replaces one.";
    const WRITES: bool = true;
    type Params = Params;
    type Output = CreatedFile;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<CreatedFile> {
        blocking(move || {
            let path = ctx.workspace.resolve_write(&params.path)?;
            let shown = ctx.workspace.display(&path);
            let existed = match std::fs::metadata(&path) {
                Ok(meta) if meta.is_dir() => {
                    return Err(ToolError::new(
                        ErrorCode::NotAFile,
                        format!("{shown} is a folder; pass a file path"),
                    ));
                }
                Ok(_) => true,
                Err(_) => false,
            };
            if existed && !params.overwrite.unwrap_or(false) {
                return Err(ToolError::new(
                    ErrorCode::Exists,
                    format!("{shown} already exists; pass overwrite: true to replace it, or use edit to change part of it"),
                ));
            }
            write_atomic(&path, &shown, params.content.as_bytes())?;
            // The servers hear of it now, not when the file watcher's
            // thread gets to the event: the next request sees the file
            // (a project it joins, an import of it that resolves).
            ctx.lsp.files_written([(path.clone(), !existed, false)]);
            Ok(CreatedFile {
                path: shown,
                overwritten: existed,
                lines: params.content.lines().count(),
                bytes: params.content.len(),
            })
        })
        .await
    }

    fn render(output: &CreatedFile) -> Vec<String> {
        crate::render::created_file(output)
    }
}
