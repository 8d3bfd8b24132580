//! The results of the navigation tools: `inspect`, `references`,
//! `call_hierarchy` and `completion`.

use serde::Serialize;

use super::{NumberedLine, Position, SymbolKind, Target};

/// Where a location's file lies, for the reader who wants to open it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Place {
    /// Inside the workspace root, outside any dependency folder.
    Workspace,
    /// A dependency: under `node_modules`, the cargo registry, the
    /// toolchain's sources or another library root (readable, not
    /// writable).
    Library,
    /// Outside the workspace and every library root: `read` cannot open
    /// it (a server's bundled `lib.d.ts`, say).
    Outside,
}

/// A position with its source line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceLocation {
    /// As shown: relative inside the root, else absolute.
    pub path: String,
    pub position: Position,
    /// The line, trimmed (and cut around the position when very long).
    pub text: String,
    pub place: Place,
}

/// Everything about one symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InspectResult {
    pub target: Target,
    /// The server's hover text, markdown kept readable.
    pub hover: Option<String>,
    pub definitions: Vec<SourceLocation>,
    pub type_definitions: Vec<SourceLocation>,
    /// The page of implementations shown.
    pub implementations: Vec<SourceLocation>,
    pub implementations_total: usize,
    /// Index of the first implementation shown.
    pub offset: usize,
    pub next_offset: Option<usize>,
    /// What the reader must know (a request that failed, a server still
    /// indexing).
    pub notes: Vec<String>,
}

/// One page of the references to a symbol, grouped by file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReferencesResult {
    pub target: Target,
    /// References in all (before paging), and the files they are in.
    pub total: usize,
    pub total_files: usize,
    /// The declaration's file first, then by path.
    pub files: Vec<ReferenceFile>,
    pub offset: usize,
    /// Where to continue, when references after the page were left out.
    pub next_offset: Option<usize>,
    /// The references after the page, and the files they are in.
    pub left_out: usize,
    pub left_out_files: usize,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReferenceFile {
    pub path: String,
    /// The file's references in all (the page may show fewer).
    pub total: usize,
    pub lines: Vec<ReferenceLine>,
}

/// The references on one line of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReferenceLine {
    pub line: u32,
    /// Where each reference on the line starts, in order.
    pub characters: Vec<u32>,
    /// The name path of the symbol the references are in (`Registry.add`),
    /// from the file's outline; `None` at the top level.
    pub enclosing: Option<String>,
    /// What the line's `in X` names: `enclosing`, or on that symbol's own
    /// declaration line (which says it already) its container.
    pub shown_in: Option<String>,
    /// The line, trimmed (and cut around the first reference when very
    /// long).
    pub text: String,
    /// With `context`: the numbered lines around it (the line itself
    /// included), lines shown for an earlier reference of the file left
    /// out.
    pub context: Vec<NumberedLine>,
}

/// Which calls `call_hierarchy` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallDirection {
    Incoming,
    Outgoing,
}

/// The calls into or out of a function, to some depth.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallTree {
    pub direction: CallDirection,
    /// The first level, in file order.
    pub calls: Vec<CallNode>,
    /// Functions shown at every level, and the files of the first level.
    pub shown: usize,
    pub files: usize,
    /// Calls found but left out (the node or size bound was reached).
    pub left_out: usize,
}

/// A function at one end of a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallNode {
    pub path: String,
    pub position: Position,
    pub kind: SymbolKind,
    /// Its name path in its file (`Registry.totalArea`).
    pub name: String,
    pub place: Place,
    /// Where the calls are: in this function's file for incoming calls, in
    /// the calling function's file for outgoing ones.
    pub sites: Vec<SourceLocation>,
    /// Reached before (a cycle, or a function called from two places):
    /// expanded where it was first reached, not here.
    pub repeated: bool,
    /// The macro whose invocation made the function, where `position` is
    /// that invocation rather than the function's name (`iterator!` in
    /// Rust's core makes `position`).
    pub made_by: Option<String>,
    pub children: Vec<CallNode>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallHierarchyResult {
    pub target: Target,
    pub depth: u8,
    pub incoming: Option<CallTree>,
    pub outgoing: Option<CallTree>,
    pub notes: Vec<String>,
}

/// LSP's completion item kinds (a table of its own: not the symbol kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum CompletionKind {
    Text,
    Method,
    Function,
    Constructor,
    Field,
    Variable,
    Class,
    Interface,
    Module,
    Property,
    Unit,
    Value,
    Enum,
    Keyword,
    Snippet,
    Color,
    File,
    Reference,
    Folder,
    EnumMember,
    Constant,
    Struct,
    Event,
    Operator,
    TypeParameter,
    /// The server gave no kind.
    Other,
}

impl CompletionKind {
    /// Every kind in LSP's order (numbered from 1).
    pub const LSP_ORDER: [CompletionKind; 25] = [
        CompletionKind::Text,
        CompletionKind::Method,
        CompletionKind::Function,
        CompletionKind::Constructor,
        CompletionKind::Field,
        CompletionKind::Variable,
        CompletionKind::Class,
        CompletionKind::Interface,
        CompletionKind::Module,
        CompletionKind::Property,
        CompletionKind::Unit,
        CompletionKind::Value,
        CompletionKind::Enum,
        CompletionKind::Keyword,
        CompletionKind::Snippet,
        CompletionKind::Color,
        CompletionKind::File,
        CompletionKind::Reference,
        CompletionKind::Folder,
        CompletionKind::EnumMember,
        CompletionKind::Constant,
        CompletionKind::Struct,
        CompletionKind::Event,
        CompletionKind::Operator,
        CompletionKind::TypeParameter,
    ];

    /// The group heading: `Methods`, `Enum members`.
    pub fn plural(self) -> &'static str {
        match self {
            CompletionKind::Text => "Text",
            CompletionKind::Method => "Methods",
            CompletionKind::Function => "Functions",
            CompletionKind::Constructor => "Constructors",
            CompletionKind::Field => "Fields",
            CompletionKind::Variable => "Variables",
            CompletionKind::Class => "Classes",
            CompletionKind::Interface => "Interfaces",
            CompletionKind::Module => "Modules",
            CompletionKind::Property => "Properties",
            CompletionKind::Unit => "Units",
            CompletionKind::Value => "Values",
            CompletionKind::Enum => "Enums",
            CompletionKind::Keyword => "Keywords",
            CompletionKind::Snippet => "Snippets",
            CompletionKind::Color => "Colors",
            CompletionKind::File => "Files",
            CompletionKind::Reference => "References",
            CompletionKind::Folder => "Folders",
            CompletionKind::EnumMember => "Enum members",
            CompletionKind::Constant => "Constants",
            CompletionKind::Struct => "Structs",
            CompletionKind::Event => "Events",
            CompletionKind::Operator => "Operators",
            CompletionKind::TypeParameter => "Type parameters",
            CompletionKind::Other => "Other",
        }
    }
}

/// Completions at one position, grouped by kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompletionResult {
    pub path: String,
    pub position: Position,
    /// Items the server offered in all.
    pub total: usize,
    /// Groups ordered by their best item; items best first.
    pub groups: Vec<CompletionGroup>,
    /// The server said the list is incomplete (typing more narrows it
    /// further, and may find more).
    pub incomplete: bool,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompletionGroup {
    pub kind: CompletionKind,
    pub items: Vec<CompletionEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompletionEntry {
    pub label: String,
    /// The type or signature, on one line.
    pub detail: Option<String>,
    /// The first line of the documentation, when it is short.
    pub documentation: Option<String>,
}
