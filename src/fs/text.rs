//! Reading text files: binary detection, streamed numbered lines, whole-file
//! reads for editing, and cutting long lines at a character boundary.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::model::{FileLines, NumberedLine};

/// How many leading bytes decide whether a file is binary (as git does).
const BINARY_SNIFF_BYTES: usize = 8192;

/// Files larger than this are not loaded whole (for editing).
pub const MAX_EDIT_BYTES: u64 = 16 * 1024 * 1024;

/// A NUL byte among the first bytes marks binary data.
pub fn looks_binary(head: &[u8]) -> bool {
    head[..head.len().min(BINARY_SNIFF_BYTES)].contains(&0)
}

/// The metadata of a regular file. A folder, a FIFO, a socket or a device
/// is refused: reading a FIFO would wait for a writer forever.
pub fn regular_file(path: &Path, shown: &str) -> ToolResult<std::fs::Metadata> {
    let meta = std::fs::metadata(path).map_err(|err| ToolError::io(shown, &err))?;
    if meta.is_dir() {
        return Err(ToolError::new(
            ErrorCode::NotAFile,
            format!("{shown} is a folder, not a file; use find to list its files"),
        ));
    }
    if !meta.is_file() {
        return Err(ToolError::new(
            ErrorCode::NotAFile,
            format!(
                "{shown} is not a regular file (a FIFO, socket or device); only files can be read"
            ),
        ));
    }
    Ok(meta)
}

/// Opens `path` as a regular text file, refusing folders and binary files.
fn open_text(path: &Path, shown: &str) -> ToolResult<BufReader<File>> {
    let meta = regular_file(path, shown)?;
    let file = File::open(path).map_err(|err| ToolError::io(shown, &err))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let head = reader
        .fill_buf()
        .map_err(|err| ToolError::io(shown, &err))?;
    if looks_binary(head) {
        return Err(ToolError::new(
            ErrorCode::BinaryFile,
            format!(
                "{shown} is a binary file ({} bytes); only text files can be read",
                meta.len()
            ),
        ));
    }
    Ok(reader)
}

/// What `read_lines` should take from a file.
#[derive(Debug, Clone, Copy)]
pub struct LineWindow {
    /// First line, 1-based.
    pub offset: usize,
    /// Most lines to return.
    pub limit: usize,
    /// Lines longer than this many characters are cut.
    pub max_line_chars: usize,
    /// Stop adding lines once their text passes this many characters.
    pub budget_chars: usize,
}

/// Streams `path` and returns the lines of `window`, counting the rest
/// without keeping them: a 50 MB file is never held in memory.
pub fn read_lines(path: &Path, shown: &str, window: LineWindow) -> ToolResult<FileLines> {
    let mut reader = open_text(path, shown)?;
    let mut lines = Vec::new();
    let mut total = 0usize;
    let mut used_chars = 0usize;
    let mut full = false;
    let mut crlf = false;
    let mut buf = Vec::new();
    let io = |err: std::io::Error| ToolError::io(shown, &err);
    loop {
        // Lines not shown are only counted: read line by line (copied, and
        // found by the standard library's `memchr`) they were two thirds of
        // a `read_file` of a 250 KB file's first thousand lines.
        if full {
            total += count_lines(&mut reader).map_err(io)?;
            break;
        }
        if total + 1 < window.offset {
            if reader.skip_until(b'\n').map_err(io)? == 0 {
                break;
            }
            total += 1;
            continue;
        }
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(io)? == 0 {
            break;
        }
        total += 1;
        if buf.ends_with(b"\r\n") {
            crlf = true;
        }
        let text = String::from_utf8_lossy(strip_terminator(&buf));
        let (text, cut_from) = cut_line(&text, window.max_line_chars);
        used_chars += text.len() + 8;
        if lines.len() == window.limit || (used_chars > window.budget_chars && !lines.is_empty()) {
            full = true;
            continue;
        }
        lines.push(NumberedLine {
            number: total,
            text,
            cut_from,
        });
    }
    if window.offset > 1 && window.offset > total {
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!(
                "{shown} has {total} lines; offset {} is past its end",
                window.offset
            ),
        ));
    }
    let next_offset = lines
        .last()
        .map(|l| l.number + 1)
        .filter(|&next| next <= total);
    Ok(FileLines {
        path: shown.to_string(),
        lines,
        total_lines: total,
        crlf,
        next_offset,
    })
}

