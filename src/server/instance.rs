//! The shared instance: one sextant process per workspace that serves
//! every relay's MCP session (`relay`) over its Unix socket, so they share
//! one set of language servers, documents, tree-sitter caches, the symbol
//! index and the log book. Each session keeps its own mode (`--read-only`)
//! and patches (`Context::session`); progress and cancellation are per
//! session, as rmcp serves each connection on its own.
//!
//! A connection is taken only from this user (the peer's uid is checked,
//! besides the private folder), for this build and this root (its
//! [`Hello`]). With no session for its idle time the instance removes its
//! socket, ends its language servers and exits.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use super::rendezvous::{Hello, Rendezvous, Welcome, build_identity, current_uid};
use super::{McpServer, StopSignals, stdio};
use crate::context::{Context, SharedInstance};

/// How long a connection has to say its [`Hello`].
const HELLO_WAIT: Duration = Duration::from_secs(10);

/// Serves relays' sessions on the rendezvous socket until the instance has
/// been idle for `idle_exit` or a signal ends it.
pub async fn serve_instance(
    ctx: Arc<Context>,
    rendezvous: &Rendezvous,
    idle_exit: Duration,
) -> anyhow::Result<()> {
    let stop = StopSignals::register()?;
    let (listener, bound) = bind(&rendezvous.socket).await?;
    let instance = Arc::new(SharedInstance::new(idle_exit, rendezvous.log.clone()));
    // What every session's context is made from.
    let ctx = Arc::new(Context {
        instance: Some(Arc::clone(&instance)),
        ..ctx.session(false)
    });
    tracing::info!(
        root = %ctx.workspace.root().display(),
        socket = %rendezvous.socket.display(),
        "serving shared MCP sessions"
    );
    let build = build_identity();
    let stopped = stop.wait();
    tokio::pin!(stopped);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let (ctx, build) = (Arc::clone(&ctx), build.clone());
                    tokio::spawn(async move { serve_connection(stream, ctx, build).await });
                }
                Err(err) => tracing::warn!("accepting a connection failed: {err}"),
            },
            () = instance.idle_elapsed() => {
                tracing::info!("no session for {} s: ending", idle_exit.as_secs());
                break;
            }
            () = &mut stopped => break,
        }
    }
    // Another instance may have replaced a socket it thought stale: only
    // ours is removed.
    if std::fs::metadata(&rendezvous.socket).is_ok_and(|meta| meta.ino() == bound) {
        let _ = std::fs::remove_file(&rendezvous.socket);
    }
    ctx.lsp.shutdown(Duration::from_secs(2)).await;
    Ok(())
}

/// Listens at `socket`, replacing a stale socket file (no one answers
/// there), never a live one; with the socket file's inode.
async fn bind(socket: &Path) -> anyhow::Result<(UnixListener, u64)> {
    if socket.exists() {
        if UnixStream::connect(socket).await.is_ok() {
            anyhow::bail!(
                "an instance already serves {}: sextant serve connects to it",
                socket.display()
            );
        }
        std::fs::remove_file(socket)?;
    }
    let listener = UnixListener::bind(socket)
        .map_err(|err| anyhow::anyhow!("cannot listen at {}: {err}", socket.display()))?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
    let inode = std::fs::metadata(socket)?.ino();
    Ok((listener, inode))
}

/// One relay's connection: its hello checked, then its MCP session served
/// to the end.
async fn serve_connection(stream: UnixStream, ctx: Arc<Context>, build: String) {
    match stream.peer_cred() {
        Ok(peer) if peer.uid() == current_uid() => {}
        Ok(peer) => {
            tracing::warn!("refused a connection from uid {}", peer.uid());
            return;
        }
        Err(err) => {
            tracing::warn!("refused a connection whose user is unknown: {err}");
            return;
        }
    }
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut line = String::new();
    let hello = match tokio::time::timeout(HELLO_WAIT, read.read_line(&mut line)).await {
        Ok(Ok(_)) => serde_json::from_str::<Hello>(&line).map_err(|err| err.to_string()),
        Ok(Err(err)) => Err(err.to_string()),
        Err(_) => Err(format!("no hello within {} s", HELLO_WAIT.as_secs())),
    };
    let (welcome, read_only) = welcome(hello, &ctx, &build);
    if !send(&mut write, &welcome).await {
        return;
    }
    let Some(read_only) = read_only else {
        return;
    };
    let instance = ctx.instance.clone();
    if let Some(instance) = &instance {
        instance.session_began();
    }
    let session = McpServer::new(Arc::new(ctx.session(read_only)));
    match session.serve(stdio::guarded_stream(read, write)).await {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(err) => tracing::warn!("a session ended before it began: {err}"),
    }
    if let Some(instance) = &instance {
        instance.session_ended();
    }
}

/// The answer to a hello, and for a session it accepts, its mode.
fn welcome(hello: Result<Hello, String>, ctx: &Context, build: &str) -> (Welcome, Option<bool>) {
    let refuse = |why: String| (Welcome::Refused { why }, None);
    match hello {
        Err(why) => refuse(format!("not a sextant relay: {why}")),
        Ok(Hello::Status { build: theirs }) if theirs == build => {
            let state = ctx.instance.as_ref().map(|i| i.state()).unwrap_or_default();
            (Welcome::Status(state), None)
        }
        Ok(Hello::Session {
            build: theirs,
            root,
            read_only,
        }) if theirs == build => {
            if root == ctx.workspace.root() {
                let pid = std::process::id();
                (Welcome::Session { pid }, Some(read_only))
            } else {
                refuse(format!(
                    "this instance serves {}, not {}",
                    ctx.workspace.root().display(),
                    root.display()
                ))
            }
        }
        Ok(_) => refuse(format!("this instance is sextant build {build}")),
    }
}

/// Writes one JSON line; whether it went.
async fn send(write: &mut (impl AsyncWrite + Unpin), welcome: &Welcome) -> bool {
    let Ok(mut line) = serde_json::to_string(welcome) else {
        return false;
    };
    line.push('\n');
    write.write_all(line.as_bytes()).await.is_ok() && write.flush().await.is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::workspace::Workspace;
    use crate::lsp::config::Config;

    #[tokio::test]
    async fn a_session_is_welcomed_only_for_this_build_and_root() {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(dir.path(), &[]).unwrap();
        let root = workspace.root().to_path_buf();
        let ctx = Context::new(workspace, Config::built_in(), false);
        let session = |build: &str, root: &Path| {
            Ok(Hello::Session {
                build: build.to_string(),
                root: root.to_path_buf(),
                read_only: true,
            })
        };
        let (welcome_ok, read_only) = welcome(session("b1", &root), &ctx, "b1");
        assert!(
            matches!(welcome_ok, Welcome::Session { .. }),
            "{welcome_ok:?}"
        );
        assert_eq!(read_only, Some(true));
        let (other_root, read_only) = welcome(session("b1", Path::new("/elsewhere")), &ctx, "b1");
        assert_eq!(read_only, None);
        let Welcome::Refused { why } = other_root else {
            panic!("{other_root:?}")
        };
        assert_eq!(
            why,
            format!("this instance serves {}, not /elsewhere", root.display())
        );
        let (other_build, _) = welcome(session("b2", &root), &ctx, "b1");
        assert!(
            matches!(&other_build, Welcome::Refused { why } if why == "this instance is sextant build b1"),
            "{other_build:?}"
        );
    }
}
