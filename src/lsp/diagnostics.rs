//! A document's diagnostics, fresh for the text the server has: pulled
//! (`textDocument/diagnostic`) where the server can, else the ones it
//! publishes for this version; and, for a server that checks on save, its
//! checker's results added once the check has run (`quirks::check_on_save`).
//! typescript-language-server's come from tsserver itself
//! (`quirks::tsserver`): what it publishes arrives in parts.

use std::time::Duration;

use lsp_types::request::DocumentDiagnosticRequest;
use lsp_types::{
    DiagnosticSeverity, DocumentDiagnosticParams, DocumentDiagnosticReport,
    DocumentDiagnosticReportResult, PartialResultParams, TextDocumentIdentifier,
    WorkDoneProgressParams,
};

use std::path::Path;

use super::LspError;
use super::Supervisor;
use super::capabilities::Feature;
use super::convert::{Encoding, LineIndex};
use super::quirks::{check_on_save, tsserver};
use super::session::Session;
use crate::model::{Diagnostic, Severity};

/// How long a document's diagnostics must stay unchanged before they count
/// as complete. typescript-language-server publishes tsserver's syntactic,
/// semantic and suggestion diagnostics as each arrives, so its first
/// publication after a change can be an empty, syntax-only one.
const SETTLE: Duration = Duration::from_millis(400);

/// A document's diagnostics and what to say about them.
#[derive(Debug, Clone, Default)]
pub struct Diagnosed {
    pub diagnostics: Vec<Diagnostic>,
    /// Why they may be incomplete (still indexing, a check still running,
    /// nothing published in time).
    pub notes: Vec<String>,
    /// A check asked for (`check`) had not ended by the end of its wait:
    /// the checker's findings are not in.
    pub check_pending: bool,
    /// The server published nothing for this version of the document
    /// within the wait: the empty list is no answer.
    pub unpublished: bool,
}

/// The session document's diagnostics. A server that only publishes them
/// is waited for at most `wait` (its request timeout without one); with
/// `check`, a server that checks on save checks first (once for the whole
/// project, see `quirks::check_on_save`), and its results are included.
pub async fn diagnose(
    session: &Session,
    wait: Option<Duration>,
    check: bool,
) -> Result<Diagnosed, LspError> {
    diagnose_with(session, wait, check, 0).await
}

/// Where the server's publications stand now: what a later
/// [`diagnose_since`] counts from.
pub fn publication_mark(session: &Session) -> u64 {
    session.client().shared.state().publish_count
}

/// [`diagnose`] (without a check) of a document whose server may have
/// news of it since `mark` though its text did not change (a header it
/// includes, a module it imports, was written): a server that only
/// publishes is waited for a publication after the mark, since the one
/// before it, for the same version, says nothing of the change.
pub async fn diagnose_since(
    session: &Session,
    wait: Option<Duration>,
    mark: u64,
) -> Result<Diagnosed, LspError> {
    diagnose_with(session, wait, false, mark).await
}

