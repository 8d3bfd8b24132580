//! What sextant adds to rmcp's streamable HTTP transport: every message a
//! client posts is checked as on stdio (`guard`), and a session's end
//! answers `204 No Content`.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::guard::{check, error_line};

/// The largest message a client may post (a `create_file` of a big file
/// fits); a larger one is refused rather than buffered.
const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// A posted message that is not JSON, not a JSON-RPC message, or a tool
/// call with malformed params gets its JSON-RPC error: `400 Bad Request`
/// when it has no usable id, else `200` with the error for that id. rmcp
/// would answer `415 Unsupported Media Type` with a line of text, which
/// reads as a wrong header, or treat the call as an unknown method.
pub async fn guard_posts(request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_MESSAGE_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("a message is at most {} MB", MAX_MESSAGE_BYTES >> 20),
            )
                .into_response();
        }
    };
    let checked = match std::str::from_utf8(&bytes) {
        Ok(text) => check(text).map(drop),
        Err(err) => Err(error_line(
            &serde_json::Value::Null,
            -32700,
            &format!("Parse error: the message is not UTF-8 text ({err})"),
        )),
    };
    if let Err(answer) = checked {
        let has_id = serde_json::from_str::<serde_json::Value>(&answer)
            .is_ok_and(|answer| !answer["id"].is_null());
        let status = if has_id {
            StatusCode::OK
        } else {
            StatusCode::BAD_REQUEST
        };
        return (status, [(header::CONTENT_TYPE, "application/json")], answer).into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// A client ending its session (`DELETE`) gets `204 No Content`. rmcp
/// answers `202 Accepted`, which clients read as a failure (the Python MCP
/// client warns "Session termination failed: 202"): the session is gone
/// by then, nothing is left pending.
pub async fn session_end_answers_no_content(request: Request, next: Next) -> Response {
    let ending = request.method() == Method::DELETE;
    let mut response = next.run(request).await;
    if ending && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
}
