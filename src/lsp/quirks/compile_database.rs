//! A server that sees past one file only through a compilation database
//! (clangd's `compile_commands.json`, the `compile_database` key).
//!
//! Found in the project root's folders the key lists (`.`, `build`,
//! `build*`), the database is copied into sextant's cache, its relative
//! `directory` entries made absolute, and the server is pointed at the
//! copy. clangd keeps its background index beside the database it reads
//! (`.cache/clangd/index`), so the index is written there, never into the
//! user's tree. With no database the server reads each file alone: the
//! language as started says so (`started_without`), and every answer that
//! depends on other files carries that note.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::config::{CompileDatabase, LanguageConfig};
use crate::stable_hash::stable_hash;

/// The database for the project at `root`, if one of the key's folders
/// holds it: the first in the key's order, a pattern's matches in name
/// order.
pub fn find(spec: &CompileDatabase, root: &Path) -> Option<PathBuf> {
    spec.folders.iter().find_map(|folder| {
        let Some(prefix) = folder.strip_suffix('*') else {
            let path = root.join(folder).join(&spec.file);
            return path.is_file().then_some(path);
        };
        let mut matches: Vec<PathBuf> = std::fs::read_dir(root)
            .ok()?
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().starts_with(prefix))
            .map(|entry| entry.path().join(&spec.file))
            .filter(|path| path.is_file())
            .collect();
        matches.sort();
        matches.into_iter().next()
    })
}

/// What starting the server at `root` takes: the arguments that point it
/// at the copied database, or, with none found, why its answers stop at
/// one file (for `LanguageConfig::started_without`).
#[derive(Debug, PartialEq, Eq)]
pub enum Start {
    With {
        args: Vec<String>,
        database: PathBuf,
        /// The database's first source file: the server loads the
        /// database (and starts indexing it) when it first opens a file,
        /// so this one is opened before any question
        /// (`LanguageConfig::opens_first`).
        first_file: Option<PathBuf>,
        /// Every file an entry compiles, canonical
        /// (`LanguageConfig::compiled_files`).
        compiled: HashSet<PathBuf>,
    },
    Without(String),
}

/// Prepares the server's start at `root` (see [`Start`]); `None` for a
/// language without the key.
pub fn prepare(language: &LanguageConfig, root: &Path, cache_dir: &Path) -> Option<Start> {
    let spec = language.compile_database.as_ref()?;
    let Some(database) = find(spec, root) else {
        return Some(Start::Without(missing_note(spec, language.server_name())));
    };
    let copy_dir = cache_dir.join("compile-databases").join(format!(
        "{:016x}",
        stable_hash(root.as_os_str().as_encoded_bytes())
    ));
    match copy_absolute(&database, &copy_dir.join(&spec.file)) {
        Ok((first_file, compiled)) => Some(Start::With {
            args: vec![format!("{}={}", spec.arg, copy_dir.display())],
            database,
            first_file,
            compiled,
        }),
        Err(err) => Some(Start::Without(format!(
            "{} could not be read ({err}); {}",
            database.display(),
            missing_note(spec, language.server_name())
        ))),
    }
}

/// Why answers stop at one file without a database, and what to do.
fn missing_note(spec: &CompileDatabase, server: &str) -> String {
    format!(
        "no {} in {}: {server} {}; {}",
        spec.file,
        spec.folders.join(", "),
        spec.why,
        spec.advice
    )
}

/// Copies the database with every entry's `directory` absolute (a relative
/// one is relative to the database's folder), so it reads the same from
/// the cache. Answers the first entry's file that exists, and every
/// entry's file, canonical.
fn copy_absolute(
    database: &Path,
    copy: &Path,
) -> Result<(Option<PathBuf>, HashSet<PathBuf>), String> {
    let text = std::fs::read_to_string(database).map_err(|err| err.to_string())?;
    let mut entries: Value = serde_json::from_str(&text).map_err(|err| err.to_string())?;
    let base = database.parent().unwrap_or(Path::new("/"));
    let list = entries
        .as_array_mut()
        .ok_or("it is not a JSON array of compile commands")?;
    for entry in list.iter_mut() {
        let Some(directory) = entry.get_mut("directory") else {
            continue;
        };
        if let Some(relative) = directory.as_str().filter(|d| !Path::new(d).is_absolute()) {
            let absolute = base.join(relative);
            let absolute = absolute.canonicalize().unwrap_or(absolute);
            *directory = Value::String(absolute.display().to_string());
        }
    }
    let files: Vec<PathBuf> = list
        .iter()
        .filter_map(|entry| entry_file(base, entry))
        .collect();
    let first_file = files.iter().find(|file| file.is_file()).cloned();
    let compiled = files
        .into_iter()
        .map(|file| file.canonicalize().unwrap_or(file))
        .collect();
    let folder = copy.parent().ok_or("no folder to copy into")?;
    std::fs::create_dir_all(folder).map_err(|err| err.to_string())?;
    let text = serde_json::to_string_pretty(&entries).map_err(|err| err.to_string())?;
    // Written beside, then renamed: another sextant on the same project
    // may be reading it.
    let staged = copy.with_extension(format!("json.{}", std::process::id()));
    std::fs::write(&staged, text).map_err(|err| err.to_string())?;
    std::fs::rename(&staged, copy).map_err(|err| err.to_string())?;
    Ok((first_file, compiled))
}

