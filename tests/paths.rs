//! What real file trees hold that fixtures do not: symlink loops, file
//! names that are not UTF-8, very deep folders, a 200 MB file, a binary
//! file with a source extension, files deleted while they are listed and
//! read, and a workspace of 100,000 files. Each answer is correct or a
//! clear `error[code]`, walks end, and what stops early says so.
//! (Traversal and symlinks out of the root are in `bad_input`.)

mod common;

use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use sextant::context::Context;

/// A workspace whose languages have no server, so nothing but sextant
/// itself answers (and no server walks the trees made here).
fn workspace() -> (tempfile::TempDir, Arc<Context>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sextant.toml"),
        "auto_install = false\n[language.typescript]\ncommand = \"sextant-no-such-server\"\n[language.rust]\ncommand = \"sextant-no-such-server\"\n",
    )
    .unwrap();
    let ctx = common::context(dir.path(), false);
    (dir, ctx)
}

async fn run(ctx: &Arc<Context>, tool: &str, args: serde_json::Value) -> String {
    common::run(ctx, tool, args).await
}

#[tokio::test]
async fn symlink_loops_end_every_walk() {
    let (dir, ctx) = workspace();
    let root = dir.path();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::write(root.join("a/b/code.ts"), "export function looped() {}\n").unwrap();
    // A link to an ancestor, a link to itself, and two links to each other.
    std::os::unix::fs::symlink(root.join("a"), root.join("a/b/up")).unwrap();
    std::os::unix::fs::symlink(root.join("a/self"), root.join("a/self")).unwrap();
    std::os::unix::fs::symlink(root.join("a/pong"), root.join("a/ping")).unwrap();
    std::os::unix::fs::symlink(root.join("a/ping"), root.join("a/pong")).unwrap();

    let found = run(&ctx, "find", json!({"pattern": "**/*.ts"})).await;
    assert!(found.contains("a/b/code.ts"), "{found}");
    let grep = run(
        &ctx,
        "grep",
        json!({"pattern": "looped", "output_mode": "content"}),
    )
    .await;
    assert!(
        grep.contains("a/b/code.ts:1:export function looped() {}"),
        "{grep}"
    );
    let search = run(&ctx, "search", json!({"query": "looped"})).await;
    assert!(search.contains("@1:17 Function - looped"), "{search}");
    for link in ["a/self", "a/ping"] {
        let read = run(&ctx, "read_file", json!({"path": link})).await;
        assert_eq!(
            read,
            format!("error[io]: {link}: Too many levels of symbolic links (os error 40)")
        );
    }
}

#[tokio::test]
async fn file_names_that_are_not_utf8_are_listed_searched_and_said() {
    let (dir, ctx) = workspace();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.ts");
    std::fs::write(dir.path().join(name), "export const latin1 = 1;\n").unwrap();
    std::fs::write(dir.path().join("plain.ts"), "export const plain = 2;\n").unwrap();

    let found = run(&ctx, "find", json!({"pattern": "*.ts"})).await;
    assert!(found.contains("plain.ts"), "{found}");
    assert!(found.contains("caf\u{fffd}.ts"), "{found}");
    let grep = run(
        &ctx,
        "grep",
        json!({"pattern": "latin1", "output_mode": "content"}),
    )
    .await;
    assert!(
        grep.contains("caf\u{fffd}.ts:1:export const latin1 = 1;"),
        "{grep}"
    );
    // The name as shown cannot be passed back: a clear not-found.
    let read = run(&ctx, "read_file", json!({"path": "caf\u{fffd}.ts"})).await;
    assert!(read.starts_with("error[not-found]"), "{read}");
    let search = run(&ctx, "search", json!({"query": "latin1"})).await;
    assert!(search.contains("latin1"), "{search}");
}

