//! Outlines: the tree-sitter outline of a file, and the operations every
//! outline goes through whatever its source (nesting a flat list by range,
//! filtering, leaf detection), so a language server's answer and
//! tree-sitter's come out alike.
//!
//! The tree-sitter outline runs the language's query once (`outline.scm`
//! and `signature.scm` together, see `grammar`): each `outline.scm` match
//! is a symbol (kind from the capture name, name and position from
//! `@name`, or from `@shown` where the symbol is named by part of it),
//! `@opaque` marks function bodies whose contents are skipped,
//! and the symbols are nested by range containment, never by names.

use std::cmp::Reverse;
use std::collections::HashMap;

use streaming_iterator::StreamingIterator;
use tree_sitter::{QueryCursor, QueryMatch, Tree};

use super::grammar::{CompiledQuery, Role, Visit, grammar};
use super::signature::{self, Declarations};
use super::{Language, SourceFile, pieces};
use crate::model::{OutlineSymbol, Range, SymbolKind};

/// Kinds whose symbols are never shown: literal values some servers report
/// as symbols (JSON keys, strings in object literals). `Object` is not one
/// of them: rust-analyzer reports impl blocks as Object.
const LITERAL_KINDS: [SymbolKind; 6] = [
    SymbolKind::String,
    SymbolKind::Number,
    SymbolKind::Boolean,
    SymbolKind::Array,
    SymbolKind::Key,
    SymbolKind::Null,
];

/// Kinds whose children are never shown: what is inside a function is its
/// body (callbacks, locals), and what is inside a variable, constant,
/// property or field is its value (object literal members, the members of a
/// parameter's type literal that typescript-language-server lists under an
/// arrow-function constant).
const CLOSED_KINDS: [SymbolKind; 8] = [
    SymbolKind::Function,
    SymbolKind::Method,
    SymbolKind::Constructor,
    SymbolKind::Variable,
    SymbolKind::TypeAlias,
    SymbolKind::Constant,
    SymbolKind::Property,
    SymbolKind::Field,
];

/// A symbol has no children (after filtering): the expanded preview shows
/// its code.
pub fn is_leaf(symbol: &OutlineSymbol) -> bool {
    symbol.children.is_empty()
}

/// Nests a flat list of symbols (LSP's `SymbolInformation[]`, or
/// tree-sitter's matches) by range containment, in source order. A symbol
/// goes under the smallest symbol whose range holds its own; two symbols
/// with the same range are siblings.
///
/// One adjustment follows typescript-language-server: a Property inside a
/// Constructor is a parameter property (`constructor(private x: number)`),
/// a member of the class, so it is moved out to sit right after the
/// constructor.
pub fn nest_by_range(mut symbols: Vec<OutlineSymbol>) -> Vec<OutlineSymbol> {
    symbols.sort_by_key(|s| (s.range.start, Reverse(s.range.end), s.selection_range.start));
    let mut roots: Vec<OutlineSymbol> = Vec::new();
    let mut stack: Vec<OutlineSymbol> = Vec::new();
    for symbol in symbols {
        while let Some(top) = stack.last() {
            if top.range.contains(&symbol.range) && top.range != symbol.range {
                break;
            }
            let done = stack.pop().expect("the stack is not empty");
            attach(&mut stack, &mut roots, done);
        }
        stack.push(symbol);
    }
    while let Some(done) = stack.pop() {
        attach(&mut stack, &mut roots, done);
    }
    hoist_parameter_properties(&mut roots);
    roots
}

fn attach(stack: &mut [OutlineSymbol], roots: &mut Vec<OutlineSymbol>, symbol: OutlineSymbol) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(symbol),
        None => roots.push(symbol),
    }
}

fn hoist_parameter_properties(symbols: &mut Vec<OutlineSymbol>) {
    let mut i = 0;
    while i < symbols.len() {
        if symbols[i].kind == SymbolKind::Constructor {
            let children = std::mem::take(&mut symbols[i].children);
            let (properties, rest): (Vec<_>, Vec<_>) = children
                .into_iter()
                .partition(|c| c.kind == SymbolKind::Property);
            symbols[i].children = rest;
            let count = properties.len();
            symbols.splice(i + 1..i + 1, properties);
            i += count;
        } else {
            hoist_parameter_properties(&mut symbols[i].children);
        }
        i += 1;
    }
}

/// The outline filters of SPEC §2.1: literal-like kinds are dropped, the
/// outline never descends into functions (nor into values), and callbacks
/// that typescript-language-server reports as symbols (`reduce() callback`)
/// are dropped.
pub fn filter_outline(symbols: Vec<OutlineSymbol>) -> Vec<OutlineSymbol> {
    symbols
        .into_iter()
        .filter(|s| !LITERAL_KINDS.contains(&s.kind))
        .filter(|s| !(s.kind == SymbolKind::Function && s.name.ends_with(") callback")))
        .map(|mut s| {
            s.children = if CLOSED_KINDS.contains(&s.kind) {
                Vec::new()
            } else {
                filter_outline(s.children)
            };
            s
        })
        .collect()
}

