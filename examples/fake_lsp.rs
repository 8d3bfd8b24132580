//! A fake language server for sextant's fault tests: it provokes what real
//! servers rarely do. It is built with the tests (`cargo test` builds
//! examples) and never shipped.
//!
//! Usage: `fake_lsp MODE STATE_DIR`. Every mode answers `initialize`,
//! `textDocument/documentSymbol` (one Function named `fake`), `shutdown` and
//! `exit` like a real server, except:
//! - `crash-once`: exits with code 3 on its first documentSymbol.
//! - `crash-on-open-once`: exits with code 5 on its first didOpen.
//! - `crash-on-open-of:NAME`: exits with code 6 on the first didOpen of a
//!   file named NAME (as TypeScript's native preview crashed opening some
//!   files during a sweep).
//! - `crash-always`: exits with code 4 on every documentSymbol.
//! - `hang`: never answers documentSymbol; logs each `$/cancelRequest` id.
//! - `garbage-once`: answers its first documentSymbol with bytes that are
//!   not JSON-RPC.
//! - `wrong-answer`: answers documentSymbol with a result of the wrong shape.
//! - `chatty`: sends an unknown request, an unknown notification and a
//!   malformed `$/progress` before each answer, and asks for the
//!   `fake.answer` setting (`workspace/configuration`), logging the reply.
//! - `indexing`: reports work-done progress (`Indexing`, 0%, 50%) for 1.5 s
//!   after `initialized`; `indexing-forever` never ends it, and answers
//!   `textDocument/references` with the one `fake` of the document (what
//!   an indexing server has found so far).
//! - `silent-start`: says nothing for 1 s after `initialized`, answering
//!   documentSymbol with nothing meanwhile (its workspace not loaded), then
//!   sends rust-analyzer's `experimental/serverStatus` quiescent (a server
//!   that `reports_status`, slow to start on a loaded machine).
//! - `unloaded`: answers `textDocument/references` with nothing, not even
//!   the declaration asked about (a server that has not loaded the file's
//!   project).
//! - `die-in-initialize`: exits with code 1 on `initialize`.
//! - `flood-stderr`: writes 50,000 lines to stderr before answering.
//! - `diagnostic-error`: offers pull diagnostics, and answers them with an
//!   error for any file named `bad.*` (an empty report for the others).
//! - `cancels-while-open`: offers pull diagnostics, and cancels the request
//!   (ServerCancelled, -32802) while another document is open, as ty
//!   cancels every answer in flight when a document opens; alone, it
//!   reports one warning.
//!
//! - `strict`: offers pull diagnostics and save notifications; after
//!   `initialized` sends every request a server may send a client (and an
//!   unknown one, and one with malformed params), registering a watcher for
//!   `**/*.fake`; never answers documentSymbol for a file named `slow.*`.
//!
//! - `kill-during:METHOD`, `hang-on:METHOD`, `refuse-rename`,
//!   `flood-stdout`: offer and
//!   answer every request the navigation tools make (hover, definition,
//!   type definition, implementation, references, call hierarchy,
//!   completion and its resolve, prepareRename and rename, workspace
//!   symbols), each about the one function `fake`. `kill-during:METHOD`
//!   sends itself SIGKILL on its first METHOD request, any method (a
//!   marker in STATE_DIR, so the restarted server answers);
//!   `hang-on:METHOD` never answers METHOD; `refuse-rename` answers
//!   prepareRename with null (no symbol to rename there) and never
//!   answers rename; `flood-stdout` sends 20,000
//!   `window/logMessage` notifications (Info) before every answer, every
//!   thousandth padded past 1 KB with dots;
//!   `unpublished` never publishes diagnostics (the sign that
//!   typescript-language-server has loaded a document's project);
//!   `unpublished-for:NAME` publishes them for every document but those
//!   named NAME (a project that never loads).
//!
//! - `declines`: declares every feature the tools ask for as `false` (or
//!   leaves out those with no `false` form: completion, pull diagnostics),
//!   so sextant must send none of those requests.
//!
//! - `flat-outline`: answers documentSymbol with a flat `SymbolInformation`
//!   list sorted by name, as some servers do: class `Zeta` (lines 1-3),
//!   its method `alpha` (line 2), function `beta` (line 4), each located by
//!   its whole range.
//!
//! - `checks-in-parts`: checks on save like rust-analyzer's cargo check
//!   (`checks_on_save`): a didSave begins a "cargo check" progress, then
//!   publishes the saved document's results in two parts, an error and a
//!   warning, then the error alone (as rust-analyzer does for a file
//!   compiled for two targets, cargo reporting the warning once), then
//!   ends the progress.
//!
//! Every mode but `unpublished` publishes empty diagnostics for each opened
//! document, and
//! appends every message it receives, as one JSON line, to
//! STATE_DIR/received.jsonl (the strict-protocol test reads it).
//! "once" modes keep a marker in STATE_DIR, so the restarted server behaves.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;

