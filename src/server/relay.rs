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

/// How long an instance has to answer a hello.
const HELLO_WAIT: Duration = Duration::from_secs(10);

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
    /// Any bytes: what is not a JSON object (not UTF-8, even) has neither.
    fn of(line: &[u8]) -> Head {
        serde_json::from_slice(line).unwrap_or_default()
    }
}

/// A connection to the instance, past its hello.
struct Connection {
    lines: Lines<BufReader<OwnedReadHalf>>,
    write: OwnedWriteHalf,
}

impl Connection {
    async fn send(&mut self, line: &[u8]) -> std::io::Result<()> {
        self.write.write_all(line).await?;
        self.write.write_all(b"\n").await?;
        self.write.flush().await
    }
}

/// The client's initialization, replayed to a new instance.
#[derive(Default)]
struct Initialization {
    initialize: Option<Vec<u8>>,
    initialized: Option<Vec<u8>>,
}

/// A request sent on and not yet answered.
struct InFlight {
    id: Value,
    tool_call: bool,
}

/// Relays stdin and stdout to the instance until the client closes stdin.
pub async fn relay(relay: Relay) -> anyhow::Result<()> {
    let rendezvous = relay.spec.rendezvous()?;
    let mut input = BufReader::new(super::stdio::input());
    // Bytes, not text: a line that is not UTF-8 goes on to the instance's
    // guard, which answers it, as a line of any other kind.
    let mut line = Vec::new();
    let mut session = Session {
        relay,
        rendezvous,
        output: super::stdio::output(),
        connection: None,
        initialization: Initialization::default(),
        in_flight: Vec::new(),
    };
    loop {
        tokio::select! {
            read = input.read_until(b'\n', &mut line) => {
                if read? == 0 {
                    break;
                }
                let complete = std::mem::take(&mut line);
                session.on_client_line(complete).await?;
            }
            line = next_line(&mut session.connection) => session.on_instance_line(line).await?,
        }
    }
    Ok(())
}

/// One client's session as the relay keeps it.
struct Session {
    relay: Relay,
    rendezvous: Rendezvous,
    output: Box<dyn tokio::io::AsyncWrite + Unpin + Send>,
    /// `None` before the first message, and after the instance ended.
    connection: Option<Connection>,
    initialization: Initialization,
    in_flight: Vec<InFlight>,
}

impl Session {
    /// A line of the client's: noted, and sent on (connecting first if
    /// need be).
    async fn on_client_line(&mut self, mut line: Vec<u8>) -> std::io::Result<()> {
        while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let head = Head::of(&line);
        match head.method.as_deref() {
            Some("initialize") => self.initialization.initialize = Some(line.clone()),
            Some("notifications/initialized") => {
                self.initialization.initialized = Some(line.clone());
            }
            _ => {}
        }
        if let (Some(id), Some(method)) = (&head.id, &head.method) {
            self.in_flight.push(InFlight {
                id: id.clone(),
                tool_call: method == "tools/call",
            });
        }
        if self.connection.is_none() {
            let replay = head.method.as_deref() != Some("initialize");
            match connect(&self.relay, &self.rendezvous, &self.initialization, replay).await {
                Ok(connected) => self.connection = Some(connected),
                Err(err) => {
                    tracing::warn!("{err:#}");
                    let why = format!(
                        "sextant's shared instance for this workspace could not be reached: {err:#}; run sextant serve --no-shared to serve without one"
                    );
                    return self.answer_in_flight(&why).await;
                }
            }
        }
        let sent = match self.connection.as_mut() {
            Some(connected) => connected.send(&line).await.is_ok(),
            None => false,
        };
        if !sent {
            self.lost().await?;
        }
        Ok(())
    }

    /// A line of the instance's, passed on (but the replayed
    /// initialization's answer); `None`: the instance ended.
    async fn on_instance_line(&mut self, line: Option<String>) -> std::io::Result<()> {
        let Some(line) = line else {
            tracing::warn!("the shared instance closed the connection");
            return self.lost().await;
        };
        let head = Head::of(line.as_bytes());
        if head.method.is_none()
            && let Some(id) = &head.id
        {
            if id == REPLAY_ID {
                return Ok(());
            }
            self.in_flight.retain(|request| request.id != *id);
        }
        // One write per line: stdout may be a pipe written as it comes.
        let mut line = line;
        line.push('\n');
        self.output.write_all(line.as_bytes()).await?;
        self.output.flush().await
    }

