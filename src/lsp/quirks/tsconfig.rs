//! TypeScript's projects (`project_files` naming `tsconfig.json` or
//! `jsconfig.json`): both TypeScript servers search, find references and
//! rename only in the projects they have a file of open, and load a
//! file's project when the file is opened. So one file of every project is
//! opened before a workspace-wide request, and it must be a file the
//! project holds: the first file of a config's folder is often a lint or
//! build script (`eslint.config.mjs`) that no project includes, which
//! loads nothing.
//!
//! The projects are every config file the walk finds and every config they
//! reference (`references`, whatever its name: a solution-style
//! `tsconfig.json` with `"files": []` references `tsconfig.build.json` and
//! `tsconfig.spec.json`). A project's files are its `files`, or its
//! `include` patterns less its `exclude` ones, inherited through a
//! relative `extends`. Each project gets a TypeScript file it holds (a
//! JavaScript one only when it holds no TypeScript), one no earlier
//! project was given where it can: a server loads one project per opened
//! file, so two projects sharing their first file would leave one
//! unloaded.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::Value;

use super::super::config::LanguageConfig;
use crate::fs::walk;
use crate::fs::workspace::normalize;

/// Configs followed at most, walked and referenced together.
const MAX_CONFIGS: usize = 200;

/// The configs a file may be held by, as the user writes them.
pub(in crate::lsp) const CONFIGS: &str = "tsconfig*.json or jsconfig*.json";

/// How to have a JavaScript file type-checked.
pub(in crate::lsp) const TYPE_CHECKING: &str = "add `// @ts-check` at a file's top, or `\"checkJs\": true` to the compilerOptions of a jsconfig.json or tsconfig.json that includes it";

/// How deep `extends` is followed.
const MAX_EXTENDS: usize = 8;

const TYPESCRIPT: [&str; 4] = ["ts", "tsx", "mts", "cts"];
const JAVASCRIPT: [&str; 4] = ["js", "jsx", "mjs", "cjs"];

/// Whether the quirk applies: the language's projects are TypeScript's.
pub(in crate::lsp) fn applies(language: &LanguageConfig) -> bool {
    language
        .project_files
        .iter()
        .any(|name| name == "tsconfig.json" || name == "jsconfig.json")
}

/// The projects to open, one file each (see [`project_files`]).
#[derive(Debug, Default, Clone)]
pub(in crate::lsp) struct Chosen {
    pub files: Vec<PathBuf>,
    /// The configs of projects that can see the file asked about but
    /// were past the bound, nearest first.
    pub left_out: Vec<PathBuf>,
}

