//! The stdio transport, guarded: every line a client writes is answered.
//! (A shared instance guards each relay's socket the same way.)
//!
//! rmcp drops a line that is not JSON without a word, answers one that is
//! not a message it can type without its id, and a `tools/call` whose
//! params are not an object as an unknown method. A client that sent any
//! of these would wait for its answer forever. So each line is checked here
//! first ([`guard::check`]): a line that is not JSON gets a parse error
//! (-32700), one that is not a JSON-RPC 2.0 message an invalid request
//! (-32600), and a tool call whose params are malformed invalid params
//! (-32602); the rest goes on to rmcp, and a request rmcp cannot type is
//! answered here with its id (a notification or a response never is).
//!
//! This is rmcp's transport itself ([`Guarded`]), not a task in front of
//! it: rmcp's own reader sat behind an in-memory pipe the guard wrote to,
//! and its writer before one a task read lines back from, which cost every
//! call two more task wake-ups, a second parse of its request and a copy
//! of its answer (a tenth of a millisecond for an answer of 30 KB). rmcp's
//! answers and the guard's reach the output a whole line at a time, under
//! one lock, so the two never interleave; the guard's are written by tasks
//! that closing waits for (at most [`CLOSE_WAIT`]).
//!
//! The process's stdin and stdout are read and written by the runtime's
//! own reactor where they are pipes or sockets (every MCP client's), not
//! by threads of their own: see [`input`] and [`output`].
//!
//! [`guard::check`]: super::guard::check

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, JsonRpcMessage, JsonRpcRequest,
    MetaObject, NumberOrString, RequestMetaObject,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, watch};
use tokio_util::task::TaskTracker;

use super::guard::{check, error_line};

type ClientInput = Box<dyn AsyncRead + Unpin + Send>;
type ClientOutput = Box<dyn AsyncWrite + Unpin + Send>;

/// How long closing waits for the lines still to be written (a client
/// that stopped reading would hold it for ever).
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Says when rmcp has closed the transport: the lines given before are
/// then written (or given up after [`CLOSE_WAIT`]).
pub struct Closed(watch::Receiver<bool>);

impl Closed {
    /// Waits (at most `limit`) for the lines given before the transport
    /// closed to reach stdout, so that an answer given as the process ends
    /// is not cut off with the runtime.
    pub async fn finished(mut self, limit: Duration) {
        let _ = tokio::time::timeout(limit, self.0.wait_for(|closed| *closed)).await;
    }
}

/// The process's stdio as rmcp's transport, guarded, and what says when
/// its last line is written.
pub fn guarded() -> (Guarded, Closed) {
    let guarded = guarded_stream(input(), output());
    let closed = Closed(guarded.lines.closed.subscribe());
    (guarded, closed)
}

/// `guarded` over any pair of byte streams (a relay's socket).
pub fn guarded_stream(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> Guarded {
    Guarded {
        input: BufReader::new(Box::new(input)),
        line: Vec::new(),
        lines: Lines {
            output: Arc::new(Mutex::new(Output {
                stream: Some(Box::new(output)),
                unwritten: Vec::new(),
            })),
            answers: TaskTracker::new(),
            closed: Arc::new(watch::Sender::new(false)),
        },
    }
}

/// rmcp's transport over a client's byte streams: a line read is checked
/// before rmcp sees it, and answered here when rmcp could not.
pub struct Guarded {
    input: BufReader<ClientInput>,
    /// The line being read. rmcp drops an unfinished `receive` whenever
    /// another of its events comes first: the bytes read so far wait here
    /// for the next one.
    line: Vec<u8>,
    lines: Lines,
}

/// Where whole lines are written: rmcp's answers and the guard's.
#[derive(Clone)]
struct Lines {
    output: Arc<Mutex<Output>>,
    /// The guard's answers being written: each in a task of its own, so
    /// that a `receive` dropped unfinished never leaves half a line.
    answers: TaskTracker,
    closed: Arc<watch::Sender<bool>>,
}

/// The output stream and the bytes of lines not yet written to it.
struct Output {
    /// `None` once closed.
    stream: Option<ClientOutput>,
    /// A write dropped halfway (rmcp gives up a send at its shutdown after
    /// a time) leaves the rest of its line here, written before anything
    /// else: a line is never cut by another.
    unwritten: Vec<u8>,
}

impl Output {
    /// Writes what is unwritten; bytes leave `unwritten` only once written.
    async fn drain(&mut self) -> std::io::Result<()> {
        let stream = self
            .stream
            .as_mut()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotConnected))?;
        let written = async {
            while !self.unwritten.is_empty() {
                match stream.write(&self.unwritten).await? {
                    0 => return Err(std::io::ErrorKind::WriteZero.into()),
                    count => drop(self.unwritten.drain(..count)),
                }
            }
            stream.flush().await
        }
        .await;
        if written.is_err() {
            // The client is gone: what it did not take is not kept.
            self.unwritten.clear();
        }
        written
    }
}

