//! A write's impact: the errors and warnings a write introduced and fixed,
//! in the files it wrote and in the files that name them. The servers'
//! diagnostics are taken before the write ([`before_write`]) and again once
//! they have seen the new text ([`after_write`]), each side within the
//! configured `impact_timeout`; a finding is the same on both sides when its
//! severity, code and message are, at its line moved with the edit. What
//! was not compared (a file not re-checked in time, a server not ready, a
//! checker still running) is named with the call that finishes it.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use similar::{DiffOp, TextDiff};
use tokio::time::Instant;

use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::grep::{GrepQuery, search};
use crate::fs::patch::{FileEdit, Patch, apply};
use crate::fs::walk::WalkOptions;
use crate::lsp::diagnostics::{diagnose, diagnose_since, from_checker, publication_mark};
use crate::lsp::{Need, Session};
use crate::model::{Diagnostic, FileFinding, GrepMode, Impact, Severity};
use crate::render::count;

/// Files that name a written file checked beside it, at most: the nearest
/// first.
const MAX_DEPENDENTS: usize = 16;

/// Files diagnosed at once.
const IN_FLIGHT: usize = 8;

/// Files named in a note, at most.
const NAMED: usize = 5;

/// File names whose module goes by its folder's name (`shapes/index.ts` is
/// imported as `shapes`).
const FOLDER_MODULES: [&str; 6] = ["index", "mod", "lib", "main", "__init__", "package"];

/// What a write's impact watches, with the diagnostics before the write.
pub struct Watch {
    files: Vec<Watched>,
    /// Whether each server that checks on save had its checker's findings
    /// for the project as it was before the write.
    checked: HashMap<String, bool>,
    notes: Vec<String>,
}

struct Watched {
    path: PathBuf,
    shown: String,
    /// Errors and warnings before the write: empty for a file the write
    /// creates; `None` when they could not be had (the file is not
    /// compared), with why in the watch's notes.
    before: Option<Vec<Diagnostic>>,
    /// The session that asked, released once the impact is known (a
    /// document it opened is closed again).
    session: Option<Session>,
    /// Its server's publications when the write began: after the write, a
    /// server that only publishes must publish again for the file (its
    /// text may not have changed, what it imports did).
    mark: u64,
}

impl Watch {
    /// Notes where each server's publications stand: right before the
    /// write.
    fn mark_write(&mut self) {
        for file in &mut self.files {
            if let Some(session) = &file.session {
                file.mark = publication_mark(session);
            }
        }
    }
}

/// One file's diagnostics as asked for, or why there are none.
enum Asked {
    Diagnosed(Session, Vec<Diagnostic>),
    Failed(Option<Session>, String),
}

/// Writes `patch` (all files or none), tells the servers, and measures the
/// write's impact when `measure`. The patch comes back either way, so a
/// patch that could not be written can be kept.
pub async fn write_patch(
    ctx: &Context,
    patch: Patch,
    measure: bool,
) -> (Patch, ToolResult<Option<Impact>>) {
    let patch = Arc::new(patch);
    let writing = Arc::clone(&patch);
    let written = measured_write(ctx, &patch.files, measure, move || apply(&writing)).await;
    // The write is over (its copy dropped, even by a panic): the patch is
    // ours alone again.
    let patch = Arc::try_unwrap(patch).unwrap_or_else(|shared| (*shared).clone());
    (patch, written)
}

