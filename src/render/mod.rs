//! Renderers: pure functions from a typed result to text content blocks.
//!
//! No I/O, no async, no protocol types: a renderer sees one `model` value
//! and returns the blocks an agent reads (a summary block first, then one
//! block per file where that helps). Output budgets are applied by the tools
//! when they choose what goes into a result, so a renderer shows all of it.

mod files;
mod navigation;
mod outline;
mod page;
mod pipe;
mod search;
mod servers;
mod symbols;

pub use files::{created_file, file_lines, fix_list, found_files, grep, grep_entry, patch_report};
pub use navigation::{
    call_hierarchy, call_node_line, completion, inspect, location, reference_line, references,
};
pub use outline::{outline_entry, read};
pub use pipe::pipe;
pub use search::{search, search_symbol};
pub use servers::{diagnostic_line, diagnostics, diagnostics_header, doctor, logs};
pub use symbols::target_header;

/// Formats `n` with the singular or plural of `noun`: `1 file`, `3 files`.
pub(crate) fn count(n: usize, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("{n} {singular}")
    } else {
        format!("{n} {plural}")
    }
}