/// One file of each project under `root` to open (see the module's
/// header), at most `max`: of every project, or, given `seeing`, of the
/// projects that can see that file (see [`Workspace::seeing`]), nearest
/// first.
pub(in crate::lsp) fn project_files(
    root: &Path,
    language: &LanguageConfig,
    seeing: Option<&Path>,
    max: usize,
) -> Chosen {
    let mut configs: Vec<PathBuf> = Vec::new();
    let mut sources: Vec<PathBuf> = Vec::new();
    let mut manifests: Vec<PathBuf> = Vec::new();
    for path in walk::sources(root).sorted().files() {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if language.project_files.iter().any(|p| p == name) {
            configs.push(path);
        } else if name == "package.json" {
            manifests.push(path);
        } else if has_extension(&path, &TYPESCRIPT) || has_extension(&path, &JAVASCRIPT) {
            sources.push(path);
        }
    }
    let read: Vec<(PathBuf, Project)> = with_references(configs, root)
        .into_iter()
        .filter_map(|config| Some((config.clone(), Project::read(&config, root)?)))
        .collect();
    let mut left_out = Vec::new();
    let read: Vec<(PathBuf, Project)> = match seeing {
        Some(file) => {
            let ranks = Workspace::read(root, &manifests, &read).seeing(file);
            let mut seen: Vec<((usize, bool), (PathBuf, Project))> = read
                .into_iter()
                .zip(ranks)
                .filter_map(|(project, rank)| Some((rank?, project)))
                .collect();
            // Stable: within a rank, the walk's order.
            seen.sort_by_key(|(rank, _)| *rank);
            let mut kept: Vec<(PathBuf, Project)> = seen.into_iter().map(|(_, p)| p).collect();
            if kept.len() > max {
                left_out = kept.split_off(max).into_iter().map(|(c, _)| c).collect();
            }
            kept
        }
        None => {
            let mut kept = read;
            if kept.len() > max {
                left_out = kept.split_off(max).into_iter().map(|(c, _)| c).collect();
            }
            kept
        }
    };
    let projects: Vec<Vec<&PathBuf>> = read
        .iter()
        .map(|(_, project)| sources.iter().filter(|path| project.holds(path)).collect())
        .collect();
    // How many projects hold each file: one only its own project holds
    // loads that project when opened.
    let mut holders: std::collections::HashMap<&PathBuf, usize> = Default::default();
    for held in &projects {
        for path in held {
            *holders.entry(path).or_default() += 1;
        }
    }
    let mut chosen: Vec<PathBuf> = Vec::new();
    let mut taken: HashSet<&PathBuf> = HashSet::new();
    for held in &projects {
        let pick = |typescript: bool| {
            let kind = |path: &&&PathBuf| {
                if typescript {
                    has_extension(path, &TYPESCRIPT) && !is_declaration(path)
                } else {
                    has_extension(path, &JAVASCRIPT)
                }
            };
            held.iter()
                .filter(kind)
                .find(|path| holders[**path] == 1)
                .or_else(|| {
                    held.iter()
                        .filter(kind)
                        .find(|path| !taken.contains(**path))
                })
                .or_else(|| held.iter().find(kind))
                .copied()
        };
        if let Some(file) = pick(true).or_else(|| pick(false)) {
            if taken.insert(file) {
                chosen.push(file.clone());
            }
            if chosen.len() == max {
                break;
            }
        }
    }
    Chosen {
        files: chosen,
        left_out,
    }
}

/// Whether a file named `name` is a project file (tsconfig.json,
/// tsconfig.build.json, jsconfig.json...).
pub(in crate::lsp) fn is_config_name(name: &str) -> bool {
    (name.starts_with("tsconfig") || name.starts_with("jsconfig")) && name.ends_with(".json")
}

/// The workspace's projects as its configs say, read once (kept while
/// nothing can have changed them: `Supervisor::coverage`).
///
/// [`ConfigSet::coverage`] tells of some files: the TypeScript and
/// JavaScript sources that no project holds: the server checks those with
/// its default settings, and the project's own check (`tsc -p`) not at
/// all. Every config counts here, whatever its name (`tsconfig.spec.json`
/// that a test script passes to `tsc -p`), so a file is called outside
/// only when no config names it. None when the workspace has no config:
/// then files without one are the project's way. A file a project reaches
/// only through an import is counted outside: the note it gets says "no
/// config includes it". And the JavaScript files checked for syntax only,
/// with no `// @ts-check` of their own and no project holding them with
/// `checkJs` on (whether or not any config exists).
#[derive(Default)]
pub(in crate::lsp) struct ConfigSet {
    /// Whether the workspace has any config at all (without one, no file
    /// is outside a project).
    any_config: bool,
    projects: Vec<Project>,
}

impl ConfigSet {
    /// Every config under `root` and those they reference, read.
    pub(in crate::lsp) fn read(root: &Path) -> ConfigSet {
        let configs: Vec<PathBuf> = walk::sources(root)
            .sorted()
            .files()
            .filter(|path| {
                path.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(is_config_name)
            })
            .collect();
        ConfigSet {
            any_config: !configs.is_empty(),
            projects: with_references(configs, root)
                .iter()
                .filter_map(|config| Project::read(config, root))
                .collect(),
        }
    }

