//! The text audit of a server's answer about a name, where the server
//! cannot always tell a name's uses: the language's `text_audit` files
//! (JavaScript, whose members' objects often have no type; Rust's macro
//! bodies, and its code under a `#[cfg]` that may be off in the server's
//! build) and the components that embed the language where its server
//! does not read them (`embedded_in`: `.svelte`). Every place the name
//! appears as code there is found by a word search and told from comments
//! and strings by tree-sitter (`scan`). What the answer left out of those
//! is named, by kind, so an answer that may be short says where, and a
//! rename that leaves such places is not written unless forced. A rename
//! also names the old name left in Markdown code blocks and in comments
//! and strings, which do not break a build and so do not stop it. A place
//! where the server knows the name as another symbol (a local variable of
//! the same name: `var send = require('./res').send`) is not left out.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

mod scan;
mod sweep;

use scan::{Found, Words};
use sweep::{Reader, Sweep, Sweeps, places_of};

use super::blocking;
use crate::context::Context;
use crate::error::ToolResult;
use crate::fast_map::{FastMap, FastSet};
use crate::fs::listed::KeptLists;
use crate::fs::new_text::NewText;
use crate::fs::stamped::{Stamp, StampedCache, Watch};
use crate::fs::walk;
use crate::lsp::Need;
use crate::lsp::config::AuditScope;
use crate::lsp::navigate::{Goto, goto, references};
use crate::model::Position;
use crate::syntax::Language;

/// Files looked through at most (read, kept or given as texts), and the
/// largest read: past these the audit says how many it did not read.
const MAX_FILES: usize = 5_000;
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// Places named in a note, at most.
const SHOWN: usize = 8;

/// Places whose references are asked for, at most: the rest stay named.
const ASKED: usize = 40;

/// Places whose references are asked for at once.
const ASKED_AT_ONCE: usize = 8;

/// The audit for answers about a name declared in one file.
pub struct TextAudit {
    /// The language whose files are searched (its name in `sextant.toml`).
    language: String,
    /// The dialect of the declaring file, to read components' scripts.
    dialect: Option<Language>,
    /// The language's own audit (`text_audit`) where it asks for one:
    /// where in its files a use may be missed, and why.
    code: Option<(AuditScope, String)>,
    /// Why the server misses names in conditional code, where the audit
    /// then looks too (`text_audit.conditional`: Rust's `#[cfg]`).
    conditional: Option<String>,
    /// The files of other languages that embed this one's code
    /// (`embedded_in`): their extensions, and why the server misses them.
    embedded: Option<(Vec<String>, String)>,
    /// For a rename: the Markdown fence tags of the language, for the
    /// name left in Markdown code and in comments and strings.
    prose: Option<Vec<String>>,
}

/// What a place of the name is, in the order notes name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Code of the language where its audit looks (`text_audit`).
    Code,
    /// Code under a condition the server's build leaves off
    /// (`#[cfg(windows)]`).
    Conditional,
    /// Code in a component the server does not read (`.svelte`).
    Embedded,
    /// Code in a Markdown code block of the language.
    Markdown,
    /// A comment or a string (or a component's template text).
    Prose,
}

impl Kind {
    /// Whether a rename that leaves the name there is not written unless
    /// asked to: the code breaks; docs, comments and strings do not.
    pub fn blocks(self) -> bool {
        matches!(self, Kind::Code | Kind::Conditional | Kind::Embedded)
    }
}

/// The places (a file and a position in it) a server's answer counted,
/// asked about each place the audit found: an answer may hold thousands
/// of places and the audit as many, so a question costs a hash, not a
/// scan of the answer (a scan for each place made the references of a
/// JavaScript function used 4,861 times take 0.9 s). The places are put
/// by file at the first question, and only then: most answers' audits ask
/// none (TypeScript's find no code the server could not follow), and a
/// path hashes byte by byte (a set of 877 places in 168 files, made at
/// once, cost 0.17 ms). Paths are equal as `Path`s are (by their
/// components), as the answer's and the audit's spellings of a file were
/// compared before.
#[derive(Debug, Default)]
pub struct Counted<'a> {
    places: Vec<(&'a Path, Position)>,
    by_file: OnceLock<FastMap<&'a Path, FastSet<Position>>>,
}