#[tokio::test]
async fn a_very_deep_tree_is_walked_to_the_bottom() {
    let (dir, ctx) = workspace();
    let mut deep = dir.path().to_path_buf();
    for level in 0..300 {
        deep.push(format!("d{}", level % 10));
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("bottom.ts"), "export function bottom() {}\n").unwrap();
    let shown = deep
        .strip_prefix(dir.path())
        .unwrap()
        .join("bottom.ts")
        .display()
        .to_string();

    let found = run(&ctx, "find", json!({"pattern": "**/bottom.ts"})).await;
    assert!(found.contains(&shown), "{found}");
    let grep = run(&ctx, "grep", json!({"pattern": "fn|function bottom"})).await;
    assert!(grep.contains(&shown), "{grep}");
    let read = run(&ctx, "read", json!({"file": shown})).await;
    assert!(read.contains("@1:17 Function - bottom"), "{read}");
    let search = run(&ctx, "search", json!({"query": "bottom"})).await;
    assert!(search.contains("@1:17 Function - bottom"), "{search}");
}

/// 200 MB of text: paged by read_file, searched by grep to its last line,
/// outlined within bounds by read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_200_mb_file_is_paged_searched_and_bounded() {
    let (dir, ctx) = workspace();
    let line = "const filler = \"the quick brown fox jumps over the lazy dog\";\n";
    let lines = 200 * 1024 * 1024 / line.len();
    {
        use std::io::Write;
        let mut file =
            std::io::BufWriter::new(std::fs::File::create(dir.path().join("big.ts")).unwrap());
        for _ in 0..lines - 1 {
            file.write_all(line.as_bytes()).unwrap();
        }
        file.write_all(b"export function needleAtTheEnd() {}\n")
            .unwrap();
    }
    let page = run(
        &ctx,
        "read_file",
        json!({"path": "big.ts", "offset": lines, "limit": 1}),
    )
    .await;
    assert!(
        page.contains("export function needleAtTheEnd() {}"),
        "{page}"
    );
    let grep = run(
        &ctx,
        "grep",
        json!({"pattern": "needleAtTheEnd", "output_mode": "content"}),
    )
    .await;
    assert_eq!(
        grep.lines().last().unwrap(),
        format!("big.ts:{lines}:export function needleAtTheEnd() {{}}"),
        "{grep}"
    );
    let read = run(&ctx, "read", json!({"file": "big.ts"})).await;
    assert!(
        read.starts_with("error[invalid-params]: big.ts is 209715")
            && read.ends_with("bytes; outlines stop at 16777216 bytes; use read_file, or read with preview \"raw\""),
        "{read}"
    );
}

#[tokio::test]
async fn a_binary_file_with_a_source_extension_is_refused_and_skipped() {
    let (dir, ctx) = workspace();
    let mut bytes = b"export function real() {}\n".to_vec();
    bytes.extend_from_slice(&[0, 159, 146, 150, 0, 1, 2, 3]);
    std::fs::write(dir.path().join("blob.ts"), &bytes).unwrap();
    std::fs::write(dir.path().join("text.ts"), "export function real() {}\n").unwrap();

    let read = run(&ctx, "read_file", json!({"path": "blob.ts"})).await;
    assert!(
        read.starts_with("error[binary-file]: blob.ts is a binary file"),
        "{read}"
    );
    let outline = run(&ctx, "read", json!({"file": "blob.ts"})).await;
    assert!(
        outline.starts_with("error[binary-file]: blob.ts is a binary file"),
        "{outline}"
    );
    let edit = run(
        &ctx,
        "edit",
        json!({"path": "blob.ts", "old_string": "real", "new_string": "fake"}),
    )
    .await;
    assert!(edit.starts_with("error[binary-file]"), "{edit}");
    let grep = run(&ctx, "grep", json!({"pattern": "real"})).await;
    assert!(
        grep.contains("text.ts") && grep.contains("1 binary file skipped"),
        "{grep}"
    );
    let search = run(&ctx, "search", json!({"query": "real"})).await;
    assert!(
        search.contains("text.ts") && !search.contains("blob.ts"),
        "{search}"
    );
}

