//! The result of `pipe`: the last step's typed outputs, one per input the
//! step before it handed on.

use serde::Serialize;

use super::{GrepResult, ReadResult, ReferencesResult};

/// What the steps before the last did, and the last step's outputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PipeResult {
    /// Each step before the last, as one short line (`find: 3 files`).
    pub steps: Vec<String>,
    /// The last step's outputs, in order (the page shown).
    pub outputs: Vec<PipeOutput>,
    /// Outputs in all, and the index of the first shown.
    pub total: usize,
    pub offset: usize,
    /// Where to continue, when outputs after the page were left out.
    pub next_offset: Option<usize>,
    /// What the reader must know (inputs skipped, and why).
    pub notes: Vec<String>,
}

/// One output of the last step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum PipeOutput {
    Grep(GrepResult),
    Read(ReadResult),
    References(ReferencesResult),
}
