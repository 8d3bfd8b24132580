//! Walking a folder the way ripgrep does: .gitignore, .ignore and hidden
//! files respected (even outside a git repository). [`walker`] is the
//! parallel walk of `find` and `grep`, with their options; [`sources`] is
//! the walk every other part of sextant makes of the workspace's own code
//! (the symbol index, the servers' projects, the file watcher, workspace
//! diagnostics), so they all agree on what the workspace holds.

use std::path::{Path, PathBuf};

use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use ignore::{DirEntry, WalkBuilder, WalkParallel};

/// Folders that hold other people's code and build output: never part of
/// the workspace's own sources, even where no .gitignore says so.
const DEPENDENCY_FOLDERS: [&str; 2] = ["node_modules", "target"];

/// Whether `path` (relative to the workspace, or absolute) lies in a
/// dependency folder: other people's code or build output.
pub fn in_dependency_folder(path: &Path) -> bool {
    path.components()
        .any(|c| is_dependency_folder(c.as_os_str().as_encoded_bytes()))
}

/// Whether a path's component (its bytes) names a dependency folder.
pub fn is_dependency_folder(name: &[u8]) -> bool {
    DEPENDENCY_FOLDERS.iter().any(|d| name == d.as_bytes())
}

/// A walk of the workspace's own source tree: .gitignore and friends
/// honoured (outside git repositories too), hidden files skipped, `.git`
/// never entered, and the dependency folders (`node_modules`, `target`)
/// left out unless asked for.
pub struct SourceWalk {
    builder: WalkBuilder,
    dependencies: bool,
}

/// The source walk of `root` (a folder or a file).
pub fn sources(root: &Path) -> SourceWalk {
    let mut builder = WalkBuilder::new(root);
    builder.require_git(false);
    SourceWalk {
        builder,
        dependencies: false,
    }
}

impl SourceWalk {
    /// Each folder's entries in name order (the walk is then reproducible).
    pub fn sorted(mut self) -> SourceWalk {
        self.builder.sort_by_file_name(|a, b| a.cmp(b));
        self
    }

    /// At most `depth` levels below the root.
    pub fn max_depth(mut self, depth: usize) -> SourceWalk {
        self.builder.max_depth(Some(depth));
        self
    }

    /// Also the dependency folders, where no ignore file leaves them out.
    pub fn with_dependency_folders(mut self) -> SourceWalk {
        self.dependencies = true;
        self
    }

    /// Every entry, folders included; unreadable ones skipped.
    pub fn entries(mut self) -> impl Iterator<Item = DirEntry> {
        let dependencies = self.dependencies;
        self.builder.filter_entry(move |entry| {
            let name = entry.file_name();
            name != ".git" && (dependencies || !DEPENDENCY_FOLDERS.iter().any(|d| name == *d))
        });
        self.builder.build().filter_map(Result::ok)
    }

    /// The files' entries (their metadata at hand).
    pub fn file_entries(self) -> impl Iterator<Item = DirEntry> {
        self.entries()
            .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
    }

    /// The files' paths.
    pub fn files(self) -> impl Iterator<Item = PathBuf> {
        self.file_entries().map(DirEntry::into_path)
    }
}

use crate::error::{ErrorCode, ToolError, ToolResult};

/// What to walk and what to leave out.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions<'a> {
    /// Also walk files that .gitignore and friends exclude, and hidden ones.
    pub include_ignored: bool,
    /// ripgrep-style `-g` globs (`*.ts`, `!*.d.ts`), matched under the base.
    pub globs: &'a [String],
    /// A ripgrep file type name (`ts`, `rust`, ...).
    pub file_type: Option<&'a str>,
}

/// A parallel walker over `base` (a folder or a single file).
pub fn walker(base: &Path, options: &WalkOptions) -> ToolResult<WalkParallel> {
    let mut builder = WalkBuilder::new(base);
    builder
        // Honour .gitignore outside git repositories too: a fresh checkout
        // without .git (or a copy of one) should look the same.
        .require_git(false)
        .hidden(!options.include_ignored)
        .ignore(!options.include_ignored)
        .git_ignore(!options.include_ignored)
        .git_global(!options.include_ignored)
        .git_exclude(!options.include_ignored)
        .parents(!options.include_ignored)
        // Never descend into .git itself, even with include_ignored.
        .filter_entry(|entry| entry.file_name() != ".git");
    if !base.is_dir() {
        // A single file is searched whatever the globs say, but a glob
        // that does not compile is still an error, not ignored.
        for glob in options.globs {
            compile_glob(glob.trim_start_matches('!'))?;
        }
    } else if !options.globs.is_empty() {
        let mut overrides = OverrideBuilder::new(base);
        for glob in options.globs {
            overrides
                .add(glob)
                .map_err(|err| invalid_glob(glob, &err))?;
        }
        let overrides = overrides.build().map_err(|err| invalid_glob("", &err))?;
        builder.overrides(overrides);
    }
    if let Some(name) = options.file_type {
        let mut types = TypesBuilder::new();
        types.add_defaults();
        if !types.definitions().iter().any(|d| d.name() == name) {
            let mut known: Vec<String> = types
                .definitions()
                .iter()
                .map(|d| d.name().to_string())
                .collect();
            known.sort();
            let close: Vec<&str> = known
                .iter()
                .map(String::as_str)
                .filter(|k| k.starts_with(&name.chars().take(2).collect::<String>()))
                .take(12)
                .collect();
            return Err(ToolError::new(
                ErrorCode::InvalidParams,
                format!(
                    "unknown file type '{name}'; known types include {} (ripgrep's names, e.g. ts, js, rust, py)",
                    if close.is_empty() {
                        "ts, js, rust, py, go, c, cpp, java".to_string()
                    } else {
                        close.join(", ")
                    }
                ),
            ));
        }
        types.select(name);
        let types = types.build().map_err(|err| {
            ToolError::new(
                ErrorCode::InvalidParams,
                format!("file type '{name}': {err}"),
            )
        })?;
        builder.types(types);
    }
    Ok(builder.build_parallel())
}

/// A glob compiled as `find` uses it: matched against the path relative to
/// the base folder, `*` never crossing `/`, `**` crossing any number.
pub fn compile_glob(pattern: &str) -> ToolResult<globset::GlobMatcher> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|err| invalid_glob(pattern, &err))
}

fn invalid_glob(glob: &str, err: &dyn std::fmt::Display) -> ToolError {
    ToolError::new(
        ErrorCode::InvalidGlob,
        format!("invalid glob '{glob}': {err}; globs look like **/*.ts or src/**/mod.rs"),
    )
}
