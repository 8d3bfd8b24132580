//! Symbols: a document's (`textDocument/documentSymbol`, as a tree nested
//! by range whatever shape the server answers in) and the workspace's
//! (`workspace/symbol`, or tsserver's `navto` where typescript-language-
//! server's own search would cover one project), with positions converted
//! through each file's line index.

use std::path::PathBuf;

use lsp_types::request::{DocumentSymbolRequest, WorkspaceSymbolRequest};
use lsp_types::{
    DocumentSymbolParams, DocumentSymbolResponse, OneOf, PartialResultParams,
    TextDocumentIdentifier, Url, WorkDoneProgressParams, WorkspaceSymbolParams,
    WorkspaceSymbolResponse,
};

use super::LspError;
use super::capabilities::Feature;
use super::convert::{Encoding, LineIndex, url_path};
use super::quirks::tsserver;
use super::session::{Server, Session};
use crate::model::{OutlineSymbol, Range, SymbolKind};

/// The document's symbols as a tree nested by range. Flat answers
/// (`SymbolInformation[]`) are nested by range containment, never by
/// container name.
pub async fn document_symbols(session: &Session) -> Result<Vec<OutlineSymbol>, LspError> {
    let client = session.client();
    client.require(Feature::DocumentSymbols)?;
    let params = DocumentSymbolParams {
        text_document: TextDocumentIdentifier {
            uri: session.document().uri.clone(),
        },
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let answer = client
        .request_settled::<DocumentSymbolRequest>(params)
        .await?;
    let index = &session.document().index;
    let encoding = client.encoding;
    let mut symbols = match answer {
        None => Vec::new(),
        Some(DocumentSymbolResponse::Nested(nested)) => nested
            .into_iter()
            .map(|s| convert_nested(s, index, encoding))
            .collect(),
        Some(DocumentSymbolResponse::Flat(flat)) => nest_by_range(
            flat.into_iter()
                .map(|info| {
                    let range = index.range_to_model(info.location.range, encoding);
                    OutlineSymbol {
                        selection_range: name_within(index, range, &info.name),
                        name: info.name,
                        kind: symbol_kind(info.kind),
                        detail: None,
                        range,
                        qualifier: None,
                        children: Vec::new(),
                    }
                })
                .collect(),
        ),
    };
    // typescript-language-server answers sorted by name, not by position.
    sort_by_position(&mut symbols);
    Ok(symbols)
}

/// Where `name` first stands within `range` (a flat symbol gives only its
/// whole range, but sextant shows a symbol where its name starts); the
/// range's start when the name is not in it.
pub(super) fn name_within(index: &LineIndex, range: Range, name: &str) -> Range {
    let (Some(start), Some(end)) = (index.offset_of(range.start), index.offset_of(range.end))
    else {
        return range;
    };
    match index
        .text()
        .get(start..end)
        .and_then(|span| span.find(name))
    {
        Some(found) => Range::new(
            index.byte_to_model(start + found),
            index.byte_to_model(start + found + name.len()),
        ),
        None => range,
    }
}

fn convert_nested(
    symbol: lsp_types::DocumentSymbol,
    index: &LineIndex,
    encoding: Encoding,
) -> OutlineSymbol {
    OutlineSymbol {
        name: symbol.name,
        kind: symbol_kind(symbol.kind),
        detail: symbol.detail.filter(|d| !d.is_empty()),
        range: index.range_to_model(symbol.range, encoding),
        selection_range: index.range_to_model(symbol.selection_range, encoding),
        qualifier: None,
        children: symbol
            .children
            .unwrap_or_default()
            .into_iter()
            .map(|c| convert_nested(c, index, encoding))
            .collect(),
    }
}

fn sort_by_position(symbols: &mut [OutlineSymbol]) {
    symbols.sort_by_key(|s| (s.selection_range.start, s.range.start));
    for symbol in symbols {
        sort_by_position(&mut symbol.children);
    }
}

/// Nests a flat list: each symbol goes under the smallest earlier symbol
/// whose range contains it.
pub fn nest_by_range(mut flat: Vec<OutlineSymbol>) -> Vec<OutlineSymbol> {
    // Outer ranges first: by start, then the longer one first.
    flat.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then(b.range.end.cmp(&a.range.end))
    });
    let mut roots: Vec<OutlineSymbol> = Vec::new();
    for symbol in flat {
        insert_nested(&mut roots, symbol);
    }
    roots
}

