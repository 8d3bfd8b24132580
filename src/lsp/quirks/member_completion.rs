//! Servers that complete badly inside a member access that already names a
//! member (the `completes_in_copy` key). TypeScript 7's server
//! (typescript-go), at `c.|json(c.env)` or `c.js|on(...)`: its list is
//! right, but each property it resolves is given the type of the call
//! (`env` comes back typed as `json` is, or as `() => any` when the name
//! typed so far is no member). ty, at `s.|upper()`: no list at all. Such a
//! completion is asked of a scratch copy of the document, one that exists
//! only in the server, with that name cut out (`c.|(c.env)`): nothing
//! before the dot moves, and the copy sits beside the file so its imports
//! resolve alike. The copy is closed once its items are resolved, and what
//! the server publishes about it is not kept.

use std::sync::atomic::{AtomicU64, Ordering};

use lsp_types::notification::{DidCloseTextDocument, DidOpenTextDocument};
use lsp_types::{DidCloseTextDocumentParams, DidOpenTextDocumentParams, TextDocumentIdentifier};
use lsp_types::{TextDocumentItem, Url};

use super::super::LspError;
use super::super::client::LspClient;
use super::super::documents::Document;
use crate::model::Position;

/// Numbers the copies, so two completions in one file at once do not open
/// the same document twice.
static COPIES: AtomicU64 = AtomicU64::new(0);

/// A document open in the server and nowhere else, closed by [`close`].
///
/// [`close`]: Scratch::close
#[derive(Debug)]
pub(in crate::lsp) struct Scratch {
    pub uri: Url,
    /// Where to complete in it.
    pub at: lsp_types::Position,
}

/// The copy to complete in instead of `document`, opened, when the server
/// needs one at `position`; `None` for every other server and position.
pub(in crate::lsp) fn open(
    client: &LspClient,
    document: &Document,
    position: Position,
) -> Result<Option<Scratch>, LspError> {
    if !client.language.completes_in_copy {
        return Ok(None);
    }
    let cut = document
        .index
        .offset_of(position)
        .and_then(|cursor| without_member_at(document.index.text(), cursor));
    let Some((text, typed)) = cut else {
        return Ok(None);
    };
    // The line is the same up to the dot, where the copy's cursor is.
    let at_dot = Position::new(position.line, position.character - typed as u32);
    let Some(at) = document.index.to_lsp(at_dot, client.encoding) else {
        return Ok(None);
    };
    let Some(uri) = copy_uri(&document.uri) else {
        return Ok(None);
    };
    client.shared.state().scratch.insert(uri.clone());
    client.notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
        text_document: TextDocumentItem {
            uri: uri.clone(),
            language_id: client.language.language_id_for(&document.path).to_string(),
            version: 1,
            text,
        },
    })?;
    Ok(Some(Scratch { uri, at }))
}

impl Scratch {
    /// Closes the copy, and forgets what the server published about it.
    pub(in crate::lsp) fn close(self, client: &LspClient) -> Result<(), LspError> {
        client.shared.state().diagnostics.remove(&self.uri);
        client.notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
            text_document: TextDocumentIdentifier { uri: self.uri },
        })
    }
}

/// `text` without the member name the cursor at byte `cursor` is in or
/// beside, when that name follows a `.`, and how many characters of it
/// were before the cursor: `None` when there is no such name.
fn without_member_at(text: &str, cursor: usize) -> Option<(String, usize)> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let (before, after) = text.split_at_checked(cursor)?;
    let kept = before.trim_end_matches(is_name);
    let rest = after.trim_start_matches(is_name);
    if !kept.ends_with('.') || kept.len() + rest.len() == text.len() {
        return None;
    }
    let typed = before[kept.len()..].chars().count();
    Some((format!("{kept}{rest}"), typed))
}

/// `src/app.ts` -> `src/app.sextant-completion-7.ts`: beside the file, with
/// its extension, so the server reads it as the same kind of module.
fn copy_uri(uri: &Url) -> Option<Url> {
    let mut copy = uri.clone();
    let name = uri.path_segments()?.next_back()?.to_string();
    let n = COPIES.fetch_add(1, Ordering::Relaxed);
    let renamed = match name.split_once('.') {
        Some((stem, extension)) => format!("{stem}.sextant-completion-{n}.{extension}"),
        None => format!("{name}.sextant-completion-{n}"),
    };
    copy.path_segments_mut().ok()?.pop().push(&renamed);
    Some(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_member_name_at_the_cursor_is_cut_and_nothing_else() {
        let text = "return c.json(c.env);\n";
        let cut = |cursor: &str| without_member_at(text, cursor.len());
        let expected = Some(("return c.(c.env);\n".to_string(), 0));
        assert_eq!(cut("return c."), expected);
        // Part of the name typed, or all of it: the cursor moves back to
        // the dot.
        let expected = Some(("return c.(c.env);\n".to_string(), 2));
        assert_eq!(cut("return c.js"), expected);
        let expected = Some(("return c.(c.env);\n".to_string(), 4));
        assert_eq!(cut("return c.json"), expected);
        // Names of other scripts count as many characters as they are.
        let expected = Some(("ü.;".to_string(), 2));
        assert_eq!(without_member_at("ü.ñé;", "ü.ñé".len()), expected);
    }

    #[test]
    fn outside_a_member_access_with_a_name_nothing_changes() {
        // No name after the dot.
        assert_eq!(without_member_at("c.;", 2), None);
        // Not after a dot.
        assert_eq!(without_member_at("let x = y;", 8), None);
        // Past the end.
        assert_eq!(without_member_at("c.x", 9), None);
    }

    #[test]
    fn the_copy_sits_beside_the_file_with_its_extension() {
        let uri = Url::parse("file:///w/src/app.test.ts").unwrap();
        let copy = copy_uri(&uri).unwrap();
        let name = copy.path_segments().unwrap().next_back().unwrap();
        assert!(
            copy.as_str()
                .starts_with("file:///w/src/app.sextant-completion-")
        );
        assert!(name.ends_with(".test.ts"), "{name}");
    }
}
