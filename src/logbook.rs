//! The ring buffer of log events that the `logs` tool reads: sextant's own
//! events, every tool call, and each language server's stderr and
//! `window/logMessage`. Bounded, so a server flooding stderr costs nothing
//! but the oldest lines.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::model::{LogLevel, LogLine};
use crate::sync::lock;

/// Lines kept.
const CAPACITY: usize = 5000;

#[derive(Debug, Default)]
pub struct LogBook {
    lines: Mutex<VecDeque<LogLine>>,
}

impl LogBook {
    pub fn record(&self, level: LogLevel, source: &str, message: impl Into<String>) {
        let message: String = message.into();
        match level {
            LogLevel::Error => tracing::error!(source, "{message}"),
            LogLevel::Warn => tracing::warn!(source, "{message}"),
            LogLevel::Info => tracing::info!(source, "{message}"),
            LogLevel::Debug => tracing::debug!(source, "{message}"),
        }
        let time_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let mut lines = lock(&self.lines);
        if lines.len() == CAPACITY {
            lines.pop_front();
        }
        lines.push_back(LogLine {
            time_ms,
            level,
            source: source.to_string(),
            message,
        });
    }

    /// Lines that pass `keep`, oldest first.
    pub fn matching(&self, keep: impl Fn(&LogLine) -> bool) -> Vec<LogLine> {
        let lines = lock(&self.lines);
        lines.iter().filter(|l| keep(l)).cloned().collect()
    }
}
