//! The outline of any file a tool works on: sextant's tree-sitter outline
//! where it has a grammar (TypeScript, JavaScript, Rust: faster than a
//! server, needs none, and `tests/outline_agreement.rs` holds it to the
//! servers'), else the file's language server's `documentSymbol`, filtered
//! and nested the same way. A file tree-sitter cannot parse whole (C
//! declarations behind macros, syntax newer than the grammar) takes its
//! ready server's outline instead, kept for as long as the file's text is
//! unchanged (`Context::server_outlines`). `read` pages it; symbol addresses
//! resolve name paths through it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::blocking;
use crate::context::{Context, KeptOutline};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::stamped::{Stamp, StampedCache, Watch};
use crate::fs::text::{looks_binary, regular_file};
use crate::lsp::symbols::document_symbols;
use crate::lsp::{Need, Session};
use crate::model::{CodeExcerpt, OutlineSource, OutlineSymbol, Position, Range};
use crate::syntax::{self, Language, LineIndex, SourceFile, Token};

/// Files larger than this get no outline (read_file still pages them).
pub const MAX_OUTLINE_BYTES: u64 = 16 * 1024 * 1024;

/// A file's outline and the text it was made from.
pub enum FileOutline {
    TreeSitter(Arc<SourceFile>),
    Server {
        /// Shared with `Context::server_outlines` when kept there.
        outline: Arc<KeptOutline>,
        /// The server was still indexing after its `ready_timeout`.
        index_complete: bool,
        /// The tree-sitter language of a file it could not parse whole,
        /// which is why the server's outline is used.
        unparsed: Option<Language>,
    },
}

impl FileOutline {
    pub fn symbols(&self) -> &[OutlineSymbol] {
        match self {
            FileOutline::TreeSitter(file) => file.outline(),
            FileOutline::Server { outline, .. } => &outline.symbols,
        }
    }

    pub fn text(&self) -> &str {
        match self {
            FileOutline::TreeSitter(file) => file.text(),
            FileOutline::Server { outline, .. } => &outline.text,
        }
    }

    pub fn lines(&self) -> &LineIndex {
        match self {
            FileOutline::TreeSitter(file) => file.lines(),
            FileOutline::Server { outline, .. } => &outline.lines,
        }
    }

    /// The tree-sitter language of the file, when it has one.
    pub fn language(&self) -> Option<Language> {
        match self {
            FileOutline::TreeSitter(file) => Some(file.language()),
            FileOutline::Server { unparsed, .. } => *unparsed,
        }
    }

    pub fn source(&self) -> OutlineSource {
        match self {
            FileOutline::TreeSitter(_) => OutlineSource::TreeSitter,
            FileOutline::Server { outline, .. } => {
                OutlineSource::LanguageServer(outline.server.clone())
            }
        }
    }

    /// The separator a name path of this file reads best with (`::` in
    /// Rust, `.` elsewhere).
    pub fn path_separator(&self) -> &'static str {
        self.language().map_or(".", Language::name_separator)
    }

    /// A symbol's condensed declaration: tree-sitter's declaration without
    /// its body, or, from a server's outline, the line its name is on.
    pub fn signature(&self, symbol: &OutlineSymbol) -> Option<String> {
        match self {
            FileOutline::TreeSitter(file) => file.signature(symbol),
            FileOutline::Server { outline, .. } => syntax::signature::declaration_line(
                &outline.text,
                &outline.lines,
                symbol.selection_range.start.line,
            ),
        }
    }

    /// What the text at `position` is (a name, a keyword, a comment, a
    /// literal); every word is a name where sextant has no grammar.
    pub fn token_at(&self, position: Position) -> Token {
        match self {
            FileOutline::TreeSitter(file) => file.token_at(position),
            FileOutline::Server { .. } => Token::Name,
        }
    }

    /// The 1-based first and last lines of `range`.
    pub fn line_span(&self, range: Range) -> (u32, u32) {
        syntax::line_span(self.lines(), range)
    }

    /// Lines `first..=last`, at most `max_lines` of them.
    pub fn excerpt(&self, first: u32, last: u32, max_lines: usize) -> CodeExcerpt {
        syntax::excerpt(self.text(), self.lines(), first, last, max_lines)
    }
}

