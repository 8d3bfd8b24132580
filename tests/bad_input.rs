//! Bad input: every case gets a clear `error[code]` answer and writes nothing.

mod common;

use common::fixture;
use insta::assert_snapshot;
use serde_json::json;

#[tokio::test]
async fn paths_outside_the_root_are_refused() {
    let f = fixture("ts");
    assert_snapshot!(f.run("read_file", json!({"path": "../etc/passwd"})).await, @"error[outside-root]: ../etc/passwd is outside the workspace <root>; pass a path inside it");
    assert_snapshot!(f.run("read_file", json!({"path": "/etc/passwd"})).await, @"error[outside-root]: /etc/passwd is outside the workspace <root>; pass a path inside it");
    assert_snapshot!(f.run("grep", json!({"pattern": "root", "path": "src/../../"})).await, @"error[outside-root]: src/../../ is outside the workspace <root>; pass a path inside it");
    assert_snapshot!(f.run("create_file", json!({"path": "../escape.txt", "content": "x"})).await, @"error[outside-root]: ../escape.txt is outside the workspace <root>; pass a path inside it");
    assert!(!f.root().parent().unwrap().join("escape.txt").exists());
}

#[tokio::test]
async fn symlinks_that_escape_are_refused() {
    let f = fixture("ts");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), f.path("link")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), f.path("secret-link.txt"))
        .unwrap();

    let read = f.run("read_file", json!({"path": "link/secret.txt"})).await;
    assert!(
        read.starts_with("error[outside-root]: link/secret.txt is outside the workspace"),
        "{read}"
    );
    assert!(read.ends_with("through a symlink)"), "{read}");
    let read = f.run("read_file", json!({"path": "secret-link.txt"})).await;
    assert!(
        read.starts_with("error[outside-root]: secret-link.txt is outside"),
        "{read}"
    );

    let write = f
        .run(
            "create_file",
            json!({"path": "link/new.txt", "content": "x"}),
        )
        .await;
    assert!(
        write.starts_with("error[outside-root]: link/new.txt is outside"),
        "{write}"
    );
    assert!(!outside.path().join("new.txt").exists());
    let edit = f.run("edit", json!({"path": "secret-link.txt", "old_string": "secret", "new_string": "public", "apply": true})).await;
    assert!(edit.starts_with("error[outside-root]"), "{edit}");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "secret\n"
    );
}

#[tokio::test]
async fn missing_files_and_folders_given_as_files() {
    let f = fixture("ts");
    assert_snapshot!(f.run("read_file", json!({"path": "src/nope.ts"})).await, @"error[not-found]: src/nope.ts does not exist; check the path (find lists files by glob)");
    assert_snapshot!(f.run("read_file", json!({"path": "src"})).await, @"error[not-a-file]: src is a folder, not a file; use find to list its files");
    assert_snapshot!(f.run("edit", json!({"path": "src", "old_string": "a", "new_string": "b"})).await, @"error[not-a-file]: src is a folder, not a file; use find to list its files");
    assert_snapshot!(f.run("create_file", json!({"path": "src", "content": "x"})).await, @"error[not-a-file]: src is a folder; pass a file path");
    assert_snapshot!(f.run("find", json!({"pattern": "*", "path": "src/index.ts"})).await, @"error[not-a-directory]: src/index.ts is a file, not a folder; pass the folder to search in");
    assert_snapshot!(f.run("grep", json!({"pattern": "x", "path": "nowhere"})).await, @"error[not-found]: nowhere does not exist; check the path (find lists files by glob)");
}

