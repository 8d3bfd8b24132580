//! What the navigation tools show of a place a server pointed at: its path
//! as shown, whether it is the workspace's own code, a dependency's or
//! outside every root, its source line, and the symbol enclosing it (from
//! the file's outline, so `McpServer.connect` for a call inside that
//! method). Each file is read and outlined once per answer.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::StreamExt;

use super::blocking;
use super::name_path::join_path;
use super::outline::{FileOutline, outline, parsed_blocking};
use crate::context::Context;
use crate::fast_map::{FastMap, FastSet};
use crate::fs::stamped::Watch;
use crate::model::{OutlineSymbol, Place, Position, SourceLocation, SymbolKind};
use crate::syntax::Language;

/// Lines longer than this are cut around the position they are shown for.
const MAX_LINE_CHARS: usize = 160;

/// The files of one answer, each read once, and each one's path as shown
/// and place found once (each when first asked for): a call hierarchy
/// asks for both of a caller's file for the caller and for each of its
/// calls.
pub struct SourceFiles<'a> {
    ctx: &'a Context,
    /// The files' paths, numbered; `files` by those numbers.
    numbers: PathNumbers,
    files: Vec<Known>,
}

/// Paths numbered in the order first met, by their bytes (two spellings
/// of one file are two). An answer asks about one file many times in a
/// row (each reference's line and enclosing symbol): the last one met is
/// compared before any hashing.
#[derive(Default)]
pub struct PathNumbers {
    paths: Vec<PathBuf>,
    at: FastMap<OsString, usize>,
    last: Option<usize>,
}

impl PathNumbers {
    /// `path`'s number, numbered now (the next one) if it was not met.
    pub fn number(&mut self, path: &Path) -> usize {
        let known = match self.last {
            Some(last) if self.paths[last].as_os_str() == path.as_os_str() => Some(last),
            _ => self.at.get(path.as_os_str()).copied(),
        };
        let number = known.unwrap_or_else(|| {
            self.at
                .insert(path.as_os_str().to_os_string(), self.paths.len());
            self.paths.push(path.to_path_buf());
            self.paths.len() - 1
        });
        self.last = Some(number);
        number
    }

    /// The paths met, by number.
    pub fn into_paths(self) -> Vec<PathBuf> {
        self.paths
    }
}

/// What one answer knows of a file.
struct Known {
    shown: String,
    /// `None` until asked for.
    place: Option<Place>,
    /// `None` until read; then `None` within where the file could not be
    /// read or outlined (gone, binary, too large): its locations are shown
    /// without a line.
    outline: Option<Option<FileOutline>>,
}

impl<'a> SourceFiles<'a> {
    pub fn new(ctx: &'a Context) -> SourceFiles<'a> {
        SourceFiles {
            ctx,
            numbers: PathNumbers::default(),
            files: Vec::new(),
        }
    }

    /// The file at `path` among those met (by its bytes: two spellings
    /// of one file are two), met now if it was not.
    fn known(&mut self, path: &Path) -> usize {
        let index = self.numbers.number(path);
        if index == self.files.len() {
            self.files.push(Known {
                shown: self.ctx.workspace.display(path),
                place: None,
                outline: None,
            });
        }
        index
    }

    /// `path` as shown.
    pub fn shown(&mut self, path: &Path) -> String {
        let index = self.known(path);
        self.files[index].shown.clone()
    }

    /// Whose code `path` is.
    pub fn place(&mut self, path: &Path) -> Place {
        let index = self.known(path);
        *self.files[index]
            .place
            .get_or_insert_with(|| place(self.ctx, path))
    }

    /// A number for the file at `path` within this answer, the same for
    /// paths equal as `Path`s are, by their components (`/a//b` and
    /// `/a/./b` are `/a/b`): a key cheaper than the path.
    pub fn number(&mut self, path: &Path) -> usize {
        match spelled_plainly(path) {
            true => self.known(path),
            false => self.known(&path.components().collect::<PathBuf>()),
        }
    }

    /// Parses the files at `paths` whose parse is not kept, several at
    /// once on the blocking pool, and keeps them (`Context::parsed`), where
    /// reading each as it is shown parses them one after another (a
    /// session's first `references` of `McpServer.connect` through the
    /// TypeScript SDK parsed its page's files for 86 ms on one thread). A
    /// file whose parse is kept costs a look at the cache.
    pub async fn parse_all<'p>(&mut self, paths: impl IntoIterator<Item = &'p Path>) {
        let heard = self.ctx.lsp.heard();
        let watch = heard.as_ref().map(|heard| heard as &dyn Watch);
        let mut unkept: Vec<(PathBuf, Language)> = Vec::new();
        // Each file looked at once: a caller's file comes with each of its
        // calls.
        let mut looked = FastSet::default();
        for path in paths {
            let index = self.known(path);
            if !looked.insert(index) || self.files[index].outline.is_some() {
                continue;
            }
            let Some(language) = Language::from_path(path) else {
                continue;
            };
            if self.ctx.parsed.get_fresh(path, path, watch).is_err() {
                unkept.push((path.to_path_buf(), language));
            }
        }
        if unkept.len() < 2 {
            return;
        }
        // At most one per core at a time: each is started (spawned on the
        // blocking pool) only when the stream takes it up.
        let at_once = std::thread::available_parallelism().map_or(1, usize::from);
        let parses: Vec<_> = unkept
            .into_iter()
            .map(|(path, language)| {
                let (kept, heard) = (Arc::clone(&self.ctx.parsed), heard.clone());
                async move {
                    // A file that cannot be parsed is outlined (or not) as
                    // it is shown.
                    let _ = blocking(move || {
                        let watch = heard.as_ref().map(|heard| heard as &dyn Watch);
                        Ok(parsed_blocking(&kept, watch, &path, language))
                    })
                    .await;
                }
            })
            .collect();
        let parsing = futures::stream::iter(parses).buffer_unordered(at_once);
        parsing.collect::<Vec<_>>().await;
    }

