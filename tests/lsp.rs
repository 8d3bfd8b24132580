//! The supervisor against the real language servers, on copies of the
//! fixtures: start, ready, document symbols, diagnostics that follow edits on
//! disk, restart after a crash, and shutdown that leaves no process.
//!
//! The servers must be installed (scripts/test.sh does it): a missing server
//! fails these tests, it never skips them.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{Fixture, agent_turn, fixture, outline_rows, process_gone, server_outline};
use insta::assert_snapshot;
use serde_json::json;
use sextant::lsp::Need;
use sextant::lsp::diagnostics::pull;

/// The server's outline of `file`: `@line:char Kind - name` lines, indented
/// by depth.
async fn symbols_of(f: &Fixture, file: &str) -> String {
    let symbols = server_outline(f, file).await;
    outline_rows(&symbols)
        .into_iter()
        .map(|(row, _)| row + "\n")
        .collect()
}

async fn wait_gone(pid: u32) {
    assert!(process_gone(pid).await, "process {pid} is still running");
}

fn write(f: &Fixture, file: &str, text: &str) {
    std::fs::write(f.path(file), text).unwrap();
}

/// Kills the server behind `file`, then checks the next request restarts it
/// with the document reopened and answers as before.
async fn crash_and_recover(f: &Fixture, file: &str, before: &str) {
    let client = f.ctx.lsp.client_for(&f.path(file)).await.unwrap();
    let pid = client.pid().unwrap();
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    wait_gone(pid).await;
    for _ in 0..100 {
        if !client.is_alive() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!client.is_alive());
    assert_eq!(
        client
            .wait_exit(Duration::from_secs(5))
            .await
            .unwrap()
            .description,
        "killed by signal 9"
    );
    let logs = f.run("logs", json!({"level": "error"})).await;
    assert!(
        logs.contains("crashed (killed by signal 9); restarts on next use"),
        "{logs}"
    );

    assert_eq!(
        symbols_of(f, file).await,
        before,
        "the restarted server answers as before"
    );
    let restarted = f.ctx.lsp.client_for(&f.path(file)).await.unwrap();
    assert_ne!(restarted.pid(), Some(pid));
    assert!(
        restarted.open_documents().await.contains(&f.path(file)),
        "documents are reopened"
    );
    // Right after the restart typescript-language-server may still be
    // reloading its project: wait for it, then the state is exact.
    assert!(restarted.wait_ready(Duration::from_secs(30)).await);
    let logs = f.run("logs", json!({"tail": 0})).await;
    assert!(logs.contains(": ready, restarted 1 time\n"), "{logs}");
}

async fn shutdown_leaves_nothing(f: &Fixture) {
    let pids: Vec<u32> = f.ctx.lsp.clients().iter().filter_map(|c| c.pid()).collect();
    assert!(!pids.is_empty());
    f.ctx.lsp.shutdown(Duration::from_secs(5)).await;
    for pid in pids {
        wait_gone(pid).await;
    }
}

