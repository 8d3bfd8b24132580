//! What `sextant serve` is by default: a relay between the client's stdio
//! and the workspace's shared instance (`instance`), started if none runs.
//!
//! The relay passes MCP's lines through unchanged, and knows just enough
//! of them to survive the instance: it keeps the client's `initialize` and
//! `notifications/initialized` and the ids of the requests in flight. If
//! the instance ends, each request in flight is answered with an error
//! saying so (a tool call as a tool error the agent reads), and the next
//! message connects to a new instance (starting it) after replaying the
//! client's initialization to it, its answer swallowed.
//!
//! Starting is done under the rendezvous lock, so relays racing to start
//! one make one instance; the instance runs in a session of its own with
//! its log in the rendezvous folder, and outlives the relay that started
//! it until it is idle.

use std::ffi::OsString;
use std::fs::File;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use super::rendezvous::{Hello, InstanceSpec, Rendezvous, Welcome, build_identity};
use crate::error::{ErrorCode, ToolError};
use crate::model::InstanceCheck;

/// How long a started instance has to listen.
const START_WAIT: Duration = Duration::from_secs(30);

/// The id the replayed `initialize` goes with; its answer is not passed on.
const REPLAY_ID: &str = "sextant-relay-initialize";

/// What the relay needs to reach or start the instance.
pub struct Relay {
    pub spec: InstanceSpec,
    pub read_only: bool,
    /// The arguments an instance is started with after `serve --instance`
    /// (the roots, the configuration, its idle time).
    pub instance_args: Vec<OsString>,
}

/// An MCP message's routing fields.
#[derive(Deserialize, Default)]
struct Head {
    id: Option<Value>,
    method: Option<String>,
}

impl Head {
    fn of(line: &str) -> Head {
        serde_json::from_str(line).unwrap_or_default()
    }
}

