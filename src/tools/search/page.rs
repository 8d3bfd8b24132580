//! The page of a search's matches: in rank order from the offset asked
//! for, shown by file, each as the file's outline shows it (kind, name
//! path, declaration), admitted while the answer's text stays within its
//! budget. A file is read and parsed only when one of its matches is on
//! the page, and only where [`Parses`] reads.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Found, SearchPreview};
use crate::context::Context;
use crate::fs::stamped::{StampedCache, Watch};
use crate::model::{OutlineSymbol, Position, Range, SearchFile, SearchSymbol, SymbolKind};
use crate::syntax::{self, Language, LineIndex};
use crate::tools::name_path::declared_at;
use crate::tools::outline::parsed_blocking;
use crate::tools::page::Pager;

/// Where a search's answer gets the parses of its files: the ones kept by
/// their files' stamps, and, where it reads, the files with none kept
/// read and parsed now. Kept ones only is work of a bounded size (a hash
/// lookup, and a `stat` where the file watcher does not hear the file),
/// done where the call runs; a file it would have to read is counted as
/// missed, and the answer is made again by one that reads, on the
/// blocking pool. (A page showing a file sextant has no grammar for, whose
/// lines are read each time, is always made there.)
pub(super) struct Parses<'a> {
    kept: &'a StampedCache<PathBuf, syntax::SourceFile>,
    watch: Option<&'a dyn Watch>,
    reads: bool,
    missed: Cell<bool>,
}

impl<'a> Parses<'a> {
    /// The kept parses only.
    pub(super) fn kept_only(
        kept: &'a StampedCache<PathBuf, syntax::SourceFile>,
        watch: Option<&'a dyn Watch>,
    ) -> Parses<'a> {
        Parses {
            kept,
            watch,
            reads: false,
            missed: Cell::new(false),
        }
    }

    /// The kept parses, and files read and parsed where none is (blocking
    /// work).
    pub(super) fn reading(
        kept: &'a StampedCache<PathBuf, syntax::SourceFile>,
        watch: Option<&'a dyn Watch>,
    ) -> Parses<'a> {
        Parses {
            reads: true,
            ..Parses::kept_only(kept, watch)
        }
    }

    /// Whether a file had to be read: what was made without it is not the
    /// answer.
    pub(super) fn missed(&self) -> bool {
        self.missed.get()
    }

    /// The parse of the file at `path`, as `parsed_blocking` gives it.
    /// Once one is missed, no other is looked for (the answer is made
    /// again).
    fn parsed(&self, path: &Path, language: Language) -> Option<Arc<syntax::SourceFile>> {
        if self.reads {
            return parsed_blocking(self.kept, self.watch, path, language);
        }
        if self.missed() {
            return None;
        }
        match self.kept.get_fresh(path, path, self.watch) {
            Ok(file) if file.language() == language => Some(file),
            _ => {
                self.missed.set(true);
                None
            }
        }
    }

    /// The bytes of the file at `path`, where it reads.
    fn read(&self, path: &Path) -> Option<Vec<u8>> {
        if !self.reads {
            self.missed.set(true);
            return None;
        }
        std::fs::read(path).ok()
    }
}