    async fn file(&mut self, path: &Path) -> Option<&FileOutline> {
        let index = self.known(path);
        if self.files[index].outline.is_none() {
            let file = outline(self.ctx, path, &self.files[index].shown).await.ok();
            self.files[index].outline = Some(file);
        }
        self.files[index].outline.as_ref().and_then(Option::as_ref)
    }

    /// Line `line` (1-based) of `path`, trimmed; cut around `character`
    /// when very long. Empty when the file cannot be read.
    pub async fn line(&mut self, path: &Path, position: Position) -> String {
        match self.file(path).await {
            Some(file) => line_text(file, position),
            None => String::new(),
        }
    }

    /// The numbered lines `first..=last` of `path` (as far as it goes).
    pub async fn lines(&mut self, path: &Path, first: u32, last: u32) -> Vec<(u32, String)> {
        let Some(file) = self.file(path).await else {
            return Vec::new();
        };
        let count = file.lines().line_count() as u32;
        (first.max(1)..=last.min(count))
            .map(|n| {
                let text = file
                    .lines()
                    .line(file.text(), n as usize - 1)
                    .trim_end_matches(['\r', '\n']);
                // Indentation kept: context lines show the code's shape.
                let indent = text.len() - text.trim_start().len();
                (n, format!("{}{}", &text[..indent], clip(text, 0)))
            })
            .collect()
    }

    /// The name path of the innermost outline symbol around `position`
    /// (not the one whose name stands there: a declaration is "in" its
    /// container), and the one a reference line names: on that symbol's
    /// own declaration line, which already says it (`impl Trait for Type
    /// {`, `fn summary(value: &Ledger)`), its container instead.
    pub async fn enclosing(
        &mut self,
        path: &Path,
        position: Position,
    ) -> (Option<String>, Option<String>) {
        let Some(file) = self.file(path).await else {
            return (None, None);
        };
        let mut chain = Vec::new();
        innermost(file.symbols(), position, &mut chain);
        let path_of = |chain: &[&OutlineSymbol]| {
            let names: Vec<&str> = chain.iter().map(|symbol| symbol.name.as_str()).collect();
            (!names.is_empty()).then(|| join_path(&names, file.path_separator()))
        };
        let enclosing = path_of(&chain);
        if chain
            .last()
            .is_some_and(|symbol| symbol.selection_range.start.line == position.line)
        {
            chain.pop();
        }
        (enclosing, path_of(&chain))
    }

    /// The name path of the innermost outline symbol whose lines hold
    /// `line` (a declaration's own line counts as inside it).
    pub async fn symbol_at_line(&mut self, path: &Path, line: u32) -> Option<String> {
        let file = self.file(path).await?;
        let mut chain = Vec::new();
        let mut symbols = file.symbols();
        while let Some(symbol) = symbols
            .iter()
            .find(|s| s.range.start.line <= line && line <= s.range.end.line)
        {
            chain.push(symbol.name.as_str());
            symbols = &symbol.children;
        }
        (!chain.is_empty()).then(|| join_path(&chain, file.path_separator()))
    }

