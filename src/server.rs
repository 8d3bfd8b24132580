//! The MCP edge: the only module that knows rmcp and MCP JSON.
//!
//! It lists the tools from the registry (schemas, descriptions, annotations)
//! and turns each call into `tools::call` -> text content blocks, or an
//! `isError` result whose text is `error[code]: message`. Nothing but MCP
//! messages is written to stdout; logs go to stderr.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use tokio_util::sync::CancellationToken;

mod guard;
mod http;
mod instance;
mod relay;
pub mod rendezvous;
pub mod schema;
mod stdio;

pub use self::instance::serve_instance;
pub use self::relay::{Relay, instance_check, relay};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError};
use crate::progress;
use crate::tools::{self, ToolEntry};

/// What the agent is told about sextant at initialize (kept under 2 KB).
pub const INSTRUCTIONS: &str = "\
sextant answers from real language servers and tree-sitter, for this workspace and library \
sources (node_modules, cargo registry crates).

When to use which tool:
- search: where a class, function or method is defined, by (part of) its name.
- read: a file's outline with signatures (symbol=Class.method narrows, preview=expanded shows code).
- inspect: a symbol's signature, docs, definition and implementations.
- references: every use of a symbol, with the function each is in.
- call_hierarchy: who calls a function, and what it calls.
- completion: the members after `value.`.
- rename: a symbol renamed everywhere, previewed as a patch.
- fix: the servers' code actions at a place (add an import, implement members), as patches.
- diagnostics: errors and warnings of a file, folder or the workspace.
- logs: server states and recent tool calls.
- read_file: a file with line numbers, paged.
- find: files by glob, newest first.
- grep: ripgrep over file contents.
- edit: replace an exact, unique string; a diff and `patch: pN`, or apply: true.
- apply_patch: writes a previewed patch as shown, or nothing.
- create_file: a new file.
- pipe: read-only tools chained (find -> grep -> read).

Rules every tool follows:
- Paths are relative to the workspace root, absolute inside a library root, or a library file's \
short name as answers show it: NAME@VERSION:PATH (npm, crates), std:PATH, typescript:FILE.
- Positions are 1-based line:character, counting characters. `@line:char Kind - name` is where a \
name starts: pass it back as line and character.
- A symbol is given as file + line + character, file + line + symbol (its name on that line), or \
file + symbol as a name path (Registry.add, scale[2] for an overload).
- Long answers are cut and say which offset to pass next.
- A write's answer ends with the errors and warnings it introduced and fixed (impact: false skips it).
- Errors start with error[code] and say how to fix the call.
- Every tool takes format: \"json\" for its typed result instead of text.";

/// The MCP server over one workspace.
#[derive(Clone)]
pub struct McpServer {
    ctx: Arc<Context>,
}

impl McpServer {
    pub fn new(ctx: Arc<Context>) -> McpServer {
        McpServer { ctx }
    }
}

/// A registry entry as an MCP tool with its annotations.
fn mcp_tool(entry: &ToolEntry) -> Tool {
    let tool = Tool::new(
        entry.name,
        entry.description,
        Arc::new(schema::compact(entry.input_schema())),
    );
    // What MCP assumes of a tool without hints is what sextant's writing
    // tools are (not read-only, destructive): only readers say otherwise.
    if entry.writes {
        tool
    } else {
        tool.annotate(ToolAnnotations::new().read_only(true))
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sextant", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = tools::available(&self.ctx).iter().map(mcp_tool).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let (sink, forwarder) = progress_sink(&context);
        let call = progress::with_sink(sink, tools::call(&self.ctx, &request.name, args));
        // A cancelled call drops the tool's future, which cancels whatever
        // language-server request it was waiting for.
        let answer = tokio::select! {
            answer = call => answer,
            () = context.ct.cancelled() => Err(ToolError::new(ErrorCode::Io, "the call was cancelled")),
        };
        // The call's progress goes out before its answer (the sink went
        // with the call, so the forwarder ends once it has sent the rest).
        if let Some(forwarder) = forwarder {
            let _ = tokio::time::timeout(Duration::from_secs(1), forwarder).await;
        }
        let result = match answer {
            Ok(answer) => match answer.json {
                Some(json) => CallToolResult::structured(json),
                None => CallToolResult::success(
                    answer.blocks.into_iter().map(ContentBlock::text).collect(),
                ),
            },
            Err(err) => CallToolResult::error(vec![ContentBlock::text(err.to_string())]),
        };
        Ok(CallToolResponse::Complete(result))
    }
}

