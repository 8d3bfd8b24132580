//! Signature previews: a declaration's text up to its body, without
//! comments, whitespace collapsed, cut at 100 characters.
//!
//! The matches of the language's `signature.scm` patterns index every
//! declaration by where its name starts (and where it starts), so a symbol
//! from tree-sitter or from a language server finds its declaration in
//! constant time. The same matches record what widens a declaration: its
//! prefix (`export`, `declare`, decorators: part of the preview) and its
//! leading doc comments and attributes (part of the symbol's range only).
//! Comments inside a declaration's header are looked up only for the rare
//! header that holds `//` or `/*`. A preview is made once per parsed file.

use std::collections::HashMap;
use std::sync::OnceLock;

use streaming_iterator::StreamingIterator;
use tree_sitter::{QueryCursor, QueryMatch};

use super::SourceFile;
use super::grammar::{Role, grammar};
use crate::model::Position;

/// Longest preview, in characters, `...` included.
pub const MAX_SIGNATURE_CHARS: usize = 100;

/// How far into a declaration comments are looked for.
const COMMENT_SEARCH_BYTES: usize = 8 * 1024;

/// How far they are looked for first (four times as far each time after,
/// until the preview is cut within the stretch).
const FIRST_COMMENT_BYTES: usize = 256;

/// A declaration, as byte offsets into the text.
#[derive(Debug)]
struct Declaration {
    /// Where the preview starts (the node's start, or its prefix's).
    start: usize,
    /// Where the preview stops: the body's start, or the node's end.
    stop: usize,
    /// Its preview, once made: a search shows the same declarations again
    /// and again, and a header holding a comment costs a query (0.16 ms
    /// of a search for `McpServer` on the TypeScript SDK).
    preview: OnceLock<Box<str>>,
}

/// Every declaration of a file, indexed for lookups.
#[derive(Debug, Default)]
pub(crate) struct Declarations {
    declarations: Vec<Declaration>,
    /// Name start -> declaration.
    by_name: HashMap<usize, u32>,
    /// Declaration start (with and without prefix) -> declaration.
    by_start: HashMap<usize, u32>,
    /// A node's (start, end) -> where its range really starts (prefixes and
    /// leading doc comments and attributes included).
    range_starts: HashMap<(usize, usize), usize>,
}

/// A match's declaration before it is indexed.
struct Found {
    pattern: usize,
    name: usize,
    node: (usize, usize),
    body: Option<usize>,
}

/// Collects the declaration query's matches, then indexes them.
#[derive(Default)]
pub(crate) struct Builder {
    found: Vec<Found>,
    /// Item (start, end) -> the prefix nodes of it.
    prefixes: HashMap<(usize, usize), Vec<(usize, usize)>>,
    /// Item (start, end) -> where its leading doc comments start.
    leading: HashMap<(usize, usize), usize>,
}

impl Builder {
    /// Takes one match of a `signature.scm` pattern.
    pub(crate) fn add(&mut self, m: &QueryMatch, roles: &[Role]) {
        let mut declaration = None;
        let mut name = None;
        let mut body = None::<usize>;
        let mut item = None;
        let mut prefix = Vec::new();
        let mut lead = None::<usize>;
        for capture in m.captures() {
            let node = capture.node;
            let span = (node.start_byte(), node.end_byte());
            match roles[capture.index as usize] {
                Role::Declaration => declaration = Some(span),
                Role::Name => name = Some(span.0),
                Role::Body => body = Some(body.map_or(span.0, |b| b.min(span.0))),
                Role::Item => item = Some(span),
                Role::Prefix => prefix.push(span),
                Role::Leading => lead = Some(lead.map_or(span.0, |l| l.min(span.0))),
                _ => {}
            }
        }
        if let Some(item) = item {
            if !prefix.is_empty() {
                self.prefixes.entry(item).or_default().extend(prefix);
            }
            if let Some(lead) = lead {
                let entry = self.leading.entry(item).or_insert(lead);
                *entry = (*entry).min(lead);
            }
        }
        if let Some(node) = declaration {
            self.found.push(Found {
                pattern: m.pattern_index,
                name: name.unwrap_or(node.0),
                node,
                body,
            });
        }
    }