impl<'a> Counted<'a> {
    pub fn new(places: impl IntoIterator<Item = (&'a Path, Position)>) -> Counted<'a> {
        Counted {
            places: places.into_iter().collect(),
            by_file: OnceLock::new(),
        }
    }

    /// The places by file, each run of one file's places (the same
    /// `&Path`, as answers give them) looked up once.
    fn by_file(&self) -> &FastMap<&'a Path, FastSet<Position>> {
        self.by_file.get_or_init(|| {
            let mut by_file: FastMap<&'a Path, FastSet<Position>> = FastMap::default();
            for run in self.places.chunk_by(|a, b| std::ptr::eq(a.0, b.0)) {
                by_file
                    .entry(run[0].0)
                    .or_default()
                    .extend(run.iter().map(|(_, at)| *at));
            }
            by_file
        })
    }

    /// Whether the answer counted `at` in `path`.
    pub fn holds(&self, path: &Path, at: Position) -> bool {
        self.by_file()
            .get(path)
            .is_some_and(|positions| positions.contains(&at))
    }

    /// Whether the answer counted any place in `path`.
    pub fn holds_file(&self, path: &Path) -> bool {
        self.by_file().contains_key(path)
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }
}

/// Where a name appears, by kind.
#[derive(Debug, Default)]
pub struct Places {
    /// By kind, then by file, in position order.
    pub by_kind: BTreeMap<Kind, BTreeMap<PathBuf, Vec<Position>>>,
    /// Files where code was looked for, not read (the bounds).
    pub unread: usize,
    /// Files where only docs, comments and strings were, not read.
    pub unread_prose: usize,
}

impl Places {
    /// Without the places of `others`.
    pub fn without(mut self, others: &HashSet<(PathBuf, Position)>) -> Places {
        for files in self.by_kind.values_mut() {
            for (path, positions) in files.iter_mut() {
                positions.retain(|at| !others.contains(&(path.clone(), *at)));
            }
            files.retain(|_, positions| !positions.is_empty());
        }
        self.by_kind.retain(|_, files| !files.is_empty());
        self
    }

    /// Its places of the language's own code (`Kind::Code`, and
    /// `Kind::Conditional`) that `counted` does not hold: those the server
    /// may know as another symbol.
    pub fn code_left_out(&self, counted: &Counted) -> Vec<(PathBuf, Position)> {
        [Kind::Code, Kind::Conditional]
            .iter()
            .filter_map(|kind| self.by_kind.get(kind))
            .flatten()
            .flat_map(|(path, positions)| {
                positions
                    .iter()
                    .filter(|at| !counted.holds(path, **at))
                    .map(move |at| (path.clone(), *at))
            })
            .collect()
    }
}

/// Of `candidates` (places in the files as they are on disk), those the
/// server knows as another symbol of the same name (a local variable, an
/// alias: `var send = require('./res').send`), not uses an answer left
/// out (see `told_apart`; `uses` are the server's references of the
/// symbol asked about, its declaration among them). Where the server
/// knows nothing, the place stays a candidate.
pub async fn other_symbols(
    ctx: &Context,
    candidates: &[(PathBuf, Position)],
    uses: &Counted<'_>,
) -> HashSet<(PathBuf, Position)> {
    let mut others = HashSet::new();
    // With no uses to tell them from, every place stays a candidate.
    if uses.is_empty() {
        return others;
    }
    // A few at a time: a place found among another's references is not
    // asked about (one local variable used twenty times is one request).
    let mut left = candidates.iter().take(ASKED).peekable();
    while left.peek().is_some() {
        let wave: Vec<&(PathBuf, Position)> = left
            .by_ref()
            .filter(|place| !others.contains(*place))
            .take(ASKED_AT_ONCE)
            .collect();
        let asks = wave
            .iter()
            .map(|(path, at)| async move { told_apart(ctx, path, *at, uses).await });
        for ((path, at), found) in wave.iter().zip(futures::future::join_all(asks).await) {
            if let Some(found) = found {
                others.insert((path.clone(), *at));
                others.extend(found);
            }
        }
    }
    others
}

/// Whether the server knows the place `at` in `path` as another symbol
/// than the one whose references are `uses`, and if so the other
/// symbol's places it found (`None`: not known as another, or not known).
///
/// First where it is defined, a cheap request: a definition elsewhere, in
/// a file none of `uses` is in, is not the symbol's (whose declaration is
/// among its uses), as `libc::gethostname` beside a `gethostname` of the
/// workspace. Otherwise its references (a search of every file the server
/// holds): more than the place itself, sharing none of `uses`.
async fn told_apart(
    ctx: &Context,
    path: &Path,
    at: Position,
    uses: &Counted<'_>,
) -> Option<Vec<(PathBuf, Position)>> {
    let session = ctx.lsp.open(path, Need::DOCUMENT).await.ok()?;
    let defined: Vec<(PathBuf, Position)> = goto(&session, at, Goto::Definition)
        .await
        .unwrap_or_default()
        .into_iter()
        .map(|spot| (spot.path.to_path_buf(), spot.range.start))
        .collect();
    if defined_elsewhere(&defined, path, at, uses) {
        session.release().await;
        return Some(defined);
    }
    let found = references(&session, at, true).await;
    session.release().await;
    let found: Vec<(PathBuf, Position)> = found
        .ok()?
        .into_iter()
        .map(|spot| (spot.path.to_path_buf(), spot.range.start))
        .collect();
    let beyond_itself = found.iter().any(|(p, a)| p != path || *a != at);
    (beyond_itself && !found.iter().any(|(p, a)| uses.holds(p, *a))).then_some(found)
}

/// Whether `defined`, where the server says the name at `at` in `path` is
/// defined, is another symbol's declaration: somewhere, not the place
/// itself, and only in files that hold none of `uses` (the symbol's
/// references, its declaration among them).
fn defined_elsewhere(
    defined: &[(PathBuf, Position)],
    path: &Path,
    at: Position,
    uses: &Counted<'_>,
) -> bool {
    !defined.is_empty()
        && defined
            .iter()
            .all(|(file, target)| (file != path || *target != at) && !uses.holds_file(file))
}

/// How a file is read for a name: by its fenced code blocks of the
/// language (with their tags), by its script blocks and template (a
/// component, with the dialect of its scripts), or as source of the
/// language (within `scope`, and its conditional code when asked).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Scan {
    Markdown(Vec<String>),
    Component(Language),
    Source {
        scope: AuditScope,
        conditional: bool,
    },
}

