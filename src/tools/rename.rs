//! `rename`: a symbol renamed across the workspace by its language server,
//! previewed as a patch (one diff per file) for `apply_patch`, or written
//! at once with `apply: true`. What cannot be renamed is refused before
//! anything is asked or written: a new name that is no name of the
//! language, an address that is not on a name, a library's symbol, and
//! whatever the server itself refuses.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::task::Poll;

use futures::future::Either;
use schemars::JsonSchema;
use serde::Deserialize;

use super::address::{Address, resolve};
use super::audit::{Counted, Places, RenamedText, RenamedTexts, TextAudit, other_symbols};
use super::locations::place;
use super::server_edit::{check_writes, deliver, describe_within_budget, files_of};
use super::{Tool, blocking};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::patch::{FileEdit, Patch};
use crate::lsp::navigate::{Spot, references as find_references};
use crate::lsp::refactor::{Preparation, Renamed, prepare_rename, rename as server_rename};
use crate::lsp::{LspError, Need, Session};
use crate::model::{PatchReport, Place, Position, Renaming};
use crate::syntax::{Language, is_name_char};

pub struct Rename;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    #[serde(flatten)]
    pub at: Address,
    pub new_name: String,
    pub apply: Option<bool>,
    pub force: Option<bool>,
    pub impact: Option<bool>,
}

impl Tool for Rename {
    const NAME: &'static str = "rename";
    const DESCRIPTION: &'static str =
        "Rename a symbol everywhere: the diffs and `patch: pN` for apply_patch, or apply: true.";
    const WRITES: bool = true;
    const PREVIEWS_WHEN_READ_ONLY: bool = true;
    type Params = Params;
    type Output = PatchReport;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<PatchReport> {
        rename(&ctx, params).await
    }

    fn render(output: &PatchReport) -> Vec<String> {
        crate::render::patch_report(output)
    }
}

fn refuse(message: impl Into<String>) -> ToolError {
    ToolError::new(ErrorCode::CannotRename, message)
}