/// Runs `write` (the blocking work that writes `files`), tells the servers
/// of the files written at once, and measures the write's impact when
/// `measure`: the diagnostics before, where each server's publications
/// stand right before the write, and the diagnostics after.
pub async fn measured_write(
    ctx: &Context,
    files: &[FileEdit],
    measure: bool,
    write: impl FnOnce() -> ToolResult<()> + Send + 'static,
) -> ToolResult<Option<Impact>> {
    let mut watch = match measure {
        true => Some(before_write(ctx, files).await),
        false => None,
    };
    if let Some(watch) = &mut watch {
        watch.mark_write();
    }
    tokio::task::spawn_blocking(write).await.map_err(|err| {
        ToolError::new(ErrorCode::Io, format!("the write failed internally: {err}"))
    })??;
    // The servers hear of it now, not when the file watcher's thread gets
    // to the event: the next request sees the new text (a project a new
    // file joins, an import of it that resolves).
    ctx.lsp.files_written(
        files
            .iter()
            .map(|f| (f.path.clone(), f.before.is_none(), f.after.is_none())),
    );
    Ok(match watch {
        Some(watch) => after_write(ctx, watch, files).await,
        None => None,
    })
}

/// The diagnostics of the files `written` (as they are before the write)
/// and of the files that name them, within the impact bound.
async fn before_write(ctx: &Context, written: &[FileEdit]) -> Watch {
    let deadline = Instant::now() + ctx.lsp.config().impact_timeout;
    let config = ctx.lsp.config();
    let served = |path: &Path| config.language_for(path).is_some();
    let mut notes = Vec::new();
    let mut files = Vec::new();
    let mut asked = Vec::new();
    for edit in written
        .iter()
        .filter(|e| e.after.is_some() && served(&e.path))
    {
        match edit.before {
            Some(_) => asked.push((edit.path.clone(), edit.shown.clone())),
            None => files.push(Watched {
                path: edit.path.clone(),
                shown: edit.shown.clone(),
                before: Some(Vec::new()),
                session: None,
                mark: 0,
            }),
        }
    }
    let root = ctx.workspace.root().to_path_buf();
    // Only code is named by other code: a written Markdown or JSON file
    // has no importers to re-check.
    let written_paths: Vec<PathBuf> = written
        .iter()
        .filter(|e| served(&e.path))
        .map(|e| e.path.clone())
        .collect();
    let extensions: Vec<String> = config
        .languages
        .iter()
        .flat_map(|l| l.extensions.iter().cloned())
        .collect();
    let mut words: Vec<String> = Vec::new();
    for word in written_paths.iter().filter_map(|p| module_word(p)) {
        if !words.contains(&word) {
            words.push(word);
        }
    }
    let searched = words.clone();
    // The search is part of the bound: on a huge tree it is cut short,
    // and only the written files are compared.
    let search = tokio::task::spawn_blocking(move || {
        dependents(&root, &extensions, &written_paths, &searched)
    });
    let found = match tokio::time::timeout_at(deadline, search).await {
        Ok(Ok(found)) => Some(found),
        Ok(Err(_)) => None,
        Err(_) => {
            notes.push(format!(
                "the files naming {} were not searched {}: only the written files are compared; `diagnostics` checks the workspace",
                words.join(", "),
                within(config.impact_timeout)
            ));
            None
        }
    };
    if let Some((dependents, more)) = found {
        // A file in no project is checked with the server's defaults, in
        // whatever project the open files make up: its findings move as
        // files open and close, and are none of the project's.
        let outside = ctx.lsp.coverage(&dependents).await.outside;
        let (loose, dependents): (Vec<PathBuf>, Vec<PathBuf>) =
            dependents.into_iter().partition(|p| outside.contains(p));
        if !loose.is_empty() {
            let shown: Vec<String> = loose.iter().map(|p| ctx.workspace.display(p)).collect();
            notes.push(format!(
                "not compared: {} (in no project: checked with the server's defaults, not the project's settings)",
                named(&shown)
            ));
        }
        asked.extend(
            dependents
                .into_iter()
                .map(|path| (path.clone(), ctx.workspace.display(&path))),
        );
        if more > 0 {
            notes.push(format!(
                "{} more naming {} not re-checked; `diagnostics` checks the workspace",
                count(more, "file", "files"),
                words.join(", ")
            ));
        }
    }
    // A checker's findings are compared only where they are the project's
    // as it is: a project changed since its last check is checked first.
    let checked = check_first(ctx, asked.iter().map(|(path, _)| path.as_path()), deadline).await;
    let unmarked: Vec<(PathBuf, u64)> = asked.iter().map(|(path, _)| (path.clone(), 0)).collect();
    let answers = ask_all(ctx, &unmarked, deadline).await;
    let mut failed = Vec::new();
    for ((path, shown), answer) in asked.into_iter().zip(answers) {
        let (before, session) = match answer {
            Asked::Diagnosed(session, found) => (Some(found), Some(session)),
            Asked::Failed(session, why) => {
                failed.push((shown.clone(), why));
                (None, session)
            }
        };
        files.push(Watched {
            path,
            shown,
            before,
            session,
            mark: 0,
        });
    }
    notes.extend(failure_notes(&failed, "before the write", ctx));
    Watch {
        files,
        checked,
        notes,
    }
}