/// The outline of `path` (`shown` names it in messages).
pub async fn outline(ctx: &Context, path: &Path, shown: &str) -> ToolResult<FileOutline> {
    let language = Language::from_path(path);
    // An answer outlines every file it points into: a parse kept costs no
    // `stat` where the file watcher hears the file, else one.
    let heard = ctx.lsp.heard();
    let kept = language.and_then(|language| {
        let watch = heard.as_ref().map(|heard| heard as &dyn Watch);
        ctx.parsed
            .get_fresh(path, path, watch)
            .ok()
            .filter(|file| file.language() == language)
    });
    let meta = match kept {
        Some(_) => None,
        // A `stat` tells a folder (the cache's, on a miss, does not) and
        // stamps a file.
        None => std::fs::metadata(path).ok(),
    };
    if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
        return Err(ToolError::new(
            ErrorCode::NotAFile,
            format!("{shown} is a folder, not a file; use find to list its files"),
        ));
    }
    if let Some(language) = language {
        let file = match kept {
            Some(file) => file,
            None => {
                let stamp = meta
                    .filter(std::fs::Metadata::is_file)
                    .and_then(|meta| Stamp::of(&meta));
                read_and_parse(ctx, path, shown, language, stamp).await?
            }
        };
        // Only a server already up: a read does not wait for one to start.
        if file.has_syntax_errors() && ctx.lsp.ready_for(path) {
            if let Some(outline) = ctx.server_outlines.get(path, &file) {
                return Ok(FileOutline::Server {
                    outline,
                    index_complete: true,
                    unparsed: Some(language),
                });
            }
            if let Ok(outline) = server_outline_instead(ctx, path, shown).await {
                return Ok(outline);
            }
        }
        return Ok(FileOutline::TreeSitter(file));
    }
    let config = ctx.lsp.config();
    if let Some((name, ext)) = config.other_language_for(path) {
        return Err(ToolError::new(
            ErrorCode::NoServer,
            format!(
                "{shown}: sextant has no server or grammar for {name}; add a server as [language.{}] with `command` and `extensions = [\"{ext}\"]` in sextant.toml, or use read_file, or read with preview \"raw\"",
                name.to_ascii_lowercase()
                    .replace('#', "sharp")
                    .replace('+', "p")
                    .replace(|c: char| !c.is_ascii_alphanumeric(), "")
            ),
        ));
    }
    if config.language_for(path).is_none() {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!(
                "{shown}: no outline for this kind of file (outlines cover {} and the files of languages configured in sextant.toml); use read_file, or read with preview \"raw\"",
                syntax::language_names()
            ),
        ));
    }
    let session = ctx.lsp.open(path, Need::DOCUMENT).await?;
    let symbols = syntax::filter_outline(document_symbols(&session).await?);
    Ok(server_outline(&session, symbols, None))
}

/// The server's outline of a file tree-sitter could not parse whole, when
/// it has symbols (starting the server if need be).
pub async fn server_outline_instead(
    ctx: &Context,
    path: &Path,
    shown: &str,
) -> ToolResult<FileOutline> {
    let session = ctx.lsp.open(path, Need::DOCUMENT).await?;
    let symbols = syntax::filter_outline(document_symbols(&session).await?);
    if symbols.is_empty() {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!("{shown}: its server's outline has no symbols"),
        ));
    }
    let outline = server_outline(&session, symbols, Language::from_path(path));
    // Kept only when whole: one made while the server indexed may lack
    // symbols.
    if let FileOutline::Server {
        outline,
        index_complete: true,
        ..
    } = &outline
    {
        ctx.server_outlines.keep(path, Arc::clone(outline));
    }
    Ok(outline)
}

/// `outline`, but where the file's server declines document symbols, its
/// text without symbols: what a symbol address needs when it names a
/// position or a name on a line (a name path then finds nothing).
pub async fn outline_or_text(ctx: &Context, path: &Path, shown: &str) -> ToolResult<FileOutline> {
    match outline(ctx, path, shown).await {
        Err(err) if err.code == ErrorCode::Unsupported => {
            let session = ctx.lsp.open(path, Need::DOCUMENT).await?;
            Ok(server_outline(&session, Vec::new(), None))
        }
        other => other,
    }
}

