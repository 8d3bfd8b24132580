//! Code excerpts for the expanded preview: whole lines of a symbol's range,
//! cut after a number of lines (the renderer says how many were left out,
//! in a comment of the file's own syntax). They need only the text and its
//! lines, so an outline from a language server gets them too.

use super::LineIndex;
use crate::model::{CodeExcerpt, Range};

/// The 1-based first and last lines `range` touches. A range that ends at
/// the very start of a line (an LSP range ending after a newline) does not
/// take that line.
pub fn line_span(lines: &LineIndex, range: Range) -> (u32, u32) {
    let count = lines.line_count() as u32;
    let first = range.start.line.clamp(1, count);
    let mut last = range.end.line.clamp(first, count);
    if last > first && range.end.character == 1 {
        last -= 1;
    }
    (first, last)
}

/// Lines `first..=last` (1-based) of `text`, at most `max_lines` of them.
pub fn excerpt(
    text: &str,
    lines: &LineIndex,
    first: u32,
    last: u32,
    max_lines: usize,
) -> CodeExcerpt {
    let total = (last + 1).saturating_sub(first) as usize;
    let shown = total.min(max_lines);
    let lines = (0..shown)
        .map(|i| lines.line(text, first as usize - 1 + i).to_string())
        .collect();
    CodeExcerpt {
        start_line: first,
        lines,
        omitted_lines: total - shown,
    }
}