async fn diagnose_with(
    session: &Session,
    wait: Option<Duration>,
    check: bool,
    mark: u64,
) -> Result<Diagnosed, LspError> {
    let client = session.client();
    let wait = wait.unwrap_or(client.language.request_timeout);
    let server = client.server().to_string();
    let mut notes = Vec::new();
    if !session.index_complete() {
        notes.push(format!(
            "{server} was still indexing; diagnostics may be incomplete"
        ));
    }
    if client.language.tsserver_requests {
        let diagnostics = tsserver::diagnostics(client, session.document()).await?;
        return Ok(Diagnosed {
            diagnostics,
            notes,
            check_pending: false,
            unpublished: false,
        });
    }
    let pulled = pull(session).await?;
    let mut unpublished = false;
    let mut diagnostics = match &pulled {
        Some(pulled) => pulled.clone(),
        None => match published(session, wait, mark).await {
            Some(published) => published,
            // Nothing came because the server died: that is no clean bill.
            None if !client.is_alive() => {
                let exit = client.wait_exit(Duration::from_secs(1)).await;
                return Err(LspError::Crashed {
                    server,
                    detail: exit
                        .map(|e| e.description)
                        .unwrap_or_else(|| "the connection closed".into()),
                });
            }
            None => {
                notes.push(format!(
                    "{server} published no diagnostics for {} within {} s",
                    session.shown(),
                    wait.as_secs()
                ));
                unpublished = true;
                Vec::new()
            }
        },
    };
    // A server that checks on save publishes the checker's results later,
    // beside (or merged into) its own.
    let mut check_pending = false;
    if check && let Some(note) = check_on_save::check(client, session.document()).await? {
        check_pending = true;
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    if client.language.checks_on_save
        && let Some(checked) = checker_published(session)
    {
        let checked = one_per_finding(checked);
        match pulled {
            // Pulled diagnostics are the server's own; published ones are
            // the checker's. Both often find the same error (E0583 from
            // rust-analyzer and from rustc): the checker's, the compiler's
            // word, is kept.
            Some(_) => {
                diagnostics.retain(|own| !checked.iter().any(|c| same_finding(c, own)));
                diagnostics.extend(checked);
            }
            // One publication holds both.
            None => diagnostics = checked,
        }
    }
    Ok(Diagnosed {
        diagnostics,
        notes,
        check_pending,
        unpublished,
    })
}

/// What the running servers published for `path`, a file no language
/// serves (a project's `tsconfig.json`): no request can be made about it,
/// so their publications are all there is (empty when none published).
pub async fn published_for(supervisor: &Supervisor, path: &Path) -> Vec<Diagnostic> {
    let Ok(uri) = lsp_types::Url::from_file_path(path) else {
        return Vec::new();
    };
    let mut diagnostics = Vec::new();
    for client in supervisor.clients() {
        let items = match client.shared.state().diagnostics.get(&uri) {
            Some(published) if !published.items.is_empty() => published.items.clone(),
            _ => continue,
        };
        if let Some(index) = client.line_index(&uri).await {
            diagnostics.extend(convert_with(&index, client.encoding, items));
        }
    }
    diagnostics
}

/// Whether `diagnostic` is the checker's (cargo check's: `rustc`,
/// `clippy`) rather than the server's own, for a server that checks on
/// save: its own carry the server's name as their source.
pub fn from_checker(session: &Session, diagnostic: &Diagnostic) -> bool {
    session.client().language.checks_on_save
        && diagnostic.source.as_deref() != Some(session.server())
}

/// The checker's findings, each once: rustc reports a file's warning for
/// every target it compiles the file for (a library and its tests), the
/// second time with or without a note the first had, where cargo prints it
/// once. Of two, the one that says more is kept.
fn one_per_finding(checked: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut kept: Vec<Diagnostic> = Vec::with_capacity(checked.len());
    for finding in checked {
        match kept
            .iter_mut()
            .find(|k| k.severity == finding.severity && same_finding(k, &finding))
        {
            Some(known) if finding.message.len() > known.message.len() => *known = finding,
            Some(_) => {}
            None => kept.push(finding),
        }
    }
    kept
}

/// Two reports of one error: the same code at the same place.
fn same_finding(a: &Diagnostic, b: &Diagnostic) -> bool {
    a.code.is_some() && a.code == b.code && a.position == b.position
}

/// Pulls diagnostics (`textDocument/diagnostic`), or `None` when the server
/// only publishes them.
pub async fn pull(session: &Session) -> Result<Option<Vec<Diagnostic>>, LspError> {
    Ok(pull_raw(session)
        .await?
        .map(|items| convert(session, items)))
}

/// The document's diagnostics as LSP has them, fresh for the text the
/// server has: pulled or published as the server gave them (with their
/// `data`), else (typescript-language-server's, asked of tsserver) made
/// back into LSP's form. What a server computes quick fixes from.
pub(super) async fn lsp_items(session: &Session) -> Result<Vec<lsp_types::Diagnostic>, LspError> {
    if let Some(items) = pull_raw(session).await? {
        return Ok(items);
    }
    let diagnosed = diagnose(session, None, false).await?;
    if !session.client().language.tsserver_requests
        && let Some((items, _)) = fresh_published(session)
    {
        return Ok(items);
    }
    let (index, encoding) = (&session.document().index, session.client().encoding);
    Ok(diagnosed
        .diagnostics
        .into_iter()
        .filter_map(|d| {
            let range = lsp_types::Range {
                start: index.to_lsp(d.position, encoding)?,
                end: index.to_lsp(d.end, encoding)?,
            };
            Some(lsp_types::Diagnostic {
                range,
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                    Severity::Information => DiagnosticSeverity::INFORMATION,
                    Severity::Hint => DiagnosticSeverity::HINT,
                }),
                code: d.code.map(|code| match code.parse::<i32>() {
                    Ok(number) => lsp_types::NumberOrString::Number(number),
                    Err(_) => lsp_types::NumberOrString::String(code),
                }),
                source: d.source,
                message: d.message,
                ..lsp_types::Diagnostic::default()
            })
        })
        .collect())
}