/// The lines left in `reader`, read from the start of one: its line ends,
/// and a last line without one.
fn count_lines(reader: &mut impl BufRead) -> std::io::Result<usize> {
    let (mut lines, mut open) = (0, false);
    loop {
        let chunk = reader.fill_buf()?;
        let Some(&last) = chunk.last() else {
            return Ok(lines + usize::from(open));
        };
        lines += memchr::memchr_iter(b'\n', chunk).count();
        open = last != b'\n';
        let read = chunk.len();
        reader.consume(read);
    }
}

/// Reads a whole text file for editing (bounded in size).
pub fn read_for_edit(path: &Path, shown: &str) -> ToolResult<String> {
    let mut reader = open_text(path, shown)?;
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if len > MAX_EDIT_BYTES {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!(
                "{shown} is {len} bytes; files over {MAX_EDIT_BYTES} bytes are not edited through sextant"
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    reader
        .read_to_end(&mut bytes)
        .map_err(|err| ToolError::io(shown, &err))?;
    String::from_utf8(bytes).map_err(|_| {
        ToolError::new(
            ErrorCode::BinaryFile,
            format!("{shown} is not valid UTF-8; only UTF-8 text files can be edited"),
        )
    })
}

/// A line without its `\n` or `\r\n`.
pub fn strip_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Cuts `text` to at most `max_chars` characters; returns the full length
/// in characters when it cut.
pub fn cut_line(text: &str, max_chars: usize) -> (String, Option<usize>) {
    match text.char_indices().nth(max_chars) {
        None => (text.to_string(), None),
        Some((byte, _)) => (text[..byte].to_string(), Some(text.chars().count())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_line_respects_char_boundaries() {
        assert_eq!(cut_line("héllo", 2), ("hé".to_string(), Some(5)));
        assert_eq!(cut_line("日本語", 3), ("日本語".to_string(), None));
        assert_eq!(cut_line("日本語", 1), ("日".to_string(), Some(3)));
    }

    #[test]
    fn lines_past_the_window_are_counted_as_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let texts = [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\nb\n",
            "a\r\nb\r\n\r\n",
            "\n\n\nlast",
        ];
        for text in texts {
            // Beside the 64 KB buffer's edge, and across it.
            for filler in [0, 65_530, 65_536, 200_000] {
                let text = format!("{}{text}", "x\n".repeat(filler / 2));
                std::fs::write(&path, &text).unwrap();
                let count = text.lines().count();
                for (offset, limit) in [(1, 1), (1, 2), (2, 1), (3, 1), (1, 1000)] {
                    let window = LineWindow {
                        offset,
                        limit,
                        max_line_chars: 100,
                        budget_chars: 1 << 20,
                    };
                    let lines = match read_lines(&path, "f.txt", window) {
                        Ok(lines) => lines,
                        // An offset past the end, as the count says.
                        Err(_) => {
                            assert!(offset > count, "{text:?} {offset}");
                            continue;
                        }
                    };
                    assert!(
                        offset <= count.max(1),
                        "{text:?}: offset {offset} is past the end"
                    );
                    assert_eq!(lines.total_lines, count, "{text:?} {offset} {limit}");
                    let shown: Vec<usize> = lines.lines.iter().map(|l| l.number).collect();
                    let wanted: Vec<usize> = (offset..=count).take(limit).collect();
                    assert_eq!(shown, wanted, "{text:?} {offset} {limit}");
                }
            }
        }
    }

    #[test]
    fn strip_terminator_handles_crlf() {
        assert_eq!(strip_terminator(b"a\r\n"), b"a");
        assert_eq!(strip_terminator(b"a\n"), b"a");
        assert_eq!(strip_terminator(b"a"), b"a");
    }
}
