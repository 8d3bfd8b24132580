//! Text for `search`: a summary block, then one block per file.

use std::fmt::Write;

use super::count;
use crate::model::{Page, SearchResult, SearchSymbol};

/// `Found 13 matches for query "create" across 8 files, from typescript-go`,
/// the notes, then
/// each file: `src/a.ts (2 results)` and its `@line:char Kind - name`
/// lines, each with its declaration under it.
/// One match of a search block: `\n  @12:5 Method - Registry.add` and its
/// declaration under it.
pub fn search_symbol(symbol: &SearchSymbol) -> String {
    let mut out = format!(
        "\n  @{} {} - {}",
        symbol.position,
        symbol.kind.name(),
        symbol.name
    );
    if let Some(signature) = &symbol.signature {
        let _ = write!(out, "\n    `{signature}`");
    }
    out
}

pub fn search(result: &SearchResult) -> Vec<String> {
    let mut summary = if result.total == 0 {
        format!("No matches for query \"{}\"", result.query)
    } else {
        format!(
            "Found {} for query \"{}\" across {}",
            count(result.total, "match", "matches"),
            result.query,
            count(result.total_files, "file", "files")
        )
    };
    if let Some((last, others)) = result.sources.split_last() {
        let _ = match others {
            [] => write!(summary, ", from {last}"),
            _ => write!(summary, ", from {} and {last}", others.join(", ")),
        };
    }
    for note in &result.notes {
        let _ = write!(summary, "\nNote: {note}");
    }
    let mut blocks = vec![summary];
    for file in &result.files {
        let shown = file.symbols.len();
        let mut block = if shown == file.total {
            format!("{} ({})", file.path, count(shown, "result", "results"))
        } else {
            format!("{} ({shown} of {} results)", file.path, file.total)
        };
        for symbol in &file.symbols {
            block.push_str(&search_symbol(symbol));
        }
        blocks.push(block);
    }
    let page = Page {
        offset: result.offset,
        shown: result.files.iter().map(|f| f.symbols.len()).sum(),
        total: result.total,
        next_offset: result.next_offset,
    };
    blocks.extend(super::page::showing("matches", &page));
    blocks
}
