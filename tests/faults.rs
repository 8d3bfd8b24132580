//! What real servers rarely do, provoked by a fake one (examples/fake_lsp.rs):
//! crashes, hangs, garbage, wrong answers, unknown methods, death during
//! initialize, a flood of stderr. sextant answers each with a clear error,
//! stays up, and recovers.

mod common;

use common::fake_server;

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use sextant::context::Context;
use sextant::error::ToolError;
use sextant::lsp::Need;
use sextant::lsp::symbols::document_symbols;

struct Workspace {
    dir: tempfile::TempDir,
    ctx: Arc<Context>,
}

impl Workspace {
    fn file(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap().join("main.fake")
    }

    /// documentSymbol through the supervisor, as a tool would make it.
    async fn symbols(&self) -> Result<String, String> {
        let session = self
            .ctx
            .lsp
            .open(&self.file(), Need::DOCUMENT)
            .await
            .map_err(|e| ToolError::from(e).to_string())?;
        let symbols = document_symbols(&session)
            .await
            .map_err(|e| ToolError::from(e).to_string())?;
        Ok(symbols
            .iter()
            .map(|s| {
                format!(
                    "@{} {} - {}",
                    s.selection_range.start,
                    s.kind.name(),
                    s.name
                )
            })
            .collect::<Vec<_>>()
            .join("\n"))
    }

    async fn logs(&self, args: serde_json::Value) -> String {
        common::run(&self.ctx, "logs", args).await
    }

