//! The stdio transport, guarded: every line a client writes is answered.
//! (A shared instance guards each relay's socket the same way.)
//!
//! rmcp drops a line that is not JSON, or not a JSON-RPC message, without a
//! word, and answers a `tools/call` whose params are not an object as an
//! unknown method. A client that sent either would wait for an answer
//! forever. So stdin is read here first: a line that is not JSON gets a
//! parse error (-32700), one that is not a JSON-RPC 2.0 message an invalid
//! request (-32600), and a tool call whose params are malformed invalid
//! params (-32602); the rest goes on to rmcp. rmcp's output and these
//! answers reach stdout through one writer, a whole line at a time, so the
//! two never interleave.
//!
//! The process's stdin and stdout are read and written by the runtime's
//! own reactor where they are pipes or sockets (every MCP client's), not
//! by threads of their own: see [`input`] and [`output`].

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::guard::{check, error_line};

/// How much rmcp and the guard may buffer between them.
const PIPE_BYTES: usize = 1 << 20;

/// The task writing rmcp's lines to stdout: it ends once rmcp has closed
/// its end and every line is written.
pub struct Writer(JoinHandle<()>);

impl Writer {
    /// Waits (at most `limit`) for the lines rmcp wrote before it closed
    /// to reach stdout, so that an answer given as the process ends is not
    /// cut off with the runtime.
    pub async fn finished(self, limit: Duration) {
        let _ = tokio::time::timeout(limit, self.0).await;
    }
}

/// The two ends rmcp reads from and writes to, with the tasks that move
/// lines between them and the process's stdin and stdout.
pub fn guarded() -> ((DuplexStream, DuplexStream), Writer) {
    let (rmcp, writer) = guard(input(), output());
    (rmcp, Writer(writer))
}

/// `guarded` over any pair of byte streams (a relay's socket).
pub fn guarded_stream(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> (DuplexStream, DuplexStream) {
    guard(input, output).0
}

fn guard(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> ((DuplexStream, DuplexStream), JoinHandle<()>) {
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (answers, answered) = mpsc::unbounded_channel::<String>();
    tokio::spawn(read_input(input, to_rmcp, answers));
    let writer = tokio::spawn(write_output(output, from_rmcp, answered));
    ((rmcp_reads, rmcp_writes), writer)
}

/// The process's stdin. A pipe or a socket is read by the runtime's
/// reactor: the worker woken by the client's line reads it itself. tokio's
/// `Stdin` reads on a thread of the blocking pool, which then has to wake a
/// worker: one more thread switch before every call (tens of microseconds,
/// more on a machine whose cores sleep). Anything else (a file, a
/// terminal) is read as tokio's `Stdin` does.
pub fn input() -> Box<dyn AsyncRead + Unpin + Send> {
    type Input = Box<dyn AsyncRead + Unpin + Send>;
    let pipe = |fd| Ok(Box::new(tokio::net::unix::pipe::Receiver::from_owned_fd(fd)?) as Input);
    reactor_stream(std::io::stdin().as_fd(), pipe, |socket| {
        Box::new(socket) as Input
    })
    .unwrap_or_else(|| Box::new(tokio::io::stdin()))
}

/// The process's stdout: a pipe or a socket written by the runtime's
/// reactor, else by a thread of its own ([`StdoutThread`]).
pub fn output() -> Box<dyn AsyncWrite + Unpin + Send> {
    type Output = Box<dyn AsyncWrite + Unpin + Send>;
    let pipe = |fd| Ok(Box::new(tokio::net::unix::pipe::Sender::from_owned_fd(fd)?) as Output);
    reactor_stream(std::io::stdout().as_fd(), pipe, |socket| {
        Box::new(socket) as Output
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

/// Passes the input's lines on to rmcp, answering the ones it would drop.
async fn read_input(
    input: impl AsyncRead + Unpin,
    mut to_rmcp: DuplexStream,
    answers: mpsc::UnboundedSender<String>,
) {
    let mut lines = BufReader::new(input).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            // End of input (or bytes that are not UTF-8 ending it): rmcp
            // sees the end and stops.
            Ok(None) => break,
            Err(err) => {
                let _ = answers.send(error_line(
                    &Value::Null,
                    -32700,
                    &format!("Parse error: the input is not UTF-8 text ({err})"),
                ));
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match check(&line) {
            Ok(()) => {
                let mut bytes = line.into_bytes();
                bytes.push(b'\n');
                if to_rmcp.write_all(&bytes).await.is_err() {
                    break;
                }
            }
            Err(answer) => {
                let _ = answers.send(answer);
            }
        }
    }
}

/// Writes rmcp's lines and the guard's answers to the output, whole lines.
async fn write_output(
    mut stdout: impl AsyncWrite + Unpin,
    from_rmcp: DuplexStream,
    mut answered: mpsc::UnboundedReceiver<String>,
) {
    let mut rmcp_lines = BufReader::new(from_rmcp).lines();
    let mut answers_open = true;
    loop {
        let line = tokio::select! {
            line = rmcp_lines.next_line() => match line {
                Ok(Some(line)) => line,
                _ => break,
            },
            answer = answered.recv(), if answers_open => match answer {
                Some(answer) => answer,
                None => {
                    answers_open = false;
                    continue;
                }
            },
        };
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
            break;
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
