//! `edit`: replace text in a file, previewed as a diff (a patch) unless
//! `apply: true`.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::impact::write_patch;
use super::{BUDGET_CHARS, Tool, blocking};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::patch::{FileEdit, Patch};
use crate::fs::text::read_for_edit;
use crate::model::PatchReport;

pub struct Edit;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub path: String,
    /// Exact text, indentation included
    pub old_string: String,
    pub new_string: String,
    pub replace_all: Option<bool>,
    pub apply: Option<bool>,
    pub impact: Option<bool>,
}

impl Tool for Edit {
    const NAME: &'static str = "edit";
    const DESCRIPTION: &'static str = "Replace an exact, unique string (replace_all: every one): a diff and `patch: pN` \
for apply_patch, or apply: true. No line-number prefixes.";
    const WRITES: bool = true;
    type Params = Params;
    type Output = PatchReport;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<PatchReport> {
        let write = params.apply.unwrap_or(false);
        let measure = params.impact.unwrap_or(true);
        let prepared = Arc::clone(&ctx);
        let (patch, replacements) = blocking(move || edit(&prepared, params)).await?;
        let changes = patch
            .files
            .iter()
            .map(|edit| edit.describe(BUDGET_CHARS))
            .collect();
        let (patch_id, impact) = if write {
            let (_, impact) = write_patch(&ctx, patch, measure).await;
            (None, impact?)
        } else {
            (Some(ctx.patches.insert(patch)), None)
        };
        Ok(PatchReport {
            applied: patch_id.is_none(),
            patch_id,
            replacements: Some(replacements),
            rename: None,
            changes,
            notes: Vec::new(),
            impact,
            fix: None,
        })
    }

    fn render(output: &PatchReport) -> Vec<String> {
        crate::render::patch_report(output)
    }
}

/// The edit as a patch of one file, and how many replacements it makes.
fn edit(ctx: &Context, params: Params) -> ToolResult<(Patch, usize)> {
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
            before: Some(before.into()),
            after: Some(after.into()),
        }],
    };
    Ok((patch, replacements))
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
    // The agent sees lines without their \r: old_string is matched as
    // given, else with CRLF line ends.
    let find = |old: &str| -> Vec<usize> { content.match_indices(old).map(|(at, _)| at).collect() };
    let mut old = old.to_string();
    let mut positions = find(&old);
    if positions.is_empty() && old.contains('\n') && !old.contains('\r') {
        let crlf = old.replace('\n', "\r\n");
        positions = find(&crlf);
        if !positions.is_empty() {
            old = crlf;
        }
    }
    // new_string takes the line ends of the text it replaces.
    let new = match positions.first() {
        Some(&at) => with_line_ends(new, crlf_at(content, at, &old)),
        None => new.to_string(),
    };
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

/// Whether the text replaced at `at` has CRLF line ends: its own, or
/// (for a match within one line) those of the line it sits on.
fn crlf_at(content: &str, at: usize, old: &str) -> bool {
    if old.contains('\n') {
        return old.contains("\r\n");
    }
    let rest = &content[at + old.len()..];
    rest.find('\n')
        .is_some_and(|end| rest[..end].ends_with('\r'))
}

/// `text` with every line end made `\r\n` (when `crlf`) or `\n`.
fn with_line_ends(text: &str, crlf: bool) -> String {
    let lf = text.replace("\r\n", "\n");
    if crlf { lf.replace('\n', "\r\n") } else { lf }
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
        // A new_string that already has CRLF ends gets no second \r.
        let (after, _) = replace("a\r\nb\r\nc\r\n", "b", "x\r\ny", false, "f").unwrap();
        assert_eq!(after, "a\r\nx\r\ny\r\nc\r\n");
        // One line of a CRLF file replaced by two: CRLF between them.
        let (after, _) = replace("a\r\nb\r\n", "b", "x\ny", false, "f").unwrap();
        assert_eq!(after, "a\r\nx\r\ny\r\n");
    }

    #[test]
    fn a_file_with_mixed_line_ends_keeps_each_part_s() {
        let mixed = "fn a() {\n    1\n}\n// w\r\n";
        // The LF part matches as given and stays LF.
        let (after, _) = replace(
            mixed,
            "fn a() {\n    1",
            "fn a() {\n    2\n    3",
            false,
            "f",
        )
        .unwrap();
        assert_eq!(after, "fn a() {\n    2\n    3\n}\n// w\r\n");
        let (after, _) = replace(mixed, "    1", "    2\n    3", false, "f").unwrap();
        assert_eq!(after, "fn a() {\n    2\n    3\n}\n// w\r\n");
        // The CRLF part takes CRLF.
        let (after, _) = replace(mixed, "// w", "// v\n// w", false, "f").unwrap();
        assert_eq!(after, "fn a() {\n    1\n}\n// v\r\n// w\r\n");
    }
}