/// The files of the page and where the next page starts. The page holds
/// the best matches from the pager's offset (by rank, then the file's
/// place in `ordered`, then position), shown by file in `ordered`'s order
/// (files by best match), each file's in position order: an exact name is
/// on the first page however many weaker matches its file holds before
/// it. Each match is shown with its declaration (tree-sitter's where
/// sextant has a grammar, else its line).
pub(super) fn page(
    ctx: &Context,
    parses: &Parses,
    ordered: &[(PathBuf, Vec<Found>)],
    mut pager: Pager,
    preview: SearchPreview,
) -> (Vec<SearchFile>, Option<usize>) {
    let total: usize = ordered.iter().map(|(_, m)| m.len()).sum();
    // (rank, file, match): matches within a file are in position order.
    let mut ranked: Vec<(u8, usize, usize)> = ordered
        .iter()
        .enumerate()
        .flat_map(|(file, (_, matches))| {
            matches
                .iter()
                .enumerate()
                .map(move |(at, found)| (found.rank, file, at))
        })
        .collect();
    ranked.sort_unstable();
    let mut sources: HashMap<usize, Source> = HashMap::new();
    let mut shown: BTreeMap<usize, SearchFile> = BTreeMap::new();
    let mut order: HashMap<usize, Vec<usize>> = HashMap::new();
    for (_, file, at) in ranked {
        if pager.skip() {
            continue;
        }
        let (path, matches) = &ordered[file];
        let source = sources
            .entry(file)
            .or_insert_with(|| Source::read(parses, path));
        let symbol = source.symbol(matches[at].clone(), preview);
        // A file's header, the first time it is on the page: its path and
        // at most `(999 of 999 results)`.
        let header = match shown.contains_key(&file) {
            true => 0,
            false => ctx.workspace.display(path).len() + 20,
        };
        if !pager.admit(crate::render::search_symbol(&symbol).len() + header) {
            break;
        }
        let entry = shown.entry(file).or_insert_with(|| SearchFile {
            path: ctx.workspace.display(path),
            total: matches.len(),
            symbols: Vec::new(),
        });
        entry.symbols.push(symbol);
        order.entry(file).or_default().push(at);
    }
    let files = shown
        .into_iter()
        .map(|(file, mut shown)| {
            let mut symbols: Vec<(usize, SearchSymbol)> = order
                .remove(&file)
                .unwrap_or_default()
                .into_iter()
                .zip(shown.symbols)
                .collect();
            symbols.sort_by_key(|(at, _)| *at);
            shown.symbols = symbols.into_iter().map(|(_, symbol)| symbol).collect();
            shown
        })
        .collect();
    (files, pager.page(total).next_offset)
}

/// A file's text as a search shows its matches, and how its outline joins
/// a container's name to a member's.
struct Source {
    text: Text,
    separator: &'static str,
}

/// Parsed where sextant has a grammar (the parse kept by the file's
/// stamp), else its lines.
enum Text {
    Parsed(Arc<syntax::SourceFile>),
    Plain(String, LineIndex),
    Unreadable,
}

impl Source {
    fn read(parses: &Parses, path: &Path) -> Source {
        let language = Language::from_path(path);
        // A file with a grammar that cannot be outlined (binary, too
        // large) is shown as its lines, as one without.
        let parsed = language.and_then(|language| parses.parsed(path, language));
        let text = match parsed {
            Some(file) => Some(Text::Parsed(file)),
            None => parses.read(path).map(|bytes| {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let lines = LineIndex::new(&text);
                Text::Plain(text, lines)
            }),
        };
        Source {
            text: text.unwrap_or(Text::Unreadable),
            separator: language.map_or(".", Language::name_separator),
        }
    }

    /// A match as shown: the outline's kind and name path for a server's
    /// hit, and its declaration.
    fn symbol(&self, mut found: Found, preview: SearchPreview) -> SearchSymbol {
        if found.from_server
            && let Text::Parsed(file) = &self.text
        {
            like_outline(&mut found, file);
        }
        let signature = match &self.text {
            _ if preview == SearchPreview::None => None,
            Text::Parsed(file) => file.signature(&at(found.position, found.kind)),
            Text::Plain(text, lines) => {
                syntax::signature::declaration_line(text, lines, found.position.line)
            }
            Text::Unreadable => None,
        };
        let name = match &found.container {
            Some(container) => {
                let joint = if container.contains(' ') {
                    "/"
                } else {
                    self.separator
                };
                format!("{container}{joint}{}", found.name)
            }
            None => found.name,
        };
        SearchSymbol {
            position: found.position,
            kind: found.kind,
            name,
            signature,
        }
    }
}

