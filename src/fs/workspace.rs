//! The workspace sandbox: where paths come from and where they may lead.
//!
//! Reads are allowed inside the workspace root and inside read-only library
//! roots (cargo registry sources, the Rust toolchain's sources, configured
//! extra roots); writes only inside the root. Every path a tool receives goes
//! through [`Workspace::resolve_read`] (from a tool, `Context::resolve_read`,
//! which takes a path found plain before as it is, see `fs::plain`),
//! [`Workspace::resolve_write`] or [`Workspace::resolve_write_among`], and
//! every path it shows goes through [`Workspace::display`]: a library
//! file by its short name (`zod@4.3.6:v4/index.d.ts`, `std:alloc/src/lib.rs`,
//! `typescript:lib.dom.d.ts`, see `fs::library_path`), which every tool
//! taking a file reads back.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::library_path::{self, Short};
use super::plain::{Known, PlainPaths};
use super::stamped::Watch;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fast_map::FastMap;
use crate::sync::lock;

/// Where a toolchain's sources are, under it.
const STD_ROOT: &str = "lib/rustlib/src/rust";

/// Where the cargo registry's sources are, under `$CARGO_HOME`.
const REGISTRY: &str = "registry/src";

#[derive(Debug, Clone)]
pub struct Workspace {
    /// The root, canonical (symlinks resolved).
    root: PathBuf,
    /// The root as it was given (absolute but maybe through a symlink), so an
    /// absolute input spelled that way is recognised too.
    root_as_given: PathBuf,
    /// Read-only roots, canonical; only those that exist.
    library_roots: Vec<PathBuf>,
    /// Of those, the toolchains' sources (`lib/rustlib/src/rust`) and the
    /// cargo registry's (`registry/src`): where short names are made.
    std_roots: Vec<PathBuf>,
    registries: Vec<PathBuf>,
    /// The short names shown so far, by prefix (`zod@4.3.6:`), with the
    /// folder their paths are relative to: how a name an answer showed is
    /// read back, and what makes TypeScript's own lib folder, outside
    /// every root, readable once an answer pointed into it.
    shown_libraries: Arc<Mutex<HashMap<String, PathBuf>>>,
    /// The `package.json` versions read, by package folder.
    versions: Arc<Mutex<HashMap<PathBuf, Option<String>>>>,
    /// Paths found to be their own real path, taken so while the file
    /// watcher hears them (see `fs::plain`).
    plain: Arc<PlainPaths>,
}

/// What a resolved path may be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
}

