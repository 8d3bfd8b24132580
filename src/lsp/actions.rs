//! Code actions: what a server offers at a place (`textDocument/codeAction`,
//! with the diagnostics on that line as its context, and once more for the
//! whole file's organize imports), and one action's change as each file's
//! text before and after: its WorkspaceEdit, resolved first
//! (`codeAction/resolve`) where the server left it out, and the edits the
//! server asks to apply (`workspace/applyEdit`) while the action's command
//! runs (`workspace/executeCommand`), captured, never written.

use lsp_types::request::{CodeActionRequest, CodeActionResolveRequest, ExecuteCommand};
use lsp_types::{
    CodeActionContext, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    CodeActionTriggerKind, Command, ExecuteCommandParams, PartialResultParams, Range,
    TextDocumentIdentifier, WorkDoneProgressParams,
};

use super::LspError;
use super::capabilities::Feature;
use super::diagnostics::lsp_items;
use super::refactor::{Rewrite, rewrites};
use super::session::Session;
use crate::model::Position;

/// One action a server offers.
#[derive(Debug, Clone)]
pub struct Offered {
    pub title: String,
    /// `quickfix`, `refactor.extract`, `source.organizeImports`, ...
    pub kind: Option<String>,
    /// The diagnostics it fixes: code and message.
    pub fixes: Vec<(Option<String>, String)>,
    /// It is about the whole file (organize imports), not the place.
    pub whole_file: bool,
    /// The server marks it the one to take.
    pub preferred: bool,
    item: CodeActionOrCommand,
}

/// The actions the server offers at `position`: those for the place (with
/// the diagnostics on its line), then the file's organize imports where
/// the server offers it and the first request did not.
pub async fn offered(session: &Session, position: Position) -> Result<Vec<Offered>, LspError> {
    let client = session.client();
    client.require(Feature::CodeActions)?;
    let at = session.position_params(position)?.position;
    let diagnostics: Vec<lsp_types::Diagnostic> = lsp_items(session)
        .await?
        .into_iter()
        .filter(|d| d.range.start.line <= at.line && at.line <= d.range.end.line)
        .collect();
    let ask = |only: Option<Vec<CodeActionKind>>, diagnostics: Vec<lsp_types::Diagnostic>| {
        CodeActionParams {
            text_document: TextDocumentIdentifier {
                uri: session.document().uri.clone(),
            },
            range: Range { start: at, end: at },
            context: CodeActionContext {
                diagnostics,
                only,
                trigger_kind: Some(CodeActionTriggerKind::INVOKED),
            },
            work_done_progress_params: WorkDoneProgressParams::default(),
            partial_result_params: PartialResultParams::default(),
        }
    };
    let here = client
        .request_settled::<CodeActionRequest>(ask(None, diagnostics))
        .await?
        .unwrap_or_default();
    let mut offered: Vec<Offered> = here
        .into_iter()
        .filter_map(|item| offer(item, false))
        .collect();
    let organize = client
        .request_settled::<CodeActionRequest>(ask(
            Some(vec![CodeActionKind::SOURCE_ORGANIZE_IMPORTS]),
            Vec::new(),
        ))
        .await
        .unwrap_or_default()
        .unwrap_or_default();
    for item in organize {
        if let Some(action) = offer(item, true)
            && !offered
                .iter()
                .any(|o| o.title == action.title && o.kind == action.kind)
        {
            offered.push(action);
        }
    }
    Ok(offered)
}

