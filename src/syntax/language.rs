//! The languages sextant parses itself, as data.
//!
//! A language is a folder `queries/<language>/` (its `outline.scm`,
//! `signature.scm` and `language.toml`) and one line in `grammars.rs`
//! registering its tree-sitter grammars; nothing else in sextant names it.
//! `language.toml` holds what the queries cannot say:
//!
//! - `name_separator`, `line_comment`: how a name path joins a member to
//!   its container, how a comment line starts.
//! - `[[dialect]]`: each way the language is written (TypeScript, TSX,
//!   JavaScript): its name in messages, the registered grammar it is
//!   parsed with, its file extensions, its code fences' tag.
//! - `[identifiers]`: what a name may hold (`extra` characters besides
//!   letters and digits), a `raw_prefix` that makes a reserved word a name,
//!   `not_names` made only of those characters, and the `reserved` words.
//! - `[outline]`: where the outline walk runs the query (`query`: the nodes
//!   declarations sit in), which nodes it goes through (`enter`), and nodes
//!   that hold declarations only inside some parents (`query_within`) or
//!   when their first named child is of a kind (`query_holding`), and how
//!   a declaration qualified where it is written is named (`scoped_name`:
//!   Go's `({scope}).{name}`).
//! - `[tokens]`: literal node kinds besides those whose kind holds `string`
//!   or `regex`, and node kinds that are `code` again inside a literal.
//! - `[pieces]`: the column-0 `keywords` and `prefixes` that begin a
//!   declaration, where a large file may be cut to parse in pieces.

use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

use serde::Deserialize;

use super::grammars::REGISTERED;

/// One language as sextant parses it (a dialect of a registered
/// language: TypeScript, TSX and JavaScript are three).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Language(u8);

impl std::fmt::Debug for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A `language.toml`, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Spec {
    pub name_separator: String,
    pub line_comment: String,
    pub dialect: Vec<DialectSpec>,
    pub identifiers: Identifiers,
    pub outline: OutlineScopes,
    #[serde(default)]
    pub tokens: Tokens,
    pub pieces: Pieces,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DialectSpec {
    pub name: String,
    pub grammar: String,
    pub extensions: Vec<String>,
    pub fence: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Identifiers {
    #[serde(default)]
    pub extra: String,
    pub raw_prefix: Option<String>,
    #[serde(default)]
    pub not_names: Vec<String>,
    #[serde(default)]
    pub reserved: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OutlineScopes {
    pub query: Vec<String>,
    #[serde(default)]
    pub enter: Vec<String>,
    #[serde(default)]
    pub query_within: HashMap<String, Vec<String>>,
    #[serde(default)]
    pub query_holding: HashMap<String, String>,
    /// How a declaration's `@scope` and name make its shown name, with
    /// `{scope}` and `{name}`; by default joined by `name_separator`.
    pub scoped_name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Tokens {
    #[serde(default)]
    pub literals: Vec<String>,
    #[serde(default)]
    pub code: Vec<String>,
    /// Statements that bring a name from elsewhere (`import …`, `use …`):
    /// a definition found there is not the declaration.
    #[serde(default)]
    pub imports: Vec<String>,
    /// Nodes that declare implementations without a declaration of their
    /// own (`#[derive(Debug)]`).
    #[serde(default)]
    pub derives: Vec<String>,
    /// Where a type names what it extends or implements (`class A extends
    /// B`): a reference there is an implementation by the enclosing type.
    #[serde(default)]
    pub heritage: Vec<String>,
    /// Macro bodies and macro input (`macro_rules!` rules, an
    /// invocation's token tree): text to a server until expanded, so a
    /// rename may leave the names there.
    #[serde(default)]
    pub macros: Vec<String>,
    /// How an attribute that makes the item after it conditional starts
    /// (`#[cfg(`): code a server may not analyse in its build.
    #[serde(default)]
    pub conditional: Vec<String>,
    /// How one that makes the whole file conditional starts (`#![cfg(`).
    #[serde(default)]
    pub conditional_file: Vec<String>,
    /// Such attributes always on for a server (`#[cfg(test)]`), whole.
    #[serde(default)]
    pub always_on: Vec<String>,
    /// The kinds of attribute nodes (`attribute_item`): where a
    /// conditional attribute's own text is.
    #[serde(default)]
    pub attributes: Vec<String>,
    /// Nodes whose attributes are their own first children, not the
    /// siblings before them (a `match` arm's): what they say holds for
    /// the whole node.
    #[serde(default)]
    pub attributed: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Pieces {
    pub keywords: Vec<String>,
    #[serde(default)]
    pub prefixes: Vec<String>,
}

/// A dialect resolved: its spec (shared by the dialects of one folder) and
/// the index of its grammar in [`REGISTERED`].
pub(super) struct Dialect {
    pub name: String,
    pub extensions: Vec<String>,
    pub fence: String,
    /// Index into [`REGISTERED`]'s grammars, flattened (see `grammar`).
    pub grammar: usize,
    pub spec: &'static Spec,
}

/// Every dialect of every registered language, in registration order.
static DIALECTS: LazyLock<Vec<Dialect>> = LazyLock::new(|| {
    let mut dialects = Vec::new();
    let mut grammar_base = 0;
    for registered in REGISTERED {
        // The built-in files are checked by a test: a mistake there is a
        // bug in the build, not something a user can fix.
        let spec: &'static Spec = Box::leak(Box::new(
            toml::from_str(registered.language_toml)
                .unwrap_or_else(|err| panic!("queries/{}/language.toml: {err}", registered.folder)),
        ));
        for dialect in &spec.dialect {
            let grammar = registered
                .grammars
                .iter()
                .position(|(name, _)| *name == dialect.grammar)
                .unwrap_or_else(|| {
                    panic!(
                        "queries/{}/language.toml: dialect {} names grammar {:?}, which grammars.rs does not register",
                        registered.folder, dialect.name, dialect.grammar
                    )
                });
            dialects.push(Dialect {
                name: dialect.name.clone(),
                extensions: dialect.extensions.clone(),
                fence: dialect.fence.clone(),
                grammar: grammar_base + grammar,
                spec,
            });
        }
        grammar_base += registered.grammars.len();
    }
    assert!(dialects.len() <= usize::from(u8::MAX), "too many dialects");
    dialects
});

impl Language {
    /// Every language sextant parses, in registration order.
    pub fn all() -> impl Iterator<Item = Language> {
        (0..DIALECTS.len()).map(|i| Language(i as u8))
    }

    /// The language of a file, by its extension.
    pub fn from_path(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Language::all().find(|language| language.dialect().extensions.contains(&ext))
    }

    /// The language named `name` in messages (`TypeScript`, `Rust`).
    pub fn named(name: &str) -> Option<Language> {
        Language::all().find(|language| language.name() == name)
    }

    pub(super) fn dialect(self) -> &'static Dialect {
        &DIALECTS[usize::from(self.0)]
    }

    pub(super) fn spec(self) -> &'static Spec {
        self.dialect().spec
    }

    /// The language's name in messages (`TypeScript`).
    pub fn name(self) -> &'static str {
        &self.dialect().name
    }

