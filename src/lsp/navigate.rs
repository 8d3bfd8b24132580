//! Navigation requests at one position: hover, definition, type definition,
//! implementation, references and the call hierarchy. Answers come back as
//! plain values (paths and sextant positions, converted through each file's
//! line index), so the tools never see an LSP type.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use lsp_types::request::{
    CallHierarchyIncomingCalls, CallHierarchyOutgoingCalls, CallHierarchyPrepare, GotoDefinition,
    GotoImplementation, GotoTypeDefinition, HoverRequest, References,
};
use lsp_types::{
    CallHierarchyIncomingCallsParams, CallHierarchyItem, CallHierarchyOutgoingCallsParams,
    CallHierarchyPrepareParams, GotoDefinitionParams, GotoDefinitionResponse, HoverContents,
    HoverParams, MarkedString, PartialResultParams, ReferenceContext, ReferenceParams,
    TextDocumentIdentifier, TextDocumentPositionParams, Url, WorkDoneProgressParams,
};

use super::LspError;
use super::client::LspClient;
use super::convert::LineIndex;
use super::requests::{fresh_published, symbol_kind};
use super::supervisor::Session;
use crate::model::{Position, Range, SymbolKind};

/// A range in some file, as a server pointed at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spot {
    pub path: PathBuf,
    /// The name's range where the server gives one (a link's selection
    /// range), else the range it gave.
    pub range: Range,
}

/// The three "go to" requests `inspect` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goto {
    Definition,
    TypeDefinition,
    Implementation,
}

impl Goto {
    fn what(self) -> &'static str {
        match self {
            Goto::Definition => "go to definition",
            Goto::TypeDefinition => "go to type definition",
            Goto::Implementation => "go to implementation",
        }
    }
}

/// The session's document and `position` in it, as LSP has them.
pub(crate) fn at(
    session: &Session,
    position: Position,
) -> Result<TextDocumentPositionParams, LspError> {
    let lsp_position = session
        .document
        .index
        .to_lsp(position, session.client.encoding)
        .ok_or_else(|| LspError::Io {
            detail: format!(
                "{}:{position} is past the end of the file",
                session.document.path.display()
            ),
        })?;
    Ok(TextDocumentPositionParams {
        text_document: TextDocumentIdentifier {
            uri: session.document.uri.clone(),
        },
        position: lsp_position,
    })
}

pub(crate) fn unsupported(client: &LspClient, what: &str) -> LspError {
    LspError::Unsupported {
        server: client.server().to_string(),
        what: what.to_string(),
    }
}

/// How long a request waits for typescript-language-server to load the
/// project of a document it was just given.
pub const PROJECT_LOAD_WAIT: Duration = Duration::from_secs(10);

/// Waits until the server has the session's document in a loaded project,
/// where that is not so on its answering: typescript-language-server hands
/// a new document to tsserver in a later batch, and a request made before
/// that answers from the document alone (references in one file, no
/// completions). Its diagnostics for the document are the sign it is in.
/// Other servers load the project before they answer; no wait. False when
/// the wait ended without the sign (after `PROJECT_LOAD_WAIT`, or the
/// server gone): an answer may then cover the document alone. The wait
/// ends at the sign, so its bound costs nothing on a quick machine; on a
/// loaded one tsserver has taken over 3 s.
pub async fn project_loaded(session: &Session) -> bool {
    if !session.client.language.tsserver_requests {
        return true;
    }
    let deadline = tokio::time::Instant::now() + PROJECT_LOAD_WAIT;
    session
        .client
        .wait_until(deadline, || fresh_published(session).is_some())
        .await
}

/// How long after opening its projects a server is waited for to load
/// them, over all requests.
pub const PROJECTS_LOAD_BUDGET: Duration = Duration::from_secs(60);

/// Waits until the server has loaded every project
/// `Supervisor::open_projects` opened a file of, where that is not so on
/// its answering (typescript-language-server, see [`project_loaded`]):
/// until then a search or references answer covers some projects only.
/// The sign is a publication of diagnostics for each opened file since it
/// was opened; once seen, it holds for good (a file edited or closed later
/// does not make its project unloaded). False when `deadline` came first
/// or the server is gone; true at once for other servers, and when no
/// projects were opened. Waits end [`PROJECTS_LOAD_BUDGET`] after the
/// projects were opened: a project that never loads (its file never gets
/// diagnostics) must not stall every later request, which then answers at
/// once, with the caller's note.
pub async fn projects_loaded(client: &LspClient, deadline: tokio::time::Instant) -> bool {
    let Some(opened) = client.projects_opened.get() else {
        return true;
    };
    if !client.language.tsserver_requests || opened.loaded.load(Ordering::Relaxed) {
        return true;
    }
    let deadline = deadline.min(opened.opened_at + PROJECTS_LOAD_BUDGET);
    let all_published = || {
        let state = client.shared.state();
        opened.files.iter().all(|(uri, sent_at)| {
            state
                .diagnostics
                .get(uri)
                .is_some_and(|published| published.sequence > *sent_at)
        })
    };
    let loaded = client.wait_until(deadline, all_published).await;
    if loaded {
        opened.loaded.store(true, Ordering::Relaxed);
    }
    loaded
}

