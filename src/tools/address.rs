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

use super::outline::{FileOutline, outline_or_text};
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
    let path = ctx.workspace.resolve_read(&address.file)?;
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
        (None, Some(symbol)) => by_name_path(&file, &shown, symbol)?,
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
            let found = words
                .iter()
                .filter(|w| w.text(&text) == name)
                .min_by_key(|w| column.map_or(0, |c| w.distance(c)));
            match found {
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

/// The declaration whose name starts at `position` in `symbols`, with its
/// name path joined by `separator`.
pub(crate) fn declared_at(
    symbols: &[OutlineSymbol],
    position: Position,
    separator: &str,
) -> Option<(String, crate::model::SymbolKind)> {
    fn walk<'a>(
        symbols: &'a [OutlineSymbol],
        position: Position,
        chain: &mut Vec<&'a str>,
    ) -> Option<&'a OutlineSymbol> {
        for symbol in symbols {
            chain.push(&symbol.name);
            if symbol.selection_range.start == position {
                return Some(symbol);
            }
            if symbol.range.start <= position
                && position <= symbol.range.end
                && let Some(found) = walk(&symbol.children, position, chain)
            {
                return Some(found);
            }
            chain.pop();
        }
        None
    }
    let mut chain = Vec::new();
    let symbol = walk(symbols, position, &mut chain)?;
    Some((join_path(&chain, separator), symbol.kind))
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
        name: symbol.name.clone(),
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

/// A name path's last name and its overload index: `Registry.add` ->
/// (`add`, None), `scale[2]` -> (`scale`, Some(2)).
fn last_segment(path: &str) -> (&str, Option<usize>) {
    let path = path.trim();
    let overload = path
        .strip_suffix(']')
        .and_then(|p| p.rsplit_once('['))
        .and_then(|(_, n)| n.parse().ok());
    let bare = strip_overload(path);
    let last = bare
        .rsplit(['.', '/', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or(bare);
    (last, overload)
}

/// `scale[2]` -> `scale`.
fn strip_overload(path: &str) -> &str {
    match path.strip_suffix(']').and_then(|p| p.rsplit_once('[')) {
        Some((bare, n)) if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => bare,
        _ => path,
    }
}

/// The symbols of one name path: overloads (one name, one parent) come
/// together, in source order.
#[derive(Debug)]
pub struct NamedGroup<'a> {
    /// The full name path from the root, joined the file's way.
    pub path: String,
    pub symbols: Vec<&'a OutlineSymbol>,
}

/// The symbols a name path designates. Segments are joined by `.`, `::` or
/// `/`, and a segment is a whole symbol name, so names holding separators
/// (`impl fmt::Display for Ledger`, `[Symbol.iterator]`) still resolve. The
/// path may start at any depth; a path from a root wins over deeper
/// matches. A path matching symbols of several places is ambiguous (every
/// candidate is listed); one matching nothing lists the closest names.
pub fn resolve_name_path<'a>(
    outline: &'a [OutlineSymbol],
    path: &str,
    shown: &str,
    separator: &str,
) -> ToolResult<NamedGroup<'a>> {
    let path = path.trim();
    let mut matches: Vec<Match<'a>> = Vec::new();
    let mut chain = Vec::new();
    collect_matches(outline, path, &mut chain, &mut matches);
    if matches.iter().any(|m| m.from_root) {
        matches.retain(|m| m.from_root);
    }
    let Some(first) = matches.first() else {
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!(
                "no symbol `{path}` in {shown}; {}",
                closest(outline, path, separator)
            ),
        ));
    };
    let same_place = matches.iter().all(|m| {
        let same_parent = match (m.parent, first.parent) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_parent && m.symbol.name == first.symbol.name
    });
    if !same_place {
        let listed: Vec<String> = matches
            .iter()
            .take(20)
            .map(|m| describe(&m.path, m.symbol, separator))
            .collect();
        return Err(ToolError::new(
            ErrorCode::AmbiguousMatch,
            format!(
                "`{path}` matches {} symbols in {shown}: {}; pass one of these name paths",
                matches.len(),
                listed.join(", ")
            ),
        ));
    }
    Ok(NamedGroup {
        path: join_path(&first.path, separator),
        symbols: matches.into_iter().map(|m| m.symbol).collect(),
    })
}

struct Match<'a> {
    symbol: &'a OutlineSymbol,
    /// The names from the root down to the symbol.
    path: Vec<&'a str>,
    /// The symbol's parent in the outline (compared by identity: two
    /// classes may share a name).
    parent: Option<&'a OutlineSymbol>,
    from_root: bool,
}