/// The TypeScript golden answers and their freshness after edits on disk,
/// on whichever server `f` runs; snapshots are named `{prefix}_...`.
/// Returns the document symbols of src/shapes.ts.
async fn typescript_golden_and_fresh(f: &Fixture, prefix: &str) -> String {
    let symbols = symbols_of(f, "src/shapes.ts").await;
    assert_snapshot!(format!("{prefix}_document_symbols"), symbols);

    // Diagnostics: a clean file, a broken one, the workspace.
    assert_snapshot!(
        format!("{prefix}_diagnostics_clean"),
        f.run("diagnostics", json!({"file": "src/shapes.ts"})).await
    );
    assert_snapshot!(
        format!("{prefix}_diagnostics_broken"),
        f.run(
            "diagnostics",
            json!({"file": "src/broken.ts", "severity": "hint"})
        )
        .await
    );
    assert_snapshot!(
        format!("{prefix}_diagnostics_workspace"),
        f.run("diagnostics", json!({"severity": "error"})).await
    );

    // An edit on disk adds an error; the next call sees it; fixing it clears it.
    let original = f.read("src/index.ts");
    write(
        f,
        "src/index.ts",
        &original.replace("registry.totalArea()", "registry.totalAreaa()"),
    );
    let broken = f.run("diagnostics", json!({"file": "src/index.ts"})).await;
    assert!(broken.starts_with("1 error in 1 file"), "{broken}");
    assert!(broken.contains("Property 'totalAreaa' does not exist on type 'Registry<Shape>'. Did you mean 'totalArea'?"), "{broken}");
    write(f, "src/index.ts", &original);
    assert_eq!(
        f.run("diagnostics", json!({"file": "src/index.ts"})).await,
        "No errors or warnings in src/index.ts"
    );

    // A file the server has open changes on disk while another is asked
    // about: the server is sent the new text first, so the answer is not
    // computed from the old one.
    assert_eq!(
        f.run("diagnostics", json!({"file": "src/greeting.ts"}))
            .await,
        "No errors or warnings in src/greeting.ts"
    );
    let greeting = f.read("src/greeting.ts");
    write(
        f,
        "src/greeting.ts",
        &greeting.replace("export function greet(", "export function hello("),
    );
    agent_turn().await;
    let stale = f.run("diagnostics", json!({"file": "src/index.ts"})).await;
    assert!(
        stale.contains("[2305] Module '\"./greeting\"' has no exported member 'greet'."),
        "{stale}"
    );
    write(f, "src/greeting.ts", &greeting);
    agent_turn().await;
    assert_eq!(
        f.run("diagnostics", json!({"file": "src/index.ts"})).await,
        "No errors or warnings in src/index.ts"
    );

    // A module the server never opened is written by another tool, then
    // deleted: the server hears of both (file watching), so an import of
    // it resolves, then fails.
    let index = f.read("src/index.ts");
    write(f, "src/extra.ts", "export const extra = 1;\n");
    write(
        f,
        "src/index.ts",
        &format!("{index}\nimport {{ extra }} from \"./extra\";\nconsole.log(extra);\n"),
    );
    agent_turn().await;
    assert_eq!(
        f.run("diagnostics", json!({"file": "src/index.ts"})).await,
        "No errors or warnings in src/index.ts"
    );
    std::fs::remove_file(f.path("src/extra.ts")).unwrap();
    agent_turn().await;
    let gone = f.run("diagnostics", json!({"file": "src/index.ts"})).await;
    assert!(
        gone.contains(
            "[2307] Cannot find module './extra' or its corresponding type declarations."
        ),
        "{gone}"
    );
    write(f, "src/index.ts", &index);
    agent_turn().await;

    // An external edit between two requests: the outline follows the disk.
    let shapes = f.read("src/shapes.ts");
    write(
        f,
        "src/shapes.ts",
        &shapes.replace("export class Square", "export class Rectangle"),
    );
    let renamed = symbols_of(f, "src/shapes.ts").await;
    assert!(
        renamed.contains("Class - Rectangle") && !renamed.contains("Class - Square"),
        "{renamed}"
    );
    write(f, "src/shapes.ts", &shapes);
    symbols
}

/// The filters that mask what changes from run to run in `logs`.
fn log_filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"pid \d+; up \d+s", "pid [pid]; up [uptime]"),
        (r"\d\d:\d\d:\d\d\.\d\d\d", "[time]"),
        (r"\(\d+\.\d ms\)", "([ms])"),
        (
            r"\(\d+\.\d ms, \d+\.\d waiting on servers\)",
            "([ms], [ms] waiting on servers)",
        ),
        (r"\d+ older matching lines?", "[n] older matching lines"),
        (
            r"command: /\S+/typescript-go/node_modules/@typescript/typescript-[a-z0-9]+-[a-z0-9]+/",
            "command: [tools]/typescript-go/node_modules/@typescript/typescript-[platform]/",
        ),
    ]
}

/// The default TypeScript server (TypeScript 7's native one, sextant's own
/// install, since the fixture has no TypeScript): everything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_server_end_to_end() {
    let f = fixture("ts");
    let symbols = typescript_golden_and_fresh(&f, "ts").await;

    // logs: the servers' states, then the tool calls, volatile parts masked.
    let tool_lines = f.run("logs", json!({"server": "tool", "tail": 4})).await;
    let all_servers = f.run("logs", json!({"tail": 0})).await;
    insta::with_settings!({filters => log_filters()}, {
        assert_snapshot!("ts_logs", tool_lines);
        assert_snapshot!("ts_logs_all_servers", all_servers);
    });

    crash_and_recover(&f, "src/shapes.ts", &symbols).await;
    shutdown_leaves_nothing(&f).await;
}

