//! Line starts of a text, and the one place where byte offsets and byte
//! columns (what tree-sitter counts) become sextant positions (1-based
//! lines, 1-based characters counted as Unicode scalar values) and back.
//!
//! Lines end at `\n` only, as tree-sitter counts rows; `\r\n` endings
//! leave their `\r` out of the line's text. `lsp::convert::LineIndex` is the
//! LSP counterpart and differs on purpose: LSP also ends a line at a lone
//! `\r`, counts characters in the server's encoding, and keeps its own copy
//! of a document that changes under it.

use crate::model::Position;

/// Where each line starts, and which lines are pure ASCII (where a byte
/// column is a character column, so long lines cost nothing to convert).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    ascii: Vec<bool>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let mut ascii = Vec::new();
        let bytes = text.as_bytes();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' {
                ascii.push(bytes[start..i].is_ascii());
                start = i + 1;
                starts.push(start);
            }
        }
        ascii.push(bytes[start..].is_ascii());
        LineIndex {
            starts,
            ascii,
            len: text.len(),
        }
    }

    /// Lines in the text (a final line without `\n` counts; an empty text
    /// has one empty line).
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Line `line` (0-based) without its `\n` or `\r\n`.
    pub fn line<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let start = self.starts[line];
        let end = self.starts.get(line + 1).map_or(self.len, |next| next - 1);
        let line = &text[start..end.max(start)];
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// Where line `line` (0-based) starts, as a byte offset.
    pub fn line_start(&self, line: usize) -> usize {
        self.starts[line]
    }

    /// The 0-based row and byte column of a byte offset (tree-sitter's
    /// point).
    pub fn point(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.len);
        let row = self.starts.partition_point(|&s| s <= offset) - 1;
        (row, offset - self.starts[row])
    }

    /// The position of a point given as a 0-based row and a byte column.
    pub fn point_position(&self, text: &str, row: usize, byte_column: usize) -> Position {
        let start = self.starts[row];
        let character = if self.ascii[row] {
            byte_column
        } else {
            char_count(text, start, start + byte_column)
        };
        Position::new(row as u32 + 1, character as u32 + 1)
    }

    /// The position of a byte offset.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let (row, column) = self.point(offset);
        self.point_position(text, row, column)
    }

    /// The byte offset of a position, if it lies in the text (a character
    /// past the end of its line is clamped to the line's end).
    pub fn offset(&self, text: &str, position: Position) -> Option<usize> {
        let row = (position.line as usize).checked_sub(1)?;
        let start = *self.starts.get(row)?;
        let line = self.line(text, row);
        let skip = (position.character as usize).checked_sub(1)?;
        if self.ascii[row] {
            return Some(start + skip.min(line.len()));
        }
        let column = line
            .char_indices()
            .nth(skip)
            .map_or(line.len(), |(byte, _)| byte);
        Some(start + column)
    }
}

/// Characters in `text[from..to]`, tolerating a `to` inside a character
/// (tree-sitter never gives one, but a stray LSP column might).
fn char_count(text: &str, from: usize, to: usize) -> usize {
    let bytes = &text.as_bytes()[from..to.min(text.len())];
    // A character starts at every byte that is not a continuation byte.
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "ab\nlet 名前 = \"é\";\r\nend";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 3);
        assert_eq!(index.line(text, 1), "let 名前 = \"é\";");
        // `=` is byte 11 of line 2 (名 and 前 take 3 bytes each) but the
        // 8th character.
        let eq = text.find('=').unwrap();
        assert_eq!(index.position(text, eq), Position::new(2, 8));
        assert_eq!(index.offset(text, Position::new(2, 8)), Some(eq));
        assert_eq!(index.point_position(text, 1, 4), Position::new(2, 5));
        assert_eq!(index.position(text, 0), Position::new(1, 1));
        assert_eq!(index.position(text, text.len()), Position::new(3, 4));
        assert_eq!(index.offset(text, Position::new(4, 1)), None);
        // Past the end of a line: clamped to the line's end (before `\r`).
        assert_eq!(
            index.offset(text, Position::new(2, 99)),
            Some(text.find('\r').unwrap())
        );
    }
}