async fn rename(ctx: &Context, params: Params) -> ToolResult<PatchReport> {
    let new_name = params.new_name.as_str();
    if new_name.trim().is_empty() || new_name.chars().any(char::is_whitespace) {
        return Err(refuse(format!(
            "new_name {new_name:?} is empty or holds whitespace; pass the new name alone"
        )));
    }
    let write = params.apply.unwrap_or(false);
    let force = params.force.unwrap_or(false);
    if write && ctx.read_only {
        return Err(ToolError::new(
            ErrorCode::ReadOnly,
            "sextant runs read-only (--read-only): rename previews, and writes nothing; leave apply out",
        ));
    }
    let resolved = resolve(ctx, &params.at).await?;
    let target = &resolved.target;
    let at = format!("{}:{}", target.path, target.position);
    if resolved.moved {
        // A rename must hit exactly what was asked for.
        return Err(refuse(format!(
            "{}; pass the position of the name to rename itself",
            target
                .note
                .as_deref()
                .unwrap_or("the address is not on a name")
        )));
    }
    if let Some(language) = Language::from_path(&resolved.path)
        && let Some(why) = language.refuse_name(new_name)
    {
        return Err(refuse(format!("{why}; pass a valid name")));
    }
    if place(ctx, &resolved.path) != Place::Workspace {
        return Err(refuse(format!(
            "`{}` at {at} is in a library file (read-only); rename symbols of the workspace",
            target.name
        )));
    }
    if target.name == new_name {
        return Err(ToolError::new(
            ErrorCode::NoChange,
            format!("`{}` already has that name", target.name),
        ));
    }
    let session = ctx.lsp.open(&resolved.path, Need::SEEING).await?;
    // A server reading each file alone renames the uses it sees: a write
    // would leave the other files' uses broken, unseen.
    if let (true, false, Some(why)) = (write, force, session.started_without()) {
        return Err(refuse(format!(
            "nothing was written: {why}. Preview the rename (leave apply out), check it, and apply its patch with apply_patch, or pass force: true"
        )));
    }
    // Uses in projects the server has not loaded would be missed.
    let unloaded = session.unloaded_note("the uses renamed");
    if let (true, Some(note)) = (write, &unloaded) {
        // A rename written from the file alone (or some projects) would
        // leave the other files' uses of the old name broken.
        return Err(ToolError::new(
            ErrorCode::ServerTimeout,
            format!("nothing was written: {note}"),
        ));
    }
    let server = session.server().to_string();
    // The text audit's walk of the workspace for the old name needs
    // nothing from the server: it runs while the server renames, and the
    // walk through the renamed texts after it takes what it found in every
    // other file (kept while each keeps its stamp). Run after the answer,
    // it kept a first rename of a name through the TypeScript SDK 150-480
    // ms past the server's answer. Only that walk waits for it, so no
    // refusal does (a walk already on the blocking pool ends there, and is
    // kept). Polled again once done, it is done at once.
    let audit = TextAudit::for_rename(ctx, &resolved.path);
    let mut walking = std::pin::pin!(futures::future::maybe_done(async {
        if let Some(audit) = &audit {
            // Its errors are the later walk's to report.
            let _ = audit.walk_ahead(ctx, &target.name).await;
        }
    }));
    let renamed = {
        let asking = std::pin::pin!(ask_server(&session, target.position, new_name));
        match futures::future::select(asking, walking.as_mut()).await {
            Either::Left((renamed, _)) => renamed,
            Either::Right(((), asking)) => asking.await,
        }
    };
    let renamed = match renamed? {
        Ok(renamed) => renamed,
        Err(why) => {
            // A server that knows the file's text only refuses everything
            // there: the reason is that, not the symbol.
            let why = session.unlinked_note().await.unwrap_or(why);
            return Err(refuse(format!(
                "{server} will not rename `{}` at {at}: {why}",
                target.name
            )));
        }
    };
    // Every file must be the workspace's own: a rename that would reach
    // into a library is refused whole.
    let (mut files, edits) = files_of(ctx, renamed.rewrites, |shown| {
        refuse(format!(
            "renaming `{}` would change {shown}, a library file (read-only); nothing was changed",
            target.name
        ))
    })?;
    // The diffs and the aliases note need only the texts (shared) and the
    // names shown: made on the blocking pool while the audit reads the
    // workspace and the writes are checked, where they took a millisecond
    // of a preview through 71 files after them.
    let describing = {
        let patch = Patch {
            files: files.clone(),
        };
        let (old, new) = (target.name.clone(), new_name.to_string());
        blocking(move || {
            let changes = describe_within_budget(&patch);
            Ok((changes, aliases_note(&patch, &old, &new)))
        })
    };
    // Where the server cannot always tell a name's uses: the old name left
    // as code once the rename is done, which a write must not leave broken;
    // and left in docs, comments and strings, which it may.
    // The audit reads the renamed texts on the blocking pool while each
    // file's write is checked here (a `stat` of each, 0.7 ms through 71
    // files of the SDK), each text under the path the server named: its
    // first poll starts it (once the walk ahead has ended and the file
    // watcher's changes are in, which may take longer than the check). A
    // check that fails answers at once.
    // Where it finds a file at another path (a server naming it through a
    // symlinked folder, or through the root as given), the audit, reading
    // the workspace by real paths, would take that file from the disk: it
    // is made again with the texts under those. (An audit not waited for
    // still runs to its end on the blocking pool; both cases are rare.)
    let audit_at = |texts| {
        let (audit, name) = (audit.as_ref(), &target.name);
        async move {
            match audit {
                Some(audit) => audit.places(ctx, name, texts).await.map(Some),
                None => Ok(None),
            }
        }
    };
    let texts = renamed_texts(&files, new_name);
    let mut placing = std::pin::pin!(async move {
        walking.await;
        audit_at(texts).await
    });
    let started = futures::poll!(placing.as_mut());
    let places = if check_writes(ctx, &mut files)? {
        audit_at(renamed_texts(&files, new_name)).await?
    } else {
        match started {
            Poll::Ready(places) => places?,
            Poll::Pending => placing.await?,
        }
    };
    let audit_notes = match (&audit, places) {
        (Some(audit), Some(places)) => {
            let asked = Asked {
                session: &session,
                at: target.position,
                references: renamed.references,
            };
            let others = other_symbols_after(ctx, asked, &files, &places).await;
            let places = places.without(&others);
            let counted = Counted::default();
            audit.notes(ctx, &target.name, &places, &counted, "did not rename", true)
        }
        _ => Vec::new(),
    };
    let refusing: Vec<&str> = audit_notes
        .iter()
        .filter(|(kind, _)| kind.blocks())
        .map(|(_, note)| note.as_str())
        .collect();
    if write && !force && !refusing.is_empty() {
        return Err(refuse(format!(
            "nothing was written: {}. Pass force: true to write anyway, or preview the rename (leave apply out) and apply its patch with apply_patch",
            refusing.join("; ")
        )));
    }
    let patch = Patch { files };
    let (changes, aliases) = describing.await?;
    let renaming = Renaming {
        target: target.clone(),
        old: target.name.clone(),
        new: new_name.to_string(),
        edits,
    };
    let mut notes: Vec<String> = unloaded
        .into_iter()
        .chain(audit_notes.into_iter().map(|(_, note)| note))
        .collect();
    notes.extend(aliases);
    if write {
        // The session's document is the renamed file's: the impact's
        // requests open it again, and the session would only hold it.
        session.release().await;
    }
    let delivered = deliver(ctx, patch, write, params.impact.unwrap_or(true)).await?;
    notes.extend(delivered.notes);
    Ok(PatchReport {
        applied: write,
        patch_id: delivered.patch_id,
        replacements: None,
        rename: Some(renaming),
        changes,
        notes,
        impact: delivered.impact,
        fix: None,
    })
}

