//! Symbol addresses: the one way every position-taking tool is told which
//! symbol it works on, parsed and resolved here and nowhere else.
//!
//! An address is one of
//! - `file` + `line` + `character` (1-based, as any `@line:char` shows);
//! - `file` + `line` + `symbol`: the name is looked up on that line, so a
//!   wrong or missing column still works;
//! - `file` + `symbol` as a name path through the file's outline
//!   (`McpServer.connect`, `Parser::parse`, `impl Display for Point/fmt`),
//!   with `[n]` for the n-th of several overloads (`scale[2]`).
//!
//! A position off any identifier uses the nearest identifier on its line and
//! says so; an ambiguous name path answers with every candidate; a path
//! that matches nothing answers with the closest names of the file, never a
//! guess. The result is a [`Target`], which every such answer names in its
//! header line (`inspect Registry.add (Method) at src/shapes.ts:49:3`).

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;

use super::name_path::{declared_at, last_segment, resolve_name_path, strip_overload};
use super::outline::{FileOutline, outline_or_text, server_outline_instead};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::lsp::LspError;
use crate::model::{OutlineSymbol, Position, Target};
use crate::syntax::{Language, Token};

// The parameters of an address, as each position-taking tool takes them
// (flattened into its own). The forms are explained once, in the server's
// instructions: a `//` comment, as doc comments land in tools/list.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct Address {
    pub file: String,
    pub line: Option<u32>,
    pub character: Option<u32>,
    pub symbol: Option<String>,
}

/// An address resolved: the file and the identifier it designates.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub path: PathBuf,
    pub target: Target,
    /// The address was not on a name, and the nearest one was used (a
    /// reader may go on; a rename must not).
    pub moved: bool,
}

/// Resolves `address` against the file as it is on disk now.
pub async fn resolve(ctx: &Context, address: &Address) -> ToolResult<Resolved> {
    let path = ctx.resolve_read(&address.file)?;
    let shown = ctx.workspace.display(&path);
    // A symbol is something a language server can be asked about.
    if Language::from_path(&path).is_none() && ctx.lsp.config().language_for(&path).is_none() {
        return Err(LspError::NoServer { path: shown }.into());
    }
    let file = outline_or_text(ctx, &path, &shown).await?;
    let target = match (address.line, &address.symbol) {
        (Some(line), symbol) => {
            let name = symbol.as_deref().map(|s| last_segment(s).0);
            at_line(&file, &shown, line, address.character, name)?
        }
        (None, Some(symbol)) => match by_name_path(&file, &shown, symbol) {
            // A name tree-sitter missed in what it could not parse (a C
            // declaration behind a macro): the server's outline may have it.
            Err(err)
                if err.code == ErrorCode::NotFound
                    && matches!(&file, FileOutline::TreeSitter(parsed) if parsed.has_syntax_errors())
                    && ctx.lsp.config().language_for(&path).is_some() =>
            {
                match server_outline_instead(ctx, &path, &shown).await {
                    Ok(outline) => by_name_path(&outline, &shown, symbol)?,
                    Err(_) => return Err(err),
                }
            }
            other => other?,
        },
        (None, None) => {
            return Err(ToolError::new(
                ErrorCode::InvalidParams,
                format!(
                    "an address needs `line` (with `character` or `symbol`) or `symbol` (a name path such as `Registry.add`) besides `file` {shown}"
                ),
            ));
        }
    };
    // The nearest name was used: its note says where the position was.
    let moved = address.line.is_some() && address.symbol.is_none() && target.note.is_some();
    Ok(Resolved {
        path,
        target,
        moved,
    })
}