/// [`pull`]'s items as the server gave them.
pub(super) async fn pull_raw(
    session: &Session,
) -> Result<Option<Vec<lsp_types::Diagnostic>>, LspError> {
    let client = session.client();
    if !client.supports(Feature::PullDiagnostics) {
        return Ok(None);
    }
    let params = DocumentDiagnosticParams {
        text_document: TextDocumentIdentifier {
            uri: session.document().uri.clone(),
        },
        identifier: None,
        previous_result_id: None,
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let answer = client
        .request_settled::<DocumentDiagnosticRequest>(params)
        .await?;
    let items = match answer {
        DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(full)) => {
            full.full_document_diagnostic_report.items
        }
        // We never send a previous result id, so "unchanged" cannot happen.
        _ => Vec::new(),
    };
    Ok(Some(items))
}

/// Waits (at most `timeout`) for diagnostics published for this version of
/// the document after `mark`, settled (no newer publication for `SETTLE`),
/// and returns them; `None` if none came in time.
async fn published(session: &Session, timeout: Duration, mark: u64) -> Option<Vec<Diagnostic>> {
    let client = session.client();
    let deadline = tokio::time::Instant::now() + timeout;
    let fresh = || fresh_published(session).filter(|_| published_after(session, mark));
    loop {
        let now = tokio::time::Instant::now();
        if let Some((items, at)) = fresh() {
            let quiet_since = at.elapsed();
            if quiet_since >= SETTLE || now >= deadline {
                return Some(convert(session, items));
            }
            // Wait out the rest of the quiet spell; a newer publication
            // starts it again.
            client.changed_before(now + (SETTLE - quiet_since)).await;
            continue;
        }
        if now >= deadline || !client.is_alive() {
            return None;
        }
        client.wait_until(deadline, || fresh().is_some()).await;
    }
}

/// Whether the document's last publication came after `mark`.
fn published_after(session: &Session, mark: u64) -> bool {
    let state = session.client().shared.state();
    state
        .diagnostics
        .get(&session.document().uri)
        .is_some_and(|published| published.sequence > mark)
}

/// The last publication for the document, and when it arrived, if it
/// describes the version the server has (same version, or published after
/// that version was sent).
pub(super) fn fresh_published(
    session: &Session,
) -> Option<(Vec<lsp_types::Diagnostic>, std::time::Instant)> {
    let document = session.document();
    let state = session.client().shared.state();
    let published = state.diagnostics.get(&document.uri)?;
    let fresh = match published.version {
        Some(version) => version == document.version,
        None => published.sequence > document.sent_at,
    };
    fresh.then(|| (published.items.clone(), published.at))
}

/// The last publication for the document if it came after the text last
/// changed: what a checker that reads the disk (cargo check) says of it.
fn checker_published(session: &Session) -> Option<Vec<Diagnostic>> {
    let document = session.document();
    let items = {
        let state = session.client().shared.state();
        let published = state.diagnostics.get(&document.uri)?;
        (published.sequence > document.changed_at).then(|| published.items.clone())?
    };
    Some(convert(session, items))
}

pub(super) fn convert(session: &Session, items: Vec<lsp_types::Diagnostic>) -> Vec<Diagnostic> {
    convert_with(&session.document().index, session.client().encoding, items)
}

fn convert_with(
    index: &LineIndex,
    encoding: Encoding,
    items: Vec<lsp_types::Diagnostic>,
) -> Vec<Diagnostic> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Position;

    fn finding(severity: Severity, line: u32, code: &str, message: &str) -> Diagnostic {
        Diagnostic {
            severity,
            position: Position::new(line, 13),
            end: Position::new(line, 19),
            code: Some(code.to_string()),
            source: Some("rustc".to_string()),
            message: message.to_string(),
        }
    }

    #[test]
    fn a_finding_reported_for_two_targets_is_kept_once_with_its_note() {
        let abi = "`extern` declarations without an explicit ABI are deprecated";
        let noted = format!("{abi}\n`#[warn(missing_abi)]` on by default");
        let kept = one_per_finding(vec![
            finding(Severity::Warning, 7, "missing_abi", abi),
            finding(Severity::Warning, 7, "missing_abi", &noted),
            finding(Severity::Warning, 9, "missing_abi", abi),
            finding(Severity::Error, 7, "missing_abi", abi),
        ]);
        let messages: Vec<(u32, Severity, &str)> = kept
            .iter()
            .map(|d| (d.position.line, d.severity, d.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                (7, Severity::Warning, noted.as_str()),
                (9, Severity::Warning, abi),
                (7, Severity::Error, abi)
            ]
        );
    }
}