/// A project that pins TypeScript 6 (the one sextant installs for
/// typescript-language-server, linked into the fixture's node_modules):
/// `auto` runs typescript-language-server with it, and the same golden
/// answers and freshness hold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_language_server_for_a_project_on_typescript_6() {
    let f = fixture("ts");
    let typescript_6 = sextant::lsp::config::default_tools_dir()
        .join("typescript-language-server/node_modules/typescript");
    assert!(
        typescript_6.join("lib/tsserver.js").is_file(),
        "{} is missing: run scripts/test.sh",
        typescript_6.display()
    );
    std::fs::create_dir(f.path("node_modules")).unwrap();
    std::os::unix::fs::symlink(&typescript_6, f.path("node_modules/typescript")).unwrap();

    let symbols = typescript_golden_and_fresh(&f, "tsls").await;
    let servers = f.run("logs", json!({"tail": 0})).await;
    insta::with_settings!({filters => log_filters()}, {
        assert_snapshot!("tsls_logs_all_servers", servers);
    });
    crash_and_recover(&f, "src/shapes.ts", &symbols).await;
    shutdown_leaves_nothing(&f).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_analyzer_end_to_end() {
    let f = fixture("rust");
    let symbols = symbols_of(&f, "src/lib.rs").await;
    assert_snapshot!("rust_document_symbols", symbols);

    assert_snapshot!(
        "rust_diagnostics_clean",
        f.run("diagnostics", json!({"file": "src/lib.rs"})).await
    );
    assert_snapshot!(
        "rust_diagnostics_broken",
        f.run("diagnostics", json!({"file": "src/broken.rs"})).await
    );
    assert_snapshot!(
        "rust_diagnostics_workspace",
        f.run("diagnostics", json!({})).await
    );

    // Fix the error on disk: it disappears (cargo check reruns); break a
    // clean file: its error appears.
    let broken = f.read("src/broken.rs");
    write(
        &f,
        "src/broken.rs",
        &broken.replace("    drop(taken);\n    text\n", "    taken\n"),
    );
    let fixed = f.run("diagnostics", json!({"file": "src/broken.rs"})).await;
    assert!(fixed.starts_with("1 warning in 1 file"), "{fixed}");
    assert!(!fixed.contains("E0382"), "{fixed}");
    let text = f.read("src/text.rs");
    write(
        &f,
        "src/text.rs",
        &text.replace("format!(\"{GREETING}, {名前} 🎉\")", "42"),
    );
    let error = f.run("diagnostics", json!({"file": "src/text.rs"})).await;
    assert!(error.contains("✘ @10:5 [Error][E0308]"), "{error}");
    write(&f, "src/text.rs", &text);
    write(&f, "src/broken.rs", &broken);

    // Files the server never opened, created and deleted on disk: it hears
    // of them (rust-analyzer leaves watching to the client), so its own
    // analysis follows. A new folder with its file written at once, then a
    // module that uses it.
    let lib = f.read("src/lib.rs");
    std::fs::create_dir(f.path("src/extra")).unwrap();
    write(
        &f,
        "src/extra/mod.rs",
        "pub fn extra() -> i64 {\n    1\n}\n",
    );
    write(
        &f,
        "src/lib.rs",
        &format!("{lib}\npub mod extra;\n\npub fn uses() -> i64 {{\n    extra::extra()\n}}\n"),
    );
    agent_turn().await;
    assert_eq!(
        f.run("diagnostics", json!({"file": "src/lib.rs"})).await,
        "No errors or warnings in src/lib.rs"
    );
    std::fs::remove_dir_all(f.path("src/extra")).unwrap();
    agent_turn().await;
    let gone = f.run("diagnostics", json!({"file": "src/lib.rs"})).await;
    assert!(
        gone.starts_with("1 error in 1 file")
            && gone.contains("[Error][E0583] file not found for module `extra`"),
        "rustc's E0583, once (rust-analyzer's report of it is dropped): {gone}"
    );
    // rust-analyzer's own analysis saw the folder go.
    let session = f
        .ctx
        .lsp
        .open(&f.path("src/lib.rs"), Need::DOCUMENT)
        .await
        .unwrap();
    let own = pull(&session).await.unwrap().unwrap_or_default();
    assert!(
        own.iter().any(|d| d
            .message
            .starts_with("unresolved module, can't find module file: extra.rs")),
        "{own:?}"
    );
    write(&f, "src/lib.rs", &lib);
    agent_turn().await;

    // Two calls at once that both need a check: each answer holds the
    // check's results (the checks are taken one at a time, so neither
    // call's didSave restarts the other's check).
    let (broken, clean) = tokio::join!(
        f.run("diagnostics", json!({"file": "src/broken.rs"})),
        f.run("diagnostics", json!({"file": "src/lib.rs"}))
    );
    assert!(
        broken.starts_with("1 error, 1 warning in 1 file") && !broken.contains("still running"),
        "{broken}"
    );
    assert_eq!(clean, "No errors or warnings in src/lib.rs");

    crash_and_recover(&f, "src/lib.rs", &symbols).await;
    shutdown_leaves_nothing(&f).await;
}

