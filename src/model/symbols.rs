//! Positions, ranges, symbol kinds and document outlines: the shapes that
//! language servers and tree-sitter both produce, so one renderer serves both.

use serde::Serialize;

/// A position as sextant shows and accepts it: 1-based line, 1-based
/// character counted in Unicode scalar values (a tab is one character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

impl Position {
    pub fn new(line: u32, character: u32) -> Position {
        Position { line, character }
    }
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.character)
    }
}

/// A half-open range `[start, end)` of positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

impl Range {
    pub fn new(start: Position, end: Position) -> Range {
        Range { start, end }
    }

    /// `other` lies within this range.
    pub fn contains(&self, other: &Range) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// Symbol kinds, named as LSP names them (`Class`, `Method`, `EnumMember`),
/// and one LSP lacks: `TypeAlias` (`type X = …`), which servers report as
/// Variable, Class or TypeParameter; sextant's outlines say what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum SymbolKind {
    File,
    Module,
    Namespace,
    Package,
    Class,
    Method,
    Property,
    Field,
    Constructor,
    Enum,
    Interface,
    Function,
    Variable,
    Constant,
    String,
    Number,
    Boolean,
    Array,
    Object,
    Key,
    Null,
    EnumMember,
    Struct,
    Event,
    Operator,
    TypeParameter,
    TypeAlias,
}

impl SymbolKind {
    /// The name shown in `@line:char Kind - name` lines.
    pub fn name(self) -> &'static str {
        match self {
            SymbolKind::File => "File",
            SymbolKind::Module => "Module",
            SymbolKind::Namespace => "Namespace",
            SymbolKind::Package => "Package",
            SymbolKind::Class => "Class",
            SymbolKind::Method => "Method",
            SymbolKind::Property => "Property",
            SymbolKind::Field => "Field",
            SymbolKind::Constructor => "Constructor",
            SymbolKind::Enum => "Enum",
            SymbolKind::Interface => "Interface",
            SymbolKind::Function => "Function",
            SymbolKind::Variable => "Variable",
            SymbolKind::Constant => "Constant",
            SymbolKind::String => "String",
            SymbolKind::Number => "Number",
            SymbolKind::Boolean => "Boolean",
            SymbolKind::Array => "Array",
            SymbolKind::Object => "Object",
            SymbolKind::Key => "Key",
            SymbolKind::Null => "Null",
            SymbolKind::EnumMember => "EnumMember",
            SymbolKind::Struct => "Struct",
            SymbolKind::Event => "Event",
            SymbolKind::Operator => "Operator",
            SymbolKind::TypeParameter => "TypeParameter",
            SymbolKind::TypeAlias => "TypeAlias",
        }
    }

    /// Parses a kind name as shown (case-insensitive), for `kinds` filters.
    pub fn parse(name: &str) -> Option<SymbolKind> {
        ALL_KINDS
            .iter()
            .copied()
            .find(|kind| kind.name().eq_ignore_ascii_case(name))
    }
}

/// Every kind, in LSP's order.
pub const ALL_KINDS: [SymbolKind; 27] = [
    SymbolKind::File,
    SymbolKind::Module,
    SymbolKind::Namespace,
    SymbolKind::Package,
    SymbolKind::Class,
    SymbolKind::Method,
    SymbolKind::Property,
    SymbolKind::Field,
    SymbolKind::Constructor,
    SymbolKind::Enum,
    SymbolKind::Interface,
    SymbolKind::Function,
    SymbolKind::Variable,
    SymbolKind::Constant,
    SymbolKind::String,
    SymbolKind::Number,
    SymbolKind::Boolean,
    SymbolKind::Array,
    SymbolKind::Object,
    SymbolKind::Key,
    SymbolKind::Null,
    SymbolKind::EnumMember,
    SymbolKind::Struct,
    SymbolKind::Event,
    SymbolKind::Operator,
    SymbolKind::TypeParameter,
    SymbolKind::TypeAlias,
];

/// One symbol of a document outline, with its children nested by range.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutlineSymbol {
    pub name: String,
    pub kind: SymbolKind,
    /// Extra text from the source (an LSP `detail`, e.g. a signature).
    pub detail: Option<String>,
    /// The whole declaration, doc comments and body included where the
    /// source says so.
    pub range: Range,
    /// Where the name is: the position shown as `@line:char`.
    pub selection_range: Range,
    /// For a member declared by assignment (`res.send = function …`), the
    /// object it is assigned to (`res`): `res.send` names it.
    pub qualifier: Option<String>,
    pub children: Vec<OutlineSymbol>,
}

/// Where an outline came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum OutlineSource {
    /// A language server's documentSymbol answer (the server's name).
    LanguageServer(String),
    /// sextant's own tree-sitter queries.
    TreeSitter,
}

/// What a symbol address designated: the identifier a position-taking tool
/// works on, as its answer's header names it
/// (`inspect Registry.add (Method) at src/shapes.ts:49:3`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Target {
    /// The file, as shown.
    pub path: String,
    /// Where the identifier starts.
    pub position: Position,
    /// The identifier.
    pub name: String,
    /// The declaration there, when the identifier names one: its name path
    /// (`Registry.add`) and kind.
    pub declaration: Option<(String, SymbolKind)>,
    /// What the reader must know about how the address was read (the
    /// nearest identifier was used, the first of several overloads).
    pub note: Option<String>,
}
