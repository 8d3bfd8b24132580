//! Short names for library files, the same in every answer and accepted
//! back by every tool that takes a file:
//!
//! - `NAME@VERSION:PATH` — a file of an npm package or a crate, `PATH` from
//!   the package's folder: `zod@4.3.6:v4/classic/schemas.d.cts` (wherever
//!   `node_modules` keeps it, pnpm's store included),
//!   `memchr@2.8.3:src/memchr.rs` (the cargo registry);
//! - `std:PATH` — Rust's standard library sources, from `library/`:
//!   `std:alloc/src/vec/mod.rs`;
//! - `typescript:FILE` — TypeScript's own declarations, `lib.*.d.ts`:
//!   `typescript:lib.dom.d.ts`.
//!
//! [`shorten`] makes the name of a path, with the folder its `PATH` is
//! relative to; [`parse`] splits a name back into its prefix and `PATH`.

use std::path::{Component, Path, PathBuf};

/// A library file's short name: `prefix` (`zod@4.3.6:`, `std:`,
/// `typescript:`) and `rest`, relative to `folder`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Short {
    pub prefix: String,
    pub folder: PathBuf,
    pub rest: String,
}

impl Short {
    pub fn name(&self) -> String {
        format!("{}{}", self.prefix, self.rest)
    }
}

/// The short name of `path`, if it is a library file: `std_roots` are the
/// toolchains' `lib/rustlib/src/rust` folders, `registries` the cargo
/// registry's `registry/src` folders; `version_of` reads a package
/// folder's `package.json` version (for a package outside pnpm's store).
pub fn shorten(
    path: &Path,
    std_roots: &[PathBuf],
    registries: &[PathBuf],
    version_of: &mut dyn FnMut(&Path) -> Option<String>,
) -> Option<Short> {
    if let Some(short) = typescript_lib(path) {
        return Some(short);
    }
    for root in std_roots {
        if let Ok(rest) = path.strip_prefix(root.join("library")) {
            return Some(Short {
                prefix: "std:".into(),
                folder: root.join("library"),
                rest: slashed(rest),
            });
        }
    }
    for registry in registries {
        let Ok(inside) = path.strip_prefix(registry) else {
            continue;
        };
        // <index>/<name>-<version>/<rest>
        let mut parts = inside.components();
        let index = parts.next()?;
        let krate = parts.next()?.as_os_str().to_str()?;
        let (name, version) = crate_name_version(krate)?;
        let rest = slashed(parts.as_path());
        return (!rest.is_empty()).then(|| Short {
            prefix: format!("{name}@{version}:"),
            folder: registry.join(index.as_os_str()).join(krate),
            rest,
        });
    }
    npm_package(path, version_of)
}

/// Splits a short name into its prefix (`zod@4.3.6:`, `std:`,
/// `typescript:`) and path; `None` for anything else (a plain path).
pub fn parse(input: &str) -> Option<(String, String)> {
    let (head, rest) = input.split_once(':')?;
    if rest.is_empty() || rest.starts_with('/') || head.is_empty() {
        return None;
    }
    let prefix = format!("{head}:");
    if head == "std" || head == "typescript" {
        return Some((prefix, rest.to_string()));
    }
    let (name, version) = head.rsplit_once('@')?;
    let named = !name.is_empty()
        && name
            .trim_start_matches('@')
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c));
    let versioned = version.starts_with(|c: char| c.is_ascii_digit());
    (named && versioned).then(|| (prefix, rest.to_string()))
}

/// `lib.dom.d.ts` in a `lib` folder of the `typescript` package or of
/// TypeScript 7's native package (`@typescript/...`).
fn typescript_lib(path: &Path) -> Option<Short> {
    let file = path.file_name()?.to_str()?;
    let folder = path.parent()?;
    let package = folder.parent()?;
    let is_lib = file.starts_with("lib.") && file.ends_with(".d.ts");
    let of_typescript = folder.file_name()? == "lib"
        && (package.file_name()? == "typescript"
            || package.parent()?.file_name()? == "@typescript");
    (is_lib && of_typescript).then(|| Short {
        prefix: "typescript:".into(),
        folder: folder.to_path_buf(),
        rest: file.to_string(),
    })
}