/// Files deleted while grep, find, search and pipe walk and read them:
/// every answer is an answer, not an error or a panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_deleted_while_listed_and_read_leave_clear_answers() {
    let (dir, ctx) = workspace();
    let files = 3000;
    for i in 0..files {
        let folder = dir.path().join(format!("f{}", i % 30));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("m{i}.ts")),
            format!("export function gone{i}() {{}}\n"),
        )
        .unwrap();
    }
    // Files vanish and come back for as long as the calls run, so every
    // call meets some listed and gone by the time they are read.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let path = {
        let root = dir.path().to_path_buf();
        move |i: usize| root.join(format!("f{}/m{i}.ts", i % 30))
    };
    let flicker = {
        let (stop, path) = (Arc::clone(&stop), path.clone());
        std::thread::spawn(move || {
            let mut cycles = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                for i in (0..files).step_by(7) {
                    let _ = std::fs::remove_file(path(i));
                }
                for i in (0..files).step_by(7) {
                    let _ = std::fs::write(path(i), format!("export function gone{i}() {{}}\n"));
                }
                cycles += 1;
            }
            cycles
        })
    };
    for round in 0..8 {
        let (tool, args) = match round % 4 {
            0 => ("grep", json!({"pattern": "gone", "output_mode": "count"})),
            1 => ("find", json!({"pattern": "**/*.ts"})),
            2 => (
                "pipe",
                json!({"steps": [
                    {"tool": "find", "args": {"pattern": "**/*.ts"}},
                    {"tool": "read", "args": {"preview": "none"}},
                ]}),
            ),
            _ => ("search", json!({"query": "gone1"})),
        };
        let answer = run(&ctx, tool, args).await;
        assert!(!answer.starts_with("error["), "{tool}: {answer}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(
        flicker.join().unwrap() > 0,
        "no file vanished during the calls"
    );
    // Then all of them go: the answers follow the disk.
    for i in 0..files {
        let _ = std::fs::remove_file(path(i));
    }
    let grep = run(&ctx, "grep", json!({"pattern": "gone"})).await;
    assert_eq!(grep, "No matches for gone");
}

/// 100,000 files: find and grep page their answers and keep counting,
/// the symbol index stops at its bound and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_of_100000_files_is_bounded_and_says_so() {
    let (dir, ctx) = workspace();
    let files = 100_000;
    write_many(dir.path(), files);

    let found = run(&ctx, "find", json!({"pattern": "**/*.ts"})).await;
    assert!(
        found.contains(&format!(
            "{files} files match **/*.ts in .; showing 1-250; pass offset=250 for more"
        )),
        "{}",
        tail(&found)
    );
    assert!(found.len() < 64 * 1024, "{} bytes", found.len());
    let grep = run(&ctx, "grep", json!({"pattern": "export function"})).await;
    assert!(
        grep.starts_with(&format!("Found {files} files")),
        "{}",
        head(&grep)
    );
    assert!(
        grep.ends_with(&format!(
            "Showing files 1-250 of {files}; pass offset=250 for more"
        )),
        "{}",
        tail(&grep)
    );
    let search = run(&ctx, "search", json!({"query": "item99999"})).await;
    assert!(
        search.contains("files past the first 20000 are not indexed"),
        "{}",
        head(&search)
    );
}

fn write_many(root: &Path, files: usize) {
    for i in 0..files {
        let folder = root.join(format!("p{}/q{}", i / 10_000, (i / 100) % 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&folder).unwrap();
        }
        std::fs::write(
            folder.join(format!("item{i}.ts")),
            format!("export function item{i}() {{}}\n"),
        )
        .unwrap();
    }
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(4)..].join("\n")
}

fn head(text: &str) -> String {
    text.lines().take(8).collect::<Vec<_>>().join("\n")
}
