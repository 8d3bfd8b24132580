//! The built binary driven by a real MCP client (rmcp's), over stdio and
//! over streamable HTTP.

mod common;

use common::fixture;
use common::mcp::{call, start, start_with_pid, texts};
use serde_json::{Value, json};

/// The pid of the running TypeScript server, from `logs`.
async fn typescript_server_pid(client: &common::mcp::Client) -> u32 {
    let logs =
        texts(&call(client, "logs", json!({"server": "typescript", "tail": 0})).await).join("\n");
    assert!(logs.contains(": ready\n"), "{logs}");
    logs.split("; pid ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {logs}"))
}

#[tokio::test]
async fn a_killed_sextant_leaves_no_language_server() {
    let f = fixture("ts");
    let (client, sextant_pid) = start_with_pid(f.root(), &[]).await;
    let diagnostics = call(&client, "diagnostics", json!({"file": "src/shapes.ts"})).await;
    assert_eq!(
        texts(&diagnostics),
        ["No errors or warnings in src/shapes.ts"]
    );
    let server_pid = typescript_server_pid(&client).await;
    unsafe { libc::kill(sextant_pid as i32, libc::SIGKILL) };
    assert!(
        common::process_gone(server_pid).await,
        "the TypeScript server (pid {server_pid}) outlived a killed sextant"
    );
}

/// Every tool's description and schema is loaded into every conversation
/// of the agent: tools/list (the `tools` array as compact JSON) stays
/// within 8 KB for all tools. The snapshot keeps it from growing silently.
#[tokio::test]
async fn tools_list_costs_little() {
    let f = fixture("ts");
    let client = start(f.root(), &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let compact = serde_json::to_string(&tools).unwrap();
    println!(
        "tools/list: {} bytes for {} tools ({} a tool)",
        compact.len(),
        tools.len(),
        compact.len() / tools.len()
    );
    assert!(compact.len() <= 8 * 1024, "{} bytes", compact.len());
    for tool in &tools {
        let schema = serde_json::to_string(&tool.input_schema).unwrap();
        assert!(
            !schema.contains("null")
                && !schema.contains("\"format\"")
                && !schema.contains("minimum"),
            "{}: {schema}",
            tool.name
        );
    }
    insta::assert_snapshot!(serde_json::to_string_pretty(&tools).unwrap());
}

#[tokio::test]
async fn initialize_and_list_tools() {
    let f = fixture("ts");
    let client = start(f.root(), &[]).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("sextant")
    );
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.contains("grep") && instructions.len() < 2048,
        "{instructions}"
    );

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, common::tool_names());
    // The instructions say when to use each tool, so none is left out.
    for name in &names {
        assert!(
            instructions.contains(&format!("\n- {name}: ")),
            "the instructions do not mention {name}:\n{instructions}"
        );
    }
    assert!(instructions.contains("format: \"json\""), "{instructions}");
    for tool in &tools {
        // Readers say so; writers go without hints, which MCP reads as
        // "not read-only, destructive".
        let writes = common::writes(&tool.name);
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint);
        assert_eq!(read_only, (!writes).then_some(true), "{}", tool.name);
        assert_eq!(tool.input_schema.get("type"), Some(&json!("object")));
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap();
        assert!(!properties.contains_key("format"), "{}", tool.name);
        let description = tool.description.as_deref().unwrap_or("");
        assert!(
            !description.is_empty() && description.len() < 2048,
            "{}",
            tool.name
        );
        assert!(tool.output_schema.is_none());
    }
    let grep = tools.iter().find(|t| t.name == "grep").unwrap();
    let required = grep.input_schema.get("required").unwrap();
    assert_eq!(required, &json!(["pattern"]));
    assert_eq!(
        grep.input_schema["properties"]["output_mode"],
        json!({"type": "string", "enum": ["files_with_matches", "content", "count"]})
    );
    client.cancel().await.unwrap();
}

/// The tests' list of tools (common::TOOLS) is the registry's: the same
/// names in the same order, the same ones writing.
#[test]
fn the_tests_list_of_tools_is_the_registry() {
    use common::Access;
    let registry: Vec<(&str, Access)> = sextant::tools::all()
        .iter()
        .map(|tool| {
            let access = match (tool.writes, tool.previews_when_read_only) {
                (false, _) => Access::Reads,
                (true, true) => Access::Previews,
                (true, false) => Access::Writes,
            };
            (tool.name, access)
        })
        .collect();
    assert_eq!(registry, common::TOOLS);
}

