//! The one place where LSP positions meet sextant's.
//!
//! LSP counts lines from 0 and characters in UTF-16 code units (or UTF-8
//! bytes, when negotiated); sextant shows and accepts 1-based lines and
//! 1-based characters counted as Unicode scalar values. A [`LineIndex`] over
//! a document's text converts both ways. Lines end at `\n`, `\r\n` or `\r`,
//! as LSP says (tree-sitter's rows end at `\n` only, which is why
//! `syntax::LineIndex` is a separate type). A `file:` URI becomes a path
//! here too ([`file_path`]).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use lsp_types::{PositionEncodingKind, Url};

use crate::fs::stamped::Stamp;
use crate::model::{Position, Range};

/// How a server counts characters within a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// The encoding a server chose (UTF-16 when it says nothing, per LSP).
    pub fn from_lsp(kind: Option<&PositionEncodingKind>) -> Encoding {
        match kind.map(|k| k.as_str()) {
            Some("utf-8") => Encoding::Utf8,
            Some("utf-32") => Encoding::Utf32,
            _ => Encoding::Utf16,
        }
    }

    fn units(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

/// Line starts of one text, for converting positions.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Shared, so a file's text as on disk is handed on (as a rename's
    /// text before) without a copy.
    text: Arc<str>,
    /// Byte offset where each line starts.
    starts: Vec<usize>,
    /// The lines (0-based) holding a character that is not ASCII, in
    /// order: few, in most texts none. On any other line a character is
    /// one unit in every encoding, so a position far enough from its
    /// line's end converts without a look at the text (an answer's
    /// positions are spread over many files: each look is a cache miss).
    not_ascii: Vec<u32>,
    /// Whether a CR ends a line alone: lines are then not those counted
    /// by LF.
    lone_cr: bool,
    /// The text's stamp, found once (see `fs::new_text::Edited::base_stamp`).
    stamp: Arc<OnceLock<Stamp>>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        let bytes = text.as_bytes();
        // Line ends found by memchr: a line is read a word at a time, not
        // a byte (this is most of the cost of indexing a file).
        let mut after_cr = None;
        let (mut crs, mut crlfs) = (0, 0);
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            match bytes[i] {
                // The LF of a CRLF: its line started after both.
                b'\n' if after_cr == Some(i) => {
                    *starts.last_mut().expect("pushed") = i + 1;
                    crlfs += 1;
                }
                b'\n' => starts.push(i + 1),
                _ => {
                    starts.push(i + 1);
                    after_cr = Some(i + 1);
                    crs += 1;
                }
            }
        }
        let not_ascii = match text.is_ascii() {
            true => Vec::new(),
            false => (0..starts.len())
                .filter(|&line| {
                    let end = starts.get(line + 1).map_or(bytes.len(), |&n| n);
                    !bytes[starts[line]..end].is_ascii()
                })
                .map(|line| line as u32)
                .collect(),
        };
        LineIndex {
            text: Arc::from(text),
            starts,
            not_ascii,
            lone_cr: crs > crlfs,
            stamp: Arc::default(),
        }
    }

    /// Where the text's stamp is kept once found: shared with the texts
    /// made from it by replacements.
    pub fn stamp_cell(&self) -> Arc<OnceLock<Stamp>> {
        Arc::clone(&self.stamp)
    }

    /// The 0-based line, counted by LF, of the byte at `offset`, given
    /// `known`, an offset at or before it and its line: the index's own
    /// line where no CR ends one alone, else the LFs counted on from
    /// `known` (offsets asked in order read the text once).
    pub fn lf_line(&self, offset: usize, known: (usize, usize)) -> usize {
        match self.lone_cr {
            true => {
                let (from, line) = known;
                line + memchr::memchr_iter(b'\n', &self.text.as_bytes()[from..offset]).count()
            }
            false => self.starts.partition_point(|&start| start <= offset) - 1,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, shared.
    pub fn shared_text(&self) -> Arc<str> {
        Arc::clone(&self.text)
    }

    /// Roughly the bytes it holds, for bounding caches of them.
    pub fn weight(&self) -> usize {
        self.text.len()
            + self.starts.len() * std::mem::size_of::<usize>()
            + self.not_ascii.len() * std::mem::size_of::<u32>()
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// The text of a 0-based line, without its terminator.
    pub fn line(&self, line: usize) -> Option<&str> {
        let start = *self.starts.get(line)?;
        let end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let raw = &self.text[start..end];
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        Some(raw.strip_suffix('\r').unwrap_or(raw))
    }

    /// An LSP position (0-based, in `encoding` units) as sextant's. A
    /// character past the end of its line clamps to the line's end; a line
    /// past the end clamps to the last line.
    pub fn to_model(&self, pos: lsp_types::Position, encoding: Encoding) -> Position {
        let line = (pos.line as usize).min(self.line_count() - 1);
        if let Some(within) = self.ascii_within(line, pos.character) {
            return Position::new(line as u32 + 1, within as u32 + 1);
        }
        let text = self.line(line).unwrap_or("");
        // Before an ASCII prefix a unit is a character in every encoding:
        // most positions, and a walk per character for each of a long
        // answer's positions otherwise.
        let ascii = (pos.character as usize).min(text.len());
        if text.as_bytes()[..ascii].is_ascii() {
            return Position::new(line as u32 + 1, ascii as u32 + 1);
        }
        let mut units = 0;
        let mut chars = 0;
        for c in text.chars() {
            if units >= pos.character {
                break;
            }
            units += encoding.units(c);
            chars += 1;
        }
        Position::new(line as u32 + 1, chars + 1)
    }

    /// On an ASCII line, the byte offset within `line` (0-based, in the
    /// text) of the 0-based `character` of any encoding, when it is
    /// surely within the line: a line ends in at most two bytes, so a
    /// character that far before the next line's start is. `None` where
    /// the text or the line end must be looked at.
    fn ascii_within(&self, line: usize, character: u32) -> Option<usize> {
        if self.not_ascii.binary_search(&(line as u32)).is_ok() {
            return None;
        }
        let next = self.starts.get(line + 1).map_or(self.text.len(), |&n| n);
        let character = character as usize;
        (character.checked_add(2)? <= next - self.starts[line]).then_some(character)
    }

    /// sextant's position as an LSP one. `None` when the line does not
    /// exist; a character past the end of its line is clamped to the end.
    pub fn to_lsp(&self, pos: Position, encoding: Encoding) -> Option<lsp_types::Position> {
        let line = (pos.line as usize).checked_sub(1)?;
        let text = self.line(line)?;
        let ascii = (pos.character.saturating_sub(1) as usize).min(text.len());
        if text.as_bytes()[..ascii].is_ascii() {
            return Some(lsp_types::Position::new(line as u32, ascii as u32));
        }
        let units = text
            .chars()
            .take(pos.character.saturating_sub(1) as usize)
            .map(|c| encoding.units(c))
            .sum();
        Some(lsp_types::Position::new(line as u32, units))
    }

    /// The byte offset of a sextant position in the text; `None` when the
    /// line does not exist (a character past its end clamps to the end).
    pub fn offset_of(&self, pos: Position) -> Option<usize> {
        let line = (pos.line as usize).checked_sub(1)?;
        let text = self.line(line)?;
        let within: usize = text
            .chars()
            .take(pos.character.saturating_sub(1) as usize)
            .map(char::len_utf8)
            .sum();
        Some(self.starts[line] + within)
    }

    /// The byte offset of an LSP position, as an edit's range means it: a
    /// character past the end of its line clamps to the line's end, and
    /// a line after the last is the text's end (how an edit reaches the
    /// end of a file whose last line has no line end, where `to_model`
    /// would clamp to the last line's start).
    pub fn lsp_offset(&self, pos: lsp_types::Position, encoding: Encoding) -> Option<usize> {
        let line = pos.line as usize;
        if line >= self.line_count() {
            return Some(self.text.len());
        }
        if let Some(within) = self.ascii_within(line, pos.character) {
            return Some(self.starts[line] + within);
        }
        self.offset_of(self.to_model(pos, encoding))
    }

    /// The position of a byte offset of the text (clamped to the text, and
    /// to a character boundary before it).
    pub fn byte_to_model(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let chars = self.text[self.starts[line]..offset].chars().count();
        Position::new(line as u32 + 1, chars as u32 + 1)
    }

    pub fn range_to_model(&self, range: lsp_types::Range, encoding: Encoding) -> Range {
        Range::new(
            self.to_model(range.start, encoding),
            self.to_model(range.end, encoding),
        )
    }
}

/// Where each line starts (byte offsets) as TypeScript counts lines, for
/// the positions tsserver gives: `\n`, `\r\n`, `\r`, U+2028 and U+2029
/// each end one. LSP (and so [`LineIndex`]) counts only the first three, so
/// after a U+2028 in a comment every tsserver line number is one too high.
#[derive(Debug, Clone)]
pub struct TsserverLines {
    starts: Vec<usize>,
}

impl TsserverLines {
    pub fn new(text: &str) -> TsserverLines {
        let mut starts = vec![0];
        let mut chars = text.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '\r' if chars.peek().is_some_and(|&(_, next)| next == '\n') => {}
                '\n' | '\r' | '\u{2028}' | '\u{2029}' => starts.push(at + c.len_utf8()),
                _ => {}
            }
        }
        TsserverLines { starts }
    }

    /// tsserver's 1-based line and 1-based UTF-16 offset as sextant's
    /// position in `index`'s text (the text these lines were counted in).
    pub fn to_model(&self, index: &LineIndex, line: u64, offset: u64) -> Position {
        let line = usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX);
        let start = *self
            .starts
            .get(line)
            .or(self.starts.last())
            .expect("a text has a first line");
        let wanted = offset.saturating_sub(1);
        let mut units = 0u64;
        let mut byte = start;
        for c in index.text()[start..].chars() {
            if units >= wanted {
                break;
            }
            units += u64::from(Encoding::Utf16.units(c));
            byte += c.len_utf8();
        }
        index.byte_to_model(byte)
    }
}