#[tokio::test]
async fn a_file_without_a_server_says_so() {
    let f = fixture("ts");
    let logs = f.run("logs", json!({"tail": 0})).await;
    assert!(
        logs.contains("\nFile watching: starts with the first language server\n"),
        "{logs}"
    );
    assert_snapshot!(f.run("diagnostics", json!({"file": "package.json"})).await, @"error[no-server]: no language server is configured for package.json; add one in sextant.toml ([language.NAME] with command and extensions)");
    assert!(Path::new(&f.path("package.json")).exists());
}

/// A server keeps at most 200 documents open: past that the least recently
/// used is closed (a server holds each open document's analysis in memory),
/// and a request about it opens it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_keeps_at_most_200_documents_open_the_least_used_closed() {
    let f = fixture("ts");
    let files: Vec<String> = (0..205).map(|i| format!("src/many/f{i:03}.ts")).collect();
    std::fs::create_dir_all(f.path("src/many")).unwrap();
    for (i, file) in files.iter().enumerate() {
        write(
            &f,
            file,
            &format!("export function f{i}(): number {{ return {i}; }}\n"),
        );
    }
    let open = async |file: &str| {
        f.ctx
            .lsp
            .open(&f.path(file), Need::DOCUMENT)
            .await
            .unwrap()
            .client()
            .open_documents()
            .await
    };
    for file in &files[..10] {
        open(file).await;
    }
    // The first is used again: the second is now the least recently used.
    open(&files[0]).await;
    let mut documents = Vec::new();
    for file in &files[10..] {
        documents = open(file).await;
    }
    assert_eq!(documents.len(), 200);
    let is_open = |documents: &[std::path::PathBuf], file: &str| documents.contains(&f.path(file));
    assert!(is_open(&documents, &files[0]));
    for closed in [&files[1], &files[2], &files[3], &files[4], &files[5]] {
        assert!(!is_open(&documents, closed), "{closed} is still open");
    }
    // Asked about again, a closed one is opened (and answered).
    let outline = symbols_of(&f, &files[1]).await;
    assert_eq!(outline, "@1:17 Function - f1\n");
    let documents = open(&files[1]).await;
    assert_eq!(documents.len(), 200);
    assert!(is_open(&documents, &files[1]) && !is_open(&documents, &files[6]));
}

/// The TypeScript fixture with its file watcher on and `src/shapes.ts`
/// asked about twice (clean): open, and the second time taken as current
/// by its stamp, or on the watcher's word.
async fn shapes_open_and_watched() -> Fixture {
    let f = fixture("ts");
    f.watch_files().await;
    for _ in 0..2 {
        assert_eq!(
            f.run("diagnostics", json!({"file": "src/shapes.ts"})).await,
            "No errors or warnings in src/shapes.ts"
        );
    }
    f
}

