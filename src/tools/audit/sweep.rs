//! One look through the workspace's files for a name (a sweep): which
//! files are read and how, what each gave, and the sweeps of the files on
//! disk kept while the file watcher hears every change, so that a rename
//! previewed again, or references asked again, look at the few files that
//! matter instead of all of them. Looking each file up in the per-file
//! kept values took a rename preview through the TypeScript SDK's 800
//! files 1.4 ms of CPU, hashing paths.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::scan::Found;
use super::{Kept, Kind, MAX_FILE_BYTES, MAX_FILES, Places, Query, RenamedText, RenamedTexts};
use crate::fast_map::FastMap;
use crate::fs::memo::{Memo, Since};
use crate::fs::stamped::Watch;
use crate::model::Position;

/// Markdown files, whose code blocks of the language a rename audits.
const MARKDOWN: [&str; 3] = ["md", "markdown", "mdx"];

/// Sweeps kept at most.
const MAX_SWEEPS: usize = 8;

/// The most files a sweep may name and be kept: a common name in a large
/// tree is swept again rather than held (what each file gave is kept by
/// the per-file values, within their bound, anyway).
const MAX_KEPT_OUTCOMES: usize = 10_000;

/// How a file is read for the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// A Markdown file: its code blocks of the language.
    Markdown,
    /// A component embedding the language (`.svelte`).
    Embedding,
    /// A file of the language itself.
    Source,
}

/// What decides whether and how each file is read for a name: what a
/// sweep is kept under.
#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) struct Reader {
    pub markdown: Arc<Query>,
    pub component: Option<Arc<Query>>,
    pub source: Arc<Query>,
    /// The extensions of the components embedding the language.
    pub embedded: Option<Vec<String>>,
    /// The extensions of the language's own files.
    pub sources: Vec<String>,
    /// Whether the language's code is audited (`text_audit`).
    pub code: bool,
    /// Whether Markdown, comments and strings are (a rename).
    pub prose: bool,
}

impl Reader {
    /// How the file at `path` is read, and what is asked of it; `None`
    /// for a file the audit does not read.
    pub fn reading(&self, path: &Path) -> Option<(Reading, &Arc<Query>)> {
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if self.prose && MARKDOWN.contains(&extension) {
            return Some((Reading::Markdown, &self.markdown));
        }
        if let Some(embedded) = &self.embedded
            && embedded.iter().any(|e| e == extension)
        {
            return self
                .component
                .as_ref()
                .map(|component| (Reading::Embedding, component));
        }
        let is_source = (self.code || self.prose) && self.sources.iter().any(|e| e == extension);
        is_source.then_some((Reading::Source, &self.source))
    }

    /// Whether a file at `path` not read counts as code unread (else as
    /// prose): a component's, or a source file's where code is audited.
    fn unread_is_code(&self, path: &Path) -> bool {
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let has = |extensions: &[String]| extensions.iter().any(|e| e == extension);
        self.embedded.as_deref().is_some_and(has) || (self.code && has(&self.sources))
    }
}

/// What one file gave: where the name is (`None`: not read, at a bound
/// or for an error). Only files that hold the name or were not read are
/// kept.
#[derive(Debug, Clone)]
pub(super) struct Outcome {
    /// Its file's place in the sweep's list (which is in path order).
    at: usize,
    path: Arc<Path>,
    reading: Reading,
    found: Option<Arc<Found>>,
}

impl Outcome {
    fn of(
        at: usize,
        path: &Arc<Path>,
        reading: Reading,
        found: Option<Arc<Found>>,
    ) -> Option<Outcome> {
        let holds_nothing = found.as_ref().is_some_and(|found| {
            found.code.is_empty() && found.conditional.is_empty() && found.prose.is_empty()
        });
        (!holds_nothing).then(|| Outcome {
            at,
            path: Arc::clone(path),
            reading,
            found,
        })
    }
}

/// The files a sweep read and what they gave.
#[derive(Debug)]
pub(super) struct Sweep {
    /// The list of files it went through (kept by `Kept::sources`): a
    /// sweep of another list is of other files.
    sources: Arc<Vec<Arc<Path>>>,
    outcomes: Vec<Outcome>,
    /// Each listed file's place in `sources`, made when a rename's texts
    /// are first looked up in this sweep (a kept one serves every preview
    /// of the name after): a binary search of the list compares paths
    /// component by component, a fifth of a millisecond for the 71 files
    /// of a rename through the TypeScript SDK.
    places: OnceLock<FastMap<Arc<Path>, usize>>,
}

