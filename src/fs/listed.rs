//! Walks' file lists kept between calls while the file watcher covers the
//! workspace: a walk sets up ignore rules and reads every folder, which
//! costs more than most answers that need its list. A list is forgotten
//! when the watcher reports a path under its root that it does not hold (a
//! file created, a folder); a file it holds that is written leaves it kept
//! (what is made from a file's text is kept by its stamp, see `stamped`),
//! though a walk under way then is not kept (`memo`). Without a watcher
//! every call walks again.

use std::borrow::Borrow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::memo::Memo;

/// The file lists of walks by their root, sorted; each file a `T` (a
/// `PathBuf`, or an `Arc<Path>` for an owner that keys by it).
#[derive(Debug)]
pub struct KeptLists<T = PathBuf> {
    by_root: Memo<PathBuf, Arc<Vec<T>>>,
}

impl<T> Default for KeptLists<T> {
    fn default() -> Self {
        KeptLists {
            by_root: Memo::default(),
        }
    }
}

impl<T: Borrow<Path> + Ord> KeptLists<T> {
    /// The list kept for `root`, or `walk`'s (sorted), kept when
    /// `watched` and no change came while it ran.
    pub fn listed(&self, root: &Path, watched: bool, walk: impl FnOnce() -> Vec<T>) -> Arc<Vec<T>> {
        let walk = || {
            let mut list = walk();
            // `note_changed` looks paths up by binary search.
            list.sort();
            Arc::new(list)
        };
        if !watched {
            self.by_root.remove(root);
            return walk();
        }
        self.by_root.get_or(root.to_path_buf(), walk)
    }

    /// Forgets the lists that do not hold a path written (`paths`, from
    /// the file watcher) under their root. A walk under way when it came
    /// is not kept.
    pub fn note_changed(&self, paths: &[PathBuf]) {
        self.by_root.forget_where(|root, list| {
            paths.iter().any(|path| {
                path.starts_with(root)
                    && list
                        .binary_search_by(|held| held.borrow().cmp(path.as_path()))
                        .is_err()
            })
        });
    }

    /// Whether a list is kept for `root`.
    #[cfg(test)]
    fn holds(&self, root: &Path) -> bool {
        self.by_root.get(root).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::write_test_file;

    fn walk(root: &Path) -> Vec<PathBuf> {
        crate::fs::walk::sources(root).files().collect()
    }

    #[test]
    fn a_list_is_kept_while_watched_and_forgotten_for_a_file_it_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_test_file(root, "src/a.ts", "export const a = 1;\n");
        let kept = KeptLists::default();
        let first = kept.listed(root, true, || walk(root));
        assert_eq!(*first, [root.join("src/a.ts")]);
        // Kept: a file written that the list holds changes nothing, nor
        // one under another root.
        write_test_file(root, "src/b.ts", "export const b = 1;\n");
        kept.note_changed(&[root.join("src/a.ts"), PathBuf::from("/elsewhere/x.ts")]);
        assert!(Arc::ptr_eq(&first, &kept.listed(root, true, || walk(root))));
        // One it lacks (created) forgets it.
        kept.note_changed(&[root.join("src/b.ts")]);
        assert!(!kept.holds(root));
        assert_eq!(
            *kept.listed(root, true, || walk(root)),
            [root.join("src/a.ts"), root.join("src/b.ts")]
        );
        // Unwatched, the folder is walked every time.
        write_test_file(root, "src/c.ts", "export const c = 1;\n");
        assert_eq!(kept.listed(root, false, || walk(root)).len(), 3);
        assert!(!kept.holds(root));
    }

    #[test]
    fn a_list_of_shared_paths_finds_its_files_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Path order (by component) is not byte order: `a/b.rs` comes
        // first by component, last by byte.
        let files = ["a.rs", "a-b.rs", "a/b.rs"];
        for file in files {
            write_test_file(root, file, "");
        }
        let kept: KeptLists<Arc<Path>> = KeptLists::default();
        let list = kept.listed(root, true, || {
            walk(root).into_iter().map(Arc::from).collect()
        });
        assert_eq!(list.len(), 3);
        for file in files {
            kept.note_changed(&[root.join(file)]);
            assert!(kept.holds(root), "{file}");
        }
        kept.note_changed(&[root.join("a/c.rs")]);
        assert!(!kept.holds(root));
    }

    #[test]
    fn lists_of_two_roots_are_forgotten_apart() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        write_test_file(&one, "a.rs", "");
        write_test_file(&two, "b.rs", "");
        let kept = KeptLists::default();
        kept.listed(&one, true, || walk(&one));
        kept.listed(&two, true, || walk(&two));
        kept.note_changed(&[two.join("new.rs")]);
        assert!(kept.holds(&one));
        assert!(!kept.holds(&two));
    }

    #[test]
    fn a_walk_a_change_came_during_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_test_file(root, "a.ts", "");
        let kept = KeptLists::default();
        // b.ts is created while the walk runs, after it listed the folder.
        let listed = kept.listed(root, true, || {
            let listed = vec![root.join("a.ts")];
            write_test_file(root, "b.ts", "");
            kept.note_changed(&[root.join("b.ts")]);
            listed
        });
        assert_eq!(*listed, [root.join("a.ts")]);
        assert!(!kept.holds(root));
        assert_eq!(kept.listed(root, true, || walk(root)).len(), 2);
        assert!(kept.holds(root));
    }
}
