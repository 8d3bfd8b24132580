//! The grammars and their compiled queries.
//!
//! Each registered grammar (`grammars.rs`) is compiled with its language's
//! queries (`queries/<language>/*.scm`, embedded at build time) once, on
//! first use (compiling the TypeScript queries takes tens of
//! milliseconds). Capture names are checked when a query compiles, so a
//! misspelt capture fails [`check_queries`] (and the test that calls it)
//! instead of silently matching nothing. Where the outline walk looks is
//! the language's `[outline]` table, turned into a table by node kind.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, OnceLock};

use tree_sitter::{Node, Parser, Query, Range, Tree};

use super::Language;
use super::grammars::{REGISTERED, Registered};
use super::language::{OutlineScopes, Spec};
use crate::model::{ALL_KINDS, SymbolKind};

/// A grammar's query files, (file name, source): outline, then signature.
type QueryFiles = [(String, &'static str); 2];

/// What the outline walk does with a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Visit {
    /// Declarations sit here: run the query, then walk the children.
    Query,
    /// Walk the children only.
    Enter,
    /// Nothing to find inside.
    Skip,
}

/// What a capture means to the code that reads a query's matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// `@symbol.<kind>`: an outline symbol of that kind.
    Symbol(SymbolKind),
    /// `@name`: the symbol's or declaration's name.
    Name,
    /// `@shown`: the part of `@name` the symbol is named by and sits at,
    /// where not all of it (the literal of TypeScript's `['long long']`).
    Shown,
    /// `@opaque`: a function body the outline never looks into.
    Opaque,
    /// `@trait`: an impl block's trait.
    Trait,
    /// `@negative`: the `!` of a negative impl.
    Negative,
    /// `@qualifier`: the object a member is assigned to (`res` of
    /// `res.send = function …`).
    Qualifier,
    /// `@scope`: the scope a name is qualified by where it is declared
    /// (`Circle` of C++'s `double Circle::area() const { … }`): part of
    /// the shown name, joined by the language's name separator.
    Scope,
    /// `@declaration`: a declaration node for signature previews.
    Declaration,
    /// `@body`: where a signature preview stops.
    Body,
    /// `@prefix`: text before an `@item` that belongs to its declaration.
    Prefix,
    /// `@leading`: doc comments and attributes above an `@item`.
    Leading,
    /// `@item`: the declaration a `@prefix` or `@leading` belongs to.
    Item,
    /// `@comment`: left out of previews.
    Comment,
    /// `@_anything`: used by predicates only.
    Ignored,
}

/// A compiled query with the meaning of each capture and each pattern's
/// `#set! name` property.
///
/// A grammar's two query files are compiled as one query (outline patterns
/// first), so one walk of the tree serves both: walking the tree is most of
/// a query's cost.
pub(crate) struct CompiledQuery {
    pub query: Query,
    pub roles: Vec<Role>,
    pub pattern_names: Vec<Option<String>>,
    /// Patterns below this index come from `outline.scm`, the rest from
    /// `signature.scm`.
    pub outline_patterns: usize,
}

/// A grammar with its compiled queries.
pub(crate) struct Grammar {
    pub language: tree_sitter::Language,
    /// Every pattern but the `@comment` ones (the outline walk has no use
    /// for the thousands of doc comments of a `.d.ts`).
    pub query: CompiledQuery,
    /// Only the `@comment` patterns, compiled when first needed (a
    /// declaration header with a comment inside).
    comments: OnceLock<CompiledQuery>,
    files: QueryFiles,
    /// Where the outline walk looks, by node kind id (see [`Grammar::visit`]).
    scopes: Vec<Scope>,
    /// The words in the names of the grammar's node kinds (see `words`).
    words: OnceLock<HashSet<String>>,
}

/// What the language's `[outline]` table says of one node kind.
#[derive(Debug, Clone, Default)]
enum Scope {
    #[default]
    Skip,
    Query,
    Enter,
    /// Declarations sit in it only inside a parent of these kinds.
    QueryWithin(Vec<String>),
    /// Declarations sit in it only when its first named child is of this
    /// kind.
    QueryHolding(String),
}

