//! The checks every message from a client passes before rmcp sees it, on
//! stdio and over HTTP alike.
//!
//! rmcp drops a message that is not JSON without a word on stdio (over
//! HTTP it answers `415 Unsupported Media Type`), answers one it cannot
//! type without its id, and answers a `tools/call` whose params are not
//! an object as an unknown method. So a message that is not JSON gets a parse error
//! (-32700), one that is not a JSON-RPC 2.0 message an invalid request
//! (-32600), and a tool call whose params are malformed invalid params
//! (-32602), keeping the request's id where it has one.

use serde_json::{Value, json};

/// The message, parsed, when rmcp can take it; else the answer to send
/// back.
pub fn check(line: &str) -> Result<Value, String> {
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
        }
        Some(_) => return Err(invalid("`method` must be a string")),
        // A response to a request of the server's.
        None if object.contains_key("result") || object.contains_key("error") => {}
        None => return Err(invalid("a request needs a `method`")),
    }
    Ok(message)
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

/// A JSON-RPC error response, as one line.
pub fn error_line(id: &Value, code: i64, message: &str) -> String {
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