/// The diagnostics of the watched files now that the write is on disk (the
/// servers told, see `Supervisor::files_written`), compared with those
/// before it; `None` when the write touched no file of a served language
/// (nothing to say).
async fn after_write(ctx: &Context, watch: Watch, written: &[FileEdit]) -> Option<Impact> {
    if watch.files.is_empty() && watch.notes.is_empty() {
        return None;
    }
    let config = ctx.lsp.config();
    let bound = config.impact_timeout;
    let deadline = Instant::now() + bound;
    let Watch {
        files,
        checked: checked_before,
        mut notes,
    } = watch;
    let compared: Vec<(&Watched, &Vec<Diagnostic>)> = files
        .iter()
        .filter_map(|f| Some((f, f.before.as_ref()?)))
        .collect();
    let asked: Vec<(PathBuf, u64)> = compared
        .iter()
        .map(|(f, _)| (f.path.clone(), f.mark))
        .collect();
    // A server that checks on save (cargo check) checks once for every
    // file: asked of the first of its files, within the bound.
    let checked = check_first(
        ctx,
        compared.iter().map(|(f, _)| f.path.as_path()),
        deadline,
    )
    .await;
    let answers = ask_all(ctx, &asked, deadline).await;
    let mut impact = Impact::default();
    let mut failed = Vec::new();
    let mut sessions = Vec::new();
    let mut unchecked_servers: Vec<(String, String)> = Vec::new();
    for ((file, before), answer) in compared.iter().zip(answers) {
        let (session, mut after) = match answer {
            Asked::Diagnosed(session, after) => (session, after),
            Asked::Failed(session, why) => {
                sessions.extend(session);
                failed.push((file.shown.clone(), why));
                continue;
            }
        };
        let mut before = (*before).clone();
        if config
            .language_for(&file.path)
            .is_some_and(|l| l.checks_on_save)
        {
            let server = session.server().to_string();
            let ended = |checks: &HashMap<String, bool>| checks.get(&server) == Some(&true);
            let why = match (ended(&checked_before), ended(&checked)) {
                (true, true) => None,
                (false, _) => Some("before"),
                (true, false) => Some("after"),
            };
            if let Some(why) = why {
                before.retain(|d| !from_checker(&session, d));
                after.retain(|d| !from_checker(&session, d));
                if !unchecked_servers.iter().any(|(s, _)| *s == server) {
                    unchecked_servers.push((server, why.to_string()));
                }
            }
        }
        let lines = written.iter().find(|e| e.path == file.path).and_then(|e| {
            Some(LineMap::new(
                e.before.as_deref()?,
                e.after.as_ref()?.as_str(),
            ))
        });
        let (introduced, fixed, remaining) = compare(&before, &after, lines.as_ref());
        let finding = |diagnostic| FileFinding {
            path: file.shown.clone(),
            diagnostic,
        };
        impact
            .introduced
            .extend(introduced.into_iter().map(finding));
        impact.fixed.extend(fixed.into_iter().map(finding));
        impact.remaining += remaining;
        impact.files_compared += 1;
        sessions.push(session);
    }
    for (server, when) in unchecked_servers {
        notes.push(format!(
            "{server}'s check did not end {} {when} the write: its checker's findings are not compared; `diagnostics` waits for it",
            within(bound)
        ));
    }
    notes.extend(failure_notes(&failed, "after the write", ctx));
    impact.notes = notes;
    for session in files.into_iter().filter_map(|f| f.session).chain(sessions) {
        session.release().await;
    }
    Some(impact)
}