impl Workspace {
    /// A workspace at `root` with the given extra library roots. The default
    /// library roots (cargo registry and toolchain sources) are added when
    /// they exist.
    pub fn new(root: &Path, extra_library_roots: &[PathBuf]) -> anyhow::Result<Workspace> {
        let root_as_given = std::path::absolute(root)?;
        let root = root.canonicalize().map_err(|err| {
            anyhow::anyhow!("workspace root {} is not usable: {err}", root.display())
        })?;
        anyhow::ensure!(
            root.is_dir(),
            "workspace root {} is not a directory",
            root.display()
        );
        let mut library_roots: Vec<PathBuf> = extra_library_roots
            .iter()
            .chain(default_library_roots().iter())
            .filter_map(|p| p.canonicalize().ok())
            .filter(|p| p.is_dir() && !p.starts_with(&root))
            .collect();
        library_roots.sort();
        library_roots.dedup();
        let ending = |tail: &str| -> Vec<PathBuf> {
            library_roots
                .iter()
                .filter(|r| r.ends_with(tail))
                .cloned()
                .collect()
        };
        let (std_roots, registries) = (ending(STD_ROOT), ending(REGISTRY));
        Ok(Workspace {
            root,
            root_as_given,
            std_roots,
            registries,
            library_roots,
            shown_libraries: Arc::default(),
            versions: Arc::default(),
            plain: Arc::default(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn library_roots(&self) -> &[PathBuf] {
        &self.library_roots
    }

    /// Resolves a path to read: it must exist and lie inside the root or a
    /// library root, after following symlinks.
    pub fn resolve_read(&self, input: &str) -> ToolResult<PathBuf> {
        self.resolve(input, Access::Read, None, None)
    }

    /// [`Workspace::resolve_read`], a path known plain while `watch` hears
    /// it taken as it is (see `fs::plain`).
    pub fn resolve_read_heard(
        &self,
        input: &str,
        watch: Option<&dyn Watch>,
    ) -> ToolResult<PathBuf> {
        self.resolve(input, Access::Read, None, watch)
    }

    /// The paths known plain, for whoever hears the file watcher's
    /// changes to forget them.
    pub fn plain_paths(&self) -> Arc<PlainPaths> {
        Arc::clone(&self.plain)
    }

    /// Resolves a path to write: it may not exist yet, but it (and the
    /// nearest folder above it that exists) must lie inside the root after
    /// following symlinks.
    pub fn resolve_write(&self, input: &str) -> ToolResult<PathBuf> {
        self.resolve(input, Access::Write, None, None)
    }

    /// As [`Workspace::resolve_write`], for one of many paths resolved
    /// together (a rename's files): each folder's real path is found once,
    /// in `folders`, where one `canonicalize` of each file would look up
    /// every component of its path; a path known plain while `watch`
    /// hears it is taken as it is (see `fs::plain`).
    pub fn resolve_write_among(
        &self,
        input: &str,
        folders: &mut RealFolders,
        watch: Option<&dyn Watch>,
    ) -> ToolResult<PathBuf> {
        self.resolve(input, Access::Write, Some(folders), watch)
    }

    /// How a path is shown: a library file by its short name, else relative
    /// to the root with `/` when inside it, absolute otherwise.
    pub fn display(&self, path: &Path) -> String {
        // Most paths shown are the workspace's own, spelled plainly (as
        // servers and walks give them): the text after the root is how
        // they show, with no need to take them apart into components (an
        // answer shows hundreds).
        match self.plain_relative(path) {
            Some(relative) => relative.to_string(),
            None => self.display_by_components(path),
        }
    }

    /// [`Workspace::display`], the path taken apart into components.
    fn display_by_components(&self, path: &Path) -> String {
        match self.short(path) {
            Some(short) => short,
            None => self.display_plain(path),
        }
    }

    /// `path` after the root and a `/` where that text is already how it
    /// is shown: UTF-8, with `/` separators, and no empty, `.` or
    /// `node_modules` segment (one of those, in the root too, and the
    /// components decide).
    fn plain_relative<'a>(&self, path: &'a Path) -> Option<&'a str> {
        if std::path::MAIN_SEPARATOR != '/' {
            return None;
        }
        let root = self.root.to_str()?;
        let relative = path.to_str()?.strip_prefix(root)?.strip_prefix('/')?;
        let plain = |text: &str| {
            text.split('/')
                .all(|segment| !matches!(segment, "" | "." | "node_modules"))
        };
        (plain(relative) && plain(root.trim_start_matches('/'))).then_some(relative)
    }

    /// A path shown as the file system has it (relative to the root with
    /// `/` when inside it, absolute otherwise), never by a short name: a
    /// server's program, which is run, not read.
    pub fn display_plain(&self, path: &Path) -> String {
        let rel = path
            .strip_prefix(&self.root)
            .or_else(|_| path.strip_prefix(&self.root_as_given));
        match rel {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
            Err(_) => path.display().to_string(),
        }
    }

    /// A library file's short name, remembered so it reads back.
    fn short(&self, path: &Path) -> Option<String> {
        // Most paths shown are the workspace's own code: no name to make.
        if path.starts_with(&self.root)
            && !path.components().any(|c| c.as_os_str() == "node_modules")
        {
            return None;
        }
        let Short {
            prefix,
            folder,
            rest,
        } = library_path::shorten(path, &self.std_roots, &self.registries, &mut |folder| {
            self.package_version(folder)
        })?;
        lock(&self.shown_libraries).insert(prefix.clone(), folder);
        Some(format!("{prefix}{rest}"))
    }

    /// The version in a package folder's `package.json`, read once.
    fn package_version(&self, folder: &Path) -> Option<String> {
        if let Some(known) = lock(&self.versions).get(folder) {
            return known.clone();
        }
        let version = std::fs::read(folder.join("package.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|json| json.get("version")?.as_str().map(String::from));
        lock(&self.versions).insert(folder.to_path_buf(), version.clone());
        version
    }

    /// The folder a short name's prefix stands for: one an answer showed,
    /// else where such a library is found (the toolchain's `library/`, the
    /// workspace's `typescript/lib`, the cargo registry, the workspace's
    /// `node_modules` and pnpm's store).
    fn library_folder(&self, prefix: &str) -> Option<PathBuf> {
        if let Some(folder) = lock(&self.shown_libraries).get(prefix) {
            return Some(folder.clone());
        }
        let head = prefix.strip_suffix(':')?;
        match head {
            "std" => self
                .std_roots
                .iter()
                .map(|r| r.join("library"))
                .find(|f| f.is_dir()),
            "typescript" => {
                Some(self.root.join("node_modules/typescript/lib")).filter(|f| f.is_dir())
            }
            _ => {
                let (name, version) = head.rsplit_once('@')?;
                let crates = self
                    .registries
                    .iter()
                    .filter_map(|r| std::fs::read_dir(r).ok())
                    .flat_map(|indexes| indexes.flatten())
                    .map(|index| index.path().join(format!("{name}-{version}")));
                let modules = self.root.join("node_modules");
                let installed = std::iter::once(modules.join(name))
                    .filter(|f| self.package_version(f).as_deref() == Some(version));
                let stored = std::fs::read_dir(modules.join(".pnpm"))
                    .into_iter()
                    .flat_map(|entries| entries.flatten())
                    .filter(|entry| {
                        let store = entry.file_name().to_string_lossy().into_owned();
                        store
                            .strip_prefix(&format!("{}@{version}", name.replace('/', "+")))
                            .is_some_and(|after| after.is_empty() || after.starts_with(['_', '(']))
                    })
                    .map(|entry| entry.path().join("node_modules").join(name));
                crates.chain(installed).chain(stored).find(|f| f.is_dir())
            }
        }
    }

    fn resolve(
        &self,
        input: &str,
        access: Access,
        folders: Option<&mut RealFolders>,
        watch: Option<&dyn Watch>,
    ) -> ToolResult<PathBuf> {
        let trimmed = input.trim();
        if trimmed.is_empty() {
            return Err(ToolError::new(
                ErrorCode::InvalidParams,
                "the path is empty; pass a path relative to the workspace root",
            ));
        }
        let trimmed = trimmed.strip_prefix("file://").unwrap_or(trimmed);
        // A library file's short name, unless a workspace file is so named.
        let expanded;
        let trimmed = match library_path::parse(trimmed) {
            Some((prefix, rest)) if !self.root.join(trimmed).exists() => {
                let folder = self.library_folder(&prefix).ok_or_else(|| {
                    ToolError::new(
                        ErrorCode::NotFound,
                        format!(
                            "{input}: no library {prefix} is found here (a name as answers show it: NAME@VERSION:PATH, std:PATH, typescript:FILE)"
                        ),
                    )
                })?;
                expanded = folder.join(rest).to_string_lossy().into_owned();
                expanded.as_str()
            }
            _ => trimmed,
        };
        let given = Path::new(trimmed);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        let lexical = normalize(&joined);
        let lexical = if let Ok(rest) = lexical.strip_prefix(&self.root_as_given) {
            self.root.join(rest)
        } else {
            lexical
        };

        // A lexical check first, so `../etc/passwd` says "outside" rather
        // than "not found".
        self.check_inside(&lexical, input, access)?;

        // A trailing `/` names a folder (the components above dropped it).
        if trimmed.len() > 1 && trimmed.ends_with('/') && !lexical.is_dir() {
            return Err(if lexical.exists() {
                ToolError::new(
                    ErrorCode::NotADirectory,
                    format!("{input} ends with / but is a file; drop the /"),
                )
            } else if access == Access::Write {
                ToolError::new(
                    ErrorCode::InvalidParams,
                    format!("{input} ends with /, which names a folder; give the path of a file"),
                )
            } else {
                ToolError::new(ErrorCode::NotFound, format!("{input} does not exist"))
            });
        }

        // Found to be its own real path before, and heard since.
        let ticket = match self.plain.look(&lexical, watch) {
            Known::Plain => return Ok(lexical),
            Known::Unknown(ticket) => ticket,
        };
        match access {
            Access::Read => {
                let real = lexical
                    .canonicalize()
                    .map_err(|err| ToolError::io(input, &err))?;
                self.check_inside(&real, input, access)
                    .map_err(|e| through_symlink(e, &real))?;
                if real == lexical {
                    self.plain.keep(&lexical, ticket, watch);
                }
                Ok(real)
            }
            Access::Write => {
                // The file itself may be a symlink leading out; if it does not
                // exist, its nearest existing ancestor decides.
                let mut existing = lexical.as_path();
                let symlink = loop {
                    match existing.symlink_metadata() {
                        Ok(meta) => break meta.file_type().is_symlink(),
                        Err(_) => existing = existing.parent().unwrap_or(&self.root),
                    }
                };
                let real_existing = match folders {
                    Some(folders) if !symlink => folders.real_path(existing, &self.root),
                    _ => existing.canonicalize(),
                }
                .map_err(|err| ToolError::io(input, &err))?;
                self.check_inside(&real_existing, input, access)
                    .map_err(|e| through_symlink(e, &real_existing))?;
                if existing == lexical && real_existing == lexical {
                    self.plain.keep(&lexical, ticket, watch);
                }
                // (Joining an empty rest would add a trailing `/`.)
                match lexical.strip_prefix(existing) {
                    Ok(rest) if !rest.as_os_str().is_empty() => Ok(real_existing.join(rest)),
                    _ => Ok(real_existing),
                }
            }
        }
    }

    fn check_inside(&self, path: &Path, input: &str, access: Access) -> ToolResult<()> {
        if path.starts_with(&self.root) {
            return Ok(());
        }
        let in_library = self.library_roots.iter().any(|lib| path.starts_with(lib))
            || lock(&self.shown_libraries)
                .values()
                .any(|folder| path.starts_with(folder));
        match (access, in_library) {
            (Access::Read, true) => Ok(()),
            (Access::Write, true) => Err(ToolError::new(
                ErrorCode::ReadOnly,
                format!(
                    "{input} is in a read-only library root; only files inside the workspace {} can be written",
                    self.root.display()
                ),
            )),
            (_, false) => Err(ToolError::new(
                ErrorCode::OutsideRoot,
                format!(
                    "{input} is outside the workspace {}; pass a path inside it",
                    self.root.display()
                ),
            )),
        }
    }
}

/// The real paths of folders, found once for paths resolved together
/// (see [`Workspace::resolve_write_among`]).
#[derive(Debug, Default)]
pub struct RealFolders(FastMap<PathBuf, PathBuf>);

impl RealFolders {
    /// The real path of `path`, which exists and is not a symlink: its
    /// folder's real path and its name.
    fn real_path(&mut self, path: &Path, root: &Path) -> std::io::Result<PathBuf> {
        match (path.parent(), path.file_name()) {
            (Some(folder), Some(name)) => Ok(self.real_folder(folder, root)?.join(name)),
            _ => path.canonicalize(),
        }
    }

    /// The real path of `folder`, found once. Under the (canonical) `root`
    /// it is its parent's real path and its name unless it is a symlink:
    /// one `lstat` of each folder on the way up, where `canonicalize`
    /// looked up every component of every folder's path again (the write
    /// check was a tenth of a rename preview's CPU through 71 files of
    /// the TypeScript SDK).
    fn real_folder(&mut self, folder: &Path, root: &Path) -> std::io::Result<PathBuf> {
        if folder == root {
            return Ok(root.to_path_buf());
        }
        if let Some(real) = self.0.get(folder) {
            return Ok(real.clone());
        }
        let real = match (folder.parent(), folder.file_name()) {
            (Some(parent), Some(name))
                if folder.starts_with(root)
                    && !folder.symlink_metadata()?.file_type().is_symlink() =>
            {
                self.real_folder(parent, root)?.join(name)
            }
            _ => folder.canonicalize()?,
        };
        self.0.insert(folder.to_path_buf(), real.clone());
        Ok(real)
    }
}

/// Adds where a symlink led, when the lexical path looked fine.
fn through_symlink(mut err: ToolError, real: &Path) -> ToolError {
    if err.code == ErrorCode::OutsideRoot || err.code == ErrorCode::ReadOnly {
        err.message = format!(
            "{} (it leads to {} through a symlink)",
            err.message,
            real.display()
        );
    }
    err
}

/// Removes `.` and resolves `..` without touching the file system.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The cargo registry sources and the installed Rust toolchains' sources.
fn default_library_roots() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".cargo")));
    let rustup_home = std::env::var_os("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".rustup")));
    let mut roots = Vec::new();
    if let Some(cargo_home) = cargo_home {
        roots.push(cargo_home.join("registry").join("src"));
        roots.push(cargo_home.join("git").join("checkouts"));
    }
    if let Some(toolchains) = rustup_home.map(|r| r.join("toolchains"))
        && let Ok(entries) = std::fs::read_dir(toolchains)
    {
        for entry in entries.flatten() {
            roots.push(entry.path().join("lib/rustlib/src/rust"));
        }
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_dots() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize(Path::new("/a/../../b")), PathBuf::from("/b"));
    }