    /// Takes what another builder collected (from another piece of the
    /// same text).
    pub(crate) fn merge(&mut self, other: Builder) {
        self.found.extend(other.found);
        for (item, prefix) in other.prefixes {
            self.prefixes.entry(item).or_default().extend(prefix);
        }
        for (item, lead) in other.leading {
            let entry = self.leading.entry(item).or_insert(lead);
            *entry = (*entry).min(lead);
        }
    }

    pub(crate) fn finish(self) -> Declarations {
        let Builder {
            mut found,
            prefixes,
            leading,
        } = self;
        // Where a node's preview starts: prefixes chain (a class inside
        // `declare` inside `export`), and a prefix that wraps the node (an
        // export statement) is followed further up.
        let preview_start = |node: (usize, usize)| -> usize {
            let mut start = node.0;
            let mut current = node;
            for _ in 0..8 {
                let Some(list) = prefixes.get(&current) else {
                    break;
                };
                let mut wrapper = None;
                for &p in list {
                    start = start.min(p.0);
                    if p.0 <= current.0 && current.1 <= p.1 && p != current {
                        wrapper = Some(p);
                    }
                }
                match wrapper {
                    Some(w) => current = w,
                    None => break,
                }
            }
            start
        };

        // The first pattern wins for one name; among matches of one pattern,
        // the earliest body (a macro's first rule).
        found.sort_by_key(|f| (f.name, f.pattern, f.body.unwrap_or(usize::MAX)));
        found.dedup_by_key(|f| f.name);

        let mut index = Declarations::default();
        for f in &found {
            let start = preview_start(f.node);
            let id = index.declarations.len() as u32;
            index.declarations.push(Declaration {
                start,
                stop: f.body.unwrap_or(f.node.1),
                preview: OnceLock::new(),
            });
            index.by_name.insert(f.name, id);
            index.by_start.entry(start).or_insert(id);
            index.by_start.entry(f.node.0).or_insert(id);
        }
        for &item in prefixes.keys() {
            let start = preview_start(item);
            if start < item.0 {
                index.range_starts.insert(item, start);
            }
        }
        for (item, lead) in leading {
            let entry = index.range_starts.entry(item).or_insert(item.0);
            *entry = (*entry).min(lead);
        }
        index
    }
}

impl Declarations {
    /// Where a node's range starts once its prefix and leading doc comments
    /// and attributes are counted.
    pub(crate) fn range_start(&self, node: (usize, usize)) -> usize {
        self.range_starts.get(&node).copied().unwrap_or(node.0)
    }

    /// The preview of the declaration whose name starts at `name` (else
    /// which starts at `start`) in `file`, the text these declarations
    /// are of.
    pub(crate) fn signature(
        &self,
        file: &SourceFile,
        name: Position,
        start: Position,
    ) -> Option<String> {
        let text = file.text();
        let lines = file.lines();
        let id = lines
            .offset(text, name)
            .and_then(|offset| self.by_name.get(&offset))
            .or_else(|| {
                lines
                    .offset(text, start)
                    .and_then(|offset| self.by_start.get(&offset))
            })?;
        let declaration = &self.declarations[*id as usize];
        let (start, stop) = (declaration.start, declaration.stop);
        Some(
            declaration
                .preview
                .get_or_init(|| preview(file, start, stop).into())
                .as_ref()
                .to_owned(),
        )
    }
}