/// "within 3 s".
fn within(bound: Duration) -> String {
    format!("within {} s", bound.as_secs_f64())
}

/// For each server among `files` that checks on save, whether its checker
/// has checked the project as it is on disk by `deadline` (asked of its
/// first file: one check covers the project; none when the last one saw
/// the project as it is).
async fn check_first<'a>(
    ctx: &Context,
    files: impl Iterator<Item = &'a Path>,
    deadline: Instant,
) -> HashMap<String, bool> {
    let config = ctx.lsp.config();
    let mut firsts: Vec<&Path> = Vec::new();
    let mut languages = HashSet::new();
    for path in files {
        if let Some(language) = config.language_for(path)
            && language.checks_on_save
            && languages.insert(language.name.clone())
        {
            firsts.push(path);
        }
    }
    let mut checked = HashMap::new();
    for path in firsts {
        let Ok(Ok(session)) =
            tokio::time::timeout_at(deadline, ctx.lsp.open(path, Need::DOCUMENT.by(deadline)))
                .await
        else {
            continue;
        };
        let done = tokio::time::timeout_at(deadline, diagnose(&session, None, true)).await;
        let ended = matches!(&done, Ok(Ok(d)) if !d.check_pending);
        checked.insert(session.server().to_string(), ended);
    }
    checked
}

/// Each file's errors and warnings (published after its mark, see
/// [`Watched::mark`]; 0: any fresh), a few at a time, until `deadline`.
async fn ask_all(ctx: &Context, files: &[(PathBuf, u64)], deadline: Instant) -> Vec<Asked> {
    futures::stream::iter(files.iter().cloned())
        .map(|(path, mark)| async move { ask(ctx, &path, deadline, mark).await })
        .buffered(IN_FLIGHT)
        .collect()
        .await
}

async fn ask(ctx: &Context, path: &Path, deadline: Instant, mark: u64) -> Asked {
    let opened = tokio::time::timeout_at(deadline, ctx.lsp.open(path, Need::DOCUMENT.by(deadline)));
    let session = match opened.await {
        Ok(Ok(session)) => session,
        Ok(Err(err)) => return Asked::Failed(None, first_clause(&err.to_string())),
        Err(_) => return Asked::Failed(None, "not ready in time".into()),
    };
    let wait = deadline.saturating_duration_since(Instant::now());
    match tokio::time::timeout_at(deadline, diagnose_since(&session, Some(wait), mark)).await {
        Ok(Ok(diagnosed)) if diagnosed.unpublished => {
            Asked::Failed(Some(session), "not re-checked in time".into())
        }
        Ok(Ok(diagnosed)) => {
            let found = diagnosed
                .diagnostics
                .into_iter()
                .filter(|d| d.severity <= Severity::Warning)
                .collect();
            Asked::Diagnosed(session, found)
        }
        Ok(Err(err)) => Asked::Failed(Some(session), first_clause(&err.to_string())),
        Err(_) => Asked::Failed(Some(session), "not re-checked in time".into()),
    }
}

/// An error's message up to its advice (`...; retry in a moment`).
fn first_clause(message: &str) -> String {
    message.split(';').next().unwrap_or(message).to_string()
}