fn server_outline(
    session: &Session,
    symbols: Vec<OutlineSymbol>,
    unparsed: Option<Language>,
) -> FileOutline {
    let text = session.lines().text().to_string();
    FileOutline::Server {
        outline: Arc::new(KeptOutline {
            server: session.server().to_string(),
            symbols,
            lines: LineIndex::new(&text),
            text,
        }),
        index_complete: session.index_complete(),
        unparsed,
    }
}

/// The tree-sitter parse of the file at `path`, read and parsed now (off
/// the async threads: `outline` found none kept), and kept under `stamp`,
/// the caller's `stat` taken before the read.
async fn read_and_parse(
    ctx: &Context,
    path: &Path,
    shown: &str,
    language: Language,
    stamp: Option<Stamp>,
) -> ToolResult<Arc<SourceFile>> {
    let (path, shown) = (path.to_path_buf(), shown.to_string());
    let kept = Arc::clone(&ctx.parsed);
    blocking(move || {
        let text = read_source(&path, &shown)?;
        Ok(parse_and_keep(&kept, path, stamp, language, text))
    })
    .await
}

/// The tree-sitter parse of the file at `path` for code already off the
/// async threads: as kept while the file keeps its stamp
/// (`Context::parsed`), else read as `outline` reads it and parsed now
/// (and kept). `None` for a file that cannot be outlined (unreadable,
/// binary, over [`MAX_OUTLINE_BYTES`]): a parse kept from any other read
/// would be taken by `outline` too. A search's page parses the files of
/// its matches: on an unchanged workspace each is one `stat`, or none
/// where `watch` hears the file.
pub fn parsed_blocking(
    kept: &StampedCache<PathBuf, SourceFile>,
    watch: Option<&dyn Watch>,
    path: &Path,
    language: Language,
) -> Option<Arc<SourceFile>> {
    let stamp = match kept.get_fresh(path, path, watch) {
        Ok(file) if file.language() == language => return Some(file),
        Ok(_) => Stamp::read(path),
        Err(stamp) => stamp,
    };
    let text = read_source(path, &path.display().to_string()).ok()?;
    Some(parse_and_keep(
        kept,
        path.to_path_buf(),
        stamp,
        language,
        text,
    ))
}

/// `text`, read from `path`, parsed and kept under `stamp`: the stamp taken
/// before the read, so a write during it leaves the file with another and
/// the next call reads it again.
fn parse_and_keep(
    kept: &StampedCache<PathBuf, SourceFile>,
    path: PathBuf,
    stamp: Option<Stamp>,
    language: Language,
    text: String,
) -> Arc<SourceFile> {
    let file = syntax::parse(language, text);
    if let Some(stamp) = stamp {
        kept.put(path, stamp, Arc::clone(&file), file.text().len());
    }
    file
}

/// Reads a file whole for parsing: text only, bounded in size; bytes that
/// are not UTF-8 become U+FFFD (one character each, so columns stay right).
fn read_source(path: &Path, shown: &str) -> ToolResult<String> {
    let meta = regular_file(path, shown)?;
    if meta.len() > MAX_OUTLINE_BYTES {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!(
                "{shown} is {} bytes; outlines stop at {MAX_OUTLINE_BYTES} bytes; use read_file, or read with preview \"raw\"",
                meta.len()
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|err| ToolError::io(shown, &err))?;
    if looks_binary(&bytes) {
        return Err(ToolError::new(
            ErrorCode::BinaryFile,
            format!(
                "{shown} is a binary file ({} bytes); only text files can be read",
                bytes.len()
            ),
        ));
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_outline_refuses_is_not_parsed_off_the_async_threads_either() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blob.rs");
        std::fs::write(&path, b"fn main() {}\0\0\0\x01\x02").unwrap();
        let kept = StampedCache::new(1 << 20);
        assert!(read_source(&path, "blob.rs").is_err());
        assert!(parsed_blocking(&kept, None, &path, Language::from_path(&path).unwrap()).is_none());
        let text = dir.path().join("main.rs");
        std::fs::write(&text, "fn main() {}\n").unwrap();
        let parsed =
            parsed_blocking(&kept, None, &text, Language::from_path(&text).unwrap()).unwrap();
        assert_eq!(parsed.text(), "fn main() {}\n");
    }
}