    /// Of `paths`, those in no project (`outside`), and the JavaScript
    /// files checked for syntax only (`syntax_only`).
    pub(in crate::lsp) fn coverage(&self, paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let outside = paths
            .iter()
            .filter(|path| {
                self.any_config
                    && (has_extension(path, &TYPESCRIPT) || has_extension(path, &JAVASCRIPT))
                    && !is_declaration(path)
                    && !self.projects.iter().any(|project| project.holds(path))
            })
            .cloned()
            .collect();
        let syntax_only = paths
            .iter()
            .filter(|path| {
                has_extension(path, &JAVASCRIPT)
                    && !self
                        .projects
                        .iter()
                        .any(|project| project.check_js && project.holds(path))
                    && !asks_for_checking(path)
            })
            .cloned()
            .collect();
        (outside, syntax_only)
    }
}

/// Whether a JavaScript file turns type checking on for itself: `@ts-check`
/// in the comments that open it.
fn asks_for_checking(path: &Path) -> bool {
    use std::io::Read;
    let mut head = String::new();
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    // The directive sits in the first comments: a few kilobytes hold them.
    let _ = file.take(4096).read_to_string(&mut head);
    let mut in_block = false;
    for line in head.lines() {
        let line = line.trim();
        let opening = in_block
            || line.is_empty()
            || line.starts_with("//")
            || line.starts_with("/*")
            || line.starts_with("#!");
        if !opening {
            return false;
        }
        if line.contains("@ts-check") {
            return true;
        }
        if line.starts_with("/*") {
            in_block = true;
        }
        if in_block && line.contains("*/") {
            in_block = false;
        }
    }
    false
}

/// The package graph of a workspace and its projects' links, to tell which
/// projects can see a file: a project holding it; one in a package that
/// depends on the file's package, directly or through other workspace
/// packages (its `package.json` dependencies of any kind); one that
/// `references` a project holding it, directly or not; one whose `paths`
/// alias points into the file's package. A symbol's uses can be in those
/// projects only, so a question about one symbol loads those, not every
/// project of a 100-project monorepo.
struct Workspace<'a> {
    root: PathBuf,
    /// Package folders by name, and each package's dependencies' names.
    packages: Vec<(String, PathBuf, HashSet<String>)>,
    projects: &'a [(PathBuf, Project)],
}

