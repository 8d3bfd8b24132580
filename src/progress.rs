//! Progress of a long tool call (waiting for a server to index, installing
//! one), reported to whoever started the call.
//!
//! The MCP edge sets a sink for the duration of a call (a task-local, so
//! nothing between the edge and the language-server code has to pass it
//! along); code that waits calls [`report`]. Without a sink, reports only
//! go to the log.

use std::future::Future;
use std::sync::Arc;

/// Receives `(message, fraction 0..=1 if known)`.
pub type Sink = Arc<dyn Fn(&str, Option<f64>) + Send + Sync>;

tokio::task_local! {
    static SINK: Sink;
}

/// Runs `work` with progress reports going to `sink`.
pub async fn with_sink<F: Future>(sink: Sink, work: F) -> F::Output {
    SINK.scope(sink, work).await
}

/// Reports progress of the current call, if anyone listens.
pub fn report(message: &str, fraction: Option<f64>) {
    tracing::debug!(fraction, "progress: {message}");
    let _ = SINK.try_with(|sink| sink(message, fraction));
}

/// `work`, to be spawned for the current call, reporting to the call's
/// sink (a spawned task does not inherit it).
pub fn carried<F: Future>(work: F) -> impl Future<Output = F::Output> {
    let sink = SINK.try_with(Sink::clone).ok();
    async move {
        match sink {
            Some(sink) => with_sink(sink, work).await,
            None => work.await,
        }
    }
}