    /// The declaration named at `position`: its name path and kind.
    pub async fn declared_at(
        &mut self,
        path: &Path,
        position: Position,
    ) -> Option<(String, crate::model::SymbolKind)> {
        let file = self.file(path).await?;
        super::name_path::declared_at(file.symbols(), position, file.path_separator())
    }

    /// Whether the name of `chars` characters at `position` is called
    /// there: followed by `(`, or by type arguments (`<`).
    pub async fn called_at(&mut self, path: &Path, position: Position, chars: usize) -> bool {
        let Some(file) = self.file(path).await else {
            return false;
        };
        let Some(line) = (position.line as usize).checked_sub(1) else {
            return false;
        };
        if line >= file.lines().line_count() {
            return false;
        }
        let text = file.lines().line(file.text(), line);
        let mut after = text
            .chars()
            .skip((position.character as usize).saturating_sub(1) + chars)
            .skip_while(|c| *c == ' ' || *c == '\t');
        matches!(after.next(), Some('(' | '<'))
    }

    /// The macro invoked at `position` (`iterator!`), when a server names
    /// there a symbol `name` the invocation made: the name is not written
    /// there, a macro's name followed by `!` is.
    pub async fn macro_invoked_at(
        &mut self,
        path: &Path,
        position: Position,
        name: &str,
    ) -> Option<String> {
        let file = self.file(path).await?;
        let line = (position.line as usize).checked_sub(1)?;
        if line >= file.lines().line_count() {
            return None;
        }
        let text = file.lines().line(file.text(), line);
        // A slice, not a copy: asked for every node of a call tree.
        let from = (position.character as usize).saturating_sub(1);
        let rest = match text.char_indices().nth(from) {
            Some((at, _)) => &text[at..],
            None => "",
        };
        macro_invocation(rest, name)
    }

    /// The class or interface whose heritage (`extends`, `implements`)
    /// holds `position`: where it is declared.
    pub async fn heir_at(&mut self, path: &Path, position: Position) -> Option<Position> {
        let file = self.file(path).await?;
        let FileOutline::TreeSitter(parsed) = file else {
            return None;
        };
        if !parsed.in_heritage(position) {
            return None;
        }
        let mut symbols = parsed.outline();
        let mut heir = None;
        while let Some(symbol) = symbols
            .iter()
            .find(|s| s.range.start <= position && position <= s.range.end)
        {
            if matches!(symbol.kind, SymbolKind::Class | SymbolKind::Interface) {
                heir = Some(symbol.selection_range.start);
            }
            symbols = &symbol.children;
        }
        heir
    }

    /// How names join into a name path in `path`'s language (`.`, `::`).
    pub async fn separator(&mut self, path: &Path) -> &'static str {
        match self.file(path).await {
            Some(file) => file.path_separator(),
            None => ".",
        }
    }

    /// Whether a member (method, property, field) is declared at
    /// `position` in a class or interface whose heading names `base` after
    /// `extends` or `implements`: a member that implements or overrides
    /// one of `base`'s.
    pub async fn member_of_heir(&mut self, path: &Path, position: Position, base: &str) -> bool {
        let Some(file) = self.file(path).await else {
            return false;
        };
        let mut symbols = file.symbols();
        let mut container = None;
        while let Some(symbol) = symbols
            .iter()
            .find(|s| s.range.start <= position && position <= s.range.end)
        {
            if symbol.selection_range.start == position {
                let member = matches!(
                    symbol.kind,
                    SymbolKind::Method | SymbolKind::Property | SymbolKind::Field
                );
                return member && container.is_some_and(|c| heading_names(file, c, base));
            }
            container = Some(symbol);
            symbols = &symbol.children;
        }
        false
    }

    /// Whether `position` is inside a statement that brings a name from
    /// elsewhere (`import …`, `use …`), as tree-sitter reads the file.
    pub async fn in_import(&mut self, path: &Path, position: Position) -> bool {
        match self.file(path).await {
            Some(FileOutline::TreeSitter(file)) => file.in_import(position),
            _ => false,
        }
    }

    /// Whether a declaration's name stands at `position`, or a node that
    /// declares implementations itself (`#[derive(Debug)]`) holds it;
    /// `None` when the file has no outline to tell.
    pub async fn declares(&mut self, path: &Path, position: Position) -> Option<bool> {
        let file = self.file(path).await?;
        let separator = file.path_separator();
        let declared = super::name_path::declared_at(file.symbols(), position, separator).is_some();
        let derived = match file {
            FileOutline::TreeSitter(parsed) => parsed.in_derive(position),
            FileOutline::Server { .. } => false,
        };
        Some(declared || derived)
    }

    /// A location with its line.
    pub async fn location(&mut self, path: &Path, position: Position) -> SourceLocation {
        let text = self.line(path, position).await;
        let place = self.place(path);
        // The last file met: found again without hashing.
        let index = self.known(path);
        SourceLocation {
            path: self.files[index].shown.clone(),
            position,
            text,
            place,
        }
    }
}

