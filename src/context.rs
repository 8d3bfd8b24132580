//! What every tool call shares: the workspace sandbox, the patches waiting
//! to be applied, and the server's mode.

use crate::fs::patch::PatchStore;
use crate::fs::workspace::Workspace;

#[derive(Debug)]
pub struct Context {
    pub workspace: Workspace,
    pub patches: PatchStore,
    /// Writing tools are left out (`--read-only`).
    pub read_only: bool,
}

impl Context {
    pub fn new(workspace: Workspace, read_only: bool) -> Context {
        Context {
            workspace,
            patches: PatchStore::default(),
            read_only,
        }
    }
}
