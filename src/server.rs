//! The MCP edge: the only module that knows rmcp and MCP JSON.
//!
//! It lists the tools from the registry (schemas, descriptions, annotations)
//! and turns each call into `tools::call` -> text content blocks, or an
//! `isError` result whose text is `error[code]: message`. Nothing but MCP
//! messages is written to stdout; logs go to stderr.

use std::sync::Arc;

use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::context::Context;
use crate::error::{ErrorCode, ToolError};
use crate::progress;
use crate::tools::{self, ToolEntry};

/// What the agent is told about sextant at initialize (kept under 2 KB).
pub const INSTRUCTIONS: &str = "\
sextant gives plain-text, line-numbered views of this workspace and of library sources \
(cargo registry crates, node_modules), code structure from tree-sitter, diagnostics from \
real language servers, plus safe edits.

When to use which tool:
- read: a source file's outline (classes, functions, methods...) with signatures; \
symbol=Class.method narrows it, preview=expanded shows leaf code. Prefer it to reading a whole file.
- diagnostics: errors and warnings of a file (or the workspace) as on disk now.
- logs: what the language servers are doing (indexing, crashed) and recent tool calls.
- read_file: a file with line numbers, paged (offset/limit); the last line says how to continue.
- find: files by glob (**/*.ts), newest first, .gitignore respected.
- grep: ripgrep's engine; output_mode files_with_matches (default), content (path:line:text, -A/-B/-C), count.
- edit: replace an exact, unique string; previews a diff and returns `patch: pN` unless apply: true.
- apply_patch: writes a previewed patch exactly as shown, refusing if the file changed since.
- create_file: a new file (overwrite: true to replace one).

Positions are 1-based line:character. Paths are relative to the workspace root. \
Every answer fits a budget and says how to page (offset) when it cuts. Errors start with \
error[code] and say how to fix the call.";

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
    let annotations = ToolAnnotations::new()
        .read_only(!entry.writes)
        .destructive(entry.writes);
    Tool::new(
        entry.name,
        entry.description,
        Arc::new(entry.input_schema()),
    )
    .annotate(annotations)
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
        let sink = progress_sink(&context);
        let call = progress::with_sink(sink, tools::call(&self.ctx, &request.name, args));
        // A cancelled call drops the tool's future, which cancels whatever
        // language-server request it was waiting for.
        let answer = tokio::select! {
            answer = call => answer,
            () = context.ct.cancelled() => Err(ToolError::new(ErrorCode::Io, "the call was cancelled")),
        };
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
/// client asked for them with a progress token.
fn progress_sink(context: &RequestContext<RoleServer>) -> progress::Sink {
    let Some(token) = context.meta.get_progress_token() else {
        return Arc::new(|_, _| {});
    };
    let peer = context.peer.clone();
    let step = Arc::new(AtomicU64::new(0));
    Arc::new(move |message, _fraction| {
        // MCP wants the progress value to grow with every notification.
        let value = step.fetch_add(1, Ordering::Relaxed) + 1;
        let param =
            ProgressNotificationParam::new(token.clone(), value as f64).with_message(message);
        let peer = peer.clone();
        tokio::spawn(async move {
            let _ = peer.notify_progress(param).await;
        });
    })
}

/// Serves MCP over stdin/stdout until the client goes away or a signal
/// ends the process; then shuts the language servers down.
pub async fn serve_stdio(ctx: Arc<Context>) -> anyhow::Result<()> {
    let service = McpServer::new(Arc::clone(&ctx))
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|err| anyhow::anyhow!("MCP initialisation failed: {err}"))?;
    tokio::select! {
        result = service.waiting() => { result?; }
        result = stop_signal() => { result?; }
    }
    ctx.lsp.shutdown(std::time::Duration::from_secs(2)).await;
    Ok(())
}

/// Serves MCP over streamable HTTP at `http://ADDR/mcp` until SIGINT or
/// SIGTERM. Every client session gets its own MCP server over the one
/// workspace, so they share the language servers. Only loopback `Host`
/// headers are accepted (rmcp's default), which keeps web pages from
/// reaching a local sextant through DNS rebinding.
pub async fn serve_http(ctx: Arc<Context>, addr: &str) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|err| anyhow::anyhow!("cannot listen on {addr}: {err}"))?;
    let local = listener.local_addr()?;
    let sessions = Arc::clone(&ctx);
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(Arc::clone(&sessions))),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    // The address with the port chosen (`127.0.0.1:0` asks for any).
    tracing::info!("serving MCP over streamable HTTP at http://{local}/mcp");
    let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            let _ = stopped_tx.send(stop_signal().await);
        })
        .await?;
    ctx.lsp.shutdown(std::time::Duration::from_secs(2)).await;
    match stopped_rx.await {
        Ok(result) => result,
        Err(_) => Ok(()),
    }
}

/// Waits for SIGINT or SIGTERM.
async fn stop_signal() -> anyhow::Result<()> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        result = tokio::signal::ctrl_c() => result?,
        _ = terminate.recv() => {}
    }
    Ok(())
}