/// An action as offered, unless the server says it cannot be taken here
/// (`disabled`).
fn offer(item: CodeActionOrCommand, whole_file: bool) -> Option<Offered> {
    let (title, kind, fixes, preferred) = match &item {
        CodeActionOrCommand::Command(command) => (command.title.clone(), None, Vec::new(), false),
        CodeActionOrCommand::CodeAction(action) => {
            if action.disabled.is_some() {
                return None;
            }
            let fixes = action
                .diagnostics
                .iter()
                .flatten()
                .map(|d| {
                    let code = d.code.as_ref().map(|c| match c {
                        lsp_types::NumberOrString::Number(n) => n.to_string(),
                        lsp_types::NumberOrString::String(s) => s.clone(),
                    });
                    (code, d.message.lines().next().unwrap_or("").to_string())
                })
                .collect();
            (
                action.title.clone(),
                action.kind.as_ref().map(|k| k.as_str().to_string()),
                fixes,
                action.is_preferred == Some(true),
            )
        }
    };
    Some(Offered {
        title,
        kind,
        fixes,
        whole_file,
        preferred,
        item,
    })
}

/// What taking `action` would change, file by file; nothing is written.
pub async fn change(session: &Session, action: Offered) -> Result<Vec<Rewrite>, LspError> {
    let client = session.client();
    let (edit, command) = match action.item {
        CodeActionOrCommand::Command(command) => (None, Some(command)),
        CodeActionOrCommand::CodeAction(mut action) => {
            if action.edit.is_none() && client.supports(Feature::CodeActionResolve) {
                action = client
                    .request_settled::<CodeActionResolveRequest>(action)
                    .await?;
            }
            let edit = action.edit.take();
            (edit, action.command.take())
        }
    };
    let mut edits: Vec<lsp_types::WorkspaceEdit> = edit.into_iter().collect();
    if let Some(command) = command {
        match run_command(session, command).await? {
            Ran::Edits(captured) => edits.extend(captured),
            // An editor's own command (show references, trigger
            // completion) beside an edit changes no file.
            Ran::NotTheServers(_) if !edits.is_empty() => {}
            Ran::NotTheServers(name) => {
                return Err(LspError::Unsupported {
                    server: client.server().to_string(),
                    what: format!("the command `{name}` this action runs outside an editor"),
                });
            }
        }
    }
    rewrites(client, edits, "code action").await
}

enum Ran {
    /// The edits the server asked to apply while it ran.
    Edits(Vec<lsp_types::WorkspaceEdit>),
    /// The server does not run it (the editor's own): its name.
    NotTheServers(String),
}

/// Runs `command` on the server, capturing the edits it sends back. One
/// command at a time per server: the captured edits are the command's.
async fn run_command(session: &Session, command: Command) -> Result<Ran, LspError> {
    let client = session.client();
    let runs = client
        .capabilities
        .execute_command_provider
        .as_ref()
        .is_some_and(|provider| provider.commands.contains(&command.command));
    if !runs {
        return Ok(Ran::NotTheServers(command.command));
    }
    let _turn = client.commands.lock().await;
    client.shared.state().captured_edits = Some(Vec::new());
    let params = ExecuteCommandParams {
        command: command.command,
        arguments: command.arguments.unwrap_or_default(),
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let ran = client.request_settled::<ExecuteCommand>(params).await;
    let captured = client
        .shared
        .state()
        .captured_edits
        .take()
        .unwrap_or_default();
    // A command that sent its edit and then failed on an editor's nicety
    // (typescript-language-server asks the editor to start renaming what a
    // refactor extracted) has done its part.
    if captured.is_empty() {
        ran?;
    }
    Ok(Ran::Edits(captured))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::CodeAction;

    #[test]
    fn a_disabled_action_is_not_offered_and_a_command_has_no_kind() {
        let disabled = CodeAction {
            title: "Extract".into(),
            disabled: Some(lsp_types::CodeActionDisabled {
                reason: "no selection".into(),
            }),
            ..CodeAction::default()
        };
        assert!(offer(CodeActionOrCommand::CodeAction(disabled), false).is_none());
        let command = Command {
            title: "Organize".into(),
            command: "organize".into(),
            arguments: None,
        };
        let offered = offer(CodeActionOrCommand::Command(command), true).unwrap();
        assert_eq!(
            (offered.title.as_str(), offered.kind, offered.whole_file),
            ("Organize", None, true)
        );
    }
}