impl Lines {
    async fn write(&self, line: &[u8]) -> std::io::Result<()> {
        let mut output = self.output.lock().await;
        if output.stream.is_none() {
            return Err(std::io::ErrorKind::NotConnected.into());
        }
        output.unwritten.extend_from_slice(line);
        output.drain().await
    }

    /// The guard's answer to a line rmcp is not given.
    fn answer(&self, mut answer: String) {
        answer.push('\n');
        let lines = self.clone();
        self.answers.spawn(async move {
            let _ = lines.write(answer.as_bytes()).await;
        });
    }
}

impl Transport<RoleServer> for Guarded {
    type Error = std::io::Error;

    fn send(
        &mut self,
        message: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let lines = self.lines.clone();
        async move {
            let mut line = serde_json::to_vec(&message)?;
            line.push(b'\n');
            lines.write(&line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // Cancel-safe: the bytes read stay in `self.line`.
            match self.input.read_until(b'\n', &mut self.line).await {
                // End of input (a last line without a line end is read first).
                Ok(0) if self.line.is_empty() => return None,
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!("reading the client's input failed: {err}");
                    return None;
                }
            }
            let read = read_message(&self.line);
            self.line.clear();
            match read {
                Read::Message(message) => return Some(*message),
                Read::Answer(answer) => self.lines.answer(answer),
                Read::Nothing => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // The guard's answers first, then what is unwritten, then the
        // output goes.
        let lines = &self.lines;
        lines.answers.close();
        let _ = tokio::time::timeout(CLOSE_WAIT, async {
            lines.answers.wait().await;
            let mut output = lines.output.lock().await;
            let _ = output.drain().await;
            if let Some(mut stream) = output.stream.take() {
                let _ = stream.shutdown().await;
            }
        })
        .await;
        lines.closed.send_replace(true);
        Ok(())
    }
}

/// What a line of the client's is.
enum Read {
    /// A message for rmcp.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answered by the guard.
    Answer(String),
    /// Blank, or a notification or response rmcp cannot type (never
    /// answered).
    Nothing,
}

fn read_message(line: &[u8]) -> Read {
    // RFC 8259 lets a reader ignore a byte order mark (rmcp does).
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let Ok(text) = std::str::from_utf8(line) else {
        return Read::Answer(error_line(
            &Value::Null,
            -32700,
            "Parse error: the input is not UTF-8 text",
        ));
    };
    if text.trim().is_empty() {
        return Read::Nothing;
    }
    let message = match check(text) {
        Ok(message) => message,
        Err(answer) => return Read::Answer(answer),
    };
    // Only a request is answered: a notification never is, and a response
    // answered would fail the client's own request of that id.
    let request_id = message
        .get("method")
        .and_then(|_| message.get("id"))
        .cloned();
    match typed(message) {
        Ok(message) => Read::Message(Box::new(message)),
        // A message rmcp has no type for.
        Err(err) => match request_id {
            Some(id) => Read::Answer(error_line(&id, -32600, &format!("Invalid Request: {err}"))),
            None => {
                tracing::debug!("a message of the client's left unread: {err}");
                Read::Nothing
            }
        },
    }
}

/// The message as rmcp's own reading types it: a plain tool call made
/// from its parts (`tool_call`), any other its kind told by the keys
/// present (rmcp's rule), then that kind read. rmcp's reading tries the
/// kinds in turn from a buffered copy of the message and checks each
/// kind's keys in a pass of its own: in `perf` of 300 `read_file` calls
/// 20 ms apart (each read by a process that idled, so slowly), 0.11 ms of
/// a call's 0.8 ms of CPU; this reading took 0.08. A message of no kind
/// is left to rmcp to refuse, in its words.
fn typed(message: Value) -> serde_json::Result<RxJsonRpcMessage<RoleServer>> {
    let message = match tool_call(message) {
        Ok(call) => return Ok(call),
        Err(message) => message,
    };
    let Value::Object(object) = &message else {
        return serde_json::from_value(message);
    };
    let has = |key: &str| object.contains_key(key);
    match (has("method"), has("id"), has("result"), has("error")) {
        (true, true, false, false) => serde_json::from_value(message).map(JsonRpcMessage::Request),
        (true, false, false, false) => {
            serde_json::from_value(message).map(JsonRpcMessage::Notification)
        }
        (false, _, true, false) => serde_json::from_value(message).map(JsonRpcMessage::Response),
        (false, _, false, true) => serde_json::from_value(message).map(JsonRpcMessage::Error),
        _ => serde_json::from_value(message),
    }
}

/// A tool call of the plain shape every client sends (`jsonrpc`, `id`,
/// `method`, and `params` of `name`, `arguments` and `_meta` alone), made
/// into rmcp's type from the parts of the message read; any other message
/// is given back. Every call came through serde's reading of rmcp's
/// request types, whose code, run cold after the agent's pause, took
/// 0.035-0.06 ms of the 0.5 ms a `read` call spent in sextant; this takes
/// 0.005-0.007 (timing marks in a scratch build, calls 30 ms apart).
fn tool_call(message: Value) -> Result<RxJsonRpcMessage<RoleServer>, Value> {
    let Value::Object(mut object) = message else {
        return Err(message);
    };
    let id = match object.get("id") {
        Some(Value::String(id)) => Some(NumberOrString::String(id.as_str().into())),
        Some(Value::Number(id)) => id.as_i64().map(NumberOrString::Number),
        _ => None,
    };
    let name = match object.get("params") {
        Some(Value::Object(params))
            if params.iter().all(|(key, value)| match key.as_str() {
                "name" => value.is_string(),
                "arguments" | "_meta" => value.is_object(),
                _ => false,
            }) =>
        {
            params
                .get("name")
                .and_then(Value::as_str)
                .map(str::to_string)
        }
        _ => None,
    };
    let plain = object.len() == 4
        && object.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && object.get("method").and_then(Value::as_str) == Some("tools/call");
    let (true, Some(id), Some(name)) = (plain, id, name) else {
        return Err(Value::Object(object));
    };
    // An object, as `name` was found in it: its parts are taken as they
    // are (anything else is put back, and the message given back whole).
    let mut params = match object.remove("params") {
        Some(Value::Object(params)) => params,
        other => {
            object.extend(other.map(|params| ("params".to_string(), params)));
            return Err(Value::Object(object));
        }
    };
    let mut taken = |key| match params.remove(key) {
        Some(Value::Object(object)) => Some(object),
        _ => None,
    };
    let mut call = CallToolRequestParams::new(name);
    call.arguments = taken("arguments");
    // Where rmcp's reading puts `_meta` (the progress token): in the
    // request's extensions, not in its params.
    let meta = taken("_meta");
    let mut request = CallToolRequest::new(call);
    if let Some(meta) = meta {
        request
            .extensions
            .insert(RequestMetaObject(MetaObject(meta)));
    }
    Ok(JsonRpcMessage::Request(JsonRpcRequest::new(
        id,
        ClientRequest::CallToolRequest(request),
    )))
}

/// The process's stdin. A pipe or a socket is read by the runtime's
/// reactor: the worker woken by the client's line reads it itself. tokio's
/// `Stdin` reads on a thread of the blocking pool, which then has to wake a
/// worker: one more thread switch before every call (tens of microseconds,
/// more on a machine whose cores sleep). Anything else (a file, a
/// terminal) is read as tokio's `Stdin` does.
pub fn input() -> ClientInput {
    let pipe =
        |fd| Ok(Box::new(tokio::net::unix::pipe::Receiver::from_owned_fd(fd)?) as ClientInput);
    reactor_stream(std::io::stdin().as_fd(), pipe, |socket| {
        Box::new(socket) as ClientInput
    })
    .unwrap_or_else(|| Box::new(tokio::io::stdin()))
}

/// The process's stdout: a pipe or a socket written by the runtime's
/// reactor, else by a thread of its own ([`StdoutThread`]).
pub fn output() -> ClientOutput {
    let pipe =
        |fd| Ok(Box::new(tokio::net::unix::pipe::Sender::from_owned_fd(fd)?) as ClientOutput);
    reactor_stream(std::io::stdout().as_fd(), pipe, |socket| {
        Box::new(socket) as ClientOutput
    })
    .unwrap_or_else(|| Box::new(StdoutThread::start()))
}

/// `fd` driven by the reactor, made by `pipe` from a copy of it when it is
/// a pipe, by `socket` when it is a stream socket (Node gives its child
/// processes socket pairs); `None` for anything else, or when it cannot
/// be. The copy is put in non-blocking mode, which belongs to the open
/// pipe or socket: the client gave it to this process alone (its own end
/// is another), so no other reader or writer sees the mode change.
fn reactor_stream<T>(
    fd: BorrowedFd<'_>,
    pipe: impl FnOnce(OwnedFd) -> std::io::Result<T>,
    socket: impl FnOnce(tokio::net::UnixStream) -> T,
) -> Option<T> {
    let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
    let kind = file.metadata().ok()?.file_type();
    let driven = if kind.is_fifo() {
        pipe(OwnedFd::from(file))
    } else if kind.is_socket() {
        let stream = std::os::unix::net::UnixStream::from(OwnedFd::from(file));
        stream
            .set_nonblocking(true)
            .and_then(|()| tokio::net::UnixStream::from_std(stream))
            .map(socket)
    } else {
        return None;
    };
    match driven {
        Ok(stream) => Some(stream),
        Err(err) => {
            tracing::debug!("a standard stream is left to a thread: {err}");
            None
        }
    }
}

/// Standard output, written by a thread of its own. tokio's `Stdout`
/// hands each write and each flush to the blocking pool and waits for it:
/// two thread switches on every answer, a few tenths of a millisecond an
/// agent waits. Here a write queues the bytes for the thread, which writes
/// and flushes them at once; it stops at the first error (the client gone),
/// and every write after fails. Dropped (as the process ends), it waits
/// for the bytes queued to be written.
struct StdoutThread {
    lines: Option<std::sync::mpsc::Sender<Vec<u8>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StdoutThread {
    fn start() -> StdoutThread {
        let (lines, queued) = std::sync::mpsc::channel::<Vec<u8>>();
        let thread = std::thread::spawn(move || {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            while let Ok(bytes) = queued.recv() {
                if stdout.write_all(&bytes).is_err() || stdout.flush().is_err() {
                    break;
                }
            }
        });
        StdoutThread {
            lines: Some(lines),
            thread: Some(thread),
        }
    }
}

impl Drop for StdoutThread {
    fn drop(&mut self) {
        // The queue closed, the thread ends once it has written the rest.
        self.lines.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl AsyncWrite for StdoutThread {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        bytes: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let sent = match &self.lines {
            Some(lines) => lines.send(bytes.to_vec()).is_ok(),
            None => false,
        };
        std::task::Poll::Ready(match sent {
            true => Ok(bytes.len()),
            false => Err(std::io::ErrorKind::BrokenPipe.into()),
        })
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::GetMeta;
    use serde_json::json;
    use tokio::io::DuplexStream;

    /// The transport over in-memory pipes, with the client's two ends.
    fn transport() -> (Guarded, DuplexStream, BufReader<DuplexStream>) {
        let (client_writes, input) = tokio::io::duplex(1 << 16);
        let (output, client_reads) = tokio::io::duplex(1 << 16);
        let guarded = guarded_stream(input, output);
        (guarded, client_writes, BufReader::new(client_reads))
    }

    async fn received(guarded: &mut Guarded) -> Value {
        let message = tokio::time::timeout(Duration::from_secs(5), guarded.receive())
            .await
            .expect("a message within 5 s")
            .expect("a message, not the end");
        serde_json::to_value(&message).unwrap()
    }

    #[tokio::test]
    async fn a_line_read_across_receives_dropped_unfinished_is_whole() {
        let (mut guarded, mut client, _) = transport();
        let line = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        let (head, tail) = line.split_at(20);
        client.write_all(head.as_bytes()).await.unwrap();
        // rmcp drops a receive unfinished when another event comes first.
        for _ in 0..3 {
            assert!(futures::poll!(std::pin::pin!(guarded.receive())).is_pending());
        }
        client.write_all(tail.as_bytes()).await.unwrap();
        client.write_all(b"\n").await.unwrap();
        assert_eq!(received(&mut guarded).await["id"], json!(7));
    }

    #[tokio::test]
    async fn a_write_dropped_halfway_is_finished_before_the_next_line() {
        let (_client, input) = tokio::io::duplex(64);
        // Room for 8 bytes until the client reads.
        let (output, client_reads) = tokio::io::duplex(8);
        let lines = guarded_stream(input, output).lines;
        let first = format!("{}\n", "a".repeat(20));
        // rmcp gives up a send at its shutdown after a time.
        assert!(futures::poll!(std::pin::pin!(lines.write(first.as_bytes()))).is_pending());
        let second = lines.clone();
        let writing = tokio::spawn(async move { second.write(b"second\n").await });
        let mut client = BufReader::new(client_reads);
        let mut line = String::new();
        client.read_line(&mut line).await.unwrap();
        assert_eq!(line, first, "the first line whole, then the second");
        line.clear();
        client.read_line(&mut line).await.unwrap();
        assert_eq!(line, "second\n");
        writing.await.unwrap().unwrap();
    }

    /// `typed` reads every message as rmcp's own reading does: the same
    /// message (as rmcp writes it back, `_meta` and all), or an error where
    /// rmcp gives one.
    #[test]
    fn messages_are_typed_as_rmcp_types_them() {
        let taken = [
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"read","arguments":{"file":"src/lib.rs","depth":2},"_meta":{"progressToken":7}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"logs"}}"#,
            r#"{"jsonrpc":"2.0","id":-12,"method":"tools/call","params":{"arguments":{"a":[1,{"b":null}]},"name":"grep"}}"#,
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"read","_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}"#,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read","arguments":null}}"#,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"read","arguments":{},"requestState":"s"}}"#,
            // Left to rmcp, which takes them (the guard refuses them first).
            r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":7}}"#,
            r#"{"jsonrpc":"2.0","id":-3,"method":"a/method/of/its/own","params":{"x":[1]}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"r"}}"#,
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":6,"result":{"roots":[{"uri":"file:///r","name":"r"}]}}"#,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}"#,
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse"}}"#,
        ];
        // None that rmcp takes:
        let refused = [
            r#"{"jsonrpc":"2.0","method":"notifications/of_another_protocol","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"initialize","params":7}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"read"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#,
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":1}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#,
            r#""a string""#,
        ];
        // Written back, and a request's `_meta` as the server reads it (a
        // message written puts its `_meta` into its params wherever it
        // was kept).
        let written = |read: serde_json::Result<RxJsonRpcMessage<RoleServer>>| {
            read.map(|message| {
                let meta = match &message {
                    JsonRpcMessage::Request(request) => Some(request.request.get_meta().clone()),
                    _ => None,
                };
                (serde_json::to_value(message).unwrap(), meta)
            })
            .map_err(drop)
        };
        let taken = taken.map(|line| (line, true));
        for (line, takes) in taken.into_iter().chain(refused.map(|line| (line, false))) {
            let value: Value = serde_json::from_str(line).unwrap();
            let rmcps = written(serde_json::from_value(value.clone()));
            assert_eq!(rmcps.is_ok(), takes, "rmcp's reading of {line}");
            assert_eq!(written(typed(value)), rmcps, "{line}");
        }
        // The plain tool calls are made without rmcp's reading, and what
        // is not plain is given back whole.
        for (line, plain) in [
            (taken[1].0, true),
            (taken[2].0, true),
            (taken[3].0, true),
            (taken[4].0, true),
        ]
        .into_iter()
        .chain(
            taken[5..]
                .iter()
                .chain(&refused.map(|line| (line, false)))
                .map(|(line, _)| (*line, false)),
        ) {
            let value: Value = serde_json::from_str(line).unwrap();
            match tool_call(value.clone()) {
                Ok(_) => assert!(plain, "{line}"),
                Err(given_back) => {
                    assert!(!plain, "{line}");
                    assert_eq!(given_back, value);
                }
            }
        }
    }

    #[tokio::test]
    async fn lines_rmcp_cannot_take_are_answered_and_written_before_it_closes() {
        let (mut guarded, mut client, mut answers) = transport();
        let lines = [
            "not json",
            "",
            r#"{"jsonrpc":"2.0","method":"notifications/of_another_protocol"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"initialize","params":7}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
            // Neither a notification nor a response rmcp cannot type is
            // answered (the client's request 0 is not failed).
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#,
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":1}}"#,
            "{ not JSON either",
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}",
        ];
        for line in lines {
            client.write_all(line.as_bytes()).await.unwrap();
            client.write_all(b"\n").await.unwrap();
        }
        client.write_all(b"\xff\xfe\n").await.unwrap();
        // The last line has no line end.
        client
            .write_all(br#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#)
            .await
            .unwrap();
        drop(client);
        // rmcp takes a notification of any method (and leaves it).
        let first = received(&mut guarded).await;
        assert_eq!(first["method"], json!("notifications/of_another_protocol"));
        for id in [8, 9, 10] {
            let next = received(&mut guarded).await;
            assert_eq!(next["id"], json!(id), "{next}");
        }
        let end = tokio::time::timeout(Duration::from_secs(5), guarded.receive()).await;
        assert!(
            matches!(end, Ok(None)),
            "the input's end ends the transport"
        );
        guarded.close().await.unwrap();
        let mut codes = Vec::new();
        let mut line = String::new();
        while answers.read_line(&mut line).await.unwrap() > 0 {
            let answer: Value = serde_json::from_str(&line).unwrap();
            codes.push((answer["id"].clone(), answer["error"]["code"].clone()));
            line.clear();
        }
        codes.sort_by_key(|(id, code)| (id.to_string(), code.to_string()));
        assert_eq!(
            codes,
            [
                (json!("x"), json!(-32600)),
                (Value::Null, json!(-32700)),
                (Value::Null, json!(-32700)),
                (Value::Null, json!(-32700)),
            ],
            "each line rmcp cannot take answered"
        );
    }
}