/// The identifier at (or named on) `line`.
fn at_line(
    file: &FileOutline,
    shown: &str,
    line: u32,
    character: Option<u32>,
    name: Option<&str>,
) -> ToolResult<Target> {
    // Lines as a person counts them: a final line break ends the last
    // line rather than starting another.
    let lines = file.lines().line_count() - usize::from(file.text().ends_with('\n'));
    if line == 0 {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            "line counts from 1",
        ));
    }
    if line as usize > lines {
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!("line {line} is past the end of {shown} ({lines} lines)"),
        ));
    }
    let text: Vec<char> = file
        .lines()
        .line(file.text(), line as usize - 1)
        .trim_end_matches('\r')
        .chars()
        .collect();
    // With a name to look for, the column is only a hint: a wrong one
    // still works.
    if let Some(character) = character.filter(|_| name.is_none()) {
        if character == 0 {
            return Err(ToolError::new(
                ErrorCode::InvalidParams,
                "character counts from 1",
            ));
        }
        if character as usize > text.len() + 1 {
            return Err(ToolError::new(
                ErrorCode::OutOfRange,
                format!(
                    "character {character} is past the end of line {line} of {shown} ({} characters)",
                    text.len()
                ),
            ));
        }
    }
    // Keywords, and words in comments and literals, name nothing.
    let token = |w: &Word| file.token_at(Position::new(line, w.start as u32 + 1));
    let all_words = identifiers(&text);
    let words: Vec<Word> = all_words
        .iter()
        .filter(|w| token(w) == Token::Name)
        .copied()
        .collect();
    let names = || {
        let names: Vec<String> = words.iter().map(|w| w.text(&text)).collect();
        if names.is_empty() {
            "it has no identifier".to_string()
        } else {
            format!("its names are {}", names.join(", "))
        }
    };
    let column = character.map(|c| c as usize - 1);
    let (word, note) = match name {
        Some(name) => {
            // A private member (`#count`) as written: the `#` is part of
            // its name, not of the identifier.
            let (wanted, private) = match name.strip_prefix('#') {
                Some(bare) => (bare, true),
                None => (name, false),
            };
            let found = words
                .iter()
                .filter(|w| w.text(&text) == wanted)
                .filter(|w| !private || (w.start > 0 && text[w.start - 1] == '#'))
                .min_by_key(|w| column.map_or(0, |c| w.distance(c)));
            match found {
                Some(word) if private => (
                    Word {
                        start: word.start - 1,
                        end: word.end,
                    },
                    None,
                ),
                Some(word) => (*word, None),
                None => {
                    return Err(ToolError::new(
                        ErrorCode::NotFound,
                        format!("no `{name}` on line {line} of {shown}; {}", names()),
                    ));
                }
            }
        }
        None => {
            let column = column.ok_or_else(|| {
                ToolError::new(
                    ErrorCode::InvalidParams,
                    "with `line`, pass `character` or `symbol` (the name on that line)",
                )
            })?;
            // What the column is on, when it is not a name.
            let not_a_name = match all_words.iter().find(|w| w.distance(column) == 0) {
                Some(word) if token(word) != Token::Name => Some(format!(
                    "`{}` at {line}:{} is {}",
                    word.text(&text),
                    word.start + 1,
                    token(word).describe()
                )),
                Some(_) => None,
                None => match file.token_at(Position::new(line, column as u32 + 1)) {
                    Token::Comment | Token::Literal => Some(format!(
                        "{line}:{} is {}",
                        column + 1,
                        file.token_at(Position::new(line, column as u32 + 1))
                            .describe()
                    )),
                    _ => None,
                },
            };
            let Some(nearest) = words.iter().min_by_key(|w| w.distance(column)) else {
                let why = not_a_name.map(|w| format!("{w}, and ")).unwrap_or_default();
                return Err(ToolError::new(
                    ErrorCode::NotFound,
                    format!(
                        "{why}line {line} of {shown} has no name (keywords, comments and literals name nothing); pass the line of a name"
                    ),
                ));
            };
            let note = match not_a_name {
                Some(what) => Some(format!(
                    "{what}; used `{}` at {line}:{}, the nearest name on that line",
                    nearest.text(&text),
                    nearest.start + 1
                )),
                None => (nearest.distance(column) > 0).then(|| {
                    format!(
                        "no identifier at {line}:{}; used `{}` at {line}:{}, the nearest on that line",
                        column + 1,
                        nearest.text(&text),
                        nearest.start + 1
                    )
                }),
            };
            (*nearest, note)
        }
    };
    let position = Position::new(line, word.start as u32 + 1);
    let declaration = declared_at(file.symbols(), position, file.path_separator());
    Ok(Target {
        path: shown.to_string(),
        position,
        name: word.text(&text),
        declaration,
        note,
    })
}