/// Every registered grammar, in registration order, compiled when first
/// used.
static GRAMMARS: LazyLock<Vec<(&'static Registered, usize, OnceLock<Grammar>)>> =
    LazyLock::new(|| {
        REGISTERED
            .iter()
            .flat_map(|registered| {
                (0..registered.grammars.len()).map(move |i| (registered, i, OnceLock::new()))
            })
            .collect()
    });

/// The grammar (with queries) of a language.
pub(crate) fn grammar(language: Language) -> &'static Grammar {
    let (registered, i, compiled) = &GRAMMARS[language.dialect().grammar];
    compiled.get_or_init(|| {
        Grammar::new(registered, *i, language.spec()).unwrap_or_else(|err| panic!("{err}"))
    })
}

/// The query files of a registered language.
fn query_files(registered: &Registered) -> QueryFiles {
    [
        (
            format!("queries/{}/outline.scm", registered.folder),
            registered.outline_scm,
        ),
        (
            format!("queries/{}/signature.scm", registered.folder),
            registered.signature_scm,
        ),
    ]
}

impl Grammar {
    fn new(registered: &Registered, index: usize, spec: &Spec) -> Result<Grammar, String> {
        let language = (registered.grammars[index].1)();
        let files = query_files(registered);
        let query = compile(&language, &files, false)?;
        let scopes = scopes(&language, &spec.outline);
        Ok(Grammar {
            language,
            query,
            comments: OnceLock::new(),
            files,
            scopes,
            words: OnceLock::new(),
        })
    }

    /// Every word (a run of letters, digits, `_` and `$`) in the name of
    /// one of the grammar's node kinds: its keywords, contextual or not
    /// (`type`, `get`), the words of its longer tokens (`macro_rules` of
    /// `macro_rules!`), and the named kinds of fixed text (`undefined`,
    /// `self`) among names of node kinds no text is (`identifier`).
    pub(crate) fn words(&self) -> &HashSet<String> {
        self.words.get_or_init(|| {
            let kinds = 0..self.language.node_kind_count();
            kinds
                .filter_map(|id| self.language.node_kind_for_id(id as u16))
                .flat_map(|kind| kind.split(|c| !super::is_name_char(c)))
                .filter(|word| !word.is_empty())
                .map(str::to_string)
                .collect()
        })
    }

    /// The query that finds comments.
    pub(crate) fn comments(&self) -> &CompiledQuery {
        self.comments.get_or_init(|| {
            compile(&self.language, &self.files, true).expect("compiled once already")
        })
    }

    /// What the outline walk does with `node`, a child of a
    /// `parent_kind` node.
    ///
    /// The query runs only at the nodes where declarations sit, for matches
    /// rooted at the node or at one of its children; the walk enters the
    /// declarations that hold such nodes and skips everything else:
    /// function bodies, types and expressions, which hold most of a file's
    /// nodes (walking all of them took most of an outline's time). So a
    /// pattern must be rooted at such a node or at a child of one; the
    /// tests of every declaration form hold the queries to it.
    pub(crate) fn visit(&self, node: &Node, parent_kind: &str) -> Visit {
        match self.scopes.get(usize::from(node.kind_id())) {
            Some(Scope::Query) => Visit::Query,
            Some(Scope::Enter) => Visit::Enter,
            Some(Scope::QueryWithin(parents)) if parents.iter().any(|p| p == parent_kind) => {
                Visit::Query
            }
            Some(Scope::QueryHolding(child))
                if node.named_child(0).is_some_and(|c| c.kind() == child) =>
            {
                Visit::Query
            }
            _ => Visit::Skip,
        }
    }
}

/// The `[outline]` table by node kind id: every id whose kind has the name
/// the table uses (a grammar may give one name several ids).
fn scopes(language: &tree_sitter::Language, outline: &OutlineScopes) -> Vec<Scope> {
    let mut by_name: HashMap<&str, Scope> = HashMap::new();
    for kind in &outline.enter {
        by_name.insert(kind, Scope::Enter);
    }
    for (kind, parents) in &outline.query_within {
        by_name.insert(kind, Scope::QueryWithin(parents.clone()));
    }
    for (kind, child) in &outline.query_holding {
        by_name.insert(kind, Scope::QueryHolding(child.clone()));
    }
    for kind in &outline.query {
        by_name.insert(kind, Scope::Query);
    }
    (0..language.node_kind_count())
        .map(|id| {
            language
                .node_kind_for_id(id as u16)
                .and_then(|name| by_name.get(name).cloned())
                .unwrap_or_default()
        })
        .collect()
}

