//! typescript-language-server (`tsserver_requests`): tsserver behind an LSP
//! front that loses some of what tsserver knows, so sextant asks tsserver
//! itself through the server's `typescript.tsserverRequest` command, and
//! waits for the one sign it gives that a project has loaded.
//!
//! - Diagnostics: what it publishes arrives in parts, one kind at a time,
//!   with no sign of the last one; tsserver's synchronous syntactic,
//!   semantic and suggestion diagnostics are complete.
//! - Workspace symbols: its `workspace/symbol` searches one project only;
//!   tsserver's `navto` with no file searches every project it has open.
//! - Project loading: it hands a new document to tsserver in a later batch
//!   and loads the document's project a while after that, answering
//!   meanwhile from the document alone (references in one file, no
//!   completions), with no progress to wait for. Its diagnostics published
//!   for a document are the sign the document is in a loaded project.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use lsp_types::request::ExecuteCommand;
use lsp_types::{Url, WorkDoneProgressParams};

use super::super::LspError;
use super::super::client::LspClient;
use super::super::convert::{LineIndex, TsserverLines};
use super::super::documents::Document;
use super::super::symbols::{SymbolHit, name_within};
use crate::model::{Diagnostic, Range, Severity, SymbolKind};

/// Whether `client` runs typescript-language-server's quirks.
pub(in crate::lsp) fn applies(client: &LspClient) -> bool {
    client.language.tsserver_requests
}

/// Whether the server has published diagnostics for `uri` since the
/// publish count was `sent_at`: the sign the document's project is loaded.
pub(in crate::lsp) fn published_since(client: &LspClient, uri: &Url, sent_at: u64) -> bool {
    client
        .shared
        .state()
        .diagnostics
        .get(uri)
        .is_some_and(|published| published.sequence > sent_at)
}

/// tsserver's own diagnostics for the document, asked for synchronously:
/// syntactic, semantic and suggestion diagnostics of the text the server
/// has now, complete.
pub(in crate::lsp) async fn diagnostics(
    client: &LspClient,
    document: &Document,
) -> Result<Vec<Diagnostic>, LspError> {
    let file = document.path.display().to_string();
    let mut diagnostics = Vec::new();
    let ts_lines = TsserverLines::new(document.index.text());
    for command in [
        "syntacticDiagnosticsSync",
        "semanticDiagnosticsSync",
        "suggestionDiagnosticsSync",
    ] {
        let items = request(client, command, serde_json::json!({ "file": file })).await?;
        diagnostics.extend(
            items
                .iter()
                .filter_map(|item| diagnostic(&document.index, &ts_lines, item)),
        );
    }
    Ok(diagnostics)
}

/// A tsserver command through typescript-language-server's
/// `typescript.tsserverRequest`; the items of its answer's `body`.
async fn request(
    client: &LspClient,
    command: &str,
    arguments: serde_json::Value,
) -> Result<Vec<serde_json::Value>, LspError> {
    let answer = tsserver_command(client, command, arguments).await?;
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

/// A tsserver command through typescript-language-server's
/// `typescript.tsserverRequest`: tsserver's whole answer.
pub(in crate::lsp) async fn tsserver_command(
    client: &LspClient,
    command: &str,
    arguments: serde_json::Value,
) -> Result<serde_json::Value, LspError> {
    let params = lsp_types::ExecuteCommandParams {
        command: "typescript.tsserverRequest".into(),
        arguments: vec![serde_json::json!(command), arguments],
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    Ok(client
        .request_settled::<ExecuteCommand>(params)
        .await?
        .unwrap_or_default())
}

/// tsserver's `navto` with no file: every project it has open (what
/// typescript-language-server's own workspace/symbol does searches only the
/// project of one file).
pub(in crate::lsp) async fn navto(
    client: &LspClient,
    query: &str,
) -> Result<Vec<SymbolHit>, LspError> {
    let items = request(
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
        "type" => SymbolKind::TypeAlias,
        _ => SymbolKind::Variable,
    }
}

/// One tsserver diagnostic: `start`/`end` are 1-based lines (TypeScript's)
/// and 1-based UTF-16 offsets, whatever encoding the LSP connection uses.
fn diagnostic(
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
        let diagnostic = diagnostic(&index, &TsserverLines::new(text), &item).unwrap();
        assert_eq!(diagnostic.position, Position::new(2, 7));
        assert_eq!(diagnostic.end, Position::new(2, 9));
        assert_eq!(diagnostic.code.as_deref(), Some("2304"));
    }
}
