//! `references`: every reference to a symbol, grouped by file (the
//! declaration's file first), each line with the symbol that encloses that
//! reference, from the file's outline. References on one line share it;
//! library files are left out unless asked for.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use super::address::{Address, resolve};
use super::audit::{Counted, RenamedTexts, TextAudit, other_symbols};
use super::locations::{PathNumbers, SourceFiles, place};
use super::page::Pager;
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::lsp::Need;
use crate::lsp::navigate::{Goto, Spot, goto, references as find_references};
use crate::model::{NumberedLine, Place, Position, ReferenceFile, ReferenceLine, ReferencesResult};

/// References shown when no limit is given.
const DEFAULT_LIMIT: usize = 100;

/// The most context lines on either side.
const MAX_CONTEXT: u32 = 10;

pub struct References;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    #[serde(flatten)]
    pub at: Address,
    pub include_declaration: Option<bool>,
    pub context: Option<u32>,
    pub limit: Option<usize>,
    pub offset: Option<usize>,
    /// Also node_modules and crates
    pub include_external: Option<bool>,
}

impl Tool for References {
    const NAME: &'static str = "references";
    const DESCRIPTION: &'static str =
        "Every use of a symbol, grouped by file, with its line and enclosing symbol.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = ReferencesResult;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<ReferencesResult> {
        references(&ctx, params).await
    }

    fn render(output: &ReferencesResult) -> Vec<String> {
        crate::render::references(output)
    }
}

async fn references(ctx: &Context, params: Params) -> ToolResult<ReferencesResult> {
    let context = params.context.unwrap_or(0);
    if context > MAX_CONTEXT {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("context is at most {MAX_CONTEXT} lines"),
        ));
    }
    let limit = params.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let offset = params.offset.unwrap_or(0);
    let resolved = resolve(ctx, &params.at).await?;
    let session = ctx.lsp.open(&resolved.path, Need::SEEING).await?;
    // References in a project the server has not loaded are not found.
    let unloaded = session.unloaded_note("references");
    let position = resolved.target.position;
    let include_declaration = params.include_declaration.unwrap_or(true);
    // The declaration's file comes first: the address's own when it is on
    // a declaration, else where the server says it is defined (asked
    // beside the references, so it costs no time).
    let on_declaration = resolved.target.declaration.is_some();
    // The text audit's walk of the workspace (where the address's language
    // has one) runs meanwhile too: it needs nothing from the server.
    let name = &resolved.target.name;
    let (found, definition, early_places) = tokio::join!(
        find_references(&session, position, include_declaration),
        async {
            if on_declaration {
                return None;
            }
            goto(&session, position, Goto::Definition).await.ok()
        },
        async {
            let audit = TextAudit::for_file(ctx, &resolved.path)?;
            Some(audit.places(ctx, name, RenamedTexts::default()).await)
        },
    );
    let spots = found?;
    let server_found_none = spots.is_empty();
    // By file, so what is asked of a path (whose code it is, how it is
    // shown) is asked once per file, not per reference.
    let mut in_files = by_path(spots);
    let mut notes: Vec<String> = unloaded.into_iter().collect();
    if !session.index_complete() {
        notes.push(format!(
            "{} is still indexing; references may be missing",
            session.server()
        ));
    }
    if !params.include_external.unwrap_or(false) {
        let mut left = 0;
        in_files.retain(|(path, positions)| {
            let ours = place(ctx, path) == Place::Workspace;
            if !ours {
                left += positions.len();
            }
            ours
        });
        if left > 0 {
            notes.push(format!(
                "{} in library files left out; pass include_external: true to list them",
                crate::render::count(left, "reference", "references")
            ));
        }
    }
    // None at all, not even the declaration: maybe the server knows the
    // file's text only.
    if in_files.is_empty() {
        if let Some(note) = session.unlinked_note().await {
            notes.push(note);
        } else if server_found_none && include_declaration && on_declaration {
            // A server that knows the name there answers with the
            // declaration at least: none at all is a server that has not
            // loaded the file, or one that does not track the name (a
            // JavaScript member assigned to an untyped object).
            notes.push(format!(
                "{} gave not even the declaration: it has not loaded this file's project yet (retry in a moment; see `logs`), or does not track `{}` there as a symbol",
                session.server(),
                resolved.target.name
            ));
        }
    }
    // Where the server says the symbol is defined, asked for or not: the
    // audit tells another symbol of the name by its definition elsewhere.
    let defined_at: Vec<(PathBuf, Position)> = definition
        .iter()
        .flatten()
        .map(|spot| (spot.path.to_path_buf(), spot.range.start))
        .collect();
    // The declaration's file first, then by path; by position in a file.
    let declared_in = definition
        .and_then(|d| d.into_iter().next())
        .map_or_else(|| resolved.path.clone(), |d| d.path.to_path_buf());
    // Where the server cannot always tell a name's uses (and the files of
    // other languages that hold this one's code, `.svelte`, which it does
    // not read): the places it left out of those the text holds, but for
    // those it knows as another symbol of the same name.
    if let Some(audit) = TextAudit::for_file(ctx, &declared_in) {
        let places = match early_places {
            Some(places) => places?,
            None => audit.places(ctx, name, RenamedTexts::default()).await?,
        };
        // The declaration among them, even when not listed
        // (`include_declaration: false`; on it, the position asked about).
        let counted = Counted::new(
            in_files
                .iter()
                .flat_map(|(path, positions)| positions.iter().map(|at| (path.as_path(), *at)))
                .chain([(resolved.path.as_path(), position)])
                .chain(defined_at.iter().map(|(path, at)| (path.as_path(), *at))),
        );
        let others = other_symbols(ctx, &places.code_left_out(&counted), &counted).await;
        let places = places.without(&others);
        let found = audit.notes(
            ctx,
            name,
            &places,
            &counted,
            "did not count as references",
            false,
        );
        notes.extend(found.into_iter().map(|(_, note)| note));
    }
    notes.extend(ctx.lsp.uncovered_note("not searched for uses").await);
    let mut by_file: BTreeMap<(bool, String), (PathBuf, Vec<Position>)> = BTreeMap::new();
    for (path, positions) in in_files {
        // Two spellings of one file (the root as given and as resolved)
        // are shown as one.
        let key = (path != declared_in, ctx.workspace.display(&path));
        by_file
            .entry(key)
            .or_insert_with(|| (path, Vec::new()))
            .1
            .extend(positions);
    }
    for (_, positions) in by_file.values_mut() {
        positions.sort();
        positions.dedup();
    }
    let total: usize = by_file.values().map(|(_, p)| p.len()).sum();
    let total_files = by_file.len();

    let mut files = SourceFiles::new(ctx);
    // The files the page can show, parsed at once.
    let mut before = 0;
    let on_page = by_file.values().filter_map(|(path, positions)| {
        let first = before;
        before += positions.len();
        (before > offset && first < offset + limit).then_some(path.as_path())
    });
    files.parse_all(on_page).await;
    let mut page = Vec::new();
    let mut pager = Pager::new(offset, Some(limit));
    let (mut left_out, mut left_out_files) = (0, 0);
    'files: for ((_, shown), (path, positions)) in &by_file {
        let mut file = ReferenceFile {
            path: shown.clone(),
            total: positions.len(),
            lines: Vec::new(),
        };
        // Its header: the path and at most `(999 references)`.
        pager.add(shown.len() + 20);
        let mut printed_to = 0;
        for &position in positions {
            if pager.skip() {
                continue;
            }
            let (enclosing, shown_in) = files.enclosing(path, position).await;
            // Several references on one line and in one symbol share it.
            let shares_line = file
                .lines
                .last()
                .is_some_and(|last| last.line == position.line && last.enclosing == enclosing);
            let line = if shares_line {
                None
            } else {
                let text = files.line(path, position).await;
                let mut lines = Vec::new();
                if context > 0 {
                    let first = position.line.saturating_sub(context).max(printed_to + 1);
                    for (number, text) in files.lines(path, first, position.line + context).await {
                        lines.push(NumberedLine {
                            number: number as usize,
                            text,
                            cut_from: None,
                        });
                    }
                }
                Some(ReferenceLine {
                    line: position.line,
                    characters: vec![position.character],
                    enclosing,
                    shown_in,
                    text,
                    context: lines,
                })
            };
            let size = match &line {
                Some(line) => crate::render::reference_line(line).len(),
                None => format!(",{}", position.character).len(),
            };
            if !pager.admit(size) {
                // What is left: the rest of this file, and the files after.
                left_out = total - pager.page(total).next_offset.unwrap_or(total);
                left_out_files = by_file.keys().skip_while(|key| key.1 != *shown).count();
                if !file.lines.is_empty() {
                    page.push(file);
                }
                break 'files;
            }
            match line {
                Some(line) => {
                    if context > 0 {
                        printed_to = printed_to.max(position.line + context);
                    }
                    file.lines.push(line);
                }
                None => {
                    if let Some(last) = file.lines.last_mut() {
                        last.characters.push(position.character);
                    }
                }
            }
        }
        if !file.lines.is_empty() {
            page.push(file);
        }
    }
    let next_offset = pager.page(total).next_offset;
    if offset > total && total > 0 {
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!("offset {offset} is past the last reference ({total} in all)"),
        ));
    }
    Ok(ReferencesResult {
        target: resolved.target,
        total,
        total_files,
        files: page,
        offset,
        next_offset,
        left_out,
        left_out_files,
        notes,
    })
}