/// A file under a `node_modules` folder: the package after the last one
/// (`name` or `@scope/name`), its version from pnpm's store folder
/// (`.pnpm/@scope+name@1.2.0/node_modules/@scope/name`) or else its
/// `package.json`.
fn npm_package(path: &Path, version_of: &mut dyn FnMut(&Path) -> Option<String>) -> Option<Short> {
    let parts: Vec<Component> = path.components().collect();
    let at = parts
        .iter()
        .rposition(|c| c.as_os_str() == "node_modules")?;
    let first = parts.get(at + 1)?.as_os_str().to_str()?;
    let (name, used) = if first.starts_with('@') {
        let second = parts.get(at + 2)?.as_os_str().to_str()?;
        (format!("{first}/{second}"), 2)
    } else {
        (first.to_string(), 1)
    };
    if name.starts_with('.') {
        return None;
    }
    let folder: PathBuf = parts[..at + 1 + used].iter().collect();
    let rest: PathBuf = parts[at + 1 + used..].iter().collect();
    let rest = slashed(&rest);
    if rest.is_empty() {
        return None;
    }
    // .pnpm/<name with / as +>@<version>[_peers|(peers)]/node_modules/<name>
    let stored = at
        .checked_sub(1)
        .and_then(|i| parts[i].as_os_str().to_str())
        .filter(|_| at >= 2 && parts[at - 2].as_os_str() == ".pnpm")
        .and_then(|store| store.strip_prefix(&format!("{}@", name.replace('/', "+"))))
        .map(|version| {
            version
                .split(['_', '('])
                .next()
                .unwrap_or(version)
                .to_string()
        });
    let version = match stored {
        Some(version) => version,
        None => version_of(&folder)?,
    };
    Some(Short {
        prefix: format!("{name}@{version}:"),
        folder,
        rest,
    })
}

/// `regex-syntax-0.8.5` -> (`regex-syntax`, `0.8.5`): the name ends at the
/// first `-` followed by a version (a digit, and a dot after it).
fn crate_name_version(folder: &str) -> Option<(&str, &str)> {
    folder.match_indices('-').find_map(|(at, _)| {
        let version = &folder[at + 1..];
        (version.starts_with(|c: char| c.is_ascii_digit()) && version.contains('.'))
            .then(|| (&folder[..at], version))
    })
}

fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn short(path: &str) -> Option<String> {
        let std_roots = [PathBuf::from(
            "/rustup/toolchains/stable/lib/rustlib/src/rust",
        )];
        let registries = [PathBuf::from("/cargo/registry/src")];
        shorten(Path::new(path), &std_roots, &registries, &mut |folder| {
            (folder == Path::new("/w/node_modules/zod")).then(|| "4.3.6".to_string())
        })
        .map(|s| s.name())
    }

    #[test]
    fn library_files_are_named_short() {
        assert_eq!(
            short("/w/node_modules/.pnpm/zod@4.3.6/node_modules/zod/v4/classic/schemas.d.cts")
                .as_deref(),
            Some("zod@4.3.6:v4/classic/schemas.d.cts")
        );
        assert_eq!(
            short("/w/node_modules/.pnpm/@acme+geometry@1.2.0_ts@5.0.0/node_modules/@acme/geometry/index.d.ts")
                .as_deref(),
            Some("@acme/geometry@1.2.0:index.d.ts")
        );
        assert_eq!(
            short("/w/node_modules/zod/index.d.ts").as_deref(),
            Some("zod@4.3.6:index.d.ts")
        );
        assert_eq!(
            short(
                "/cargo/registry/src/index.crates.io-1949cf8c6b5b557f/regex-syntax-0.8.5/src/lib.rs"
            )
            .as_deref(),
            Some("regex-syntax@0.8.5:src/lib.rs")
        );
        assert_eq!(
            short("/rustup/toolchains/stable/lib/rustlib/src/rust/library/alloc/src/vec/mod.rs")
                .as_deref(),
            Some("std:alloc/src/vec/mod.rs")
        );
        assert_eq!(
            short("/tools/typescript-go/node_modules/@typescript/typescript-linux-x64/lib/lib.es5.d.ts")
                .as_deref(),
            Some("typescript:lib.es5.d.ts")
        );
        assert_eq!(
            short("/w/node_modules/typescript/lib/lib.dom.d.ts").as_deref(),
            Some("typescript:lib.dom.d.ts")
        );
        // No version known: left long.
        assert_eq!(short("/w/node_modules/left/index.d.ts"), None);
        assert_eq!(short("/w/src/index.ts"), None);
    }

    #[test]
    fn short_names_parse_back() {
        let parsed = |s: &str| parse(s).map(|(p, r)| format!("{p}|{r}"));
        assert_eq!(
            parsed("zod@4.3.6:v4/classic/schemas.d.cts").as_deref(),
            Some("zod@4.3.6:|v4/classic/schemas.d.cts")
        );
        assert_eq!(
            parsed("@acme/geometry@1.2.0:index.d.ts").as_deref(),
            Some("@acme/geometry@1.2.0:|index.d.ts")
        );
        assert_eq!(
            parsed("std:alloc/src/vec/mod.rs").as_deref(),
            Some("std:|alloc/src/vec/mod.rs")
        );
        assert_eq!(
            parsed("typescript:lib.dom.d.ts").as_deref(),
            Some("typescript:|lib.dom.d.ts")
        );
        assert_eq!(parsed("src/index.ts"), None);
        assert_eq!(parsed("C:/x"), None);
        assert_eq!(parsed("zod@next:x"), None);
    }
}