impl Sweep {
    /// A look through `sources` as `reader` says, a file of `texts` (a
    /// rename's) read from there instead of the disk. What each file gave
    /// is taken from `kept` while the file is unchanged (`watch`: without
    /// a `stat` where the watcher hears it). Once `MAX_FILES` files have given what they
    /// hold (read, kept or given as texts), a file not kept is not read,
    /// nor ever one larger than `MAX_FILE_BYTES`.
    pub fn new(
        kept: &Kept,
        sources: &Arc<Vec<Arc<Path>>>,
        reader: &Reader,
        texts: &RenamedTexts,
        watch: Option<&dyn Watch>,
    ) -> Sweep {
        let mut sweep = Sweep {
            sources: Arc::clone(sources),
            outcomes: Vec::new(),
            places: OnceLock::new(),
        };
        let mut found_in = 0;
        for (at, path) in sources.iter().enumerate() {
            let Some((reading, query)) = reader.reading(path) else {
                continue;
            };
            let found = if let Some(text) = texts.files.get(&**path) {
                Some(kept.found_in_text(path, query, text, &texts.new_name))
            } else {
                match kept.kept_found(path, query, watch) {
                    Ok(found) => Some(found),
                    // Gone since the list was made: nothing to find.
                    Err(None) if !path.exists() => continue,
                    Err(stamp)
                        if found_in >= MAX_FILES
                            || stamp.is_none_or(|s| s.bytes() > MAX_FILE_BYTES) =>
                    {
                        None
                    }
                    Err(stamp) => kept.find_on_disk(path, stamp, query),
                }
            };
            found_in += usize::from(found.is_some());
            sweep.outcomes.extend(Outcome::of(at, path, reading, found));
        }
        sweep
    }

    /// What this sweep of the disk gives with the files of `texts` read
    /// from there instead: what a sweep of the texts gives where the
    /// files number fewer than `MAX_FILES` with the texts (so that no
    /// file goes unread for their count; the caller sees to it). In the
    /// list's order, as a sweep's.
    pub fn with_texts(&self, kept: &Kept, reader: &Reader, texts: &RenamedTexts) -> Vec<Outcome> {
        // References ask with no texts: the sweep as it is (and no map of
        // the list made for nothing).
        if texts.files.is_empty() {
            return self.outcomes.clone();
        }
        // The texts' files by their places in the list: each disk outcome
        // is then told apart by its place, not by hashing its path.
        let places = self.places.get_or_init(|| {
            let listed = self.sources.iter().enumerate();
            listed.map(|(at, path)| (Arc::clone(path), at)).collect()
        });
        let mut taken: Vec<(usize, &RenamedText)> = texts
            .files
            .iter()
            .filter_map(|(path, text)| places.get(path.as_path()).map(|&at| (at, text)))
            .collect();
        taken.sort_unstable_by_key(|&(at, _)| at);
        let disk = self
            .outcomes
            .iter()
            .filter(|outcome| {
                taken
                    .binary_search_by_key(&outcome.at, |&(at, _)| at)
                    .is_err()
            })
            .cloned();
        let of_texts = taken.iter().filter_map(|&(at, text)| {
            let path = &self.sources[at];
            let (reading, query) = reader.reading(path)?;
            let found = kept.found_in_text(path, query, text, &texts.new_name);
            Outcome::of(at, path, reading, Some(found))
        });
        let mut outcomes: Vec<Outcome> = disk.chain(of_texts).collect();
        // Two runs in order, merged.
        outcomes.sort_by_key(|outcome| outcome.at);
        outcomes
    }

    pub fn outcomes(self) -> Vec<Outcome> {
        self.outcomes
    }
}

