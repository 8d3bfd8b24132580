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

    /// The newest `tail` lines that pass `keep`, and of the older ones
    /// that do the newest `problems` errors and warnings, both oldest
    /// first; and how many older ones pass and are not among those. Only
    /// the lines returned are copied: the book holds thousands.
    pub fn tail(&self, keep: impl Fn(&LogLine) -> bool, tail: usize, problems: usize) -> Tail {
        let lines = lock(&self.lines);
        let mut found = Tail::default();
        for line in lines.iter().rev().filter(|l| keep(l)) {
            if found.lines.len() < tail {
                found.lines.push(line.clone());
            } else if found.problems.len() < problems && line.level <= LogLevel::Warn {
                found.problems.push(line.clone());
            } else {
                found.older += 1;
            }
        }
        found.lines.reverse();
        found.problems.reverse();
        found
    }
}

/// What [`LogBook::tail`] found.
#[derive(Debug, Default)]
pub struct Tail {
    pub lines: Vec<LogLine>,
    pub problems: Vec<LogLine>,
    pub older: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_keeps_the_newest_lines_and_the_last_problems_before_them() {
        let book = LogBook::default();
        for (level, message) in [
            (LogLevel::Error, "e1"),
            (LogLevel::Info, "i1"),
            (LogLevel::Warn, "w1"),
            (LogLevel::Debug, "d1"),
            (LogLevel::Error, "e2"),
            (LogLevel::Info, "i2"),
            (LogLevel::Info, "i3"),
            (LogLevel::Warn, "w2"),
        ] {
            book.record(level, "tool", message);
        }
        let messages = |lines: &[LogLine]| -> Vec<String> {
            lines.iter().map(|l| l.message.clone()).collect()
        };
        let info = |line: &LogLine| line.level <= LogLevel::Info;
        // The last three, then of the four before them the newest two
        // problems; the other two counted.
        let found = book.tail(info, 3, 2);
        assert_eq!(messages(&found.lines), ["i2", "i3", "w2"]);
        assert_eq!(messages(&found.problems), ["w1", "e2"]);
        assert_eq!(found.older, 2);
        // No problems asked for: every older line counted.
        let found = book.tail(info, 3, 0);
        assert!(found.problems.is_empty());
        assert_eq!(found.older, 4);
        // A tail longer than the book: every line, none older.
        let found = book.tail(|_| true, 100, 2);
        assert_eq!(found.lines.len(), 8);
        assert_eq!((found.problems.len(), found.older), (0, 0));
    }
}
