//! Text for `read`: a header block (count, breakdown, source), then one
//! block per root container (consecutive root symbols without children
//! share one), then how to page when the answer was cut.
//!
//! The same text whatever produced the outline (a language server or
//! tree-sitter): everything source-specific arrives as data.

use std::fmt::Write;

use super::{count, file_lines};
use crate::model::{
    CodeExcerpt, OutlineEntry, OutlineSource, Page, ReadOutline, ReadResult, SymbolKind,
};

/// `read`'s answer, in any tier.
pub fn read(result: &ReadResult) -> Vec<String> {
    match result {
        ReadResult::Raw(lines) => file_lines(lines),
        ReadResult::Outline(outline) => outline_blocks(outline),
    }
}

fn outline_blocks(outline: &ReadOutline) -> Vec<String> {
    let mut blocks = vec![header(outline)];
    let entries = &outline.entries;
    let mut block = String::new();
    let mut root_is_container = false;
    for (i, entry) in entries.iter().enumerate() {
        if entry.depth == 0 {
            let container = entries.get(i + 1).is_some_and(|next| next.depth > 0);
            if !block.is_empty() && (container || root_is_container) {
                blocks.push(std::mem::take(&mut block));
            }
            root_is_container = container;
        }
        block.push_str(&outline_entry(entry, &outline.fence, &outline.line_comment));
    }
    if !block.is_empty() {
        blocks.push(block);
    }
    if let Some(paging) = paging(outline) {
        blocks.push(paging);
    }
    for block in &mut blocks {
        block.truncate(block.trim_end().len());
    }
    blocks
}

fn header(outline: &ReadOutline) -> String {
    let mut out = String::new();
    let what = count(outline.total, "symbol", "symbols");
    let _ = write!(out, "Found {what}");
    if !outline.kinds.is_empty() {
        let kinds: Vec<&str> = outline.kinds.iter().map(|k| k.name()).collect();
        let _ = write!(out, " of kind {}", kinds.join(", "));
    }
    if let Some(scope) = &outline.scope {
        let _ = write!(out, " under {scope}");
    }
    let _ = write!(out, " in file: {}", outline.path);
    if !outline.breakdown.is_empty() {
        let parts: Vec<String> = outline
            .breakdown
            .iter()
            .map(|k| kind_count(k.kind, k.count))
            .collect();
        let _ = write!(out, "\nSymbol breakdown: {}", parts.join(", "));
    }
    let note = match (&outline.note, &outline.source) {
        (Some(note), _) => note.clone(),
        (None, OutlineSource::TreeSitter) => "Outline from tree-sitter".to_string(),
        (None, OutlineSource::LanguageServer(server)) => format!("Outline from {server}"),
    };
    let _ = write!(out, "\n{note}");
    out
}

/// `27 methods`, `1 class`, `2 enum members`.
fn kind_count(kind: SymbolKind, n: usize) -> String {
    let mut singular = String::new();
    for (i, c) in kind.name().chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            singular.push(' ');
        }
        singular.push(c.to_ascii_lowercase());
    }
    let plural = if singular.ends_with('s') {
        format!("{singular}es")
    } else if let Some(stem) = singular.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{singular}s")
    };
    count(n, &singular, &plural)
}

/// One symbol of `read`'s outline, with its signature or its code (fenced
/// with `fence`, cut with a `line_comment` line), each line ended.
pub fn outline_entry(entry: &OutlineEntry, fence: &str, line_comment: &str) -> String {
    let indent = "  ".repeat(entry.depth);
    let mut out = format!(
        "{indent}@{} {} - {}\n",
        entry.position,
        entry.kind.name(),
        entry.name
    );
    if entry.context {
        return out;
    }
    let inner = format!("{indent}  ");
    if let Some(code) = &entry.code {
        write_code(&mut out, code, &inner, fence, line_comment);
    } else if let Some(signature) = &entry.signature {
        let _ = writeln!(out, "{inner}`{signature}`");
    }
    out
}

/// A fenced block, dedented to the code's own margin and indented under its
/// symbol.
fn write_code(out: &mut String, code: &CodeExcerpt, indent: &str, fence: &str, line_comment: &str) {
    let margin = code
        .lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .reduce(common_prefix)
        .unwrap_or("");
    let _ = writeln!(out, "{indent}```{fence}");
    for line in &code.lines {
        let line = line.strip_prefix(margin).unwrap_or(line.trim_start());
        if line.trim().is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{indent}{line}");
        }
    }
    if code.omitted_lines > 0 {
        let _ = writeln!(
            out,
            "{indent}{line_comment} ... {}",
            count(code.omitted_lines, "more line", "more lines")
        );
    }
    let _ = writeln!(out, "{indent}```");
}

fn common_prefix<'a>(a: &'a str, b: &'a str) -> &'a str {
    let len = a
        .char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map_or(a.len().min(b.len()), |((i, _), _)| i);
    &a[..len]
}

/// `Showing symbols 1-120 of 2650; pass offset=120 for more, ...`.
fn paging(outline: &ReadOutline) -> Option<String> {
    let page = Page {
        offset: outline.offset,
        shown: outline.entries.iter().filter(|e| !e.context).count(),
        total: outline.total,
        next_offset: outline.next_offset,
    };
    let mut out = super::page::showing("symbols", &page)?;
    if page.next_offset.is_some() {
        let mut narrow = Vec::new();
        if outline.max_depth != Some(1) {
            narrow.push("max_depth=1");
        }
        if outline.scope.is_none() {
            narrow.push("symbol=<name path>");
        }
        if !narrow.is_empty() {
            let _ = write!(out, ", or narrow with {}", narrow.join(" or "));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_in_the_breakdown() {
        assert_eq!(kind_count(SymbolKind::Class, 2), "2 classes");
        assert_eq!(kind_count(SymbolKind::Class, 1), "1 class");
        assert_eq!(kind_count(SymbolKind::Property, 21), "21 properties");
        assert_eq!(kind_count(SymbolKind::EnumMember, 3), "3 enum members");
        assert_eq!(
            kind_count(SymbolKind::TypeParameter, 2),
            "2 type parameters"
        );
        assert_eq!(kind_count(SymbolKind::Method, 27), "27 methods");
    }
}