/// Whether `path` is spelled as its components give it back (what a
/// server's path is): no empty or `.` segment after the first, no `/` at
/// the end (which refuses `/` itself too).
fn spelled_plainly(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    !bytes.ends_with(b"/")
        && !bytes.ends_with(b"/.")
        && !bytes.windows(2).any(|pair| pair == b"//")
        && !bytes.windows(3).any(|three| three == b"/./")
}

/// Whose code `path` is: the workspace's (outside the dependency folders,
/// `node_modules` and `target`), a library's, or neither.
pub fn place(ctx: &Context, path: &Path) -> Place {
    // Most paths asked about are the workspace's own, spelled plainly (as
    // servers and walks give them): the bytes after the root's tell.
    // Taking each path apart into components (twice) was 0.1 ms of the
    // 1.5 ms of sextant's own in a call hierarchy of 82 callers through
    // 70 files of the TypeScript SDK.
    if let Some(place) = place_in_root_by_bytes(ctx.workspace.root(), path) {
        return place;
    }
    let within = |path: &Path| {
        if let Some(place) = place_in_root(ctx.workspace.root(), path) {
            return Some(place);
        }
        ctx.workspace
            .library_roots()
            .iter()
            .any(|root| path.starts_with(root))
            .then_some(Place::Library)
    };
    within(path)
        .or_else(|| within(&path.canonicalize().ok()?))
        .unwrap_or(Place::Outside)
}

/// Whose code `path` is, if it is inside `root`: the workspace's, or a
/// library's in a dependency folder.
fn place_in_root(root: &Path, path: &Path) -> Option<Place> {
    let rest = path.strip_prefix(root).ok()?;
    Some(match crate::fs::walk::in_dependency_folder(rest) {
        true => Place::Library,
        false => Place::Workspace,
    })
}

/// [`place_in_root`] read from the bytes of `path` after those of `root`
/// and a `/`, where those bytes are its components as they are (no empty
/// or `.` segment, which components leave out); `None` otherwise.
fn place_in_root_by_bytes(root: &Path, path: &Path) -> Option<Place> {
    use std::os::unix::ffi::OsStrExt;
    let rest = path
        .as_os_str()
        .as_bytes()
        .strip_prefix(root.as_os_str().as_bytes())?
        .strip_prefix(b"/")?;
    let mut dependency = false;
    for segment in rest.split(|&byte| byte == b'/') {
        if matches!(segment, b"" | b".") {
            return None;
        }
        dependency |= crate::fs::walk::is_dependency_folder(segment);
    }
    Some(match dependency {
        true => Place::Library,
        false => Place::Workspace,
    })
}

fn innermost<'s>(
    symbols: &'s [OutlineSymbol],
    position: Position,
    chain: &mut Vec<&'s OutlineSymbol>,
) {
    for symbol in symbols {
        if symbol.range.start <= position
            && position < symbol.range.end
            && symbol.selection_range.start != position
        {
            chain.push(symbol);
            innermost(&symbol.children, position, chain);
            return;
        }
        if symbol.selection_range.start == position {
            return;
        }
    }
}

/// `text`'s leading identifier with its `!` (`iterator!`), when it is a
/// macro's name and not `name`.
fn macro_invocation(text: &str, name: &str) -> Option<String> {
    let end = text
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(text.len(), |(at, _)| at);
    let word = &text[..end];
    let invoked = !word.is_empty()
        && word != name
        && text[word.len()..].starts_with('!')
        && !text[word.len()..].starts_with("!=");
    invoked.then(|| format!("{word}!"))
}

fn line_text(file: &FileOutline, position: Position) -> String {
    let count = file.lines().line_count();
    let Some(index) = (position.line as usize)
        .checked_sub(1)
        .filter(|&l| l < count)
    else {
        return String::new();
    };
    let raw = file
        .lines()
        .line(file.text(), index)
        .trim_end_matches(['\r', '\n']);
    clip(raw, position.character)
}

