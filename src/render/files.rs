//! Text for the plain file tools: read_file, find, grep, edit, apply_patch,
//! create_file.

use std::fmt::Write;

use super::count;
use crate::model::{
    CreatedFile, FileChange, FileLines, FixList, FoundFiles, GrepEntry, GrepMode, GrepResult, Page,
    PatchReport, Renaming, TakenFix,
};

/// `cat -n` style: the number right-aligned in 6 columns, a tab, the line;
/// then `path · lines A-B of N`.
pub fn file_lines(result: &FileLines) -> Vec<String> {
    // Each line's text, its number (6 wide), a tab and its end, a cut
    // line's note; then the footer.
    let lines: usize = result
        .lines
        .iter()
        .map(|line| line.text.len() + 8 + if line.cut_from.is_some() { 48 } else { 0 })
        .sum();
    let mut out = String::with_capacity(lines + result.path.len() + 100);
    for line in &result.lines {
        let _ = write!(out, "{:>6}\t{}", line.number, line.text);
        if let Some(full) = line.cut_from {
            let _ = write!(
                out,
                " [... line cut at {} of {full} characters]",
                line.text.chars().count()
            );
        }
        out.push('\n');
    }
    let (first, last) = match (result.lines.first(), result.lines.last()) {
        (Some(first), Some(last)) => (first.number, last.number),
        _ => (0, 0),
    };
    if result.total_lines == 0 {
        let _ = write!(out, "{} · empty file", result.path);
    } else {
        let _ = write!(
            out,
            "{} · lines {first}-{last} of {}",
            result.path, result.total_lines
        );
    }
    if result.crlf {
        out.push_str(" · CRLF line endings");
    }
    out.push_str(&super::page::pass_offset(result.next_offset));
    vec![out]
}

/// One path per line, newest first, then a count line.
pub fn found_files(result: &FoundFiles) -> Vec<String> {
    if result.total == 0 {
        return vec![format!(
            "No files match {} in {}",
            result.pattern, result.base
        )];
    }
    let mut out = String::new();
    for file in &result.files {
        out.push_str(file);
        out.push('\n');
    }
    let shown_end = result.offset + result.files.len();
    let what = count(result.total, "file matches", "files match");
    let _ = write!(out, "{what} {} in {}", result.pattern, result.base);
    if result.offset > 0 || shown_end < result.total {
        let _ = write!(out, "; showing {}-{shown_end}", result.offset + 1);
        let next = (shown_end < result.total).then_some(shown_end);
        out.push_str(&super::page::pass_offset(next));
    }
    vec![out]
}

/// One entry of `grep`'s answer, its line break included: `path`,
/// `path:count`, `path:line:text` for a match, `path-line-text` for context.
pub fn grep_entry(entry: &GrepEntry, line_numbers: bool) -> String {
    match entry {
        GrepEntry::File { path } => format!("{path}\n"),
        GrepEntry::Count { path, count } => format!("{path}:{count}\n"),
        GrepEntry::Line {
            path,
            line,
            is_match,
            text,
            cut_from,
        } => {
            let sep = if *is_match { ':' } else { '-' };
            let mut out = format!("{path}{sep}");
            if line_numbers {
                let _ = write!(out, "{line}{sep}");
            }
            out.push_str(text);
            if let Some(full) = cut_from {
                let _ = write!(
                    out,
                    " [... cut at {} of {full} characters]",
                    text.chars().count()
                );
            }
            out.push('\n');
            out
        }
    }
}

