//! Patches: previewed changes kept until applied, and atomic writes.
//!
//! A patch records, per file, the exact bytes it was computed from and the
//! bytes it will write. Applying it checks every file still holds the bytes
//! of the preview, then writes each through a temporary file and a rename,
//! so a reader never sees half a file and a stale preview writes nothing.

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use similar::TextDiff;

use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::model::FileChange;

/// How many unapplied patches are kept; the oldest go first.
const MAX_PATCHES: usize = 64;

/// One file's part of a patch.
#[derive(Debug, Clone)]
pub struct FileEdit {
    /// Where to write (resolved, inside the root).
    pub path: PathBuf,
    /// The path as shown.
    pub shown: String,
    /// The content the change was computed from; `None` for a new file.
    pub before: Option<String>,
    pub after: String,
}

impl FileEdit {
    /// The change as shown: counts and a unified diff of at most
    /// `max_diff_chars` characters (cut at a line end).
    pub fn describe(&self, max_diff_chars: usize) -> FileChange {
        let before = self.before.as_deref().unwrap_or("");
        let (old, new) = (
            before.replace("\r\n", "\n"),
            self.after.replace("\r\n", "\n"),
        );
        let diff = TextDiff::from_lines(&old, &new);
        let (mut added, mut removed) = (0, 0);
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        let old_header = if self.before.is_some() {
            format!("a/{}", self.shown)
        } else {
            "/dev/null".to_string()
        };
        let mut text = diff
            .unified_diff()
            .context_radius(3)
            .header(&old_header, &format!("b/{}", self.shown))
            .to_string();
        let mut omitted = 0;
        if text.len() > max_diff_chars {
            let mut cut = text[..text.floor_char_boundary(max_diff_chars)]
                .rfind('\n')
                .map_or(0, |at| at + 1);
            if cut == 0 {
                cut = text.find('\n').map_or(text.len(), |at| at + 1);
            }
            omitted = text[cut..].lines().count();
            text.truncate(cut);
        }
        FileChange {
            path: self.shown.clone(),
            created: self.before.is_none(),
            lines_added: added,
            lines_removed: removed,
            diff: text,
            diff_lines_omitted: omitted,
        }
    }
}

/// A previewed change to one or more files.
#[derive(Debug, Clone)]
pub struct Patch {
    pub files: Vec<FileEdit>,
}

/// Patches waiting for `apply_patch`, by id.
#[derive(Debug, Default)]
pub struct PatchStore {
    inner: Mutex<StoreInner>,
}

#[derive(Debug, Default)]
struct StoreInner {
    next_id: u64,
    patches: BTreeMap<u64, Patch>,
    order: VecDeque<u64>,
}

impl PatchStore {
    /// Keeps `patch` and returns its id (`p1`, `p2`, ...).
    pub fn insert(&self, patch: Patch) -> String {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.next_id += 1;
        let id = inner.next_id;
        inner.patches.insert(id, patch);
        inner.order.push_back(id);
        while inner.order.len() > MAX_PATCHES {
            if let Some(old) = inner.order.pop_front() {
                inner.patches.remove(&old);
            }
        }
        format!("p{id}")
    }

    /// Takes the patch `id` out of the store.
    pub fn take(&self, id: &str) -> ToolResult<Patch> {
        let number = id
            .trim()
            .strip_prefix('p')
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::InvalidParams,
                    format!("'{id}' is not a patch id; pass the id shown as `patch: pN` by edit or rename"),
                )
            })?;
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.order.retain(|&n| n != number);
        inner.patches.remove(&number).ok_or_else(|| {
            ToolError::new(
                ErrorCode::UnknownPatch,
                format!("no patch {id}: it was already applied, expired, or never made; preview the change again"),
            )
        })
    }

    /// Puts a patch back under its id (after a refused apply).
    pub fn restore(&self, id: &str, patch: Patch) {
        if let Some(number) = id.strip_prefix('p').and_then(|n| n.parse::<u64>().ok()) {
            let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            inner.patches.insert(number, patch);
            inner.order.push_back(number);
        }
    }
}

/// Applies every file of `patch`, or none: each file must still hold the
/// content of the preview (or still not exist, for a new file).
pub fn apply(patch: &Patch) -> ToolResult<()> {
    for edit in &patch.files {
        refuse_read_only(&edit.path, &edit.shown)?;
        let current = match std::fs::read(&edit.path) {
            Ok(bytes) => Some(bytes),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => return Err(ToolError::io(&edit.shown, &err)),
        };
        if current.as_deref() != edit.before.as_deref().map(str::as_bytes) {
            return Err(ToolError::new(
                ErrorCode::StalePatch,
                format!(
                    "{} changed on disk since the preview; nothing was written. Read it again and preview a new change",
                    edit.shown
                ),
            ));
        }
    }
    // Write every file to a temporary sibling first, then rename them all:
    // a failure before the renames leaves every file as it was.
    let mut staged = Vec::with_capacity(patch.files.len());
    for edit in &patch.files {
        staged.push((stage(&edit.path, &edit.shown, edit.after.as_bytes())?, edit));
    }
    for (temp, edit) in staged {
        temp.persist(&edit.path)
            .map_err(|err| ToolError::io(&edit.shown, &err.error))?;
    }
    Ok(())
}

/// A file whose permissions say it may not be written (mode 0444) is not
/// replaced: an atomic rename would go around them.
fn refuse_read_only(path: &Path, shown: &str) -> ToolResult<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.permissions().readonly() => Err(ToolError::new(
            ErrorCode::ReadOnly,
            format!(
                "{shown} is read-only (its permissions allow no writing); nothing was written. Make it writable first if it should change"
            ),
        )),
        _ => Ok(()),
    }
}

/// Writes `bytes` to `path` atomically (temporary file, then rename).
pub fn write_atomic(path: &Path, shown: &str, bytes: &[u8]) -> ToolResult<()> {
    refuse_read_only(path, shown)?;
    stage(path, shown, bytes)?
        .persist(path)
        .map_err(|err| ToolError::io(shown, &err.error))?;
    Ok(())
}

/// A temporary file beside `path` holding `bytes`, with `path`'s permissions.
fn stage(path: &Path, shown: &str, bytes: &[u8]) -> ToolResult<tempfile::NamedTempFile> {
    let parent = path.parent().ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidParams,
            format!("{shown} has no parent folder"),
        )
    })?;
    std::fs::create_dir_all(parent).map_err(|err| ToolError::io(shown, &err))?;
    let mut temp = tempfile::Builder::new()
        .prefix(".sextant-")
        .tempfile_in(parent)
        .map_err(|err| ToolError::io(shown, &err))?;
    temp.write_all(bytes)
        .and_then(|_| temp.as_file().sync_all())
        .map_err(|err| ToolError::io(shown, &err))?;
    if let Ok(meta) = std::fs::metadata(path) {
        // Keep the mode of the file being replaced (the temp file is 0600).
        let _ = std::fs::set_permissions(temp.path(), meta.permissions());
    } else {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = 0o666 & !umask();
            let _ = std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(mode));
        }
    }
    Ok(temp)
}

/// The process's umask, as a new file's mode should honour it (read from
/// /proc: setting it to read it back would race with other threads).
#[cfg(unix)]
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("Umask:"))
                .and_then(|value| u32::from_str_radix(value.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_new_file_honours_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.txt");
        write_atomic(&path, "new.txt", b"x").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask());
        // The umask as the kernel says it (for the test's process).
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        assert!(
            status.contains(&format!("Umask:\t{:04o}", umask())),
            "{status}"
        );
    }
}