/// The path of a `file:` URI as a server wrote it; `None` for any other.
/// Most are spelled so that the path is the text after `file://` (on
/// Unix): taken as it is, without parsing a `Url` and taking it apart
/// again (an answer's locations name hundreds). Any other spelling
/// (escapes, `.` or empty segments, a host, a query) goes through `Url`.
pub fn file_path(uri: &str) -> Option<PathBuf> {
    plain_file_path(uri).or_else(|| Url::parse(uri).ok()?.to_file_path().ok())
}

/// [`file_path`] of a URL already parsed: as written where it is plainly
/// spelled, else as the `Url` gives it (one made from a path keeps its
/// `..` segments, which parsing its text again would resolve).
pub fn url_path(url: &Url) -> Option<PathBuf> {
    plain_file_path(url.as_str()).or_else(|| url.to_file_path().ok())
}

/// The path after `file://` where it is spelled as `Url` would leave it:
/// ASCII letters, digits and marks it does not escape, no `.`, `..` or
/// empty segment.
fn plain_file_path(uri: &str) -> Option<PathBuf> {
    // On Redox `Url` gives a path with its scheme; on Windows a drive.
    if cfg!(any(not(unix), target_os = "redox")) {
        return None;
    }
    let path = uri.strip_prefix("file://")?;
    let bytes = path.as_bytes();
    if bytes.first() != Some(&b'/') {
        return None;
    }
    // One pass (an answer names hundreds of files): each byte one `Url`
    // leaves as it is, and each segment, ended by a `/` or the end, not
    // `.` or `..`, nor empty before a `/`.
    let mut segment = 1;
    for (at, &byte) in bytes.iter().enumerate().skip(1) {
        if !PLAIN_BYTES[usize::from(byte)] {
            return None;
        }
        if byte == b'/' {
            if matches!(&bytes[segment..at], b"" | b"." | b"..") {
                return None;
            }
            segment = at + 1;
        }
    }
    if matches!(&bytes[segment..], b"." | b"..") {
        return None;
    }
    Some(PathBuf::from(path))
}