/// ripgrep's conventions: `path:line:text` for matches, `path-line-text` for
/// context, `--` between groups, `path` or `path:count` by mode.
pub fn grep(result: &GrepResult) -> Vec<String> {
    let mut out = String::new();
    let files = count(result.total_files, "file", "files");
    let lines = count(
        result.total_matching_lines,
        "matching line",
        "matching lines",
    );
    let found = result.total_entries > 0;
    match result.mode {
        _ if !found => {
            let _ = write!(out, "No matches for {}", result.pattern);
        }
        GrepMode::FilesWithMatches => {
            let _ = write!(out, "Found {files} containing {}", result.pattern);
        }
        GrepMode::Content | GrepMode::Count => {
            let _ = write!(out, "Found {lines} in {files} for {}", result.pattern);
        }
    }
    if result.binary_files_skipped > 0 {
        let _ = write!(
            out,
            " ({} skipped)",
            count(result.binary_files_skipped, "binary file", "binary files")
        );
    }
    if !found {
        return vec![out];
    }
    out.push('\n');

    let mut previous: Option<(&str, u64)> = None;
    for entry in &result.entries {
        if let GrepEntry::Line { path, line, .. } = entry {
            if result.has_context
                && let Some((prev_path, prev_line)) = previous
                && (prev_path != path || prev_line + 1 != *line)
            {
                out.push_str("--\n");
            }
            previous = Some((path, *line));
        }
        out.push_str(&grep_entry(entry, result.line_numbers));
    }
    let shown_end = result.offset + result.entries.len();
    let page = Page {
        offset: result.offset,
        shown: result.entries.len(),
        total: result.total_entries,
        next_offset: (shown_end < result.total_entries).then_some(shown_end),
    };
    let noun = match result.mode {
        GrepMode::FilesWithMatches => "files",
        GrepMode::Count => "counts",
        GrepMode::Content => "lines",
    };
    if let Some(showing) = super::page::showing(noun, &page) {
        out.push_str(&showing);
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    vec![out]
}

/// A previewed or applied change: a summary block, then one diff per file.
pub fn patch_report(report: &PatchReport) -> Vec<String> {
    let mut blocks = match (&report.rename, &report.fix) {
        (Some(renaming), _) => rename_report(report, renaming),
        (None, Some(fix)) => fix_report(report, fix),
        (None, None) => edit_report(report),
    };
    blocks.extend(report.impact.as_ref().map(super::servers::impact));
    blocks
}

/// `Applied edit to ...` or `Preview of patch ...`, then the diffs.
fn edit_report(report: &PatchReport) -> Vec<String> {
    let added: usize = report.changes.iter().map(|c| c.lines_added).sum();
    let removed: usize = report.changes.iter().map(|c| c.lines_removed).sum();
    let mut summary = String::new();
    let verb = if report.applied {
        "Applied"
    } else {
        "Preview of"
    };
    match report.replacements {
        Some(replacements) => {
            let path = report
                .changes
                .first()
                .map(|c| c.path.as_str())
                .unwrap_or("");
            let _ = write!(
                summary,
                "{verb} edit to {path}: {}, +{added} -{removed} lines",
                count(replacements, "replacement", "replacements")
            );
        }
        None => {
            let _ = write!(
                summary,
                "{verb} patch {}: {} changed, +{added} -{removed} lines",
                report.patch_id.as_deref().unwrap_or("(unsaved)"),
                count(report.changes.len(), "file", "files")
            );
        }
    }
    if report.applied {
        if report.replacements.is_none() {
            for change in &report.changes {
                let _ = write!(
                    summary,
                    "\n  {} (+{} -{})",
                    change.path, change.lines_added, change.lines_removed
                );
            }
        }
        notes(&mut summary, &report.notes);
        let mut blocks = vec![summary];
        if report.replacements.is_some() {
            blocks.extend(report.changes.iter().map(diff_block));
        }
        return blocks;
    }
    if let Some(id) = &report.patch_id {
        let _ = write!(
            summary,
            "; nothing written yet\npatch: {id} (pass it to apply_patch to write exactly this change)"
        );
    }
    notes(&mut summary, &report.notes);
    let mut blocks = vec![summary];
    blocks.extend(report.changes.iter().map(diff_block));
    blocks
}

fn notes(out: &mut String, notes: &[String]) {
    for note in notes {
        let _ = write!(out, "\nNote: {note}");
    }
}

/// `rename ... at ...`, `Rename 'old' -> 'new': 7 changes across 3 files`,
/// the patch id or what was written, then one diff per file.
fn rename_report(report: &PatchReport, renaming: &Renaming) -> Vec<String> {
    let mut summary = super::target_header("rename", &renaming.target);
    let verb = if report.applied { "Renamed" } else { "Rename" };
    let _ = write!(
        summary,
        "\n{verb} '{}' -> '{}': {} across {}",
        renaming.old,
        renaming.new,
        count(renaming.edits, "change", "changes"),
        count(report.changes.len(), "file", "files")
    );
    if report.applied {
        summary.push_str(", written");
    }
    for change in &report.changes {
        if let Some(from) = &change.moved_from {
            let _ = write!(summary, "\n  {from} -> {} (moved)", change.path);
        } else if change.created || change.deleted {
            let what = if change.created { "created" } else { "deleted" };
            let _ = write!(summary, "\n  {} ({what})", change.path);
        }
    }
    with_patch(summary, report)
}

/// A server edit's summary ended with its patch id and notes, then one
/// diff block per file (a file moved unchanged has none to show).
fn with_patch(mut summary: String, report: &PatchReport) -> Vec<String> {
    if let Some(id) = &report.patch_id {
        let _ = write!(
            summary,
            "\npatch: {id} (pass it to apply_patch to write exactly this change)"
        );
    }
    notes(&mut summary, &report.notes);
    let mut blocks = vec![summary];
    blocks.extend(
        report
            .changes
            .iter()
            .filter(|c| !c.diff.trim().is_empty())
            .map(diff_block),
    );
    blocks
}

/// `fix ... at ...`, `Add import from "./shapes": 1 change across 1
/// file`, the patch id or what was written, then one diff per file.
fn fix_report(report: &PatchReport, fix: &TakenFix) -> Vec<String> {
    let mut summary = super::target_header("fix", &fix.target);
    let _ = write!(
        summary,
        "\n{}: {} across {}",
        fix.title,
        count(fix.edits, "change", "changes"),
        count(report.changes.len(), "file", "files")
    );
    if report.applied {
        summary.push_str(", written");
    }
    with_patch(summary, report)
}

/// `fix ... at ...`, then the actions numbered: `1. Add import from
/// "./shapes" (quick fix, preferred): fixes [2304] Cannot find name ...`.
pub fn fix_list(list: &FixList) -> Vec<String> {
    let mut text = super::target_header("fix", &list.target);
    if list.actions.is_empty() {
        let _ = write!(text, "\n{} offers no code action here", list.server);
        return vec![text];
    }
    let _ = write!(
        text,
        "\n{} offers {} (pass action: N to preview one as a patch):",
        list.server,
        count(list.actions.len(), "action", "actions")
    );
    for (number, action) in list.actions.iter().enumerate() {
        let mut about = vec![action.kind.as_str()];
        if action.whole_file {
            about.push("whole file");
        }
        if action.preferred {
            about.push("preferred");
        }
        let _ = write!(
            text,
            "\n{}. {} ({})",
            number + 1,
            action.title,
            about.join(", ")
        );
        if !action.fixes.is_empty() {
            let _ = write!(text, ": fixes {}", action.fixes.join("; "));
        }
    }
    vec![text]
}

/// One file's diff, saying so when the budget cut it. Only its last line
/// end is dropped: a blank line of context is a space, and trimming it
/// left a hunk shorter than its header says.
fn diff_block(change: &FileChange) -> String {
    let mut block = change
        .diff
        .strip_suffix('\n')
        .unwrap_or(&change.diff)
        .to_string();
    if change.diff_lines_omitted > 0 {
        let _ = write!(
            block,
            "\n... {} not shown (the patch holds the whole change)",
            count(
                change.diff_lines_omitted,
                "more diff line",
                "more diff lines"
            )
        );
    }
    block
}

/// `Created src/x.ts (3 lines, 52 bytes)`.
pub fn created_file(result: &CreatedFile) -> Vec<String> {
    let verb = if result.overwritten {
        "Overwrote"
    } else {
        "Created"
    };
    let mut blocks = vec![format!(
        "{verb} {} ({}, {})",
        result.path,
        count(result.lines, "line", "lines"),
        count(result.bytes, "byte", "bytes")
    )];
    blocks.extend(result.impact.as_ref().map(super::servers::impact));
    blocks
}