use serde_json::{Value, json};

/// `silent-start`: the workspace has loaded (the status is being sent).
static LOADED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "normal".into());
    let state = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let stdin = std::io::stdin();
    let mut input = BufReader::new(stdin.lock());
    // Not locked for good: a `silent-start` thread writes too (each
    // message is one formatted write, so they never interleave).
    let mut out = std::io::stdout();
    if mode == "flood-stderr" {
        let mut err = std::io::stderr().lock();
        for i in 0..50_000 {
            let _ = writeln!(err, "fake: noisy line {i}");
        }
    }
    // The documents open now (`cancels-while-open`).
    let mut open_documents = 0usize;
    let mut received = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(state.join("received.jsonl"))
        .ok();
    while let Some(message) = read_message(&mut input) {
        if let Some(file) = received.as_mut() {
            let _ = writeln!(file, "{message}");
        }
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        let id = message.get("id").cloned();
        if message.get("method").is_none() {
            // A response to one of our requests.
            if message.get("id") == Some(&json!(9001)) {
                eprintln!(
                    "fake: configuration = {}",
                    message.get("result").unwrap_or(&message)
                );
            }
            continue;
        }
        if id.is_some() && mode == format!("hang-on:{method}") {
            continue;
        }
        if id.is_some() && mode == "refuse-rename" && method == "textDocument/rename" {
            continue;
        }
        if id.is_some() && mode == format!("kill-during:{method}") && first_time(&state, "killed") {
            eprintln!("fake: killed during {method}");
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        }
        if id.is_some() && mode == "flood-stdout" {
            for i in 0..20_000 {
                let padding = if i % 1000 == 999 {
                    ".".repeat(1100)
                } else {
                    String::new()
                };
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": format!("fake: chatter {i} before {method}{padding}")}}),
                );
            }
        }
        if let (Some(id), Some(answer)) = (&id, navigation_answer(&mode, method, &message, &state))
        {
            send(
                &mut out,
                &json!({"jsonrpc": "2.0", "id": id, "result": answer}),
            );
            continue;
        }
        match (method, id) {
            ("initialized", None) if mode == "strict" => {
                let watchers = json!({"watchers": [{"globPattern": "**/*.fake"}]});
                let edit = json!({"edit": {"changes": {}}});
                for (id, method, params) in [
                    (
                        9101,
                        "workspace/configuration",
                        json!({"items": [{"section": "fake"}, {"section": "fake.missing"}, {}]}),
                    ),
                    (9102, "workspace/workspaceFolders", Value::Null),
                    (
                        9103,
                        "window/workDoneProgress/create",
                        json!({"token": "fake-token"}),
                    ),
                    (
                        9104,
                        "client/registerCapability",
                        json!({"registrations": [{"id": "fake-watch", "method": "workspace/didChangeWatchedFiles", "registerOptions": watchers}]}),
                    ),
                    (
                        9105,
                        "client/unregisterCapability",
                        json!({"unregisterations": [{"id": "nothing", "method": "textDocument/hover"}]}),
                    ),
                    (9106, "workspace/applyEdit", edit),
                    (9107, "workspace/diagnostic/refresh", Value::Null),
                    (9108, "fake/unknownRequest", json!({})),
                    (
                        9109,
                        "window/workDoneProgress/create",
                        json!({"token": {"not": "a token"}}),
                    ),
                ] {
                    let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
                    if !params.is_null() {
                        request["params"] = params;
                    }
                    send(&mut out, &request);
                }
            }
            ("initialized", None) if mode == "silent-start" => {
                std::thread::spawn(|| {
                    std::thread::sleep(std::time::Duration::from_secs(1));
                    LOADED.store(true, std::sync::atomic::Ordering::SeqCst);
                    send(
                        &mut std::io::stdout(),
                        &json!({"jsonrpc": "2.0", "method": "experimental/serverStatus", "params": {"health": "ok", "quiescent": true}}),
                    );
                });
            }
            ("textDocument/documentSymbol", Some(id))
                if mode == "silent-start" && !LOADED.load(std::sync::atomic::Ordering::SeqCst) =>
            {
                send(&mut out, &json!({"jsonrpc": "2.0", "id": id, "result": []}));
            }
            ("textDocument/references", Some(id)) if mode == "unloaded" => {
                send(&mut out, &json!({"jsonrpc": "2.0", "id": id, "result": []}));
            }
            ("initialized", None) if mode.starts_with("indexing") => {
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": 9002, "method": "window/workDoneProgress/create", "params": {"token": "fake-index"}}),
                );
                let progress = |value: Value| json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "fake-index", "value": value}});
                send(
                    &mut out,
                    &progress(json!({"kind": "begin", "title": "Indexing", "percentage": 0})),
                );
                std::thread::sleep(std::time::Duration::from_millis(300));
                send(
                    &mut out,
                    &progress(json!({"kind": "report", "percentage": 50})),
                );
                if mode == "indexing" {
                    std::thread::sleep(std::time::Duration::from_millis(1200));
                    send(&mut out, &progress(json!({"kind": "end"})));
                }
            }
            ("textDocument/didClose", None) => {
                open_documents = open_documents.saturating_sub(1);
            }
            ("textDocument/diagnostic", Some(id)) if mode == "cancels-while-open" => {
                let answer = if open_documents > 1 {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32802, "message": "server cancelled the request", "data": {"retriggerRequest": true}}})
                } else {
                    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 2}});
                    json!({"jsonrpc": "2.0", "id": id, "result": {"kind": "full", "items": [
                        {"range": range, "severity": 2, "code": "fake", "message": "fake: a warning"}
                    ]}})
                };
                send(&mut out, &answer);
            }
            ("textDocument/didOpen", None) => {
                open_documents += 1;
                if mode == "crash-on-open-once" && first_time(&state, "crashed-on-open") {
                    eprintln!("fake: crashing on open");
                    std::process::exit(5);
                }
                let opened = message
                    .pointer("/params/textDocument/uri")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if let Some(name) = mode.strip_prefix("crash-on-open-of:")
                    && opened.ends_with(&format!("/{name}"))
                    && first_time(&state, &format!("crashed-on-{name}"))
                {
                    eprintln!("fake: crashing on opening {name}");
                    std::process::exit(6);
                }
                if mode == "unpublished" {
                    continue;
                }
                let uri = message
                    .pointer("/params/textDocument/uri")
                    .cloned()
                    .unwrap_or(Value::Null);
                if let (Some(name), Some(uri)) =
                    (mode.strip_prefix("unpublished-for:"), uri.as_str())
                    && uri.ends_with(&format!("/{name}"))
                {
                    continue;
                }
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {"uri": uri, "diagnostics": []}}),
                );
            }
            ("initialize", Some(id)) => {
                if mode == "die-in-initialize" {
                    eprintln!("fake: cannot initialize, giving up");
                    std::process::exit(1);
                }
                let mut capabilities = json!({
                    "textDocumentSync": 1,
                    "documentSymbolProvider": true,
                });
                if mode == "diagnostic-error" || mode == "strict" || mode == "cancels-while-open" {
                    capabilities["diagnosticProvider"] =
                        json!({"interFileDependencies": false, "workspaceDiagnostics": false});
                }
                if mode == "indexing-forever" || mode == "unloaded" {
                    capabilities["referencesProvider"] = json!(true);
                }
                if navigates(&mode) {
                    for provider in [
                        "hoverProvider",
                        "definitionProvider",
                        "typeDefinitionProvider",
                        "implementationProvider",
                        "referencesProvider",
                        "callHierarchyProvider",
                        "workspaceSymbolProvider",
                    ] {
                        capabilities[provider] = json!(true);
                    }
                    capabilities["completionProvider"] = json!({"resolveProvider": true});
                    capabilities["renameProvider"] = json!({"prepareProvider": true});
                }
                if mode == "declines" {
                    for provider in [
                        "documentSymbolProvider",
                        "hoverProvider",
                        "definitionProvider",
                        "typeDefinitionProvider",
                        "implementationProvider",
                        "referencesProvider",
                        "callHierarchyProvider",
                        "workspaceSymbolProvider",
                        "renameProvider",
                    ] {
                        capabilities[provider] = json!(false);
                    }
                }
                if mode == "strict" || mode == "checks-in-parts" {
                    capabilities["textDocumentSync"] =
                        json!({"openClose": true, "change": 1, "save": true});
                }
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": id, "result": {"capabilities": capabilities}}),
                );
            }
            ("textDocument/references", Some(id)) => {
                let uri = message
                    .pointer("/params/textDocument/uri")
                    .cloned()
                    .unwrap_or(Value::Null);
                let range = json!({"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 7}});
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": id, "result": [{"uri": uri, "range": range}]}),
                );
            }
            ("textDocument/documentSymbol", Some(id)) => {
                if mode == "chatty" {
                    send(
                        &mut out,
                        &json!({"jsonrpc": "2.0", "id": 9000, "method": "fake/unknownRequest", "params": {}}),
                    );
                    send(
                        &mut out,
                        &json!({"jsonrpc": "2.0", "method": "fake/unknownNotification", "params": {"x": 1}}),
                    );
                    send(
                        &mut out,
                        &json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": 1, "value": "not progress"}}),
                    );
                    let items = json!([{"section": "fake.answer"}, {"section": "fake.missing"}]);
                    send(
                        &mut out,
                        &json!({"jsonrpc": "2.0", "id": 9001, "method": "workspace/configuration", "params": {"items": items}}),
                    );
                }
                match mode.as_str() {
                    "crash-always" => {
                        eprintln!("fake: crashing again");
                        std::process::exit(4);
                    }
                    "crash-once" if first_time(&state, "crashed") => {
                        eprintln!("fake: crashing on purpose");
                        std::process::exit(3);
                    }
                    "hang" => continue,
                    "strict"
                        if message
                            .pointer("/params/textDocument/uri")
                            .and_then(Value::as_str)
                            .is_some_and(|uri| {
                                uri.rsplit('/').next().unwrap_or("").starts_with("slow.")
                            }) =>
                    {
                        continue;
                    }
                    "garbage-once" if first_time(&state, "garbled") => {
                        let _ = out.write_all(b"Content-Length: 9\r\n\r\n{garbage!");
                        let _ = out.flush();
                        continue;
                    }
                    "flat-outline" => {
                        let uri = message
                            .pointer("/params/textDocument/uri")
                            .cloned()
                            .unwrap_or(Value::Null);
                        let at = |l0: u32, c0: u32, l1: u32, c1: u32| json!({"uri": uri, "range": {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}});
                        send(
                            &mut out,
                            &json!({"jsonrpc": "2.0", "id": id, "result": [
                                {"name": "Zeta", "kind": 5, "location": at(0, 0, 2, 1)},
                                {"name": "alpha", "kind": 6, "location": at(1, 2, 1, 12), "containerName": "Zeta"},
                                {"name": "beta", "kind": 12, "location": at(3, 0, 3, 12)}
                            ]}),
                        );
                    }
                    "wrong-answer" => {
                        send(&mut out, &json!({"jsonrpc": "2.0", "id": id, "result": 42}));
                    }
                    _ => {
                        let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 10}});
                        let name = json!({"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 7}});
                        send(
                            &mut out,
                            &json!({"jsonrpc": "2.0", "id": id, "result": [
                                {"name": "fake", "kind": 12, "range": range, "selectionRange": name}
                            ]}),
                        );
                    }
                }
            }
            ("textDocument/diagnostic", Some(id))
                if mode == "diagnostic-error" || mode == "strict" =>
            {
                let uri = message
                    .pointer("/params/textDocument/uri")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let answer = if uri.rsplit('/').next().unwrap_or("").starts_with("bad.") {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "fake: cannot check this file"}})
                } else {
                    json!({"jsonrpc": "2.0", "id": id, "result": {"kind": "full", "items": []}})
                };
                send(&mut out, &answer);
            }
            ("textDocument/didSave", None) if mode == "checks-in-parts" => {
                let uri = message
                    .pointer("/params/textDocument/uri")
                    .cloned()
                    .unwrap_or(Value::Null);
                let at = |line: u32| json!({"start": {"line": line, "character": 0}, "end": {"line": line, "character": 2}});
                let error = json!({"range": at(0), "severity": 1, "code": "E0001", "source": "fake-check", "message": "an error"});
                let warning = json!({"range": at(0), "severity": 2, "code": "W0001", "source": "fake-check", "message": "a warning"});
                let token = "fake/flycheck/0";
                let progress = |value: Value| json!({"jsonrpc": "2.0", "method": "$/progress", "params": {"token": token, "value": value}});
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": 9200, "method": "window/workDoneProgress/create", "params": {"token": token}}),
                );
                send(
                    &mut out,
                    &progress(json!({"kind": "begin", "title": "cargo check"})),
                );
                for items in [json!([]), json!([error, warning]), json!([error])] {
                    send(
                        &mut out,
                        &json!({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {"uri": uri, "diagnostics": items}}),
                    );
                }
                send(&mut out, &progress(json!({"kind": "end"})));
            }
            ("shutdown", Some(id)) => send(
                &mut out,
                &json!({"jsonrpc": "2.0", "id": id, "result": null}),
            ),
            ("exit", _) => std::process::exit(0),
            ("$/cancelRequest", None) => {
                let cancelled = message
                    .pointer("/params/id")
                    .cloned()
                    .unwrap_or(Value::Null);
                eprintln!("fake: cancelled request {cancelled}");
            }
            (_, Some(id)) if message.get("method").is_some() => {
                send(
                    &mut out,
                    &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "not here"}}),
                );
            }
            _ => {}
        }
    }
}

