//! rust-analyzer (`cargo_projects`): started at a project's outermost
//! `Cargo.toml`, it loads the workspace it finds there and nothing else. A
//! repository often holds more: a workspace of its own in `examples/` or
//! `fuzz/`, an `xtask/` or a tool the root workspace excludes, each using
//! the root's crates by path. Left out, they are files rust-analyzer knows
//! nothing about: no definitions there, no completions, and references
//! and renames that miss every use in them. Its `linkedProjects` setting
//! lets one server hold them all, so the server is started with every
//! cargo project under its root: each workspace's manifest, and each
//! package's that no workspace above it holds.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSetBuilder};
use serde_json::Value;

use super::super::LspError;
use super::super::client::LspClient;
use super::super::config::LanguageConfig;
use lsp_types::request::Rename;
use lsp_types::{
    DocumentChangeOperation, DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier,
    RenameParams, TextDocumentEdit, WorkDoneProgressParams, WorkspaceEdit,
};

use super::super::navigate::{Spot, position_in, references_at};
use super::super::session::Session;
use crate::fast_map::FastSet;
use crate::fs::walk;
use crate::model::Position;

/// Manifests looked at under one root, at most.
const MAX_MANIFESTS: usize = 500;

/// The initialization options to start the server for `root` with:
/// `language`'s, with `linkedProjects` listing every cargo project under
/// the root when there is more than the root's own. `None` to start it as
/// configured (the quirk does not apply, the root holds one project, or
/// the configuration names the projects itself).
pub(in crate::lsp) fn initialization_options(
    language: &LanguageConfig,
    root: &Path,
) -> Option<Value> {
    if !language.cargo_projects {
        return None;
    }
    let configured = language.initialization_options.clone().unwrap_or_default();
    if configured.get("linkedProjects").is_some() {
        return None;
    }
    let projects = projects(root);
    if projects.len() < 2 {
        return None;
    }
    let mut options = match configured {
        Value::Object(options) => options,
        _ => serde_json::Map::new(),
    };
    let linked = projects
        .iter()
        .map(|manifest| Value::String(manifest.display().to_string()))
        .collect();
    options.insert("linkedProjects".into(), Value::Array(linked));
    Some(Value::Object(options))
}

/// Files of a project searched for a use to ask from, at most.
const MAX_SEED_FILES: usize = 2000;

/// Uses tried per project before it is taken to have none.
const MAX_SEEDS: usize = 5;

/// The folders of the cargo projects `client` was started with, when it
/// holds several (see `initialization_options`).
fn linked_folders(client: &LspClient) -> Vec<PathBuf> {
    if !client.language.cargo_projects {
        return Vec::new();
    }
    let linked = client
        .language
        .initialization_options
        .as_ref()
        .and_then(|options| options.get("linkedProjects"))
        .and_then(Value::as_array);
    linked
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|manifest| Path::new(manifest).parent().map(Path::to_path_buf))
        .collect()
}

/// The linked folders, and which holds a file: the deepest holding it
/// (each folder's depth counted once, not per file).
struct Projects<'a> {
    folders: &'a [PathBuf],
    depths: Vec<usize>,
}

