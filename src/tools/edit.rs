//! `edit`: replace text in a file, previewed as a diff (a patch) unless
//! `apply: true`.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{BUDGET_CHARS, Tool, blocking};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::patch::{FileEdit, Patch, apply};
use crate::fs::text::read_for_edit;
use crate::model::PatchReport;

pub struct Edit;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// The file to change
    pub path: String,
    /// The exact text to replace, with its indentation, without line-number prefixes; must occur exactly once unless replace_all
    pub old_string: String,
    /// The text to put in its place
    pub new_string: String,
    /// Replace every occurrence (default false)
    pub replace_all: Option<bool>,
    /// Write at once (default false: preview the diff and return a patch id for apply_patch)
    pub apply: Option<bool>,
}

impl Tool for Edit {
    const NAME: &'static str = "edit";
    const DESCRIPTION: &'static str = "Replace text in a file. old_string must match exactly once (or pass replace_all). \
By default it only previews: a unified diff and `patch: pN`, which apply_patch writes exactly as shown (refusing if the \
file changed meanwhile). apply: true writes at once. Writes are atomic. Never paste read_file's line-number prefixes \
into old_string or new_string. CRLF files are matched with plain \\n in old_string.";
    const WRITES: bool = true;
    type Params = Params;
    type Output = PatchReport;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<PatchReport> {
        blocking(move || edit(&ctx, params)).await
    }

    fn render(output: &PatchReport) -> Vec<String> {
        crate::render::patch_report(output)
    }
}

fn edit(ctx: &Context, params: Params) -> ToolResult<PatchReport> {
    let path = ctx.workspace.resolve_write(&params.path)?;
    let shown = ctx.workspace.display(&path);
    let before = read_for_edit(&path, &shown)?;
    let (after, replacements) = replace(
        &before,
        &params.old_string,
        &params.new_string,
        params.replace_all.unwrap_or(false),
        &shown,
    )?;
    let patch = Patch {
        files: vec![FileEdit {
            path,
            shown,
            before: Some(before),
            after,
        }],
    };
    let changes = patch
        .files
        .iter()
        .map(|edit| edit.describe(BUDGET_CHARS))
        .collect();
    let patch_id = if params.apply.unwrap_or(false) {
        apply(&patch)?;
        None
    } else {
        Some(ctx.patches.insert(patch))
    };
    Ok(PatchReport {
        applied: patch_id.is_none(),
        patch_id,
        replacements: Some(replacements),
        changes,
    })
}

/// The new content and the number of replacements, or why there is none.
fn replace(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    shown: &str,
) -> ToolResult<(String, usize)> {
    if old.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            "old_string is empty; include the text to replace (use create_file for a new file)",
        ));
    }
    if old == new {
        return Err(ToolError::new(
            ErrorCode::NoChange,
            "old_string and new_string are identical; nothing would change",
        ));
    }
    // A CRLF file is matched with the \n line ends the agent sees.
    let (old, new) = if content.contains("\r\n") && !old.contains('\r') {
        (old.replace('\n', "\r\n"), new.replace('\n', "\r\n"))
    } else {
        (old.to_string(), new.to_string())
    };
    let positions: Vec<usize> = content.match_indices(&old).map(|(at, _)| at).collect();
    if positions.is_empty() {
        if has_line_number_prefixes(&old) {
            return Err(ToolError::new(
                ErrorCode::LineNumberPrefix,
                "old_string starts its lines with line numbers (`    12\\t` or `12→`) from read_file's display; \
                 remove them and keep only the file's own text",
            ));
        }
        return Err(no_match(content, &old, shown));
    }
    if has_line_number_prefixes(&new) && !has_line_number_prefixes(&old) {
        return Err(ToolError::new(
            ErrorCode::LineNumberPrefix,
            "new_string starts its lines with line numbers (`    12\\t` or `12→`); \
             they would be written into the file. Remove them",
        ));
    }
    if positions.len() > 1 && !replace_all {
        let lines: Vec<String> = positions
            .iter()
            .take(10)
            .map(|&at| (content[..at].matches('\n').count() + 1).to_string())
            .collect();
        return Err(ToolError::new(
            ErrorCode::AmbiguousMatch,
            format!(
                "old_string occurs {} times in {shown} (lines {}); add surrounding lines to make it unique, or pass replace_all: true",
                positions.len(),
                lines.join(", ")
            ),
        ));
    }
    Ok((content.replace(&old, &new), positions.len()))
}

fn no_match(content: &str, old: &str, shown: &str) -> ToolError {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let hint = if squash(content).contains(&squash(old)) {
        "it matches only when whitespace is ignored: copy the exact indentation and line breaks from read_file"
    } else {
        "read the file again and copy the text exactly"
    };
    ToolError::new(
        ErrorCode::NoMatch,
        format!("old_string does not occur in {shown}; {hint}"),
    )
}

/// Every non-empty line starts like `    12\t` or `12→` (read_file's display).
fn has_line_number_prefixes(text: &str) -> bool {
    let mut any = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rest = line.trim_start_matches(' ');
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let after = &rest[digits..];
        if digits == 0 || !(after.starts_with('\t') || after.starts_with('→')) {
            return false;
        }
        any = true;
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_line_number_prefixes() {
        assert!(has_line_number_prefixes(
            "    12\tlet x = 1;\n    13\tlet y = 2;"
        ));
        assert!(has_line_number_prefixes("12→let x = 1;"));
        assert!(!has_line_number_prefixes("let x = 1;"));
        assert!(!has_line_number_prefixes("    12\tlet x = 1;\nlet y = 2;"));
        assert!(!has_line_number_prefixes(""));
    }

    #[test]
    fn replaces_in_crlf_files_with_plain_newlines() {
        let (after, n) = replace("a\r\nb\r\nc\r\n", "a\nb", "x\ny", false, "f").unwrap();
        assert_eq!((after.as_str(), n), ("x\r\ny\r\nc\r\n", 1));
    }
}
