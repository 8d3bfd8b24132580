//! What every tool call shares: the workspace sandbox, the language-server
//! supervisor, the symbol index, the log book, the patches waiting to be applied, and the
//! server's mode.

use std::path::PathBuf;
use std::sync::Arc;

use crate::fs::patch::PatchStore;
use crate::fs::workspace::Workspace;
use crate::index::{Indexed, SymbolIndex};
use crate::logbook::LogBook;
use crate::lsp::Supervisor;
use crate::lsp::config::Config;

pub struct Context {
    pub workspace: Workspace,
    pub lsp: Supervisor,
    pub logs: Arc<LogBook>,
    /// The tree-sitter symbol index `search` falls back on.
    pub index: Arc<SymbolIndex>,
    /// The npm dependencies' declarations, for `search` with
    /// `include_external` (TypeScript's servers do not search them).
    pub dependencies: Arc<SymbolIndex>,
    pub patches: PatchStore,
    /// Writing tools are left out (`--read-only`).
    pub read_only: bool,
}

impl Context {
    pub fn new(workspace: Workspace, config: Config, read_only: bool) -> Context {
        let logs = Arc::new(LogBook::default());
        let lsp = Supervisor::new(config, workspace.root(), Arc::clone(&logs));
        let index = Arc::new(SymbolIndex::new(Indexed::Workspace));
        let dependencies = Arc::new(SymbolIndex::new(Indexed::NpmDependencies));
        let listening = [Arc::clone(&index), Arc::clone(&dependencies)];
        lsp.on_file_changes(Box::new(move |paths| {
            for index in &listening {
                index.note_changed(paths.iter().map(PathBuf::as_path));
            }
        }));
        Context {
            lsp,
            workspace,
            logs,
            index,
            dependencies,
            patches: PatchStore::default(),
            read_only,
        }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("root", &self.workspace.root())
            .field("read_only", &self.read_only)
            .finish()
    }
}