/// Tries the path from every symbol of the tree.
fn collect_matches<'a>(
    symbols: &'a [OutlineSymbol],
    path: &str,
    chain: &mut Vec<&'a OutlineSymbol>,
    out: &mut Vec<Match<'a>>,
) {
    for symbol in symbols {
        let mut ends = Vec::new();
        match_from(symbol, path, &mut vec![symbol], &mut ends);
        for end in ends {
            let parent = if end.len() > 1 {
                Some(end[end.len() - 2])
            } else {
                chain.last().copied()
            };
            let names = chain
                .iter()
                .chain(end.iter())
                .map(|s| s.name.as_str())
                .collect();
            out.push(Match {
                symbol: end[end.len() - 1],
                path: names,
                parent,
                from_root: chain.is_empty(),
            });
        }
        chain.push(symbol);
        collect_matches(&symbol.children, path, chain, out);
        chain.pop();
    }
}

/// The chains below `symbol` (itself first) that spell `rest`.
fn match_from<'a>(
    symbol: &'a OutlineSymbol,
    rest: &str,
    chain: &mut Vec<&'a OutlineSymbol>,
    out: &mut Vec<Vec<&'a OutlineSymbol>>,
) {
    let Some(after) = rest.strip_prefix(symbol.name.as_str()) else {
        return;
    };
    if after.is_empty() {
        out.push(chain.clone());
        return;
    }
    let Some(after) = ["::", ".", "/"]
        .iter()
        .find_map(|sep| after.strip_prefix(sep))
    else {
        return;
    };
    for child in &symbol.children {
        chain.push(child);
        match_from(child, after, chain, out);
        chain.pop();
    }
}

/// `@97:3 Method - Store.lookup`, as a candidate is listed.
fn describe(path: &[&str], symbol: &OutlineSymbol, separator: &str) -> String {
    format!(
        "@{} {} - {}",
        symbol.selection_range.start,
        symbol.kind.name(),
        join_path(path, separator)
    )
}

/// Joins names the way the language reads: `Store.lookup`, `Area::area`,
/// and `/` after a name with spaces (`impl Area for Shape/area`).
pub fn join_path(names: &[&str], separator: &str) -> String {
    let mut out = String::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(if names[i - 1].contains(' ') {
                "/"
            } else {
                separator
            });
        }
        out.push_str(name);
    }
    out
}

/// Suggestions for a path that matched nothing: the file's symbols whose
/// names are closest to its last name (containing it, or within a few
/// edits), else the top-level symbols.
fn closest(outline: &[OutlineSymbol], path: &str, separator: &str) -> String {
    let (wanted, _) = last_segment(path);
    let wanted = wanted.to_lowercase();
    let mut all = Vec::new();
    let mut chain = Vec::new();
    every_symbol(outline, &mut chain, &mut all);
    let mut scored: Vec<(usize, String)> = all
        .iter()
        .filter_map(|(names, symbol)| {
            let name = symbol.name.to_lowercase();
            let long = wanted.chars().count();
            // A name starting with (or holding) the wanted one comes first;
            // a short one would be found inside too many others. Then the
            // names a few edits away.
            let score = if long >= 3 && name.starts_with(&wanted) {
                0
            } else if long >= 3 && name.contains(&wanted) {
                1
            } else {
                let edits = strsim::levenshtein(&name, &wanted);
                if edits > long.div_ceil(2).max(2) {
                    return None;
                }
                1 + edits
            };
            Some((score, describe(names, symbol, separator)))
        })
        .collect();
    scored.sort();
    if !scored.is_empty() {
        let more = scored.len().saturating_sub(8);
        let listed: Vec<String> = scored.into_iter().take(8).map(|(_, d)| d).collect();
        let mut text = format!("the closest names: {}", listed.join(", "));
        if more > 0 {
            text.push_str(&format!(" and {more} more"));
        }
        return text;
    }
    let roots: Vec<String> = outline
        .iter()
        .take(20)
        .map(|s| describe(&[s.name.as_str()], s, separator))
        .collect();
    if roots.is_empty() {
        "the file has no symbols".to_string()
    } else {
        format!("its top-level symbols: {}", roots.join(", "))
    }
}

fn every_symbol<'a>(
    symbols: &'a [OutlineSymbol],
    chain: &mut Vec<&'a str>,
    out: &mut Vec<(Vec<&'a str>, &'a OutlineSymbol)>,
) {
    for symbol in symbols {
        chain.push(&symbol.name);
        out.push((chain.clone(), symbol));
        every_symbol(&symbol.children, chain, out);
        chain.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_name_path_splits_off_its_last_name_and_overload() {
        assert_eq!(last_segment("Registry.add"), ("add", None));
        assert_eq!(last_segment("scale[2]"), ("scale", Some(2)));
        assert_eq!(last_segment("impl Display for Point/fmt"), ("fmt", None));
        assert_eq!(last_segment("Parser::parse"), ("parse", None));
        assert_eq!(strip_overload("a[b]"), "a[b]");
        assert_eq!(strip_overload("[Symbol.iterator]"), "[Symbol.iterator]");
    }
}
