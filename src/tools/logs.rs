//! `logs`: what sextant and its language servers did: every server's state,
//! then the log lines (tool calls, server stderr and log messages). Asked
//! nothing in particular it answers "what is wrong": the states, the last
//! errors and warnings, the recent lines (servers' own log messages are
//! `level: "debug"`).

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::context::Context;
use crate::error::ToolResult;
use crate::model::{LogLevel, LogsReport};

const DEFAULT_TAIL: usize = 10;
/// Older errors and warnings a `logs` asking nothing in particular keeps.
const KEPT_PROBLEMS: usize = 5;

pub struct Logs;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// A server or language name, `tool` or `sextant`
    pub server: Option<String>,
    /// Least important shown: info, or debug when filtered
    pub level: Option<LogLevel>,
    pub tail: Option<usize>,
    pub contains: Option<String>,
}

impl Tool for Logs {
    const NAME: &'static str = "logs";
    const DESCRIPTION: &'static str = "Servers' states and why, the last errors, recent tool calls: for when an answer \
reports a server problem.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = LogsReport;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<LogsReport> {
        // A server's own messages are debug lines: shown when asked for by
        // level, or when the lines are filtered by server or text.
        let filtered = params.server.is_some() || params.contains.is_some();
        let level = params.level.unwrap_or(match filtered {
            true => LogLevel::Debug,
            false => LogLevel::Info,
        });
        let wanted = params.server.as_deref();
        let needle = params.contains.as_deref().map(str::to_lowercase);
        let servers: Vec<_> = ctx
            .lsp
            .statuses(|p| ctx.workspace.display_plain(p))
            .into_iter()
            .filter(|s| wanted.is_none_or(|w| s.server == w || s.language == w))
            .collect();
        let language_servers: Vec<String> = ctx
            .lsp
            .config()
            .languages
            .iter()
            .filter(|l| l.name == wanted.unwrap_or_default())
            .map(|l| l.server_name().to_string())
            .collect();
        let tail = params.tail.unwrap_or(DEFAULT_TAIL);
        // Asked nothing in particular: the last errors and warnings stay in
        // view however many calls came after them.
        let unfiltered = params.level.is_none() && !filtered && params.tail.is_none();
        let found = ctx.logs.tail(
            |line| {
                line.level <= level
                    && wanted
                        .is_none_or(|w| line.source == w || language_servers.contains(&line.source))
                    && needle
                        .as_deref()
                        .is_none_or(|n| line.message.to_lowercase().contains(n))
            },
            tail,
            if unfiltered { KEPT_PROBLEMS } else { 0 },
        );
        let (older_lines, mut lines) = (found.older, found.problems);
        lines.extend(found.lines);
        Ok(LogsReport {
            instance: ctx
                .instance
                .as_ref()
                .filter(|_| params.server.is_none())
                .map(|instance| instance.state()),
            watching: params.server.is_none().then(|| ctx.lsp.watch_status()),
            server_filter: params.server.clone(),
            servers,
            lines,
            older_lines,
        })
    }

    fn render(output: &LogsReport) -> Vec<String> {
        crate::render::logs(output)
    }
}
