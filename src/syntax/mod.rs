//! tree-sitter: grammars, a parse cache, outlines, signature previews and
//! code excerpts, for TypeScript, TSX, JavaScript and Rust.
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
mod lines;
pub mod outline;
mod pieces;
pub mod signature;

use std::path::Path;
use std::sync::{Arc, OnceLock};

pub use excerpt::{excerpt, line_span};
pub use lines::LineIndex;
pub use outline::{filter_outline, is_leaf, nest_by_range};
pub use signature::condense;

use crate::model::{CodeExcerpt, OutlineSymbol, Range};

/// The languages sextant parses itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// `.ts .mts .cts` (and `.d.ts`).
    TypeScript,
    /// `.tsx`.
    Tsx,
    /// `.js .jsx .mjs .cjs`, parsed with the TSX grammar: JavaScript files
    /// often hold JSX, which the TypeScript grammar would misread as type
    /// assertions, and plain JavaScript has no `<T>x` assertions for TSX to
    /// misread in turn. It also spares a third grammar.
    JavaScript,
    /// `.rs`.
    Rust,
}

impl Language {
    /// The language of a file, by its extension.
    pub fn from_path(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "ts" | "mts" | "cts" => Some(Language::TypeScript),
            "tsx" => Some(Language::Tsx),
            "js" | "jsx" | "mjs" | "cjs" => Some(Language::JavaScript),
            "rs" => Some(Language::Rust),
            _ => None,
        }
    }

    /// The tag of a fenced code block: ```` ```ts ````.
    pub fn fence(self) -> &'static str {
        match self {
            Language::TypeScript => "ts",
            Language::Tsx => "tsx",
            Language::JavaScript => "js",
            Language::Rust => "rust",
        }
    }

    /// How a line comment starts, for `// ... 15 more lines`.
    pub fn line_comment(self) -> &'static str {
        "//"
    }

    /// Why `name` cannot name a symbol of this language, if it cannot: not
    /// an identifier, or a reserved word.
    pub fn refuse_name(self, name: &str) -> Option<String> {
        let mut chars = name.chars();
        let first = chars.next()?;
        let (start_ok, rest_ok, reserved): (bool, bool, &[&str]) = match self {
            Language::Rust => {
                let bare = name.strip_prefix("r#").unwrap_or(name);
                let mut chars = bare.chars();
                let first = chars.next().unwrap_or('0');
                (
                    first.is_alphabetic() || first == '_',
                    chars.all(|c| c.is_alphanumeric() || c == '_') && bare != "_",
                    if name.starts_with("r#") {
                        &[]
                    } else {
                        RUST_KEYWORDS
                    },
                )
            }
            _ => (
                first.is_alphabetic() || first == '_' || first == '$',
                chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$'),
                TYPESCRIPT_RESERVED,
            ),
        };
        if !start_ok || !rest_ok {
            return Some(format!("`{name}` is not a {} identifier", self.name()));
        }
        reserved
            .contains(&name)
            .then(|| format!("`{name}` is a reserved word in {}", self.name()))
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::TypeScript => "TypeScript",
            Language::Tsx => "TSX",
            Language::JavaScript => "JavaScript",
            Language::Rust => "Rust",
        }
    }
}

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

/// Rust's strict and reserved keywords (an `r#` prefix makes them names).
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// The words TypeScript and JavaScript reserve as names.
const TYPESCRIPT_RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "implements",
    "interface",
    "let",
    "package",
    "private",
    "protected",
    "public",
    "static",
    "yield",
    "await",
];

/// The extensions that have a tree-sitter outline, for messages.
pub const EXTENSIONS: &str = ".ts .tsx .mts .cts .js .jsx .mjs .cjs .rs";

/// One parsed text, with what has been derived from it so far.
pub struct SourceFile {
    language: Language,
    text: String,
    /// One tree, or one per piece of a large text (see `pieces`), in order.
    trees: Vec<tree_sitter::Tree>,
    lines: LineIndex,
    /// The outline and the declarations, from one run of the query.
    derived: OnceLock<(Vec<OutlineSymbol>, signature::Declarations)>,
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

    /// What the text at `position` is: a name, a keyword, part of a
    /// comment, or part of a literal (a string, a number, a regex).
    pub fn token_at(&self, position: crate::model::Position) -> Token {
        let Some(offset) = self.lines.offset(&self.text, position) else {
            return Token::Name;
        };
        let tree = self
            .trees
            .iter()
            .find(|tree| {
                let root = tree.root_node();
                root.start_byte() <= offset && offset < root.end_byte()
            })
            .unwrap_or(&self.trees[0]);
        let Some(leaf) = tree.root_node().descendant_for_byte_range(offset, offset) else {
            return Token::Name;
        };
        // `string` and `fn` are keywords: the grammar's unnamed words.
        if !leaf.is_named() && leaf.kind().chars().all(|c| c.is_ascii_alphabetic()) {
            return Token::Keyword;
        }
        let mut node = Some(leaf);
        while let Some(n) = node {
            let kind = n.kind();
            if kind.contains("comment") {
                return Token::Comment;
            }
            // Code inside `${...}` is code again.
            if kind == "template_substitution" {
                break;
            }
            let number = ["number", "char_literal", "integer_literal", "float_literal"];
            if kind.contains("string") || kind.contains("regex") || number.contains(&kind) {
                return Token::Literal;
            }
            node = n.parent();
        }
        Token::Name
    }

    fn declarations(&self) -> &signature::Declarations {
        &self.derived().1
    }

    fn derived(&self) -> &(Vec<OutlineSymbol>, signature::Declarations) {
        self.derived.get_or_init(|| outline::build(self))
    }
}

/// Parses `text` through the global parse cache: the same content in the
/// same language is parsed (and outlined) once.
pub fn parse(language: Language, text: String) -> Arc<SourceFile> {
    cache::ParseCache::global().get_or_parse(language, text)
}