/// The notes naming files whose diagnostics could not be had `when`,
/// grouped by why.
fn failure_notes(failed: &[(String, String)], when: &str, ctx: &Context) -> Vec<String> {
    let bound = within(ctx.lsp.config().impact_timeout);
    let mut whys: Vec<&str> = Vec::new();
    for (_, why) in failed {
        if !whys.contains(&why.as_str()) {
            whys.push(why);
        }
    }
    whys.into_iter()
        .map(|why| {
            let shown: Vec<&str> = failed
                .iter()
                .filter(|(_, w)| w == why)
                .map(|(file, _)| file.as_str())
                .collect();
            let named = named(&shown);
            let why = match why {
                // A server still starting (or indexing) when a session's
                // first write comes: said as such, not as a slow answer.
                "not ready in time" => format!("its server was not ready {bound} {when}"),
                "not re-checked in time" => format!("no diagnostics {when} {bound}"),
                other => format!("{other} {when}"),
            };
            format!("not compared: {named} ({why}); `diagnostics` checks them")
        })
        .collect()
}

/// At most [`NAMED`] files, and how many more.
fn named<S: AsRef<str>>(files: &[S]) -> String {
    let mut named = files
        .iter()
        .take(NAMED)
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    if files.len() > NAMED {
        named.push_str(&format!(" and {} more", files.len() - NAMED));
    }
    named
}

/// The workspace's files of a served language (by `extensions`), other
/// than `written`, that hold one of `words` (the written files' module
/// names), the nearest first (most leading folders shared with a written
/// file), at most [`MAX_DEPENDENTS`]; and how many more there were.
fn dependents(
    root: &Path,
    extensions: &[String],
    written: &[PathBuf],
    words: &[String],
) -> (Vec<PathBuf>, usize) {
    if words.is_empty() {
        return (Vec::new(), 0);
    }
    let mut globs: Vec<String> = extensions.iter().map(|e| format!("*.{e}")).collect();
    globs.extend(["!node_modules".to_string(), "!target".to_string()]);
    let pattern = format!(r"\b(?:{})\b", words.join("|"));
    let query = GrepQuery {
        pattern: &pattern,
        base: root,
        walk: WalkOptions {
            include_ignored: false,
            globs: &globs,
            file_type: None,
        },
        mode: GrepMode::FilesWithMatches,
        case_insensitive: false,
        multiline: false,
        before_context: 0,
        after_context: 0,
        keep_lines: 0,
        only: None,
    };
    let Ok(hits) = search(&query) else {
        return (Vec::new(), 0);
    };
    let mut found: Vec<PathBuf> = hits
        .files
        .into_iter()
        .map(|f| f.path)
        .filter(|p| !written.contains(p))
        .collect();
    let shared = |p: &Path| {
        written
            .iter()
            .map(|w| {
                w.components()
                    .zip(p.components())
                    .take_while(|(a, b)| a == b)
                    .count()
            })
            .max()
            .unwrap_or(0)
    };
    found.sort_by_key(|p| (std::cmp::Reverse(shared(p)), p.clone()));
    let more = found.len().saturating_sub(MAX_DEPENDENTS);
    found.truncate(MAX_DEPENDENTS);
    (found, more)
}

/// The word a file's importers name it by: its name before the first dot,
/// or its folder's name for an `index`, `mod`, `lib`, ... file (the
/// package's above a `src` folder); only a plain name (letters, digits,
/// `_`, `-`) of two characters or more.
fn module_word(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem = name.split('.').next()?;
    let word = if FOLDER_MODULES.contains(&stem) {
        // A package's `src/lib.rs` or `src/index.ts` goes by the package.
        let folder = path.parent()?;
        let folder = match folder.file_name()? == "src" {
            true => folder.parent()?,
            false => folder,
        };
        folder.file_name()?.to_str()?
    } else {
        stem
    };
    let plain = word.len() >= 2
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    plain.then(|| word.to_string())
}

/// Where the lines of a file before an edit are after it.
struct LineMap {
    /// For each line before (0-based), its line after, when unchanged.
    old_to_new: Vec<Option<u32>>,
    /// For each line after, whether the edit wrote it.
    new_changed: Vec<bool>,
}

