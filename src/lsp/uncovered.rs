//! Files of languages sextant has neither a server nor a grammar for (the
//! `other_languages` table: Java, Ruby...), counted by language, so that
//! an answer over the workspace says what it did not cover instead of
//! answering "no matches" as if it had looked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::config::Config;
use super::supervisor::Supervisor;
use crate::fs::walk;
use crate::sync::lock;

/// Files of each uncovered language, most first: `(language, files)`.
pub type Uncovered = Vec<(String, usize)>;

/// The counts, found on first use and forgotten when a file of such a
/// language (or a folder) is created or deleted.
#[derive(Default)]
pub(super) struct UncoveredFiles {
    counts: Mutex<Option<Uncovered>>,
}

impl UncoveredFiles {
    /// Forgets the counts when `paths` may change them.
    pub(super) fn note_changed(&self, config: &Config, paths: &[PathBuf]) {
        let moves = paths.iter().any(|path| match extension(path) {
            Some(ext) => config.other_languages.contains_key(&ext),
            None => true,
        });
        if moves {
            *lock(&self.counts) = None;
        }
    }
}

impl Supervisor {
    /// The workspace's files no server or grammar covers, by language
    /// (.gitignore respected, dependency folders left out).
    pub async fn uncovered(&self) -> Uncovered {
        if let Some(known) = lock(&self.uncovered.counts).clone() {
            return known;
        }
        let (root, config) = (self.workspace_root.clone(), self.config.clone());
        let counts = tokio::task::spawn_blocking(move || count(&root, &config))
            .await
            .unwrap_or_default();
        *lock(&self.uncovered.counts) = Some(counts.clone());
        counts
    }

    /// What an answer over the workspace did not cover (`what`: "not
    /// searched"), and how to cover it; `None` when it covered everything.
    pub async fn uncovered_note(&self, what: &str) -> Option<String> {
        let counts = self.uncovered().await;
        note(&counts, what)
    }
}

/// Shares the counts' owner with the change listener that forgets them.
pub(super) fn listener(
    files: &Arc<UncoveredFiles>,
    config: Config,
) -> super::supervisor::ChangeListener {
    let files = Arc::downgrade(files);
    Box::new(move |paths: &[PathBuf]| {
        if let Some(files) = files.upgrade() {
            files.note_changed(&config, paths);
        }
    })
}

fn count(root: &Path, config: &Config) -> Uncovered {
    let mut by_language: BTreeMap<String, usize> = BTreeMap::new();
    for path in walk::sources(root).files() {
        if let Some((name, _)) = config.other_language_for(&path) {
            *by_language.entry(name.to_string()).or_default() += 1;
        }
    }
    let mut counts: Uncovered = by_language.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
}

fn extension(path: &Path) -> Option<String> {
    Some(path.extension()?.to_str()?.to_ascii_lowercase())
}

/// `not searched: 12 Java files, 3 Kotlin files (...)`.
fn note(counts: &Uncovered, what: &str) -> Option<String> {
    if counts.is_empty() {
        return None;
    }
    let listed: Vec<String> = counts
        .iter()
        .map(|(name, files)| {
            format!(
                "{files} {name} {}",
                if *files == 1 { "file" } else { "files" }
            )
        })
        .collect();
    Some(format!(
        "{what}: {} (sextant has no server or grammar for them; add a server as [language.NAME] with `command` and `extensions` in sextant.toml)",
        listed.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_uncovered_languages_are_counted_and_named() {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("src/Main.java", "class Main {}"),
            ("src/Util.java", "class Util {}"),
            ("app.rb", "puts 1"),
            ("lib.rs", "fn f() {}"),
            ("notes.txt", "text"),
        ] {
            crate::fs::write_test_file(dir.path(), path, text);
        }
        let config = Config::built_in();
        let counts = count(dir.path(), &config);
        assert_eq!(counts, [("Java".to_string(), 2), ("Ruby".to_string(), 1)]);
        assert_eq!(
            note(&counts, "not searched").unwrap(),
            "not searched: 2 Java files, 1 Ruby file (sextant has no server or grammar for them; add a server as [language.NAME] with `command` and `extensions` in sextant.toml)"
        );
        assert_eq!(note(&Vec::new(), "not searched"), None);

        // A language the workspace configures is covered.
        std::fs::write(
            dir.path().join("sextant.toml"),
            "[language.java]\ncommand = \"jdtls\"\nextensions = [\"java\"]\n",
        )
        .unwrap();
        let config = Config::load(dir.path(), None).unwrap();
        assert_eq!(count(dir.path(), &config), [("Ruby".to_string(), 1)]);
    }
}
