//! The tree-sitter symbol indexes: every declaration of every workspace file
//! sextant has a grammar for, so `search` can answer where no language
//! server can (missing, failed, still starting); and of the declaration
//! files of the workspace's npm dependencies, which TypeScript's servers do
//! not search, for `search` with `include_external`.
//!
//! Built on first use, in parallel (one thread per core), from the same
//! outlines `read` shows; kept fresh by the file watcher, whose changed
//! paths mark files to parse again before the next query; bounded in files
//! and symbols, and a query says when the bound left files out.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::WalkBuilder;

use crate::fs::walk;
use crate::model::{OutlineSymbol, Position, SymbolKind};
use crate::sync::lock;
use crate::syntax::{Language, SourceFile};

/// Files indexed at most.
pub const MAX_FILES: usize = 20_000;
/// Symbols kept at most (about 100 bytes each).
pub const MAX_SYMBOLS: usize = 500_000;
/// Larger files are left out (generated code, bundles).
const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// One declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedSymbol {
    pub name: String,
    pub kind: SymbolKind,
    /// Where its name starts.
    pub position: Position,
    /// Its container's name path (`Registry`, `impl Account for Ledger`).
    pub container: Option<String>,
}

/// The characters a search matches names by, as a set: ASCII letters
/// (either case), digits, `_` and `$`. A query matches a name only if
/// the name holds every character of the query, case aside (`search`'s
/// every rank holds the query's characters in order), so one test of the
/// name's set against the query's passes over most names of the index
/// without looking at them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Letters(u64);

impl Letters {
    /// What every name holds: a query with it matches every name.
    pub const NONE: Letters = Letters(0);

    /// A name's set. A name with a character that is not ASCII holds
    /// every one (it may lowercase into an ASCII one: the Kelvin sign
    /// into `k`); other ASCII characters are left out.
    pub fn of_name(name: &str) -> Letters {
        let mut set = 0;
        for byte in name.bytes() {
            if !byte.is_ascii() {
                return Letters(u64::MAX);
            }
            set |= Self::bit(byte).unwrap_or(0);
        }
        Letters(set)
    }

    /// The set every name a query matches holds: `NONE` for a query
    /// with a character outside the set.
    pub fn of_query(query: &str) -> Letters {
        let mut set = 0;
        for byte in query.bytes() {
            match Self::bit(byte) {
                Some(bit) => set |= bit,
                None => return Letters::NONE,
            }
        }
        Letters(set)
    }

    /// Whether every character of `other` is in this set.
    pub fn holds(self, other: Letters) -> bool {
        self.0 & other.0 == other.0
    }

    fn bit(byte: u8) -> Option<u64> {
        let index = match byte.to_ascii_lowercase() {
            letter @ b'a'..=b'z' => letter - b'a',
            digit @ b'0'..=b'9' => 26 + digit - b'0',
            b'_' => 36,
            b'$' => 37,
            _ => return None,
        };
        Some(1 << index)
    }
}

/// A symbol kept in the index, with its name's [`Letters`].
#[derive(Debug)]
struct Kept {
    symbol: IndexedSymbol,
    letters: Letters,
}

/// A symbol found by a query, with its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexHit {
    pub path: PathBuf,
    pub symbol: IndexedSymbol,
}

/// What a query found, and whether the index is whole.
#[derive(Debug, Clone, Default)]
pub struct IndexAnswer {
    pub hits: Vec<IndexHit>,
    /// Why some files are not indexed, when a bound was reached.
    pub incomplete: Option<String>,
}

/// What an index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Indexed {
    /// The workspace's own files.
    #[default]
    Workspace,
    /// The `.d.ts` files of the packages the workspace's package.json
    /// files depend on (and their `@types`), under node_modules.
    NpmDependencies,
}

#[derive(Default)]
pub struct SymbolIndex {
    indexed: Indexed,
    state: Mutex<Option<State>>,
}

