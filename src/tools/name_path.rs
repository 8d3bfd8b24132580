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
    collect_matches(outline, path, false, &mut chain, &mut matches);
    if matches.is_empty() {
        // As an agent writes a member of an impl block: `Type::method`,
        // `Type.method`, `Type/method` (see `impl_alias`).
        collect_matches(outline, path, true, &mut chain, &mut matches);
        if matches.iter().any(|m| m.via == Via::Inherent) {
            matches.retain(|m| m.via == Via::Inherent);
        }
    }
    if matches.iter().any(|m| m.from_root) {
        matches.retain(|m| m.from_root);
    }
    // A symbol and a child of it with its name (a C++ class and its
    // constructors): the name means the outer one.
    let outer: Vec<*const OutlineSymbol> = matches.iter().map(|m| m.symbol as *const _).collect();
    matches.retain(|m| {
        m.parent
            .is_none_or(|parent| !outer.contains(&(parent as *const _)))
    });
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
    /// How the path reached it.
    via: Via,
    /// The names from the root down to the symbol.
    path: Vec<&'a str>,
    /// The symbol's parent in the outline (compared by identity: two
    /// classes may share a name).
    parent: Option<&'a OutlineSymbol>,
    from_root: bool,
}

/// How a path reached a symbol: by its names, or through an impl block
/// named by its type alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    Names,
    /// `Type` for `impl Type` (or `impl<S> Type<S>`).
    Inherent,
    /// `Type` for `impl Trait for Type`: accepted when it is the only
    /// match.
    TraitImpl,
}

/// An impl block's name (`impl Type<S>`, `impl fmt::Display for
/// Ledger`) as an agent writes it: its type's name alone, without
/// generics or path (`Type`, `Ledger`), and whether it implements a
/// trait.
fn impl_alias(name: &str) -> Option<(&str, Via)> {
    let rest = name.strip_prefix("impl ")?;
    let (type_, via) = match rest.rsplit_once(" for ") {
        Some((_, type_)) => (type_, Via::TraitImpl),
        None => (rest, Via::Inherent),
    };
    let bare = type_.split('<').next()?.rsplit("::").next()?.trim();
    (!bare.is_empty()).then_some((bare, via))
}

/// Tries the path from every symbol of the tree (with `aliases`, an impl
/// block also by its type's name).
fn collect_matches<'a>(
    symbols: &'a [OutlineSymbol],
    path: &str,
    aliases: bool,
    chain: &mut Vec<&'a OutlineSymbol>,
    out: &mut Vec<Match<'a>>,
) {
    for symbol in symbols {
        let mut ends = Vec::new();
        match_from(symbol, path, aliases, &mut vec![symbol], &mut ends);
        for (end, via) in ends {
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
                via,
                path: names,
                parent,
                from_root: chain.is_empty(),
            });
        }
        chain.push(symbol);
        collect_matches(&symbol.children, path, aliases, chain, out);
        chain.pop();
    }
}

/// The chains below `symbol` (itself first) that spell `rest`, each with
/// how it was reached.
fn match_from<'a>(
    symbol: &'a OutlineSymbol,
    rest: &str,
    aliases: bool,
    chain: &mut Vec<&'a OutlineSymbol>,
    out: &mut Vec<(Vec<&'a OutlineSymbol>, Via)>,
) {
    let alias = impl_alias(&symbol.name).filter(|_| aliases);
    let own = rest
        .strip_prefix(symbol.name.as_str())
        .or_else(|| qualified(symbol, rest))
        .or_else(|| by_receiver(&symbol.name, rest));
    let (after, via) = match own {
        Some(after) => (after, Via::Names),
        None => match alias.and_then(|(alias, via)| Some((rest.strip_prefix(alias)?, via))) {
            // An alias names a block, never a member.
            Some((after, via)) if !after.is_empty() => (after, via),
            _ => return,
        },
    };
    if after.is_empty() {
        out.push((chain.clone(), via));
        return;
    }
    let Some(after) = ["::", ".", "/"]
        .iter()
        .find_map(|sep| after.strip_prefix(sep))
    else {
        return;
    };
    let mut below = Vec::new();
    for child in &symbol.children {
        chain.push(child);
        match_from(child, after, aliases, chain, &mut below);
        chain.pop();
    }
    // A chain reached through an alias here is reached that way.
    out.extend(
        below
            .into_iter()
            .map(|(end, below_via)| (end, if via == Via::Names { below_via } else { via })),
    );
}

/// What follows `res.send` in `rest` when `symbol` is the member `send`
/// assigned to `res` (`res.send = function …`).
fn qualified<'a>(symbol: &OutlineSymbol, rest: &'a str) -> Option<&'a str> {
    let after = rest.strip_prefix(symbol.qualifier.as_deref()?)?;
    ["::", ".", "/"]
        .iter()
        .find_map(|sep| after.strip_prefix(sep))?
        .strip_prefix(symbol.name.as_str())
}

/// What follows `Circle.Scale` in `rest` when `name` is a method named
/// after its receiver, as gopls names them (`(*Circle).Scale`,
/// `(List[T]).Len`): an agent writes the type's bare name.
fn by_receiver<'a>(name: &str, rest: &'a str) -> Option<&'a str> {
    let (receiver, member) = name.strip_prefix('(')?.split_once(").")?;
    let receiver = receiver.trim_start_matches('*');
    let receiver = receiver.split('[').next()?;
    let after = rest.strip_prefix(receiver)?;
    ["::", ".", "/"]
        .iter()
        .find_map(|sep| after.strip_prefix(sep))?
        .strip_prefix(member)
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

    #[test]
    fn a_go_method_is_found_by_its_receivers_bare_name() {
        assert_eq!(by_receiver("(*Circle).Scale", "Circle.Scale"), Some(""));
        assert_eq!(by_receiver("(Circle).Area", "Circle::Area"), Some(""));
        assert_eq!(by_receiver("(List[T]).Len", "List.Len"), Some(""));
        assert_eq!(by_receiver("(Circle).Area", "Square.Area"), None);
        assert_eq!(by_receiver("Circle.Area", "Circle.Area"), None);
    }

    /// A C++ class and its constructor share a name: the name alone is
    /// the class, the constructor is `Circle::Circle`.
    #[test]
    fn a_name_shared_with_a_child_means_the_outer_symbol() {
        use crate::model::{Position, Range, SymbolKind};
        let symbol = |name: &str, kind, line, children| OutlineSymbol {
            name: name.to_string(),
            kind,
            detail: None,
            range: Range::new(Position::new(line, 1), Position::new(line + 3, 1)),
            selection_range: Range::new(Position::new(line, 7), Position::new(line, 13)),
            qualifier: None,
            children,
        };
        let constructor = symbol("Circle", SymbolKind::Constructor, 2, Vec::new());
        let class = symbol("Circle", SymbolKind::Class, 1, vec![constructor]);
        let outline = [symbol("geo", SymbolKind::Namespace, 1, vec![class])];
        let found = resolve_name_path(&outline, "Circle", "a.hpp", "::").unwrap();
        assert_eq!(
            (found.path.as_str(), found.symbols[0].kind),
            ("geo::Circle", SymbolKind::Class)
        );
        let found = resolve_name_path(&outline, "Circle::Circle", "a.hpp", "::").unwrap();
        assert_eq!(found.symbols[0].kind, SymbolKind::Constructor);
    }
}
