//! `apply_patch`: writes a previewed patch exactly as previewed, or nothing.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::impact::write_patch;
use super::{BUDGET_CHARS, Tool};
use crate::context::Context;
use crate::error::ToolResult;
use crate::model::PatchReport;

pub struct ApplyPatch;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// `pN` from edit or rename
    pub patch: String,
    pub impact: Option<bool>,
}

impl Tool for ApplyPatch {
    const NAME: &'static str = "apply_patch";
    const DESCRIPTION: &'static str = "Writes a previewed patch exactly as shown, all files or none (none if one \
changed since).";
    const WRITES: bool = true;
    type Params = Params;
    type Output = PatchReport;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<PatchReport> {
        let id = params.patch.trim().to_string();
        let patch = ctx.patches.take(&id)?;
        let (patch, written) = write_patch(&ctx, patch, params.impact.unwrap_or(true)).await;
        let impact = match written {
            Ok(impact) => impact,
            Err(err) => {
                ctx.patches.restore(&id, patch);
                return Err(err);
            }
        };
        ctx.patches.mark_applied(&id);
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
            impact,
            fix: None,
        })
    }

    fn render(output: &PatchReport) -> Vec<String> {
        crate::render::patch_report(output)
    }
}