impl<'a> Workspace<'a> {
    fn read(
        root: &Path,
        manifests: &[PathBuf],
        projects: &'a [(PathBuf, Project)],
    ) -> Workspace<'a> {
        let packages = manifests
            .iter()
            .filter_map(|manifest| {
                let json = read_jsonc(manifest)?;
                let name = json.get("name")?.as_str()?.to_string();
                let dependencies = [
                    "dependencies",
                    "devDependencies",
                    "peerDependencies",
                    "optionalDependencies",
                ]
                .iter()
                .filter_map(|key| json.get(*key)?.as_object())
                .flat_map(|deps| deps.keys().cloned())
                .collect();
                Some((name, manifest.parent()?.to_path_buf(), dependencies))
            })
            .collect();
        Workspace {
            root: root.to_path_buf(),
            packages,
            projects,
        }
    }

    /// The nearest package folder above `path`.
    fn package_of(&self, path: &Path) -> Option<&Path> {
        self.packages
            .iter()
            .map(|(_, dir, _)| dir.as_path())
            .filter(|dir| path.starts_with(dir))
            .max_by_key(|dir| dir.components().count())
    }

    /// For each project, in order, whether it can see `file`, and how
    /// near it is: 0 for a project holding it or referencing one that
    /// does, 1 for one aliasing into its package, 2 and up for one of a
    /// package depending on its package (2 directly, 3 through one more);
    /// at one distance, a library (a package others depend on) before an
    /// application or example (one nothing depends on).
    fn seeing(&self, file: &Path) -> Vec<Option<(usize, bool)>> {
        let depended: HashSet<&str> = self
            .packages
            .iter()
            .flat_map(|(_, _, deps)| deps.iter().map(String::as_str))
            .collect();
        let is_leaf = |package: &Path| {
            self.packages
                .iter()
                .find(|(_, dir, _)| dir == package)
                .is_some_and(|(name, _, _)| !depended.contains(name.as_str()))
        };
        // The configs holding the file, and every config referencing them.
        let mut seeing: HashSet<&Path> = self
            .projects
            .iter()
            .filter(|(_, project)| project.holds(file))
            .map(|(config, _)| config.as_path())
            .collect();
        loop {
            let more: Vec<&Path> = self
                .projects
                .iter()
                .filter(|(from, project)| {
                    !seeing.contains(from.as_path())
                        && project
                            .references
                            .iter()
                            .any(|t| seeing.contains(t.as_path()))
                })
                .map(|(from, _)| from.as_path())
                .collect();
            if more.is_empty() {
                break;
            }
            seeing.extend(more);
        }
        // The file's package and every workspace package depending on it,
        // directly or not.
        let home = self.package_of(file);
        // Each dependent package with its distance (the file's own: 0).
        let mut dependents: Vec<(&Path, usize)> = home.into_iter().map(|h| (h, 0)).collect();
        let mut names: HashSet<&str> = self
            .packages
            .iter()
            .filter(|(_, dir, _)| Some(dir.as_path()) == home)
            .map(|(name, _, _)| name.as_str())
            .collect();
        for distance in 1.. {
            let more: Vec<&(String, PathBuf, HashSet<String>)> = self
                .packages
                .iter()
                .filter(|(name, _, deps)| {
                    !names.contains(name.as_str())
                        && deps.iter().any(|d| names.contains(d.as_str()))
                })
                .collect();
            if more.is_empty() {
                break;
            }
            for (name, dir, _) in more {
                names.insert(name);
                dependents.push((dir, distance));
            }
        }
        self.projects
            .iter()
            .map(|(config, project)| {
                // The workspace root's package (a monorepo's tooling) is
                // every config's ancestor: its own configs count, not those
                // of the packages under it.
                let package = self.package_of(config);
                let dependent = package.and_then(|package| {
                    let (_, distance) = dependents.iter().find(|(dir, _)| *dir == package)?;
                    (package != self.root || home == Some(package)).then_some(*distance)
                });
                let aliased = home.is_some_and(|home| {
                    project
                        .aliases
                        .iter()
                        .any(|alias| alias.starts_with(home) || home.starts_with(alias))
                });
                if seeing.contains(config.as_path()) || dependent == Some(0) {
                    Some((0, false))
                } else if aliased {
                    Some((1, false))
                } else {
                    let leaf = package.is_some_and(is_leaf);
                    dependent.map(|distance| (distance + 1, leaf))
                }
            })
            .collect()
    }
}

/// The configs a config's `json` references (`dir` its folder), within
/// `root`.
fn referenced(json: &Value, dir: &Path, root: &Path) -> Vec<PathBuf> {
    json.get("references")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|reference| reference.get("path")?.as_str())
        .map(|path| {
            let path = normalize(&dir.join(path));
            if path.extension().is_some_and(|e| e == "json") {
                path
            } else {
                path.join("tsconfig.json")
            }
        })
        .filter(|path| path.starts_with(root) && path.is_file())
        .collect()
}

/// `configs` and every config they reference, transitively, in the order
/// found, each once, within `root`.
fn with_references(configs: Vec<PathBuf>, root: &Path) -> Vec<PathBuf> {
    let mut all: Vec<PathBuf> = Vec::new();
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut queue = configs;
    queue.reverse();
    while let Some(config) = queue.pop() {
        if all.len() == MAX_CONFIGS || !seen.insert(config.clone()) {
            continue;
        }
        let (Some(json), Some(dir)) = (read_jsonc(&config), config.parent()) else {
            all.push(config);
            continue;
        };
        let references = referenced(&json, dir, root);
        all.push(config);
        // Depth first, in the order written.
        queue.extend(references.into_iter().rev());
    }
    all
}

