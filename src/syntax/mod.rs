//! tree-sitter: grammars, a parse cache, outlines, signature previews and
//! code excerpts, for the languages registered in `grammars` and described
//! in `queries/<language>/` (see `language`).
//!
//! Everything here produces `model` values (positions in sextant's 1-based
//! character form, `OutlineSymbol` trees, `CodeExcerpt`s); no tree-sitter
//! type leaves this module, and nothing here knows MCP or LSP. The queries
//! live in `queries/<language>/*.scm` and are compiled into the binary.
//!
//! A [`SourceFile`] is one parsed text (a large one parsed in pieces on
//! several threads, see `pieces`). [`parse`] goes through the global
//! [`cache::ParseCache`], so asking twice for the same content parses once
//! and outlines once.

pub mod cache;
mod excerpt;
pub mod grammar;
mod grammars;
mod language;
mod lines;
pub mod outline;
mod pieces;
pub mod signature;

use std::sync::{Arc, OnceLock};

pub use excerpt::{excerpt, line_span};
pub use language::{Language, language_names};
pub use lines::LineIndex;
pub use outline::{filter_outline, is_leaf, nest_by_range};
pub use signature::condense;

use crate::model::{CodeExcerpt, OutlineSymbol, Range};

/// What a piece of source text is, for telling a name from the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    Name,
    Keyword,
    Comment,
    Literal,
}

impl Token {
    /// `a keyword`, `in a comment`, as a note says it.
    pub fn describe(self) -> &'static str {
        match self {
            Token::Name => "a name",
            Token::Keyword => "a keyword",
            Token::Comment => "in a comment",
            Token::Literal => "in a literal",
        }
    }
}

/// One parsed text, with what has been derived from it so far.
pub struct SourceFile {
    language: Language,
    text: String,
    /// One tree, or one per piece of a large text (see `pieces`), in order.
    trees: Vec<tree_sitter::Tree>,
    lines: LineIndex,
    /// The outline and the declarations, from one run of the query.
    derived: OnceLock<(Vec<OutlineSymbol>, signature::Declarations)>,
    /// Whether the whole file is conditional (see `in_conditional`): told
    /// once, where each place asked went through every item of the file
    /// (half of a Rust rename's audit of its places).
    conditional_file: OnceLock<bool>,
}

impl std::fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceFile")
            .field("language", &self.language)
            .field("bytes", &self.text.len())
            .finish_non_exhaustive()
    }
}

impl SourceFile {
    /// Parses `text` (no cache; see [`parse`]).
    pub fn parse(language: Language, text: String) -> SourceFile {
        let lines = LineIndex::new(&text);
        let trees = pieces::parse(language, &text, &lines);
        SourceFile {
            language,
            text,
            trees,
            lines,
            derived: OnceLock::new(),
            conditional_file: OnceLock::new(),
        }
    }

    pub fn language(&self) -> Language {
        self.language
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn lines(&self) -> &LineIndex {
        &self.lines
    }

    /// How many pieces the text was parsed in, each on its own thread: 1
    /// unless the text is large (see `pieces`).
    pub fn pieces(&self) -> usize {
        self.trees.len()
    }

    /// The text does not parse cleanly (the outline shows what it can).
    pub fn has_syntax_errors(&self) -> bool {
        self.trees.iter().any(|tree| tree.root_node().has_error())
    }

    /// The outline: symbols nested by range, filtered (no literals, nothing
    /// inside function bodies), in source order. Computed once.
    pub fn outline(&self) -> &[OutlineSymbol] {
        &self.derived().0
    }

    /// The condensed declaration of a symbol from any source (tree-sitter
    /// or a language server): found by where its name starts, else by where
    /// its range starts.
    pub fn signature(&self, symbol: &OutlineSymbol) -> Option<String> {
        self.declarations()
            .signature(self, symbol.selection_range.start, symbol.range.start)
    }

    /// The lines of `range`, cut after `max_lines`.
    pub fn excerpt(&self, range: Range, max_lines: usize) -> CodeExcerpt {
        let (first, last) = line_span(&self.lines, range);
        excerpt(&self.text, &self.lines, first, last, max_lines)
    }

    /// What holds `position`, for the questions asked of one place (see
    /// [`Spot`]).
    pub fn spot(&self, position: crate::model::Position) -> Spot<'_> {
        Spot {
            file: self,
            ancestry: self.ancestry_at(position),
        }
    }