#[tokio::test]
async fn binary_files_are_refused_and_skipped() {
    let f = fixture("ts");
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR Circle".to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 100));
    std::fs::write(f.path("image.png"), &bytes).unwrap();
    assert_snapshot!(f.run("read_file", json!({"path": "image.png"})).await, @"error[binary-file]: image.png is a binary file (123 bytes); only text files can be read");
    assert_snapshot!(f.run("edit", json!({"path": "image.png", "old_string": "IHDR", "new_string": "x"})).await, @"error[binary-file]: image.png is a binary file (123 bytes); only text files can be read");
    assert_eq!(std::fs::read(f.path("image.png")).unwrap(), bytes);
    let grep = f.run("grep", json!({"pattern": "Circle"})).await;
    assert!(
        grep.starts_with("Found 3 files containing Circle (1 binary file skipped)"),
        "{grep}"
    );
    assert_snapshot!(
        f.run("grep", json!({"pattern": "IHDR"})).await,
        @"No matches for IHDR (1 binary file skipped)"
    );
}

#[tokio::test]
async fn a_50_mb_file_is_paged() {
    let f = fixture("ts");
    let line = format!("{}\n", "0123456789".repeat(10));
    let lines = 50 * 1024 * 1024 / line.len() + 1;
    std::fs::write(f.path("huge.log"), line.repeat(lines)).unwrap();
    let out = f
        .run(
            "read_file",
            json!({"path": "huge.log", "offset": 400_000, "limit": 3}),
        )
        .await;
    assert_eq!(
        out.lines().last().unwrap(),
        format!("huge.log · lines 400000-400002 of {lines}; pass offset=400003 for more")
    );
    assert_eq!(out.lines().count(), 4);
    let first = f.run("read_file", json!({"path": "huge.log"})).await;
    let shown = first.lines().count() - 1;
    assert!(
        shown < 400,
        "the budget cuts the default page: {shown} lines"
    );
    assert!(first.ends_with(&format!("of {lines}; pass offset={} for more", shown + 1)));
    let past = f
        .run(
            "read_file",
            json!({"path": "huge.log", "offset": lines + 5}),
        )
        .await;
    assert_eq!(
        past,
        format!(
            "error[out-of-range]: huge.log has {lines} lines; offset {} is past its end",
            lines + 5
        )
    );
}

