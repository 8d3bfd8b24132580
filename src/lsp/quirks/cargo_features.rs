//! Targets cargo does not build (`cargo_projects` servers: rust-analyzer):
//! an example, test, bench or binary whose `required-features` the
//! workspace's build leaves off. `cargo check --workspace --all-targets`
//! skips it, but rust-analyzer analyses its files all the same, and a
//! `compile_error!("feature x is required")` arm there is an error cargo
//! never reports: an agent told to make diagnostics clean would "fix"
//! correct files. Their findings are reported apart.
//!
//! The features the build turns on are each package's `default` ones, with
//! what they enable in turn, and those other packages of the workspace ask
//! for through their dependencies on it (cargo unifies them), read from the
//! manifests: no cargo run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::cargo_projects::{manifests, strings};

/// A target cargo does not build, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unbuilt {
    /// Its root file, or the folder of a `name/main.rs` target (its
    /// modules are there).
    pub path: PathBuf,
    /// `example \`serve\` requires feature \`tls\``.
    pub why: String,
}

impl Unbuilt {
    /// Whether `file` belongs to the target.
    pub fn holds(&self, file: &Path) -> bool {
        file == self.path || (self.path.is_dir() && file.starts_with(&self.path))
    }
}

/// One package as its manifest says.
struct Package {
    dir: PathBuf,
    name: String,
    /// `[features]`: each feature and what it enables.
    features: BTreeMap<String, Vec<String>>,
    /// (kind, name, path, required features) of its declared targets.
    targets: Vec<(&'static str, String, Option<String>, Vec<String>)>,
    /// Features it asks of other packages: (package name, features).
    asks: Vec<(String, Vec<String>)>,
}

/// The targets under `root` that cargo does not build with the features
/// the workspace's build turns on.
pub fn unbuilt(root: &Path) -> Vec<Unbuilt> {
    let packages: Vec<Package> = manifests(root).filter_map(|path| read(&path)).collect();
    let mut unbuilt = Vec::new();
    for package in &packages {
        let on = enabled(package, &packages);
        for (kind, name, path, required) in &package.targets {
            let missing: Vec<&String> = required.iter().filter(|f| !on.contains(*f)).collect();
            if missing.is_empty() {
                continue;
            }
            let Some(path) = target_path(&package.dir, kind, name, path.as_deref()) else {
                continue;
            };
            let features = missing
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let noun = if missing.len() == 1 {
                "feature"
            } else {
                "features"
            };
            unbuilt.push(Unbuilt {
                path,
                why: format!("{kind} `{name}` requires {noun} {features}"),
            });
        }
    }
    unbuilt
}

/// The features of `package` the workspace's build turns on: its default
/// ones, those the other packages ask for, and what they enable in turn.
fn enabled(package: &Package, packages: &[Package]) -> BTreeSet<String> {
    // `--workspace` builds every package with its defaults.
    let mut wanted: Vec<String> = vec!["default".into()];
    for other in packages {
        for (name, features) in &other.asks {
            if *name == package.name {
                wanted.extend(features.iter().cloned());
            }
        }
    }
    let mut on = BTreeSet::new();
    while let Some(feature) = wanted.pop() {
        // `dep:x` turns on an optional dependency, `x/f` a dependency's
        // feature (and `x` itself unless written `x?/f`).
        let feature = feature.strip_prefix("dep:").unwrap_or(&feature).to_string();
        let feature = match feature.split_once('/') {
            Some((dependency, _)) if !dependency.ends_with('?') => dependency.to_string(),
            Some(_) => continue,
            None => feature,
        };
        if on.insert(feature.clone())
            && let Some(more) = package.features.get(&feature)
        {
            wanted.extend(more.iter().cloned());
        }
    }
    on
}

/// Where a target's files are: its `path`, else cargo's default place for
/// its kind (`examples/name.rs`, or the `examples/name/` folder of
/// `examples/name/main.rs`).
fn target_path(dir: &Path, kind: &str, name: &str, path: Option<&str>) -> Option<PathBuf> {
    let folder = match kind {
        "example" => "examples",
        "test" => "tests",
        "bench" => "benches",
        _ => "src/bin",
    };
    let file = match path {
        Some(path) => dir.join(path),
        None => {
            let single = dir.join(folder).join(format!("{name}.rs"));
            if single.is_file() {
                single
            } else {
                dir.join(folder).join(name).join("main.rs")
            }
        }
    };
    if !file.is_file() {
        return None;
    }
    // A `main.rs` in a folder of its own: the folder holds its modules.
    match file.parent() {
        Some(parent)
            if file.file_name().is_some_and(|n| n == "main.rs")
                && parent != dir.join("src")
                && parent != dir =>
        {
            Some(parent.to_path_buf())
        }
        _ => Some(file),
    }
}

fn read(path: &Path) -> Option<Package> {
    let text = std::fs::read_to_string(path).ok()?;
    let toml: toml::Table = toml::from_str(&text).ok()?;
    let name = toml.get("package")?.get("name")?.as_str()?.to_string();
    let features = toml
        .get("features")
        .and_then(toml::Value::as_table)
        .map(|table| {
            table
                .iter()
                .map(|(name, enables)| (name.clone(), strings(Some(enables))))
                .collect()
        })
        .unwrap_or_default();
    let mut targets = Vec::new();
    for (key, kind) in [
        ("example", "example"),
        ("test", "test"),
        ("bench", "bench"),
        ("bin", "binary"),
    ] {
        for target in toml
            .get(key)
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(name) = target.get("name").and_then(toml::Value::as_str) else {
                continue;
            };
            let required = strings(target.get("required-features"));
            if required.is_empty() {
                continue;
            }
            let path = target
                .get("path")
                .and_then(toml::Value::as_str)
                .map(str::to_string);
            targets.push((kind, name.to_string(), path, required));
        }
    }
    let mut asks = Vec::new();
    for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
        for (key, dependency) in toml
            .get(table)
            .and_then(toml::Value::as_table)
            .into_iter()
            .flatten()
        {
            let Some(dependency) = dependency.as_table() else {
                continue;
            };
            let package = dependency
                .get("package")
                .and_then(toml::Value::as_str)
                .unwrap_or(key);
            asks.push((package.to_string(), strings(dependency.get("features"))));
        }
    }
    Some(Package {
        dir: path.parent()?.to_path_buf(),
        name,
        features,
        targets,
        asks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_whose_required_features_the_build_leaves_off() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| crate::fs::write_test_file(root, path, text);
        write("Cargo.toml", "[workspace]\nmembers = [\"core\", \"app\"]\n");
        write(
            "core/Cargo.toml",
            "[package]\nname = \"core\"\n\n[features]\ndefault = [\"std\"]\nstd = [\"alloc\"]\nalloc = []\ntls = []\nfast = []\n\n\
             [[example]]\nname = \"plain\"\nrequired-features = [\"alloc\"]\n\n\
             [[example]]\nname = \"secure\"\nrequired-features = [\"tls\"]\n\n\
             [[example]]\nname = \"quick\"\nrequired-features = [\"fast\"]\n\n\
             [[test]]\nname = \"gated\"\npath = \"tests/gated/main.rs\"\nrequired-features = [\"tls\", \"fast\"]\n",
        );
        write("core/examples/plain.rs", "fn main() {}\n");
        write("core/examples/secure/main.rs", "mod net;\nfn main() {}\n");
        write("core/examples/secure/net.rs", "\n");
        write("core/examples/quick.rs", "fn main() {}\n");
        write("core/tests/gated/main.rs", "\n");
        // Another member asks for `fast`: the build unifies it on.
        write(
            "app/Cargo.toml",
            "[package]\nname = \"app\"\n\n[dependencies]\ncore = { path = \"../core\", features = [\"fast\"] }\n",
        );
        let found = unbuilt(root);
        let shown: Vec<(String, String)> = found
            .iter()
            .map(|u| {
                (
                    u.path.strip_prefix(root).unwrap().display().to_string(),
                    u.why.clone(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "core/examples/secure".to_string(),
                    "example `secure` requires feature `tls`".to_string()
                ),
                (
                    "core/tests/gated".to_string(),
                    "test `gated` requires feature `tls`".to_string()
                ),
            ]
        );
        assert!(found[0].holds(&root.join("core/examples/secure/net.rs")));
        assert!(!found[0].holds(&root.join("core/examples/quick.rs")));
    }
}