/// The spots' starts by file, files in the order first met. Spots come
/// file by file, a run of one file sharing its path: the last spot's
/// file is compared by pointer before any path is.
fn by_path(spots: Vec<Spot>) -> Vec<(PathBuf, Vec<Position>)> {
    let mut numbers = PathNumbers::default();
    let mut positions: Vec<Vec<Position>> = Vec::new();
    let mut last: Option<(Arc<Path>, usize)> = None;
    for Spot { path, range } in spots {
        let number = match &last {
            Some((last, number)) if Arc::ptr_eq(last, &path) => *number,
            _ => numbers.number(&path),
        };
        if number == positions.len() {
            positions.push(Vec::new());
        }
        positions[number].push(range.start);
        last = Some((path, number));
    }
    numbers.into_paths().into_iter().zip(positions).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Range;

    #[test]
    fn spots_are_grouped_by_file_in_the_order_first_met() {
        let spot = |path: &Arc<Path>, line: u32| Spot {
            path: Arc::clone(path),
            range: Range::new(Position::new(line, 1), Position::new(line, 2)),
        };
        let a: Arc<Path> = Path::new("/w/a.ts").into();
        let b: Arc<Path> = Path::new("/w/b.ts").into();
        // The same file again, through another `Arc` (another run).
        let a_again: Arc<Path> = Path::new("/w/a.ts").into();
        let spots = vec![
            spot(&a, 1),
            spot(&a, 2),
            spot(&b, 3),
            spot(&a_again, 4),
            spot(&b, 5),
        ];
        assert_eq!(
            by_path(spots),
            vec![
                (
                    PathBuf::from("/w/a.ts"),
                    vec![
                        Position::new(1, 1),
                        Position::new(2, 1),
                        Position::new(4, 1)
                    ]
                ),
                (
                    PathBuf::from("/w/b.ts"),
                    vec![Position::new(3, 1), Position::new(5, 1)]
                ),
            ]
        );
    }
}