/// One outline match before it becomes a symbol.
struct Match {
    pattern: usize,
    kind: SymbolKind,
    node: (usize, usize),
    node_end: (usize, usize),
    /// Name start and end (bytes).
    name: Option<(usize, usize)>,
    /// The part of the name the symbol is named by and sits at, where not
    /// all of it (bytes).
    shown: Option<(usize, usize)>,
    trait_: Option<(usize, usize)>,
    negative: bool,
    qualifier: Option<(usize, usize)>,
    scope: Option<(usize, usize)>,
}

/// The tree-sitter outline of a file (nested and filtered) and its
/// declarations, from one run of the language's query.
pub(crate) fn build(file: &SourceFile) -> (Vec<OutlineSymbol>, Declarations) {
    build_with(file, Walk::Scopes)
}

/// Where the query runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// Where declarations sit (see `Grammar::visit`).
    Scopes,
    /// Over the whole tree: the slow reference the tests compare with.
    #[cfg_attr(not(test), allow(dead_code))]
    Everything,
}

fn build_with(file: &SourceFile, walk: Walk) -> (Vec<OutlineSymbol>, Declarations) {
    let compiled = &grammar(file.language).query;
    let text = file.text.as_str();

    // A text parsed in pieces is searched in pieces too, on as many threads.
    let mut parts =
        pieces::in_parallel(&file.trees, |tree| search(file.language, text, tree, walk))
            .into_iter();
    let Searched {
        mut found,
        mut opaque,
        mut declarations,
    } = parts.next().expect("a parsed file has at least one tree");
    for part in parts {
        found.extend(part.found);
        opaque.extend(part.opaque);
        declarations.merge(part.declarations);
    }

    // One symbol per node and name: the first pattern wins (`constructor`
    // before method, a fn with `self` before a plain fn); a node naming
    // several (`X, Y float64`) is a symbol for each. And one per name: two
    // patterns that see one name from different nodes (a C member whose
    // type has a body, `union { … } as;`, is named from its declarator so
    // that the body is its sibling; the plain member pattern would name
    // it from the whole declaration) are one symbol, the first pattern's.
    found.sort_by_key(|m| (m.node.0, Reverse(m.node.1), m.name, m.pattern));
    found.dedup_by_key(|m| (m.node, m.name));
    let mut first_by_name: HashMap<(usize, usize), usize> = HashMap::new();
    for m in &found {
        if let Some(name) = m.name {
            let first = first_by_name.entry(name).or_insert(m.pattern);
            *first = (*first).min(m.pattern);
        }
    }
    found.retain(|m| m.name.is_none_or(|name| first_by_name[&name] == m.pattern));

    // Drop what lies inside a function body. Bodies are syntax nodes, so
    // any two are nested or apart: a stack of the open ones suffices.
    opaque.sort_by_key(|&(start, end)| (start, Reverse(end)));
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut next_body = 0;
    found.retain(|m| {
        let at = m.node.0;
        while next_body < opaque.len() && opaque[next_body].0 <= at {
            let body = opaque[next_body];
            while open.last().is_some_and(|o| o.1 <= body.0) {
                open.pop();
            }
            open.push(body);
            next_body += 1;
        }
        while open.last().is_some_and(|o| o.1 <= at) {
            open.pop();
        }
        open.is_empty()
    });

    let declarations = declarations.finish();
    let lines = file.lines();
    let flat: Vec<OutlineSymbol> = found
        .into_iter()
        .map(|m| {
            let start = lines.position(text, declarations.range_start(m.node));
            let end = lines.point_position(text, m.node_end.0, m.node_end.1);
            let selection = match m.shown.or(m.name) {
                Some((s, e)) => Range::new(lines.position(text, s), lines.position(text, e)),
                None => {
                    let at = lines.position(text, m.node.0);
                    Range::new(at, at)
                }
            };
            let name = match (m.kind, m.name) {
                (SymbolKind::Object, Some(name)) => impl_label(text, m.trait_, name, m.negative),
                (_, Some(name)) => match (m.scope, m.shown.unwrap_or(name)) {
                    (Some((scope_start, scope_end)), (s, e)) => file.language.scoped_name(
                        &one_line(&text[scope_start..scope_end]),
                        &one_line(&text[s..e]),
                    ),
                    (None, (s, e)) => one_line(&text[s..e]),
                },
                (_, None) => compiled.pattern_names[m.pattern]
                    .clone()
                    .unwrap_or_else(|| "<anonymous>".to_string()),
            };
            OutlineSymbol {
                name,
                kind: m.kind,
                detail: None,
                range: Range::new(start, end),
                selection_range: selection,
                qualifier: m.qualifier.map(|(s, e)| one_line(&text[s..e])),
                children: Vec::new(),
            }
        })
        .collect();
    (filter_outline(nest_by_range(flat)), declarations)
}

/// What the query finds in one tree.
struct Searched {
    found: Vec<Match>,
    /// Function bodies, as byte spans.
    opaque: Vec<(usize, usize)>,
    declarations: signature::Builder,
}