    /// The instance is gone: what was in flight is answered so, and the
    /// next message connects anew.
    async fn lost(&mut self) -> std::io::Result<()> {
        self.connection = None;
        let why = format!(
            "sextant's shared instance for this workspace ended before answering (its log: {}); the next call starts a new one",
            self.rendezvous.log.display()
        );
        self.answer_in_flight(&why).await
    }

    /// Answers every request in flight with `why`: a tool call as a tool
    /// error, anything else as a JSON-RPC error.
    async fn answer_in_flight(&mut self, why: &str) -> std::io::Result<()> {
        for request in self.in_flight.drain(..) {
            let answer = if request.tool_call {
                let text = ToolError::new(ErrorCode::InstanceEnded, why).to_string();
                json!({"jsonrpc": "2.0", "id": request.id, "result": {
                    "content": [{"type": "text", "text": text}], "isError": true}})
            } else {
                json!({"jsonrpc": "2.0", "id": request.id, "error": {"code": -32603, "message": why}})
            };
            self.output
                .write_all(format!("{answer}\n").as_bytes())
                .await?;
        }
        self.output.flush().await
    }
}

/// The next line from the instance; `None` when the connection ended;
/// never ready without one.
async fn next_line(connection: &mut Option<Connection>) -> Option<String> {
    match connection {
        Some(connected) => connected.lines.next_line().await.ok().flatten(),
        None => std::future::pending().await,
    }
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
        let mut message: Value = serde_json::from_slice(initialize)?;
        message["id"] = Value::String(REPLAY_ID.to_string());
        connection.send(message.to_string().as_bytes()).await?;
        if let Some(initialized) = &initialization.initialized {
            connection.send(initialized).await?;
        }
    }
    Ok(connection)
}

/// A session with the running instance; `None` when none listens (no
/// socket, a stale one, one ending as it is reached).
async fn reach(relay: &Relay, rendezvous: &Rendezvous) -> anyhow::Result<Option<Connection>> {
    let hello = Hello::Session {
        build: build_identity(),
        root: relay.spec.root.clone(),
        read_only: relay.read_only,
    };
    match greet(&rendezvous.socket, &hello).await? {
        Some((connection, Welcome::Session { pid })) => {
            tracing::info!(pid, "attached to the shared instance");
            Ok(Some(connection))
        }
        Some((_, Welcome::Refused { why })) => anyhow::bail!("the instance refused: {why}"),
        Some((_, Welcome::Status(_))) => {
            anyhow::bail!("the instance answered a session's hello with its status")
        }
        None => Ok(None),
    }
}

/// Connects to `socket` and says `hello`: the connection and the
/// instance's welcome; `None` when no instance answers there.
async fn greet(socket: &Path, hello: &Hello) -> anyhow::Result<Option<(Connection, Welcome)>> {
    let Ok(stream) = UnixStream::connect(socket).await else {
        return Ok(None);
    };
    let (read, write) = stream.into_split();
    let mut connection = Connection {
        lines: BufReader::new(read).lines(),
        write,
    };
    // A connection that breaks before the welcome is an instance ending as
    // it was reached: as good as none.
    if connection
        .send(serde_json::to_string(hello)?.as_bytes())
        .await
        .is_err()
    {
        return Ok(None);
    }
    let Ok(Some(line)) = tokio::time::timeout(HELLO_WAIT, connection.lines.next_line())
        .await
        .map_err(|_| {
            anyhow::anyhow!(
                "the instance at {} did not answer within {} s",
                socket.display(),
                HELLO_WAIT.as_secs()
            )
        })?
    else {
        return Ok(None);
    };
    let welcome = serde_json::from_str(&line)
        .map_err(|_| anyhow::anyhow!("the instance answered something other than a welcome"))?;
    Ok(Some((connection, welcome)))
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
    let hello = Hello::Status {
        build: build_identity(),
    };
    match greet(&rendezvous.socket, &hello).await {
        Ok(Some((_, Welcome::Status(state)))) => InstanceCheck::Running(state),
        Ok(Some((_, Welcome::Refused { why }))) => InstanceCheck::Unavailable { why },
        Err(err) => InstanceCheck::Unavailable {
            why: err.to_string(),
        },
        Ok(_) => InstanceCheck::NotRunning {
            log: rendezvous.log,
        },
    }
}