/// Sends the call's progress as MCP progress notifications, when the
/// client asked for them with a progress token: through one task per call,
/// so they arrive in order; the task ends when the sink is dropped.
fn progress_sink(
    context: &RequestContext<RoleServer>,
) -> (progress::Sink, Option<tokio::task::JoinHandle<()>>) {
    let Some(token) = context.meta.get_progress_token() else {
        return (Arc::new(|_, _| {}), None);
    };
    let (send, mut queue) = tokio::sync::mpsc::unbounded_channel::<ProgressNotificationParam>();
    let peer = context.peer.clone();
    let forwarder = tokio::spawn(async move {
        while let Some(param) = queue.recv().await {
            let _ = peer.notify_progress(param).await;
        }
    });
    let step = AtomicU64::new(0);
    let sink: progress::Sink = Arc::new(move |message, _fraction| {
        // MCP wants the progress value to grow with every notification.
        let value = step.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = send.send(
            ProgressNotificationParam::new(token.clone(), value as f64).with_message(message),
        );
    });
    (sink, Some(forwarder))
}

/// Serves MCP over stdin/stdout until the client goes away or a signal
/// ends the process; then shuts the language servers down.
pub async fn serve_stdio(ctx: Arc<Context>) -> anyhow::Result<()> {
    let stop = StopSignals::register()?;
    let (transport, closed) = stdio::guarded();
    let service = McpServer::new(Arc::clone(&ctx))
        .serve(transport)
        .await
        .map_err(|err| anyhow::anyhow!("MCP initialisation failed: {err}"))?;
    let ended = tokio::select! {
        result = service.waiting() => result.map(drop),
        () = stop.wait() => Ok(()),
    };
    ctx.lsp.shutdown(Duration::from_secs(2)).await;
    closed.finished(Duration::from_secs(1)).await;
    ended?;
    Ok(())
}

/// How long open connections get to finish after SIGINT or SIGTERM.
const HTTP_GRACE: Duration = Duration::from_secs(5);

/// Serves MCP over streamable HTTP at `http://ADDR/mcp` until SIGINT or
/// SIGTERM. Every client session gets its own MCP server over the one
/// workspace, so they share the language servers (each with its own
/// patches). Only loopback `Host`
/// headers are accepted (rmcp's default), which keeps web pages from
/// reaching a local sextant through DNS rebinding.
pub async fn serve_http(ctx: Arc<Context>, addr: &str) -> anyhow::Result<()> {
    let stop = StopSignals::register()?;
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|err| {
        anyhow::anyhow!("cannot listen on {addr}: {err} (ADDR is HOST:PORT, like 127.0.0.1:8765)")
    })?;
    let local = listener.local_addr()?;
    // Cancelling this ends every session, and with them the SSE streams
    // that clients keep open: a graceful shutdown waits for those forever.
    let sessions_end = CancellationToken::new();
    let sessions = Arc::clone(&ctx);
    let service = StreamableHttpService::new(
        move || {
            Ok(McpServer::new(Arc::new(
                sessions.session(sessions.read_only),
            )))
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_cancellation_token(sessions_end.clone()),
    );
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(
            http::session_end_answers_no_content,
        ))
        .layer(axum::middleware::from_fn(http::guard_posts));
    // The address with the port chosen (`127.0.0.1:0` asks for any).
    tracing::info!("serving MCP over streamable HTTP at http://{local}/mcp");
    let (signalled, stopping) = tokio::sync::oneshot::channel::<()>();
    let server = axum::serve(listener, router).with_graceful_shutdown(async move {
        stop.wait().await;
        sessions_end.cancel();
        let _ = signalled.send(());
    });
    let mut server = std::pin::pin!(server.into_future());
    let result = tokio::select! {
        result = &mut server => result,
        Ok(()) = stopping => {
            // Connections get a moment to finish; one that does not is not
            // waited for.
            tokio::time::timeout(HTTP_GRACE, &mut server)
                .await
                .unwrap_or_else(|_| {
                    tracing::warn!("connections still open {} s after the stop signal; closing them", HTTP_GRACE.as_secs());
                    Ok(())
                })
        }
    };
    ctx.lsp.shutdown(Duration::from_secs(2)).await;
    Ok(result?)
}

/// SIGINT and SIGTERM, listened for from the start (so a failure to listen
/// shows before serving, and a signal is never missed).
struct StopSignals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl StopSignals {
    fn register() -> anyhow::Result<StopSignals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(StopSignals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    async fn wait(mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}