#[tokio::test]
async fn read_only_server_lists_no_writing_tool() {
    let f = fixture("ts");
    let client = start(f.root(), &["--read-only"]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, common::read_only_tool_names());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_tool_answers_in_text_blocks() {
    let f = fixture("ts");
    let client = start(f.root(), &[]).await;

    let read = call(&client, "read_file", json!({"path": "src/paths.ts"})).await;
    assert_eq!(read.is_error, Some(false));
    assert!(read.structured_content.is_none());
    let text = texts(&read).join("");
    // The text keeps one backslash each: never JSON-escaped twice.
    assert!(
        text.contains(
            "\t// On Windows the folder is C:\\temp and a TypeScript file matches \\.ts$\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\texport const tsFile = /\\.ts$/;\n"),
        "{text}"
    );

    // search: one text block per file, plain text, no structuredContent
    // (after a call that waits for the server, so it answers, not the index).
    call(&client, "diagnostics", json!({"file": "src/paths.ts"})).await;
    let search = call(&client, "search", json!({"query": "tsFile"})).await;
    assert_eq!(search.is_error, Some(false));
    assert!(search.structured_content.is_none());
    assert_eq!(
        texts(&search),
        [
            "Found 1 match for query \"tsFile\" across 1 file, from typescript-go",
            "src/paths.ts (1 result)\n  @2:14 Constant - tsFile\n    `export const tsFile = /\\.ts$/`"
        ]
    );

    let found = call(&client, "find", json!({"pattern": "src/*.ts", "limit": 2})).await;
    assert_eq!(
        texts(&found),
        [
            "src/shapes.ts\nsrc/paths.ts\n7 files match src/*.ts in .; showing 1-2; pass offset=2 for more"
        ]
    );

    let grep = call(
        &client,
        "grep",
        json!({"pattern": "C:\\\\temp", "output_mode": "content"}),
    )
    .await;
    // The regex C:\\temp (an escaped backslash) matches the comment's C:\temp only.
    assert_eq!(
        texts(&grep),
        [
            "Found 1 matching line in 1 file for C:\\\\temp\nsrc/paths.ts:4:// On Windows the folder is C:\\temp and a TypeScript file matches \\.ts$"
        ]
    );

    let edit = call(
        &client,
        "edit",
        json!({"path": "src/index.ts", "old_string": "\"world\"", "new_string": "\"sextant\""}),
    )
    .await;
    let blocks = texts(&edit);
    assert_eq!(
        blocks.len(),
        2,
        "a summary block, then one diff block per file"
    );
    assert!(
        blocks[0].ends_with("patch: p1 (pass it to apply_patch to write exactly this change)"),
        "{}",
        blocks[0]
    );
    assert!(
        blocks[1].starts_with("--- a/src/index.ts\n+++ b/src/index.ts\n@@"),
        "{}",
        blocks[1]
    );

    let applied = call(&client, "apply_patch", json!({"patch": "p1"})).await;
    let blocks = texts(&applied);
    assert_eq!(
        blocks[0],
        "Applied patch p1: 1 file changed, +1 -1 lines\n  src/index.ts (+1 -1)"
    );
    // Its impact, a block of its own (what it says is `tests/impact.rs`'s).
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert!(blocks[1].starts_with("Impact: "), "{}", blocks[1]);
    assert!(f.read("src/index.ts").contains("greet(\"sextant\")"));

    let created = call(
        &client,
        "create_file",
        json!({"path": "notes/todo.md", "content": "- one\n"}),
    )
    .await;
    assert_eq!(texts(&created), ["Created notes/todo.md (1 line, 6 bytes)"]);

    let json = call(
        &client,
        "find",
        json!({"pattern": "notes/*.md", "format": "json"}),
    )
    .await;
    assert_eq!(
        json.structured_content,
        Some(
            json!({"pattern": "notes/*.md", "base": ".", "files": ["notes/todo.md"], "offset": 0, "total": 1})
        )
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn errors_are_tool_results_and_the_server_stays_up() {
    let f = fixture("ts");
    let client = start(f.root(), &[]).await;
    let outside = call(&client, "read_file", json!({"path": "../../etc/passwd"})).await;
    assert_eq!(outside.is_error, Some(true));
    let text = texts(&outside).join("");
    assert!(
        text.starts_with("error[outside-root]: ../../etc/passwd is outside the workspace "),
        "{text}"
    );

    let unknown = call(&client, "no_such_tool", json!({})).await;
    assert_eq!(unknown.is_error, Some(true));
    assert!(texts(&unknown)[0].starts_with("error[unknown-tool]: no tool named 'no_such_tool'"));

    let mistyped = call(&client, "grep", json!({"pattern": 5})).await;
    assert_eq!(mistyped.is_error, Some(true));
    assert!(
        texts(&mistyped)[0].starts_with(
            "error[invalid-params]: grep: invalid type: integer `5`, expected a string"
        )
    );

    let still_up = call(
        &client,
        "read_file",
        json!({"path": "package.json", "limit": 1}),
    )
    .await;
    assert_eq!(
        texts(&still_up),
        ["     1\t{\npackage.json · lines 1-1 of 6; pass offset=2 for more"]
    );
    client.cancel().await.unwrap();
}

/// `serve --http`: the same tools over streamable HTTP, two client
/// sessions sharing one workspace (and its language server), a foreign
/// `Host` refused, and SIGTERM ending it with the language server shut down.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_serves_the_same_tools() {
    use rmcp::ServiceExt;
    use rmcp::transport::StreamableHttpClientTransport;

    let f = fixture("ts");
    let (mut child, url, mut stderr) = common::mcp::start_http(f.root()).await;
    assert!(url.ends_with("/mcp"), "{url}");
    let log = tokio::spawn(async move {
        let mut lines = Vec::new();
        while let Ok(Some(line)) = stderr.next_line().await {
            lines.push(line);
        }
        lines
    });

    let first =
        ().serve(StreamableHttpClientTransport::from_uri(url.clone()))
            .await
            .expect("MCP initialize over HTTP");
    let second =
        ().serve(StreamableHttpClientTransport::from_uri(url.clone()))
            .await
            .expect("a second session");
    let tools: Vec<String> = first
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(
        tools.contains(&"read".to_string()) && tools.contains(&"diagnostics".to_string()),
        "{tools:?}"
    );
    let read = call(
        &first,
        "read",
        json!({"file": "src/shapes.ts", "symbol": "Circle"}),
    )
    .await;
    assert_eq!(read.is_error, Some(false));
    assert!(
        texts(&read)[0].starts_with("Found 4 symbols under Circle"),
        "{:?}",
        texts(&read)
    );
    for client in [&first, &second] {
        let diagnostics = call(client, "diagnostics", json!({"file": "src/shapes.ts"})).await;
        assert_eq!(
            texts(&diagnostics),
            ["No errors or warnings in src/shapes.ts"]
        );
    }
    // Both sessions used one server: the same pid, never restarted.
    assert_eq!(
        typescript_server_pid(&first).await,
        typescript_server_pid(&second).await
    );
    let server_pid = typescript_server_pid(&second).await;

    // A request naming another host (DNS rebinding) is refused.
    let (host, path) = url.trim_start_matches("http://").split_once('/').unwrap();
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!(
        "POST /{path} HTTP/1.1\r\nHost: evil.example.com\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    tokio::io::AsyncWriteExt::write_all(&mut stream, request.as_bytes())
        .await
        .unwrap();
    let mut answer = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut answer)
        .await
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");

    // A session a client ends (DELETE) answers 204, as clients expect.
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let answer = raw_http(
        host,
        &format!(
            "POST /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{initialize}",
            initialize.len()
        ),
    )
    .await;
    let session = answer
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id in:\n{answer}"));
    let answer = raw_http(
        host,
        &format!(
            "DELETE /{path} HTTP/1.1\r\nHost: {host}\r\nMcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-06-18\r\nConnection: close\r\n\r\n"
        ),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 204"), "{answer}");

    // SIGTERM with a session still connected (its SSE stream open): the
    // sessions are ended, not waited for.
    drop(second);
    unsafe { libc::kill(child.id().unwrap() as i32, libc::SIGTERM) };
    let status = tokio::time::timeout(std::time::Duration::from_secs(20), child.wait())
        .await
        .expect("sextant ends on SIGTERM")
        .unwrap();
    assert!(status.success(), "{status}");
    let log = log.await.unwrap().join("\n");
    assert!(!log.contains("still open"), "{log}");
    drop(first);
    assert!(
        common::process_gone(server_pid).await,
        "the TypeScript server (pid {server_pid}) outlived sextant"
    );
}

/// One raw HTTP/1.1 exchange (`Connection: close`): the whole answer.
async fn raw_http(host: &str, request: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stream, request.as_bytes())
        .await
        .unwrap();
    let mut answer = Vec::new();
    // An SSE answer may stay open: what came within a moment is enough.
    let _ = tokio::time::timeout(
        std::time::Duration::from_secs(2),
        tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut answer),
    )
    .await;
    String::from_utf8_lossy(&answer).into_owned()
}

/// Progress a client asks for (with a progress token) arrives in order and
/// before the answer: starting a language server takes long enough to
/// report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_arrives_in_order_before_the_answer() {
    use std::sync::{Arc, Mutex};

    use rmcp::model::ProgressNotificationParam;
    use rmcp::service::NotificationContext;
    use rmcp::transport::TokioChildProcess;
    use rmcp::{ClientHandler, RoleClient, ServiceExt};

    /// Each notification's progress value and message.
    type Received = Vec<(f64, Option<String>)>;

    #[derive(Clone, Default)]
    struct Recorder {
        progress: Arc<Mutex<Received>>,
    }
    impl ClientHandler for Recorder {
        async fn on_progress(
            &self,
            params: ProgressNotificationParam,
            _context: NotificationContext<RoleClient>,
        ) {
            let mut progress = self.progress.lock().unwrap();
            progress.push((params.progress, params.message));
        }
    }

    let f = fixture("ts");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_sextant"));
    command
        .arg("serve")
        .arg("--no-shared")
        .arg("--root")
        .arg(f.root());
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let recorder = Recorder::default();
    let client = recorder.clone().serve(transport).await.unwrap();
    let handle =
        common::mcp::send_call(&client, "diagnostics", json!({"file": "src/shapes.ts"})).await;
    let result = common::mcp::answer_of(handle).await;
    let at_answer = recorder.progress.lock().unwrap().clone();
    assert_eq!(texts(&result), ["No errors or warnings in src/shapes.ts"]);
    assert!(
        at_answer
            .iter()
            .any(|(_, message)| message.as_deref() == Some("starting typescript-go")),
        "{at_answer:?}"
    );
    let values: Vec<f64> = at_answer.iter().map(|(value, _)| *value).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    // No progress may follow the answer. An absence has no event to wait
    // for, so this sleep is on purpose: a quiet window, long enough for a
    // notification already on its way to arrive and be handled (rmcp hands
    // each to a task of its own).
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        *recorder.progress.lock().unwrap(),
        at_answer,
        "no progress after the answer"
    );
}