impl LineMap {
    fn new(before: &str, after: &str) -> LineMap {
        let diff = TextDiff::from_lines(before, after);
        let mut old_to_new = vec![None; before.lines().count() + 1];
        let mut new_changed = vec![false; after.lines().count() + 1];
        for op in diff.ops() {
            match *op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for i in 0..len {
                        if let Some(slot) = old_to_new.get_mut(old_index + i) {
                            *slot = u32::try_from(new_index + i).ok();
                        }
                    }
                }
                DiffOp::Insert {
                    new_index, new_len, ..
                }
                | DiffOp::Replace {
                    new_index, new_len, ..
                } => {
                    for changed in new_changed.iter_mut().skip(new_index).take(new_len) {
                        *changed = true;
                    }
                }
                DiffOp::Delete { .. } => {}
            }
        }
        LineMap {
            old_to_new,
            new_changed,
        }
    }

    /// The 1-based line after the edit of the 1-based line `old`, unless
    /// the edit changed it.
    fn moved(&self, old: u32) -> Option<u32> {
        let index = usize::try_from(old.checked_sub(1)?).ok()?;
        self.old_to_new.get(index).copied().flatten().map(|n| n + 1)
    }

    /// Whether the edit wrote the 1-based line `new`.
    fn wrote(&self, new: u32) -> bool {
        let Some(index) = new.checked_sub(1) else {
            return false;
        };
        usize::try_from(index)
            .ok()
            .and_then(|i| self.new_changed.get(i).copied())
            .unwrap_or(false)
    }
}