impl Scan {
    /// The places of `name` in `text`; for Markdown, those in its code
    /// blocks are `code`.
    fn run(&self, path: &Path, text: Cow<'_, str>, name: &str) -> Found {
        match self {
            Scan::Markdown(tags) => Found {
                code: scan::markdown(&text, name, tags),
                ..Found::default()
            },
            Scan::Component(dialect) => scan::component(&text, name, *dialect),
            Scan::Source { scope, conditional } => {
                scan::source(path, text, name, *scope, *conditional)
            }
        }
    }
}

/// What the audit found kept at most, in bytes (roughly): a file's entry
/// for a name is a few hundred bytes, most of them empty.
const MAX_KEPT_BYTES: usize = 16 * 1024 * 1024;

/// What the audit found in a rename's texts kept at most, in bytes.
const MAX_KEPT_RENAMED_BYTES: usize = 4 * 1024 * 1024;

/// A rename's result, which the audit reads instead of the disk: the new
/// name, and each renamed file's texts (by the path the server named).
#[derive(Debug, Default)]
pub struct RenamedTexts {
    pub new_name: String,
    pub files: FastMap<PathBuf, RenamedText>,
}

/// A file as a rename leaves it, and as it was.
#[derive(Debug)]
pub struct RenamedText {
    /// `None` for a file the rename creates.
    pub before: Option<Arc<str>>,
    /// Empty for a file the rename deletes (or moves away).
    pub after: NewText,
}

/// What the audit keeps between calls, so that a rename or references
/// asked again (or of another name) does not walk and read the whole
/// workspace again: the list of its source files while the file watcher
/// covers it (forgotten when a file it does not hold is written: one
/// created, a folder), each file's words and where each name was found
/// in it, while the file keeps its stamp (see `fs::stamped`: its length,
/// times and inode), where each name was found in a rename's texts, and
/// the whole look for a name while the watcher hears every change
/// (`sweep::Sweeps`).
pub struct Kept {
    /// Shared paths: each is part of a key of `found`, looked up for every
    /// file a sweep reads, which would otherwise copy each path.
    sources: KeptLists<Arc<Path>>,
    found: StampedCache<(Arc<Path>, Arc<Query>), Found>,
    /// Where each name was found in a rename's texts, by the text's
    /// stamp: apart from `found`, whose disk finds the next rename's
    /// texts are carried over from.
    renamed: StampedCache<(Arc<Path>, Arc<Query>), Found>,
    /// The words of each file read (`scan::Words`), while it keeps its
    /// stamp: a file that does not hold a name is not read for it.
    words: StampedCache<Arc<Path>, Words>,
    /// Whole sweeps of the disk, while the file watcher hears everything.
    sweeps: Sweeps,
    /// What a file that does not hold the name gives.
    nowhere: Arc<Found>,
}