impl<'a> Projects<'a> {
    fn new(folders: &'a [PathBuf]) -> Projects<'a> {
        let depths = folders.iter().map(|f| f.components().count()).collect();
        Projects { folders, depths }
    }

    /// The index of the project `path` belongs to.
    fn of(&self, path: &Path) -> Option<usize> {
        self.folders
            .iter()
            .enumerate()
            .filter(|(_, folder)| path.starts_with(folder))
            .max_by_key(|&(at, _)| self.depths[at])
            .map(|(at, _)| at)
    }
}

/// What asking from every linked project found: every place, and one place
/// in each project other than the document's that it was asked from.
struct Across {
    spots: Vec<Spot>,
    asked_from: Vec<Spot>,
}

/// Every reference to the symbol at `position`, through every linked
/// project: rust-analyzer holds one copy of a crate per workspace that
/// uses it (a workspace's own member and another's path dependency differ
/// in `cfg(test)` and environment), and answers references from one of
/// them, so the uses through the others are missing. It is asked again
/// from a place in each other project: a reference it already found
/// there, else a use of the name found in the project's files (the first
/// few, until one answers with a place the first answer has).
pub(in crate::lsp) async fn references_across(
    session: &Session,
    position: Position,
    include_declaration: bool,
    found: Vec<Spot>,
) -> Result<Vec<Spot>, LspError> {
    Ok(across(session, position, include_declaration, found)
        .await?
        .spots)
}

/// Whether `client` holds several cargo projects (see
/// `initialization_options`): its renames go through
/// [`rename_across`].
pub(in crate::lsp) fn holds_several(client: &LspClient) -> bool {
    linked_folders(client).len() > 1
}

/// A rename through every linked project (see `references_across`): the
/// server's `edit` from the session's document, with the edits it gives
/// when asked from a place in each other project merged in (each edit
/// once); and the symbol's references through every project, from those
/// it `found` from the document.
pub(in crate::lsp) async fn rename_across(
    session: &Session,
    position: Position,
    new_name: &str,
    edit: WorkspaceEdit,
    found: Vec<Spot>,
) -> Result<(WorkspaceEdit, Vec<Spot>), LspError> {
    let client = session.client();
    let across = across(session, position, true, found).await?;
    let mut merged = operations(edit);
    let renames = across.asked_from.iter().map(|place| async move {
        let at = position_in(client, &place.path, place.range.start).await?;
        let params = RenameParams {
            text_document_position: at,
            new_name: new_name.to_string(),
            work_done_progress_params: WorkDoneProgressParams::default(),
        };
        Some(client.request_settled::<Rename>(params).await)
    });
    // In the order asked, so the merged edit is the same every time.
    for more in futures::future::join_all(renames)
        .await
        .into_iter()
        .flatten()
    {
        if let Some(more) = more? {
            merge_operations(&mut merged, operations(more));
        }
    }
    let edit = WorkspaceEdit {
        document_changes: Some(DocumentChanges::Operations(merged)),
        ..WorkspaceEdit::default()
    };
    Ok((edit, across.spots))
}

async fn across(
    session: &Session,
    position: Position,
    include_declaration: bool,
    found: Vec<Spot>,
) -> Result<Across, LspError> {
    let client = session.client();
    let folders = linked_folders(client);
    let mut across = Across {
        spots: found,
        asked_from: Vec::new(),
    };
    let document = session.document();
    let name = identifier_at(document.index.text(), &document.index, position);
    let (true, Some(name)) = (folders.len() > 1, name) else {
        return Ok(across);
    };
    let projects = Projects::new(&folders);
    let all = &mut across.spots;
    let mut known: FastSet<Spot> = all.iter().cloned().collect();
    let mut covered: Vec<usize> = projects.of(&document.path).into_iter().collect();
    // Places already found in other projects. Those before `next` are in
    // covered projects (or none), and answers only add places after it.
    let mut next = 0;
    while let Some(skipped) = all[next..].iter().position(|spot| {
        projects
            .of(&spot.path)
            .is_some_and(|p| !covered.contains(&p))
    }) {
        let spot = all[next + skipped].clone();
        next += skipped + 1;
        covered.extend(projects.of(&spot.path));
        if let Some(at) = position_in(client, &spot.path, spot.range.start).await {
            let more = references_at(client, at, include_declaration).await?;
            merge(all, &mut known, more);
            across.asked_from.push(spot);
        }
    }
    // Uses of the name in the projects no answer reached.
    for (at, folder) in folders.iter().enumerate() {
        if covered.contains(&at) {
            continue;
        }
        let (folder, others) = (folder.clone(), folders.clone());
        let (name, owner) = (name.clone(), std::sync::Arc::clone(client));
        let seeds = tokio::task::spawn_blocking(move || {
            // Kept while the watcher covers the workspace: a walk costs
            // more than the rest of most answers.
            let watched = owner.disk_changes().is_some();
            let files = owner.walked.listed(&folder, watched, || {
                walk::sources(&folder).sorted().files().collect()
            });
            uses_of(&folder, &files, &others, &name)
        })
        .await
        .unwrap_or_default();
        for (path, position) in seeds {
            let Some(at) = position_in(client, &path, position).await else {
                continue;
            };
            let more = references_at(client, at, include_declaration).await?;
            if more.iter().any(|spot| known.contains(spot)) {
                merge(all, &mut known, more);
                across.asked_from.push(Spot {
                    path: path.into(),
                    range: crate::model::Range::new(position, position),
                });
                break;
            }
        }
    }
    Ok(across)
}

/// A WorkspaceEdit as the operations it makes, in order.
fn operations(edit: WorkspaceEdit) -> Vec<DocumentChangeOperation> {
    match (edit.document_changes, edit.changes) {
        (Some(DocumentChanges::Operations(operations)), _) => operations,
        (Some(DocumentChanges::Edits(edits)), _) => edits
            .into_iter()
            .map(DocumentChangeOperation::Edit)
            .collect(),
        (None, Some(changes)) => changes
            .into_iter()
            .map(|(uri, edits)| {
                DocumentChangeOperation::Edit(TextDocumentEdit {
                    text_document: OptionalVersionedTextDocumentIdentifier { uri, version: None },
                    edits: edits.into_iter().map(OneOf::Left).collect(),
                })
            })
            .collect(),
        (None, None) => Vec::new(),
    }
}

/// Adds what `more` does that `merged` does not: a text edit of a file goes
/// into the first edit of that file (all of a file's edits count from the
/// text before the rename); an operation on files (a module's file moved)
/// goes in once.
fn merge_operations(merged: &mut Vec<DocumentChangeOperation>, more: Vec<DocumentChangeOperation>) {
    for operation in more {
        match operation {
            DocumentChangeOperation::Edit(edit) => {
                let uri = edit.text_document.uri.clone();
                let existing = merged.iter_mut().find_map(|op| match op {
                    DocumentChangeOperation::Edit(e) if e.text_document.uri == uri => Some(e),
                    _ => None,
                });
                match existing {
                    Some(existing) => {
                        for text_edit in edit.edits {
                            if !existing.edits.contains(&text_edit) {
                                existing.edits.push(text_edit);
                            }
                        }
                    }
                    None => merged.push(DocumentChangeOperation::Edit(edit)),
                }
            }
            op => {
                if !merged.contains(&op) {
                    merged.push(op);
                }
            }
        }
    }
}

/// Adds the places of `more` that `all` lacks; `known` holds the places
/// of `all`, so each is looked up, not searched for.
fn merge(all: &mut Vec<Spot>, known: &mut FastSet<Spot>, more: Vec<Spot>) {
    for spot in more {
        if !known.contains(&spot) {
            known.insert(spot.clone());
            all.push(spot);
        }
    }
}

/// The identifier at `position`, or the one it ends.
fn identifier_at(
    text: &str,
    index: &super::super::convert::LineIndex,
    position: Position,
) -> Option<String> {
    let offset = index.offset_of(position)?;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    let end = text[offset..]
        .char_indices()
        .find(|(_, c)| !word(*c))
        .map_or(text.len(), |(i, _)| offset + i);
    (start < end).then(|| text[start..end].to_string())
}

/// The first few places `name` stands as a whole word in the Rust files of
/// the project at `folder` (of `files`, its walk; its nested projects left
/// to themselves).
fn uses_of(
    folder: &Path,
    files: &[PathBuf],
    folders: &[PathBuf],
    name: &str,
) -> Vec<(PathBuf, Position)> {
    let nested = |path: &Path| {
        folders
            .iter()
            .any(|other| other != folder && other.starts_with(folder) && path.starts_with(other))
    };
    let mut seeds = Vec::new();
    let files = files
        .iter()
        .filter(|path| path.extension().is_some_and(|e| e == "rs") && !nested(path))
        .take(MAX_SEED_FILES);
    for path in files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if !text.contains(name) {
            continue;
        }
        let index = super::super::convert::LineIndex::new(&text);
        for (offset, _) in text.match_indices(name) {
            let before = text[..offset].chars().next_back();
            let after = text[offset + name.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if word(before) || word(after) {
                continue;
            }
            seeds.push((path.clone(), index.byte_to_model(offset)));
            if seeds.len() == MAX_SEEDS {
                return seeds;
            }
        }
    }
    seeds
}

/// A manifest as far as membership goes.
struct Manifest {
    path: PathBuf,
    /// It declares `[workspace]`: its members, and what it excludes.
    workspace: Option<(Vec<String>, Vec<String>)>,
    /// It declares `[package]`.
    package: bool,
}

/// Every cargo project under `root`, in path order: the manifest of each
/// workspace, and of each package no workspace holds (none above it, or
/// one that neither lists it among its members nor is it).
pub(in crate::lsp) fn projects(root: &Path) -> Vec<PathBuf> {
    let mut manifests: Vec<Manifest> = manifests(root).filter_map(|path| read(&path)).collect();
    manifests.sort_by(|a, b| a.path.cmp(&b.path));
    let workspaces: Vec<&Manifest> = manifests.iter().filter(|m| m.workspace.is_some()).collect();
    manifests
        .iter()
        .filter(|manifest| {
            manifest.workspace.is_some()
                || (manifest.package && !workspaces.iter().any(|w| holds(w, manifest)))
        })
        .map(|manifest| manifest.path.clone())
        .collect()
}

/// Every `Cargo.toml` under `root`, in path order, at most
/// [`MAX_MANIFESTS`].
pub(super) fn manifests(root: &Path) -> impl Iterator<Item = PathBuf> {
    walk::sources(root)
        .sorted()
        .files()
        .filter(|path| path.file_name().is_some_and(|name| name == "Cargo.toml"))
        .take(MAX_MANIFESTS)
}

/// A manifest's list of strings (`members = [...]`); empty when absent or
/// of another shape.
pub(super) fn strings(value: Option<&toml::Value>) -> Vec<String> {
    value
        .and_then(toml::Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn read(path: &Path) -> Option<Manifest> {
    let text = std::fs::read_to_string(path).ok()?;
    let toml: toml::Table = toml::from_str(&text).ok()?;
    let workspace = toml
        .get("workspace")
        .and_then(toml::Value::as_table)
        .map(|table| (strings(table.get("members")), strings(table.get("exclude"))));
    Some(Manifest {
        path: path.to_path_buf(),
        workspace,
        package: toml.contains_key("package"),
    })
}

/// Whether `workspace` holds the package of `package`: its own, or a
/// member by its `members` globs and not `exclude`d.
fn holds(workspace: &Manifest, package: &Manifest) -> bool {
    let (Some((members, exclude)), Some(home), Some(dir)) = (
        &workspace.workspace,
        workspace.path.parent(),
        package.path.parent(),
    ) else {
        return false;
    };
    if dir == home {
        return true;
    }
    let Ok(relative) = dir.strip_prefix(home) else {
        return false;
    };
    if exclude
        .iter()
        .any(|excluded| relative.starts_with(Path::new(excluded)))
    {
        return false;
    }
    let mut globs = GlobSetBuilder::new();
    for member in members {
        let glob = GlobBuilder::new(member.trim_end_matches('/'))
            .literal_separator(true)
            .build();
        if let Ok(glob) = glob {
            globs.add(glob);
        }
    }
    globs.build().is_ok_and(|globs| globs.is_match(relative))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_workspace_and_every_package_no_workspace_holds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (file, text) in [
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"crates/skipped\"]\n",
            ),
            ("crates/a/Cargo.toml", "[package]\nname = \"a\"\n"),
            (
                "crates/skipped/Cargo.toml",
                "[package]\nname = \"skipped\"\n",
            ),
            ("examples/Cargo.toml", "[workspace]\nmembers = [\"*\"]\n"),
            ("examples/demo/Cargo.toml", "[package]\nname = \"demo\"\n"),
            ("xtask/Cargo.toml", "[package]\nname = \"xtask\"\n"),
            ("target/debug/Cargo.toml", "[package]\nname = \"built\"\n"),
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let found: Vec<String> = projects(root)
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "Cargo.toml",
                "crates/skipped/Cargo.toml",
                "examples/Cargo.toml",
                "xtask/Cargo.toml"
            ]
        );
    }
}