/// The places of `outcomes` (in path order, as sweeps give them), as
/// `reader` looked for them: the language's code where it audits code,
/// and Markdown, comments and strings where it audits prose. Each kind's
/// files are gathered in order and its map built from them at once
/// (about two path comparisons a file, where inserting each compared
/// paths down the tree).
pub(super) fn places_of(outcomes: &[Outcome], reader: &Reader) -> Places {
    let mut by_kind: BTreeMap<Kind, Vec<(PathBuf, Vec<Position>)>> = BTreeMap::new();
    let mut add = |kind, path: &Path, positions: &Vec<Position>| {
        if !positions.is_empty() {
            by_kind
                .entry(kind)
                .or_default()
                .push((path.to_path_buf(), positions.clone()));
        }
    };
    let mut places = Places::default();
    for Outcome {
        path,
        reading,
        found,
        ..
    } in outcomes
    {
        let Some(found) = found else {
            if reader.unread_is_code(path) {
                places.unread += 1;
            } else {
                places.unread_prose += 1;
            }
            continue;
        };
        if *reading == Reading::Markdown {
            add(Kind::Markdown, path, &found.code);
            continue;
        }
        if *reading == Reading::Embedding {
            add(Kind::Embedded, path, &found.code);
        } else if reader.code {
            add(Kind::Code, path, &found.code);
        }
        add(Kind::Conditional, path, &found.conditional);
        if reader.prose {
            add(Kind::Prose, path, &found.prose);
        }
    }
    // (Pairs in order: a map built from them checks the order and does
    // not reorder.)
    places.by_kind = by_kind
        .into_iter()
        .map(|(kind, files)| (kind, files.into_iter().collect()))
        .collect();
    places
}

/// Sweeps of the files on disk, by what they looked for, kept until the
/// file watcher hands out a change (`forget`). Kept only while it hears
/// every change in the workspace: the caller asks
/// (`Supervisor::hears_everything`) before taking or keeping one.
#[derive(Debug)]
pub(super) struct Sweeps(Memo<Arc<Reader>, Arc<Sweep>>);

impl Default for Sweeps {
    fn default() -> Self {
        Sweeps(Memo::bounded(MAX_SWEEPS))
    }
}

impl Sweeps {
    /// The sweep kept for `reader` through the list `sources`; else when
    /// a sweep made now begins, to keep it by.
    pub fn get(&self, reader: &Reader, sources: &Arc<Vec<Arc<Path>>>) -> Result<Arc<Sweep>, Since> {
        let since = self.0.since();
        match self.0.get(reader) {
            Some(sweep) if Arc::ptr_eq(&sweep.sources, sources) => Ok(sweep),
            _ => Err(since),
        }
    }

    /// Keeps `sweep`, unless they were forgotten since it began or it
    /// names too many files.
    pub fn keep(&self, reader: Arc<Reader>, sweep: Arc<Sweep>, since: Since) {
        if sweep.outcomes.len() <= MAX_KEPT_OUTCOMES {
            self.0.keep(reader, sweep, since);
        }
    }