/// What the audit looks for in a file: a name, read as `scan` says.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Query {
    name: String,
    scan: Scan,
}

impl Default for Kept {
    fn default() -> Self {
        Kept {
            sources: KeptLists::default(),
            found: StampedCache::new(MAX_KEPT_BYTES),
            renamed: StampedCache::new(MAX_KEPT_RENAMED_BYTES),
            words: StampedCache::new(MAX_KEPT_BYTES),
            sweeps: Sweeps::default(),
            nowhere: Arc::default(),
        }
    }
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("found", &self.found)
            .finish_non_exhaustive()
    }
}

impl Kept {
    /// Forgets what files written (`paths`, from the file watcher) may
    /// have changed.
    pub fn note_changed(&self, paths: &[PathBuf]) {
        let written: FastSet<&Path> = paths.iter().map(PathBuf::as_path).collect();
        self.found.forget(|(path, _)| written.contains(&**path));
        self.words.forget(|path| written.contains(&**path));
        self.sources.note_changed(paths);
        self.sweeps.forget();
    }

    /// The workspace's source files in path order (`walk::sources`): as
    /// kept, or walked now and kept when `watched` (the file watcher
    /// covers the workspace, so a file created later is heard of).
    fn sources(&self, root: &Path, watched: bool) -> Arc<Vec<Arc<Path>>> {
        self.sources.listed(root, watched, || {
            walk::sources(root)
                .sorted()
                .files()
                .map(Arc::from)
                .collect()
        })
    }

    /// Where the `query`'s name appears in the file at `path` as found
    /// before, as the disk holds the file now (`StampedCache::get_fresh`:
    /// no `stat` where `watch` hears the file); else the stamp to keep
    /// what is found now under.
    fn kept_found(
        &self,
        path: &Arc<Path>,
        query: &Arc<Query>,
        watch: Option<&dyn Watch>,
    ) -> Result<Arc<Found>, Option<Stamp>> {
        let key = (Arc::clone(path), Arc::clone(query));
        self.found.get_fresh(&key, path, watch)
    }

    /// Where the `query`'s name appears in `text`, a rename's result for
    /// the file at `path` given instead of the disk's, renaming it to
    /// `new_name`; kept by the text's stamp. Carried over from what the
    /// file's text before the rename gave (`scan::renamed`), where that
    /// is kept: a first rename of a common name read every renamed text
    /// again, a parse of each (8 ms a rename through ripgrep, most of the
    /// walk's time past the server's answer); else read.
    fn found_in_text(
        &self,
        path: &Arc<Path>,
        query: &Arc<Query>,
        text: &RenamedText,
        new_name: &str,
    ) -> Arc<Found> {
        let stamp = text.after.stamp();
        let key = (Arc::clone(path), Arc::clone(query));
        if let Some(found) = self.renamed.get(&key, stamp) {
            return found;
        }
        let carried = match (&query.scan, &text.before) {
            (Scan::Source { .. }, Some(before)) => {
                let disk = Language::from_path(path).zip(self.found.get_any(&key));
                disk.and_then(|(language, disk)| {
                    scan::renamed(&disk, before, &text.after, &query.name, new_name, language)
                })
            }
            _ => None,
        };
        let found = Arc::new(carried.unwrap_or_else(|| {
            query
                .scan
                .run(path, Cow::Borrowed(text.after.as_str()), &query.name)
        }));
        let weight = found_weight(path, query, &found);
        self.renamed.put(key, stamp, Arc::clone(&found), weight);
        found
    }

