//! A file the server holds in none of its projects (the language's
//! `unlinked` key: rust-analyzer's `unlinked-file` diagnostic, for a module
//! no `mod` declares or a file no cargo project holds). There the server
//! knows the file's text only, so its answers come back empty; a tool
//! whose answer is empty asks [`Session::unlinked_note`] whether that is
//! why, and says so with what to do.

use super::diagnostics::{fresh_published, pull};
use super::session::Session;
use crate::model::Diagnostic;

impl Session {
    /// Why the server knows nothing of this file's code, and what to do,
    /// when the server says the file is in none of its projects; `None`
    /// when it is in one, or the language has no way to tell.
    pub async fn unlinked_note(&self) -> Option<String> {
        self.client().language.unlinked.as_ref()?;
        let diagnostics = match pull(self).await {
            Ok(Some(diagnostics)) => diagnostics,
            // A server that only publishes: what it published for this
            // version of the document.
            Ok(None) => fresh_published(self)
                .map(|(items, _)| super::diagnostics::convert(self, items))
                .unwrap_or_default(),
            Err(_) => return None,
        };
        self.unlinked_note_in(&diagnostics)
    }

    /// [`Session::unlinked_note`] from the document's diagnostics, as a
    /// caller that has just asked for them holds them (so the server is
    /// not asked twice).
    pub fn unlinked_note_in(&self, diagnostics: &[Diagnostic]) -> Option<String> {
        let unlinked = self.client().language.unlinked.as_ref()?;
        let said = diagnostics
            .iter()
            .find(|d| d.code.as_deref() == Some(unlinked.code.as_str()))?;
        // Its first sentence: the rest is how to silence it in an editor.
        let said = said.message.lines().next().unwrap_or_default().trim();
        let advice = unlinked.advice.replace("{module}", &module_name(self));
        Some(format!(
            "{} is in none of {}'s projects ({said}); {advice}",
            self.shown(),
            self.server(),
        ))
    }
}

/// The module a file would be declared as: its name, or its folder's for a
/// `mod.rs`.
fn module_name(session: &Session) -> String {
    let path = &session.document().path;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if stem == "mod"
        && let Some(folder) = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
    {
        return folder.to_string();
    }
    stem.to_string()
}