/// The preview of the declaration from byte `start` to `stop`.
fn preview(file: &SourceFile, start: usize, stop: usize) -> String {
    let text = file.text();
    // The preview is done long before this (unless the header is nearly
    // all comments or whitespace): a constant's huge initializer is not
    // searched.
    let searched = stop.min(start + COMMENT_SEARCH_BYTES);
    let header = &text.as_bytes()[start..searched];
    let finder = |opener: &[u8]| memchr::memmem::find(header, opener).is_some();
    if !(finder(b"//") || finder(b"/*")) {
        return condense_skipping(text, start, stop, &[], MAX_SIGNATURE_CHARS);
    }
    // Comments are looked for in a stretch of the header that grows until
    // the preview is cut within it: a query runs over every node of its
    // stretch, and a preview is done within a few hundred bytes.
    let mut window = FIRST_COMMENT_BYTES;
    loop {
        let end = text.ceil_char_boundary(start + window).min(searched);
        let comments = comments_between(file, start, end);
        if end == searched {
            return condense_skipping(text, start, stop, &comments, MAX_SIGNATURE_CHARS);
        }
        if let Some(preview) = cut_within(text, start, end, &comments, MAX_SIGNATURE_CHARS) {
            return preview;
        }
        window *= 4;
    }
}

/// The comments between two byte offsets, from the query's `@comment`
/// patterns run over that stretch only.
fn comments_between(file: &SourceFile, start: usize, stop: usize) -> Vec<(usize, usize)> {
    let compiled = grammar(file.language).comments();
    let mut cursor = QueryCursor::new();
    cursor.set_byte_range(start..stop);
    let mut comments = Vec::new();
    for tree in &file.trees {
        let mut matches = cursor.matches(&compiled.query, tree.root_node(), file.text.as_bytes());
        while let Some(m) = matches.next() {
            for capture in m.captures() {
                if compiled.roles[capture.index as usize] == Role::Comment {
                    comments.push((capture.node.start_byte(), capture.node.end_byte()));
                }
            }
        }
    }
    merge(comments)
}

/// Sorts comment spans and drops any inside another.
fn merge(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for span in spans {
        match out.last() {
            Some(last) if span.0 < last.1 => {}
            _ => out.push(span),
        }
    }
    out
}

/// Condenses a declaration's text: see [`condense`]; comments (as byte
/// spans of `text`) are left out.
fn condense_skipping(
    text: &str,
    start: usize,
    stop: usize,
    comments: &[(usize, usize)],
    max_chars: usize,
) -> String {
    condense_pieces(pieces_skipping(text, start, stop, comments), max_chars)
}

/// The preview of the declaration at `start` when it is cut before `end`
/// (so nothing past `end`, a comment or not, changes it): `comments` need
/// hold only those that begin before `end`. `None` when it is not.
fn cut_within(
    text: &str,
    start: usize,
    end: usize,
    comments: &[(usize, usize)],
    max_chars: usize,
) -> Option<String> {
    let (out, more) = gather(pieces_skipping(text, start, end, comments), max_chars);
    more.then(|| finish(out, more, max_chars))
}

/// The text from `start` to `stop` as pieces, each comment a space.
fn pieces_skipping<'a>(
    text: &'a str,
    start: usize,
    stop: usize,
    comments: &[(usize, usize)],
) -> impl Iterator<Item = &'a str> {
    // The first comment that ends after `start`.
    let mut next = comments.partition_point(|c| c.1 <= start);
    let mut pieces = Vec::new();
    let mut at = start;
    while at < stop {
        match comments.get(next) {
            Some(&(c_start, c_end)) if c_start < stop => {
                if c_start > at {
                    pieces.push(&text[at..c_start]);
                }
                // A comment stands for whitespace (`a/* x */b` stays apart).
                pieces.push(" ");
                at = at.max(c_end);
                next += 1;
            }
            _ => {
                pieces.push(&text[at..stop]);
                break;
            }
        }
    }
    pieces.into_iter()
}

