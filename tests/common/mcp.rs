//! The built binary as an MCP server: `sextant serve` spawned as a child
//! process, rmcp's client connected over its stdio, and tool calls made the
//! way an agent's client makes them.

use std::path::Path;
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

pub type Client = RunningService<RoleClient, ()>;

/// `sextant serve --root ROOT EXTRA...`, initialized.
pub async fn start(root: &Path, extra: &[&str]) -> Client {
    start_with_pid(root, extra).await.0
}

/// Like `start`, with the server process's pid.
pub async fn start_with_pid(root: &Path, extra: &[&str]) -> (Client, u32) {
    start_program(Path::new(env!("CARGO_BIN_EXE_sextant")), root, extra).await
}

/// Like `start_with_pid`, with another build of sextant (`program`).
pub async fn start_program(program: &Path, root: &Path, extra: &[&str]) -> (Client, u32) {
    let mut command = tokio::process::Command::new(program);
    command
        .arg("serve")
        .arg("--no-shared")
        .arg("--root")
        .arg(root)
        .args(extra);
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn sextant serve");
    let pid = transport.id().expect("sextant serve has a pid");
    let client = ().serve(transport).await.expect("MCP initialize");
    (client, pid)
}

/// `tools/call`; `args` must be a JSON object.
pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .expect("tools/call answers")
}

/// The result's content blocks, which must all be text.
pub fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            other => panic!("only text content is expected, got {other:?}"),
        })
        .collect()
}

/// `sextant serve --http 127.0.0.1:0 --root ROOT`: the process, the URL it
/// serves at (`http://HOST:PORT/mcp`, port 0 asking for any: its log line
/// says which), and the rest of its log.
pub async fn start_http(
    root: &Path,
) -> (
    tokio::process::Child,
    String,
    tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>,
) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args(["serve", "--http", "127.0.0.1:0", "--root"])
        .arg(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn sextant serve --http");
    let mut log = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = log
            .next_line()
            .await
            .unwrap()
            .expect("sextant logs its address before anything else ends");
        if let Some(at) = line.find("http://") {
            break line[at..].trim().to_string();
        }
    };
    (child, url, log)
}

/// A meeting place for relays and their instance (`$XDG_RUNTIME_DIR`) only
/// this user can enter, as the real one is: each test or bench run its
/// own.
pub fn meeting_place() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    dir
}

/// `sextant serve --root ROOT EXTRA... --idle-exit 0` (unless EXTRA gives
/// one) through its shared
/// instance, with `place` as `$XDG_RUNTIME_DIR` (each test its own meeting
/// place), run from `binary` (the built one unless given): initialized,
/// with the relay's pid.
pub async fn start_shared(
    root: &Path,
    place: &Path,
    binary: Option<&Path>,
    extra: &[&str],
) -> (Client, u32) {
    let binary = binary.unwrap_or(Path::new(env!("CARGO_BIN_EXE_sextant")));
    let mut command = tokio::process::Command::new(binary);
    command
        .arg("serve")
        .arg("--root")
        .arg(root)
        .args(extra)
        .env("XDG_RUNTIME_DIR", place);
    if !extra.contains(&"--idle-exit") {
        command.args(["--idle-exit", "0"]);
    }
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn sextant serve");
    let pid = transport.id().expect("the relay has a pid");
    let client = ().serve(transport).await.expect("MCP initialize");
    (client, pid)
}

/// `tools/call` sent, not awaited: the handle gives its answer
/// (`await_response`) or cancels it (`cancel`). For any client handler.
pub async fn send_call<H: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, H>,
    tool: &str,
    args: Value,
) -> rmcp::service::RequestHandle<RoleClient> {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    client
        .send_cancellable_request(
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request::new(
                CallToolRequestParams::new(tool.to_string()).with_arguments(args),
            )),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .expect("tools/call is sent")
}

/// The tool result a `send_call` handle answers with.
pub async fn answer_of(handle: rmcp::service::RequestHandle<RoleClient>) -> CallToolResult {
    match handle.await_response().await.expect("tools/call answers") {
        rmcp::model::ServerResult::CallToolResult(result) => result,
        other => panic!("a tool result, not {other:?}"),
    }
}