    /// What the text at `position` is (see [`Spot::token`]).
    pub fn token_at(&self, position: crate::model::Position) -> Token {
        self.spot(position).token()
    }

    /// Whether `position` is inside a statement that brings a name from
    /// elsewhere (`import { Thing } from …`, `use crate::Thing;`).
    pub fn in_import(&self, position: crate::model::Position) -> bool {
        self.inside(position, |kind| self.language.is_import(kind))
    }

    /// Whether `position` is inside a node that declares implementations
    /// itself (`#[derive(Debug)]`).
    pub fn in_derive(&self, position: crate::model::Position) -> bool {
        self.inside(position, |kind| self.language.is_derive(kind))
    }

    /// How the attributes that make code conditional begin, of an item
    /// or of the whole file (`#[cfg(`, `#![cfg(`).
    fn conditional_prefixes(&self) -> impl Iterator<Item = &str> + Clone {
        let tokens = &self.language.spec().tokens;
        let prefixes = tokens.conditional.iter().chain(&tokens.conditional_file);
        prefixes.map(String::as_str)
    }

    /// Whether the text holds an attribute that makes code conditional
    /// (`#[cfg(`) at all: most do not, and then no place is in one.
    pub fn has_conditional_attributes(&self) -> bool {
        self.conditional_prefixes()
            .any(|prefix| self.text.contains(prefix))
    }

    /// Whether `node` is an attribute, by its kind (the grammar's
    /// `attributes`): a node that holds its own attributes (a match arm)
    /// starts with one's text, and is none.
    fn is_attribute(&self, node: &tree_sitter::Node<'_>) -> bool {
        let kinds = &self.language.spec().tokens.attributes;
        kinds.iter().any(|kind| kind == node.kind())
    }

    /// Whether `position` is where a type names what it extends or
    /// implements (`class A extends B`).
    pub fn in_heritage(&self, position: crate::model::Position) -> bool {
        self.inside(position, |kind| self.language.is_heritage(kind))
    }

    /// Whether a node around `position` is of a kind `wanted` accepts.
    fn inside(&self, position: crate::model::Position, wanted: impl Fn(&str) -> bool) -> bool {
        self.spot(position).inside(wanted)
    }

    /// The smallest node at `position` and the nodes that hold it, the
    /// leaf first, up to the root of the piece of the file that holds it:
    /// what `parent()` gives from the leaf on. Found in one pass down from
    /// the root: tree-sitter keeps no parents, and finds each by such a
    /// pass, so a walk up by `parent()` made one per step. The text audit
    /// asks this at every place of a name: through first renames in
    /// ripgrep, tree navigation was 14% of sextant's CPU samples, 8% since.
    fn ancestry_at(&self, position: crate::model::Position) -> Vec<tree_sitter::Node<'_>> {
        let Some((root, leaf)) = self.leaf_at(position) else {
            return Vec::new();
        };
        let mut ancestry = vec![root];
        let mut node = root;
        while node.id() != leaf.id() {
            match node.child_with_descendant(leaf) {
                Some(child) => {
                    ancestry.push(child);
                    node = child;
                }
                // Where the pass down loses the leaf (it does not), the
                // leaf's `parent()` is the last node it reached.
                None => {
                    ancestry.push(leaf);
                    break;
                }
            }
        }
        ancestry.reverse();
        ancestry
    }

    /// The root of the piece of the file that holds `position`, and the
    /// smallest node there.
    fn leaf_at(
        &self,
        position: crate::model::Position,
    ) -> Option<(tree_sitter::Node<'_>, tree_sitter::Node<'_>)> {
        let offset = self.lines.offset(&self.text, position)?;
        let tree = self
            .trees
            .iter()
            .find(|tree| {
                let root = tree.root_node();
                root.start_byte() <= offset && offset < root.end_byte()
            })
            .unwrap_or(&self.trees[0]);
        let root = tree.root_node();
        Some((root, root.descendant_for_byte_range(offset, offset)?))
    }

    fn declarations(&self) -> &signature::Declarations {
        &self.derived().1
    }

    fn derived(&self) -> &(Vec<OutlineSymbol>, signature::Declarations) {
        self.derived.get_or_init(|| outline::build(self))
    }
}