/// Runs the language's query over one tree (see [`Walk`]).
fn search(language: Language, text: &str, tree: &Tree, walk: Walk) -> Searched {
    let grammar = grammar(language);
    let compiled = &grammar.query;
    let mut out = Searched {
        found: Vec::new(),
        opaque: Vec::new(),
        declarations: signature::Builder::default(),
    };
    // The query runs where declarations sit (see `Grammar::visit`), for
    // matches rooted there or one level down.
    let mut cursor = QueryCursor::new();
    let root = tree.root_node();
    let mut stack = vec![(root, grammar.visit(&root, ""))];
    if walk == Walk::Scopes {
        cursor.set_max_start_depth(Some(1));
    } else {
        stack = vec![(root, Visit::Query)];
    }
    let mut children = tree.walk();
    while let Some((node, visit)) = stack.pop() {
        if visit == Visit::Query {
            let mut matches = cursor.matches(&compiled.query, node, text.as_bytes());
            while let Some(m) = matches.next() {
                if m.pattern_index >= compiled.outline_patterns {
                    out.declarations.add(m, &compiled.roles);
                } else {
                    take_outline_match(m, compiled, &mut out.found, &mut out.opaque);
                }
            }
        }
        if walk == Walk::Everything {
            break;
        }
        let kind = node.kind();
        stack.extend(
            node.named_children(&mut children)
                .map(|child| (child, grammar.visit(&child, kind)))
                .filter(|(_, visit)| *visit != Visit::Skip),
        );
    }
    out
}

/// Takes one match of an `outline.scm` pattern: a symbol, or a body.
fn take_outline_match(
    m: &QueryMatch,
    compiled: &CompiledQuery,
    found: &mut Vec<Match>,
    opaque: &mut Vec<(usize, usize)>,
) {
    let mut symbol = None;
    let mut name = None;
    let mut shown = None;
    let mut trait_ = None;
    let mut negative = false;
    let mut qualifier = None;
    let mut scope = None;
    for capture in m.captures() {
        let node = capture.node;
        let span = (node.start_byte(), node.end_byte());
        match compiled.roles[capture.index as usize] {
            Role::Symbol(kind) => {
                let end = node.end_position();
                symbol = Some((kind, span, (end.row, end.column)));
            }
            Role::Name => name = Some(span),
            Role::Shown => shown = Some(span),
            Role::Trait => trait_ = Some(span),
            Role::Negative => negative = true,
            Role::Qualifier => qualifier = Some(span),
            Role::Scope => scope = Some(span),
            Role::Opaque => opaque.push(span),
            _ => {}
        }
    }
    if let Some((kind, node, node_end)) = symbol {
        found.push(Match {
            pattern: m.pattern_index,
            kind,
            node,
            node_end,
            name,
            shown,
            trait_,
            negative,
            qualifier,
            scope,
        });
    }
}

/// rust-analyzer's name for an impl block: `impl Type`, `impl Trait for
/// Type`, `impl !Trait for Type` (the impl's own generics left out).
fn impl_label(
    text: &str,
    trait_: Option<(usize, usize)>,
    type_: (usize, usize),
    negative: bool,
) -> String {
    let type_ = one_line(&text[type_.0..type_.1]);
    match trait_ {
        Some((s, e)) => {
            let bang = if negative { "!" } else { "" };
            format!("impl {bang}{} for {type_}", one_line(&text[s..e]))
        }
        None => format!("impl {type_}"),
    }
}

/// A name that spans lines (`namespace A.\n B`) on one line.
fn one_line(name: &str) -> String {
    if !name.contains(char::is_whitespace) {
        return name.to_string();
    }
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::Language;

    /// The outline walk runs the query only where declarations sit; on
    /// every fixture it must find what the query finds over the whole tree
    /// (symbols, ranges and signatures alike).
    #[test]
    fn the_scope_walk_finds_what_the_whole_tree_holds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut checked = 0;
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let Some(language) = Language::from_path(&path) else {
                    continue;
                };
                let text = std::fs::read_to_string(&path).unwrap();
                let file = SourceFile::parse(language, text);
                let (fast, fast_decls) = build_with(&file, Walk::Scopes);
                let (full, full_decls) = build_with(&file, Walk::Everything);
                assert_eq!(fast, full, "{}", path.display());
                let mut symbols = Vec::new();
                flatten(&fast, &mut symbols);
                for symbol in symbols {
                    let at = (symbol.selection_range.start, symbol.range.start);
                    assert_eq!(
                        fast_decls.signature(&file, at.0, at.1),
                        full_decls.signature(&file, at.0, at.1),
                        "{} {}",
                        path.display(),
                        symbol.name
                    );
                }
                checked += 1;
            }
        }
        assert!(checked >= 10, "only {checked} fixture files found");
    }

    fn flatten<'a>(symbols: &'a [OutlineSymbol], out: &mut Vec<&'a OutlineSymbol>) {
        for symbol in symbols {
            out.push(symbol);
            flatten(&symbol.children, out);
        }
    }
}