    /// Forgets every sweep: a file changed.
    pub fn forget(&self) {
        self.0.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan::Words;
    use super::*;
    use crate::fs::new_text::NewText;
    use crate::fs::stamped::Stamp;
    use crate::lsp::config::AuditScope;
    use crate::tools::audit::Scan;

    fn reader(name: &str) -> Reader {
        let query = |scan| {
            Arc::new(Query {
                name: name.to_string(),
                scan,
            })
        };
        Reader {
            markdown: query(Scan::Markdown(vec!["js".to_string()])),
            component: None,
            source: query(Scan::Source {
                scope: AuditScope::Code,
                conditional: false,
            }),
            embedded: None,
            sources: vec!["js".to_string()],
            code: true,
            prose: true,
        }
    }

    /// Files on disk, listed as `Kept::sources` lists them.
    fn files(dir: &Path, files: &[(&str, &str)]) -> Arc<Vec<Arc<Path>>> {
        let paths = files
            .iter()
            .map(|(name, text)| {
                let path = dir.join(name);
                std::fs::write(&path, text).unwrap();
                Arc::from(path)
            })
            .collect();
        Arc::new(paths)
    }

    /// `path` written long ago (at one fixed time): settled, so what it
    /// gives is kept.
    fn settle(path: &Path) {
        let settled = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(settled).unwrap();
    }

    /// A sweep of the files as on disk (no rename's texts).
    fn on_disk(kept: &Kept, sources: &Arc<Vec<Arc<Path>>>, reader: &Reader) -> Sweep {
        Sweep::new(kept, sources, reader, &RenamedTexts::default(), None)
    }

    /// A rename's texts of files in `dir`, each as if created by it.
    fn renamed(dir: &Path, files: &[(&str, &str)]) -> RenamedTexts {
        let files = files.iter().map(|(name, text)| {
            let text = RenamedText {
                before: None,
                after: NewText::from(*text),
            };
            (dir.join(name), text)
        });
        RenamedTexts {
            new_name: "renamed".to_string(),
            files: files.collect(),
        }
    }

    #[test]
    fn a_kept_sweep_with_texts_finds_what_a_sweep_of_the_texts_finds() {
        let dir = tempfile::tempdir().unwrap();
        let sources = files(
            dir.path(),
            &[
                ("a.js", "send();\nx.send; // send\n"),
                ("b.js", "nothing();\n"),
                ("c.md", "```js\nsend()\n```\n"),
                ("d.txt", "send\n"),
                ("e.js", "other();\n"),
                ("f.js", &"send();\n".repeat(300_000)),
                ("g.js", "other();\n"),
            ],
        );
        // Listed, then deleted: read from the texts all the same.
        std::fs::remove_file(dir.path().join("g.js")).unwrap();
        let (kept, reader) = (Kept::default(), reader("send"));
        let texts = renamed(
            dir.path(),
            &[
                ("a.js", "nothing();\n"),
                ("b.js", "send();\n"),
                ("d.txt", "send\n"),
                ("g.js", "send();\n"),
                ("elsewhere.js", "send();\n"),
            ],
        );
        let disk = on_disk(&kept, &sources, &reader);
        let merged = disk.with_texts(&kept, &reader, &texts);
        // In the list's order, as a sweep's.
        assert!(
            merged.windows(2).all(|w| w[0].path < w[1].path),
            "{merged:?}"
        );
        let got = places_of(&merged, &reader);
        let swept = Sweep::new(&kept, &sources, &reader, &texts, None).outcomes();
        let expected = places_of(&swept, &reader);
        assert_eq!(got.by_kind, expected.by_kind);
        assert_eq!(
            (got.unread, got.unread_prose),
            (expected.unread, expected.unread_prose)
        );
        // The texts' places, not the disk's: b.js and g.js in code, the
        // Markdown block, and nothing of a.js, d.txt (not read), f.js
        // (too large to read) or a file not listed.
        assert_eq!((got.unread, got.unread_prose), (1, 0));
        let shown: Vec<(Kind, String)> = got
            .by_kind
            .iter()
            .flat_map(|(kind, files)| {
                files.keys().map(move |path| {
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    (*kind, name)
                })
            })
            .collect();
        assert_eq!(
            shown,
            [
                (Kind::Code, "b.js".to_string()),
                (Kind::Code, "g.js".to_string()),
                (Kind::Markdown, "c.md".to_string())
            ]
        );
        // The same sweep with other texts (a kept sweep serves every
        // preview): as a sweep of those.
        let texts = renamed(dir.path(), &[("e.js", "send();\n")]);
        let got = places_of(&disk.with_texts(&kept, &reader, &texts), &reader);
        let swept = Sweep::new(&kept, &sources, &reader, &texts, None).outcomes();
        assert_eq!(got.by_kind, places_of(&swept, &reader).by_kind);
        let code: Vec<String> = got.by_kind[&Kind::Code]
            .keys()
            .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(code, ["a.js", "e.js"]);
    }

    #[test]
    fn a_renamed_text_gives_what_a_read_of_it_gives() {
        let dir = tempfile::tempdir().unwrap();
        let before = "send();\nx.send; // send\nfunction f() { send(x.send, 'send') }\n";
        let sources = files(dir.path(), &[("a.js", before), ("b.js", "send(1);\n")]);
        // Settled, so what the disk's files give is kept.
        sources.iter().for_each(|path| settle(path));
        let (kept, reader) = (Kept::default(), reader("send"));
        let disk = on_disk(&kept, &sources, &reader);
        let after = "ship();\nx.send; // send\nfunction f() { ship(x.send, 'send') }\n";
        let renaming = |before: Option<&str>| {
            let text = RenamedText {
                before: before.map(Arc::from),
                after: NewText::from(after),
            };
            RenamedTexts {
                new_name: "ship".to_string(),
                files: [(dir.path().join("a.js"), text)].into_iter().collect(),
            }
        };
        // Carried over from the disk's find, against a read of the text.
        let got = places_of(
            &disk.with_texts(&kept, &reader, &renaming(Some(before))),
            &reader,
        );
        let read = Sweep::new(&Kept::default(), &sources, &reader, &renaming(None), None);
        assert_eq!(got.by_kind, places_of(&read.outcomes(), &reader).by_kind);
        let code = &got.by_kind[&Kind::Code][&dir.path().join("a.js")];
        assert_eq!(code, &[Position::new(2, 3), Position::new(3, 23)]);
    }

    #[test]
    fn no_file_is_read_past_the_bound_however_many_were_kept() {
        let dir = tempfile::tempdir().unwrap();
        // One file found kept (settled, so the cache keeps it), after the
        // bound's worth read: the file after it is past the bound.
        let kept_file = files(dir.path(), &[("kept.js", "send();\n")]);
        settle(&kept_file[0]);
        let (kept, reader) = (Kept::default(), reader("send"));
        let first = on_disk(&kept, &kept_file, &reader);
        assert_eq!(places_of(&first.outcomes(), &reader).unread, 0);
        let names: Vec<(String, &str)> = (0..MAX_FILES)
            .map(|n| (format!("a{n:05}.js"), "send();\n"))
            .chain([("past.js".to_string(), "send();\n")])
            .collect();
        let named: Vec<(&str, &str)> = names.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let written = files(dir.path(), &named);
        let (bound, past) = written.split_at(MAX_FILES);
        let sources: Vec<Arc<Path>> = bound
            .iter()
            .chain(kept_file.iter())
            .chain(past)
            .cloned()
            .collect();
        let sweep = on_disk(&kept, &Arc::new(sources), &reader);
        let places = places_of(&sweep.outcomes(), &reader);
        assert_eq!(places.unread, 1, "past.js is past the bound, unread");
        assert_eq!(places.by_kind[&Kind::Code].len(), MAX_FILES + 1);
    }

    #[test]
    fn a_file_whose_words_lack_the_name_is_not_read_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let sources = files(dir.path(), &[("a.js", "alpha();\n")]);
        settle(&sources[0]);
        let kept = Kept::default();
        let swept = |name: &str| {
            let reader = reader(name);
            places_of(&on_disk(&kept, &sources, &reader).outcomes(), &reader)
        };
        assert_eq!(swept("alpha").by_kind[&Kind::Code].len(), 1);
        // Another text, whose stamp keeps the words of the first (as a
        // write no stamp told would): they say `bravo` is not there, so it
        // is not read.
        std::fs::write(&*sources[0], "bravo();\n").unwrap();
        settle(&sources[0]);
        let stamp = Stamp::read(&sources[0]).unwrap();
        let alpha = Arc::new(Words::of("alpha();\n"));
        kept.words.put(Arc::clone(&sources[0]), stamp, alpha, 64);
        let bravo = swept("bravo");
        assert!(bravo.by_kind.is_empty(), "{bravo:?}");
        assert_eq!(bravo.unread, 0);
        // Once it is heard written, it is read again.
        kept.note_changed(&[sources[0].to_path_buf()]);
        assert_eq!(swept("bravo").by_kind[&Kind::Code].len(), 1);
    }

