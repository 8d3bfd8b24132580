//! Text for the navigation tools: `inspect`, `references`,
//! `call_hierarchy` and `completion`.

use std::fmt::Write;

use super::count;
use super::symbols::target_header;
use crate::model::{
    CallDirection, CallHierarchyResult, CallNode, CallTree, CompletionResult, InspectResult, Page,
    Place, ReferenceFile, ReferenceLine, ReferencesResult, SourceLocation,
};

/// `src/a.ts:3:5 `line``, marked when outside every root.
pub fn location(l: &SourceLocation) -> String {
    let mut out = format!("{}:{}", l.path, l.position);
    if l.place == Place::Outside {
        out.push_str(" (outside the workspace)");
    }
    if !l.text.is_empty() {
        let _ = write!(out, " `{}`", l.text);
    }
    out
}

fn notes(out: &mut String, notes: &[String]) {
    for note in notes {
        let _ = write!(out, "\nNote: {note}");
    }
}

pub fn inspect(result: &InspectResult) -> Vec<String> {
    let mut out = target_header("inspect", &result.target);
    if let Some(hover) = &result.hover {
        let _ = write!(out, "\n\n{hover}");
    }
    let mut sections = String::new();
    let mut section = |one: &str, many: &str, list: &[SourceLocation], total: usize| match list {
        [] => {}
        [only] if total == 1 => {
            let _ = write!(sections, "\n{one}: {}", location(only));
        }
        _ => {
            let _ = write!(sections, "\n{many} ({total}):");
            for l in list {
                let _ = write!(sections, "\n  {}", location(l));
            }
        }
    };
    section(
        "Definition",
        "Definitions",
        &result.definitions,
        result.definitions.len(),
    );
    section(
        "Type definition",
        "Type definitions",
        &result.type_definitions,
        result.type_definitions.len(),
    );
    section(
        "Implementation",
        "Implementations",
        &result.implementations,
        result.implementations_total,
    );
    let page = Page {
        offset: result.offset,
        shown: result.implementations.len(),
        total: result.implementations_total,
        next_offset: result.next_offset,
    };
    if let Some(more) = super::page::more(&page, "implementation", "implementations", None) {
        let _ = write!(sections, "\n  {more}");
    }
    if !sections.is_empty() || (result.hover.is_some() && !result.notes.is_empty()) {
        out.push('\n');
        out.push_str(&sections);
    }
    notes(&mut out, &result.notes);
    vec![out]
}

pub fn references(result: &ReferencesResult) -> Vec<String> {
    let mut summary = target_header("references", &result.target);
    let name = &result.target.name;
    if result.total == 0 {
        let _ = write!(summary, "\nNo references to {name}");
    } else {
        let _ = write!(
            summary,
            "\nFound {} to {name} across {}",
            count(result.total, "reference", "references"),
            count(result.total_files, "file", "files")
        );
    }
    let page = Page {
        offset: result.offset,
        shown: (result.total.saturating_sub(result.offset)).saturating_sub(result.left_out),
        total: result.total,
        next_offset: result.next_offset,
    };
    let files = Some(result.left_out_files);
    if let Some(more) = super::page::more(&page, "reference", "references", files) {
        let _ = write!(summary, "\n{more}");
    }
    notes(&mut summary, &result.notes);
    let mut blocks = vec![summary];
    blocks.extend(result.files.iter().map(reference_file));
    blocks
}

fn reference_file(file: &ReferenceFile) -> String {
    let mut out = format!(
        "{} ({})",
        file.path,
        count(file.total, "reference", "references")
    );
    for line in &file.lines {
        out.push_str(&reference_line(line));
    }
    out
}

/// One line of a references block, with its context lines: `\n  @63:30,55
/// in scale: `...``.
pub fn reference_line(line: &ReferenceLine) -> String {
    // Called for every reference an answer pages (its size, then its
    // text): written straight into one string.
    let mut out = String::with_capacity(24 + line.text.len());
    let _ = write!(out, "\n  @{}:", line.line);
    for (n, character) in line.characters.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        let _ = write!(out, "{character}");
    }
    if let Some(shown_in) = &line.shown_in {
        let _ = write!(out, " in {shown_in}");
    }
    if line.context.is_empty() {
        let _ = write!(out, ": `{}`", line.text);
        return out;
    }
    out.push(':');
    let width = line
        .context
        .iter()
        .map(|l| l.number.to_string().len())
        .max()
        .unwrap_or(1);
    for numbered in &line.context {
        let mark = if numbered.number == line.line as usize {
            '>'
        } else {
            ' '
        };
        let numbered = format!("{mark}{:>width$}  {}", numbered.number, numbered.text);
        let _ = write!(out, "\n   {}", numbered.trim_end());
    }
    out
}