    /// The tag of a fenced code block: ```` ```ts ````.
    pub fn fence(self) -> &'static str {
        &self.dialect().fence
    }

    /// How a line comment starts, for `// ... 15 more lines`.
    pub fn line_comment(self) -> &'static str {
        &self.spec().line_comment
    }

    /// How a name path joins a member to its container (`.`, `::`).
    pub fn name_separator(self) -> &'static str {
        &self.spec().name_separator
    }

    /// The shown name of a declaration qualified where it is written
    /// (`@scope` in the outline query): `Circle::area` in C++,
    /// `(*Circle).Scale` for a Go method, as the servers name them.
    pub fn scoped_name(self, scope: &str, name: &str) -> String {
        match &self.spec().outline.scoped_name {
            Some(format) => format.replace("{scope}", scope).replace("{name}", name),
            None => format!("{scope}{}{name}", self.name_separator()),
        }
    }

    /// Why `name` cannot name a symbol of this language, if it cannot: not
    /// an identifier, or a reserved word.
    pub fn refuse_name(self, name: &str) -> Option<String> {
        let identifiers = &self.spec().identifiers;
        let raw = identifiers
            .raw_prefix
            .as_deref()
            .and_then(|prefix| name.strip_prefix(prefix));
        let bare = raw.unwrap_or(name);
        let extra = |c: char| identifiers.extra.contains(c);
        if name.is_empty() {
            return None;
        }
        let mut chars = bare.chars();
        let first = chars.next().unwrap_or('0');
        let identifier = (first.is_alphabetic() || extra(first))
            && chars.all(|c| c.is_alphanumeric() || extra(c))
            && !identifiers.not_names.iter().any(|n| n == bare);
        if !identifier {
            return Some(format!("`{name}` is not a {} identifier", self.name()));
        }
        (raw.is_none() && identifiers.reserved.iter().any(|r| r == name))
            .then(|| format!("`{name}` is a reserved word in {}", self.name()))
    }

    /// A line at column 0 that begins a declaration or an attribute.
    pub(super) fn begins_declaration(self, line: &str) -> bool {
        let pieces = &self.spec().pieces;
        pieces.prefixes.iter().any(|p| line.starts_with(p.as_str()))
            || pieces.keywords.iter().any(|keyword| {
                line.strip_prefix(keyword.as_str()).is_some_and(|rest| {
                    !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            })
    }

    /// Whether a node of kind `kind` is a literal (a string, a number, a
    /// regex).
    pub(super) fn is_literal(self, kind: &str) -> bool {
        kind.contains("string")
            || kind.contains("regex")
            || self.spec().tokens.literals.iter().any(|l| l == kind)
    }

    /// Whether a node of kind `kind` brings a name from elsewhere.
    pub(super) fn is_import(self, kind: &str) -> bool {
        self.spec().tokens.imports.iter().any(|i| i == kind)
    }

    /// Whether a node of kind `kind` names what its type extends or
    /// implements.
    pub(super) fn is_heritage(self, kind: &str) -> bool {
        self.spec().tokens.heritage.iter().any(|h| h == kind)
    }

    /// Whether a node of kind `kind` is a macro's body or input.
    pub(super) fn is_macro(self, kind: &str) -> bool {
        self.spec().tokens.macros.iter().any(|m| m == kind)
    }

    /// Whether a node of kind `kind` declares implementations itself.
    pub(super) fn is_derive(self, kind: &str) -> bool {
        self.spec().tokens.derives.iter().any(|d| d == kind)
    }

    /// Whether `word` is a word of the grammar's own (a keyword,
    /// contextual or not: `type`, `get`, `union`; see `Grammar::words`),
    /// whose place in a text can change how the text around it parses.
    pub fn is_grammar_word(self, word: &str) -> bool {
        super::grammar::grammar(self).words().contains(word)
    }

    /// Whether a node of kind `kind` is code again inside a literal
    /// (`${...}`).
    pub(super) fn is_code_in_literal(self, kind: &str) -> bool {
        self.spec().tokens.code.iter().any(|c| c == kind)
    }
}

/// The languages that have a tree-sitter outline, for messages
/// (`TypeScript, TSX, JavaScript, Rust, ...`).
pub fn language_names() -> String {
    Language::all()
        .map(Language::name)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The extensions that have a tree-sitter outline (`.ts .tsx ... .rs`).
    fn extensions() -> String {
        let mut shown: Vec<String> = Vec::new();
        for language in Language::all() {
            for ext in &language.dialect().extensions {
                let ext = format!(".{ext}");
                if !shown.contains(&ext) {
                    shown.push(ext);
                }
            }
        }
        shown.join(" ")
    }

    /// Every registered folder's `language.toml` reads, each dialect's
    /// grammar is registered, no extension belongs to two dialects, and a
    /// grammar with conditional attributes names its attributes' kinds.
    #[test]
    fn every_language_is_described_and_each_extension_has_one_language() {
        let mut seen: Vec<&str> = Vec::new();
        for language in Language::all() {
            for ext in &language.dialect().extensions {
                assert!(!seen.contains(&ext.as_str()), ".{ext} twice");
                seen.push(ext);
            }
            // A conditional attribute is told by its node's kind: without
            // the kinds, no place would be in one, and every place of a
            // name in one would be carried through a rename.
            let tokens = &language.spec().tokens;
            assert!(
                tokens.conditional.is_empty() || !tokens.attributes.is_empty(),
                "{}: conditional attributes but no attributes' kinds",
                language.name()
            );
        }
        let names: Vec<&str> = Language::all().map(Language::name).collect();
        assert_eq!(
            names,
            [
                "TypeScript",
                "TSX",
                "JavaScript",
                "Rust",
                "Python",
                "C",
                "C++",
                "Go"
            ]
        );
        assert_eq!(
            extensions(),
            ".ts .mts .cts .tsx .js .jsx .mjs .cjs .rs .py .pyi .c .cc .cpp .cxx .c++ .h .hh .hpp .hxx .h++ .ipp .tpp .inl .go"
        );
    }

    #[test]
    fn names_are_refused_by_the_language_rules() {
        let rust = Language::named("Rust").unwrap();
        let ts = Language::named("TypeScript").unwrap();
        assert_eq!(rust.refuse_name("total"), None);
        assert_eq!(rust.refuse_name("r#type"), None);
        assert_eq!(
            rust.refuse_name("type").as_deref(),
            Some("`type` is a reserved word in Rust")
        );
        assert_eq!(
            rust.refuse_name("_").as_deref(),
            Some("`_` is not a Rust identifier")
        );
        assert_eq!(
            rust.refuse_name("r#").as_deref(),
            Some("`r#` is not a Rust identifier")
        );
        assert_eq!(
            rust.refuse_name("$x").as_deref(),
            Some("`$x` is not a Rust identifier")
        );
        assert_eq!(ts.refuse_name("$x"), None);
        assert_eq!(ts.refuse_name("_"), None);
        assert_eq!(
            ts.refuse_name("class").as_deref(),
            Some("`class` is a reserved word in TypeScript")
        );
        assert_eq!(
            ts.refuse_name("9lives").as_deref(),
            Some("`9lives` is not a TypeScript identifier")
        );
        assert_eq!(rust.name_separator(), "::");
        assert_eq!(ts.name_separator(), ".");
    }
}
