//! `apply_patch`: writes a previewed patch exactly as previewed, or nothing.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{BUDGET_CHARS, Tool, blocking};
use crate::context::Context;
use crate::error::ToolResult;
use crate::fs::patch::apply;
use crate::model::PatchReport;

pub struct ApplyPatch;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// `pN` from edit or rename
    pub patch: String,
}

impl Tool for ApplyPatch {
    const NAME: &'static str = "apply_patch";
    const DESCRIPTION: &'static str = "Writes a patch previewed by edit or rename exactly as shown, all files or none: \
nothing is written if one changed since.";
    const WRITES: bool = true;
    type Params = Params;
    type Output = PatchReport;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<PatchReport> {
        blocking(move || {
            let id = params.patch.trim().to_string();
            let patch = ctx.patches.take(&id)?;
            if let Err(err) = apply(&patch) {
                ctx.patches.restore(&id, patch);
                return Err(err);
            }
            ctx.patches.mark_applied(&id);
            ctx.lsp.files_written(
                patch
                    .files
                    .iter()
                    .map(|f| (f.path.clone(), f.before.is_none(), f.after.is_none())),
            );
            Ok(PatchReport {
                patch_id: Some(id),
                applied: true,
                replacements: None,
                rename: None,
                notes: Vec::new(),
                changes: patch
                    .files
                    .iter()
                    .map(|edit| edit.describe(BUDGET_CHARS))
                    .collect(),
            })
        })
        .await
    }

    fn render(output: &PatchReport) -> Vec<String> {
        crate::render::patch_report(output)
    }
}
