//! sextant's outline of real library declaration files against their
//! language server's `documentSymbol`.
//!
//! Run it with `cargo bench --bench library_outlines -- DIR` (or
//! `SEXTANT_BENCH_CORPUS=DIR`), DIR a project with an installed
//! `node_modules` (a pnpm store included). Every `.d.ts`, `.d.mts` and
//! `.d.cts` file under it is outlined as `read` outlines it (tree-sitter; a
//! file it cannot parse whole takes the ready server's outline) and asked
//! of the project's TypeScript server. A server symbol is missing when the
//! outline has no symbol of its name on its line (the kinds may differ on
//! purpose: ARCHITECTURE, "Decisions worth knowing"; a name in single
//! quotes is the name TypeScript 7 shows in double quotes). A server symbol
//! that is an import's binding is not a declaration of the file and is not
//! counted (TypeScript 7's native server lists them), nor one of an export
//! list, an export of a name declared elsewhere, or a name in a comment.
//!
//! It prints how many files tree-sitter could not parse whole, how many
//! had a server symbol missing from sextant's outline (the target: at most
//! 0.5% of the files), and the first misses with their rows, to look at.
//! `$SEXTANT_BENCH_SAMPLE=N` takes every Nth file. Without a corpus it
//! says how to give one and measures nothing.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "section.rs"]
mod section;

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use sextant::lsp::Need;
use sextant::lsp::symbols::document_symbols;
use sextant::model::OutlineSymbol;
use sextant::syntax::filter_outline;
use sextant::tools::outline::{FileOutline, outline};

/// The target: at most this share of files with a symbol missing.
const TARGET_SHARE: f64 = 0.005;
/// Misses printed in full.
const SHOWN: usize = 20;

/// The allocator of sextant's binary (see `src/main.rs`): sextant's code
/// run here is measured as it ships.
#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let corpus = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .or_else(|| std::env::var("SEXTANT_BENCH_CORPUS").ok());
    let Some(corpus) = corpus else {
        println!(
            "library outlines: no corpus given; run `cargo bench --bench library_outlines -- DIR` \
             with DIR a project whose node_modules is installed"
        );
        return;
    };
    let root = std::fs::canonicalize(&corpus).unwrap_or_else(|err| panic!("{corpus}: {err}"));
    let sample: usize = std::env::var("SEXTANT_BENCH_SAMPLE")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
        .max(1);
    let mut files = Vec::new();
    declaration_files(&root.join("node_modules"), &mut files);
    files.sort();
    let files: Vec<PathBuf> = files.into_iter().step_by(sample).collect();
    println!(
        "library outlines: {} declaration files under {}/node_modules{}",
        files.len(),
        root.display(),
        if sample > 1 {
            format!(" (one in {sample})")
        } else {
            String::new()
        }
    );
    let Some(first) = files.first() else {
        return;
    };

    let ctx = common::context(&root, false);
    let started = Instant::now();
    let session = ctx
        .lsp
        .open(first, Need::DOCUMENT)
        .await
        .expect("the project's TypeScript server");
    let server = session.server().to_string();
    drop(session);
    println!("{server} ready in {:.1} s", started.elapsed().as_secs_f64());

    let started = Instant::now();
    let mut unparsed = 0;
    let mut failed = Vec::new();
    let mut missing = Vec::new();
    for (done, path) in files.iter().enumerate() {
        if done > 0 && done % 500 == 0 {
            eprintln!(
                "  {done} files in {:.0} s, {} with a symbol missing",
                started.elapsed().as_secs_f64(),
                missing.len()
            );
        }
        let shown = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let ours = match outline(&ctx, path, &shown).await {
            Ok(outline) => outline,
            Err(err) => {
                failed.push(format!("{shown}: sextant: {err}"));
                continue;
            }
        };
        if matches!(ours, FileOutline::Server { .. }) {
            unparsed += 1;
        }
        let theirs = match server_symbols(&ctx, path).await {
            Ok(symbols) => symbols,
            Err(err) => {
                failed.push(format!("{shown}: {server}: {err}"));
                continue;
            }
        };
        let lacking = lacking(ours.symbols(), &theirs, ours.text());
        if !lacking.is_empty() {
            missing.push((shown, lacking));
        }
    }
    let seconds = started.elapsed().as_secs_f64();

    let compared = files.len() - failed.len();
    let share = missing.len() as f64 / compared.max(1) as f64;
    println!(
        "{compared} files compared in {seconds:.1} s; {unparsed} tree-sitter could not parse whole (the server's outline was used)"
    );
    println!(
        "files with a server symbol missing: {} ({:.2}%; target at most {:.1}%){}",
        missing.len(),
        share * 100.0,
        TARGET_SHARE * 100.0,
        if share <= TARGET_SHARE { "" } else { " MISSED" }
    );
    for line in &failed {
        println!("  not compared: {line}");
    }
    for (file, rows) in missing.iter().take(SHOWN) {
        println!("  {file}: {}", rows.join(", "));
    }
    if missing.len() > SHOWN {
        println!("  ... and {} more files", missing.len() - SHOWN);
    }

    // Its own section of BENCHMARKS.md: the figures, and the files missing
    // a symbol by package.
    let mut out = String::new();
    writeln!(out, "{}\n", section::LIBRARY_OUTLINES).unwrap();
    writeln!(
        out,
        "`cargo bench --bench library_outlines -- DIR`: sextant's outline of every declaration file under DIR/node_modules (the pnpm store included, each file once{}) against TypeScript's server's documentSymbol, filtered as `read` filters; a file misses a symbol when the outline has none of its name on its line. DIR: {}, {} files, {:.0} s, on {}.\n",
        if sample > 1 { format!(", one in {sample}") } else { String::new() },
        root.display(),
        compared,
        seconds,
        utc_now()
    )
    .unwrap();
    writeln!(
        out,
        "Files with a symbol missing: {} ({:.2}%; target at most {:.1}%: {}). Files tree-sitter cannot parse whole, outlined by the server instead: {unparsed}.",
        missing.len(),
        share * 100.0,
        TARGET_SHARE * 100.0,
        if share <= TARGET_SHARE { "met" } else { "MISSED" }
    )
    .unwrap();
    if !missing.is_empty() {
        let mut packages: Vec<String> = missing.iter().map(|(file, _)| package_of(file)).collect();
        packages.dedup();
        writeln!(out, "\nBy package: {}.", packages.join(", ")).unwrap();
    }
    section::write(section::LIBRARY_OUTLINES, &out);
}