/// A connection to the instance, past its hello.
struct Connection {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl Connection {
    async fn send(&mut self, line: &str) -> std::io::Result<()> {
        self.write.write_all(line.as_bytes()).await?;
        self.write.write_all(b"\n").await?;
        self.write.flush().await
    }
}

/// The client's initialization, replayed to a new instance.
#[derive(Default)]
struct Initialization {
    initialize: Option<String>,
    initialized: Option<String>,
}

/// A request sent on and not yet answered.
struct InFlight {
    id: Value,
    tool_call: bool,
}

/// Relays stdin and stdout to the instance until the client closes stdin.
pub async fn relay(relay: Relay) -> anyhow::Result<()> {
    let rendezvous = relay.spec.rendezvous()?;
    let mut input = BufReader::new(tokio::io::stdin()).lines();
    let mut output = tokio::io::stdout();
    let mut connection: Option<Connection> = None;
    let mut initialization = Initialization::default();
    let mut in_flight: Vec<InFlight> = Vec::new();
    loop {
        tokio::select! {
            line = input.next_line() => {
                let Some(line) = line? else { break };
                if line.trim().is_empty() {
                    continue;
                }
                let head = Head::of(&line);
                match head.method.as_deref() {
                    Some("initialize") => initialization.initialize = Some(line.clone()),
                    Some("notifications/initialized") => {
                        initialization.initialized = Some(line.clone());
                    }
                    _ => {}
                }
                if let (Some(id), Some(method)) = (&head.id, &head.method) {
                    in_flight.push(InFlight { id: id.clone(), tool_call: method == "tools/call" });
                }
                if connection.is_none() {
                    let replay = head.method.as_deref() != Some("initialize");
                    match connect(&relay, &rendezvous, &initialization, replay).await {
                        Ok(connected) => connection = Some(connected),
                        Err(err) => {
                            tracing::warn!("{err:#}");
                            let why = format!("sextant's shared instance for this workspace could not be reached: {err:#}; run sextant serve --no-shared to serve without one");
                            answer_in_flight(&mut output, &mut in_flight, &why).await?;
                            continue;
                        }
                    }
                }
                let sent = match connection.as_mut() {
                    Some(connected) => connected.send(&line).await.is_ok(),
                    None => false,
                };
                if !sent {
                    connection = None;
                    answer_in_flight(&mut output, &mut in_flight, &ended(&rendezvous)).await?;
                }
            }
            line = next_line(&mut connection) => match line {
                Some(line) => {
                    let head = Head::of(&line);
                    if head.method.is_none() && let Some(id) = &head.id {
                        if id == REPLAY_ID {
                            continue;
                        }
                        in_flight.retain(|request| request.id != *id);
                    }
                    output.write_all(line.as_bytes()).await?;
                    output.write_all(b"\n").await?;
                    output.flush().await?;
                }
                None => {
                    tracing::warn!("the shared instance closed the connection");
                    connection = None;
                    answer_in_flight(&mut output, &mut in_flight, &ended(&rendezvous)).await?;
                }
            },
        }
    }
    Ok(())
}

/// The next line from the instance; `None` when the connection ended;
/// never ready without one.
async fn next_line(connection: &mut Option<Connection>) -> Option<String> {
    match connection {
        Some(connected) => connected.lines.next_line().await.ok().flatten(),
        None => std::future::pending().await,
    }
}

/// Why the requests in flight got no answer.
fn ended(rendezvous: &Rendezvous) -> String {
    format!(
        "sextant's shared instance for this workspace ended before answering (its log: {}); the next call starts a new one",
        rendezvous.log.display()
    )
}

/// Answers every request in flight with `why`: a tool call as a tool
/// error, anything else as a JSON-RPC error.
async fn answer_in_flight(
    output: &mut tokio::io::Stdout,
    in_flight: &mut Vec<InFlight>,
    why: &str,
) -> std::io::Result<()> {
    for request in in_flight.drain(..) {
        let answer = if request.tool_call {
            let text = ToolError::new(ErrorCode::InstanceEnded, why).to_string();
            json!({"jsonrpc": "2.0", "id": request.id, "result": {
                "content": [{"type": "text", "text": text}], "isError": true}})
        } else {
            json!({"jsonrpc": "2.0", "id": request.id, "error": {"code": -32603, "message": why}})
        };
        output.write_all(format!("{answer}\n").as_bytes()).await?;
    }
    output.flush().await
}

/// Connects to the instance, starting it if none answers, and replays the
/// client's initialization to it when `replay` (a new instance after the
/// first).
async fn connect(
    relay: &Relay,
    rendezvous: &Rendezvous,
    initialization: &Initialization,
    replay: bool,
) -> anyhow::Result<Connection> {
    let mut connection = match reach(relay, rendezvous).await? {
        Some(connection) => connection,
        None => start(relay, rendezvous).await?,
    };
    if replay && let Some(initialize) = &initialization.initialize {
        let mut message: Value = serde_json::from_str(initialize)?;
        message["id"] = Value::String(REPLAY_ID.to_string());
        connection.send(&message.to_string()).await?;
        if let Some(initialized) = &initialization.initialized {
            connection.send(initialized).await?;
        }
    }
    Ok(connection)
}

/// A session with the running instance; `None` when none listens (no
/// socket, or a stale one).
async fn reach(relay: &Relay, rendezvous: &Rendezvous) -> anyhow::Result<Option<Connection>> {
    let Ok(stream) = UnixStream::connect(&rendezvous.socket).await else {
        return Ok(None);
    };
    let hello = Hello::Session {
        build: build_identity(),
        root: relay.spec.root.clone(),
        read_only: relay.read_only,
    };
    let (read, write) = stream.into_split();
    let mut connection = Connection {
        lines: BufReader::new(read).lines(),
        write,
    };
    // A connection that breaks before the welcome is an instance ending as
    // it was reached: as good as none.
    if connection
        .send(&serde_json::to_string(&hello)?)
        .await
        .is_err()
    {
        return Ok(None);
    }
    let welcome = tokio::time::timeout(START_WAIT, connection.lines.next_line())
        .await
        .map_err(|_| anyhow::anyhow!("the instance did not answer within {START_WAIT:?}"))?
        .unwrap_or_default();
    match welcome.map(|line| serde_json::from_str::<Welcome>(&line)) {
        Some(Ok(Welcome::Session { pid })) => {
            tracing::info!(pid, "attached to the shared instance");
            Ok(Some(connection))
        }
        Some(Ok(Welcome::Refused { why })) => anyhow::bail!("the instance refused: {why}"),
        None => Ok(None),
        Some(_) => anyhow::bail!("the instance answered something other than a welcome"),
    }
}

/// Starts the instance, unless a relay racing this one did, and connects.
async fn start(relay: &Relay, rendezvous: &Rendezvous) -> anyhow::Result<Connection> {
    let lock = take_lock(&rendezvous.lock).await?;
    if let Some(connection) = reach(relay, rendezvous).await? {
        return Ok(connection);
    }
    let mut child = spawn_instance(relay, rendezvous)?;
    let deadline = tokio::time::Instant::now() + START_WAIT;
    let connection = loop {
        if let Some(connection) = reach(relay, rendezvous).await? {
            break connection;
        }
        if let Ok(Some(status)) = child.try_wait() {
            anyhow::bail!(
                "the instance it started exited ({status}): {}",
                log_tail(&rendezvous.log)
            );
        }
        if tokio::time::Instant::now() >= deadline {
            anyhow::bail!(
                "the instance it started did not listen within {} s: {}",
                START_WAIT.as_secs(),
                log_tail(&rendezvous.log)
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    drop(lock);
    // Reaped when it ends, so no zombie is left while this relay lives.
    tokio::spawn(async move {
        let _ = child.wait().await;
    });
    Ok(connection)
}

/// The rendezvous lock, waited for (off the runtime's threads).
async fn take_lock(path: &Path) -> anyhow::Result<File> {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        file.lock()?;
        Ok(file)
    })
    .await?
}

/// `sextant serve --instance ...`, in a session of its own (a signal to
/// the relay's process group does not reach it), its stderr into the log.
fn spawn_instance(relay: &Relay, rendezvous: &Rendezvous) -> anyhow::Result<tokio::process::Child> {
    let exe = std::env::current_exe()?;
    let log = File::create(&rendezvous.log)?;
    let mut command = tokio::process::Command::new(exe);
    command
        .arg("serve")
        .arg("--instance")
        .args(&relay.instance_args)
        .current_dir(&relay.spec.root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    // SAFETY: setsid is async-signal-safe; the closure touches nothing
    // else.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok(command.spawn()?)
}

/// The last lines of the instance's log, for an error.
fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(5).collect();
    if lines.is_empty() {
        return format!("its log {} is empty", log.display());
    }
    let tail: Vec<&str> = lines.into_iter().rev().collect();
    format!("{} ends: {}", log.display(), tail.join(" | "))
}

/// What `doctor` says of the workspace's shared instance: its state, asked
/// over its socket, or that none runs.
pub async fn instance_check(spec: &InstanceSpec) -> InstanceCheck {
    let rendezvous = match spec.rendezvous() {
        Ok(rendezvous) => rendezvous,
        Err(err) => {
            return InstanceCheck::Unavailable {
                why: err.to_string(),
            };
        }
    };
    let not_running = || InstanceCheck::NotRunning {
        log: rendezvous.log.clone(),
    };
    let Ok(stream) = UnixStream::connect(&rendezvous.socket).await else {
        return not_running();
    };
    let (read, write) = stream.into_split();
    let mut connection = Connection {
        lines: BufReader::new(read).lines(),
        write,
    };
    let hello = Hello::Status {
        build: build_identity(),
    };
    let Ok(hello) = serde_json::to_string(&hello) else {
        return not_running();
    };
    if connection.send(&hello).await.is_err() {
        return not_running();
    }
    match tokio::time::timeout(START_WAIT, connection.lines.next_line()).await {
        Ok(Ok(Some(line))) => match serde_json::from_str::<Welcome>(&line) {
            Ok(Welcome::Status(state)) => InstanceCheck::Running(state),
            Ok(Welcome::Refused { why }) => InstanceCheck::Unavailable { why },
            _ => not_running(),
        },
        _ => not_running(),
    }
}
