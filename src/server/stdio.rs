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

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

use super::guard::{check, error_line};

/// How much rmcp and the guard may buffer between them.
const PIPE_BYTES: usize = 1 << 20;

/// The two ends rmcp reads from and writes to, with the tasks that move
/// lines between them and the process's stdin and stdout.
pub fn guarded() -> (DuplexStream, DuplexStream) {
    guarded_stream(tokio::io::stdin(), tokio::io::stdout())
}

/// `guarded` over any pair of byte streams (a relay's socket).
pub fn guarded_stream(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
) -> (DuplexStream, DuplexStream) {
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (answers, answered) = mpsc::unbounded_channel::<String>();
    tokio::spawn(read_input(input, to_rmcp, answers));
    tokio::spawn(write_output(output, from_rmcp, answered));
    (rmcp_reads, rmcp_writes)
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