/// Which files a config holds.
struct Project {
    /// Its explicit `files`, when it lists them.
    files: Option<Vec<PathBuf>>,
    /// Its `include` patterns, relative to the config that wrote them.
    include: GlobSet,
    exclude: GlobSet,
    /// The folder its patterns are relative to.
    base: PathBuf,
    /// `compilerOptions.checkJs`, as inherited: its JavaScript is
    /// type-checked.
    check_js: bool,
    /// The configs it `references`.
    references: Vec<PathBuf>,
    /// The folders its own `paths` aliases point into (`"@scope/core":
    /// ["../core/src"]`).
    aliases: Vec<PathBuf>,
}

impl Project {
    /// The project of `config`, its references those within `root`.
    fn read(config: &Path, root: &Path) -> Option<Project> {
        let mut files = None;
        let mut references = Vec::new();
        let mut include: Option<(Vec<String>, PathBuf)> = None;
        let mut exclude: Option<(Vec<String>, PathBuf)> = None;
        let mut check_js: Option<bool> = None;
        let mut aliases: Option<Vec<PathBuf>> = None;
        let mut current = config.to_path_buf();
        for _ in 0..MAX_EXTENDS {
            let json = read_jsonc(&current)?;
            let dir = current.parent()?.to_path_buf();
            let strings = |key: &str| -> Option<Vec<String>> {
                json.get(key)?.as_array().map(|items| {
                    items
                        .iter()
                        .filter_map(|item| item.as_str().map(str::to_string))
                        .collect()
                })
            };
            if files.is_none() {
                files = strings("files")
                    .map(|listed| listed.iter().map(|f| dir.join(f)).collect::<Vec<PathBuf>>());
            }
            if include.is_none() {
                include = strings("include").map(|patterns| (patterns, dir.clone()));
            }
            if exclude.is_none() {
                exclude = strings("exclude").map(|patterns| (patterns, dir.clone()));
            }
            if check_js.is_none() {
                check_js = json
                    .pointer("/compilerOptions/checkJs")
                    .and_then(Value::as_bool);
            }
            // A config's own aliases and references only: those of a
            // shared base, which every project inherits, say nothing of who
            // uses what.
            if current == config {
                aliases = alias_folders(&json, &dir);
                references = referenced(&json, &dir, root);
            }
            // Only a config of the project's own: a package's (an npm
            // shared config) says nothing of which files are the project's.
            let Some(base) = json.get("extends").and_then(Value::as_str) else {
                break;
            };
            if !base.starts_with('.') {
                break;
            }
            let next = dir.join(base);
            current = if next.extension().is_some_and(|e| e == "json") {
                next
            } else {
                next.with_extension("json")
            };
        }
        let config_dir = config.parent()?.to_path_buf();
        // No `files` and no `include`: everything under the config.
        let (include, base) = match (&files, include) {
            (_, Some((patterns, base))) => (patterns, base),
            (Some(_), None) => (Vec::new(), config_dir.clone()),
            (None, None) => (vec!["**/*".to_string()], config_dir.clone()),
        };
        let exclude = exclude.map(|(patterns, _)| patterns).unwrap_or_default();
        Some(Project {
            files,
            include: globs(&include),
            exclude: globs(&exclude),
            base,
            check_js: check_js.unwrap_or(false),
            aliases: aliases.unwrap_or_default(),
            references,
        })
    }

    fn holds(&self, path: &Path) -> bool {
        if let Some(files) = &self.files
            && files.iter().any(|f| f == path)
        {
            return true;
        }
        let Ok(relative) = path.strip_prefix(&self.base) else {
            return false;
        };
        self.include.is_match(relative) && !self.exclude.is_match(relative)
    }
}