pub fn call_hierarchy(result: &CallHierarchyResult) -> Vec<String> {
    let mut summary = target_header("call_hierarchy", &result.target);
    let mut blocks = Vec::new();
    for tree in [&result.incoming, &result.outgoing].into_iter().flatten() {
        let (title, who) = match tree.direction {
            CallDirection::Incoming => ("Incoming calls", ("caller", "callers")),
            CallDirection::Outgoing => ("Outgoing calls", ("callee", "callees")),
        };
        if tree.calls.is_empty() && tree.left_out == 0 {
            let _ = write!(summary, "\n{title}: none");
            continue;
        }
        let _ = write!(
            summary,
            "\n{title}: {} in {}",
            count(tree.calls.len(), who.0, who.1),
            count(tree.files, "file", "files")
        );
        if result.depth > 1 {
            let _ = write!(summary, ", {} in all to depth {}", tree.shown, result.depth);
        }
        if tree.left_out > 0 {
            let _ = write!(
                summary,
                "; {} left out (the answer's size bound)",
                count(tree.left_out, "call", "calls")
            );
        }
        blocks.extend(call_blocks(tree, title));
    }
    notes(&mut summary, &result.notes);
    let mut out = vec![summary];
    out.extend(blocks);
    out
}

/// One block per file of the first level: `Incoming calls: src/a.ts`.
fn call_blocks(tree: &CallTree, title: &str) -> Vec<String> {
    let mut blocks: Vec<(String, String)> = Vec::new();
    for node in &tree.calls {
        let text = match blocks.last_mut() {
            Some((path, text)) if *path == node.path => text,
            _ => {
                blocks.push((node.path.clone(), format!("{title} in {}", node.path)));
                &mut blocks.last_mut().expect("just pushed").1
            }
        };
        call_node(text, node, tree.direction, 1, &node.path);
    }
    blocks.into_iter().map(|(_, text)| text).collect()
}

fn call_node(
    out: &mut String,
    node: &CallNode,
    direction: CallDirection,
    depth: usize,
    file: &str,
) {
    let indent = "  ".repeat(depth);
    out.push_str(&call_node_line(node, depth, file));
    if !node.children.is_empty() {
        let arrow = match direction {
            CallDirection::Incoming => "called by",
            CallDirection::Outgoing => "calls",
        };
        let _ = write!(out, "\n{indent}  {arrow}:");
    }
    for child in &node.children {
        call_node(out, child, direction, depth + 2, &node.path);
    }
}

/// A call tree's node without its children: `@12:5 Function - total`,
/// where it is when not in `file` (the block's or the caller's), and its
/// call sites, indented `depth` steps.
pub fn call_node_line(node: &CallNode, depth: usize, file: &str) -> String {
    let indent = "  ".repeat(depth);
    let mut out = format!(
        "\n{indent}@{} {} - {}",
        node.position,
        node.kind.name(),
        node.name
    );
    if let Some(made_by) = &node.made_by {
        let _ = write!(out, " (made by {made_by} here)");
    }
    if node.path != file {
        let _ = write!(out, " in {}", node.path);
    }
    if node.place == Place::Outside {
        out.push_str(" (outside the workspace)");
    }
    if node.repeated {
        out.push_str(" (expanded elsewhere)");
    }
    // Incoming: the calls are in this node's file; outgoing: in the
    // caller's, which is the line above.
    for site in &node.sites {
        if site.path == node.path {
            let _ = write!(out, "\n{indent}  @{} `{}`", site.position, site.text);
        } else {
            let _ = write!(
                out,
                "\n{indent}  {}:{} `{}`",
                site.path, site.position, site.text
            );
        }
    }
    out
}

pub fn completion(result: &CompletionResult) -> Vec<String> {
    let shown: usize = result.groups.iter().map(|g| g.items.len()).sum();
    let mut out = format!(
        "completion at {}:{}: {}",
        result.path,
        result.position,
        count(result.total, "item", "items")
    );
    if shown < result.total {
        let _ = write!(
            out,
            ", the best {shown} shown ({} more; pass a larger limit, or type more of the name)",
            result.total - shown
        );
    }
    if result.incomplete {
        out.push_str("\nNote: the server's list is incomplete; type more of the name to narrow it");
    }
    notes(&mut out, &result.notes);
    for group in &result.groups {
        let _ = write!(out, "\n\n{} ({})", group.kind.plural(), group.items.len());
        for item in &group.items {
            let _ = write!(out, "\n  {}", item.label);
            if let Some(detail) = &item.detail {
                let _ = write!(out, " - {detail}");
            }
            if let Some(doc) = &item.documentation {
                let _ = write!(out, "\n    {doc}");
            }
        }
    }
    vec![out]
}