#[tokio::test]
async fn invalid_regex_glob_and_type() {
    let f = fixture("ts");
    assert_snapshot!(f.run("grep", json!({"pattern": "fn (x"})).await, @r"error[invalid-regex]: invalid regex 'fn (x': unclosed group; the syntax is Rust regex (like ripgrep): escape literal ( [ { . * + ? with \");
    assert_snapshot!(f.run("grep", json!({"pattern": "a\\nb"})).await, @r#"error[invalid-regex]: invalid regex 'a\nb': the literal "\n" is not allowed in a regex; a pattern that spans lines needs multiline: true"#);
    assert_snapshot!(f.run("grep", json!({"pattern": "x", "glob": "src/[a"})).await, @"error[invalid-glob]: invalid glob 'src/[a': error parsing glob 'src/[a': unclosed character class; missing ']'; globs look like **/*.ts or src/**/mod.rs");
    // Also when the search is one file.
    assert!(
        f.run(
            "grep",
            json!({"pattern": "x", "glob": "[", "path": "src/shapes.ts"})
        )
        .await
        .starts_with("error[invalid-glob]: invalid glob '['")
    );
    assert_snapshot!(f.run("find", json!({"pattern": "**/{a,b"})).await, @"error[invalid-glob]: invalid glob '**/{a,b': error parsing glob '**/{a,b': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?); globs look like **/*.ts or src/**/mod.rs");
    assert_snapshot!(f.run("grep", json!({"pattern": "x", "type": "typescrypt"})).await, @"error[invalid-params]: unknown file type 'typescrypt'; known types include typescript, typoscript, typst (ripgrep's names, e.g. ts, js, rust, py)");
    // A name that starts with a multibyte character.
    assert_snapshot!(f.run("grep", json!({"pattern": "x", "type": "日本"})).await, @"error[invalid-params]: unknown file type '日本'; known types include ts, js, rust, py, go, c, cpp, java (ripgrep's names, e.g. ts, js, rust, py)");
}

/// A text file with a NUL far down: the matches before it count in every
/// mode (the search stops at the NUL, as ripgrep's does).
#[tokio::test]
async fn a_late_nul_byte_keeps_the_matches_before_it() {
    let f = fixture("ts");
    let mut text = "needle one\n".to_string();
    text.push_str(&"filler line\n".repeat(30_000));
    text.push_str("\0 needle after the NUL\n");
    std::fs::write(f.path("late.log"), text).unwrap();
    let args = |mode: &str| json!({"pattern": "needle", "path": "late.log", "output_mode": mode});
    assert_snapshot!(f.run("grep", args("files_with_matches")).await, @r"
    Found 1 file containing needle
    late.log
    ");
    assert_snapshot!(f.run("grep", args("content")).await, @r"
    Found 1 matching line in 1 file for needle
    late.log:1:needle one
    ");
    assert_snapshot!(f.run("grep", args("count")).await, @r"
    Found 1 matching line in 1 file for needle
    late.log:1
    ");
}

#[tokio::test]
async fn paging_past_the_end_is_out_of_range() {
    let f = fixture("ts");
    assert_snapshot!(f.run("grep", json!({"pattern": "Circle", "offset": 3})).await, @"error[out-of-range]: the search for Circle gives 3 files; offset 3 is past the last one");
    assert_snapshot!(f.run("grep", json!({"pattern": "Circle", "output_mode": "content", "offset": 50})).await, @"error[out-of-range]: the search for Circle gives 7 output lines; offset 50 is past the last one");
    assert_snapshot!(f.run("find", json!({"pattern": "src/*.ts", "offset": 7})).await, @"error[out-of-range]: 7 files match src/*.ts; offset 7 is past the last one");
    // The last entry itself is a page.
    assert!(
        f.run("find", json!({"pattern": "src/*.ts", "offset": 6}))
            .await
            .starts_with("src/")
    );
}

#[tokio::test]
async fn trailing_slashes_read_only_files_and_dot_slash_globs() {
    let f = fixture("ts");
    assert_snapshot!(f.run("read_file", json!({"path": "src/shapes.ts/"})).await, @"error[not-a-directory]: src/shapes.ts/ ends with / but is a file; drop the /");
    assert_snapshot!(f.run("create_file", json!({"path": "newdir/", "content": "x"})).await, @"error[invalid-params]: newdir/ ends with /, which names a folder; give the path of a file");
    assert!(!f.path("newdir").exists());
    // A folder with its slash is still a folder.
    assert!(
        f.run("find", json!({"pattern": "*.ts", "path": "src/"}))
            .await
            .contains("shapes.ts")
    );
    assert_eq!(
        f.run("find", json!({"pattern": "./src/*.ts"}))
            .await
            .replace("./src/*.ts", "src/*.ts"),
        f.run("find", json!({"pattern": "src/*.ts"})).await
    );

    // A file whose permissions allow no writing is left alone.
    let path = f.path("src/paths.ts");
    let before = std::fs::read(&path).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o444)).unwrap();
    assert_snapshot!(f.run("edit", json!({"path": "src/paths.ts", "old_string": "tsFile", "new_string": "tsPath", "replace_all": true, "apply": true})).await, @"error[read-only]: src/paths.ts is read-only (its permissions allow no writing); nothing was written. Make it writable first if it should change");
    assert_snapshot!(f.run("create_file", json!({"path": "src/paths.ts", "content": "x", "overwrite": true})).await, @"error[read-only]: src/paths.ts is read-only (its permissions allow no writing); nothing was written. Make it writable first if it should change");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test]
async fn a_fifo_is_refused_not_waited_on() {
    let f = fixture("ts");
    let fifo = std::ffi::CString::new(f.path("pipe").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let refused = "error[not-a-file]: pipe is not a regular file (a FIFO, socket or device); only files can be read";
    for (tool, args) in [
        ("read_file", json!({"path": "pipe"})),
        ("read", json!({"file": "pipe", "preview": "raw"})),
        (
            "edit",
            json!({"path": "pipe", "old_string": "a", "new_string": "b"}),
        ),
    ] {
        let answer = tokio::time::timeout(std::time::Duration::from_secs(10), f.run(tool, args))
            .await
            .unwrap_or_else(|_| panic!("{tool} waited on the FIFO"));
        assert_eq!(answer, refused, "{tool}");
    }
    // grep and find walk past it.
    assert!(
        f.run("grep", json!({"pattern": "Circle"}))
            .await
            .starts_with("Found 3 files")
    );
}

#[tokio::test]
async fn edit_refuses_ambiguous_missing_and_pasted_prefixes() {
    let f = fixture("ts");
    let before = f.read("src/shapes.ts");
    assert_snapshot!(f.run("edit", json!({"path": "src/shapes.ts", "old_string": "area(): number {", "new_string": "x"})).await, @"error[ambiguous-match]: old_string occurs 2 times in src/shapes.ts (lines 23, 33); add surrounding lines to make it unique, or pass replace_all: true");
    assert_snapshot!(f.run("edit", json!({"path": "src/shapes.ts", "old_string": "not in the file", "new_string": "x"})).await, @"error[no-match]: old_string does not occur in src/shapes.ts; read the file again and copy the text exactly");
    assert_snapshot!(f.run("edit", json!({"path": "src/shapes.ts", "old_string": "export enum Unit {\nMetre = \"m\",", "new_string": "x"})).await, @"error[no-match]: old_string does not occur in src/shapes.ts; it matches only when whitespace is ignored: copy the exact indentation and line breaks from read_file");
    assert_snapshot!(f.run("edit", json!({"path": "src/shapes.ts", "old_string": "    39\texport enum Unit {\n    40\t  Metre = \"m\",", "new_string": "export enum Unit {\n  Metre = \"metre\","})).await, @r"error[line-number-prefix]: old_string starts its lines with line numbers (`    12\t` or `12→`) from read_file's display; remove them and keep only the file's own text");
    assert_snapshot!(f.run("edit", json!({"path": "src/shapes.ts", "old_string": "export enum Unit {", "new_string": "39→export enum Units {"})).await, @"error[line-number-prefix]: new_string starts its lines with line numbers (`    12\\t` or `12→`); they would be written into the file. Remove them");
    assert_snapshot!(f.run("edit", json!({"path": "src/shapes.ts", "old_string": "Unit", "new_string": "Unit"})).await, @"error[no-change]: old_string and new_string are identical; nothing would change");
    assert_snapshot!(f.run("edit", json!({"path": "src/shapes.ts", "old_string": "", "new_string": "x"})).await, @"error[invalid-params]: old_string is empty; include the text to replace (use create_file for a new file)");
    assert_eq!(f.read("src/shapes.ts"), before, "nothing was written");
}

#[tokio::test]
async fn a_patch_refuses_when_its_file_changed_after_the_preview() {
    let f = fixture("ts");
    let preview = f.run("edit", json!({"path": "src/index.ts", "old_string": "greet(\"world\")", "new_string": "greet(\"there\")"})).await;
    assert!(preview.contains("patch: p1"), "{preview}");
    let changed = f
        .read("src/index.ts")
        .replace("export function main", "export function start");
    std::fs::write(f.path("src/index.ts"), &changed).unwrap();
    assert_snapshot!(f.run("apply_patch", json!({"patch": "p1"})).await, @"error[stale-patch]: src/index.ts changed on disk since the preview; nothing was written. Read it again and preview a new change");
    assert_eq!(f.read("src/index.ts"), changed);
    assert_snapshot!(f.run("apply_patch", json!({"patch": "banana"})).await, @"error[invalid-params]: 'banana' is not a patch id; pass the id shown as `patch: pN` by edit or rename");
}

#[tokio::test]
async fn unknown_tools_and_bad_parameters() {
    let f = fixture("ts");
    assert_snapshot!(f.run("cat", json!({"path": "x"})).await, @"error[unknown-tool]: no tool named 'cat'; the tools are search, read, inspect, references, call_hierarchy, completion, rename, fix, read_file, find, grep, edit, apply_patch, create_file, pipe, diagnostics, logs");
    assert_snapshot!(f.run("read_file", json!({})).await, @"error[invalid-params]: read_file: missing field `path`; see the parameters with `sextant read_file --help`");
    assert_snapshot!(f.run("read_file", json!({"path": 12})).await, @r#"error[invalid-params]: read_file: invalid type: integer `12`, expected a string; see the parameters with `sextant read_file --help`"#);
    assert_snapshot!(f.run("read_file", json!({"path": "src/index.ts", "offset": "ten"})).await, @r#"error[invalid-params]: read_file: invalid type: string "ten", expected usize; see the parameters with `sextant read_file --help`"#);
    assert_snapshot!(f.run("grep", json!({"patern": "x"})).await, @"error[invalid-params]: grep: unknown field `patern`, expected one of `pattern`, `path`, `glob`, `type`, `output_mode`, `-A`, `-B`, `-C`, `-i`, `-n`, `multiline`, `head_limit`, `offset`; see the parameters with `sextant grep --help`");
    assert_snapshot!(f.run("grep", json!({"pattern": "x", "output_mode": "lines"})).await, @"error[invalid-params]: grep: unknown variant `lines`, expected one of `files_with_matches`, `content`, `count`; see the parameters with `sextant grep --help`");
    assert_snapshot!(f.run("grep", json!({"pattern": "x", "format": "xml"})).await, @r#"error[invalid-params]: format must be "text" or "json", not "xml""#);
}

#[tokio::test]
async fn read_only_mode_leaves_writing_tools_out() {
    let f = fixture("ts");
    let ctx = common::context(f.root(), true);
    let names: Vec<&str> = sextant::tools::available(&ctx)
        .iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, common::read_only_tool_names());
    let out = common::run(&ctx, "create_file", json!({"path": "x.ts", "content": "x"})).await;
    assert_eq!(
        out,
        "error[unknown-tool]: no tool named 'create_file'; the tools are search, read, inspect, references, call_hierarchy, completion, rename, fix, read_file, find, grep, pipe, diagnostics, logs"
    );
    assert!(!f.path("x.ts").exists());
}

#[tokio::test]
async fn library_roots_are_readable_but_not_writable() {
    let f = fixture("ts");
    let library = tempfile::tempdir().unwrap();
    std::fs::write(library.path().join("lib.rs"), "pub fn library() {}\n").unwrap();
    let workspace =
        sextant::fs::workspace::Workspace::new(f.root(), &[library.path().to_path_buf()]).unwrap();
    let config = sextant::lsp::config::Config::built_in();
    let ctx = std::sync::Arc::new(sextant::context::Context::new(workspace, config, false));
    let lib_file = library.path().canonicalize().unwrap().join("lib.rs");
    let lib_path = lib_file.display().to_string();
    let read = common::run(&ctx, "read_file", json!({"path": lib_path})).await;
    assert_eq!(
        read,
        format!("     1\tpub fn library() {{}}\n{lib_path} · lines 1-1 of 1")
    );
    let edit = common::run(
        &ctx,
        "edit",
        json!({"path": lib_path, "old_string": "library", "new_string": "x", "apply": true}),
    )
    .await;
    assert!(
        edit.starts_with(&format!(
            "error[read-only]: {lib_path} is in a read-only library root"
        )),
        "{edit}"
    );
    assert_eq!(
        std::fs::read_to_string(&lib_file).unwrap(),
        "pub fn library() {}\n"
    );
}
