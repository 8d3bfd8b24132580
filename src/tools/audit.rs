//! The text audit of a server's answer about a name, where the server
//! cannot always tell a name's uses (the language's `text_audit` files:
//! JavaScript, whose members' objects often have no type): every place the
//! name appears as code in the workspace's files of that language, found by
//! a word search and told from comments and strings by tree-sitter. What
//! the answer left out of those is named, so an answer that may be short
//! says where, and a rename that leaves such places is not written. A place
//! where the server knows the name as another symbol (a local variable of
//! the same name: `var send = require('./res').send`) is not left out.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::blocking;
use crate::context::Context;
use crate::error::ToolResult;
use crate::fs::walk;
use crate::lsp::Need;
use crate::lsp::config::AuditScope;
use crate::lsp::navigate::references;
use crate::model::Position;
use crate::syntax::{self, Language, Token};

/// Files read at most, and the largest read: past these the audit says
/// how many it did not read.
const MAX_FILES: usize = 5_000;
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// Places named in a note, at most.
const SHOWN: usize = 8;

/// Places whose references are asked for, at most: the rest stay named.
const ASKED: usize = 40;

/// The audit for answers about a name declared in one file.
pub struct TextAudit {
    /// The language whose files are searched (its name in `sextant.toml`).
    language: String,
    /// Why the server's answer may be short, as the note says it.
    why: String,
    /// Where in the files the name is looked for.
    scope: AuditScope,
    /// For the files of other languages that embed this one's code
    /// (`embedded_in`): their extensions. They have no grammar here, so
    /// every whole-word match counts.
    embedded: Option<Vec<String>>,
}

/// Where a name appears as code.
#[derive(Debug, Default)]
pub struct Places {
    /// By file, in position order.
    pub by_file: BTreeMap<PathBuf, Vec<Position>>,
    /// Files of the language not read (the bounds).
    pub unread: usize,
}

impl Places {
    /// Without the places of `others`.
    pub fn without(mut self, others: &HashSet<(PathBuf, Position)>) -> Places {
        for (path, positions) in &mut self.by_file {
            positions.retain(|at| !others.contains(&(path.clone(), *at)));
        }
        self.by_file.retain(|_, positions| !positions.is_empty());
        self
    }

    /// Its places that `counted` does not hold.
    pub fn left_out(&self, counted: &[(PathBuf, Position)]) -> Vec<(PathBuf, Position)> {
        self.by_file
            .iter()
            .flat_map(|(path, positions)| positions.iter().map(move |p| (path.clone(), *p)))
            .filter(|(path, at)| !counted.iter().any(|(p, c)| p == path && c == at))
            .collect()
    }
}

/// Of `candidates` (places in the files as they are on disk), those the
/// server knows as another symbol of the same name (a local variable, an
/// alias: `var send = require('./res').send`), not uses an answer left
/// out: its references there are more than the place itself and share
/// none of `uses`, the server's references of the symbol asked about.
/// Where the server knows nothing, the place stays a candidate.
pub async fn other_symbols(
    ctx: &Context,
    candidates: &[(PathBuf, Position)],
    uses: &[(PathBuf, Position)],
) -> HashSet<(PathBuf, Position)> {
    let mut others = HashSet::new();
    // With no uses to tell them from, every place stays a candidate.
    if uses.is_empty() {
        return others;
    }
    for (path, at) in candidates.iter().take(ASKED) {
        if others.contains(&(path.clone(), *at)) {
            continue;
        }
        let Ok(session) = ctx.lsp.open(path, Need::DOCUMENT).await else {
            continue;
        };
        let found = references(&session, *at, true).await;
        session.release().await;
        let Ok(found) = found else {
            continue;
        };
        let found: Vec<(PathBuf, Position)> = found
            .into_iter()
            .map(|spot| (spot.path, spot.range.start))
            .collect();
        let beyond_itself = found.iter().any(|(p, a)| p != path || a != at);
        if beyond_itself && !found.iter().any(|place| uses.contains(place)) {
            others.insert((path.clone(), *at));
            others.extend(found);
        }
    }
    others
}

impl TextAudit {
    /// The audit for answers about names declared in `path`, when its
    /// language asks for one there.
    pub fn for_file(ctx: &Context, path: &Path) -> Option<TextAudit> {
        let language = ctx.lsp.config().language_for(path)?;
        let audit = language.text_audit.as_ref()?;
        let extension = path.extension()?.to_str()?;
        audit
            .extensions
            .iter()
            .any(|e| e == extension)
            .then(|| TextAudit {
                language: language.name.clone(),
                why: audit.why.clone(),
                scope: audit.scope,
                embedded: None,
            })
    }

    /// The audit of the files that embed the code of `path`'s language
    /// where its server does not read them (`.svelte`, `.vue`), when the
    /// language names some.
    pub fn embedded_for_file(ctx: &Context, path: &Path) -> Option<TextAudit> {
        let language = ctx.lsp.config().language_for(path)?;
        let embedded = language.embedded_in.as_ref()?;
        Some(TextAudit {
            language: language.name.clone(),
            why: embedded.why.clone(),
            scope: AuditScope::Code,
            embedded: Some(embedded.extensions.clone()),
        })
    }

