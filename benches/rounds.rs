//! Timing a tool over MCP: calls of the built binary's client, each one's
//! wall time and sextant's CPU time (its threads' run time), and its own
//! time (the call's less what sextant's tool log says it waited on
//! servers).

// Each bench uses a part of it.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::common;

/// Timed calls of a tool, after a warm-up.
pub const ROUNDS: usize = 50;

pub fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

pub fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The text an agent reads, and whether it was an error.
pub async fn call(client: &common::mcp::Client, tool: &str, args: &Value) -> (usize, bool) {
    let result = common::mcp::call(client, tool, args.clone()).await;
    let bytes = common::mcp::texts(&result).iter().map(String::len).sum();
    (bytes, result.is_error == Some(true))
}

/// sextant's CPU time so far: the run time of each of its threads
/// (`/proc/PID/task/*/schedstat`, in nanoseconds; `stat`'s clock ticks
/// are too coarse to rank changes of a tenth of a millisecond). A thread
/// that ended takes its time with it: a pool thread ending during a call
/// makes that call's share read low.
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let nanos: u64 = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Some(Duration::from_nanos(nanos))
}

/// The samples of one tool's rounds: wall times, and sextant's CPU time
/// summed over the calls alone (not what it does between them).
pub struct Rounds {
    pid: u32,
    walls: Vec<Duration>,
    cpu: Option<Duration>,
}

impl Rounds {
    pub fn new(pid: u32) -> Rounds {
        Rounds {
            pid,
            walls: Vec::with_capacity(ROUNDS),
            cpu: Some(Duration::ZERO),
        }
    }

    /// Times one call of `tool`.
    pub async fn call(&mut self, client: &common::mcp::Client, tool: &str, args: &Value) {
        let before = cpu_time(self.pid);
        let t = Instant::now();
        call(client, tool, args).await;
        self.walls.push(t.elapsed());
        self.cpu = match (self.cpu, before, cpu_time(self.pid)) {
            (Some(sum), Some(before), Some(after)) => Some(sum + after.saturating_sub(before)),
            _ => None,
        };
    }

    /// Times one `ping` after `idle`: the MCP edge alone (no tool, no
    /// server), as cold as a call's own time finds it after its servers'
    /// answering.
    pub async fn ping(&mut self, client: &common::mcp::Client, idle: Duration) {
        tokio::time::sleep(idle).await;
        let before = cpu_time(self.pid);
        let t = Instant::now();
        client
            .send_request(rmcp::model::ClientRequest::PingRequest(Default::default()))
            .await
            .expect("a ping answered");
        self.walls.push(t.elapsed());
        self.cpu = match (self.cpu, before, cpu_time(self.pid)) {
            (Some(sum), Some(before), Some(after)) => Some(sum + after.saturating_sub(before)),
            _ => None,
        };
    }

    pub fn median(&self) -> Duration {
        percentile(&self.walls, 0.5)
    }

    pub fn p95(&self) -> Duration {
        percentile(&self.walls, 0.95)
    }

    /// CPU time per call.
    pub fn cpu_per_call(&self) -> Option<Duration> {
        let calls = u32::try_from(self.walls.len()).ok().filter(|n| *n > 0)?;
        self.cpu.map(|cpu| cpu / calls)
    }

    /// The median of each call's time less its waits on servers (what
    /// sextant says of each call in its log: the rounds are the last
    /// calls it made), where every call waited on one.
    pub async fn own_median(&self, client: &common::mcp::Client) -> Option<Duration> {
        if self.walls.is_empty() {
            return None;
        }
        // A call that failed has a second line, its error (at debug
        // level): twice the calls' lines hold every call's own.
        let result = common::mcp::call(
            client,
            "logs",
            json!({"server": "tool", "tail": 2 * self.walls.len()}),
        )
        .await;
        let text = common::mcp::texts(&result).concat();
        let calls: Vec<&str> = text
            .lines()
            .filter(|line| line.contains(" tool ") && line.contains(" -> "))
            .collect();
        let last = &calls[calls.len().saturating_sub(self.walls.len())..];
        let waits: Vec<Duration> = last.iter().copied().map(waited).collect();
        if waits.len() != self.walls.len() {
            return None;
        }
        let owns: Vec<Duration> = self
            .walls
            .iter()
            .zip(&waits)
            .map(|(wall, waited)| wall.saturating_sub(*waited))
            .collect();
        Some(percentile(&owns, 0.5))
    }
}

/// A tool call's waits on servers, from its line in the log
/// (`... -> ok (6.0 ms, 4.5 waiting on servers)`; none said, none made).
pub fn waited(line: &str) -> Duration {
    let millis = line
        .rsplit_once(" waiting on servers)")
        .and_then(|(before, _)| before.rsplit_once(", "))
        .and_then(|(_, millis)| millis.parse::<f64>().ok());
    Duration::from_secs_f64(millis.unwrap_or(0.0) / 1000.0)
}
