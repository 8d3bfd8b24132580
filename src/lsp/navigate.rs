//! Navigation requests at one position: hover, definition, type definition,
//! implementation, references and the call hierarchy. Answers come back as
//! plain values (paths and sextant positions, converted through each file's
//! line index), so the tools never see an LSP type.

use std::path::{Path, PathBuf};
use std::sync::Arc;

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
use super::capabilities::Feature;
use super::client::LspClient;
use super::convert::{LineIndex, file_path, url_path};
use super::quirks::cargo_projects;
use super::session::Session;
use super::symbols::symbol_kind;
use crate::fast_map::FastMap;
use crate::model::{Position, Range, SymbolKind};

/// A range in some file, as a server pointed at it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Spot {
    pub path: Arc<Path>,
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
    fn feature(self) -> Feature {
        match self {
            Goto::Definition => Feature::Definition,
            Goto::TypeDefinition => Feature::TypeDefinition,
            Goto::Implementation => Feature::Implementation,
        }
    }
}

/// The session's document and `position` in it, as LSP has them.
pub fn at(session: &Session, position: Position) -> Result<TextDocumentPositionParams, LspError> {
    let document = session.document();
    let lsp_position = document
        .index
        .to_lsp(position, session.client().encoding)
        .ok_or_else(|| LspError::Io {
            detail: format!(
                "{}:{position} is past the end of the file",
                document.path.display()
            ),
        })?;
    Ok(TextDocumentPositionParams {
        text_document: TextDocumentIdentifier {
            uri: document.uri.clone(),
        },
        position: lsp_position,
    })
}

/// The hover text as the server wrote it (markdown or plain text, the
/// pieces of an old-style answer joined by blank lines); `None` when the
/// server has nothing to say there.
pub async fn hover(session: &Session, position: Position) -> Result<Option<String>, LspError> {
    let client = session.client();
    client.require(Feature::Hover)?;
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
    let client = session.client();
    client.require(which.feature())?;
    let params = GotoDefinitionParams {
        text_document_position_params: at(session, position)?,
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let answer = match which {
        Goto::Definition => client.request_settled::<GotoDefinition>(params).await,
        Goto::TypeDefinition => client.request_settled::<GotoTypeDefinition>(params).await,
        Goto::Implementation => client.request_settled::<GotoImplementation>(params).await,
    };
    // How the server says there is none (gopls: "no type definition for
    // Summarize", the `none_errors` key) is an empty answer.
    let answer = match answer {
        Err(LspError::Rpc { message, .. })
            if client
                .language
                .none_errors
                .iter()
                .any(|none| message.contains(none.as_str())) =>
        {
            None
        }
        answer => answer?,
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
    let mut files = Files::read(client, paths_of(raw.iter().map(|(uri, _)| uri))).await;
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
    let client = session.client();
    client.require(Feature::References)?;
    let found = references_at(client, at(session, position)?, include_declaration).await?;
    // rust-analyzer holding several cargo projects answers from one copy
    // of a crate they share: the uses through the other copies are asked
    // for there.
    cargo_projects::references_across(session, position, include_declaration, found).await
}

/// `textDocument/references` at `at` (any file, open or not), as spots.
pub(super) async fn references_at(
    client: &LspClient,
    at: TextDocumentPositionParams,
    include_declaration: bool,
) -> Result<Vec<Spot>, LspError> {
    let params = ReferenceParams {
        text_document_position: at,
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
        context: ReferenceContext {
            include_declaration,
        },
    };
    let runs = client
        .request_settled::<ReferencesInRuns>(params)
        .await?
        .unwrap_or_default()
        .0;
    let runs: Vec<(Option<PathBuf>, Vec<lsp_types::Range>)> = runs
        .into_iter()
        .map(|run| (file_path(&run.uri), run.ranges))
        .collect();
    let paths = runs.iter().filter_map(|(path, _)| path.clone()).collect();
    let mut files = Files::read(client, paths).await;
    let mut spots = Vec::with_capacity(runs.iter().map(|(_, ranges)| ranges.len()).sum());
    // A run whose file cannot be read gives no spots.
    for (path, ranges) in runs {
        let Some(path) = path else { continue };
        let Some(index) = files.index(&path).await else {
            continue;
        };
        // Shared by the run's spots, not copied for each.
        let path: Arc<Path> = path.into();
        spots.extend(ranges.into_iter().map(|range| Spot {
            path: Arc::clone(&path),
            range: index.range_to_model(range, client.encoding),
        }));
    }
    Ok(spots)
}

/// `textDocument/references`, its locations gathered into runs of one
/// file as they are read (see [`Runs`]).
enum ReferencesInRuns {}

impl lsp_types::request::Request for ReferencesInRuns {
    type Params = ReferenceParams;
    type Result = Option<Runs>;
    const METHOD: &'static str = References::METHOD;
}

/// Locations as a server gives them, each run of one file's locations one
/// after another (servers give a file's references together) kept as one
/// URI, as written, and its ranges. Each location's URI is compared where
/// it lies in the answer (one taken aside, see `aside`; a smaller one comes
/// as a value, its strings made already), and only a run's first is copied
/// out: the 877 references of the TypeScript SDK's `McpServer` are in 168
/// files, and a copy of every URI was a tenth of reading the answer.
/// (Decoding a `Url` is a parse, which a run needs once.)
#[derive(Debug, Default)]
struct Runs(Vec<Run>);

/// One file's locations that came one after another.
#[derive(Debug, PartialEq)]
struct Run {
    uri: String,
    ranges: Vec<lsp_types::Range>,
}

/// One location, its URI borrowed from the answer where it has no escape.
#[derive(serde::Deserialize, serde::Serialize)]
struct LocationAt<'a> {
    #[serde(borrow)]
    uri: std::borrow::Cow<'a, str>,
    range: lsp_types::Range,
}

impl<'de> serde::Deserialize<'de> for Runs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Runs, D::Error> {
        struct Gather;
        impl<'de> serde::de::Visitor<'de> for Gather {
            type Value = Runs;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of locations")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Runs, A::Error> {
                let mut runs: Vec<Run> = Vec::new();
                while let Some(LocationAt { uri, range }) = seq.next_element()? {
                    match runs.last_mut() {
                        Some(run) if run.uri == uri => run.ranges.push(range),
                        _ => runs.push(Run {
                            uri: uri.into_owned(),
                            ranges: vec![range],
                        }),
                    }
                }
                Ok(Runs(runs))
            }
        }
        deserializer.deserialize_seq(Gather)
    }
}

