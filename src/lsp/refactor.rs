//! Rename: `textDocument/prepareRename`, then `textDocument/rename`, its
//! WorkspaceEdit (`changes` or `documentChanges`, with file creations,
//! renames and deletions) applied to the files' texts in memory and handed
//! back as each file's text before and after, for a patch.

use std::collections::hash_map::Entry as Slot;
use std::path::PathBuf;
use std::sync::Arc;

use lsp_types::request::{PrepareRenameRequest, Rename};
use lsp_types::{
    DocumentChangeOperation, DocumentChanges, OneOf, PrepareRenameResponse, RenameParams,
    ResourceOp, TextEdit, Url, WorkDoneProgressParams, WorkspaceEdit,
};

use super::LspError;
use super::capabilities::Feature;
use super::convert::{Encoding, LineIndex, url_path};
use super::documents::{DiskIndexCache, strict_disk_index};
use super::navigate::{Spot, at, references_at};
use super::quirks::cargo_projects;
use super::session::Session;
use super::watch::Heard;
use crate::fast_map::FastMap;
use crate::fs::new_text::{NewText, Replaced};
use crate::fs::stamped::Watch;
use crate::model::Position;

/// What the server says of renaming at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preparation {
    /// It will rename the name spanning these positions (the server may
    /// not say which: `None`).
    Renames(Option<(Position, Position)>),
    /// It will not (no symbol it can rename is there).
    Refuses,
}

/// `textDocument/prepareRename`, where the server offers it; a server
/// that does not is taken to allow the rename (the rename itself says).
pub async fn prepare_rename(
    session: &Session,
    position: Position,
) -> Result<Preparation, LspError> {
    let client = session.client();
    client.require(Feature::Rename)?;
    if !client.supports(Feature::PrepareRename) {
        return Ok(Preparation::Renames(None));
    }
    let answer = client
        .request_settled::<PrepareRenameRequest>(at(session, position)?)
        .await?;
    let range = match answer {
        None => return Ok(Preparation::Refuses),
        Some(PrepareRenameResponse::Range(range)) => Some(range),
        Some(PrepareRenameResponse::RangeWithPlaceholder { range, .. }) => Some(range),
        Some(PrepareRenameResponse::DefaultBehavior { .. }) => None,
    };
    Ok(Preparation::Renames(range.map(|r| {
        let r = session.document().index.range_to_model(r, client.encoding);
        (r.start, r.end)
    })))
}

/// One file as a rename leaves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    pub path: PathBuf,
    /// The text on disk when the edit was made (shared with the kept
    /// index of it); `None` for a file the rename creates.
    pub before: Option<Arc<str>>,
    /// `None` for a file the rename deletes (or moves away).
    pub after: Option<NewText>,
    /// Text edits in this file.
    pub edits: usize,
}

/// What a rename would do: every file it touches, as it is and as it
/// would be.
#[derive(Debug)]
pub struct Renamed {
    pub rewrites: Vec<Rewrite>,
    /// The symbol's references through every project, where the rename
    /// had to ask for them (a server holding several cargo projects, see
    /// `quirks::cargo_projects`), so a caller need not ask again.
    pub references: Option<Vec<Spot>>,
}

