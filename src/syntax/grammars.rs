//! The tree-sitter grammars sextant is built with: one line per language,
//! naming the folder under `queries/` that describes it (see `language`)
//! and the grammars its dialects are parsed with, each under the name its
//! `language.toml` uses. The queries and the description are embedded at
//! build time.

/// A tree-sitter grammar under the name a `language.toml` gives it.
pub(super) type NamedGrammar = (&'static str, fn() -> tree_sitter::Language);

/// One language's folder and grammars.
pub(super) struct Registered {
    /// `queries/<folder>/`.
    pub folder: &'static str,
    pub language_toml: &'static str,
    pub outline_scm: &'static str,
    pub signature_scm: &'static str,
    /// `(name, grammar)`, the names its `[[dialect]]`s use.
    pub grammars: &'static [NamedGrammar],
}

/// Registers `queries/$folder/` with its grammars.
macro_rules! language {
    ($folder:literal, [$(($name:literal, $grammar:expr)),+ $(,)?]) => {
        Registered {
            folder: $folder,
            language_toml: include_str!(concat!("../../queries/", $folder, "/language.toml")),
            outline_scm: include_str!(concat!("../../queries/", $folder, "/outline.scm")),
            signature_scm: include_str!(concat!("../../queries/", $folder, "/signature.scm")),
            grammars: &[$(($name, || $grammar.into())),+],
        }
    };
}

/// Every language sextant parses itself.
pub(super) const REGISTERED: &[Registered] = &[
    language!(
        "typescript",
        [
            ("typescript", tree_sitter_typescript::LANGUAGE_TYPESCRIPT),
            ("tsx", tree_sitter_typescript::LANGUAGE_TSX)
        ]
    ),
    language!("rust", [("rust", tree_sitter_rust::LANGUAGE)]),
    language!("python", [("python", tree_sitter_python::LANGUAGE)]),
    language!("c", [("c", tree_sitter_c::LANGUAGE)]),
    language!("cpp", [("cpp", tree_sitter_cpp::LANGUAGE)]),
    language!("go", [("go", tree_sitter_go::LANGUAGE)]),
];