/// The time now, as `date -u` gives it (`?` without one).
fn utc_now() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|date| !date.is_empty())
        .unwrap_or_else(|| "?".to_string())
}

/// The package a file under `node_modules` belongs to: `zod@4.3.6` from a
/// pnpm store path, else the folder after the last `node_modules`.
fn package_of(file: &str) -> String {
    let after = |marker: &str| file.rsplit_once(marker).map(|(_, rest)| rest);
    if let Some(rest) = file.split_once(".pnpm/").map(|(_, rest)| rest) {
        return rest.split('/').next().unwrap_or(rest).replace('+', "/");
    }
    let rest = after("node_modules/").unwrap_or(file);
    let mut parts = rest.split('/');
    match parts.next() {
        Some(scope) if scope.starts_with('@') => {
            format!("{scope}/{}", parts.next().unwrap_or(""))
        }
        Some(name) => name.to_string(),
        None => rest.to_string(),
    }
}

/// Every declaration file under `dir`, symbolic links not followed (a pnpm
/// store's packages are linked from `node_modules`; each file counts once).
fn declaration_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            declaration_files(&path, out);
        } else if kind.is_file() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if [".d.ts", ".d.mts", ".d.cts"]
                .iter()
                .any(|e| name.ends_with(e))
            {
                out.push(path);
            }
        }
    }
}

/// The server's outline of `path`, filtered as `read` filters it.
async fn server_symbols(
    ctx: &sextant::context::Context,
    path: &Path,
) -> Result<Vec<OutlineSymbol>, String> {
    let session = ctx
        .lsp
        .open(path, Need::DOCUMENT)
        .await
        .map_err(|e| e.to_string())?;
    let symbols = document_symbols(&session)
        .await
        .map_err(|e| e.to_string())?;
    Ok(filter_outline(symbols))
}

/// The server's symbols that `ours` has no symbol of the same name on the
/// same line for, as `@line:char Kind - name` rows; bindings are left out.
fn lacking(ours: &[OutlineSymbol], theirs: &[OutlineSymbol], text: &str) -> Vec<String> {
    let mut have = HashSet::new();
    for (_, symbol) in common::outline_rows(ours) {
        have.insert((
            quoted_alike(&symbol.name),
            symbol.selection_range.start.line,
        ));
    }
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
        .expect("the TypeScript grammar");
    let tree = parser.parse(text, None).expect("a tree");
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    common::outline_rows(theirs)
        .into_iter()
        .filter(|(_, s)| !have.contains(&(quoted_alike(&s.name), s.selection_range.start.line)))
        .filter(|(_, s)| !is_binding(&tree, text, &line_starts, s))
        .map(|(row, _)| row.trim_start().to_string())
        .collect()
}

/// A name quoted as the source quotes it (`'max-age'`) and as TypeScript 7
/// shows it (`"max-age"`) compare equal.
fn quoted_alike(name: &str) -> String {
    match name.strip_prefix('\'').and_then(|n| n.strip_suffix('\'')) {
        Some(inner) => format!("\"{inner}\""),
        None => name.to_string(),
    }
}

/// Whether a server symbol names a binding rather than a declaration: an
/// import's (`import { A } from`), an export list's (`export { A as B }`,
/// `export type { A }`), or an export of a name declared elsewhere
/// (`export = A`, `export default A`). TypeScript 7's native server lists
/// them; an outline is the file's own declarations. A name inside a comment
/// (a JSDoc `@typedef`, which TypeScript honours only in JavaScript files)
/// declares nothing either.
fn is_binding(
    tree: &tree_sitter::Tree,
    text: &str,
    line_starts: &[usize],
    symbol: &OutlineSymbol,
) -> bool {
    let start = symbol.selection_range.start;
    let Some(&line_start) = line_starts.get(start.line as usize - 1) else {
        return false;
    };
    let byte = line_start
        + text[line_start..]
            .chars()
            .take(start.character as usize - 1)
            .map(char::len_utf8)
            .sum::<usize>();
    let mut node = tree.root_node().descendant_for_byte_range(byte, byte);
    while let Some(n) = node {
        match n.kind() {
            "import_statement" | "import_alias" | "export_clause" | "namespace_export"
            | "comment" => {
                return true;
            }
            "export_statement" => return n.child_by_field_name("declaration").is_none(),
            _ => {}
        }
        node = n.parent();
    }
    false
}