    /// Waits up to 2.5 s for the log lines that contain `filter` to hold
    /// `text`; false if they never do.
    async fn wait_for_log(&self, filter: &str, text: &str) -> bool {
        for _ in 0..50 {
            if self.logs(json!({"contains": filter})).await.contains(text) {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        false
    }
}

fn workspace(mode: &str, request_timeout: f64) -> Workspace {
    workspace_with(mode, request_timeout, 5.0)
}

fn workspace_with(mode: &str, request_timeout: f64, ready_timeout: f64) -> Workspace {
    workspace_keys(
        mode,
        &format!("request_timeout = {request_timeout}\nready_timeout = {ready_timeout}\n"),
    )
}

/// A workspace of one `main.fake` whose language runs the fake server in
/// `mode`, with `keys` added to the language's table.
fn workspace_keys(mode: &str, keys: &str) -> Workspace {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    std::fs::write(dir.path().join("main.fake"), "fn fake() {}\n").unwrap();
    std::fs::write(
        dir.path().join("sextant.toml"),
        format!(
            "auto_install = false\n[language.fake]\ncommand = {:?}\nargs = [{mode:?}, {:?}]\nextensions = [\"fake\"]\n\
             {keys}settings = {{ fake = {{ answer = 42 }} }}\n",
            fake_server().display().to_string(),
            state.display().to_string()
        ),
    )
    .unwrap();
    Workspace {
        ctx: common::context(dir.path(), false),
        dir,
    }
}

const FAKE_SYMBOL: &str = "@1:4 Function - fake";

#[tokio::test]
async fn a_crash_mid_request_fails_that_request_and_the_next_one_restarts() {
    let w = workspace("crash-once", 10.0);
    let err = w.symbols().await.unwrap_err();
    assert!(err.starts_with("error[server-failed]: fake_lsp crashed: the connection closed during textDocument/documentSymbol"), "{err}");
    assert_eq!(w.symbols().await.unwrap(), FAKE_SYMBOL);
    let logs = w.logs(json!({})).await;
    assert!(
        logs.contains("fake_lsp (fake): ready, restarted 1 time"),
        "{logs}"
    );
    assert!(
        logs.contains("fake_lsp  fake: crashing on purpose"),
        "{logs}"
    );
    assert!(logs.contains("crashed (exit code 3); restarting"), "{logs}");
}

#[tokio::test]
async fn a_request_that_never_answers_times_out_and_is_cancelled() {
    let w = workspace("hang", 1.0);
    let err = w.symbols().await.unwrap_err();
    assert_eq!(
        err,
        "error[server-timeout]: fake_lsp did not answer textDocument/documentSymbol within 1 s; the request was cancelled. Retry, or raise request_timeout in sextant.toml"
    );
    // Request 0 was initialize; the documentSymbol was request 1.
    assert!(
        w.wait_for_log("cancelled request", "fake: cancelled request 1")
            .await,
        "no $/cancelRequest for request 1 reached the server:\n{}",
        w.logs(json!({})).await
    );
}

#[tokio::test]
async fn garbage_on_stdout_breaks_the_connection_and_the_server_restarts() {
    let w = workspace("garbage-once", 10.0);
    let err = w.symbols().await.unwrap_err();
    assert!(err.starts_with("error[server-failed]: fake_lsp crashed: the connection closed during textDocument/documentSymbol"), "{err}");
    assert_eq!(w.symbols().await.unwrap(), FAKE_SYMBOL);
}

#[tokio::test]
async fn a_wrong_answer_is_an_error_for_that_request_only() {
    let w = workspace("wrong-answer", 10.0);
    let err = w.symbols().await.unwrap_err();
    assert!(err.starts_with("error[server-error]: fake_lsp answered textDocument/documentSymbol with an error (0): unusable answer: deserialization failed"), "{err}");
    let client = w.ctx.lsp.client_for(&w.file()).await.unwrap();
    assert!(
        client.is_alive(),
        "a bad answer does not cost the connection"
    );
}

#[tokio::test]
async fn unknown_requests_and_notifications_are_answered_and_logged() {
    let w = workspace("chatty", 10.0);
    assert_eq!(w.symbols().await.unwrap(), FAKE_SYMBOL);
    assert_eq!(
        w.symbols().await.unwrap(),
        FAKE_SYMBOL,
        "the connection survives"
    );
    let logs = w.logs(json!({"level": "debug", "server": "fake"})).await;
    assert!(
        logs.contains("answered unknown request fake/unknownRequest with MethodNotFound"),
        "{logs}"
    );
    assert!(
        logs.contains("ignored notification fake/unknownNotification"),
        "{logs}"
    );
    assert!(
        logs.contains("malformed $/progress notification ignored"),
        "{logs}"
    );
    // The server logs our answer to its workspace/configuration request
    // when it reads it, after its own answer to us: wait for the line.
    assert!(
        w.wait_for_log("configuration", "fake: configuration = [42,null]")
            .await,
        "no answer to workspace/configuration:\n{}",
        w.logs(json!({"contains": "fake:", "tail": 100})).await
    );
}

#[tokio::test]
async fn a_request_waits_for_indexing_and_reports_it() {
    let w = workspace("indexing", 10.0);
    let reports = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink: sextant::progress::Sink = {
        let reports = Arc::clone(&reports);
        Arc::new(move |message: &str, _| reports.lock().unwrap().push(message.to_string()))
    };
    let call = common::run(&w.ctx, "diagnostics", json!({"file": "main.fake"}));
    let answer = sextant::progress::with_sink(sink, call).await;
    assert_eq!(answer, "No errors or warnings in main.fake");
    let reports = reports.lock().unwrap().clone();
    assert!(
        reports.contains(&"fake_lsp: Indexing 50%".to_string()),
        "{reports:?}"
    );
}

/// A server that reports its status (rust-analyzer) but is slow to say
/// anything, as on a loaded machine: its silence is not readiness, so the
/// first answer is not the empty one of a workspace not yet loaded.
#[tokio::test]
async fn a_server_that_reports_its_status_is_ready_only_once_it_says_so() {
    let w = workspace_keys("silent-start", "reports_status = true\n");
    assert_eq!(w.symbols().await.unwrap(), FAKE_SYMBOL);
}

/// A server that finds not even the declaration asked about has not
/// loaded the file: "No references" alone would be a wrong answer.
#[tokio::test]
async fn no_references_at_all_says_the_server_may_not_have_loaded_the_file() {
    let w = workspace("unloaded", 10.0);
    let answer = common::run(
        &w.ctx,
        "references",
        json!({"file": "main.fake", "symbol": "fake"}),
    )
    .await;
    assert_eq!(
        answer,
        "references fake (Function) at main.fake:1:4\nNo references to fake\nNote: fake_lsp gave not even the declaration: it has not loaded this file's project yet (retry in a moment; see `logs`), or does not track `fake` there as a symbol"
    );
}

#[tokio::test]
async fn an_index_that_never_finishes_gives_an_answer_that_says_so() {
    let w = workspace_with("indexing-forever", 10.0, 1.0);
    let answer = common::run(&w.ctx, "diagnostics", json!({"file": "main.fake"})).await;
    assert_eq!(
        answer,
        "No errors or warnings in main.fake\nNote: fake_lsp was still indexing; diagnostics may be incomplete"
    );
    // The navigation tools too answer with what the server has, and say so.
    let answer = common::run(
        &w.ctx,
        "references",
        json!({"file": "main.fake", "symbol": "fake"}),
    )
    .await;
    assert_eq!(
        answer,
        "references fake (Function) at main.fake:1:4\nFound 1 reference to fake across 1 file\nNote: fake_lsp is still indexing; references may be missing\n\n=== next block ===\n\nmain.fake (1 reference)\n  @1:4: `fn fake() {}`"
    );
    let logs = w.logs(json!({"tail": 0})).await;
    assert!(
        logs.contains("fake_lsp (fake): indexing 50% (Indexing)"),
        "{logs}"
    );
}

#[tokio::test]
async fn a_server_that_dies_in_initialize_is_reported_with_its_last_words() {
    let w = workspace("die-in-initialize", 10.0);
    let err = w.symbols().await.unwrap_err();
    assert_eq!(
        err,
        "error[server-failed]: fake_lsp failed to start: it exited during initialize (exit code 1); its last output: fake: cannot initialize, giving up"
    );
    let logs = w.logs(json!({"tail": 0})).await;
    assert!(
        logs.contains("fake_lsp (fake): failed: fake_lsp failed to start"),
        "{logs}"
    );
}

#[tokio::test]
async fn a_flood_of_stderr_costs_only_old_log_lines() {
    let w = workspace("flood-stderr", 10.0);
    assert_eq!(w.symbols().await.unwrap(), FAKE_SYMBOL);
    let logs = w
        .logs(json!({"server": "fake", "contains": "noisy line 49999"}))
        .await;
    assert!(logs.contains("fake_lsp  fake: noisy line 49999"), "{logs}");
}

#[tokio::test]
async fn a_missing_server_says_what_to_install() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
    std::fs::write(
        dir.path().join("sextant.toml"),
        "[language.python]\ncommand = \"sextant-no-such-server\"\nextensions = [\"py\"]\n",
    )
    .unwrap();
    let ctx = common::context(dir.path(), false);
    let out = common::run(&ctx, "diagnostics", json!({"file": "a.py"})).await;
    assert_eq!(
        out,
        "error[server-missing]: sextant-no-such-server is not installed; install `sextant-no-such-server` and put it on PATH, or set `command` for [language.python] in sextant.toml"
    );
    let logs = common::run(&ctx, "logs", json!({"server": "python"})).await;
    assert!(
        logs.contains("sextant-no-such-server (python): missing: install `sextant-no-such-server`"),
        "{logs}"
    );
    // The whole workspace, with no server for any of its files: the same
    // error, not "no errors in 0 files".
    assert_eq!(common::run(&ctx, "diagnostics", json!({})).await, out);
}

/// A server that fails on one file costs that file in a workspace report,
/// not the report: the other files are checked, and a note says which
/// failed and why.
#[tokio::test]
async fn one_file_failing_leaves_the_workspace_report() {
    let w = workspace("diagnostic-error", 5.0);
    std::fs::write(w.dir.path().join("bad.fake"), "fn bad() {}\n").unwrap();
    assert_eq!(
        common::run(&w.ctx, "diagnostics", json!({})).await,
        "No errors or warnings in 1 file\nNote: bad.fake: fake_lsp answered textDocument/diagnostic with an error (-32603): fake: cannot check this file"
    );
}

/// A server that cancels a file's answer whenever other documents are
/// open (ty cancels every answer in flight when one opens): a workspace
/// report, which opens files several at a time, asks those files again
/// alone, so every file is checked and none is left to a note.
#[tokio::test]
async fn answers_cancelled_while_others_open_are_asked_again_alone() {
    let w = workspace("cancels-while-open", 5.0);
    for i in 0..11 {
        std::fs::write(w.dir.path().join(format!("m{i}.fake")), "fn m() {}\n").unwrap();
    }
    let report = common::run(&w.ctx, "diagnostics", json!({})).await;
    assert!(
        report.starts_with("12 warnings in 12 files (12 checked)\n"),
        "{report}"
    );
    assert!(!report.contains("Note:"), "{report}");
}

/// A server that dies before publishing anything for a file: the answer
/// says it crashed, never that the file is clean; the next call restarts it.
#[tokio::test]
async fn a_crash_before_diagnostics_is_not_a_clean_file() {
    let w = workspace("crash-on-open-once", 5.0);
    let first = common::run(&w.ctx, "diagnostics", json!({"file": "main.fake"})).await;
    assert!(
        first.starts_with("error[server-failed]: fake_lsp crashed: exit code 5"),
        "{first}"
    );
    assert_eq!(
        common::run(&w.ctx, "diagnostics", json!({"file": "main.fake"})).await,
        "No errors or warnings in main.fake"
    );
}

/// A server that crashes on every request is restarted with backoff until
/// the restart budget is spent; then it stays down (every call says so,
/// none starts it again) and `logs` shows why.
#[tokio::test]
async fn a_server_that_keeps_crashing_stays_down_after_its_budget() {
    let w = workspace("crash-always", 5.0);
    for _ in 0..6 {
        let err = w.symbols().await.unwrap_err();
        assert!(
            err.starts_with("error[server-failed]: fake_lsp crashed"),
            "{err}"
        );
    }
    let gave_up = "error[server-failed]: fake_lsp crashed 5 times in the last 10 minutes and is not restarted for now: exit code 4 (see `logs`)";
    assert_eq!(w.symbols().await.unwrap_err(), gave_up);
    // A start is a debug line.
    let starts = |logs: &str| logs.matches("starting ").count();
    let before = starts(&w.logs(json!({"tail": 200, "level": "debug"})).await);
    assert!(before > 0, "the starts are in the log");
    assert_eq!(w.symbols().await.unwrap_err(), gave_up);
    let logs = w.logs(json!({"tail": 200, "level": "debug"})).await;
    assert_eq!(starts(&logs), before, "no new start:\n{logs}");
    assert!(
        logs.contains(
            "fake_lsp (fake): crashed (exit code 4); not restarted for now, restarted 5 times"
        ),
        "{logs}"
    );
}

/// Servers written in Go reject `null` where the protocol says "optional":
/// nothing sextant sends (requests, notifications, answers to the server's
/// own requests, errors included) holds an object member set to `null`.
/// The fake server records every message it receives; the session below
/// makes sextant send each kind it can.
#[tokio::test]
async fn nothing_sent_to_a_server_holds_a_null_member() {
    let w = workspace("strict", 1.0);
    let root = w.dir.path().canonicalize().unwrap();
    // initialize, initialized, didChangeConfiguration, didOpen, documentSymbol,
    // and the answers to every request the fake sends after `initialized`.
    assert_eq!(w.symbols().await.unwrap(), FAKE_SYMBOL);
    // textDocument/diagnostic.
    assert_eq!(
        common::run(&w.ctx, "diagnostics", json!({"file": "main.fake"})).await,
        "No errors or warnings in main.fake"
    );
    // didChange and didSave: the open file changed on disk.
    std::fs::write(root.join("main.fake"), "fn fake() { 1 }\n").unwrap();
    assert_eq!(w.symbols().await.unwrap(), FAKE_SYMBOL);
    // didChangeWatchedFiles: a file it watches appears on disk, and the
    // server hears of it (the watcher hands changes out on its own, after a
    // short pause).
    std::fs::write(root.join("other.fake"), "fn other() {}\n").unwrap();
    let received = root.join("state/received.jsonl");
    common::wait_for(
        "the server hears of other.fake (workspace/didChangeWatchedFiles)",
        || std::future::ready(std::fs::read_to_string(&received).unwrap_or_default()),
        |messages| {
            messages.lines().any(|message| {
                message.contains("workspace/didChangeWatchedFiles")
                    && message.contains("other.fake")
            })
        },
    )
    .await;
    assert_eq!(w.symbols().await.unwrap(), FAKE_SYMBOL);
    // didClose: an open file is deleted.
    std::fs::remove_file(root.join("main.fake")).unwrap();
    assert!(w.symbols().await.is_err());
    // $/cancelRequest: a request that times out.
    std::fs::write(root.join("slow.fake"), "fn slow() {}\n").unwrap();
    let session = w
        .ctx
        .lsp
        .open(&root.join("slow.fake"), Need::DOCUMENT)
        .await
        .unwrap();
    let err = document_symbols(&session).await.unwrap_err().to_string();
    assert!(err.contains("did not answer"), "{err}");
    // shutdown and exit.
    w.ctx.lsp.shutdown(std::time::Duration::from_secs(2)).await;

    let received = std::fs::read_to_string(root.join("state/received.jsonl")).unwrap();
    let messages: Vec<serde_json::Value> = received
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let methods: Vec<&str> = messages
        .iter()
        .filter_map(|m| m.get("method").and_then(|m| m.as_str()))
        .collect();
    for expected in [
        "initialize",
        "initialized",
        "workspace/didChangeConfiguration",
        "textDocument/didOpen",
        "textDocument/documentSymbol",
        "textDocument/diagnostic",
        "textDocument/didChange",
        "textDocument/didSave",
        "workspace/didChangeWatchedFiles",
        "textDocument/didClose",
        "$/cancelRequest",
        "shutdown",
        "exit",
    ] {
        assert!(methods.contains(&expected), "no {expected} in {methods:?}");
    }
    let answered: Vec<i64> = messages
        .iter()
        .filter(|m| m.get("method").is_none())
        .filter_map(|m| m.get("id").and_then(|id| id.as_i64()))
        .collect();
    for id in 9101..=9109 {
        assert!(
            answered.contains(&id),
            "request {id} of the fake was not answered: {answered:?}"
        );
    }
    let errors = messages.iter().filter(|m| m.get("error").is_some()).count();
    assert_eq!(errors, 2, "the unknown request and the malformed one");

    let mut nulls = Vec::new();
    for message in &messages {
        let mut members = Vec::new();
        null_members(message, "", &mut members);
        // A response's `result` is required, and `null` for a request
        // that returns nothing.
        members.retain(|path| path != "/result");
        if !members.is_empty() {
            nulls.push(format!("{members:?} in {message}"));
        }
    }
    assert!(nulls.is_empty(), "null members sent:\n{}", nulls.join("\n"));
}

/// Paths of the object members set to `null` under `value`.
fn null_members(value: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, member) in map {
                let path = format!("{path}/{key}");
                if member.is_null() {
                    out.push(path);
                } else {
                    null_members(member, &path, out);
                }
            }
        }
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                null_members(item, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Every request the tools make of a server, the call that makes it, and a
/// line of that call's answer when the server answers.
fn request_kinds() -> Vec<(&'static str, &'static str, serde_json::Value, &'static str)> {
    let symbol = json!({"file": "main.fake", "symbol": "fake"});
    vec![
        (
            "textDocument/documentSymbol",
            "read",
            json!({"file": "main.fake"}),
            "@1:4 Function - fake",
        ),
        ("textDocument/hover", "inspect", symbol.clone(), "fn fake()"),
        (
            "textDocument/definition",
            "inspect",
            symbol.clone(),
            "Definition: main.fake:1:4 `fn fake() {}`",
        ),
        (
            "textDocument/typeDefinition",
            "inspect",
            symbol.clone(),
            "Definition: main.fake:1:4",
        ),
        (
            "textDocument/implementation",
            "inspect",
            symbol.clone(),
            "Definition: main.fake:1:4",
        ),
        (
            "textDocument/references",
            "references",
            symbol.clone(),
            "@1:4: `fn fake() {}`",
        ),
        (
            "textDocument/prepareCallHierarchy",
            "call_hierarchy",
            symbol.clone(),
            "Incoming calls: none",
        ),
        (
            "callHierarchy/incomingCalls",
            "call_hierarchy",
            symbol.clone(),
            "Incoming calls: none",
        ),
        (
            "callHierarchy/outgoingCalls",
            "call_hierarchy",
            symbol.clone(),
            "Outgoing calls: none",
        ),
        (
            "textDocument/completion",
            "completion",
            json!({"file": "main.fake", "line": 1, "character": 4}),
            "fake - fn fake()",
        ),
        (
            "completionItem/resolve",
            "completion",
            json!({"file": "main.fake", "line": 1, "character": 4}),
            "fake - fn fake()",
        ),
        (
            "textDocument/prepareRename",
            "rename",
            json!({"file": "main.fake", "symbol": "fake", "new_name": "other"}),
            "Rename 'fake' -> 'other': 1 change across 1 file",
        ),
        (
            "textDocument/rename",
            "rename",
            json!({"file": "main.fake", "symbol": "fake", "new_name": "other"}),
            "Rename 'fake' -> 'other': 1 change across 1 file",
        ),
        (
            "workspace/symbol",
            "search",
            json!({"query": "fake"}),
            "@1:4 Function - fake",
        ),
    ]
}

/// A server killed (SIGKILL) in the middle of each kind of request: that
/// call fails, or answers what it has with a note, saying the server
/// crashed; the next call restarts it and answers in full; `logs` tells
/// what happened.
#[tokio::test]
async fn a_server_killed_during_any_request_fails_that_call_and_the_next_one_restarts() {
    for (method, tool, args, answered) in request_kinds() {
        let w = workspace(&format!("kill-during:{method}"), 10.0);
        let first = common::run(&w.ctx, tool, args.clone()).await;
        assert!(
            first.contains("fake_lsp crashed: the connection closed during"),
            "{method}: {first}"
        );
        assert!(
            !first.contains("finds no definition"),
            "{method}: a failed request reported as an answer: {first}"
        );
        let second = common::run(&w.ctx, tool, args).await;
        assert!(
            second.contains(answered),
            "{method}, after the restart: {second}"
        );
        assert!(
            !second.contains("Note:"),
            "{method}, after the restart: {second}"
        );
        let logs = w.logs(json!({})).await;
        assert!(
            logs.contains(&format!("fake: killed during {method}")),
            "{method}: {logs}"
        );
        assert!(logs.contains("killed by signal 9"), "{method}: {logs}");
        assert!(logs.contains("ready, restarted 1 time"), "{method}: {logs}");
    }
}

/// A server that never answers one kind of request: each call that needs
/// it says so after request_timeout (or answers what it has, with a note),
/// and the server keeps answering every other request meanwhile.
#[tokio::test]
async fn a_server_hanging_on_any_request_times_out_that_call_only() {
    let kinds = request_kinds();
    let asks = kinds.into_iter().map(|(method, tool, args, _)| async move {
        let w = workspace(&format!("hang-on:{method}"), 1.0);
        let hung = common::run(&w.ctx, tool, args).await;
        let expected =
            format!("fake_lsp did not answer {method} within 1 s; the request was cancelled");
        assert!(hung.contains(&expected), "{method}: {hung}");
        if method != "textDocument/documentSymbol" {
            assert_eq!(w.symbols().await.unwrap(), FAKE_SYMBOL, "{method}");
        }
    });
    futures::future::join_all(asks).await;
}

/// The messages the fake server in `w` received, once it is shut down.
async fn received_messages(w: &Workspace) -> Vec<serde_json::Value> {
    w.ctx.lsp.shutdown(std::time::Duration::from_secs(2)).await;
    let received = std::fs::read_to_string(w.dir.path().join("state/received.jsonl")).unwrap();
    received
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// Where `method` first is among `messages`.
fn first_of(messages: &[serde_json::Value], method: &str) -> usize {
    messages
        .iter()
        .position(|m| m["method"] == method)
        .unwrap_or_else(|| panic!("no {method} reached the server: {messages:?}"))
}

/// Whether a `$/cancelRequest` for the request at `at` is among `messages`.
fn cancelled(messages: &[serde_json::Value], at: usize) -> bool {
    messages
        .iter()
        .any(|m| m["method"] == "$/cancelRequest" && m["params"]["id"] == messages[at]["id"])
}

/// A rename asks for its preparation and for the rename at once, the
/// preparation first: the rename is not held back behind the
/// preparation's answer. Where the preparation is never answered, the
/// call says so (whatever the rename's answer), and the preparation is
/// cancelled.
#[tokio::test]
async fn a_rename_is_asked_beside_its_preparation() {
    let w = workspace("hang-on:textDocument/prepareRename", 1.0);
    let args = json!({"file": "main.fake", "symbol": "fake", "new_name": "other"});
    let hung = common::run(&w.ctx, "rename", args).await;
    assert!(
        hung.contains("fake_lsp did not answer textDocument/prepareRename within 1 s"),
        "{hung}"
    );
    let messages = received_messages(&w).await;
    let prepare = first_of(&messages, "textDocument/prepareRename");
    let rename = first_of(&messages, "textDocument/rename");
    assert!(prepare < rename, "{messages:?}");
    assert!(cancelled(&messages, prepare), "{messages:?}");
}

/// A preparation that refuses is answered at once, without waiting on
/// the rename asked beside it, which is cancelled.
#[tokio::test]
async fn a_refused_preparation_cancels_the_rename_beside_it() {
    let w = workspace("refuse-rename", 10.0);
    let args = json!({"file": "main.fake", "symbol": "fake", "new_name": "other"});
    let refused = common::run(&w.ctx, "rename", args).await;
    assert!(
        refused.contains("fake_lsp will not rename `fake`")
            && refused.contains("it is not a symbol it can rename"),
        "{refused}"
    );
    let messages = received_messages(&w).await;
    let rename = first_of(&messages, "textDocument/rename");
    assert!(cancelled(&messages, rename), "{messages:?}");
}

/// A server that writes 20,000 log messages to stdout before each answer:
/// every tool still answers in full, and the messages reach `logs`, the
/// long ones whole.
#[tokio::test]
async fn a_flood_on_stdout_delays_no_answer_and_reaches_the_logs() {
    let w = workspace("flood-stdout", 10.0);
    for (method, tool, args, answered) in request_kinds() {
        let answer = common::run(&w.ctx, tool, args).await;
        assert!(answer.contains(answered), "{method}: {answer}");
        assert!(!answer.contains("Note:"), "{method}: {answer}");
    }
    assert!(
        w.wait_for_log(
            "chatter 19999",
            &format!(
                "fake: chatter 19999 before workspace/symbol{}",
                ".".repeat(1100)
            )
        )
        .await,
        "{}",
        w.logs(json!({"contains": "chatter"})).await
    );
}

/// A server that declares each feature `false` (or leaves it out where it
/// has no `false` form) gets no request for it: each tool that needs one
/// answers `unsupported` naming the feature, search falls back on
/// tree-sitter saying why, and diagnostics wait for publications instead
/// of pulling.
#[tokio::test]
async fn a_server_declining_every_feature_gets_no_request_for_any() {
    let w = workspace("declines", 10.0);
    let at = json!({"file": "main.fake", "line": 1, "character": 4});
    let with = |extra: serde_json::Value| {
        let mut args = at.clone();
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        args
    };
    for (tool, args, what) in [
        ("read", json!({"file": "main.fake"}), "document symbols"),
        ("inspect", at.clone(), "hover"),
        ("references", at.clone(), "find references"),
        ("call_hierarchy", at.clone(), "call hierarchy"),
        ("completion", at.clone(), "completion"),
        ("rename", with(json!({"new_name": "other"})), "rename"),
    ] {
        let answer = common::run(&w.ctx, tool, args).await;
        assert!(
            answer.starts_with(&format!(
                "error[unsupported]: fake_lsp does not support {what}"
            )),
            "{tool}: {answer}"
        );
    }
    let search = common::run(&w.ctx, "search", json!({"query": "fake"})).await;
    assert!(
        search.contains(
            "fake_lsp does not support workspace symbols; fake results are from tree-sitter"
        ),
        "{search}"
    );
    assert_eq!(
        common::run(&w.ctx, "diagnostics", json!({"file": "main.fake"})).await,
        "No errors or warnings in main.fake"
    );
    w.ctx.lsp.shutdown(std::time::Duration::from_secs(2)).await;
    let received = std::fs::read_to_string(w.dir.path().join("state/received.jsonl")).unwrap();
    let methods: Vec<String> = received
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|message| Some(message.get("method")?.as_str()?.to_string()))
        .collect();
    for method in [
        "textDocument/documentSymbol",
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/typeDefinition",
        "textDocument/implementation",
        "textDocument/references",
        "textDocument/prepareCallHierarchy",
        "textDocument/completion",
        "textDocument/prepareRename",
        "textDocument/rename",
        "workspace/symbol",
        "textDocument/diagnostic",
    ] {
        assert!(
            !methods.iter().any(|m| m == method),
            "{method} was sent to a server that declined it: {methods:?}"
        );
    }
    assert!(
        methods.iter().any(|m| m == "textDocument/didOpen"),
        "{methods:?}"
    );
}

/// Searches while a server is indexing: the first waits for it (up to
/// search's bound) and leaves a task waiting for it; the nine after do
/// not wait for it at all, each answering from tree-sitter and saying why.
#[tokio::test]
async fn searches_while_a_server_indexes_do_not_wait_for_it_again() {
    let w = workspace_with("indexing-forever", 10.0, 30.0);
    for i in 0..10 {
        let answer = common::run(&w.ctx, "search", json!({"query": "fake"})).await;
        assert!(
            answer.contains("Note: fake_lsp is still starting; fake results are from tree-sitter"),
            "search {i}: {answer}"
        );
    }
    let skipped = w
        .logs(json!({"level": "debug", "contains": "not waited for", "tail": 20}))
        .await;
    assert_eq!(
        skipped
            .matches("not waited for: a task already waits for it to be ready")
            .count(),
        9,
        "{skipped}"
    );
}

/// A server that crashes opening one file of a workspace sweep: the files
/// whose answers the crash lost are asked again after the restart, so the
/// report covers every file, and the crash is in the logs.
#[tokio::test]
async fn a_crash_during_a_workspace_sweep_leaves_no_file_unchecked() {
    let w = workspace("crash-on-open-of:c.fake", 10.0);
    for name in ["a", "b", "c", "d"] {
        std::fs::write(w.dir.path().join(format!("{name}.fake")), "fn x() {}\n").unwrap();
    }
    let report = common::run(&w.ctx, "diagnostics", json!({})).await;
    assert_eq!(report, "No errors or warnings in 5 files", "{report}");
    let logs = w.logs(json!({"level": "error"})).await;
    assert!(logs.contains("crashed (exit code 6)"), "{logs}");
}

/// A server whose answers wait for the project (typescript-language-server,
/// `tsserver_requests`) that never shows it has loaded it: after the wait,
/// answers say they may come from the file alone, and a rename with
/// `apply: true` writes nothing.
#[tokio::test]
async fn answers_before_the_project_loaded_say_so_and_a_rename_writes_nothing() {
    let w = workspace("unpublished", 30.0);
    unloaded_answers(
        &w,
        "tsserver_requests = true\n",
        "fake_lsp had not loaded the project within 10 s; references may come from this file alone. Retry in a moment",
        "fake_lsp had not loaded the project within 10 s; the uses renamed may come from this file alone. Retry in a moment",
    )
    .await;
}

/// The session's own project loads, another never does (the server never
/// publishes for its file): references say the others may be missing, a
/// rename with `apply: true` writes nothing.
#[tokio::test]
async fn answers_before_every_project_loaded_say_so_and_a_rename_writes_nothing() {
    let w = workspace("unpublished-for:never.fake", 30.0);
    for folder in ["", "other/"] {
        std::fs::create_dir_all(w.dir.path().join(folder)).unwrap();
        std::fs::write(w.dir.path().join(format!("{folder}fake.project")), "").unwrap();
    }
    std::fs::write(w.dir.path().join("other/never.fake"), "fn never() {}\n").unwrap();
    unloaded_answers(
        &w,
        "tsserver_requests = true\nproject_files = [\"fake.project\"]\n",
        "fake_lsp has not loaded every project yet; references in the others may be missing. Retry in a moment",
        "fake_lsp has not loaded every project yet; the uses renamed in the others may be missing. Retry in a moment",
    )
    .await;
}

/// References and an applied rename of `fake`, at once, with `config`
/// added to `w`'s configuration: the references carry `note` beside the
/// file's own reference, the rename is refused with `refusal` and the file
/// is as it was.
async fn unloaded_answers(w: &Workspace, config: &str, note: &str, refusal: &str) {
    let path = w.dir.path().join("sextant.toml");
    let toml = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{toml}{config}")).unwrap();
    let ctx = common::context(w.dir.path(), false);
    let symbol = json!({"file": "main.fake", "symbol": "fake"});
    let rename = json!({"file": "main.fake", "symbol": "fake", "new_name": "other", "apply": true});
    let (references, renamed) = tokio::join!(
        common::run(&ctx, "references", symbol),
        common::run(&ctx, "rename", rename),
    );
    assert!(
        references.contains(&format!("Note: {note}")),
        "{references}"
    );
    assert!(references.contains("@1:4: `fn fake() {}`"), "{references}");
    assert_eq!(
        renamed,
        format!("error[server-timeout]: nothing was written: {refusal}")
    );
    assert_eq!(std::fs::read_to_string(w.file()).unwrap(), "fn fake() {}\n");
}

/// A checker that publishes a file's results in parts, the last lacking an
/// item the first had (rust-analyzer with `--all-targets`: cargo reports a
/// warning once for both targets, and the second target's part replaces
/// the first's): the answer holds everything the check published.
#[tokio::test]
async fn a_check_published_in_parts_is_answered_whole() {
    let w = workspace_keys("checks-in-parts", "checks_on_save = true\n");
    let answer = common::run(&w.ctx, "diagnostics", json!({"file": "main.fake"})).await;
    assert_eq!(
        answer,
        "1 error, 1 warning in 1 file\n\n=== next block ===\n\nmain.fake (1 error, 1 warning)\n  \
         ✘ @1:1 [Error][E0001] an error (fake-check)\n  ⚠ @1:1 [Warning][W0001] a warning (fake-check)"
    );
}

/// `logs` asked nothing in particular answers "what is wrong": the
/// servers' states, the last errors however many calls came after, the
/// recent calls, and none of a chatty server's own messages (20,000 here),
/// which a filter or `level: "debug"` shows; within 1.5 KB.
#[tokio::test]
async fn logs_asking_nothing_in_particular_answer_what_is_wrong() {
    let w = workspace("flood-stdout", 10.0);
    // The server started by a call that waits for it: search, with its
    // deadline, would answer from tree-sitter while a loaded machine
    // still starts it.
    common::run(&w.ctx, "diagnostics", json!({"file": "main.fake"})).await;
    let answer = common::run(&w.ctx, "search", json!({"query": "fake"})).await;
    assert!(!answer.contains("Note:"), "{answer}");
    w.ctx.logs.record(
        sextant::model::LogLevel::Error,
        "fake_lsp",
        "the index is corrupt",
    );
    for _ in 0..12 {
        common::run(&w.ctx, "find", json!({"pattern": "*.fake"})).await;
    }
    let logs = w.logs(json!({})).await;
    assert!(
        logs.contains("error fake_lsp  the index is corrupt"),
        "{logs}"
    );
    assert!(!logs.contains("chatter"), "{logs}");
    assert_eq!(logs.matches("info  tool  find").count(), 10, "{logs}");
    assert!(logs.len() <= 1500, "{} bytes:\n{logs}", logs.len());
    assert!(
        w.logs(json!({"contains": "chatter 19999"}))
            .await
            .contains("chatter 19999"),
    );
    assert!(
        w.logs(json!({"level": "debug", "tail": 1}))
            .await
            .contains("debug"),
    );
}
