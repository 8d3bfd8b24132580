//! The file system side: the workspace sandbox, walking, grep, text
//! reading, patches, and what is kept of files while they stay unchanged.
//! Produces model values and plain data; knows nothing of MCP.

pub mod grep;
pub mod library_path;
pub mod listed;
pub mod memo;
pub mod new_text;
pub mod patch;
pub mod plain;
pub mod stamped;
pub mod text;
pub mod walk;
pub mod workspace;

/// Writes `text` to `path` under `root`, its folders made: a test's small
/// tree of files.
#[cfg(test)]
pub(crate) fn write_test_file(root: &std::path::Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