/// Compiles a grammar's two query files as one query, keeping either every
/// pattern but the `@comment` ones or only those.
fn compile(
    language: &tree_sitter::Language,
    files: &QueryFiles,
    comments: bool,
) -> Result<CompiledQuery, String> {
    let [(outline_file, outline), (signature_file, signature)] = files;
    let (outline, signature) = (*outline, *signature);
    let source = format!("{outline}\n{signature}");
    let query = Query::new(language, &source).map_err(|err| {
        // Point into the file the error is in.
        let outline_lines = outline.lines().count() + 1;
        let (file, row) = if err.row < outline_lines {
            (outline_file, err.row)
        } else {
            (signature_file, err.row - outline_lines)
        };
        format!(
            "{file}:{}:{}: {:?} error: {}",
            row + 1,
            err.column + 1,
            err.kind,
            err.message
        )
    })?;
    let roles = query
        .capture_names()
        .iter()
        .map(|name| {
            role(name).ok_or_else(|| {
                let file = if outline.contains(&format!("@{name}")) {
                    outline_file
                } else {
                    signature_file
                };
                format!("{file}: unknown capture @{name}")
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let pattern_names = (0..query.pattern_count())
        .map(|pattern| {
            query
                .property_settings(pattern)
                .iter()
                .find(|p| &*p.key == "name")
                .and_then(|p| p.value.as_deref().map(str::to_string))
        })
        .collect();
    let outline_patterns = (0..query.pattern_count())
        .take_while(|&p| query.start_byte_for_pattern(p) < outline.len())
        .count();
    let mut query = query;
    for pattern in 0..query.pattern_count() {
        let has_comment = query
            .capture_quantifiers(pattern)
            .iter()
            .zip(&roles)
            .any(|(q, role)| *role == Role::Comment && *q != tree_sitter::CaptureQuantifier::Zero);
        if has_comment != comments {
            query.disable_pattern(pattern);
        }
    }
    Ok(CompiledQuery {
        query,
        roles,
        pattern_names,
        outline_patterns,
    })
}

fn role(capture: &str) -> Option<Role> {
    if capture.starts_with('_') {
        return Some(Role::Ignored);
    }
    if let Some(kind) = capture.strip_prefix("symbol.") {
        return ALL_KINDS
            .iter()
            .find(|k| snake_case(k.name()) == kind)
            .map(|&k| Role::Symbol(k));
    }
    Some(match capture {
        "name" => Role::Name,
        "shown" => Role::Shown,
        "opaque" => Role::Opaque,
        "trait" => Role::Trait,
        "negative" => Role::Negative,
        "qualifier" => Role::Qualifier,
        "scope" => Role::Scope,
        "declaration" => Role::Declaration,
        "body" => Role::Body,
        "prefix" => Role::Prefix,
        "leading" => Role::Leading,
        "item" => Role::Item,
        "comment" => Role::Comment,
        _ => return None,
    })
}

/// `EnumMember` -> `enum_member`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// Compiles every query against every grammar that uses it, checking
/// capture names: `grammar: file` for each query that compiles, or every
/// failure with its reason.
pub fn check_queries() -> Result<Vec<String>, String> {
    let mut checked = Vec::new();
    let mut errors = Vec::new();
    for registered in REGISTERED {
        let files = query_files(registered);
        for (grammar, language) in registered.grammars {
            match compile(&language(), &files, false) {
                Ok(_) => checked.extend(files.iter().map(|(file, _)| format!("{grammar}: {file}"))),
                Err(err) => errors.push(format!("{grammar}: {err}")),
            }
        }
    }
    if errors.is_empty() {
        Ok(checked)
    } else {
        Err(errors.join("\n"))
    }
}

thread_local! {
    /// One parser per thread (a `Parser` is cheap to re-target).
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

/// Parses `text` with the language's grammar, all of it or only `piece`
/// (the tree's offsets and points are the whole text's either way).
/// tree-sitter always gives a tree (with error nodes where the text does
/// not parse).
pub(crate) fn parse(language: Language, text: &str, piece: Option<Range>) -> Tree {
    let grammar = grammar(language);
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser
            .set_language(&grammar.language)
            .expect("the grammars are built with a supported ABI");
        // No ranges means the whole text; a parser keeps its ranges
        // between parses, so they are always set.
        parser
            .set_included_ranges(piece.as_slice())
            .expect("one range inside the text is always valid");
        parser
            .parse(text, None)
            .expect("parsing without a timeout or cancellation flag always yields a tree")
    })
}