/// The server's rename at `position`, or why it refuses (its own words,
/// or its prepareRename's no).
async fn ask_server(
    session: &Session,
    position: Position,
    new_name: &str,
) -> Result<Result<Renamed, String>, LspError> {
    // Both asked at once: the rename does not wait on the preparation's
    // answer, which only decides whether it is taken (dropped, its request
    // is cancelled; a server may still finish the work). One after the
    // other, the rename waited a whole round trip (the answer written and
    // read, the next request made and written, each side woken): a
    // preview through 71 files of the TypeScript SDK took 0.9-1.9 ms
    // longer at the client. The rename's `request_timeout` runs from its
    // sending, so on a server that answers in order it includes the
    // preparation's time.
    let preparing = std::pin::pin!(prepare_rename(session, position));
    let mut renaming = std::pin::pin!(server_rename(session, position, new_name));
    // The preparation is polled first, so it is written first.
    let (prepared, renamed) = match futures::future::select(preparing, renaming.as_mut()).await {
        Either::Left((prepared, _)) => (prepared, None),
        Either::Right((renamed, preparing)) => (preparing.await, Some(renamed)),
    };
    match prepared {
        Ok(Preparation::Renames(_)) => {}
        Ok(Preparation::Refuses) => return Ok(Err("it is not a symbol it can rename".into())),
        Err(LspError::Rpc { message, .. }) => return Ok(Err(message)),
        Err(err) => return Err(err),
    }
    let renamed = match renamed {
        Some(renamed) => renamed,
        None => renaming.await,
    };
    match renamed {
        Ok(renamed) if renamed.rewrites.is_empty() => Ok(Err("it gave no edits".to_string())),
        Ok(renamed) => Ok(Ok(renamed)),
        Err(LspError::Rpc { message, .. }) => Ok(Err(message)),
        Err(err) => Err(err),
    }
}

/// The renamed texts by path, as the audit reads them.
fn renamed_texts(files: &[FileEdit], new_name: &str) -> RenamedTexts {
    let files = files.iter().map(|f| {
        let text = RenamedText {
            before: f.before.clone(),
            after: f.after.clone().unwrap_or_default(),
        };
        (f.path.clone(), text)
    });
    RenamedTexts {
        new_name: new_name.to_string(),
        files: files.collect(),
    }
}

/// Lines at most named in the aliases note.
const ALIASES_SHOWN: usize = 5;