/// The hover text as the server wrote it (markdown or plain text, the
/// pieces of an old-style answer joined by blank lines); `None` when the
/// server has nothing to say there.
pub async fn hover(session: &Session, position: Position) -> Result<Option<String>, LspError> {
    let client = &session.client;
    if client.capabilities.hover_provider.is_none() {
        return Err(unsupported(client, "hover"));
    }
    let params = HoverParams {
        text_document_position_params: at(session, position)?,
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let Some(hover) = client.request_settled::<HoverRequest>(params).await? else {
        return Ok(None);
    };
    let marked = |m: MarkedString| match m {
        MarkedString::String(text) => text,
        MarkedString::LanguageString(code) => {
            format!("```{}\n{}\n```", code.language, code.value)
        }
    };
    let text = match hover.contents {
        HoverContents::Markup(markup) => markup.value,
        HoverContents::Scalar(one) => marked(one),
        HoverContents::Array(many) => many
            .into_iter()
            .map(marked)
            .collect::<Vec<_>>()
            .join("\n\n"),
    };
    Ok((!text.trim().is_empty()).then_some(text))
}

/// Where the symbol at `position` is defined, its type is defined, or it is
/// implemented. `Unsupported` when the server lacks the request.
pub async fn goto(
    session: &Session,
    position: Position,
    which: Goto,
) -> Result<Vec<Spot>, LspError> {
    let client = &session.client;
    let capabilities = &client.capabilities;
    let supported = match which {
        Goto::Definition => capabilities.definition_provider.is_some(),
        Goto::TypeDefinition => capabilities.type_definition_provider.is_some(),
        Goto::Implementation => capabilities.implementation_provider.is_some(),
    };
    if !supported {
        return Err(unsupported(client, which.what()));
    }
    let params = GotoDefinitionParams {
        text_document_position_params: at(session, position)?,
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let answer = match which {
        Goto::Definition => client.request_settled::<GotoDefinition>(params).await?,
        Goto::TypeDefinition => client.request_settled::<GotoTypeDefinition>(params).await?,
        Goto::Implementation => client.request_settled::<GotoImplementation>(params).await?,
    };
    let raw: Vec<(Url, lsp_types::Range)> = match answer {
        None => Vec::new(),
        Some(GotoDefinitionResponse::Scalar(location)) => vec![(location.uri, location.range)],
        Some(GotoDefinitionResponse::Array(locations)) => {
            locations.into_iter().map(|l| (l.uri, l.range)).collect()
        }
        Some(GotoDefinitionResponse::Link(links)) => links
            .into_iter()
            .map(|l| (l.target_uri, l.target_selection_range))
            .collect(),
    };
    let mut files = Files::read(client, raw.iter().map(|(uri, _)| uri.clone())).await;
    let mut spots = Vec::new();
    for (uri, range) in raw {
        if let Some(spot) = files.spot(&uri, range).await
            && !spots.contains(&spot)
        {
            spots.push(spot);
        }
    }
    Ok(spots)
}

/// Every reference to the symbol at `position`, in the server's order.
pub async fn references(
    session: &Session,
    position: Position,
    include_declaration: bool,
) -> Result<Vec<Spot>, LspError> {
    let client = &session.client;
    if client.capabilities.references_provider.is_none() {
        return Err(unsupported(client, "find references"));
    }
    let params = ReferenceParams {
        text_document_position: at(session, position)?,
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
        context: ReferenceContext {
            include_declaration,
        },
    };
    let locations = client
        .request_settled::<References>(params)
        .await?
        .unwrap_or_default();
    let mut files = Files::read(client, locations.iter().map(|l| l.uri.clone())).await;
    let mut spots = Vec::with_capacity(locations.len());
    for location in locations {
        if let Some(spot) = files.spot(&location.uri, location.range).await {
            spots.push(spot);
        }
    }
    Ok(spots)
}

/// A function or method in a call hierarchy.
#[derive(Debug, Clone)]
pub struct CallItem {
    pub name: String,
    pub kind: SymbolKind,
    pub path: PathBuf,
    /// Where its name stands.
    pub selection: Range,
    /// The server's own item, handed back when asking for its calls.
    item: CallHierarchyItem,
}

/// One edge of a call hierarchy: the function at the other end and where
/// the calls are, in the calling function's file.
#[derive(Debug, Clone)]
pub struct Call {
    pub item: CallItem,
    pub sites: Vec<Range>,
}

/// The call hierarchy items at `position` (usually one).
pub async fn prepare_call_hierarchy(
    session: &Session,
    position: Position,
) -> Result<Vec<CallItem>, LspError> {
    let client = &session.client;
    if client.capabilities.call_hierarchy_provider.is_none() {
        return Err(unsupported(client, "call hierarchy"));
    }
    let params = CallHierarchyPrepareParams {
        text_document_position_params: at(session, position)?,
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let items = client
        .request_settled::<CallHierarchyPrepare>(params)
        .await?
        .unwrap_or_default();
    let mut files = Files::read(client, items.iter().map(|i| i.uri.clone())).await;
    let mut out = Vec::new();
    for item in items {
        if let Some(item) = files.call_item(item).await {
            out.push(item);
        }
    }
    Ok(out)
}

/// Who calls `item`; each call's sites are in the caller's file.
pub async fn incoming_calls(client: &LspClient, item: &CallItem) -> Result<Vec<Call>, LspError> {
    let params = CallHierarchyIncomingCallsParams {
        item: item.item.clone(),
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let calls = client
        .request_settled::<CallHierarchyIncomingCalls>(params)
        .await?
        .unwrap_or_default();
    let mut files = Files::read(client, calls.iter().map(|c| c.from.uri.clone())).await;
    let mut out = Vec::new();
    for call in calls {
        let uri = call.from.uri.clone();
        let Some(caller) = files.call_item(call.from).await else {
            continue;
        };
        let sites = files.ranges(&uri, call.from_ranges).await;
        out.push(Call {
            item: caller,
            sites,
        });
    }
    Ok(out)
}

/// What `item` calls; each call's sites are in `item`'s own file.
pub async fn outgoing_calls(client: &LspClient, item: &CallItem) -> Result<Vec<Call>, LspError> {
    let params = CallHierarchyOutgoingCallsParams {
        item: item.item.clone(),
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let calls = client
        .request_settled::<CallHierarchyOutgoingCalls>(params)
        .await?
        .unwrap_or_default();
    let callees = calls.iter().map(|c| c.to.uri.clone());
    let mut files = Files::read(client, callees.chain([item.item.uri.clone()])).await;
    let mut out = Vec::new();
    for call in calls {
        let Some(callee) = files.call_item(call.to).await else {
            continue;
        };
        let sites = files.ranges(&item.item.uri, call.from_ranges).await;
        out.push(Call {
            item: callee,
            sites,
        });
    }
    Ok(out)
}

/// The line indexes of the files one answer points into, each read once.
struct Files<'a> {
    client: &'a LspClient,
    indexes: HashMap<Url, Option<Arc<LineIndex>>>,
}

impl<'a> Files<'a> {
    /// The files of `uris`, read at once (`LspClient::line_indexes`);
    /// another is read when asked for.
    async fn read(client: &'a LspClient, uris: impl IntoIterator<Item = Url>) -> Files<'a> {
        Files {
            client,
            indexes: client.line_indexes(uris).await,
        }
    }

    async fn index(&mut self, uri: &Url) -> Option<Arc<LineIndex>> {
        if !self.indexes.contains_key(uri) {
            let index = self.client.line_index(uri).await;
            self.indexes.insert(uri.clone(), index);
        }
        self.indexes[uri].clone()
    }

    /// A location as a spot; `None` for a file that cannot be read (or a
    /// URI that is not a file).
    async fn spot(&mut self, uri: &Url, range: lsp_types::Range) -> Option<Spot> {
        let path = uri.to_file_path().ok()?;
        let index = self.index(uri).await?;
        Some(Spot {
            path,
            range: index.range_to_model(range, self.client.encoding),
        })
    }

    async fn ranges(&mut self, uri: &Url, ranges: Vec<lsp_types::Range>) -> Vec<Range> {
        let Some(index) = self.index(uri).await else {
            return Vec::new();
        };
        let mut out: Vec<Range> = ranges
            .into_iter()
            .map(|r| index.range_to_model(r, self.client.encoding))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    async fn call_item(&mut self, item: CallHierarchyItem) -> Option<CallItem> {
        let spot = self.spot(&item.uri, item.selection_range).await?;
        Some(CallItem {
            name: item.name.clone(),
            kind: symbol_kind(item.kind),
            path: spot.path,
            selection: spot.range,
            item,
        })
    }
}