fn insert_nested(siblings: &mut Vec<OutlineSymbol>, symbol: OutlineSymbol) {
    if let Some(parent) = siblings.last_mut()
        && parent.range.contains(&symbol.range)
        && parent.range != symbol.range
    {
        insert_nested(&mut parent.children, symbol);
        return;
    }
    siblings.push(symbol);
}

/// A symbol a server found for a workspace search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolHit {
    pub path: PathBuf,
    pub name: String,
    pub kind: SymbolKind,
    /// Where the name stands.
    pub range: Range,
    /// The container the server names (`Registry`), if any.
    pub container: Option<String>,
}

/// `workspace/symbol` for `query`, positions converted through each hit's
/// file (the open document, else the file on disk). Hits without a range
/// (a `WorkspaceSymbol` that would need resolving) are left out.
pub async fn workspace_symbols(server: &Server, query: &str) -> Result<Vec<SymbolHit>, LspError> {
    let client = server.client();
    client.require(Feature::WorkspaceSymbols)?;
    let params = WorkspaceSymbolParams {
        query: query.to_string(),
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let answer = client
        .request_settled::<WorkspaceSymbolRequest>(params)
        .await?;
    // typescript-language-server hands documents to tsserver in batches,
    // which its own requests flush first (as the one above did), and
    // searches only one project: tsserver's navto, asked now, searches them
    // all.
    if tsserver::applies(client) {
        return tsserver::navto(client, query).await;
    }
    let raw: Vec<(
        Url,
        lsp_types::Range,
        String,
        lsp_types::SymbolKind,
        Option<String>,
    )> = match answer {
        None => Vec::new(),
        Some(WorkspaceSymbolResponse::Flat(flat)) => flat
            .into_iter()
            .map(|s| {
                (
                    s.location.uri,
                    s.location.range,
                    s.name,
                    s.kind,
                    s.container_name,
                )
            })
            .collect(),
        Some(WorkspaceSymbolResponse::Nested(nested)) => nested
            .into_iter()
            .filter_map(|s| match s.location {
                OneOf::Left(location) => Some((
                    location.uri,
                    location.range,
                    s.name,
                    s.kind,
                    s.container_name,
                )),
                OneOf::Right(_) => None,
            })
            .collect(),
    };
    let raw: Vec<_> = raw
        .into_iter()
        .filter_map(|(uri, range, name, kind, container)| {
            Some((url_path(&uri)?, range, name, kind, container))
        })
        .collect();
    let texts = client
        .line_indexes(raw.iter().map(|(path, ..)| path.clone()))
        .await;
    let mut hits = Vec::new();
    for (path, range, name, kind, container) in raw {
        let Some(Some(index)) = texts.get(&path) else {
            continue;
        };
        let range = index.range_to_model(range, client.encoding);
        hits.push(SymbolHit {
            path,
            range: name_within(index, range, &name),
            name,
            kind: symbol_kind(kind),
            container: container.filter(|c| !c.is_empty()),
        });
    }
    Ok(hits)
}

/// LSP's numeric kind as sextant's.
pub fn symbol_kind(kind: lsp_types::SymbolKind) -> SymbolKind {
    use crate::model::ALL_KINDS;
    // LSP numbers kinds from 1 in the same order as ALL_KINDS.
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_u64())
        .and_then(|n| ALL_KINDS.get((n as usize).wrapping_sub(1)).copied())
        .unwrap_or(SymbolKind::Variable)
}