/// The file an entry compiles (its `directory` relative to `base`, the
/// database's folder, unless absolute).
fn entry_file(base: &Path, entry: &Value) -> Option<PathBuf> {
    let directory = base.join(entry.get("directory")?.as_str()?);
    Some(directory.join(entry.get("file")?.as_str()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::config::Config;

    fn clangd() -> LanguageConfig {
        Config::built_in().language("c").unwrap().clone()
    }

    #[test]
    fn the_database_is_copied_with_absolute_folders_and_the_server_pointed_at_it() {
        let root = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let build = root.path().join("build-release");
        std::fs::create_dir_all(&build).unwrap();
        std::fs::write(
            build.join("compile_commands.json"),
            r#"[{"directory": "..", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},
                {"directory": "/elsewhere", "file": "b.c", "command": "cc -c b.c"}]"#,
        )
        .unwrap();
        std::fs::write(root.path().join("a.c"), "int a;\n").unwrap();
        let Some(Start::With {
            args,
            database,
            first_file,
            ..
        }) = prepare(&clangd(), root.path(), cache.path())
        else {
            panic!("no database found");
        };
        let root_path = root.path().canonicalize().unwrap();
        assert_eq!(first_file, Some(root_path.join("a.c")));
        assert_eq!(database, build.join("compile_commands.json"));
        let dir = args[0].strip_prefix("--compile-commands-dir=").unwrap();
        assert!(Path::new(dir).starts_with(cache.path()), "{dir}");
        let copied: Value = serde_json::from_str(
            &std::fs::read_to_string(Path::new(dir).join("compile_commands.json")).unwrap(),
        )
        .unwrap();
        let root = root.path().canonicalize().unwrap();
        assert_eq!(copied[0]["directory"], root.display().to_string());
        assert_eq!(copied[1]["directory"], "/elsewhere");
        assert_eq!(copied[1]["command"], "cc -c b.c");
    }

    #[test]
    fn the_files_entries_compile_are_known_and_headers_are_not_among_them() {
        let root = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let build = root.path().join("build");
        std::fs::create_dir_all(root.path().join("src")).unwrap();
        std::fs::create_dir_all(&build).unwrap();
        std::fs::write(
            build.join("compile_commands.json"),
            r#"[{"directory": "../src", "file": "a.c", "arguments": ["cc", "-c", "a.c"]}]"#,
        )
        .unwrap();
        for file in ["src/a.c", "src/a.h", "src/unbuilt.c"] {
            std::fs::write(root.path().join(file), "").unwrap();
        }
        let Some(Start::With { compiled, .. }) = prepare(&clangd(), root.path(), cache.path())
        else {
            panic!("no database found");
        };
        let src = root.path().canonicalize().unwrap().join("src");
        assert_eq!(compiled, HashSet::from([src.join("a.c")]));
    }

    #[test]
    fn the_root_comes_before_build_folders_and_none_is_said() {
        let root = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let Some(Start::Without(note)) = prepare(&clangd(), root.path(), cache.path()) else {
            panic!("a database was found in an empty folder");
        };
        assert!(
            note.starts_with(
                "no compile_commands.json in ., build, build*: clangd reads each file alone"
            ),
            "{note}"
        );
        for folder in ["build", "."] {
            std::fs::create_dir_all(root.path().join(folder)).unwrap();
            std::fs::write(root.path().join(folder).join("compile_commands.json"), "[]").unwrap();
        }
        let spec = clangd().compile_database.unwrap();
        assert_eq!(
            find(&spec, root.path()),
            Some(root.path().join("./compile_commands.json"))
        );
        assert!(
            Config::built_in()
                .language("rust")
                .unwrap()
                .compile_database
                .is_none()
        );
    }
}
