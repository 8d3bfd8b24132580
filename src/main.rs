//! The `sextant` binary: command-line parsing and logging set-up only.

use sextant::cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    let matches = cli::command().get_matches();
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
                let ctx = cli::context(sub, sub.get_flag("read-only"))?;
                match sub.get_one::<String>("http") {
                    Some(addr) => {
                        tracing::info!(root = %ctx.workspace.root().display(), "serving MCP over HTTP");
                        sextant::server::serve_http(ctx, addr).await?;
                    }
                    None => {
                        tracing::info!(root = %ctx.workspace.root().display(), "serving MCP over stdio");
                        sextant::server::serve_stdio(ctx).await?;
                    }
                }
                Ok(ExitCode::SUCCESS)
            }
            Some(("doctor", sub)) => {
                let ctx = cli::context(sub, false)?;
                println!("{}", sextant::doctor::report(&ctx).await);
                Ok(ExitCode::SUCCESS)
            }
            Some((tool, sub)) => cli::run_tool(tool, sub).await,
            None => Ok(ExitCode::from(2)),
        }
    });
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("sextant: {err:#}");
            ExitCode::from(2)
        }
    }
}