struct State {
    root: PathBuf,
    files: HashMap<PathBuf, Vec<Kept>>,
    /// Paths changed on disk since they were indexed.
    dirty: HashSet<PathBuf>,
    symbols: usize,
    incomplete: Option<String>,
}

impl SymbolIndex {
    pub fn new(indexed: Indexed) -> SymbolIndex {
        SymbolIndex {
            indexed,
            state: Mutex::new(None),
        }
    }

    /// Notes paths created, changed or deleted on disk (the file watcher
    /// says so): they are indexed again before the next query. The
    /// dependencies' index is made again after a package.json changes (the
    /// watcher does not look inside node_modules).
    pub fn note_changed<'a>(&self, paths: impl IntoIterator<Item = &'a Path>) {
        let mut guard = lock(&self.state);
        let Some(state) = guard.as_mut() else {
            return;
        };
        match self.indexed {
            Indexed::Workspace => state.dirty.extend(paths.into_iter().map(Path::to_path_buf)),
            Indexed::NpmDependencies => {
                if paths
                    .into_iter()
                    .any(|p| p.file_name().is_some_and(|n| n == "package.json"))
                {
                    *guard = None;
                }
            }
        }
    }

    /// The symbols of the workspace under `root` whose names hold
    /// `letters` and that `keep` accepts (it sees each such name),
    /// building or refreshing the index first. Blocking: call it off the
    /// async threads.
    pub fn query(&self, root: &Path, letters: Letters, keep: impl Fn(&str) -> bool) -> IndexAnswer {
        let mut guard = lock(&self.state);
        match guard.as_mut() {
            Some(state) if state.root == root => state.refresh(),
            _ => {
                let files = match self.indexed {
                    Indexed::Workspace => indexable_files(root),
                    Indexed::NpmDependencies => npm_declarations(root),
                };
                *guard = Some(State::build(root, files));
            }
        }
        let state = guard.as_ref().expect("built above");
        let mut hits = Vec::new();
        for (path, symbols) in &state.files {
            let found = symbols
                .iter()
                .filter(|kept| kept.letters.holds(letters) && keep(&kept.symbol.name));
            for kept in found {
                hits.push(IndexHit {
                    path: path.clone(),
                    symbol: kept.symbol.clone(),
                });
            }
        }
        IndexAnswer {
            hits,
            incomplete: state.incomplete.clone(),
        }
    }

    /// How many files and symbols are indexed (none before the first query).
    pub fn size(&self) -> (usize, usize) {
        let state = lock(&self.state);
        state
            .as_ref()
            .map_or((0, 0), |s| (s.files.len(), s.symbols))
    }
}

impl State {
    fn build(root: &Path, (paths, more): (Vec<PathBuf>, usize)) -> State {
        let mut state = State {
            root: root.to_path_buf(),
            files: HashMap::new(),
            dirty: HashSet::new(),
            symbols: 0,
            incomplete: (more > 0)
                .then(|| format!("{more} files past the first {MAX_FILES} are not indexed")),
        };
        for (path, symbols) in index_files(paths) {
            state.insert(path, symbols);
        }
        state
    }

    /// Parses the dirty paths again: a changed file is re-indexed, a
    /// deleted one dropped, a new folder walked.
    fn refresh(&mut self) {
        if self.dirty.is_empty() {
            return;
        }
        let dirty: Vec<PathBuf> = self.dirty.drain().collect();
        let mut parse = Vec::new();
        for path in dirty {
            if path.is_dir() {
                let (inside, _) = indexable_files(&path);
                parse.extend(inside);
                continue;
            }
            // Gone (a file, or a folder and everything under it).
            let gone: Vec<PathBuf> = self
                .files
                .keys()
                .filter(|indexed| indexed.starts_with(&path))
                .cloned()
                .collect();
            for old in gone {
                if let Some(symbols) = self.files.remove(&old) {
                    self.symbols -= symbols.len();
                }
            }
            if path.is_file() && Language::from_path(&path).is_some() {
                parse.push(path);
            }
        }
        for (path, symbols) in index_files(parse) {
            self.insert(path, symbols);
        }
    }