/// The modes that answer the navigation tools' requests.
fn navigates(mode: &str) -> bool {
    mode.starts_with("kill-during:")
        || mode.starts_with("hang-on:")
        || mode == "flood-stdout"
        || mode == "refuse-rename"
        || mode == "unpublished"
        || mode.starts_with("unpublished-for:")
}

/// The answer to a navigation request in the modes that offer them, about
/// the one function `fake` (line 1, `fn fake() {}`) of the file asked
/// about, or of STATE_DIR/../main.fake for workspace symbols.
fn navigation_answer(
    mode: &str,
    method: &str,
    message: &Value,
    state: &std::path::Path,
) -> Option<Value> {
    if !navigates(mode) {
        return None;
    }
    let uri = message
        .pointer("/params/textDocument/uri")
        .or_else(|| message.pointer("/params/item/uri"))
        .cloned()
        .unwrap_or_else(|| {
            let main = state.parent().unwrap_or(state).join("main.fake");
            json!(format!("file://{}", main.display()))
        });
    let name = json!({"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 7}});
    let whole = json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 12}});
    let location = json!({"uri": uri, "range": name});
    let item =
        json!({"name": "fake", "kind": 12, "uri": uri, "range": whole, "selectionRange": name});
    Some(match method {
        "textDocument/hover" => {
            json!({"contents": {"kind": "markdown", "value": "```fake\nfn fake()\n```"}})
        }
        "textDocument/definition"
        | "textDocument/typeDefinition"
        | "textDocument/implementation"
        | "textDocument/references" => json!([location]),
        "textDocument/prepareCallHierarchy" => json!([item]),
        "callHierarchy/incomingCalls" | "callHierarchy/outgoingCalls" => json!([]),
        "textDocument/completion" => json!({"isIncomplete": false, "items": [
            {"label": "fake", "kind": 3, "detail": "fn fake()"}
        ]}),
        "completionItem/resolve" => message.get("params").cloned().unwrap_or(Value::Null),
        "textDocument/prepareRename" if mode == "refuse-rename" => Value::Null,
        "textDocument/prepareRename" => name,
        "textDocument/rename" => {
            let new_name = message
                .pointer("/params/newName")
                .cloned()
                .unwrap_or(Value::Null);
            let mut changes = serde_json::Map::new();
            changes.insert(
                uri.as_str().unwrap_or_default().to_string(),
                json!([{"range": name, "newText": new_name}]),
            );
            json!({"changes": changes})
        }
        "workspace/symbol" => json!([{"name": "fake", "kind": 12, "location": location}]),
        _ => return None,
    })
}

/// True the first time (and leaves a marker so later runs see false).
fn first_time(state: &std::path::Path, marker: &str) -> bool {
    let path = state.join(marker);
    if path.exists() {
        return false;
    }
    let _ = std::fs::write(path, "");
    true
}

fn read_message(input: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    input.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn send(out: &mut impl Write, message: &Value) {
    let body = message.to_string();
    // One write of the whole message: another thread's never lands inside.
    let _ = out.write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let _ = out.flush();
}