/// A server's exact-name hit where the file's outline declares nothing (a
/// `pub use` re-export rust-analyzer lists as a symbol of its own) ranks
/// after the declarations: the declaration is what an agent looks for.
/// Only exact-name hits are looked at, to parse few files.
pub(super) fn declarations_first(parses: &Parses, mut found: Vec<Found>) -> Vec<Found> {
    let mut parsed: HashMap<PathBuf, Option<Arc<syntax::SourceFile>>> = HashMap::new();
    for f in found.iter_mut().filter(|f| f.from_server && f.rank <= 1) {
        let file = parsed
            .entry(f.path.clone())
            .or_insert_with(|| parses.parsed(&f.path, Language::from_path(&f.path)?));
        if let Some(file) = file
            && declared_at(file.outline(), f.position, file.language().name_separator()).is_none()
        {
            f.rank = RANK_NOT_DECLARED;
        }
    }
    found
}

/// The rank of a match that declares nothing (see `declarations_first`):
/// after every match that does.
const RANK_NOT_DECLARED: u8 = 5;

/// Servers' hits as the file's outline shows them, where sextant has a
/// grammar: the outline's kind and name path (`impl Account for
/// Ledger/balance (Method)` rather than rust-analyzer's `Ledger::balance
/// (Function)`), so every source shows a symbol one way.
pub(super) fn same_as_outlines(parses: &Parses, mut found: Vec<Found>) -> Vec<Found> {
    let mut parsed: HashMap<PathBuf, Option<Arc<syntax::SourceFile>>> = HashMap::new();
    for f in found.iter_mut().filter(|f| f.from_server) {
        let file = parsed
            .entry(f.path.clone())
            .or_insert_with(|| parses.parsed(&f.path, Language::from_path(&f.path)?));
        if let Some(file) = file {
            like_outline(f, file);
        }
    }
    found
}

/// One server hit given the outline's kind and name path, when the outline
/// declares something where the hit's name starts.
fn like_outline(found: &mut Found, file: &syntax::SourceFile) {
    let separator = file.language().name_separator();
    if let Some((path, kind)) = declared_at(file.outline(), found.position, separator) {
        found.kind = kind;
        found.container = path
            .strip_suffix(found.name.as_str())
            .map(|c| c.trim_end_matches(['.', ':', '/']).to_string())
            .filter(|c| !c.is_empty());
        found.from_server = false;
    }
}

/// A symbol standing at `position`, for looking up its declaration.
fn at(position: Position, kind: SymbolKind) -> OutlineSymbol {
    OutlineSymbol {
        name: String::new(),
        kind,
        detail: None,
        range: Range::new(position, position),
        selection_range: Range::new(position, position),
        qualifier: None,
        children: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file at `path` written with `text`, its last write a minute
    /// ago (a parse of a file written in the last seconds is not kept).
    fn written(path: &Path, text: &str) {
        std::fs::write(path, text).unwrap();
        let a_minute_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(a_minute_ago).unwrap();
    }

    #[test]
    fn kept_parses_only_answer_while_their_files_keep_their_stamps() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lib.rs");
        written(&path, "fn first() {}\n");
        let kept = StampedCache::new(1 << 20);
        let rust = Language::from_path(&path).unwrap();

        let kept_only = Parses::kept_only(&kept, None);
        assert!(kept_only.parsed(&path, rust).is_none());
        assert!(kept_only.missed(), "nothing kept yet");

        let reading = Parses::reading(&kept, None);
        let parsed = reading.parsed(&path, rust).unwrap();
        assert!(!reading.missed());
        let kept_only = Parses::kept_only(&kept, None);
        let again = kept_only.parsed(&path, rust).unwrap();
        assert!(Arc::ptr_eq(&parsed, &again));
        assert!(!kept_only.missed());
        // A file with no grammar is read, which only a reading one does.
        assert!(kept_only.read(&path).is_none());
        assert!(kept_only.missed());

        written(&path, "fn first() {}\nfn second() {}\n");
        let kept_only = Parses::kept_only(&kept, None);
        assert!(kept_only.parsed(&path, rust).is_none());
        assert!(kept_only.missed(), "the file changed since");
        let reading = Parses::reading(&kept, None);
        assert_eq!(
            reading.parsed(&path, rust).unwrap().text(),
            "fn first() {}\nfn second() {}\n"
        );
        assert!(Parses::kept_only(&kept, None).parsed(&path, rust).is_some());
    }
}