    /// Where the `query`'s name appears in the file at `path` as the disk
    /// holds it, stamped `stamp` (read before it): nowhere, unread, where
    /// the file's words kept under that stamp do not hold the name; else
    /// as read now (its words kept). `None` when it cannot be read.
    fn find_on_disk(
        &self,
        path: &Arc<Path>,
        stamp: Option<Stamp>,
        query: &Arc<Query>,
    ) -> Option<Arc<Found>> {
        if let Some(stamp) = stamp
            && let Some(words) = self.words.get(path, stamp)
            && !words.may_hold(&query.name)
        {
            return Some(Arc::clone(&self.nowhere));
        }
        let text = std::fs::read_to_string(path).ok()?;
        if let Some(stamp) = stamp {
            let words = Words::of(&text);
            let weight = path.as_os_str().len() + words.weight();
            self.words
                .put(Arc::clone(path), stamp, Arc::new(words), weight);
        }
        Some(self.find(path, stamp, query, text))
    }

    /// Where the `query`'s name appears in `text`, the file at `path`
    /// as read, kept under `stamp`.
    fn find(
        &self,
        path: &Arc<Path>,
        stamp: Option<Stamp>,
        query: &Arc<Query>,
        text: String,
    ) -> Arc<Found> {
        let found = Arc::new(query.scan.run(path, Cow::Owned(text), &query.name));
        if let Some(stamp) = stamp {
            let weight = found_weight(path, query, &found);
            let key = (Arc::clone(path), Arc::clone(query));
            self.found.put(key, stamp, Arc::clone(&found), weight);
        }
        found
    }
}

/// The bytes (roughly) a find kept takes.
fn found_weight(path: &Path, query: &Query, found: &Found) -> usize {
    let places = found.code.len() + found.conditional.len() + found.prose.len();
    256 + path.as_os_str().len() + query.name.len() + places * 8
}

impl TextAudit {
    /// The audit for answers about names declared in `path`: the
    /// language's own (`text_audit`, where it asks for one there) and its
    /// embedding components (`embedded_in`); `None` when it has neither.
    pub fn for_file(ctx: &Context, path: &Path) -> Option<TextAudit> {
        let audit = Self::of_language(ctx, path)?;
        (audit.code.is_some() || audit.embedded.is_some()).then_some(audit)
    }

    /// The audit of a rename of a name declared in `path`: as
    /// [`TextAudit::for_file`], and the name left in Markdown code blocks
    /// of the language and in its comments and strings, which a rename
    /// names but does not refuse for.
    pub fn for_rename(ctx: &Context, path: &Path) -> Option<TextAudit> {
        let mut audit = Self::of_language(ctx, path)?;
        let config = ctx.lsp.config().language(&audit.language)?;
        let mut tags: Vec<String> = std::iter::once(&config.name)
            .chain(&config.extensions)
            .chain(std::iter::once(&config.language_id))
            .chain(config.language_ids.values())
            .map(|tag| tag.to_ascii_lowercase())
            .collect();
        tags.sort();
        tags.dedup();
        audit.prose = Some(tags);
        Some(audit)
    }

    fn of_language(ctx: &Context, path: &Path) -> Option<TextAudit> {
        let language = ctx.lsp.config().language_for(path)?;
        let extension = path.extension()?.to_str()?;
        let audit = language
            .text_audit
            .as_ref()
            .filter(|audit| audit.extensions.iter().any(|e| e == extension));
        let code = audit.map(|audit| (audit.scope, audit.why.clone()));
        let conditional = audit.and_then(|audit| audit.conditional.clone());
        let embedded = language
            .embedded_in
            .as_ref()
            .map(|e| (e.extensions.clone(), e.why.clone()));
        Some(TextAudit {
            language: language.name.clone(),
            dialect: Language::from_path(path),
            code,
            conditional,
            embedded,
            prose: None,
        })
    }

    /// Every place `name` appears in the workspace's files the audit
    /// reads, .gitignore respected; a file of `renamed` is read from there
    /// instead of the disk (a rename's result). What was found in a file
    /// before is taken again while the file is unchanged (`Kept`): while
    /// the file watcher covers the workspace, without a `stat` of each;
    /// while it hears every change, the whole look is taken again, but
    /// for the files of `renamed`.
    pub async fn places(
        &self,
        ctx: &Context,
        name: &str,
        renamed: RenamedTexts,
    ) -> ToolResult<Places> {
        let places = self.look(ctx, name, renamed, true).await?;
        Ok(places.unwrap_or_default())
    }