    fn insert(&mut self, path: PathBuf, symbols: Vec<IndexedSymbol>) {
        if self.symbols + symbols.len() > MAX_SYMBOLS {
            self.incomplete = Some(format!(
                "the index stopped at {MAX_SYMBOLS} symbols; some files are not indexed"
            ));
            return;
        }
        self.symbols += symbols.len();
        let kept = symbols
            .into_iter()
            .map(|symbol| Kept {
                letters: Letters::of_name(&symbol.name),
                symbol,
            })
            .collect();
        if let Some(old) = self.files.insert(path, kept) {
            self.symbols -= old.len();
        }
    }
}

/// The files under `root` with a grammar, .gitignore respected and the
/// dependency folders left out, at most [`MAX_FILES`]; and how many more.
fn indexable_files(root: &Path) -> (Vec<PathBuf>, usize) {
    let mut files: Vec<PathBuf> = walk::sources(root)
        .file_entries()
        .filter(|e| e.metadata().is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        .map(|e| e.into_path())
        .filter(|p| Language::from_path(p).is_some())
        .collect();
    files.sort();
    let more = files.len().saturating_sub(MAX_FILES);
    files.truncate(MAX_FILES);
    (files, more)
}

/// The declaration files (`.d.ts`, `.d.mts`, `.d.cts`) of the npm packages
/// the workspace's package.json files depend on, and of their `@types`,
/// as node resolves them from each package.json's folder; nested
/// node_modules left out. At most [`MAX_FILES`]; and how many more.
fn npm_declarations(root: &Path) -> (Vec<PathBuf>, usize) {
    let manifests = walk::sources(root)
        .file_entries()
        .filter(|e| e.file_name() == "package.json");
    let mut packages: Vec<PathBuf> = Vec::new();
    for manifest in manifests {
        let Some(folder) = manifest.path().parent() else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(manifest.path()) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let names = [
            "dependencies",
            "devDependencies",
            "peerDependencies",
            "optionalDependencies",
        ]
        .iter()
        .filter_map(|key| json.get(key)?.as_object())
        .flat_map(|deps| deps.keys().cloned());
        for name in names {
            let types = match name.strip_prefix('@') {
                Some(scoped) => format!("@types/{}", scoped.replace('/', "__")),
                None => format!("@types/{name}"),
            };
            for wanted in [name, types] {
                let found = folder
                    .ancestors()
                    .take_while(|dir| dir.starts_with(root))
                    .map(|dir| dir.join("node_modules").join(&wanted))
                    .find(|dir| dir.is_dir());
                if let Some(found) = found
                    && !packages.contains(&found)
                {
                    packages.push(found);
                }
            }
        }
    }
    let mut files: Vec<PathBuf> = packages
        .iter()
        .flat_map(|package| {
            WalkBuilder::new(package)
                .standard_filters(false)
                .filter_entry(|e| e.depth() == 0 || e.file_name() != "node_modules")
                .build()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                .map(|e| e.into_path())
                .filter(|p| {
                    let name = p.to_string_lossy();
                    name.ends_with(".d.ts") || name.ends_with(".d.mts") || name.ends_with(".d.cts")
                })
                .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= MAX_FILE_BYTES))
        })
        .collect();
    files.sort();
    files.dedup();
    let more = files.len().saturating_sub(MAX_FILES);
    files.truncate(MAX_FILES);
    (files, more)
}

/// Parses `paths` on one thread per core; unreadable files are skipped.
fn index_files(paths: Vec<PathBuf>) -> Vec<(PathBuf, Vec<IndexedSymbol>)> {
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(paths.len().max(1));
    let chunk = paths.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = paths
            .chunks(chunk)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|path| Some((path.clone(), index_file(path)?)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap_or_default())
            .collect()
    })
}

