//! The ring buffers of log events that the `logs` tool reads: sextant's own
//! events, every tool call, and each language server's stderr and
//! `window/logMessage`. Bounded, so a server flooding stderr costs nothing
//! but the oldest lines; debug lines apart, so that a flood of them costs
//! none of the others.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::model::{LogLevel, LogLine};
use crate::sync::lock;

/// Lines kept of each kind: debug lines, and the rest.
const CAPACITY: usize = 5000;

/// Debug lines are kept apart from the rest, each in a ring of its own: a
/// server's debug chatter (TypeScript 7 logs some sixty lines for every
/// request on a monorepo) would otherwise push the tool calls, errors and
/// warnings out of the book within a hundred calls.
#[derive(Debug, Default)]
pub struct LogBook {
    rings: Mutex<Rings>,
}

#[derive(Debug, Default)]
struct Rings {
    /// The number the next line gets: lines are read in this order.
    next: u64,
    debug: VecDeque<(u64, LogLine)>,
    other: VecDeque<(u64, LogLine)>,
}

impl Rings {
    /// Every line, newest first.
    fn newest_first(&self) -> impl Iterator<Item = &LogLine> {
        let (mut debug, mut other) = (
            self.debug.iter().rev().peekable(),
            self.other.iter().rev().peekable(),
        );
        std::iter::from_fn(move || {
            let from_debug = match (debug.peek(), other.peek()) {
                (Some((a, _)), Some((b, _))) => a > b,
                (Some(_), None) => true,
                (None, _) => false,
            };
            let (_, line) = match from_debug {
                true => debug.next()?,
                false => other.next()?,
            };
            Some(line)
        })
    }
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
        let line = LogLine {
            time_ms,
            level,
            source: source.to_string(),
            message,
        };
        let mut rings = lock(&self.rings);
        let number = rings.next;
        rings.next += 1;
        let ring = match level {
            LogLevel::Debug => &mut rings.debug,
            _ => &mut rings.other,
        };
        if ring.len() == CAPACITY {
            ring.pop_front();
        }
        ring.push_back((number, line));
    }

    /// Lines that pass `keep`, oldest first.
    pub fn matching(&self, keep: impl Fn(&LogLine) -> bool) -> Vec<LogLine> {
        let rings = lock(&self.rings);
        let mut found: Vec<LogLine> = rings.newest_first().filter(|l| keep(l)).cloned().collect();
        found.reverse();
        found
    }

    /// The newest `tail` lines that pass `keep`, and of the older ones
    /// that do the newest `problems` errors and warnings, both oldest
    /// first; and how many older ones pass and are not among those. Only
    /// the lines returned are copied: the book holds thousands.
    pub fn tail(&self, keep: impl Fn(&LogLine) -> bool, tail: usize, problems: usize) -> Tail {
        let rings = lock(&self.rings);
        let mut found = Tail::default();
        for line in rings.newest_first().filter(|l| keep(l)) {
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

    #[test]
    fn a_flood_of_debug_lines_pushes_out_only_older_debug_lines() {
        let book = LogBook::default();
        book.record(LogLevel::Info, "tool", "first call");
        book.record(LogLevel::Error, "tsgo", "crashed once");
        for n in 0..CAPACITY + 10 {
            book.record(LogLevel::Debug, "tsgo", format!("chatter {n}"));
            if n == CAPACITY / 2 {
                book.record(LogLevel::Info, "tool", "second call");
            }
        }
        book.record(LogLevel::Info, "tool", "third call");
        let all = book.matching(|_| true);
        assert_eq!(all.len(), CAPACITY + 4);
        // The others all kept, the oldest debug lines gone, and everything
        // in the order it was said.
        let said: Vec<&str> = all.iter().map(|l| l.message.as_str()).collect();
        assert_eq!(said[..3], ["first call", "crashed once", "chatter 10"]);
        let second = said.iter().position(|m| *m == "second call").unwrap();
        assert_eq!(said[second - 1], format!("chatter {}", CAPACITY / 2));
        assert_eq!(said[second + 1], format!("chatter {}", CAPACITY / 2 + 1));
        assert_eq!(
            said[said.len() - 2..],
            [format!("chatter {}", CAPACITY + 9).as_str(), "third call"]
        );
        let calls = book.tail(|l| l.source == "tool", 10, 0);
        let calls: Vec<&str> = calls.lines.iter().map(|l| l.message.as_str()).collect();
        assert_eq!(calls, ["first call", "second call", "third call"]);
        let tail = book.tail(|_| true, 2, 1);
        assert_eq!(tail.lines.len(), 2);
        assert_eq!(tail.problems[0].message, "crashed once");
    }
}
