//! Where the relays of one workspace meet its shared instance, and what
//! they say first.
//!
//! The meeting place is a folder only its user can enter
//! (`$XDG_RUNTIME_DIR/sextant`, else `sextant-<uid>` in the temp folder,
//! mode 0700, refused if anyone else owns it or can enter it). In it, per
//! instance key, the instance's Unix socket, the lock a relay holds while
//! it starts one, and the instance's log. The key covers what makes two
//! instances different: this build of sextant, the canonical workspace
//! root, the library roots and the configuration files' contents. A relay
//! of another build (or with another `sextant.toml`) computes another key,
//! so it never talks to an instance it does not match: it starts its own
//! beside it, and the old one ends when idle.
//!
//! On a connection each side writes one JSON line first ([`Hello`], then
//! [`Welcome`]); MCP's JSON-RPC lines follow.

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::model::InstanceState;
use crate::stable_hash::stable_hash;

/// One instance's files in the meeting place.
#[derive(Debug, Clone)]
pub struct Rendezvous {
    /// The socket the instance listens on.
    pub socket: PathBuf,
    /// Held by the relay starting the instance, so that two relays
    /// starting at once make one.
    pub lock: PathBuf,
    /// The instance's log (its stderr).
    pub log: PathBuf,
}

/// What decides which instance serves a session: everything it was started
/// with.
#[derive(Debug, Clone)]
pub struct InstanceSpec {
    /// Canonical.
    pub root: PathBuf,
    pub library_roots: Vec<PathBuf>,
    /// `--config`, if given.
    pub config: Option<PathBuf>,
}

impl InstanceSpec {
    /// The instance's files for this build of sextant.
    pub fn rendezvous(&self) -> io::Result<Rendezvous> {
        let folder = private_folder()?;
        let key = format!("{:016x}", stable_hash(self.key_text().as_bytes()));
        Ok(Rendezvous {
            socket: folder.join(format!("{key}.sock")),
            lock: folder.join(format!("{key}.lock")),
            log: folder.join(format!("{key}.log")),
        })
    }

    /// The build, the roots and the configuration files' contents (a file
    /// that cannot be read counts as its error: `Config::load` refuses it
    /// before a relay gets here).
    fn key_text(&self) -> String {
        let mut text = format!("{}\n{}\n", build_identity(), self.root.display());
        for root in &self.library_roots {
            text.push_str(&format!("library {}\n", root.display()));
        }
        let workspace_file = self.root.join(crate::lsp::config::WORKSPACE_FILE);
        for file in std::iter::once(&workspace_file).chain(self.config.as_ref()) {
            let content = std::fs::read_to_string(file).unwrap_or_else(|err| err.to_string());
            text.push_str(&format!("config {}\n{content}\n", file.display()));
        }
        text
    }
}

/// This build of sextant: its version, and its executable's size and
/// modification time, so a rebuilt binary is another build.
pub fn build_identity() -> String {
    let exe = std::env::current_exe()
        .and_then(|exe| exe.metadata())
        .map(|meta| {
            let modified = meta
                .modified()
                .ok()
                .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |since| since.as_nanos());
            format!("{}-{modified}", meta.len())
        })
        .unwrap_or_default();
    format!("{}-{exe}", env!("CARGO_PKG_VERSION"))
}

/// The meeting place, created if need be: a folder of this user's that no
/// one else can enter.
pub fn private_folder() -> io::Result<PathBuf> {
    let uid = current_uid();
    let folder = match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("sextant"),
        _ => std::env::temp_dir().join(format!("sextant-{uid}")),
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&folder) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
        Err(err) => return Err(err),
    }
    check_private(&folder, uid)?;
    Ok(folder)
}

/// Refuses a folder another user owns, or that others may enter (someone
/// could have made it first to listen in).
fn check_private(folder: &Path, uid: u32) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(folder)?;
    let mode = meta.permissions().mode();
    if !meta.is_dir() || meta.uid() != uid || mode & 0o077 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a private folder of this user (owner {}, mode {:o}); remove it, or run with --no-shared",
                folder.display(),
                meta.uid(),
                mode & 0o7777
            ),
        ));
    }
    Ok(())
}

/// The user this process runs as.
pub fn current_uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// The first line a relay writes.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hello {
    /// An MCP session follows.
    Session {
        build: String,
        root: PathBuf,
        read_only: bool,
    },
    /// Only the instance's state is asked for (`doctor`).
    Status { build: String },
}

/// The instance's answer to a [`Hello`].
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Welcome {
    Session { pid: u32 },
    Status(InstanceState),
    Refused { why: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_others_can_enter_or_own_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("place");
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&folder)
            .unwrap();
        let uid = current_uid();
        check_private(&folder, uid).unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = check_private(&folder, uid).unwrap_err();
        assert!(err.to_string().contains("mode 755"), "{err}");
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
        let err = check_private(&folder, uid + 1).unwrap_err();
        assert!(err.to_string().contains("is not a private folder"), "{err}");
    }

    #[test]
    fn the_key_follows_the_roots_and_the_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let spec = InstanceSpec {
            root: dir.path().to_path_buf(),
            library_roots: Vec::new(),
            config: None,
        };
        let plain = spec.key_text();
        assert_eq!(plain, spec.key_text());
        std::fs::write(dir.path().join("sextant.toml"), "auto_install = false\n").unwrap();
        let configured = spec.key_text();
        assert_ne!(plain, configured);
        let with_library = InstanceSpec {
            library_roots: vec![PathBuf::from("/opt/lib")],
            ..spec
        };
        assert_ne!(configured, with_library.key_text());
    }
}
