//! What the tools that write a language server's edit share (`rename`,
//! `fix`): the files it changes as a patch (each the workspace's own, a
//! library's refusing the whole edit), each file's diff within the output
//! budget, and the patch previewed (`patch: pN`), written with its impact,
//! or in read-only mode shown only.

use crate::context::Context;
use crate::error::{ToolError, ToolResult};
use crate::fs::patch::{FileEdit, Patch};
use crate::fs::stamped::Watch;
use crate::fs::workspace::RealFolders;
use crate::lsp::refactor::Rewrite;
use crate::model::{FileChange, Impact, Place};

use super::BUDGET_CHARS;
use super::impact::write_patch;
use super::locations::place;

/// The files of a server's edit, each the workspace's own, at the paths
/// the server named (not yet checked writable: [`check_writes`]), and its
/// text edits in all; `library` is the refusal for a file outside the
/// workspace (given the file as shown).
pub(super) fn files_of(
    ctx: &Context,
    rewrites: Vec<Rewrite>,
    library: impl Fn(&str) -> ToolError,
) -> ToolResult<(Vec<FileEdit>, usize)> {
    let mut files = Vec::with_capacity(rewrites.len());
    let mut edits = 0;
    for rewrite in rewrites {
        let shown = ctx.workspace.display(&rewrite.path);
        if place(ctx, &rewrite.path) != Place::Workspace {
            return Err(library(&shown));
        }
        edits += rewrite.edits;
        files.push(FileEdit {
            path: rewrite.path,
            shown,
            before: rewrite.before,
            after: rewrite.after,
        });
    }
    Ok((files, edits))
}

/// The write check of every file (inside the root, no symlink leading out
/// of it), each path made the one the write lands on; whether any path
/// changed (a file reached through a symlink inside the root). A `stat`
/// of each file (what a rename may do beside it, see `rename`), except one
/// found plain before while the file watcher hears it (`fs::plain`).
pub(super) fn check_writes(ctx: &Context, files: &mut [FileEdit]) -> ToolResult<bool> {
    let mut folders = RealFolders::default();
    let mut moved = false;
    let heard = ctx.lsp.heard();
    let watch = heard.as_ref().map(|heard| heard as &dyn Watch);
    for file in files {
        let path = ctx
            .workspace
            .resolve_write_among(&file.shown, &mut folders, watch)?;
        if path != file.path {
            moved = true;
            file.path = path;
        }
    }
    Ok(moved)
}

/// What became of a patch: its id when previewed, its impact when
/// written, and what the reader must know.
pub(super) struct Delivered {
    pub patch_id: Option<String>,
    pub impact: Option<Impact>,
    pub notes: Vec<String>,
}

/// Writes `patch` (with its impact when `measure`) when `write`, else keeps
/// it for `apply_patch`, or in read-only mode only says it cannot be
/// written.
pub(super) async fn deliver(
    ctx: &Context,
    patch: Patch,
    write: bool,
    measure: bool,
) -> ToolResult<Delivered> {
    let mut delivered = Delivered {
        patch_id: None,
        impact: None,
        notes: Vec::new(),
    };
    if write {
        let (_, written) = write_patch(ctx, patch, measure).await;
        delivered.impact = written?;
    } else if ctx.read_only {
        delivered
            .notes
            .push("read-only mode: nothing can be written from this preview".to_string());
    } else {
        delivered.patch_id = Some(ctx.patches.insert(patch));
    }
    Ok(delivered)
}

/// Each file's diff, the budget shared among them (every file at least
/// its counts and a few lines). A file deleted and one created with its
/// text are one move, shown as the diff between the two.
pub(super) fn describe_within_budget(patch: &Patch) -> Vec<FileChange> {
    let share = (BUDGET_CHARS / patch.files.len().max(1)).max(600);
    let moved_to = |deleted: &FileEdit| {
        patch.files.iter().find(|f| {
            f.before.is_none()
                && f.after.is_some()
                && deleted.after.is_none()
                && deleted.before.is_some()
        })
    };
    let mut changes = Vec::new();
    let mut targets = Vec::new();
    for file in &patch.files {
        if file.after.is_none()
            && let Some(to) = moved_to(file)
        {
            let moved = FileEdit {
                path: to.path.clone(),
                shown: to.shown.clone(),
                before: file.before.clone(),
                after: to.after.clone(),
            };
            let mut change = moved.describe(share);
            change.moved_from = Some(file.shown.clone());
            changes.push(change);
            targets.push(to.path.clone());
        }
    }
    for file in &patch.files {
        let part_of_move =
            targets.contains(&file.path) || (file.after.is_none() && moved_to(file).is_some());
        if !part_of_move {
            changes.push(file.describe(share));
        }
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    changes
}