/// One file's declarations, flattened with their containers. The tree is
/// dropped: the index keeps only what a query needs.
fn index_file(path: &Path) -> Option<Vec<IndexedSymbol>> {
    let language = Language::from_path(path)?;
    let bytes = std::fs::read(path).ok()?;
    if crate::fs::text::looks_binary(&bytes) {
        return None;
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let file = SourceFile::parse(language, text);
    let separator = language.name_separator();
    let mut out = Vec::new();
    flatten(file.outline(), None, separator, &mut out);
    Some(out)
}

fn flatten(
    symbols: &[OutlineSymbol],
    container: Option<&str>,
    separator: &str,
    out: &mut Vec<IndexedSymbol>,
) {
    for symbol in symbols {
        out.push(IndexedSymbol {
            name: symbol.name.clone(),
            kind: symbol.kind,
            position: symbol.selection_range.start,
            container: container.map(str::to_string),
        });
        let path = match container {
            Some(container) => {
                let joint = if container.contains(' ') {
                    "/"
                } else {
                    separator
                };
                format!("{container}{joint}{}", symbol.name)
            }
            None => symbol.name.clone(),
        };
        flatten(&symbol.children, Some(&path), separator, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_follows_files_written_and_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("a.ts"),
            "export class Alpha {\n  run(): void {}\n}\n",
        )
        .unwrap();
        std::fs::create_dir(root.join("node_modules")).unwrap();
        std::fs::write(root.join("node_modules/dep.ts"), "export class Hidden {}\n").unwrap();
        let index = SymbolIndex::new(Indexed::Workspace);
        let names = |index: &SymbolIndex| {
            let mut hits: Vec<String> = index
                .query(root, Letters::NONE, |_| true)
                .hits
                .into_iter()
                .map(|h| {
                    format!(
                        "{} {} {}@{} in {}",
                        h.symbol.kind.name(),
                        h.symbol.container.unwrap_or_default(),
                        h.symbol.name,
                        h.symbol.position,
                        h.path.file_name().unwrap().to_string_lossy()
                    )
                })
                .collect();
            hits.sort();
            hits
        };
        assert_eq!(
            names(&index),
            ["Class  Alpha@1:14 in a.ts", "Method Alpha run@2:3 in a.ts"]
        );
        std::fs::write(root.join("b.rs"), "pub fn beta() {}\n").unwrap();
        std::fs::remove_file(root.join("a.ts")).unwrap();
        index.note_changed([root.join("b.rs").as_path(), root.join("a.ts").as_path()]);
        assert_eq!(names(&index), ["Function  beta@1:8 in b.rs"]);
        assert_eq!(index.size(), (1, 1));
    }
}

#[cfg(test)]
mod dependency_tests {
    use super::*;

    #[test]
    fn the_dependencies_declarations_are_indexed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| crate::fs::write_test_file(root, path, text);
        write(
            "packages/app/package.json",
            r#"{"dependencies": {"lib": "1", "@scope/pkg": "1"}}"#,
        );
        write(
            "node_modules/lib/index.d.ts",
            "export declare function fromLib(): void;\n",
        );
        write(
            "node_modules/lib/node_modules/nested/index.d.ts",
            "export declare class Nested {}\n",
        );
        write(
            "node_modules/@types/scope__pkg/index.d.ts",
            "export declare class Typed {}\n",
        );
        write(
            "node_modules/unlisted/index.d.ts",
            "export declare class Unlisted {}\n",
        );
        let index = SymbolIndex::new(Indexed::NpmDependencies);
        let mut names: Vec<String> = index
            .query(root, Letters::NONE, |_| true)
            .hits
            .into_iter()
            .map(|h| h.symbol.name)
            .collect();
        names.sort();
        assert_eq!(names, ["Typed", "fromLib"]);
    }
}
