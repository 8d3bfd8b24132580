//! The notes a diagnostics report carries about what it did not count or
//! could not check: files of targets the build leaves out, files no
//! compilation database entry compiles, files outside
//! every project (checked with a server's defaults, or not at all), files
//! checked for syntax only, files the time bound left unchecked.

use std::path::PathBuf;

use crate::context::Context;
use crate::model::FileDiagnostics;
use crate::render;

/// Folders named when a workspace report runs out of time.
const UNCHECKED_FOLDERS_SHOWN: usize = 5;

/// Files of targets the build leaves out, found with errors or warnings
/// the build does not report: counted, and named with why, apart.
pub(super) fn unbuilt_note(apart: &[FileDiagnostics], unbuilt: &[(String, &str)]) -> String {
    let found = found_in(apart);
    const LISTED: usize = 5;
    let mut listed: Vec<String> = apart
        .iter()
        .take(LISTED)
        .map(|file| {
            let why = unbuilt
                .iter()
                .find(|(shown, _)| *shown == file.path)
                .map_or("", |(_, why)| why);
            format!("{}: {why}", file.path)
        })
        .collect();
    if apart.len() > LISTED {
        listed.push(format!("and {} more", apart.len() - LISTED));
    }
    format!(
        "{found} in {} the build leaves out (targets whose required features are off in the workspace's features) are not counted: {}; `cargo check --workspace --all-targets` reports none of them (pass one as `file` to see them)",
        crate::render::count(apart.len(), "file", "files"),
        listed.join("; ")
    )
}

/// Files no entry of the compilation database compiles (headers, sources
/// the build leaves out), found with errors or warnings: the server
/// checked each alone with a neighbour's flags, which the build never does
/// (unused macros of a header under `-Werror`), so they are counted apart.
pub(super) fn not_compiled_note(apart: &[FileDiagnostics], database: &str) -> String {
    let shown: Vec<String> = apart.iter().map(|file| file.path.clone()).collect();
    let each = if apart.len() == 1 { "it" } else { "each" };
    format!(
        "{} in {} no {database} entry compiles are not counted: {}; the server checked {each} alone with the flags of a file near it, which the build never does (a header's own errors show in the files that include it; pass one as `file` to see them)",
        found_in(apart),
        crate::render::count(apart.len(), "file", "files"),
        listed(&shown)
    )
}

/// "3 errors and 2 warnings": what `files` hold.
fn found_in(files: &[FileDiagnostics]) -> String {
    let [errors, warnings, ..] = files.iter().fold([0; 4], |mut sum, file| {
        for (total, n) in sum.iter_mut().zip(file.counts) {
            *total += n;
        }
        sum
    });
    match (errors, warnings) {
        (0, 0) => "findings".to_string(),
        (e, 0) => crate::render::count(e, "error", "errors"),
        (0, w) => crate::render::count(w, "warning", "warnings"),
        (e, w) => format!(
            "{} and {}",
            crate::render::count(e, "error", "errors"),
            crate::render::count(w, "warning", "warnings")
        ),
    }
}

/// Files whose diagnostics came from a server checking them outside every
/// project, with its default settings: the project's own check (`tsc -p`)
/// does not check them, so their errors may be none of the project's.
pub(super) fn outside_note(shown: &[String], configs: &str) -> String {
    let (files, are, them, they) = match shown.len() {
        1 => (listed(shown), "is", "it", "it was"),
        n => (
            format!("{n} files ({})", listed(shown)),
            "are",
            "them",
            "they were",
        ),
    };
    format!(
        "{files} {are} in no project (no {configs} includes {them}): {they} checked with the server's default settings, which the project's own check does not use"
    )
}

/// Files their server checked for syntax only: no errors there does not
/// mean the code is right (an undefined call, an assignment to a
/// constant go unreported).
pub(super) fn syntax_only_note(shown: &[String], full_checking: &str) -> String {
    let files = match shown.len() {
        1 => format!("{} was", listed(shown)),
        n => format!("{n} files ({}) were", listed(shown)),
    };
    format!("{files} checked for syntax only, not type-checked: {full_checking}")
}

/// The first few of `shown`, and how many more.
pub(super) fn listed(shown: &[String]) -> String {
    const LISTED: usize = 10;
    let mut listed = shown[..shown.len().min(LISTED)].join(", ");
    if shown.len() > LISTED {
        listed.push_str(&format!(" and {} more", shown.len() - LISTED));
    }
    listed
}

/// "N of M files were not checked within the bound", with the folders they
/// are in and how to check them.
pub(super) fn unchecked_note(ctx: &Context, unchecked: &[PathBuf], total: usize) -> String {
    let bound = ctx.lsp.config().workspace_diagnostics_timeout.as_secs_f64();
    format!(
        "{} of {total} files were not checked within {bound} s: {}; pass one of those folders (or a file) as `file`, or raise workspace_diagnostics_timeout in sextant.toml",
        unchecked.len(),
        by_folder(ctx, unchecked)
    )
}

/// Files in none of their server's projects (rust-analyzer's unlinked
/// files: no `mod` declares them, or no cargo project holds them): no
/// check reads them, so "no errors" there says nothing. Counted with the
/// folders they are in.
pub(super) fn unlinked_note(ctx: &Context, unlinked: &[PathBuf], total: usize) -> String {
    let (files, are, them) = match unlinked.len() {
        1 => ("1 file".to_string(), "is", "it"),
        n => (format!("{n} of {total} files"), "are", "them"),
    };
    format!(
        "{files} {are} in none of the server's projects, so nothing checked {them}: {} (pass one as `file` for why, and what to do)",
        by_folder(ctx, unlinked)
    )
}

/// `paths` counted by folder, the folders with most first, at most
/// `UNCHECKED_FOLDERS_SHOWN` named: `src/a (12), src/b (3), 2 more folders`.
fn by_folder(ctx: &Context, paths: &[PathBuf]) -> String {
    let mut folders: Vec<(String, usize)> = Vec::new();
    for path in paths {
        let folder = path
            .parent()
            .map_or_else(|| ".".to_string(), |p| ctx.workspace.display(p));
        match folders.iter_mut().find(|(f, _)| *f == folder) {
            Some((_, n)) => *n += 1,
            None => folders.push((folder, 1)),
        }
    }
    folders.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut listed: Vec<String> = folders
        .iter()
        .take(UNCHECKED_FOLDERS_SHOWN)
        .map(|(folder, n)| format!("{folder} ({n})"))
        .collect();
    if folders.len() > UNCHECKED_FOLDERS_SHOWN {
        listed.push(render::count(
            folders.len() - UNCHECKED_FOLDERS_SHOWN,
            "more folder",
            "more folders",
        ));
    }
    listed.join(", ")
}