    /// Every place `name` appears as code in the workspace's files of the
    /// language, .gitignore respected; a file in `texts` is read from
    /// there instead of the disk (a rename's result).
    pub async fn places(
        &self,
        ctx: &Context,
        name: &str,
        texts: HashMap<PathBuf, String>,
    ) -> ToolResult<Places> {
        let config = ctx.lsp.config().clone();
        let root = ctx.workspace.root().to_path_buf();
        let (language, name, scope) = (self.language.clone(), name.to_string(), self.scope);
        let embedded = self.embedded.clone();
        blocking(move || {
            let mut places = Places::default();
            let mut read = 0;
            let files =
                walk::sources(&root)
                    .sorted()
                    .file_entries()
                    .filter(|entry| match &embedded {
                        Some(extensions) => entry
                            .path()
                            .extension()
                            .and_then(|e| e.to_str())
                            .is_some_and(|e| extensions.iter().any(|x| x == e)),
                        None => config
                            .language_for(entry.path())
                            .is_some_and(|l| l.name == language),
                    });
            for entry in files {
                let path = entry.path();
                let text = match texts.get(path) {
                    Some(text) => Some(text.clone()),
                    None if read == MAX_FILES
                        || entry.metadata().map_or(true, |m| m.len() > MAX_FILE_BYTES) =>
                    {
                        None
                    }
                    None => std::fs::read_to_string(path).ok(),
                };
                let Some(text) = text else {
                    places.unread += 1;
                    continue;
                };
                read += 1;
                let found = match &embedded {
                    Some(_) => word_places(&text, &name),
                    None => code_places(path, text, &name, scope),
                };
                if !found.is_empty() {
                    places.by_file.insert(path.to_path_buf(), found);
                }
            }
            Ok(places)
        })
        .await
    }

    /// The note for the places of `places` that `counted` does not hold,
    /// `left_out` saying what the server did with them (`did not count as
    /// references`, `did not rename`); `None` when it holds them all. Places are shown as
    /// `file:line:char`, or `file:line` with `lines_only`.
    pub fn note(
        &self,
        ctx: &Context,
        name: &str,
        places: &Places,
        counted: &[(PathBuf, Position)],
        left_out: &str,
        lines_only: bool,
    ) -> Option<String> {
        let left: Vec<(&PathBuf, &Position)> = places
            .by_file
            .iter()
            .flat_map(|(path, positions)| positions.iter().map(move |p| (path, p)))
            .filter(|(path, position)| {
                !counted.iter().any(|(p, at)| {
                    p == *path && at.line == position.line && at.character == position.character
                })
            })
            .collect();
        let unread = match places.unread {
            0 => String::new(),
            n => format!(
                " ({} of the language not read: too many or too large)",
                crate::render::count(n, "file", "files")
            ),
        };
        if left.is_empty() {
            return (places.unread > 0).then(|| {
                format!("`{name}` was looked for as code in the workspace's files beside the server's answer{unread}")
            });
        }
        let files = left
            .iter()
            .map(|(path, _)| *path)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let mut shown: Vec<String> = left
            .iter()
            .take(SHOWN)
            .map(|(path, at)| {
                let file = ctx.workspace.display(path);
                if lines_only {
                    format!("{file}:{}", at.line)
                } else {
                    format!("{file}:{}:{}", at.line, at.character)
                }
            })
            .collect();
        shown.dedup();
        if left.len() > SHOWN {
            shown.push(format!("and {} more", left.len() - SHOWN));
        }
        Some(format!(
            "`{name}` also appears {}in {} in {} that the server {left_out} ({}){unread}: {}; check them",
            if self.embedded.is_some() {
                ""
            } else {
                "as code "
            },
            crate::render::count(left.len(), "place", "places"),
            crate::render::count(files, "file", "files"),
            shown.join(", "),
            self.why
        ))
    }
}

/// Where `name` appears as a whole word in `text`.
fn word_places(text: &str, name: &str) -> Vec<Position> {
    if name.is_empty() || !text.contains(name) {
        return Vec::new();
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let lines = syntax::LineIndex::new(text);
    text.match_indices(name)
        .map(|(at, _)| at)
        .filter(|&at| {
            !text[..at].chars().next_back().is_some_and(is_word)
                && !text[at + name.len()..].chars().next().is_some_and(is_word)
        })
        .map(|at| lines.position(text, at))
        .collect()
}

/// Where `name` appears as a whole word in `text` and tree-sitter reads a
/// name there (not a comment, a string or a keyword), within `scope`.
fn code_places(path: &Path, text: String, name: &str, scope: AuditScope) -> Vec<Position> {
    if name.is_empty() || !text.contains(name) {
        return Vec::new();
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let offsets: Vec<usize> = text
        .match_indices(name)
        .map(|(at, _)| at)
        .filter(|&at| {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(is_word)
        })
        .collect();
    if offsets.is_empty() {
        return Vec::new();
    }
    let Some(language) = Language::from_path(path) else {
        return Vec::new();
    };
    let file = syntax::parse(language, text);
    offsets
        .into_iter()
        .map(|at| file.lines().position(file.text(), at))
        .filter(|&position| file.token_at(position) == Token::Name)
        .filter(|&position| scope == AuditScope::Code || file.in_macro(position))
        .collect()
}
