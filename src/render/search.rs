//! Text for `search`: a summary block, then one block per file.

use std::fmt::Write;

use super::count;
use crate::model::SearchResult;

/// `Found 13 matches for query "create" across 8 files, from typescript-go`,
/// the notes, then
/// each file: `src/a.ts (2 results)` and its `@line:char Kind - name`
/// lines, each with its declaration under it.
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
            let _ = write!(
                block,
                "\n  @{} {} - {}",
                symbol.position,
                symbol.kind.name(),
                symbol.name
            );
            if let Some(signature) = &symbol.signature {
                let _ = write!(block, "\n    `{signature}`");
            }
        }
        blocks.push(block);
    }
    if let Some(next) = result.next_offset {
        blocks.push(format!(
            "Showing matches {}-{next} of {}; pass offset={next} for more",
            result.offset + 1,
            result.total
        ));
    }
    blocks
}