/// As the locations they were read from (the request type asks for it).
impl serde::Serialize for Runs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().flat_map(|run| {
            run.ranges.iter().map(|&range| LocationAt {
                uri: std::borrow::Cow::Borrowed(&run.uri),
                range,
            })
        }))
    }
}

/// A position in any file as LSP has it: the file as the server sees it
/// (open, or on disk). `None` when the file cannot be read or the position
/// is not in it.
pub(super) async fn position_in(
    client: &LspClient,
    path: &std::path::Path,
    position: Position,
) -> Option<TextDocumentPositionParams> {
    let uri = Url::from_file_path(path).ok()?;
    let index = client.line_index(&uri).await?;
    Some(TextDocumentPositionParams {
        text_document: TextDocumentIdentifier { uri },
        position: index.to_lsp(position, client.encoding)?,
    })
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
    let client = session.client();
    client.require(Feature::CallHierarchy)?;
    let params = CallHierarchyPrepareParams {
        text_document_position_params: at(session, position)?,
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let items = client
        .request_settled::<CallHierarchyPrepare>(params)
        .await?
        .unwrap_or_default();
    let mut files = Files::read(client, paths_of(items.iter().map(|i| &i.uri))).await;
    let mut out = Vec::new();
    for item in items {
        if let Some(item) = files.call_item(item).await {
            out.push(item);
        }
    }
    Ok(out)
}

/// Who calls `item`; each call's sites are in the caller's file.
pub async fn incoming_calls(session: &Session, item: &CallItem) -> Result<Vec<Call>, LspError> {
    let client = session.client();
    let params = CallHierarchyIncomingCallsParams {
        item: item.item.clone(),
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let calls = client
        .request_settled::<CallHierarchyIncomingCalls>(params)
        .await?
        .unwrap_or_default();
    let mut files = Files::read(client, paths_of(calls.iter().map(|c| &c.from.uri))).await;
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
pub async fn outgoing_calls(session: &Session, item: &CallItem) -> Result<Vec<Call>, LspError> {
    let client = session.client();
    let params = CallHierarchyOutgoingCallsParams {
        item: item.item.clone(),
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let calls = client
        .request_settled::<CallHierarchyOutgoingCalls>(params)
        .await?
        .unwrap_or_default();
    let callees = calls.iter().map(|c| &c.to.uri);
    let mut files = Files::read(client, paths_of(callees.chain([&item.item.uri]))).await;
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

/// The paths of the `file:` URIs among `uris`.
fn paths_of<'u>(uris: impl IntoIterator<Item = &'u Url>) -> Vec<PathBuf> {
    uris.into_iter().filter_map(url_path).collect()
}

/// The line indexes of the files one answer points into, each read once.
struct Files<'a> {
    client: &'a LspClient,
    indexes: FastMap<PathBuf, Option<Arc<LineIndex>>>,
}

impl<'a> Files<'a> {
    /// The files at `paths`, read at once (`LspClient::line_indexes`);
    /// another is read when asked for.
    async fn read(client: &'a LspClient, paths: Vec<PathBuf>) -> Files<'a> {
        Files {
            client,
            indexes: client.line_indexes(paths).await,
        }
    }

    async fn index(&mut self, path: &Path) -> Option<Arc<LineIndex>> {
        if let Some(index) = self.indexes.get(path) {
            return index.clone();
        }
        let index = self.client.line_indexes([path.to_path_buf()]).await;
        self.indexes.extend(index);
        self.indexes.get(path).cloned().flatten()
    }

    /// A location as a spot; `None` for a file that cannot be read (or a
    /// URI that is not a file).
    async fn spot(&mut self, uri: &Url, range: lsp_types::Range) -> Option<Spot> {
        let (path, range) = self.located(uri, range).await?;
        Some(Spot {
            path: path.into(),
            range,
        })
    }

    /// A location's path and range; `None` as for `spot`.
    async fn located(&mut self, uri: &Url, range: lsp_types::Range) -> Option<(PathBuf, Range)> {
        let path = url_path(uri)?;
        let index = self.index(&path).await?;
        let range = index.range_to_model(range, self.client.encoding);
        Some((path, range))
    }

    async fn ranges(&mut self, uri: &Url, ranges: Vec<lsp_types::Range>) -> Vec<Range> {
        let Some(path) = url_path(uri) else {
            return Vec::new();
        };
        let Some(index) = self.index(&path).await else {
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
        let (path, selection) = self.located(&item.uri, item.selection_range).await?;
        Some(CallItem {
            name: item.name.clone(),
            kind: symbol_kind(item.kind),
            path,
            selection,
            item,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(line: u32, from: u32, to: u32) -> lsp_types::Range {
        lsp_types::Range::new(
            lsp_types::Position::new(line, from),
            lsp_types::Position::new(line, to),
        )
    }

    #[test]
    fn locations_are_read_into_runs_of_one_file() {
        // The second URI escapes its slashes, which cannot be borrowed; the
        // first file comes again after it, as a run of its own.
        let text = r#"[
            {"uri": "file:///w/a.ts", "range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}},
            {"uri": "file:///w/a.ts", "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 3}}},
            {"uri": "file:\/\/\/w\/b.ts", "range": {"start": {"line": 0, "character": 7}, "end": {"line": 0, "character": 9}}},
            {"uri": "file:///w/b.ts", "range": {"start": {"line": 2, "character": 1}, "end": {"line": 2, "character": 2}}},
            {"uri": "file:///w/a.ts", "range": {"start": {"line": 9, "character": 0}, "end": {"line": 9, "character": 1}}}
        ]"#;
        let run = |uri: &str, ranges| Run {
            uri: uri.to_string(),
            ranges,
        };
        let expected = vec![
            run("file:///w/a.ts", vec![range(1, 2, 5), range(4, 0, 3)]),
            run("file:///w/b.ts", vec![range(0, 7, 9), range(2, 1, 2)]),
            run("file:///w/a.ts", vec![range(9, 0, 1)]),
        ];
        // From the answer's text (taken aside) and from a value alike.
        let read: Runs = serde_json::from_str(text).unwrap();
        assert_eq!(read.0, expected);
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let from_value: Runs = serde_json::from_value(value).unwrap();
        assert_eq!(from_value.0, expected);
        // Written back, the runs are the locations they were read from.
        let unescaped: serde_json::Value = serde_json::from_str(&text.replace(r"\/", "/")).unwrap();
        assert_eq!(serde_json::to_value(&read).unwrap(), unescaped);
        assert!(serde_json::from_str::<Runs>("[]").unwrap().0.is_empty());
        assert!(serde_json::from_str::<Runs>(r#"[{"uri": 1}]"#).is_err());
    }
}
