//! Text for `pipe`: a line per step before the last, then the last step's
//! outputs, each as its own tool renders it.

use std::fmt::Write;

use super::count;
use crate::model::{Page, PipeOutput, PipeResult};

pub fn pipe(result: &PipeResult) -> Vec<String> {
    let mut summary = format!("pipe: {}", result.steps.join(" -> "));
    let shown = result.outputs.len();
    if result.total > 1 || result.next_offset.is_some() {
        let _ = write!(summary, " -> {}", count(result.total, "answer", "answers"));
    }
    // A page that is not the whole says which it is (the last one too).
    let page = Page {
        offset: result.offset,
        shown,
        total: result.total,
        next_offset: result.next_offset,
    };
    if let Some(showing) = super::page::showing("answers", &page) {
        let _ = write!(summary, "\n{showing}");
    }
    for note in &result.notes {
        let _ = write!(summary, "\nNote: {note}");
    }
    let mut blocks = vec![summary];
    for output in &result.outputs {
        blocks.extend(match output {
            PipeOutput::Grep(result) => super::grep(result),
            PipeOutput::Read(result) => super::read(result),
            PipeOutput::References(result) => super::references(result),
        });
    }
    blocks
}