/// A declaration's text as one line: every run of whitespace becomes one
/// space (none just inside brackets or parentheses, and a trailing comma
/// before a closing one goes), a trailing `{`, `;` or `,` is dropped, and a
/// text longer than `max_chars` characters is cut to `max_chars` with
/// `...` at the end (on a character boundary).
/// The declaration of a symbol sextant has no grammar for: the line its
/// name is on (1-based), condensed; `None` past the end or for a blank line.
pub fn declaration_line(text: &str, lines: &super::LineIndex, line: u32) -> Option<String> {
    let row = (line as usize).checked_sub(1)?;
    (row < lines.line_count())
        .then(|| condense(lines.line(text, row), MAX_SIGNATURE_CHARS))
        .filter(|line| !line.is_empty())
}

pub fn condense(text: &str, max_chars: usize) -> String {
    condense_pieces(std::iter::once(text), max_chars)
}

fn condense_pieces<'a>(pieces: impl Iterator<Item = &'a str>, max_chars: usize) -> String {
    let (out, more) = gather(pieces, max_chars);
    finish(out, more, max_chars)
}

/// The condensed text, as far as it is needed to know whether it is cut;
/// and whether it is (a character is left after enough were taken).
fn gather<'a>(pieces: impl Iterator<Item = &'a str>, max_chars: usize) -> (String, bool) {
    // Enough characters to know whether the text must be cut, with room for
    // the trailing punctuation that is dropped.
    let enough = max_chars + 8;
    let mut out = String::new();
    let mut chars = 0usize;
    let mut space = false;
    for piece in pieces {
        for c in piece.chars() {
            if c.is_whitespace() {
                space = !out.is_empty();
                continue;
            }
            let closing = matches!(c, ')' | ']');
            if closing && out.ends_with(',') {
                out.pop();
                chars -= 1;
            }
            if space && !closing && !out.ends_with(['(', '[']) {
                out.push(' ');
                chars += 1;
            }
            space = false;
            if chars >= enough {
                return (out, true);
            }
            out.push(c);
            chars += 1;
        }
    }
    (out, false)
}

