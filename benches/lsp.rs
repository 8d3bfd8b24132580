//! Language-server figures on the fixtures, measured in one run:
//!
//! - spawn to ready, per server (rust-analyzer, typescript-language-server);
//! - sextant's own overhead per request: the median of 100 documentSymbol
//!   calls through sextant (document sync check, conversion to the model)
//!   against the same request sent raw over the same client;
//! - `diagnostics` for an unchanged file (warm) and right after an edit.
//!
//! Run with `cargo bench --bench lsp` after `bash scripts/test.sh` has
//! installed the servers. It prints figures only; nothing here asserts a time.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_types::request::DocumentSymbolRequest;
use lsp_types::{DocumentSymbolParams, TextDocumentIdentifier};
use serde_json::json;
use sextant::context::Context;
use sextant::fs::workspace::Workspace;
use sextant::lsp::config::Config;
use sextant::lsp::requests::document_symbols;

const ROUNDS: usize = 100;

fn copy_fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    copy_tree(&from, dir.path());
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        if entry.file_name() == "target" || entry.file_name() == "node_modules" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

async fn call(ctx: &Arc<Context>, tool: &str, args: serde_json::Value) -> String {
    let serde_json::Value::Object(args) = args else {
        unreachable!()
    };
    match sextant::tools::call(ctx, tool, args).await {
        Ok(answer) => answer.blocks.join("\n"),
        Err(err) => err.to_string(),
    }
}

async fn measure(fixture: &str, file: &str, edit: (&str, &str)) {
    let dir = copy_fixture(fixture);
    let root = dir.path().canonicalize().unwrap();
    let config = Config::load(&root, None).unwrap();
    let ctx = Arc::new(Context::new(
        Workspace::new(&root, &[]).unwrap(),
        config,
        false,
    ));
    let path: PathBuf = root.join(file);

    let started = Instant::now();
    let session = match ctx.lsp.open(&path).await {
        Ok(session) => session,
        Err(err) => {
            println!("{fixture}: {err}");
            return;
        }
    };
    let ready = started.elapsed();
    let server = session.client.server().to_string();
    println!("{server}");
    println!(
        "  spawn to ready:            {} (index complete: {})",
        ms(ready),
        session.index_complete
    );

    // Warm both paths once.
    document_symbols(&session).await.unwrap();
    let params = DocumentSymbolParams {
        text_document: TextDocumentIdentifier {
            uri: session.document.uri.clone(),
        },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let timeout = Duration::from_secs(30);
    let mut raw = Vec::with_capacity(ROUNDS);
    let mut through = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        // Alternate, so both see the same machine noise.
        let t = Instant::now();
        session
            .client
            .request::<DocumentSymbolRequest>(params.clone(), timeout)
            .await
            .unwrap();
        raw.push(t.elapsed());
        let t = Instant::now();
        let session = ctx.lsp.open(&path).await.unwrap();
        document_symbols(&session).await.unwrap();
        through.push(t.elapsed());
    }
    let (raw, through) = (median(raw), median(through));
    println!(
        "  documentSymbol raw:        {} (median of {ROUNDS})",
        ms(raw)
    );
    println!(
        "  documentSymbol via sextant:{} (median of {ROUNDS}, sync check included)",
        ms(through)
    );
    println!(
        "  sextant overhead:          {} (target under 1 ms)",
        ms(through.saturating_sub(raw))
    );

    let file_arg = json!({"file": file});
    call(&ctx, "diagnostics", file_arg.clone()).await;
    let mut warm = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        call(&ctx, "diagnostics", file_arg.clone()).await;
        warm.push(t.elapsed());
    }
    println!(
        "  diagnostics, unchanged:    {} (median of 20; target under 100 ms)",
        ms(median(warm))
    );

    let original = std::fs::read_to_string(&path).unwrap();
    let mut edited = Vec::new();
    for i in 0..5 {
        let text = if i % 2 == 0 {
            original.replace(edit.0, edit.1)
        } else {
            original.clone()
        };
        std::fs::write(&path, text).unwrap();
        let t = Instant::now();
        let answer = call(&ctx, "diagnostics", file_arg.clone()).await;
        edited.push(t.elapsed());
        if i == 0 {
            println!(
                "  after the edit it says:    {}",
                answer.lines().next().unwrap_or("")
            );
        }
    }
    println!(
        "  diagnostics, after an edit:{} (median of 5; target under 1 s)",
        ms(median(edited))
    );
    ctx.lsp.shutdown(Duration::from_secs(2)).await;
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    measure(
        "ts",
        "src/index.ts",
        ("registry.totalArea()", "registry.totalAreaa()"),
    )
    .await;
    measure(
        "rust",
        "src/text.rs",
        ("format!(\"{GREETING}, {名前} 🎉\")", "42"),
    )
    .await;
}
