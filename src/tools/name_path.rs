//! Name paths: how a symbol is named through its file's outline
//! (`McpServer.connect`, `Parser::parse`, `impl Display for Point/fmt`,
//! `scale[2]` for the second of several overloads), resolved to the
//! symbols they designate, and made from a symbol's place in the outline.
//! Used by symbol addresses (`address`), `read`'s `symbol` parameter, and
//! every answer that names where something sits.

use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::model::{OutlineSymbol, Position, SymbolKind};

/// The declaration whose name starts at `position` in `symbols`, with its
/// name path joined by `separator`.
pub(crate) fn declared_at(
    symbols: &[OutlineSymbol],
    position: Position,
    separator: &str,
) -> Option<(String, SymbolKind)> {
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

/// A name path's last name and its overload index: `Registry.add` ->
/// (`add`, None), `scale[2]` -> (`scale`, Some(2)).
pub(crate) fn last_segment(path: &str) -> (&str, Option<usize>) {
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
pub(crate) fn strip_overload(path: &str) -> &str {
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