/// The findings introduced (after, not before), fixed (before, not after),
/// and how many stayed. A finding stays when one of the same severity, code
/// and message was at its line moved by `lines` (the same line without
/// one); or one of the same severity and code at its very place (its
/// message may name what was renamed); or, where the edit wrote either's
/// line, one of the same severity, code and message anywhere in the file.
fn compare(
    before: &[Diagnostic],
    after: &[Diagnostic],
    lines: Option<&LineMap>,
) -> (Vec<Diagnostic>, Vec<Diagnostic>, usize) {
    let same = |a: &Diagnostic, b: &Diagnostic| {
        a.severity == b.severity && a.code == b.code && a.message == b.message
    };
    let moved = |line: u32| match lines {
        Some(lines) => lines.moved(line),
        None => Some(line),
    };
    let wrote = |line: u32| lines.is_some_and(|l| l.wrote(line));
    let mut matched_before = vec![false; before.len()];
    let mut matched_after = vec![false; after.len()];
    // Each pass pairs the findings still unpaired that `fits` (after,
    // before), the strictest first.
    let mut pass = |fits: &dyn Fn(&Diagnostic, &Diagnostic) -> bool| {
        for (i, a) in after.iter().enumerate() {
            if matched_after[i] {
                continue;
            }
            if let Some(j) = (0..before.len()).find(|&j| !matched_before[j] && fits(a, &before[j]))
            {
                matched_before[j] = true;
                matched_after[i] = true;
            }
        }
    };
    pass(&|a, b| same(a, b) && moved(b.position.line) == Some(a.position.line));
    // A finding whose message names what the edit renamed (`on type
    // 'Circle'` becoming `on type 'Disc'`) is the same finding: the same
    // code at the same place.
    pass(&|a, b| {
        a.code.is_some()
            && a.severity == b.severity
            && a.code == b.code
            && a.position.character == b.position.character
            && moved(b.position.line) == Some(a.position.line)
    });
    pass(&|a, b| same(a, b) && (moved(b.position.line).is_none() || wrote(a.position.line)));
    let introduced = after
        .iter()
        .zip(&matched_after)
        .filter(|(_, m)| !**m)
        .map(|(d, _)| d.clone())
        .collect();
    let fixed = before
        .iter()
        .zip(&matched_before)
        .filter(|(_, m)| !**m)
        .map(|(d, _)| d.clone())
        .collect();
    let remaining = matched_after.iter().filter(|m| **m).count();
    (introduced, fixed, remaining)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Position;

    fn finding(line: u32, code: &str, message: &str) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            position: Position::new(line, 5),
            end: Position::new(line, 9),
            code: Some(code.into()),
            source: Some("ts".into()),
            message: message.into(),
        }
    }

    #[test]
    fn lines_move_with_the_edit() {
        let map = LineMap::new("a\nb\nc\nd\n", "a\nx\ny\nc\nd\n");
        assert_eq!(map.moved(1), Some(1));
        assert_eq!(map.moved(2), None);
        assert_eq!(map.moved(3), Some(4));
        assert_eq!(map.moved(4), Some(5));
        assert!(map.wrote(2) && map.wrote(3));
        assert!(!map.wrote(1) && !map.wrote(4));
    }

    #[test]
    fn a_finding_moved_by_the_edit_stays_and_new_ones_are_introduced() {
        let map = LineMap::new("a\nb\nc\n", "a\nnew\nb\nc\n");
        let before = [finding(3, "2304", "Cannot find name 'x'.")];
        let after = [
            finding(4, "2304", "Cannot find name 'x'."),
            finding(
                2,
                "2322",
                "Type 'string' is not assignable to type 'number'.",
            ),
        ];
        let (introduced, fixed, remaining) = compare(&before, &after, Some(&map));
        assert_eq!(introduced, [after[1].clone()]);
        assert!(fixed.is_empty());
        assert_eq!(remaining, 1);
    }

    #[test]
    fn a_finding_on_another_unchanged_line_is_another_finding() {
        // The same message on a line the edit did not touch, where the
        // old one's line is gone: one fixed, one introduced.
        let map = LineMap::new("a\nb\nc\n", "a\nc\n");
        let before = [finding(2, "2304", "Cannot find name 'x'.")];
        let after = [finding(2, "2304", "Cannot find name 'x'.")];
        // Line 2 before was deleted; line 2 after is `c`, unchanged: the
        // finding moved onto a line the edit did not write, yet its old
        // line is gone, so the two are one finding.
        let (introduced, fixed, remaining) = compare(&before, &after, Some(&map));
        assert!(introduced.is_empty() && fixed.is_empty());
        assert_eq!(remaining, 1);
        // In a file the write did not touch, lines stay: another line is
        // another finding.
        let moved = [finding(7, "2304", "Cannot find name 'x'.")];
        let (introduced, fixed, _) = compare(&before, &moved, None);
        assert_eq!((introduced.len(), fixed.len()), (1, 1));
    }

    #[test]
    fn a_finding_that_names_what_was_renamed_stays() {
        let before = [finding(
            7,
            "2339",
            "Property 'perimeter' does not exist on type 'Circle'.",
        )];
        let after = [finding(
            7,
            "2339",
            "Property 'perimeter' does not exist on type 'Disc'.",
        )];
        let (introduced, fixed, remaining) = compare(&before, &after, None);
        assert!(introduced.is_empty() && fixed.is_empty());
        assert_eq!(remaining, 1);
        // Another code at that place is another finding.
        let other = [finding(7, "2304", "Cannot find name 'Disc'.")];
        let (introduced, fixed, _) = compare(&before, &other, None);
        assert_eq!((introduced.len(), fixed.len()), (1, 1));
    }

    #[test]
    fn module_words() {
        let word = |p: &str| module_word(Path::new(p));
        assert_eq!(word("/w/src/shapes.ts").as_deref(), Some("shapes"));
        assert_eq!(word("/w/src/shapes/index.ts").as_deref(), Some("shapes"));
        assert_eq!(word("/w/src/report.test.ts").as_deref(), Some("report"));
        assert_eq!(word("/w/src/geo/mod.rs").as_deref(), Some("geo"));
        assert_eq!(word("/w/ledger/src/lib.rs").as_deref(), Some("ledger"));
        assert_eq!(word("/w/src/my-file.ts").as_deref(), Some("my-file"));
        assert_eq!(word("/w/a.c"), None);
        assert_eq!(word("/w/src/a b.ts"), None);
    }
}