/// The gathered text trimmed of trailing punctuation, or cut with `...`.
fn finish(mut out: String, more: bool, max_chars: usize) -> String {
    if !more {
        let trimmed =
            out.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '{' | ';' | ','));
        out.truncate(trimmed.len());
        if out.chars().count() <= max_chars {
            return out;
        }
    }
    let keep = max_chars.saturating_sub(3);
    let cut = out.char_indices().nth(keep).map_or(out.len(), |(i, _)| i);
    out.truncate(cut);
    out.truncate(out.trim_end().len());
    out.push_str("...");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Comments looked for in a growing stretch of a header give every
    /// preview that comments looked for in the whole of it give: comments
    /// before, across and after the first stretch's end, a character of
    /// two bytes on it, a header nearly all comment, one cut only in a
    /// stretch grown once, and a `#` comment found only because `//` is in
    /// the header.
    #[test]
    fn a_preview_from_comments_found_by_stretches_is_the_whole_headers() {
        let filler = |n: usize| "x".repeat(n);
        let ts = format!(
            "const a = {{ k: 1, /* early */ {} }};\n\
             const b = {{ {}: 1, /* across */ v: 2, w: 3 }};\n\
             const c = {{ {}: 1, // late\n z: 2 }};\n\
             function d(/* one */ p: number, {}: string /* two */) {{}}\n\
             const e = /* {} */ 1;\n\
             const f = {{ {}é: 1, /* after */ q: 2 }};\n\
             const g = /* {} */ {{ {}: 1, /* then */ r: 2 }};\n",
            filler(40),
            filler(230),
            filler(2000),
            filler(300),
            filler(900),
            filler(243),
            filler(300),
            filler(150),
        );
        let py = format!(
            "def g(a, # note\n      b=1 // 2, {}=3):\n    pass\n",
            filler(400)
        );
        for (name, text) in [("a.ts", ts), ("a.py", py)] {
            let language = super::super::Language::from_path(std::path::Path::new(name)).unwrap();
            let file = super::super::parse(language, text.clone());
            let declarations = &file.declarations().declarations;
            assert!(!declarations.is_empty(), "{name}");
            for &Declaration { start, stop, .. } in declarations {
                let searched = stop.min(start + COMMENT_SEARCH_BYTES);
                let comments = match text[start..searched].contains("//")
                    || text[start..searched].contains("/*")
                {
                    true => comments_between(&file, start, searched),
                    false => Vec::new(),
                };
                let whole = condense_skipping(&text, start, stop, &comments, MAX_SIGNATURE_CHARS);
                assert_eq!(preview(&file, start, stop), whole, "{name} at {start}");
            }
        }
    }

    /// A declaration's preview is made once and given again: the kept one
    /// is the preview of its text.
    #[test]
    fn a_preview_is_made_once_per_parsed_file() {
        let text = "export function f(/* a */ a: number): void {}\nclass C {}\n";
        let language = super::super::Language::from_path(std::path::Path::new("a.ts")).unwrap();
        let file = SourceFile::parse(language, text.to_string());
        let symbol = &file.outline()[0];
        let previews = || {
            let declarations = &file.declarations().declarations;
            let previews = declarations.iter().filter_map(|d| d.preview.get());
            previews.map(|p| p.to_string()).collect::<Vec<_>>()
        };
        assert!(previews().is_empty());
        let first = file.signature(symbol);
        assert_eq!(first.as_deref(), Some("export function f(a: number): void"));
        assert_eq!(
            previews(),
            [first.clone().unwrap()],
            "only the one asked for is kept"
        );
        assert_eq!(file.signature(symbol), first);
    }

    #[test]
    fn collapses_whitespace_and_drops_trailing_punctuation() {
        assert_eq!(
            condense(
                "pub fn new(\n    name: &str,\n    count: usize,\n) -> Self\n",
                100
            ),
            "pub fn new(name: &str, count: usize) -> Self"
        );
        assert_eq!(
            condense("fn area(&self) -> f64;", 100),
            "fn area(&self) -> f64"
        );
        assert_eq!(condense("interface A {", 100), "interface A");
        assert_eq!(condense("  x:\tnumber ,\n", 100), "x: number");
        assert_eq!(
            condense("f(a: [\n  number,\n  string,\n])", 100),
            "f(a: [number, string])"
        );
    }

    #[test]
    fn cuts_at_the_limit_on_a_character_boundary() {
        let long = format!("fn {}()", "x".repeat(200));
        let cut = condense(&long, 100);
        assert_eq!(cut.chars().count(), 100);
        assert!(cut.ends_with("xxx..."), "{cut}");

        // Multibyte characters count as one each and are never split.
        let text = format!("const s = \"{}\"", "é".repeat(120));
        let cut = condense(&text, 100);
        assert_eq!(cut.chars().count(), 100);
        assert!(cut.ends_with("éé..."), "{cut}");
        let emoji = "🎉".repeat(150);
        let cut = condense(&emoji, 20);
        assert_eq!(cut, format!("{}...", "🎉".repeat(17)));

        // Exactly at the limit: not cut.
        let exact = "a".repeat(100);
        assert_eq!(condense(&exact, 100), exact);
        // Over the limit only before the dropped `{`: not cut either.
        assert_eq!(condense(&format!("{exact} {{"), 100), exact);
    }

    #[test]
    fn comments_are_left_out() {
        let text = "fn f(\n    // the first\n    a: i32, /* b */ b: i32,\n) {}";
        let comments = vec![
            (text.find("//").unwrap(), text.find("\n    a").unwrap()),
            (text.find("/*").unwrap(), text.find(" b:").unwrap()),
        ];
        let stop = text.find('{').unwrap();
        assert_eq!(
            condense_skipping(text, 0, stop, &comments, 100),
            "fn f(a: i32, b: i32)"
        );
    }
}
