//! Completion at a position: the items best first (by `sortText`), their
//! details filled in with `completionItem/resolve` where the server leaves
//! them out of the list (TypeScript 7's server does), within a bound.

use std::time::Duration;

use futures::StreamExt;
use lsp_types::request::{Completion, ResolveCompletionItem};
use lsp_types::{
    CompletionItem, CompletionParams, CompletionResponse, Documentation, PartialResultParams,
    WorkDoneProgressParams,
};

use super::LspError;
use super::capabilities::Feature;
use super::client::LspClient;
use super::navigate::at;
use super::quirks::member_completion;
use super::session::Session;
use crate::model::{CompletionKind, Position};

/// How long resolving the shown items may take in all; items not resolved
/// by then are shown as the list gave them.
const RESOLVE_BOUND: Duration = Duration::from_millis(1500);

/// Resolve requests in flight at once.
const RESOLVING_AT_ONCE: usize = 16;

/// One completion, as plain data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    pub documentation: Option<String>,
    pub sort_text: String,
}

/// The completion list at `position`.
#[derive(Debug, Clone, PartialEq)]
pub struct Completions {
    /// Best first: by `sortText` (the label where there is none), then label.
    pub items: Vec<Candidate>,
    pub incomplete: bool,
    /// Items whose details could not be resolved within the bound, or
    /// whose resolve failed.
    pub unresolved: usize,
    /// Why the first failed resolve failed (a crash, a timeout).
    pub resolve_error: Option<LspError>,
}

/// Asks for completions at `position` and resolves the best `resolve_first`
/// items that lack a detail, concurrently and within [`RESOLVE_BOUND`].
pub async fn completion(
    session: &Session,
    position: Position,
    resolve_first: usize,
) -> Result<Completions, LspError> {
    let client = session.client();
    client.require(Feature::Completion)?;
    let mut params = CompletionParams {
        text_document_position: at(session, position)?,
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
        context: None,
    };
    // Where the server resolves items wrongly in this document, they are
    // asked of a copy in which it does not (see the quirk).
    let scratch = member_completion::open(client, session.document(), position)?;
    if let Some(scratch) = &scratch {
        params.text_document_position.text_document.uri = scratch.uri.clone();
        params.text_document_position.position = scratch.at;
    }
    let completions = complete_and_resolve(client, params, resolve_first).await;
    if let Some(scratch) = scratch {
        scratch.close(client)?;
    }
    completions
}

async fn complete_and_resolve(
    client: &LspClient,
    params: CompletionParams,
    resolve_first: usize,
) -> Result<Completions, LspError> {
    let can_resolve = client.supports(Feature::CompletionResolve);
    let (mut items, incomplete) = match client.request_settled::<Completion>(params).await? {
        None => (Vec::new(), false),
        Some(CompletionResponse::Array(items)) => (items, false),
        Some(CompletionResponse::List(list)) => (list.items, list.is_incomplete),
    };
    // Keys made once per item, not once per comparison (lists run to
    // thousands of items).
    items.sort_by_cached_key(|i| {
        (
            i.sort_text.clone().unwrap_or_else(|| i.label.clone()),
            i.label.clone(),
        )
    });
    let mut unresolved = 0;
    let mut resolve_error = None;
    if can_resolve {
        let wanted: Vec<usize> = (0..items.len().min(resolve_first))
            .filter(|&i| items[i].detail.is_none() || items[i].documentation.is_none())
            .collect();
        let asks: Vec<_> = wanted.iter().map(|&i| (i, items[i].clone())).collect();
        let asks = asks.into_iter().map(|(i, item)| async move {
            let resolved = client
                .transport
                .request::<ResolveCompletionItem>(item, client.language.request_timeout)
                .await;
            (i, resolved)
        });
        let mut stream = futures::stream::iter(asks).buffer_unordered(RESOLVING_AT_ONCE);
        let deadline = tokio::time::Instant::now() + RESOLVE_BOUND;
        let mut done = 0;
        while let Ok(Some((i, resolved))) = tokio::time::timeout_at(deadline, stream.next()).await {
            match resolved {
                Ok(resolved) => {
                    done += 1;
                    let item = &mut items[i];
                    item.detail = resolved.detail.or(item.detail.take());
                    item.documentation = resolved.documentation.or(item.documentation.take());
                }
                Err(err) => {
                    resolve_error.get_or_insert(err);
                }
            }
        }
        unresolved = wanted.len() - done;
    }
    let items = items.into_iter().map(candidate).collect();
    Ok(Completions {
        items,
        incomplete,
        unresolved,
        resolve_error,
    })
}

fn candidate(item: CompletionItem) -> Candidate {
    let kind = item
        .kind
        .and_then(|k| serde_json::to_value(k).ok())
        .and_then(|v| v.as_u64())
        .and_then(|n| CompletionKind::LSP_ORDER.get((n as usize).wrapping_sub(1)))
        .copied()
        .unwrap_or(CompletionKind::Other);
    // The detail, else the label's own detail (`(as Display)`, a
    // signature) where servers put it instead.
    let detail = item.detail.filter(|d| !d.trim().is_empty()).or_else(|| {
        let details = item.label_details.as_ref()?;
        let joined = format!(
            "{}{}",
            details.detail.as_deref().unwrap_or(""),
            details
                .description
                .as_deref()
                .map(|d| format!(" {d}"))
                .unwrap_or_default()
        );
        (!joined.trim().is_empty()).then(|| joined.trim().to_string())
    });
    let documentation = item.documentation.map(|d| match d {
        Documentation::String(text) => text,
        Documentation::MarkupContent(markup) => markup.value,
    });
    Candidate {
        sort_text: item.sort_text.unwrap_or_else(|| item.label.clone()),
        label: item.label,
        kind,
        detail,
        documentation,
    }
}