    #[test]
    fn sweeps_kept_are_taken_until_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let sources = files(dir.path(), &[("a.js", "send();\n")]);
        let (kept, reader) = (Kept::default(), Arc::new(reader("send")));
        let sweeps = Sweeps::default();
        let sweep = || Arc::new(on_disk(&kept, &sources, &reader));
        let since = sweeps.get(&reader, &sources).unwrap_err();
        sweeps.keep(Arc::clone(&reader), sweep(), since);
        assert!(sweeps.get(&reader, &sources).is_ok());
        // Another list of files, or another name: not this sweep.
        let relisted = Arc::new(sources.to_vec());
        assert!(sweeps.get(&reader, &relisted).is_err());
        assert!(sweeps.get(&self::reader("other"), &sources).is_err());
        // Forgotten; and one made while they were forgotten is not kept.
        let since = sweeps.get(&reader, &relisted).unwrap_err();
        sweeps.forget();
        assert!(sweeps.get(&reader, &sources).is_err());
        sweeps.keep(Arc::clone(&reader), sweep(), since);
        assert!(sweeps.get(&reader, &sources).is_err());
    }

    #[test]
    fn a_change_handed_out_forgets_the_kept_sweeps() {
        let dir = tempfile::tempdir().unwrap();
        let sources = files(dir.path(), &[("a.js", "send();\n")]);
        let (kept, reader) = (Kept::default(), Arc::new(reader("send")));
        let since = kept.sweeps.get(&reader, &sources).unwrap_err();
        let sweep = on_disk(&kept, &sources, &reader);
        kept.sweeps
            .keep(Arc::clone(&reader), Arc::new(sweep), since);
        assert!(kept.sweeps.get(&reader, &sources).is_ok());
        kept.note_changed(&[dir.path().join("a.js")]);
        assert!(kept.sweeps.get(&reader, &sources).is_err());
    }
}