    #[test]
    fn a_path_shown_by_its_text_is_shown_as_by_its_components() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(dir.path(), &[]).unwrap();
        let root = workspace.root().to_str().unwrap().to_string();
        let plain = [
            "src/a.ts",
            "a.ts",
            "deep/er/b.rs",
            "..x/y",
            "a/../b.ts",
            "é/ü.ts",
        ];
        let odd = [
            "src//a.ts",
            "./a.ts",
            "src/./a.ts",
            "src/",
            "",
            "node_modules/zod/index.d.ts",
            "packages/x/node_modules/y/z.js",
        ];
        for (relative, taken) in plain
            .iter()
            .map(|r| (r, true))
            .chain(odd.iter().map(|r| (r, false)))
        {
            let path = PathBuf::from(format!("{root}/{relative}"));
            assert_eq!(
                workspace.plain_relative(&path).is_some(),
                taken,
                "{relative}"
            );
            assert_eq!(
                workspace.display(&path),
                workspace.display_by_components(&path),
                "{relative}"
            );
        }
        for other in [
            root.clone(),
            format!("{root}x/a.ts"),
            "/elsewhere/a.ts".into(),
        ] {
            let path = PathBuf::from(&other);
            assert_eq!(workspace.plain_relative(&path), None, "{other}");
            assert_eq!(
                workspace.display(&path),
                workspace.display_by_components(&path)
            );
        }
    }

    #[test]
    fn paths_resolved_together_resolve_as_each_alone() {
        let (dir, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let root = dir.path();
        for file in [
            "src/a.rs",
            "src/b.rs",
            "src/deep/c.rs",
            "src/deep/sub/e.rs",
            "top.rs",
        ] {
            crate::fs::write_test_file(root, file, "fn f() {}\n");
        }
        for file in ["x.rs", "deeper/y.rs"] {
            crate::fs::write_test_file(outside.path(), file, "fn x() {}\n");
        }
        // A folder and a file leading out of the root, and a folder
        // leading back into it.
        std::os::unix::fs::symlink(outside.path(), root.join("src/out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("x.rs"), root.join("src/x.rs")).unwrap();
        std::os::unix::fs::symlink(root.join("src/deep"), root.join("link")).unwrap();
        // A file that is a dangling symlink, out of the root and in it.
        std::os::unix::fs::symlink(outside.path().join("gone.rs"), root.join("src/gone.rs"))
            .unwrap();
        std::os::unix::fs::symlink(root.join("src/none.rs"), root.join("src/dangling.rs")).unwrap();
        let workspace = Workspace::new(root, &[]).unwrap();
        let mut folders = RealFolders::default();
        for input in [
            "src/a.rs",
            "src/b.rs",
            "src/out/x.rs",
            "src/x.rs",
            "src/deep/c.rs",
            "link/c.rs",
            "link/new.rs",
            // A folder under a symlink, out of the root and in it.
            "src/out/deeper/y.rs",
            "link/sub/e.rs",
            "src/deep/sub/e.rs",
            "src/new/d.rs",
            "src/gone.rs",
            "src/dangling.rs",
            "top.rs",
            "src/a.rs",
        ] {
            let alone = workspace.resolve_write(input).map_err(|e| e.message);
            let together = workspace
                .resolve_write_among(input, &mut folders, None)
                .map_err(|e| e.message);
            assert_eq!(together, alone, "{input}");
        }
        // Out through a folder, a file, or a folder above a folder.
        for out in ["src/out/x.rs", "src/x.rs", "src/out/deeper/y.rs"] {
            let refused = workspace.resolve_write_among(out, &mut folders, None);
            assert!(refused.is_err(), "{out}: {refused:?}");
        }
        assert_eq!(
            workspace
                .resolve_write_among("link/sub/e.rs", &mut folders, None)
                .unwrap(),
            root.canonicalize().unwrap().join("src/deep/sub/e.rs")
        );
        assert_eq!(
            workspace
                .resolve_write_among("link/c.rs", &mut folders, None)
                .unwrap(),
            root.canonicalize().unwrap().join("src/deep/c.rs")
        );
    }

    /// A path that resolved to itself while heard is taken as it is, without
    /// a look at the disk (a file deleted since, in this test, where the
    /// watcher's change would have forgotten it); one reached through a
    /// symlink is not kept, nor one resolved unheard.
    #[test]
    fn a_path_found_plain_while_heard_is_taken_without_the_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        crate::fs::write_test_file(root, "src/a.rs", "");
        crate::fs::write_test_file(root, "src/b.rs", "");
        crate::fs::write_test_file(root, "src/c.rs", "");
        std::os::unix::fs::symlink(root.join("src"), root.join("link")).unwrap();
        let workspace = Workspace::new(root, &[]).unwrap();
        let real = workspace.root().to_path_buf();
        let watched = crate::fs::plain::Folders::default();
        watched.watch(real.join("src"), 1);
        watched.watch(real.join("link"), 1);
        let heard = Some(&watched as &dyn Watch);
        assert_eq!(
            workspace.resolve_read_heard("src/a.rs", heard).unwrap(),
            real.join("src/a.rs")
        );
        assert_eq!(
            workspace.resolve_read_heard("link/b.rs", heard).unwrap(),
            real.join("src/b.rs")
        );
        let mut folders = RealFolders::default();
        assert_eq!(
            workspace
                .resolve_write_among("src/c.rs", &mut folders, heard)
                .unwrap(),
            real.join("src/c.rs")
        );
        assert_eq!(
            workspace.resolve_read("src/b.rs").unwrap(),
            real.join("src/b.rs")
        );
        // To write through a symlink, or a file not there yet: not kept.
        for file in ["link/a.rs", "src/new.rs"] {
            workspace
                .resolve_write_among(file, &mut folders, heard)
                .unwrap();
            assert!(
                !workspace.plain_paths().holds(&real.join(file), heard),
                "{file}"
            );
        }
        for file in ["src/a.rs", "src/b.rs", "src/c.rs"] {
            std::fs::remove_file(root.join(file)).unwrap();
        }
        // Kept: found plain while heard, to read or to write.
        for file in ["src/a.rs", "src/c.rs"] {
            assert_eq!(
                workspace.resolve_read_heard(file, heard).unwrap(),
                real.join(file)
            );
            assert_eq!(
                workspace
                    .resolve_write_among(file, &mut RealFolders::default(), heard)
                    .unwrap(),
                real.join(file)
            );
            // Not without the watcher.
            assert!(workspace.resolve_read(file).is_err(), "{file}");
        }
        // Through a symlink, or resolved unheard: looked at again.
        for file in ["link/b.rs", "src/b.rs"] {
            let gone = workspace.resolve_read_heard(file, heard).unwrap_err();
            assert_eq!(gone.code, ErrorCode::NotFound, "{file}");
        }
        // Forgotten (the watcher handed out its change): looked at again.
        workspace
            .plain_paths()
            .forget([real.join("src/a.rs").as_path()]);
        let gone = workspace.resolve_read_heard("src/a.rs", heard).unwrap_err();
        assert_eq!(gone.code, ErrorCode::NotFound);
    }
}