/// A line trimmed, and when longer than [`MAX_LINE_CHARS`], cut to a window
/// around `character` (1-based; 0 for the start) with `…` where it was cut.
pub fn clip(line: &str, character: u32) -> String {
    let trimmed = line.trim();
    // No more bytes than the most characters shown: no more characters.
    if trimmed.len() <= MAX_LINE_CHARS {
        return trimmed.to_string();
    }
    let leading = line.chars().take_while(|c| c.is_whitespace()).count();
    let chars: Vec<char> = trimmed.chars().collect();
    if chars.len() <= MAX_LINE_CHARS {
        return chars.into_iter().collect();
    }
    let at = (character as usize)
        .saturating_sub(1)
        .saturating_sub(leading)
        .min(chars.len());
    let start = at.saturating_sub(MAX_LINE_CHARS / 3);
    let end = (start + MAX_LINE_CHARS).min(chars.len());
    let start = end.saturating_sub(MAX_LINE_CHARS);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    out
}

/// Whether `container`'s heading (its text up to the body's `{`) names
/// `base` as a whole word after `extends` or `implements`.
fn heading_names(file: &FileOutline, container: &OutlineSymbol, base: &str) -> bool {
    let text = file.text();
    let lines = file.lines();
    let (Some(start), Some(name)) = (
        lines.offset(text, container.range.start),
        lines.offset(text, container.selection_range.end),
    ) else {
        return false;
    };
    let heading = &text[start..];
    let heading = &heading[..heading[name - start..]
        .find('{')
        .map_or(heading.len(), |brace| name - start + brace)];
    let Some(clause) = ["extends", "implements"]
        .iter()
        .filter_map(|word| heading.find(word))
        .min()
    else {
        return false;
    };
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    heading[clause..].match_indices(base).any(|(at, _)| {
        let rest = &heading[clause..];
        !rest[..at].chars().next_back().is_some_and(is_word)
            && !rest[at + base.len()..].chars().next().is_some_and(is_word)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A path taken as spelled (its own file number's key) is spelled
        /// as its components give it back: so paths equal as `Path`s have
        /// one key, and one number.
        #[test]
        fn a_path_spelled_plainly_is_its_components(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["/", "//", "a", "b.ts", ".", "..", "/./", "./"]),
                0..8,
            ),
        ) {
            let path = PathBuf::from(pieces.concat());
            let components: PathBuf = path.components().collect();
            if spelled_plainly(&path) {
                proptest::prop_assert_eq!(components.as_os_str(), path.as_os_str());
            }
            proptest::prop_assert!(spelled_plainly(&components) || components == Path::new("/"));
        }
    }

    /// The files whose parse is not kept are parsed and kept, several at
    /// once; what each then shows is what it shows read alone.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn files_parsed_at_once_are_kept_and_show_what_they_show() {
        let dir = tempfile::tempdir().unwrap();
        let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        let mut paths = Vec::new();
        for n in 0..6 {
            let path = dir.path().join(format!("f{n}.ts"));
            let text = format!("export class C{n} {{\n  m{n}() {{ return {n}; }}\n}}\n");
            std::fs::write(&path, text).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(long_ago).unwrap();
            paths.push(path);
        }
        paths.push(dir.path().join("notes.txt"));
        let workspace = crate::fs::workspace::Workspace::new(dir.path(), &[]).unwrap();
        let paths: Vec<PathBuf> = paths
            .iter()
            .map(|p| workspace.root().join(p.file_name().unwrap()))
            .collect();
        let ctx = Context::new(workspace, crate::lsp::config::Config::built_in(), false);
        let at = Position::new(2, 5);
        let alone = {
            let mut files = SourceFiles::new(&ctx);
            let mut shown = Vec::new();
            for path in &paths[..6] {
                shown.push((files.line(path, at).await, files.enclosing(path, at).await));
            }
            shown
        };
        assert_eq!(ctx.parsed.len(), 6);
        let ctx = Context::new(
            crate::fs::workspace::Workspace::new(dir.path(), &[]).unwrap(),
            crate::lsp::config::Config::built_in(),
            false,
        );
        let mut files = SourceFiles::new(&ctx);
        files.parse_all(paths.iter().map(PathBuf::as_path)).await;
        assert_eq!(ctx.parsed.len(), 6, "each source file parsed and kept");
        let mut shown = Vec::new();
        for path in &paths[..6] {
            shown.push((files.line(path, at).await, files.enclosing(path, at).await));
        }
        assert_eq!(shown, alone);
        assert_eq!(shown[3].0, "m3() { return 3; }");
    }

    #[test]
    fn paths_spelled_otherwise_are_not_taken_as_spelled() {
        for path in ["/a//b.ts", "/a/./b.ts", "/a/b/", "/a/.", "/"] {
            assert!(!spelled_plainly(Path::new(path)), "{path}");
        }
        assert!(spelled_plainly(Path::new("/a/../b.ts")));
    }

    #[test]
    fn a_place_read_from_bytes_is_the_place_read_from_components() {
        let root = Path::new("/work/app");
        let plain = [
            ("/work/app/src/main.ts", Some(Place::Workspace)),
            (
                "/work/app/node_modules/zod/index.d.ts",
                Some(Place::Library),
            ),
            (
                "/work/app/packages/a/node_modules/x.ts",
                Some(Place::Library),
            ),
            ("/work/app/target/debug/build.rs", Some(Place::Library)),
            ("/work/app/targets/a.rs", Some(Place::Workspace)),
            // As components read it (`..` is not resolved): kept, not
            // endorsed; servers' paths come resolved.
            ("/work/app/../other/node_modules/x.ts", Some(Place::Library)),
            ("/work/app/x", Some(Place::Workspace)),
            ("/work/apple/src/main.ts", None),
            ("/work/other/src/main.ts", None),
        ];
        for (path, place) in plain {
            let path = Path::new(path);
            assert_eq!(place_in_root_by_bytes(root, path), place, "{path:?}");
            assert_eq!(place_in_root(root, path), place, "{path:?}");
        }
        // A name that is not UTF-8 is compared as bytes in both.
        {
            use std::os::unix::ffi::OsStrExt;
            let path = Path::new(std::ffi::OsStr::from_bytes(
                b"/work/app/\xff/node_modules/x",
            ));
            assert_eq!(place_in_root_by_bytes(root, path), Some(Place::Library));
            assert_eq!(place_in_root(root, path), Some(Place::Library));
        }
        // A root spelled with a trailing slash is left to the components.
        let slashed = Path::new("/work/app/");
        let path = Path::new("/work/app/src/main.ts");
        assert_eq!(place_in_root_by_bytes(slashed, path), None);
        assert_eq!(place_in_root(slashed, path), Some(Place::Workspace));
        // Spellings components read past are left to them.
        for path in [
            "/work/app//src/main.ts",
            "/work/app/./node_modules/x.ts",
            "/work/app/src/",
            "/work/app/",
            "/work/app",
        ] {
            let path = Path::new(path);
            assert_eq!(place_in_root_by_bytes(root, path), None, "{path:?}");
            assert!(place_in_root(root, path).is_some(), "{path:?}");
        }
    }

    #[test]
    fn a_macro_invocation_is_told_from_the_name_itself() {
        assert_eq!(
            macro_invocation("iterator! {struct Iter -> *const T", "position"),
            Some("iterator!".to_string())
        );
        assert_eq!(
            macro_invocation("zero_fn!();", "zero"),
            Some("zero_fn!".to_string())
        );
        assert_eq!(macro_invocation("position(|&b| b == 0)", "position"), None);
        assert_eq!(macro_invocation("a != b", "position"), None);
        assert_eq!(macro_invocation("total!(entries)", "total"), None);
    }

    #[test]
    fn short_lines_are_trimmed_and_long_ones_cut_around_the_position() {
        assert_eq!(clip("    let x = 1;  ", 9), "let x = 1;");
        let long = format!("{}needle{}", "a".repeat(300), "b".repeat(300));
        let cut = clip(&long, 301);
        assert!(cut.starts_with('…') && cut.ends_with('…'));
        assert!(cut.contains("needle"));
        assert_eq!(cut.chars().count(), MAX_LINE_CHARS + 2);
        // Characters, not bytes, count: a line of as many two-byte
        // characters as are shown is whole; one more, and it is cut.
        let whole = "é".repeat(MAX_LINE_CHARS);
        assert_eq!(clip(&format!("  {whole} "), 3), whole);
        let cut = clip(&format!("{whole}é"), 1);
        assert_eq!(cut, format!("{}…", "é".repeat(MAX_LINE_CHARS)));
        assert_eq!(
            clip(&"x".repeat(MAX_LINE_CHARS), 1),
            "x".repeat(MAX_LINE_CHARS)
        );
    }
}