/// A whole session's lines: initialize, initialized, tools/list and a
/// `read_file` call (ids 1, 2, 3).
fn session_lines() -> String {
    [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "read_file", "arguments": {"path": "src/shapes.ts", "limit": 1}}}),
    ]
    .iter()
    .map(|message| format!("{message}\n"))
    .collect()
}

/// The ids answered in `output` (lines of JSON-RPC), and the first text
/// block of the answer to id 3.
fn answered(output: &str) -> (Vec<u64>, String) {
    let answers: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("{line}")))
        .collect();
    let mut ids: Vec<u64> = answers.iter().filter_map(|a| a["id"].as_u64()).collect();
    ids.sort_unstable();
    let read = answers
        .iter()
        .find(|a| a["id"] == 3)
        .and_then(|a| a["result"]["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_string();
    (ids, read)
}

fn serve(root: &std::path::Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_sextant"));
    command
        .args(["serve", "--no-shared", "--root"])
        .arg(root)
        .stderr(std::process::Stdio::null());
    command
}

/// stdin and stdout that are files, not pipes or sockets, are read and
/// written all the same, and every answer is written before the process
/// ends at the input's end.
#[test]
fn a_session_read_from_a_file_is_answered_into_a_file() {
    let f = fixture("ts");
    let dir = tempfile::tempdir().unwrap();
    let (input, output) = (dir.path().join("in.jsonl"), dir.path().join("out.jsonl"));
    std::fs::write(&input, session_lines()).unwrap();
    let status = serve(f.root())
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(std::fs::File::create(&output).unwrap())
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    let (ids, read) = answered(&std::fs::read_to_string(&output).unwrap());
    assert_eq!(ids, [1, 2, 3]);
    assert!(read.starts_with("     1\t"), "{read}");
}

/// One socket for stdin and stdout, as Node gives its child processes:
/// read and written by the reactor, and every answer written before the
/// process ends at the input's end.
#[test]
fn a_session_over_a_socket_is_answered() {
    use std::io::{Read, Write};
    let f = fixture("ts");
    let (mut ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    let stdin = std::os::fd::OwnedFd::from(theirs.try_clone().unwrap());
    let mut child = serve(f.root())
        .stdin(stdin)
        .stdout(std::os::fd::OwnedFd::from(theirs))
        .spawn()
        .unwrap();
    ours.write_all(session_lines().as_bytes()).unwrap();
    ours.shutdown(std::net::Shutdown::Write).unwrap();
    let mut output = String::new();
    ours.read_to_string(&mut output).unwrap();
    assert!(child.wait().unwrap().success());
    let (ids, read) = answered(&output);
    assert_eq!(ids, [1, 2, 3]);
    assert!(read.starts_with("     1\t"), "{read}");
}