/// An open document whose file keeps the stamp of its last read is not
/// read again; one rewritten to the same length with its old modification
/// time put back is told by the file watcher and by its status change
/// time: the next answer is computed from the new text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_document_rewritten_with_its_stamp_kept_is_read_again() {
    let f = shapes_open_and_watched().await;
    let original = f.read("src/shapes.ts");
    let broken = original.replacen(
        "area(): number {\n    return this.side",
        "area(): string {\n    return this.side",
        1,
    );
    assert_ne!(broken, original);
    assert_eq!(broken.len(), original.len());
    f.rewrite_keeping_time("src/shapes.ts", &broken);
    agent_turn().await;
    let after = f.run("diagnostics", json!({"file": "src/shapes.ts"})).await;
    assert!(
        after.contains("errors in 1 file")
            && after.contains("Property 'area' in type 'Square' is not assignable"),
        "{after}"
    );
}

/// An open document taken as current on the file watcher's word (no
/// `stat`) is looked at again once the watcher tells of its file's
/// change: renamed over and then deleted within one batch of events, the
/// file goes out as deleted, and is not answered from its old text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_document_renamed_over_and_deleted_at_once_is_not_answered_from_its_old_text() {
    let f = shapes_open_and_watched().await;
    let staged = f.path("src/shapes.ts.new");
    std::fs::write(&staged, f.read("src/shapes.ts")).unwrap();
    std::fs::rename(&staged, f.path("src/shapes.ts")).unwrap();
    std::fs::remove_file(f.path("src/shapes.ts")).unwrap();
    agent_turn().await;
    let after = f.run("diagnostics", json!({"file": "src/shapes.ts"})).await;
    assert!(after.starts_with("error["), "{after}");
}

/// An answer large enough to be taken aside from async-lsp's decoding
/// (`lsp::aside`: a result of 16 KB or more) comes whole: a workspace
/// symbol search that finds 400 functions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_answer_comes_whole() {
    let text: String = (0..400)
        .map(|i| format!("export function manyThing{i}(): number {{\n  return {i};\n}}\n"))
        .collect();
    let f = common::fixture_with("ts", &[("src/many.ts", &text)]);
    let answer = f
        .run("search", json!({"query": "manyThing", "limit": 3}))
        .await;
    assert!(answer.contains("400 matches"), "{answer}");
}

/// `logs` shows which server each language not started would run, and
/// why. What that choice found by walking the workspace is kept between
/// calls while the file watcher runs: a config created, and a script
/// added to package.json, each change the next answer's choice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_choose_again_after_the_workspace_changes() {
    let f = fixture("commonjs");
    f.watch_files().await;
    let why = |logs: &str| {
        let typescript = logs
            .split("\n  ")
            .skip_while(|block| !block.contains("(typescript): not started"))
            .nth(2)
            .unwrap_or_else(|| panic!("{logs}"))
            .to_string();
        typescript
            .strip_prefix("  why: ")
            .unwrap_or(&typescript)
            .to_string()
    };
    let logs = f.run("logs", json!({"tail": 0})).await;
    assert!(
        why(&logs).starts_with("no tsconfig.json or jsconfig.json"),
        "{logs}"
    );
    // Asked again with nothing changed: the same choice.
    assert_eq!(why(&f.run("logs", json!({"tail": 0})).await), why(&logs));

    std::fs::write(f.path("jsconfig.json"), "{\"include\": [\"**/*.js\"]}\n").unwrap();
    agent_turn().await;
    let logs = f.run("logs", json!({"tail": 0})).await;
    assert!(
        why(&logs).starts_with("no TypeScript in the project"),
        "{logs}"
    );

    let manifest = f.read("package.json").replace(
        "\"test\": \"node test/app.test.js\"",
        "\"test\": \"node test/app.test.js\",\n    \"check\": \"tsgo -p jsconfig.json\"",
    );
    std::fs::write(f.path("package.json"), manifest).unwrap();
    agent_turn().await;
    let logs = f.run("logs", json!({"tail": 0})).await;
    assert_eq!(
        why(&logs),
        "the `check` script of package.json runs tsgo",
        "{logs}"
    );
}
