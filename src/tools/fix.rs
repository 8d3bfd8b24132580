//! `fix`: the code actions a language server offers at a place (quick
//! fixes for the diagnostics on that line, refactors, the file's organize
//! imports), numbered; `action: N` previews the N-th as a patch, exactly as
//! `rename` does (or writes it with `apply: true`, with its impact). The
//! number names the action listed only while the file is unchanged and the
//! server offers the same list: otherwise nothing is taken.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use super::address::{Address, resolve};
use super::server_edit::{check_writes, deliver, describe_within_budget, files_of};
use crate::context::{Context, FixListed};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::patch::Patch;
use crate::lsp::Need;
use crate::lsp::actions::{Offered, change, offered};
use crate::model::{FixList, OfferedFix, PatchReport, Position, TakenFix};
use crate::stable_hash::stable_hash;

pub struct Fix;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    #[serde(flatten)]
    pub at: Address,
    pub action: Option<usize>,
    pub apply: Option<bool>,
    pub impact: Option<bool>,
}

/// What `fix` answers: the list, or the action taken as a patch.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
pub enum FixAnswer {
    Listed(FixList),
    Taken(Box<PatchReport>),
}

impl Tool for Fix {
    const NAME: &'static str = "fix";
    const DESCRIPTION: &'static str = "Code actions at a place (quick fixes, refactors, organize imports), \
numbered; action: N previews one as a patch.";
    const WRITES: bool = true;
    const PREVIEWS_WHEN_READ_ONLY: bool = true;
    type Params = Params;
    type Output = FixAnswer;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<FixAnswer> {
        fix(&ctx, params).await
    }

    fn render(output: &FixAnswer) -> Vec<String> {
        match output {
            FixAnswer::Listed(list) => crate::render::fix_list(list),
            FixAnswer::Taken(report) => crate::render::patch_report(report),
        }
    }
}

fn cannot(message: impl Into<String>) -> ToolError {
    ToolError::new(ErrorCode::CannotFix, message)
}

async fn fix(ctx: &Context, params: Params) -> ToolResult<FixAnswer> {
    let write = params.apply.unwrap_or(false);
    if write && ctx.read_only {
        return Err(ToolError::new(
            ErrorCode::ReadOnly,
            "sextant runs read-only (--read-only): fix previews, and writes nothing; leave apply out",
        ));
    }
    let resolved = resolve(ctx, &params.at).await?;
    let mut target = resolved.target.clone();
    // A diagnostic's place is taken as given, even off a name (a missing
    // semicolon, a brace): the nearest name is only for a line alone.
    let position = match (params.at.line, params.at.character) {
        (Some(line), Some(character)) => Position::new(line, character),
        _ => target.position,
    };
    let session = ctx.lsp.open(&resolved.path, Need::PROJECT).await?;
    if position != target.position {
        // The header names what stands there, not the nearest name.
        target.name = token_at(session.lines().text(), position);
        target.position = position;
        target.declaration = None;
        target.note = None;
    }
    let actions = offered(&session, position).await?;
    let text_hash = stable_hash(session.lines().text().as_bytes());
    let titles: Vec<String> = actions.iter().map(|a| a.title.clone()).collect();
    let Some(number) = params.action else {
        ctx.fix_lists.keep(FixListed {
            path: resolved.path.clone(),
            position,
            text_hash,
            titles,
        });
        return Ok(FixAnswer::Listed(FixList {
            target,
            server: session.server().to_string(),
            actions: actions.iter().map(shown).collect(),
        }));
    };
    let at = format!("{}:{position}", target.path);
    if let Some(listed) = ctx.fix_lists.shown(&resolved.path, position)
        && (listed.text_hash != text_hash || listed.titles != titles)
    {
        return Err(cannot(format!(
            "the code actions at {at} are not those listed: the file or the server's offer changed since; list them again (leave action out)"
        )));
    }
    if number == 0 || number > actions.len() {
        return Err(cannot(format!(
            "there is no action {number} at {at}: {} offers {}; list them (leave action out)",
            session.server(),
            match actions.len() {
                0 => "none".to_string(),
                1 => "1 (action: 1)".to_string(),
                n => format!("{n} (action: 1 to {n})"),
            }
        )));
    }
    let action = actions.into_iter().nth(number - 1).expect("checked above");
    let title = action.title.clone();
    let rewrites = change(&session, action).await?;
    if rewrites.is_empty() {
        return Err(cannot(format!(
            "`{title}` changes no file; {} may mean an editor's command",
            session.server()
        )));
    }
    let (mut files, edits) = files_of(ctx, rewrites, |shown| {
        cannot(format!(
            "`{title}` would change {shown}, a library file (read-only); nothing was changed"
        ))
    })?;
    check_writes(ctx, &mut files)?;
    let patch = Patch { files };
    let changes = describe_within_budget(&patch);
    if write {
        session.release().await;
    }
    let delivered = deliver(ctx, patch, write, params.impact.unwrap_or(true)).await?;
    Ok(FixAnswer::Taken(Box::new(PatchReport {
        applied: write,
        patch_id: delivered.patch_id,
        replacements: None,
        rename: None,
        changes,
        notes: delivered.notes,
        impact: delivered.impact,
        fix: Some(TakenFix {
            target,
            title,
            edits,
        }),
    })))
}

/// The word (or else the one character) at 1-based `position` of `text`.
fn token_at(text: &str, position: Position) -> String {
    let line = text
        .lines()
        .nth(position.line.saturating_sub(1) as usize)
        .unwrap_or("");
    let chars: Vec<char> = line.chars().collect();
    let at = (position.character.saturating_sub(1) as usize).min(chars.len());
    let word = |c: &char| c.is_alphanumeric() || *c == '_' || *c == '$';
    let end = at + chars[at..].iter().take_while(|c| word(c)).count();
    match (end > at, chars.get(at)) {
        (true, _) => chars[at..end].iter().collect(),
        (false, Some(c)) => c.to_string(),
        (false, None) => String::new(),
    }
}

/// An action as listed: its kind in words and what it fixes.
fn shown(action: &Offered) -> OfferedFix {
    let kind = match action.kind.as_deref() {
        None => "command",
        Some("quickfix") => "quick fix",
        Some(kind) if kind.starts_with("source.organizeImports") => "organize imports",
        Some(kind) if kind.starts_with("quickfix") => "quick fix",
        Some(kind) if kind.starts_with("refactor") => "refactor",
        Some(kind) if kind.starts_with("source") => "source action",
        Some(_) => "action",
    };
    OfferedFix {
        title: action.title.clone(),
        kind: kind.to_string(),
        fixes: action
            .fixes
            .iter()
            .map(|(code, message)| match code {
                Some(code) => format!("[{code}] {message}"),
                None => message.clone(),
            })
            .collect(),
        whole_file: action.whole_file,
        preferred: action.preferred,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_at_a_place() {
        let text = "fn a() {\n    match coin {}\n}\n";
        assert_eq!(token_at(text, Position::new(2, 5)), "match");
        assert_eq!(token_at(text, Position::new(2, 16)), "{");
        assert_eq!(token_at(text, Position::new(9, 1)), "");
    }
}
