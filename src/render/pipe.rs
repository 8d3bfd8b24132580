//! Text for `pipe`: a line per step before the last, then the last step's
//! outputs, each as its own tool renders it.

use std::fmt::Write;

use super::count;
use crate::model::{PipeOutput, PipeResult};

pub fn pipe(result: &PipeResult) -> Vec<String> {
    let mut summary = format!("pipe: {}", result.steps.join(" -> "));
    let shown = result.outputs.len();
    if result.total > 1 || result.next_offset.is_some() {
        let _ = write!(summary, " -> {}", count(result.total, "answer", "answers"));
    }
    // A page that is not the whole says which it is (the last one too).
    if result.offset > 0 || result.next_offset.is_some() {
        let _ = write!(
            summary,
            "\nShowing answers {}-{} of {}",
            result.offset + 1,
            result.offset + shown,
            result.total
        );
        if let Some(next) = result.next_offset {
            let _ = write!(summary, "; pass offset={next} for more");
        }
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
