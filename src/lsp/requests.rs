//! Typed requests whose answers come back as sextant's model values, with
//! positions converted through the document's line index.

use std::time::Duration;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use lsp_types::request::{
    DocumentDiagnosticRequest, DocumentSymbolRequest, WorkspaceSymbolRequest,
};
use lsp_types::{
    DiagnosticSeverity, DocumentDiagnosticParams, DocumentDiagnosticReport,
    DocumentDiagnosticReportResult, DocumentSymbolParams, DocumentSymbolResponse, OneOf,
    PartialResultParams, TextDocumentIdentifier, Url, WorkDoneProgressParams,
    WorkspaceSymbolParams, WorkspaceSymbolResponse,
};

use super::LspError;
use super::client::LspClient;
use super::convert::{Encoding, LineIndex, TsserverLines};
use super::supervisor::Session;
use crate::model::{Diagnostic, OutlineSymbol, Range, Severity, SymbolKind};

/// The document's symbols as a tree nested by range. Flat answers
/// (`SymbolInformation[]`) are nested by range containment, never by
/// container name.
pub async fn document_symbols(session: &Session) -> Result<Vec<OutlineSymbol>, LspError> {
    let params = DocumentSymbolParams {
        text_document: TextDocumentIdentifier {
            uri: session.document.uri.clone(),
        },
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let answer = session
        .client
        .request_settled::<DocumentSymbolRequest>(params)
        .await?;
    let index = &session.document.index;
    let encoding = session.client.encoding;
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
fn name_within(index: &LineIndex, range: Range, name: &str) -> Range {
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
pub async fn workspace_symbols(
    client: &LspClient,
    query: &str,
) -> Result<Vec<SymbolHit>, LspError> {
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
    if client.language.tsserver_requests {
        return tsserver_navto(client, query).await;
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
    let texts = client
        .line_indexes(raw.iter().map(|(uri, ..)| uri.clone()))
        .await;
    let mut hits = Vec::new();
    for (uri, range, name, kind, container) in raw {
        let (Some(Some(index)), Ok(path)) = (texts.get(&uri), uri.to_file_path()) else {
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

/// Pulls diagnostics (`textDocument/diagnostic`), or `None` when the server
/// only publishes them.
pub async fn pull_diagnostics(session: &Session) -> Result<Option<Vec<Diagnostic>>, LspError> {
    if session.client.capabilities.diagnostic_provider.is_none() {
        return Ok(None);
    }
    let params = DocumentDiagnosticParams {
        text_document: TextDocumentIdentifier {
            uri: session.document.uri.clone(),
        },
        identifier: None,
        previous_result_id: None,
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let answer = session
        .client
        .request_settled::<DocumentDiagnosticRequest>(params)
        .await?;
    let items = match answer {
        DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(full)) => {
            full.full_document_diagnostic_report.items
        }
        // We never send a previous result id, so "unchanged" cannot happen.
        _ => Vec::new(),
    };
    Ok(Some(convert_diagnostics(session, items)))
}

/// How long a document's diagnostics must stay unchanged before they count
/// as complete. typescript-language-server publishes tsserver's syntactic,
/// semantic and suggestion diagnostics as each arrives, so its first
/// publication after a change can be an empty, syntax-only one.
const SETTLE: Duration = Duration::from_millis(400);

/// Waits (at most `timeout`) for diagnostics published for this version of
/// the document, settled (no newer publication for `SETTLE`), and returns
/// them; `None` if none came in time.
pub async fn published_diagnostics(
    session: &Session,
    timeout: Duration,
) -> Option<Vec<Diagnostic>> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let now = tokio::time::Instant::now();
        if let Some((items, at)) = fresh_published(session) {
            let quiet_since = at.elapsed();
            if quiet_since >= SETTLE || now >= deadline {
                return Some(convert_diagnostics(session, items));
            }
            // Wait out the rest of the quiet spell; a newer publication
            // starts it again.
            session
                .client
                .changed_before(now + (SETTLE - quiet_since))
                .await;
            continue;
        }
        if now >= deadline || !session.client.is_alive() {
            return None;
        }
        session
            .client
            .wait_until(deadline, || fresh_published(session).is_some())
            .await;
    }
}

/// The last publication for the document, and when it arrived, if it
/// describes the version the server has (same version, or published after
/// that version was sent).
pub fn fresh_published(
    session: &Session,
) -> Option<(Vec<lsp_types::Diagnostic>, std::time::Instant)> {
    let state = session.client.shared.state();
    let published = state.diagnostics.get(&session.document.uri)?;
    let fresh = match published.version {
        Some(version) => version == session.document.version,
        None => published.sequence > session.document.sent_at,
    };
    fresh.then(|| (published.items.clone(), published.at))
}

/// The last publication for the document if it came after the text last
/// changed: what a checker that reads the disk (cargo check) says of it.
pub fn checker_published(session: &Session) -> Option<Vec<Diagnostic>> {
    let items = {
        let state = session.client.shared.state();
        let published = state.diagnostics.get(&session.document.uri)?;
        (published.sequence > session.document.changed_at).then(|| published.items.clone())?
    };
    Some(convert_diagnostics(session, items))
}

fn convert_diagnostics(session: &Session, items: Vec<lsp_types::Diagnostic>) -> Vec<Diagnostic> {
    let index = &session.document.index;
    let encoding = session.client.encoding;
    items
        .into_iter()
        .map(|d| Diagnostic {
            severity: match d.severity {
                Some(DiagnosticSeverity::WARNING) => Severity::Warning,
                Some(DiagnosticSeverity::INFORMATION) => Severity::Information,
                Some(DiagnosticSeverity::HINT) => Severity::Hint,
                _ => Severity::Error,
            },
            position: index.to_model(d.range.start, encoding),
            end: index.to_model(d.range.end, encoding),
            code: d.code.map(|c| match c {
                lsp_types::NumberOrString::Number(n) => n.to_string(),
                lsp_types::NumberOrString::String(s) => s,
            }),
            source: d.source,
            message: d.message,
        })
        .collect()
}

/// tsserver's own diagnostics for the document, asked for synchronously
/// through typescript-language-server's `typescript.tsserverRequest`
/// command: syntactic, semantic and suggestion diagnostics of the text the
/// server has now, complete. (What typescript-language-server publishes
/// arrives in parts, one kind at a time, with no sign of the last one.)
pub async fn tsserver_diagnostics(session: &Session) -> Result<Vec<Diagnostic>, LspError> {
    let file = session.document.path.display().to_string();
    let mut diagnostics = Vec::new();
    let ts_lines = TsserverLines::new(session.document.index.text());
    for command in [
        "syntacticDiagnosticsSync",
        "semanticDiagnosticsSync",
        "suggestionDiagnosticsSync",
    ] {
        let items = tsserver_request(
            &session.client,
            command,
            serde_json::json!({ "file": file }),
        )
        .await?;
        diagnostics.extend(
            items
                .iter()
                .filter_map(|item| tsserver_diagnostic(&session.document.index, &ts_lines, item)),
        );
    }
    Ok(diagnostics)
}

/// A tsserver command through typescript-language-server's
/// `typescript.tsserverRequest`; the items of its answer's `body`.
async fn tsserver_request(
    client: &LspClient,
    command: &str,
    arguments: serde_json::Value,
) -> Result<Vec<serde_json::Value>, LspError> {
    use lsp_types::request::ExecuteCommand;
    let params = lsp_types::ExecuteCommandParams {
        command: "typescript.tsserverRequest".into(),
        arguments: vec![serde_json::json!(command), arguments],
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let answer = client
        .request_settled::<ExecuteCommand>(params)
        .await?
        .unwrap_or_default();
    match answer.get("body").and_then(|b| b.as_array()) {
        Some(items) => Ok(items.clone()),
        None => Err(LspError::Rpc {
            server: client.server().to_string(),
            method: format!("typescript.tsserverRequest {command}"),
            code: 0,
            message: format!("unusable answer: {}", truncate(&answer.to_string(), 200)),
        }),
    }
}

/// tsserver's `navto` with no file: every project it has open (what
/// typescript-language-server's own workspace/symbol does searches only the
/// project of one file).
async fn tsserver_navto(client: &LspClient, query: &str) -> Result<Vec<SymbolHit>, LspError> {
    let items = tsserver_request(
        client,
        "navto",
        serde_json::json!({ "searchValue": query, "maxResultCount": 1000 }),
    )
    .await?;
    let mut lines: HashMap<String, Option<(Arc<LineIndex>, TsserverLines)>> = HashMap::new();
    let mut hits = Vec::new();
    for item in items {
        let (Some(file), Some(name)) = (
            item.get("file").and_then(|f| f.as_str()),
            item.get("name").and_then(|n| n.as_str()),
        ) else {
            continue;
        };
        if !lines.contains_key(file) {
            let index = match Url::from_file_path(file) {
                Ok(uri) => client.line_index(&uri).await,
                Err(()) => None,
            };
            let counted = index.map(|index| {
                let ts = TsserverLines::new(index.text());
                (index, ts)
            });
            lines.insert(file.to_string(), counted);
        }
        let Some((index, ts)) = &lines[file] else {
            continue;
        };
        let position = |key: &str| {
            let at = item.get(key)?;
            Some(ts.to_model(
                index,
                at.get("line")?.as_u64()?,
                at.get("offset")?.as_u64()?,
            ))
        };
        let (Some(start), Some(end)) = (position("start"), position("end")) else {
            continue;
        };
        hits.push(SymbolHit {
            path: PathBuf::from(file),
            name: name.to_string(),
            kind: script_element_kind(item.get("kind").and_then(|k| k.as_str()).unwrap_or("")),
            range: name_within(index, Range::new(start, end), name),
            container: item
                .get("containerName")
                .and_then(|c| c.as_str())
                .filter(|c| !c.is_empty())
                .map(str::to_string),
        });
    }
    Ok(hits)
}

/// tsserver's ScriptElementKind as the kind typescript-language-server
/// would report.
fn script_element_kind(kind: &str) -> SymbolKind {
    match kind {
        "class" | "local class" => SymbolKind::Class,
        "interface" => SymbolKind::Interface,
        "enum" => SymbolKind::Enum,
        "enum member" | "const" => SymbolKind::Constant,
        "module" => SymbolKind::Module,
        "function" | "local function" => SymbolKind::Function,
        "method" | "getter" | "setter" | "call" | "index" | "construct" => SymbolKind::Method,
        "property" => SymbolKind::Property,
        "constructor" => SymbolKind::Constructor,
        "type parameter" => SymbolKind::TypeParameter,
        _ => SymbolKind::Variable,
    }
}

/// One tsserver diagnostic: `start`/`end` are 1-based lines (TypeScript's)
/// and 1-based UTF-16 offsets, whatever encoding the LSP connection uses.
fn tsserver_diagnostic(
    index: &LineIndex,
    ts_lines: &TsserverLines,
    item: &serde_json::Value,
) -> Option<Diagnostic> {
    let position = |key: &str| {
        let at = item.get(key)?;
        let line = at.get("line")?.as_u64()?;
        let offset = at.get("offset")?.as_u64()?;
        Some(ts_lines.to_model(index, line, offset))
    };
    let severity = match item.get("category").and_then(|c| c.as_str()) {
        Some("warning") => Severity::Warning,
        Some("suggestion") => Severity::Hint,
        Some("message") => Severity::Information,
        _ => Severity::Error,
    };
    Some(Diagnostic {
        severity,
        position: position("start")?,
        end: position("end")?,
        code: item
            .get("code")
            .map(|c| c.to_string().trim_matches('"').to_string()),
        source: Some("typescript".into()),
        message: item.get("text")?.as_str()?.to_string(),
    })
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Position;

    #[test]
    fn a_tsserver_diagnostic_lands_where_typescript_counted() {
        // A U+2028 inside a comment: TypeScript's line 3 is sextant's 2.
        let text = "// a\u{2028}b\nconst 名前 = x;\n";
        let index = LineIndex::new(text);
        let item = serde_json::json!({
            "start": {"line": 3, "offset": 7},
            "end": {"line": 3, "offset": 9},
            "text": "Cannot find name 'x'.",
            "code": 2304,
            "category": "error"
        });
        let diagnostic = tsserver_diagnostic(&index, &TsserverLines::new(text), &item).unwrap();
        assert_eq!(diagnostic.position, Position::new(2, 7));
        assert_eq!(diagnostic.end, Position::new(2, 9));
        assert_eq!(diagnostic.code.as_deref(), Some("2304"));
    }
}
