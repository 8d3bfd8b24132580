//! The stdio transport, guarded: every line a client writes is answered.
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

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// How much rmcp and the guard may buffer between them.
const PIPE_BYTES: usize = 1 << 20;

/// The two ends rmcp reads from and writes to, with the tasks that move
/// lines between them and the process's stdin and stdout.
pub fn guarded() -> (DuplexStream, DuplexStream) {
    let (to_rmcp, rmcp_reads) = tokio::io::duplex(PIPE_BYTES);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (answers, answered) = mpsc::unbounded_channel::<String>();
    tokio::spawn(read_stdin(to_rmcp, answers));
    tokio::spawn(write_stdout(from_rmcp, answered));
    (rmcp_reads, rmcp_writes)
}

/// Passes stdin's lines on to rmcp, answering the ones it would drop.
async fn read_stdin(mut to_rmcp: DuplexStream, answers: mpsc::UnboundedSender<String>) {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
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

/// Writes rmcp's lines and the guard's answers to stdout, whole lines.
async fn write_stdout(from_rmcp: DuplexStream, mut answered: mpsc::UnboundedReceiver<String>) {
    let mut stdout = tokio::io::stdout();
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

/// `Ok` for a line rmcp can take; else the answer to send back.
fn check(line: &str) -> Result<(), String> {
    let message: Value = serde_json::from_str(line)
        .map_err(|err| error_line(&Value::Null, -32700, &format!("Parse error: {err}")))?;
    let id = match message.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    let invalid = |why: &str| error_line(&id, -32600, &format!("Invalid Request: {why}"));
    let Value::Object(object) = &message else {
        return Err(invalid("a message is one JSON object"));
    };
    if object.get("jsonrpc") != Some(&json!("2.0")) {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    if let Some(raw_id) = object.get("id")
        && !matches!(raw_id, Value::String(_) | Value::Number(_))
    {
        return Err(invalid("`id` must be a string or a number"));
    }
    match object.get("method") {
        Some(Value::String(method)) => {
            if method == "tools/call" && id != Value::Null {
                check_tool_call(object.get("params"))
                    .map_err(|why| error_line(&id, -32602, &format!("Invalid params: {why}")))?;
            }
            Ok(())
        }
        Some(_) => Err(invalid("`method` must be a string")),
        // A response to a request of the server's.
        None if object.contains_key("result") || object.contains_key("error") => Ok(()),
        None => Err(invalid("a request needs a `method`")),
    }
}

/// A tool call's params: `{"name": string, "arguments"?: object}`.
fn check_tool_call(params: Option<&Value>) -> Result<(), &'static str> {
    let Some(Value::Object(params)) = params else {
        return Err("tools/call takes an object with `name` and `arguments`");
    };
    if !matches!(params.get("name"), Some(Value::String(_))) {
        return Err("`name` must be the tool's name, a string");
    }
    match params.get("arguments") {
        None | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err("`arguments` must be an object of the tool's parameters"),
    }
}

fn error_line(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &str) -> Option<i64> {
        check(line).err().map(|answer| {
            let answer: Value = serde_json::from_str(&answer).unwrap();
            answer["error"]["code"].as_i64().unwrap()
        })
    }

    #[test]
    fn lines_rmcp_would_drop_are_answered() {
        assert_eq!(code("{not json"), Some(-32700));
        assert_eq!(code("[1, 2]"), Some(-32600));
        assert_eq!(code(r#"{"id": 1, "method": "ping"}"#), Some(-32600));
        assert_eq!(
            code(r#"{"jsonrpc": "2.0", "id": [1], "method": "ping"}"#),
            Some(-32600)
        );
        assert_eq!(
            code(r#"{"jsonrpc": "2.0", "id": 3, "method": 7}"#),
            Some(-32600)
        );
        assert_eq!(
            code(
                r#"{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read", "arguments": "x"}}"#
            ),
            Some(-32602)
        );
        // What rmcp handles itself goes on.
        assert_eq!(
            code(r#"{"jsonrpc": "2.0", "id": 5, "method": "no/such"}"#),
            None
        );
        assert_eq!(
            code(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#),
            None
        );
        assert_eq!(code(r#"{"jsonrpc": "2.0", "id": 9, "result": {}}"#), None);
    }

    #[test]
    fn an_answer_keeps_the_request_id() {
        let answer = check(r#"{"jsonrpc": "1.0", "id": "a7", "method": "ping"}"#).unwrap_err();
        assert!(answer.contains(r#""id":"a7""#), "{answer}");
    }
}