/// `textDocument/rename` to `new_name`. Nothing is written.
pub async fn rename(
    session: &Session,
    position: Position,
    new_name: &str,
) -> Result<Renamed, LspError> {
    let client = session.client();
    client.require(Feature::Rename)?;
    let params = RenameParams {
        text_document_position: at(session, position)?,
        new_name: new_name.to_string(),
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let rename = client.request_settled::<Rename>(params);
    let (edit, references) = if cargo_projects::holds_several(client) {
        // rust-analyzer holding several cargo projects renames through one
        // copy of a crate they share: the other copies' uses are asked for
        // too, from the symbol's references, asked for at once beside.
        let (edit, found) =
            tokio::join!(rename, references_at(client, at(session, position)?, true));
        let edit = edit?.unwrap_or_default();
        let (edit, references) =
            cargo_projects::rename_across(session, position, new_name, edit, found?).await?;
        (edit, Some(references))
    } else {
        (rename.await?.unwrap_or_default(), None)
    };
    Ok(Renamed {
        rewrites: rewrites(client, vec![edit], "rename").await?,
        references,
    })
}

/// The files `edits` touch (applied one after the other), as they are and
/// as they would be; `what` names the edit in an error.
pub(super) async fn rewrites(
    client: &super::client::LspClient,
    edits: Vec<WorkspaceEdit>,
    what: &str,
) -> Result<Vec<Rewrite>, LspError> {
    let encoding = client.encoding;
    let mut files = Files::new(client.disk_indexes(), client.heard.get().cloned());
    // Where every file the edit changes has its line index kept (a rename
    // through files read before), applying it reads no file (a `stat` of
    // each at most), and is done here: through the blocking pool and back,
    // a warm rename through 71 files of the TypeScript SDK took 0.2 ms
    // longer. Reading a file is blocking work: any other edit is applied
    // there.
    let applied = if files.take_kept(&edits) {
        apply_all(files, edits, encoding)
    } else {
        tokio::task::spawn_blocking(move || apply_all(files, edits, encoding))
            .await
            .unwrap_or_else(|err| Err(format!("it failed internally: {err}")))
    };
    applied.map_err(|detail| LspError::Io {
        detail: format!("{}'s {what} cannot be applied: {detail}", client.server()),
    })
}

/// `edits` applied to `files` in order: the files changed.
fn apply_all(
    mut files: Files,
    edits: Vec<WorkspaceEdit>,
    encoding: Encoding,
) -> Result<Vec<Rewrite>, String> {
    for edit in edits {
        apply_workspace_edit(&mut files, edit, encoding)?;
    }
    Ok(files.into_rewrites())
}

/// The files a WorkspaceEdit touches, as it leaves them.
struct Files {
    /// By path: a rename through 71 files of the TypeScript SDK looked
    /// each up three times in a `BTreeMap`, comparing paths component by
    /// component (a fifth of applying its edit); sorted once at the end.
    files: FastMap<PathBuf, Entry>,
    /// The client's line indexes of files as on disk (see
    /// `LspClient::disk_indexes`): a file renamed in again and again is
    /// neither read nor indexed again while it keeps its stamp.
    kept: Arc<DiskIndexCache>,
    /// The file watcher, where it runs: a kept index of a file it hears is
    /// taken without a `stat` (the patch's apply checks each file's text
    /// against the one read here).
    heard: Option<Heard>,
}

/// One file a WorkspaceEdit touches.
struct Entry {
    /// Its text on disk, indexed (`None`: absent).
    disk: Option<Arc<LineIndex>>,
    now: Now,
    edits: usize,
}

/// A file's text as the edit leaves it so far.
enum Now {
    /// As on disk: most files a rename touches are edited once, and their
    /// disk text is neither copied nor indexed again before that.
    Disk,
    /// Changed (`None`: deleted or moved away).
    Changed(Option<NewText>),
}

impl Entry {
    /// As the disk holds it (`None`: absent), not edited yet.
    fn on_disk(disk: Option<Arc<LineIndex>>) -> Entry {
        Entry {
            disk,
            now: Now::Disk,
            edits: 0,
        }
    }

    fn exists(&self) -> bool {
        match &self.now {
            Now::Disk => self.disk.is_some(),
            Now::Changed(text) => text.is_some(),
        }
    }

    /// Its text now, indexed.
    fn index(&self) -> Option<Arc<LineIndex>> {
        match &self.now {
            Now::Disk => self.disk.clone(),
            Now::Changed(text) => text.as_ref().map(|t| Arc::new(LineIndex::new(t.as_str()))),
        }
    }

    /// Its text now, taken out (the file left absent).
    fn take(&mut self) -> Option<NewText> {
        match std::mem::replace(&mut self.now, Now::Changed(None)) {
            Now::Disk => self
                .disk
                .as_ref()
                .map(|index| NewText::whole(index.shared_text())),
            Now::Changed(text) => text,
        }
    }

    fn set(&mut self, text: Option<NewText>) {
        self.now = Now::Changed(text);
    }
}

impl Files {
    fn new(kept: Arc<DiskIndexCache>, heard: Option<Heard>) -> Files {
        Files {
            files: FastMap::default(),
            kept,
            heard,
        }
    }

    /// Takes the kept line index of each file `edits` change, as the disk
    /// holds it (`StampedCache::get_fresh`: without a `stat` where the
    /// watcher hears the file), until one is not kept or is no file; whether
    /// every one was, and the edits only change texts (no file is created,
    /// moved or deleted). Those taken are what `entry` would take.
    fn take_kept(&mut self, edits: &[WorkspaceEdit]) -> bool {
        let watch = self.heard.as_ref().map(|heard| heard as &dyn Watch);
        let mut uris = Vec::new();
        for edit in edits {
            match &edit.document_changes {
                Some(DocumentChanges::Edits(edits)) => {
                    uris.extend(edits.iter().map(|e| &e.text_document.uri));
                }
                Some(DocumentChanges::Operations(operations)) => {
                    for operation in operations {
                        match operation {
                            DocumentChangeOperation::Edit(e) => uris.push(&e.text_document.uri),
                            DocumentChangeOperation::Op(_) => return false,
                        }
                    }
                }
                None => uris.extend(edit.changes.iter().flat_map(|changes| changes.keys())),
            }
        }
        for uri in uris {
            let Ok(path) = path_of(uri) else {
                return false;
            };
            if let Slot::Vacant(slot) = self.files.entry(path) {
                let Ok(index) = self
                    .kept
                    .get_fresh(slot.key().as_os_str(), slot.key(), watch)
                else {
                    return false;
                };
                slot.insert(Entry::on_disk(Some(index)));
            }
        }
        true
    }

    fn entry(&mut self, path: PathBuf) -> Result<&mut Entry, String> {
        match self.files.entry(path) {
            Slot::Occupied(entry) => Ok(entry.into_mut()),
            Slot::Vacant(slot) => {
                let disk = strict_disk_index(
                    &self.kept,
                    self.heard.as_ref().map(|heard| heard as &dyn Watch),
                    slot.key(),
                )?;
                Ok(slot.insert(Entry::on_disk(disk)))
            }
        }
    }

    /// The files changed, in path order.
    fn into_rewrites(self) -> Vec<Rewrite> {
        let mut rewrites: Vec<Rewrite> = self
            .files
            .into_iter()
            .filter_map(|(path, entry)| {
                let Now::Changed(after) = entry.now else {
                    return None;
                };
                let before = entry.disk.map(|index| index.shared_text());
                let same = match (&before, &after) {
                    (Some(before), Some(after)) => after.is(before),
                    (before, after) => before.is_none() && after.is_none(),
                };
                (!same).then_some(Rewrite {
                    path,
                    before,
                    after,
                    edits: entry.edits,
                })
            })
            .collect();
        rewrites.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        rewrites
    }
}

fn path_of(uri: &Url) -> Result<PathBuf, String> {
    url_path(uri).ok_or_else(|| format!("{uri} is not a file"))
}

/// Applies `edit` to `files` in order: text edits, and file creations,
/// renames and deletions.
fn apply_workspace_edit(
    files: &mut Files,
    edit: WorkspaceEdit,
    encoding: Encoding,
) -> Result<(), String> {
    if let Some(changes) = edit.document_changes {
        let operations = match changes {
            DocumentChanges::Edits(edits) => edits
                .into_iter()
                .map(DocumentChangeOperation::Edit)
                .collect(),
            DocumentChanges::Operations(operations) => operations,
        };
        for operation in operations {
            match operation {
                DocumentChangeOperation::Edit(edit) => {
                    let edits = edit
                        .edits
                        .into_iter()
                        .map(|e| match e {
                            OneOf::Left(edit) => edit,
                            OneOf::Right(annotated) => annotated.text_edit,
                        })
                        .collect();
                    edit_text(files, &edit.text_document.uri, edits, encoding)?;
                }
                DocumentChangeOperation::Op(ResourceOp::Create(create)) => {
                    let entry = files.entry(path_of(&create.uri)?)?;
                    let overwrite = create.options.and_then(|o| o.overwrite) == Some(true);
                    if !entry.exists() || overwrite {
                        entry.set(Some(NewText::default()));
                    }
                }
                DocumentChangeOperation::Op(ResourceOp::Rename(rename)) => {
                    let text = {
                        let from = files.entry(path_of(&rename.old_uri)?)?;
                        // The move is counted once, at its new path.
                        from.take().ok_or_else(|| {
                            format!("{} does not exist to be renamed", rename.old_uri)
                        })?
                    };
                    let to = files.entry(path_of(&rename.new_uri)?)?;
                    if to.exists() && rename.options.and_then(|o| o.overwrite) != Some(true) {
                        return Err(format!("{} exists already", rename.new_uri));
                    }
                    to.set(Some(text));
                    to.edits += 1;
                }
                DocumentChangeOperation::Op(ResourceOp::Delete(delete)) => {
                    let entry = files.entry(path_of(&delete.uri)?)?;
                    entry.set(None);
                    entry.edits += 1;
                }
            }
        }
    } else if let Some(changes) = edit.changes {
        for (uri, edits) in changes {
            edit_text(files, &uri, edits, encoding)?;
        }
    }
    Ok(())
}

/// Applies one file's text edits (in any order, not overlapping).
fn edit_text(
    files: &mut Files,
    uri: &Url,
    edits: Vec<TextEdit>,
    encoding: Encoding,
) -> Result<(), String> {
    let entry = files.entry(path_of(uri)?)?;
    let index = entry
        .index()
        .ok_or_else(|| format!("{uri} does not exist to be edited"))?;
    let mut replaced = Vec::with_capacity(edits.len());
    for edit in edits {
        let offset = |p: lsp_types::Position| {
            index
                .lsp_offset(p, encoding)
                .ok_or_else(|| format!("an edit of {uri} is past its end"))
        };
        let (start, end) = (offset(edit.range.start)?, offset(edit.range.end)?);
        if start > end {
            return Err(format!("an edit of {uri} ends before it starts"));
        }
        replaced.push(Replaced {
            bytes: start..end,
            line: 0,
            with: edit.new_text,
        });
    }
    replaced.sort_by_key(|r| (r.bytes.start, r.bytes.end));
    if replaced
        .windows(2)
        .any(|w| w[0].bytes.end > w[1].bytes.start)
    {
        return Err(format!("two edits of {uri} overlap"));
    }
    // Each line found on from the one before (in a text with lone CRs,
    // counted on from there: 20,000 edits of a 600 KB file with one lone
    // CR took 138 ms counted from the start each time).
    let mut known = (0, 0);
    for r in &mut replaced {
        r.line = index.lf_line(r.bytes.start, known);
        known = (r.bytes.start, r.line);
    }
    entry.edits += replaced.len();
    // Not made whole: a preview reads only around the replacements.
    let after = NewText::from_replacements(index.shared_text(), index.stamp_cell(), replaced);
    entry.set(Some(after));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::stamped::StampedCache;

    fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> lsp_types::Range {
        lsp_types::Range::new(
            lsp_types::Position::new(l1, c1),
            lsp_types::Position::new(l2, c2),
        )
    }

    #[test]
    fn an_edit_of_kept_files_only_is_applied_from_them() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.rs");
        std::fs::write(&a, "let x = 1;\nx;\n").unwrap();
        // Written long enough ago to be kept (see `fs::stamped`).
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let file = std::fs::File::options().write(true).open(&a).unwrap();
        file.set_modified(old).unwrap();
        let uri = Url::from_file_path(&a).unwrap();
        let rename = |to: &str| {
            let edits = [range(0, 4, 0, 5), range(1, 0, 1, 1)]
                .map(|range| TextEdit::new(range, to.to_string()));
            WorkspaceEdit {
                changes: Some([(uri.clone(), edits.to_vec())].into_iter().collect()),
                ..Default::default()
            }
        };
        let kept = Arc::new(StampedCache::new(1 << 20));
        let files = || Files::new(Arc::clone(&kept), None);
        // Not kept yet: read from the disk (on the blocking pool), and kept.
        let mut first = files();
        assert!(!first.take_kept(&[rename("y")]));
        let read = apply_all(first, vec![rename("y")], Encoding::Utf16).unwrap();
        let mut again = files();
        assert!(again.take_kept(&[rename("z")]));
        let taken = apply_all(again, vec![rename("z")], Encoding::Utf16).unwrap();
        assert_eq!(taken[0].before, read[0].before);
        let after = taken[0].after.as_ref().map(NewText::as_str);
        assert_eq!(after, Some("let z = 1;\nz;\n"));
        // A file created, and a file changed since it was kept: read.
        let create = WorkspaceEdit {
            document_changes: Some(DocumentChanges::Operations(vec![
                DocumentChangeOperation::Op(ResourceOp::Create(lsp_types::CreateFile {
                    uri: Url::from_file_path(dir.path().join("b.rs")).unwrap(),
                    options: None,
                    annotation_id: None,
                })),
            ])),
            ..Default::default()
        };
        assert!(!files().take_kept(&[rename("z"), create]));
        std::fs::write(&a, "let x = 22;\nx;\n").unwrap();
        assert!(!files().take_kept(&[rename("z")]));
    }

    #[test]
    fn edits_in_any_order_and_file_operations_apply_in_sequence() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.rs");
        std::fs::write(&a, "mod old;\nuse old::Thing; // Thing\n").unwrap();
        let old = dir.path().join("old.rs");
        std::fs::write(&old, "pub struct Thing;\n").unwrap();
        let new = dir.path().join("new.rs");
        let uri = |p: &PathBuf| Url::from_file_path(p).unwrap();
        let edit = |r, t: &str| OneOf::Left(TextEdit::new(r, t.to_string()));
        let workspace_edit = WorkspaceEdit {
            document_changes: Some(DocumentChanges::Operations(vec![
                DocumentChangeOperation::Edit(lsp_types::TextDocumentEdit {
                    text_document: lsp_types::OptionalVersionedTextDocumentIdentifier {
                        uri: uri(&a),
                        version: None,
                    },
                    // Later edit first: order does not matter.
                    edits: vec![
                        edit(range(1, 4, 1, 7), "new"),
                        edit(range(0, 4, 0, 7), "new"),
                    ],
                }),
                DocumentChangeOperation::Op(ResourceOp::Rename(lsp_types::RenameFile {
                    old_uri: uri(&old),
                    new_uri: uri(&new),
                    options: None,
                    annotation_id: None,
                })),
            ])),
            ..Default::default()
        };
        let mut files = Files::new(Arc::new(StampedCache::new(1 << 20)), None);
        apply_workspace_edit(&mut files, workspace_edit, Encoding::Utf16).unwrap();
        let rewrites = files.into_rewrites();
        // In path order, whatever order the edit named them in.
        let paths: Vec<&PathBuf> = rewrites.iter().map(|r| &r.path).collect();
        assert_eq!(paths, [&a, &new, &old]);
        let find = |p: &PathBuf| rewrites.iter().find(|r| &r.path == p).unwrap().clone();
        assert_eq!(
            find(&a).after.as_ref().map(NewText::as_str),
            Some("mod new;\nuse new::Thing; // Thing\n")
        );
        assert_eq!(find(&a).edits, 2);
        assert_eq!(
            (find(&old).before.is_some(), find(&old).after.is_none()),
            (true, true)
        );
        assert_eq!(find(&new).edits, 1);
        assert_eq!(
            (
                find(&new).before.is_none(),
                find(&new).after.as_ref().map(NewText::as_str)
            ),
            (true, Some("pub struct Thing;\n"))
        );
        // Nothing was written.
        assert!(old.exists() && !new.exists());
    }

    #[test]
    fn a_file_edited_twice_is_edited_from_its_first_edit_and_never_lossily() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.ts");
        std::fs::write(&a, "let x = 1;\n").unwrap();
        let uri = Url::from_file_path(&a).unwrap();
        let text_edit = |r, t: &str| {
            DocumentChangeOperation::Edit(lsp_types::TextDocumentEdit {
                text_document: lsp_types::OptionalVersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version: None,
                },
                edits: vec![OneOf::Left(TextEdit::new(r, t.to_string()))],
            })
        };
        let twice = WorkspaceEdit {
            document_changes: Some(DocumentChanges::Operations(vec![
                text_edit(range(0, 4, 0, 5), "total"),
                // Counts from the text the first edit left.
                text_edit(range(0, 4, 0, 9), "sum"),
            ])),
            ..Default::default()
        };
        let kept = Arc::new(StampedCache::new(1 << 20));
        let mut files = Files::new(Arc::clone(&kept), None);
        apply_workspace_edit(&mut files, twice.clone(), Encoding::Utf16).unwrap();
        let rewrites = files.into_rewrites();
        assert_eq!(rewrites[0].before.as_deref(), Some("let x = 1;\n"));
        assert_eq!(
            rewrites[0].after.as_ref().map(NewText::as_str),
            Some("let sum = 1;\n")
        );
        assert_eq!(rewrites[0].edits, 2);
        // A file that is not UTF-8 is refused, not edited as a lossy text.
        std::fs::write(&a, b"let x = \xff;\n").unwrap();
        let mut files = Files::new(kept, None);
        let err = apply_workspace_edit(&mut files, twice, Encoding::Utf16).unwrap_err();
        assert!(err.contains("is not UTF-8 text"), "{err}");
    }

    #[test]
    fn overlapping_edits_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.ts");
        std::fs::write(&a, "let abc = 1;\n").unwrap();
        let mut changes = std::collections::HashMap::new();
        changes.insert(
            Url::from_file_path(&a).unwrap(),
            vec![
                TextEdit::new(range(0, 4, 0, 6), "x".into()),
                TextEdit::new(range(0, 5, 0, 7), "y".into()),
            ],
        );
        let edit = WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        };
        let err = apply_workspace_edit(
            &mut Files::new(Arc::new(StampedCache::new(1 << 20)), None),
            edit,
            Encoding::Utf16,
        )
        .unwrap_err();
        assert!(err.contains("overlap"), "{err}");
    }

    /// One file's text edits applied to `text`, or why not.
    fn edited(text: &str, edits: Vec<TextEdit>) -> Result<String, String> {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.ts");
        std::fs::write(&a, text).unwrap();
        let mut changes = std::collections::HashMap::new();
        changes.insert(Url::from_file_path(&a).unwrap(), edits);
        let edit = WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        };
        let mut files = Files::new(Arc::new(StampedCache::new(1 << 20)), None);
        apply_workspace_edit(&mut files, edit, Encoding::Utf16)?;
        Ok(files.into_rewrites()[0]
            .after
            .as_ref()
            .unwrap()
            .as_str()
            .to_string())
    }

    #[test]
    fn an_edit_to_the_line_after_the_last_reaches_the_end_and_a_reversed_one_is_refused() {
        // The whole text of a file whose last line has no line end.
        let whole = TextEdit::new(range(0, 0, 1, 0), "let y = 2;\n".into());
        assert_eq!(
            edited("let x = 1;", vec![whole]).as_deref(),
            Ok("let y = 2;\n")
        );
        // Lines past the end are the end too.
        let tail = TextEdit::new(range(0, 8, 7, 3), "2;".into());
        assert_eq!(
            edited("let x = 1;\n", vec![tail]).as_deref(),
            Ok("let x = 2;")
        );
        // An end before the start (the line after the last is the end).
        for reversed in [range(0, 5, 0, 2), range(1, 0, 0, 3)] {
            let err = edited("let x = 1;", vec![TextEdit::new(reversed, "y".into())]).unwrap_err();
            assert!(err.contains("ends before it starts"), "{err}");
        }
    }
}