/// The folders a config's `compilerOptions.paths` point into, resolved
/// against its `baseUrl` (else its folder), up to the first wildcard.
fn alias_folders(json: &Value, dir: &Path) -> Option<Vec<PathBuf>> {
    let options = json.get("compilerOptions")?;
    let paths = options.get("paths")?.as_object()?;
    let base = match options.get("baseUrl").and_then(Value::as_str) {
        Some(base) => dir.join(base),
        None => dir.to_path_buf(),
    };
    Some(
        paths
            .values()
            .filter_map(Value::as_array)
            .flatten()
            .filter_map(Value::as_str)
            .map(|target| {
                let fixed = target.split('*').next().unwrap_or(target);
                let folder = match fixed.rsplit_once('/') {
                    Some((folder, _)) => folder,
                    None => "",
                };
                normalize(&base.join(folder))
            })
            .collect(),
    )
}

/// TypeScript's `include`/`exclude` patterns as globs: relative to the
/// config's folder, `*` within a folder, `**/` any depth, and a pattern
/// with no wildcard and no extension naming a folder and all under it.
fn globs(patterns: &[String]) -> GlobSet {
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        let pattern = pattern.trim_start_matches("./").trim_end_matches('/');
        let wild = pattern.contains(['*', '?']);
        let file_like = Path::new(pattern).extension().is_some();
        let pattern = match pattern {
            "" | "." => "**/*".to_string(),
            _ if !wild && !file_like => format!("{pattern}/**/*"),
            _ => pattern.to_string(),
        };
        let globs = [pattern.clone(), format!("{pattern}/**/*")];
        for glob in globs.iter().take(if wild || file_like { 1 } else { 2 }) {
            if let Ok(glob) = GlobBuilder::new(glob).literal_separator(true).build() {
                set.add(glob);
            }
        }
    }
    set.build().unwrap_or_else(|_| GlobSet::empty())
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.contains(&e))
}

fn is_declaration(path: &Path) -> bool {
    let name = path.to_string_lossy();
    name.ends_with(".d.ts") || name.ends_with(".d.mts") || name.ends_with(".d.cts")
}

/// A config file as JSON: TypeScript's configs allow comments and trailing
/// commas. `None` when it does not read or parse.
fn read_jsonc(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&strip_jsonc(&text)).ok()
}

/// `text` without its comments and trailing commas (strings untouched).
fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            (',', _) => {
                // A comma followed, past white space, by a closing bracket.
                let rest: String = chars.clone().collect();
                let next = rest.trim_start().chars().next();
                if !matches!(next, Some('}' | ']')) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_not_json() {
        let text = "{\n  // a comment\n  \"a\": \"x // y\", /* more */\n  \"b\": [1, 2,],\n}\n";
        let json: Value = serde_json::from_str(&strip_jsonc(text)).unwrap();
        assert_eq!(json["a"], "x // y");
        assert_eq!(json["b"], serde_json::json!([1, 2]));
    }

    #[test]
    fn each_project_gets_a_file_it_holds_and_referenced_configs_are_projects() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (file, text) in [
            (
                "tsconfig.json",
                "{ \"files\": [], \"references\": [{ \"path\": \"./tsconfig.build.json\" }, { \"path\": \"./tsconfig.spec.json\" }] }",
            ),
            ("tsconfig.build.json", "{ \"include\": [\"src\"] }"),
            (
                "tsconfig.spec.json",
                "{ \"extends\": \"./tsconfig.build.json\", \"include\": [\"src\", \"test\"] }",
            ),
            ("eslint.config.mjs", ""),
            ("src/a.ts", ""),
            ("src/b.ts", ""),
            ("test/a.test.ts", ""),
            (
                "tools/tsconfig.json",
                "{ \"include\": [\"./\"], \"exclude\": [\"gen\"] }",
            ),
            ("tools/eslint.config.mjs", ""),
            ("tools/gen/x.ts", ""),
            ("tools/run.ts", ""),
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let mut language = crate::lsp::config::Config::built_in()
            .language("typescript")
            .unwrap()
            .clone();
        language.project_files = vec!["tsconfig.json".into(), "jsconfig.json".into()];
        let chosen: Vec<String> = project_files(root, &language, None, 10)
            .files
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(chosen, ["tools/run.ts", "src/a.ts", "test/a.test.ts"]);
    }
}