/// Where the rename kept the old name as an alias (`newName as oldName`, or
/// the reverse), lines it added: what still goes by the old name there.
fn aliases_note(patch: &Patch, old: &str, new: &str) -> Option<String> {
    let forms = [format!("{new} as {old}"), format!("{old} as {new}")];
    let holds = |line: &str, form: &str| {
        line.match_indices(form).any(|(at, _)| {
            !line[..at].chars().next_back().is_some_and(is_name_char)
                && !line[at + form.len()..]
                    .chars()
                    .next()
                    .is_some_and(is_name_char)
        })
    };
    // Most files hold neither form: one search of the whole text each
    // spares a search of every line (tens of thousands in a rename), and
    // memchr's finders, made once, search a text several times faster
    // than `str::contains` (3% of a preview's CPU through 71 files).
    let finders = forms
        .each_ref()
        .map(|form| memchr::memmem::Finder::new(form.as_bytes()));
    let mut found = Vec::new();
    for file in &patch.files {
        let (Some(before), Some(after)) = (&file.before, &file.after) else {
            continue;
        };
        // A text made by replacements that keep its lines in place: only
        // the lines they change can have gained an alias.
        if let Some(lines) = after.edited_on(before).and_then(|e| e.changed_lines()) {
            for changed in lines {
                // Each with its line end, which is no name character.
                let (old, new) = (&before[changed.bytes.clone()], changed.new.as_str());
                if forms
                    .iter()
                    .any(|form| holds(new, form) && !holds(old, form))
                {
                    found.push(format!(
                        "{}:{} `{}`",
                        file.shown,
                        changed.line + 1,
                        new.trim()
                    ));
                }
            }
            continue;
        }
        let after = after.as_str();
        if !finders
            .iter()
            .any(|finder| finder.find(after.as_bytes()).is_some())
        {
            continue;
        }
        let before_lines: Vec<&str> = before.lines().collect();
        for (index, line) in after.lines().enumerate() {
            let added = forms.iter().any(|form| {
                holds(line, form) && !before_lines.get(index).is_some_and(|b| holds(b, form))
            });
            if added {
                found.push(format!("{}:{} `{}`", file.shown, index + 1, line.trim()));
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let count = found.len();
    found.truncate(ALIASES_SHOWN);
    if count > ALIASES_SHOWN {
        found.push(format!("and {} more", count - ALIASES_SHOWN));
    }
    Some(format!(
        "the server kept the old name as an alias in {} ({}): what uses it through there still says `{old}`",
        crate::render::count(count, "place", "places"),
        found.join(", ")
    ))
}

/// Where a place at `at` in `after` (a file with a rename's edits) was in
/// `before`: a rename changes no line count, and on a changed line a place
/// before the first change or after the last keeps its distance from that
/// end. `None` for a place between two changes of one line.
fn position_before(before: &str, after: &str, at: Position) -> Option<Position> {
    let index = usize::try_from(at.line).ok()?.checked_sub(1)?;
    let old: Vec<char> = before.lines().nth(index)?.chars().collect();
    let new: Vec<char> = after.lines().nth(index)?.chars().collect();
    let column = usize::try_from(at.character).ok()?.checked_sub(1)?;
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    if column < prefix || old == new {
        return Some(at);
    }
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(old.len().min(new.len()) - prefix);
    (column >= new.len() - suffix).then(|| Position {
        line: at.line,
        character: u32::try_from(column + old.len() - new.len() + 1).unwrap_or(at.character),
    })
}

/// The symbol renamed, as the server was asked about it: its session,
/// its position, and its references where the rename asked for them.
struct Asked<'a> {
    session: &'a Session,
    at: Position,
    references: Option<Vec<Spot>>,
}

/// Of the places the old name is left as code after the rename
/// (`places`, in the renamed texts of `files`), those the server knows as
/// another symbol of that name: each is asked about where it is on disk,
/// then named where it is after the rename.
async fn other_symbols_after(
    ctx: &Context,
    asked: Asked<'_>,
    files: &[FileEdit],
    places: &Places,
) -> HashSet<(PathBuf, Position)> {
    let on_disk: Vec<((PathBuf, Position), (PathBuf, Position))> = places
        .code_left_out(&Counted::default())
        .into_iter()
        .filter_map(|(path, at)| {
            let before = match files.iter().find(|f| f.path == path) {
                None => Some(at),
                Some(file) => match (&file.before, &file.after) {
                    (Some(before), Some(after)) => position_before(before, after.as_str(), at),
                    _ => None,
                },
            };
            before.map(|before| ((path.clone(), before), (path, at)))
        })
        .collect();
    if on_disk.is_empty() {
        return HashSet::new();
    }
    let candidates: Vec<(PathBuf, Position)> =
        on_disk.iter().map(|(before, _)| before.clone()).collect();
    let references = match asked.references {
        Some(references) => references,
        None => find_references(asked.session, asked.at, true)
            .await
            .unwrap_or_default(),
    };
    let uses = Counted::new(
        references
            .iter()
            .map(|spot| (&*spot.path, spot.range.start)),
    );
    let others = other_symbols(ctx, &candidates, &uses).await;
    on_disk
        .into_iter()
        .filter(|(before, _)| others.contains(before))
        .map(|(_, after)| after)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn an_alias_the_rename_added_is_named() {
        use crate::fs::new_text::{NewText, Replaced};
        let file = |before: &str, after: &str| FileEdit {
            path: PathBuf::from("/w/src/index.ts"),
            shown: "src/index.ts".into(),
            before: Some(before.into()),
            after: Some(after.into()),
        };
        let patch = Patch {
            files: vec![file(
                "import { a } from './a';\nexport { greet } from './g';\n",
                "import { a } from './a';\nexport { salute as greet } from './g';\n",
            )],
        };
        assert_eq!(
            aliases_note(&patch, "greet", "salute").as_deref(),
            Some(
                "the server kept the old name as an alias in 1 place (src/index.ts:2 `export { salute as greet } from './g';`): what uses it through there still says `greet`"
            )
        );
        // One that was there before is not the rename's.
        let patch = Patch {
            files: vec![file(
                "export { salute as greet };\n",
                "export { salute as greet };\n",
            )],
        };
        assert_eq!(aliases_note(&patch, "greet", "salute"), None);
        // Replacements that keep the lines in place are read only where
        // they change a line: the same aliases, on the same lines.
        let replaced = |before: &str, edits: &[(&str, &str)]| {
            let after = crate::fs::new_text::tests::replacing(before, edits);
            FileEdit {
                before: Some(Arc::clone(&after.edited().unwrap().base)),
                after: Some(after),
                ..file("", "")
            }
        };
        let before =
            "export { greet as hello };\nimport { greet } from './g';\nexport { greet };\n";
        let edits = [
            ("greet", "salute"),
            ("{ greet }", "{ salute as greet }"),
            ("{ greet }", "{ salute as greet }"),
        ];
        let patch = Patch {
            files: vec![replaced(before, &edits)],
        };
        let note = aliases_note(&patch, "greet", "salute");
        assert!(note.as_deref().is_some_and(|n| n.contains("in 2 places (src/index.ts:2 `import { salute as greet } from './g';`, src/index.ts:3 `export { salute as greet };`)")), "{note:?}");
        assert!(!patch.files[0].after.as_ref().unwrap().made_whole());
        let whole = Patch {
            files: vec![file(
                before,
                patch.files[0].after.as_ref().unwrap().as_str(),
            )],
        };
        assert_eq!(note, aliases_note(&whole, "greet", "salute"));
        // An alias completed by text put at the end of a last line
        // without a line end.
        let unended: Arc<str> = Arc::from("x = greet");
        let completed = NewText::from_replacements(
            Arc::clone(&unended),
            Arc::default(),
            vec![
                Replaced {
                    bytes: 4..9,
                    line: 0,
                    with: "salute".into(),
                },
                Replaced {
                    bytes: 9..9,
                    line: 0,
                    with: " as greet".into(),
                },
            ],
        );
        let patch = Patch {
            files: vec![FileEdit {
                before: Some(unended),
                after: Some(completed),
                ..file("", "")
            }],
        };
        let note = aliases_note(&patch, "greet", "salute");
        assert!(
            note.as_deref()
                .is_some_and(|n| n.contains("(src/index.ts:1 `x = salute as greet`)")),
            "{note:?}"
        );
        let unchanged = Patch {
            files: vec![replaced(
                "export { salute as greet };\n",
                &[("salute", "salute")],
            )],
        };
        assert_eq!(aliases_note(&unchanged, "greet", "salute"), None);
    }

    #[test]
    fn places_left_by_a_rename_map_back_to_the_disk() {
        let before = "a\nvar send = x.send; send();\n";
        let after = "a\nvar send = x.deliver; send();\n";
        // Before the change, after it, and on an unchanged line.
        assert_eq!(position_before(before, after, at(2, 5)), Some(at(2, 5)));
        assert_eq!(position_before(before, after, at(2, 25)), Some(at(2, 22)));
        assert_eq!(position_before(before, after, at(1, 1)), Some(at(1, 1)));
        // Between two changes of one line: not known.
        let before = "send(x.send, send, y.send)";
        let after = "send(x.ship, send, y.ship)";
        assert_eq!(position_before(before, after, at(1, 14)), None);
        assert_eq!(position_before(before, after, at(1, 1)), Some(at(1, 1)));
    }
}