/// The identifier a symbol's name stands at: its name, or the end of a
/// name shown with its scope (`(*FlagSet).Parse`, `Circle::area`), which
/// is what a rename changes and what its audit looks for.
fn identifier(symbol: &OutlineSymbol) -> String {
    let range = symbol.selection_range;
    let name: Vec<char> = symbol.name.chars().collect();
    let length = range.end.character.saturating_sub(range.start.character) as usize;
    if range.start.line == range.end.line && length > 0 && length < name.len() {
        let (scope, identifier) = name.split_at(name.len() - length);
        if matches!(scope.last(), Some('.' | ':')) {
            return identifier.iter().collect();
        }
    }
    symbol.name.clone()
}

/// The symbol a name path designates.
fn by_name_path(file: &FileOutline, shown: &str, path: &str) -> ToolResult<Target> {
    let (_, overload) = last_segment(path);
    let bare = strip_overload(path.trim());
    let group = resolve_name_path(file.symbols(), bare, shown, file.path_separator())?;
    let count = group.symbols.len();
    let (index, note) = match overload {
        Some(n) if n == 0 || n > count => {
            return Err(ToolError::new(
                ErrorCode::NotFound,
                format!(
                    "{bare} has {} in {shown}; pass [1] to [{count}]",
                    crate::render::count(count, "declaration", "declarations")
                ),
            ));
        }
        Some(n) => (n - 1, None),
        None if count > 1 => (
            0,
            Some(format!(
                "{bare} has {count} overloads; this is the first, {bare}[1]; pass {bare}[2] ... {bare}[{count}] for the others"
            )),
        ),
        None => (0, None),
    };
    let symbol = group.symbols[index];
    Ok(Target {
        path: shown.to_string(),
        position: symbol.selection_range.start,
        name: identifier(symbol),
        declaration: Some((group.path, symbol.kind)),
        note,
    })
}

/// One identifier of a line, by character index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Word {
    start: usize,
    /// One past its last character.
    end: usize,
}

impl Word {
    fn text(&self, line: &[char]) -> String {
        line[self.start..self.end].iter().collect()
    }

    /// Characters between `column` and the word (0 inside it, and right
    /// after it, where a cursor after a name sits).
    fn distance(&self, column: usize) -> usize {
        if column < self.start {
            self.start - column
        } else {
            column.saturating_sub(self.end)
        }
    }
}

/// The identifiers of a line: letters, digits, `_` and `$`, not starting
/// with a digit.
fn identifiers(line: &[char]) -> Vec<Word> {
    let is_part = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut words = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if is_part(line[i]) {
            let start = i;
            while i < line.len() && is_part(line[i]) {
                i += 1;
            }
            if !line[start].is_ascii_digit() {
                words.push(Word { start, end: i });
            }
        } else {
            i += 1;
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scoped_name_is_renamed_by_its_identifier() {
        use crate::model::{Range, SymbolKind};
        let symbol = |name: &str, at: u32, length: u32| OutlineSymbol {
            name: name.to_string(),
            kind: SymbolKind::Method,
            detail: None,
            range: Range::new(Position::new(1, 1), Position::new(1, 40)),
            selection_range: Range::new(Position::new(1, at), Position::new(1, at + length)),
            qualifier: None,
            children: Vec::new(),
        };
        assert_eq!(identifier(&symbol("(*FlagSet).Parse", 19, 5)), "Parse");
        assert_eq!(identifier(&symbol("Circle::area", 16, 4)), "area");
        assert_eq!(identifier(&symbol("area", 9, 4)), "area");
        assert_eq!(
            identifier(&symbol("impl Display for Point", 23, 5)),
            "impl Display for Point"
        );
        assert_eq!(
            identifier(&symbol("(anonymous struct)", 9, 0)),
            "(anonymous struct)"
        );
    }

    fn words(line: &str) -> Vec<String> {
        let chars: Vec<char> = line.chars().collect();
        identifiers(&chars).iter().map(|w| w.text(&chars)).collect()
    }

    #[test]
    fn identifiers_are_letters_digits_underscores_and_dollars() {
        assert_eq!(
            words("  const $el = registry.add(名前, 42, x_1);"),
            ["const", "$el", "registry", "add", "名前", "x_1"]
        );
        assert!(words("  }); // 12").is_empty());
    }

    #[test]
    fn the_distance_to_a_word_is_zero_inside_and_right_after_it() {
        let word = Word { start: 4, end: 7 };
        assert_eq!([2, 4, 6, 7, 9].map(|c| word.distance(c)), [2, 0, 0, 0, 2]);
    }
}
