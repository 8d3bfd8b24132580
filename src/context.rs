//! What every tool call shares: the workspace sandbox, the language-server
//! supervisor, the symbol index, the log book, and the session's own
//! patches waiting to be applied and mode.

use std::path::PathBuf;
use std::sync::Arc;

use crate::fs::patch::PatchStore;
use crate::fs::workspace::Workspace;
use crate::index::{Indexed, SymbolIndex};
use crate::logbook::LogBook;
use crate::lsp::Supervisor;
use crate::lsp::config::Config;

/// One MCP session's view of the workspace: the shared parts (one per
/// sextant process, shared by every session a shared instance or the HTTP
/// transport serves) and the session's own (its mode, its patches).
pub struct Context {
    pub workspace: Arc<Workspace>,
    pub lsp: Arc<Supervisor>,
    pub logs: Arc<LogBook>,
    /// The tree-sitter symbol index `search` falls back on.
    pub index: Arc<SymbolIndex>,
    /// The npm dependencies' declarations, for `search` with
    /// `include_external` (TypeScript's servers do not search them).
    pub dependencies: Arc<SymbolIndex>,
    /// The patches this session previewed: a patch id is applied only by
    /// the session that was shown it, so one agent never writes what
    /// another previewed.
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
            lsp: Arc::new(lsp),
            workspace: Arc::new(workspace),
            logs,
            index,
            dependencies,
            patches: PatchStore::default(),
            read_only,
        }
    }

    /// Another session over the same workspace, servers and indexes, with
    /// its own mode and patches.
    pub fn session(&self, read_only: bool) -> Context {
        Context {
            workspace: Arc::clone(&self.workspace),
            lsp: Arc::clone(&self.lsp),
            logs: Arc::clone(&self.logs),
            index: Arc::clone(&self.index),
            dependencies: Arc::clone(&self.dependencies),
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