    /// The walk of the workspace [`TextAudit::places`] makes for `name`
    /// (with no texts), what it finds only kept: a rename's walk while
    /// its server renames, which the walk through the renamed texts then
    /// takes up (and no places made and dropped meanwhile).
    pub async fn walk_ahead(&self, ctx: &Context, name: &str) -> ToolResult<()> {
        self.look(ctx, name, RenamedTexts::default(), false)
            .await
            .map(drop)
    }

    /// [`TextAudit::places`]; with `wanted` false, the walk alone (`None`).
    async fn look(
        &self,
        ctx: &Context,
        name: &str,
        texts: RenamedTexts,
        wanted: bool,
    ) -> ToolResult<Option<Places>> {
        // The extensions whose files are this language's (the first
        // language to claim one has it): what the walk needs of the
        // configuration, which is too large to copy for every answer.
        let config = ctx.lsp.config();
        let sources: Vec<String> = config
            .language(&self.language)
            .map(|language| language.extensions.clone())
            .unwrap_or_default()
            .into_iter()
            .filter(|ext| {
                config
                    .language_for_extension(ext)
                    .is_some_and(|l| l.name == self.language)
            })
            .collect();
        let root = ctx.workspace.root().to_path_buf();
        let kept = Arc::clone(&ctx.audit);
        let watched = ctx.lsp.changes_watched().await;
        // Only while the watcher hears every change is a sweep of the
        // disk kept: the next change it hands out forgets it.
        let whole = ctx.lsp.hears_everything();
        let heard = ctx.lsp.heard();
        // The three ways a file may be read, each made once: every file's
        // lookup takes one.
        let query = |scan| {
            Arc::new(Query {
                name: name.to_string(),
                scan,
            })
        };
        let scope = self
            .code
            .as_ref()
            .map_or(AuditScope::Code, |(scope, _)| *scope);
        let reader = Arc::new(Reader {
            markdown: query(Scan::Markdown(self.prose.clone().unwrap_or_default())),
            component: self.dialect.map(|dialect| query(Scan::Component(dialect))),
            source: query(Scan::Source {
                scope,
                conditional: self.conditional.is_some(),
            }),
            embedded: self.embedded.as_ref().map(|(e, _)| e.clone()),
            sources,
            code: self.code.is_some(),
            prose: self.prose.is_some(),
        });
        blocking(move || {
            let watch = heard.as_ref().map(|heard| heard as &dyn Watch);
            let sources = kept.sources(&root, watched);
            let sweep = |texts: &RenamedTexts| Sweep::new(&kept, &sources, &reader, texts, watch);
            // With a rename's texts, a workspace of `MAX_FILES` files or
            // more could leave files unread for their count: swept with them.
            let within = texts.files.is_empty() || sources.len() + texts.files.len() < MAX_FILES;
            let outcomes = if whole && within {
                let disk = kept.sweeps.get(&reader, &sources).unwrap_or_else(|since| {
                    let disk = Arc::new(sweep(&RenamedTexts::default()));
                    kept.sweeps
                        .keep(Arc::clone(&reader), Arc::clone(&disk), since);
                    disk
                });
                if !wanted {
                    return Ok(None);
                }
                disk.with_texts(&kept, &reader, &texts)
            } else {
                // What each file gave is kept by `Kept` as it is read.
                let sweep = sweep(&texts);
                if !wanted {
                    return Ok(None);
                }
                sweep.outcomes()
            };
            Ok(Some(places_of(&outcomes, &reader)))
        })
        .await
    }

