//! The `sextant` binary: command-line parsing and logging set-up only.

use sextant::cli;
use sextant::lsp::reaper;
use std::process::ExitCode;

/// jemalloc for Rust's heap (tree-sitter's C code keeps the C library's
/// allocator: this jemalloc's symbols are its own). An answer's work
/// after a language server's allocates much (lines, paths, texts, the
/// answer), often freed on another thread than it was made on (the
/// blocking pool, the runtime's workers). glibc's allocator, past its
/// small per-thread cache, takes the owning arena's lock for such a free,
/// and merges free chunks: about a sixth of sextant's CPU samples through
/// rename previews on the TypeScript SDK. With jemalloc the versus bench
/// (both orders) took 0.29-0.32 ms less of sextant's own time for that
/// preview, 0.06-0.11 for references, 0.07 for call_hierarchy. Slower in
/// both orders: the SDK's ping after 20 ms idle (0.02, 0.08), and in one
/// pair of runs ripgrep's first renames (0.24, 0.28; a second pair gave
/// 0.12 slower and 0.45 faster, that row's noise). Through 40 first
/// renames in ripgrep the process held 133 MB against 126. mimalloc
/// saved as much time, but held 270 MB there and took 40% more CPU. The
/// benches that run sextant's code in their own process use it too.
#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == reaper::REAPER_ARG)
    {
        reaper::run_reaper();
        return ExitCode::SUCCESS;
    }
    let matches = cli::command_for(std::env::args_os().nth(1).as_deref()).get_matches();
    // Servers' processes are ended by a reaper run from this binary if
    // sextant is killed; without a path to it they still die themselves.
    if let Ok(exe) = std::env::current_exe() {
        reaper::enable(exe);
    }
    // Logs go to stderr: stdout carries MCP messages (or a tool's answer).
    // A one-off tool run stays quiet unless RUST_LOG asks otherwise.
    let default_filter = match matches.subcommand_name() {
        Some("serve") => "sextant=info",
        _ => "sextant=warn",
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter)),
        )
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("sextant: cannot start the async runtime: {err}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(async {
        match matches.subcommand() {
            Some(("serve", sub)) => {
                if let Some(addr) = sub.get_one::<String>("http") {
                    let ctx = cli::context(sub, sub.get_flag("read-only"))?;
                    tracing::info!(root = %ctx.workspace.root().display(), "serving MCP over HTTP");
                    sextant::server::serve_http(ctx, addr).await?;
                } else if sub.get_flag("instance") {
                    let rendezvous = cli::instance_spec(sub)?.rendezvous()?;
                    let ctx = cli::context(sub, false)?;
                    sextant::server::serve_instance(ctx, &rendezvous, cli::idle_exit(sub)).await?;
                } else {
                    let relay = if sub.get_flag("no-shared") {
                        None
                    } else {
                        let relay = cli::relay(sub)?;
                        // Where sharing cannot work (no private folder), the
                        // session is served alone rather than refused.
                        match relay.spec.rendezvous() {
                            Ok(_) => Some(relay),
                            Err(err) => {
                                tracing::warn!("serving this session alone: {err}");
                                None
                            }
                        }
                    };
                    match relay {
                        Some(relay) => sextant::server::relay(relay).await?,
                        None => {
                            let ctx = cli::context(sub, sub.get_flag("read-only"))?;
                            tracing::info!(root = %ctx.workspace.root().display(), "serving MCP over stdio");
                            sextant::server::serve_stdio(ctx).await?;
                        }
                    }
                }
                Ok(ExitCode::SUCCESS)
            }
            Some(("doctor", sub)) => {
                let ctx = cli::context(sub, false)?;
                let instance = sextant::server::instance_check(&cli::instance_spec(sub)?).await;
                println!("{}", sextant::doctor::report(&ctx, instance).await);
                Ok(ExitCode::SUCCESS)
            }
            Some((tool, sub)) => cli::run_tool(tool, sub).await,
            None => Ok(ExitCode::from(2)),
        }
    });
    // Not a plain drop, which waits for every blocking task: the one reading
    // stdin never returns while the client keeps stdin open (a SIGTERM).
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("sextant: {err:#}");
            ExitCode::from(2)
        }
    }
}
