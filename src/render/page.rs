//! The one way an answer says which part of a list it shows and how to get
//! the rest, for every tool that pages.

use std::fmt::Write;

use super::count;
use crate::model::Page;

/// `Showing symbols 1-120 of 2650; pass offset=120 for more` (without the
/// last part on the last page); `None` when the page is the whole list.
pub fn showing(noun: &str, page: &Page) -> Option<String> {
    if page.is_whole() {
        return None;
    }
    let mut out = format!(
        "Showing {noun} {}-{} of {}",
        page.offset + 1,
        page.offset + page.shown,
        page.total
    );
    if let Some(next) = page.next_offset {
        let _ = write!(out, "; pass offset={next} for more");
    }
    Some(out)
}

/// `... 7 more references; pass offset=3`, `in 2 files` after the noun when
/// `files` says how many files hold them; `None` on the last page.
pub fn more(page: &Page, singular: &str, plural: &str, files: Option<usize>) -> Option<String> {
    let next = page.next_offset?;
    let left = page.left();
    let noun = if left == 1 { singular } else { plural };
    let mut out = format!("... {left} more {noun}");
    if let Some(files) = files {
        let _ = write!(out, " in {}", count(files, "file", "files"));
    }
    let _ = write!(out, "; pass offset={next}");
    Some(out)
}

/// `; pass offset=41 for more`, for a summary line that already says which
/// part it shows; empty on the last page (no next offset).
pub fn pass_offset(next_offset: Option<usize>) -> String {
    next_offset
        .map(|next| format!("; pass offset={next} for more"))
        .unwrap_or_default()
}