/// A place of a file and the nodes that hold it (the smallest first), found
/// once for every question asked of the place: the text audit asks up to
/// four of each place of a name, and each answer follows these nodes.
pub struct Spot<'a> {
    file: &'a SourceFile,
    ancestry: Vec<tree_sitter::Node<'a>>,
}

impl Spot<'_> {
    /// What the text at the place is: a name, a keyword, part of a
    /// comment, or part of a literal (a string, a number, a regex).
    pub fn token(&self) -> Token {
        let Some(leaf) = self.ancestry.first() else {
            return Token::Name;
        };
        // `string` and `fn` are keywords: the grammar's unnamed words.
        if !leaf.is_named() && leaf.kind().chars().all(|c| c.is_ascii_alphabetic()) {
            return Token::Keyword;
        }
        for n in &self.ancestry {
            let kind = n.kind();
            if kind.contains("comment") {
                return Token::Comment;
            }
            // Code inside `${...}` is code again.
            if self.file.language.is_code_in_literal(kind) {
                break;
            }
            if self.file.language.is_literal(kind) {
                return Token::Literal;
            }
        }
        Token::Name
    }

    /// Whether the place is inside a macro's body or input (a
    /// `macro_rules!` rule, an invocation's token tree).
    pub fn in_macro(&self) -> bool {
        self.inside(|kind| self.file.language.is_macro(kind))
    }

    /// Whether the place is in the text of an attribute that makes code
    /// conditional (`#[cfg(windows)]`, `#![cfg(unix)]`), which
    /// [`Spot::in_conditional`] reads by its words. Only an
    /// attribute's own node counts: a node that holds its attributes (a
    /// match arm) starts with the same text, body and all.
    pub fn in_conditional_attribute(&self) -> bool {
        let file = self.file;
        let prefixes = file.conditional_prefixes();
        if prefixes.clone().next().is_none() {
            return false;
        }
        self.ancestry.iter().any(|n| {
            let text = file.text.get(n.byte_range()).unwrap_or_default();
            file.is_attribute(n) && prefixes.clone().any(|prefix| text.starts_with(prefix))
        })
    }

    /// Whether the place is in conditional code: an item (or a file)
    /// under an attribute the grammar's `conditional` tokens name
    /// (`#[cfg(windows)]`), but for those always on (`#[cfg(test)]`).
    pub fn in_conditional(&self) -> bool {
        let file = self.file;
        let tokens = &file.language.spec().tokens;
        let under = |node: tree_sitter::Node<'_>, prefixes: &[String]| {
            let text = file.text.get(node.byte_range()).unwrap_or_default();
            prefixes.iter().any(|p| text.starts_with(p.as_str()))
                && !tokens.always_on.iter().any(|on| text.trim() == on)
        };
        let whole = file.conditional_file.get_or_init(|| {
            let root = file.trees[0].root_node();
            let mut cursor = root.walk();
            !tokens.conditional_file.is_empty()
                && root
                    .named_children(&mut cursor)
                    .any(|child| under(child, &tokens.conditional_file))
        });
        if *whole {
            return true;
        }
        if tokens.conditional.is_empty() {
            return false;
        }
        let is_attribute = |node: &tree_sitter::Node<'_>| file.is_attribute(node);
        for &n in &self.ancestry {
            // The attributes just before it.
            let mut attribute = n.prev_named_sibling();
            while let Some(a) = attribute.filter(is_attribute) {
                if under(a, &tokens.conditional) {
                    return true;
                }
                attribute = a.prev_named_sibling();
            }
            // Or its own first children, where they are its attributes.
            if tokens.attributed.iter().any(|kind| kind == n.kind()) {
                let mut cursor = n.walk();
                let mut own = n.named_children(&mut cursor).take_while(is_attribute);
                if own.any(|a| under(a, &tokens.conditional)) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether a node holding the place is of a kind `wanted` accepts.
    fn inside(&self, wanted: impl Fn(&str) -> bool) -> bool {
        self.ancestry.iter().any(|node| wanted(node.kind()))
    }
}

/// Whether `c` may be part of a name, as the word searches of names read
/// it (a letter, a digit, `_` or `$`).
pub fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Parses `text` through the global parse cache: the same content in the
/// same language is parsed (and outlined) once.
pub fn parse(language: Language, text: String) -> Arc<SourceFile> {
    cache::ParseCache::global().get_or_parse(language, text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn language(file: &str) -> Language {
        Language::from_path(Path::new(file)).expect("a language of sextant's")
    }

    /// Checks [`SourceFile::ancestry_at`] against the `parent()` chain at
    /// every `step`th character of `file`; the places checked, and of them
    /// those whose leaf is empty (a node the parser put in for one
    /// missing).
    fn ancestry_is_parents(file: &SourceFile, step: usize, what: &str) -> (usize, usize) {
        let (mut places, mut empty) = (0, 0);
        let text = file.text();
        // And the text's end, where a node missing at the end is.
        let offsets = text.char_indices().map(|(offset, _)| offset);
        for offset in offsets.chain([text.len()]).step_by(step) {
            let position = file.lines().position(text, offset);
            let Some((_, leaf)) = file.leaf_at(position) else {
                continue;
            };
            let mut by_parent = vec![leaf];
            while let Some(parent) = by_parent.last().and_then(|node| node.parent()) {
                by_parent.push(parent);
            }
            assert_eq!(
                file.ancestry_at(position),
                by_parent,
                "{what} at {position}"
            );
            places += 1;
            empty += usize::from(leaf.byte_range().is_empty());
        }
        (places, empty)
    }

    /// At every character of every source file of the fixtures (each
    /// language, non-ASCII text, CRLF, files with syntax errors).
    #[test]
    fn the_ancestry_is_what_parent_gives() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let (mut files, mut places) = (0, 0);
        for entry in ignore::WalkBuilder::new(&fixtures).build().flatten() {
            let path = entry.path();
            let Some(language) = Language::from_path(path) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            let file = SourceFile::parse(language, text);
            files += 1;
            places += ancestry_is_parents(&file, 1, &path.display().to_string()).0;
        }
        assert!(
            files >= 20 && places >= 30_000,
            "{files} files, {places} places"
        );
    }

    /// Where the leaf is a node the parser put in for a missing one (empty,
    /// which tree-sitter finds its way down to apart).
    #[test]
    fn the_ancestry_of_a_missing_node_is_what_parent_gives() {
        // Each a fixture's line with a character taken out, where the
        // parser puts in an empty node for what is missing.
        let broken = [
            (
                "a.ts",
                "** Splits a `key=value` pair. */\nexport const a = 1;\n",
            ),
            (
                "a.ts",
                "export fnction readConfig(lines: string[]): Map<string, string> {\n    return new Map();\n}\n",
            ),
            (
                "a.ts",
                "if (config.get(\"a) !== parsePair(\"a=1\")[1]) {\n    throw new Error();\n}\n",
            ),
            (
                "a.rs",
                "fn f() { let x = 1 }\nfn g() { f(1; }\nstruct S { a: u8",
            ),
            ("a.py", "def f(a:\n    return (1 + 2\nx = [1, 2"),
            ("a.go", "package p\nfunc f() { g(1 }\nvar x = []int{1, 2"),
        ];
        let mut empty = 0;
        for (name, text) in broken {
            let file = SourceFile::parse(language(name), text.to_string());
            empty += ancestry_is_parents(&file, 1, text).1;
        }
        assert!(empty > 0, "no place has an empty leaf");
    }

    /// In a text parsed in pieces: each place's nodes are those of its
    /// piece's tree.
    #[test]
    fn the_ancestry_in_a_text_parsed_in_pieces_is_what_parent_gives() {
        let item = "pub fn f(a: u32) -> u32 {\n    let b = a * 2; // é\n    b + 1\n}\n\n";
        let text = item.repeat(2000);
        let lines = LineIndex::new(&text);
        let trees = pieces::parse_in(language("a.rs"), &text, &lines, 3);
        assert_eq!(trees.len(), 3, "parsed in pieces");
        let file = SourceFile {
            language: language("a.rs"),
            text,
            trees,
            lines,
            derived: OnceLock::new(),
            conditional_file: OnceLock::new(),
        };
        let (places, _) = ancestry_is_parents(&file, 7, "the text in pieces");
        assert!(places > 10_000, "{places} places");
    }
}