    /// The notes for the places of `places` that `counted` does not hold,
    /// one per kind, `left_out` saying what the server did with them
    /// (`did not count as references`, `did not rename`), each with
    /// whether it is a kind that blocks a rename. Places are shown as
    /// `file @line:char`, or `file @line` with `lines_only`.
    pub fn notes(
        &self,
        ctx: &Context,
        name: &str,
        places: &Places,
        counted: &Counted<'_>,
        left_out: &str,
        lines_only: bool,
    ) -> Vec<(Kind, String)> {
        let mut notes = Vec::new();
        for (&kind, files) in &places.by_kind {
            let left: BTreeMap<&PathBuf, Vec<Position>> = files
                .iter()
                .map(|(path, positions)| {
                    let left = positions
                        .iter()
                        .filter(|at| !counted.holds(path, **at))
                        .copied()
                        .collect::<Vec<_>>();
                    (path, left)
                })
                .filter(|(_, left)| !left.is_empty())
                .collect();
            if left.is_empty() {
                continue;
            }
            let total: usize = left.values().map(Vec::len).sum();
            let count = match kind {
                Kind::Prose => {
                    crate::render::count(total, "comment or string", "comments and strings")
                }
                _ => crate::render::count(total, "place", "places"),
            };
            let files_count = crate::render::count(left.len(), "file", "files");
            let shown = show_places(ctx, &left, lines_only);
            let note = match kind {
                Kind::Code | Kind::Conditional | Kind::Embedded => {
                    let (label, why) = match (kind, &self.code, &self.embedded) {
                        (Kind::Conditional, ..) => match &self.conditional {
                            Some(why) => ("in conditional code ", why),
                            None => continue,
                        },
                        (Kind::Code, Some((AuditScope::Macros, why)), _) => {
                            ("in macro bodies ", why)
                        }
                        (Kind::Code, Some((AuditScope::Code, why)), _) => ("as code ", why),
                        (Kind::Embedded, _, Some((_, why))) => ("", why),
                        _ => continue,
                    };
                    format!(
                        "`{name}` also appears {label}in {count} in {files_count} that the server {left_out} ({why}): {shown}; check them"
                    )
                }
                Kind::Markdown => format!(
                    "`{name}` is left in {count} in Markdown code blocks of {files_count}: {shown}"
                ),
                Kind::Prose => format!("`{name}` is left in {count} in {files_count}: {shown}"),
            };
            notes.push((kind, note));
        }
        for (kind, unread) in [
            (Kind::Code, places.unread),
            (Kind::Prose, places.unread_prose),
        ] {
            if unread > 0 {
                notes.push((
                    kind,
                    format!(
                        "`{name}` was looked for in the workspace's files beside the server's answer, but for {} (too many or too large)",
                        crate::render::count(unread, "file", "files")
                    ),
                ));
            }
        }
        notes
    }
}