/// The bytes `Url` leaves as they are in a path: ASCII letters and
/// digits, `/` and these marks.
const PLAIN_BYTES: [bool; 256] = {
    let mut plain = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        plain[byte] = (byte as u8).is_ascii_alphanumeric();
        byte += 1;
    }
    let marks = b"/-_.~+,;=@!$&'()*";
    let mut at = 0;
    while at < marks.len() {
        plain[marks[at] as usize] = true;
        at += 1;
    }
    plain
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_counted_by_lf_whatever_else_ends_a_line() {
        for text in ["a\nb\r\nc\n\nd", "a\rb\nc\r\nd\re\n\rf", "\r\r\n\n\u{e9}\r"] {
            let index = LineIndex::new(text);
            let mut known = (0, 0);
            for offset in (0..=text.len()).filter(|&at| text.is_char_boundary(at)) {
                let counted = text[..offset].matches('\n').count();
                assert_eq!(
                    index.lf_line(offset, (0, 0)),
                    counted,
                    "{text:?} at {offset}"
                );
                // Counted on from the offset before.
                let line = index.lf_line(offset, known);
                assert_eq!(line, counted, "{text:?} at {offset}, on from {known:?}");
                known = (offset, line);
            }
        }
    }

    fn lsp(line: u32, character: u32) -> lsp_types::Position {
        lsp_types::Position::new(line, character)
    }

    #[test]
    fn utf16_counts_surrogate_pairs_twice() {
        let index = LineIndex::new("let a = \"🎉\"; b\n");
        // `b` is character 15 (1-based); in UTF-16 the emoji takes two units.
        assert_eq!(
            index.to_lsp(Position::new(1, 15), Encoding::Utf16),
            Some(lsp(0, 15))
        );
        assert_eq!(
            index.to_lsp(Position::new(1, 15), Encoding::Utf8),
            Some(lsp(0, 17))
        );
        assert_eq!(
            index.to_model(lsp(0, 15), Encoding::Utf16),
            Position::new(1, 15)
        );
        assert_eq!(
            index.to_model(lsp(0, 17), Encoding::Utf8),
            Position::new(1, 15)
        );
    }

    #[test]
    fn crlf_and_lone_cr_end_lines() {
        let index = LineIndex::new("a\r\nbc\rd\n");
        assert_eq!(index.line_count(), 4);
        assert_eq!(index.line(0), Some("a"));
        assert_eq!(index.line(1), Some("bc"));
        assert_eq!(index.line(2), Some("d"));
        assert_eq!(index.line(3), Some(""));
        assert_eq!(
            index.to_model(lsp(0, 5), Encoding::Utf16),
            Position::new(1, 2),
            "clamped to the line end"
        );
    }

    #[test]
    fn line_starts_agree_with_a_reading_byte_by_byte() {
        // Each of LF, CRLF and a lone CR ends a line.
        fn starts(text: &str) -> Vec<usize> {
            let (bytes, mut starts, mut i) = (text.as_bytes(), vec![0], 0);
            while i < bytes.len() {
                match bytes[i] {
                    b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                        i += 1;
                        starts.push(i + 1);
                    }
                    b'\n' | b'\r' => starts.push(i + 1),
                    _ => {}
                }
                i += 1;
            }
            starts
        }
        for text in [
            "",
            "a",
            "\n",
            "\r",
            "\r\n",
            "\n\r",
            "\r\r\n",
            "\r\n\r\n",
            "a\r",
            "a\r\nb\rc\n\nd",
            "\n\n\r\r",
            "x\r\r\r\ny",
        ] {
            assert_eq!(LineIndex::new(text).starts, starts(text), "{text:?}");
        }
    }

    #[test]
    fn out_of_range_lines() {
        let index = LineIndex::new("one\ntwo");
        assert_eq!(index.to_lsp(Position::new(3, 1), Encoding::Utf16), None);
        assert_eq!(index.to_lsp(Position::new(0, 1), Encoding::Utf16), None);
        assert_eq!(
            index.to_model(lsp(9, 0), Encoding::Utf16),
            Position::new(2, 1)
        );
    }

    /// A small deterministic generator, so the property test needs no crate.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, bound: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % bound
        }

        /// Fewer than `most` pieces of `alphabet`, one after another.
        fn text(&mut self, alphabet: &[&str], most: usize) -> String {
            let pieces = self.next(most);
            (0..pieces)
                .map(|_| alphabet[self.next(alphabet.len())])
                .collect()
        }
    }

    /// Round trips through every encoding for random lines of ASCII, tabs,
    /// CJK, emoji, combining marks and all three line endings.
    #[test]
    fn round_trips_hold_for_random_text() {
        const ALPHABET: &[&str] = &[
            "a",
            "Z",
            " ",
            "\t",
            "日",
            "本",
            "🎉",
            "👩\u{200d}💻",
            "e\u{301}",
            "ß",
            "\r\n",
            "\n",
            "\r",
            "x",
        ];
        let mut rng = Lcg(42);
        for _ in 0..300 {
            let text = rng.text(ALPHABET, 40);
            let index = LineIndex::new(&text);
            for line in 0..index.line_count() {
                let chars = index.line(line).unwrap().chars().count() as u32;
                for character in 1..=chars + 1 {
                    let pos = Position::new(line as u32 + 1, character);
                    for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
                        let there = index.to_lsp(pos, encoding).unwrap();
                        assert_eq!(
                            index.to_model(there, encoding),
                            pos,
                            "{text:?} {encoding:?}"
                        );
                    }
                }
            }
        }
    }

    /// Positions on random lines of ASCII and not, within, at and past
    /// their ends, as a walk over every character converts them: the
    /// shortcuts for ASCII prefixes and ASCII lines give the same.
    #[test]
    fn conversions_agree_with_a_walk_over_the_characters() {
        fn walked_to_model(line: &str, character: u32, encoding: Encoding) -> u32 {
            let (mut units, mut chars) = (0, 0);
            for c in line.chars() {
                if units >= character {
                    break;
                }
                units += encoding.units(c);
                chars += 1;
            }
            chars + 1
        }
        fn walked_to_lsp(line: &str, character: u32, encoding: Encoding) -> u32 {
            let before = line.chars().take(character.saturating_sub(1) as usize);
            before.map(|c| encoding.units(c)).sum()
        }
        const ANY: &[&str] = &[
            "a", " ", "\t", "日", "🎉", "e\u{301}", "ß", "x", "\n", "\r\n", "\r",
        ];
        // Mostly ASCII, a line of another character now and then.
        const MOSTLY_ASCII: &[&str] =
            &["a", " ", "\t", "x", "\n", "\r\n", "\r", "a", "x", "\n", "ß"];
        let mut rng = Lcg(7);
        for alphabet in [ANY, MOSTLY_ASCII] {
            for _ in 0..300 {
                let text = rng.text(alphabet, 24);
                let index = LineIndex::new(&text);
                for number in 0..index.line_count() {
                    let line = index.line(number).unwrap();
                    for character in 0..line.len() as u32 + 4 {
                        for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
                            assert_eq!(
                                index.to_model(lsp(number as u32, character), encoding),
                                Position::new(
                                    number as u32 + 1,
                                    walked_to_model(line, character, encoding)
                                ),
                                "{text:?} {number} {character} {encoding:?}"
                            );
                            let walked = line
                                .chars()
                                .take(walked_to_model(line, character, encoding) as usize - 1)
                                .map(char::len_utf8)
                                .sum::<usize>();
                            assert_eq!(
                                index.lsp_offset(lsp(number as u32, character), encoding),
                                Some(index.starts[number] + walked),
                                "{text:?} {number} {character} {encoding:?}"
                            );
                            assert_eq!(
                                index.to_lsp(Position::new(number as u32 + 1, character), encoding),
                                Some(lsp(number as u32, walked_to_lsp(line, character, encoding))),
                                "{text:?} {number} {character} {encoding:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn tsserver_lines_end_where_typescript_ends_them() {
        // A U+2028 inside a comment: TypeScript's line 2 starts after it,
        // LSP's and sextant's do not.
        let text = "// a\u{2028}b\nconst 名前 = x;\n";
        let index = LineIndex::new(text);
        let ts = TsserverLines::new(text);
        assert_eq!(ts.starts.len(), 4);
        // `名前` starts at tsserver's 3:7 (one UTF-16 unit per character).
        assert_eq!(ts.to_model(&index, 3, 7), Position::new(2, 7));
        assert_eq!(ts.to_model(&index, 3, 9), Position::new(2, 9));
        // Surrogate pairs count two units; CRLF is one line end.
        let text = "a\r\n🎉x\n";
        let index = LineIndex::new(text);
        let ts = TsserverLines::new(text);
        assert_eq!(ts.to_model(&index, 2, 3), Position::new(2, 2));
    }

    /// Random URIs of plain and special characters, escapes, dot
    /// segments, hosts, queries: the path taken as written is the one
    /// `Url` parses, or none is; and a parsed URL's the one it gives.
    #[test]
    fn file_paths_as_written_are_the_ones_url_parses() {
        const PIECES: &[&str] = &[
            "a", "Z", "0", "/", "//", ".", "..", "-", "_", "~", "+", ",", ";", "=", "@", "!", "$",
            "&", "'", "(", ")", "*", ":", "%20", "%2F", "%2e", "%", " ", "?", "#", "\\", "|", "é",
            "C:", "[", "]", "^", "`", "{", "\"",
        ];
        const STARTS: &[&str] = &[
            "file:///",
            "file:///",
            "file:///",
            "file://",
            "file://localhost/",
            "file://host/",
            "file:/",
            "FILE:///",
            "http:///",
        ];
        let mut rng = Lcg(11);
        let mut plain = 0;
        for _ in 0..20_000 {
            let uri = format!("{}{}", STARTS[rng.next(STARTS.len())], rng.text(PIECES, 10));
            let parsed = Url::parse(&uri)
                .ok()
                .and_then(|url| url.to_file_path().ok());
            assert_eq!(
                file_path(&uri).map(PathBuf::into_os_string),
                parsed.map(PathBuf::into_os_string),
                "{uri}"
            );
            let url = Url::parse(&uri).ok();
            assert_eq!(
                url.as_ref().and_then(url_path),
                url.and_then(|url| url.to_file_path().ok()),
                "{uri}"
            );
            plain += usize::from(plain_file_path(&uri).is_some());
        }
        // The path as written is taken often enough to be tested.
        assert!(plain > 1_000, "{plain} taken as written");
    }
}
