//! sextant ended by SIGKILL or SIGTERM while its language servers run and
//! while rust-analyzer's `cargo check` runs a (slow) build script: every
//! process it started, grandchildren included, is gone afterwards, checked
//! by pid.

mod common;

use std::time::Duration;

use common::descendants;
use common::mcp::{call, start_with_pid, texts};
use serde_json::json;

/// A TypeScript project and a Rust crate whose build script sleeps for two
/// minutes, so `cargo check` is still running when sextant is ended.
fn workspace() -> tempfile::TempDir {
    let dir = common::two_language_workspace();
    std::fs::write(
        dir.path().join("ledger/build.rs"),
        "fn main() {\n    std::thread::sleep(std::time::Duration::from_secs(120));\n}\n",
    )
    .unwrap();
    dir
}

async fn ended_by(signal: libc::c_int) {
    let dir = workspace();
    let (client, sextant_pid) = start_with_pid(dir.path(), &[]).await;
    let ts = call(&client, "diagnostics", json!({"file": "web/src/shapes.ts"})).await;
    assert_eq!(texts(&ts), ["No errors or warnings in web/src/shapes.ts"]);
    // rust-analyzer starts and runs the build script; the call waits for the
    // check, which will not end before sextant does.
    let client = std::sync::Arc::new(client);
    let pending = {
        let client = std::sync::Arc::clone(&client);
        tokio::spawn(async move {
            let _ = call(&client, "diagnostics", json!({"file": "ledger/src/lib.rs"})).await;
        })
    };
    let mut tree = Vec::new();
    for _ in 0..600 {
        tree = descendants(sextant_pid);
        if tree
            .iter()
            .any(|(_, name)| name.starts_with("build-script"))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let names: Vec<&str> = tree.iter().map(|(_, name)| name.as_str()).collect();
    // Command names as the kernel keeps them (15 bytes): TypeScript 7's
    // server runs as `tsc --lsp`.
    for expected in ["tsc", "rust-analyzer", "cargo", "build-script-bu"] {
        assert!(
            names.contains(&expected),
            "no {expected} under sextant: {names:?}"
        );
    }

    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(sextant_pid as i32, signal) };
    for (pid, name) in &tree {
        assert!(
            common::process_gone(*pid).await,
            "{name} (pid {pid}) outlived sextant ended by signal {signal}"
        );
    }
    pending.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_sextant_leaves_no_process_behind() {
    ended_by(libc::SIGKILL).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminated_sextant_leaves_no_process_behind() {
    ended_by(libc::SIGTERM).await;
}