/// Places as `src/a.rs @12:5, @40:1; src/b.rs @3:9`, at most `SHOWN`.
fn show_places(
    ctx: &Context,
    files: &BTreeMap<&PathBuf, Vec<Position>>,
    lines_only: bool,
) -> String {
    let total: usize = files.values().map(Vec::len).sum();
    let mut shown = Vec::new();
    let mut budget = SHOWN;
    for (path, positions) in files {
        if budget == 0 {
            break;
        }
        let mut at: Vec<String> = positions
            .iter()
            .take(budget)
            .map(|p| match lines_only {
                true => format!("@{}", p.line),
                false => format!("@{}:{}", p.line, p.character),
            })
            .collect();
        budget -= at.len();
        at.dedup();
        shown.push(format!("{} {}", ctx.workspace.display(path), at.join(", ")));
    }
    let mut shown = shown.join("; ");
    if total > SHOWN {
        shown.push_str(&format!(", and {} more", total - SHOWN));
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(path: &str, line: u32, character: u32) -> (PathBuf, Position) {
        (PathBuf::from(path), Position { line, character })
    }

    /// A rename's walk ahead keeps what each file gave, and the places
    /// asked for after it are those the files hold.
    #[tokio::test]
    async fn a_walk_ahead_keeps_what_each_file_gave() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("src/a.ts", "export function greet() {}\ngreet();\n"),
            ("src/b.ts", "// greet the reader\nexport const x = 1;\n"),
            ("src/c.ts", "export const y = 2;\n"),
        ];
        // Written long enough ago for their stamps to be trusted.
        let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(long_ago).unwrap();
        }
        let workspace = crate::fs::workspace::Workspace::new(dir.path(), &[]).unwrap();
        let root = workspace.root().to_path_buf();
        let ctx = Context::new(workspace, crate::lsp::config::Config::built_in(), false);
        let audit = TextAudit::for_rename(&ctx, &root.join("src/a.ts")).unwrap();
        assert!(ctx.audit.found.is_empty());
        audit.walk_ahead(&ctx, "greet").await.unwrap();
        let kept = ctx.audit.found.len();
        assert!(kept >= 3, "every file's finds kept: {kept}");
        let places = audit
            .places(&ctx, "greet", RenamedTexts::default())
            .await
            .unwrap();
        // TypeScript's audit is of prose: the comment in b.ts.
        let prose = places.by_kind.get(&Kind::Prose).map(|files| files.len());
        assert_eq!(prose, Some(1), "{places:?}");
    }

    /// A rename's text is given the places the disk's text before it
    /// gave, carried over, where they are kept; else it is read.
    #[test]
    fn a_renamed_text_takes_the_places_kept_of_its_text_before() {
        let kept = Kept::default();
        let path: Arc<Path> = Arc::from(Path::new("/w/src/a.ts"));
        let query = Arc::new(Query {
            name: "send".to_string(),
            scan: Scan::Source {
                scope: AuditScope::Code,
                conditional: false,
            },
        });
        let before = "// send\nsend(x.send);\n";
        let text = RenamedText {
            before: Some(Arc::from(before)),
            after: NewText::from("// send\nship(x.send);\n"),
        };
        // As the disk's read gave them, but for a place no read gives:
        // what is carried over is told by it.
        let disk = Found {
            code: vec![Position::new(2, 1), Position::new(2, 8)],
            conditional: vec![Position::new(1, 1)],
            prose: vec![Position::new(1, 4)],
            carries: Some(Stamp::of_text(before)),
        };
        let key = (Arc::clone(&path), Arc::clone(&query));
        kept.found
            .put(key, Stamp::of_text(before), Arc::new(disk), 256);
        let found = kept.found_in_text(&path, &query, &text, "ship");
        assert_eq!(found.code, [Position::new(2, 8)]);
        assert_eq!(found.conditional, [Position::new(1, 1)]);
        assert_eq!(found.prose, [Position::new(1, 4)]);
        // Another file, nothing kept of it: read.
        let other: Arc<Path> = Arc::from(Path::new("/w/src/b.ts"));
        let found = kept.found_in_text(&other, &query, &text, "ship");
        assert!(found.conditional.is_empty());
        assert_eq!(found.code, [Position::new(2, 8)]);
    }

    #[test]
    fn a_definition_only_in_files_without_uses_is_another_symbol() {
        let answer = [place("/w/src/a.rs", 3, 8), place("/w/src/b.rs", 9, 5)];
        let uses = Counted::new(answer.iter().map(|(path, at)| (path.as_path(), *at)));
        let (path, at) = place("/w/src/b.rs", 20, 15);
        let libc = [place("/registry/libc/src/unix/mod.rs", 700, 12)];
        assert!(defined_elsewhere(&libc, &path, at, &uses));
        // Defined in a file holding a use: perhaps the symbol itself
        // (another declaration of it, a range read differently).
        let beside = [place("/w/src/a.rs", 40, 4)];
        assert!(!defined_elsewhere(&beside, &path, at, &uses));
        let one_of_two = [libc[0].clone(), place("/w/src/a.rs", 3, 8)];
        assert!(!defined_elsewhere(&one_of_two, &path, at, &uses));
        // A place defined as itself (a declaration), or not known.
        let itself = [place("/w/src/c.rs", 20, 15)];
        assert!(!defined_elsewhere(
            &itself,
            Path::new("/w/src/c.rs"),
            at,
            &uses
        ));
        assert!(!defined_elsewhere(&[], &path, at, &uses));
    }

    #[test]
    fn counted_places_are_known_by_any_spelling_of_their_file() {
        // A file met again after another (a run of its own).
        let answer = [
            place("/w/src/a.js", 3, 8),
            place("/w/lib/b.js", 9, 5),
            place("/w/src/a.js", 12, 1),
        ];
        let counted = Counted::new(answer.iter().map(|(path, at)| (path.as_path(), *at)));
        assert!(counted.holds(Path::new("/w/src/a.js"), Position::new(3, 8)));
        assert!(counted.holds(Path::new("/w/src/a.js"), Position::new(12, 1)));
        assert!(counted.holds(Path::new("/w/src//a.js"), Position::new(3, 8)));
        assert!(counted.holds(Path::new("/w/./lib/b.js"), Position::new(9, 5)));
        assert!(!counted.holds(Path::new("/w/src/a.js"), Position::new(3, 9)));
        assert!(!counted.holds(Path::new("/w/lib/b.js"), Position::new(3, 8)));
        assert!(counted.holds_file(Path::new("/w/lib//b.js")));
        assert!(!counted.holds_file(Path::new("/w/lib/c.js")));
        assert!(Counted::default().is_empty() && !counted.is_empty());
    }
}
