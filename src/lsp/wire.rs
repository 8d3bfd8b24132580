//! What sextant writes to a language server is strict JSON-RPC: an optional
//! field that is absent is left out, never sent as `null`.
//!
//! Servers written in Go (TypeScript 7's `tsc --lsp`, gopls) decode into
//! generated types that reject `null` where the protocol says "optional":
//! `"identifier": null` in `DocumentDiagnosticParams` fails the whole request
//! with InvalidParams. lsp-types leaves some `Option` fields without
//! `skip_serializing_if`, and async-lsp writes `"data": null` into every
//! error response it builds. So every request and notification goes out as
//! [`Strict`] params (see `LspClient::request`), and every answer to the
//! server's own requests passes through [`StrictAnswers`].
//!
//! Only object members are dropped: a `null` inside an array is a value
//! (a `workspace/configuration` answer holds `null` for a section the user
//! did not set), and a required field that may be `null` (`processId`,
//! `rootUri`) is always sent with a value by sextant.

use std::future::Future;
use std::marker::PhantomData;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::task::{Context, Poll};

use async_lsp::{AnyEvent, AnyNotification, AnyRequest, LspService, ResponseError};
use lsp_types::notification::Notification;
use lsp_types::request::Request;
use serde::Serialize;
use serde_json::Value;
use tower::Service;

/// `value` with every object member whose value is `null` left out, at any
/// depth. Strings are moved, never copied or scanned.
pub fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

/// Typed params as the strict JSON that goes on the wire.
pub fn strict_params(params: impl Serialize) -> Result<Value, serde_json::Error> {
    serde_json::to_value(params).map(without_nulls)
}

/// Request `R` with its params already made strict: same method, same
/// result type.
pub struct Strict<R>(PhantomData<R>);

impl<R: Request> Request for Strict<R> {
    type Params = Value;
    type Result = R::Result;
    const METHOD: &'static str = R::METHOD;
}

/// Notification `N` with its params already made strict.
pub struct StrictNotification<N>(PhantomData<N>);

impl<N: Notification> Notification for StrictNotification<N> {
    type Params = Value;
    const METHOD: &'static str = N::METHOD;
}

/// The service that answers a server's requests, with strict answers: null
/// members left out of results, and an error always carrying `data` (the
/// method it answers), since async-lsp would otherwise write `"data": null`.
pub struct StrictAnswers<S>(pub S);

type Answer = Pin<Box<dyn Future<Output = Result<Value, ResponseError>> + Send>>;

impl<S> Service<AnyRequest> for StrictAnswers<S>
where
    S: Service<AnyRequest, Response = Value, Error = ResponseError>,
    S::Future: Send + 'static,
{
    type Response = Value;
    type Error = ResponseError;
    type Future = Answer;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ResponseError>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: AnyRequest) -> Answer {
        let method = request.method.clone();
        let answer = self.0.call(request);
        Box::pin(async move {
            match answer.await {
                Ok(result) => Ok(without_nulls(result)),
                Err(mut error) => {
                    if error.data.as_ref().is_none_or(Value::is_null) {
                        error.data = Some(serde_json::json!({ "method": method }));
                    }
                    Err(error)
                }
            }
        })
    }
}

impl<S> LspService for StrictAnswers<S>
where
    S: LspService<Response = Value, Error = ResponseError>,
    S::Future: Send + 'static,
{
    fn notify(&mut self, notification: AnyNotification) -> ControlFlow<async_lsp::Result<()>> {
        self.0.notify(notification)
    }

    fn emit(&mut self, event: AnyEvent) -> ControlFlow<async_lsp::Result<()>> {
        self.0.emit(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn null_members_go_at_any_depth_and_array_nulls_stay() {
        let value = json!({
            "textDocument": {"uri": "file:///a.ts"},
            "identifier": null,
            "previousResultId": null,
            "nested": {"a": null, "b": [null, {"c": null, "d": 1}]},
        });
        assert_eq!(
            without_nulls(value),
            json!({
                "textDocument": {"uri": "file:///a.ts"},
                "nested": {"b": [null, {"d": 1}]},
            })
        );
        assert_eq!(without_nulls(Value::Null), Value::Null);
    }

    #[test]
    fn lsp_types_params_come_out_strict() {
        let params = lsp_types::DocumentDiagnosticParams {
            text_document: lsp_types::TextDocumentIdentifier {
                uri: "file:///a.ts".parse().unwrap(),
            },
            identifier: None,
            previous_result_id: None,
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        };
        assert!(serde_json::to_string(&params).unwrap().contains("null"));
        assert_eq!(
            strict_params(&params).unwrap(),
            json!({"textDocument": {"uri": "file:///a.ts"}})
        );
    }
}
