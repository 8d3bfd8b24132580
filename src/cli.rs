//! The command line: `sextant serve`, and `sextant <tool> key=value ...`,
//! which runs one tool and prints exactly the text an agent would see.
//!
//! Tool subcommands are built from the tool registry, so every tool (and
//! every parameter, with its description) is on the command line as soon as
//! it is registered.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::workspace::Workspace;
use crate::lsp::config::Config;
use crate::server::Relay;
use crate::server::rendezvous::InstanceSpec;
use crate::tools::{self, ToolEntry};

/// The whole command line, tools included.
pub fn command() -> Command {
    let mut cmd = base_command();
    for tool in tools::all() {
        cmd = cmd.subcommand(tool_command(&tool));
    }
    cmd
}

/// The command line for `first`, the first argument: without the tools'
/// subcommands for `serve`, which a relay per agent session parses, so it
/// does not build every tool's schema to start.
pub fn command_for(first: Option<&std::ffi::OsStr>) -> Command {
    match first {
        Some(first) if first == "serve" => base_command(),
        _ => command(),
    }
}

/// `doctor` and `serve`.
fn base_command() -> Command {
    Command::new("sextant")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Code intelligence for coding agents: an MCP server with compact plain-text tools")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("doctor")
                .about("Languages, their servers (found where, version, or how to install), grammars, library roots, config files")
                .args(workspace_args()),
        )
        .subcommand(
            Command::new("serve")
                .about("Run the MCP server over stdio (or streamable HTTP with --http)")
                .args(workspace_args())
                .arg(
                    Arg::new("read-only")
                        .long("read-only")
                        .action(ArgAction::SetTrue)
                        .help("Leave every writing tool out of tools/list"),
                )
                .arg(
                    Arg::new("http")
                        .long("http")
                        .value_name("ADDR")
                        .help("Serve streamable HTTP at http://ADDR/mcp instead of stdio (ADDR like 127.0.0.1:8765; port 0 picks one and the log line says which)"),
                )
                .arg(
                    Arg::new("no-shared")
                        .long("no-shared")
                        .action(ArgAction::SetTrue)
                        .help("Serve this session alone, with language servers of its own, rather than through the workspace's shared instance"),
                )
                .arg(
                    Arg::new("idle-exit")
                        .long("idle-exit")
                        .value_name("SECS")
                        .value_parser(clap::value_parser!(u64))
                        .default_value("300")
                        .help("How long a shared instance this starts stays up with no session (0: ends with its last session)"),
                )
                .arg(
                    Arg::new("instance")
                        .long("instance")
                        .action(ArgAction::SetTrue)
                        .hide(true)
                        .help("Run as the workspace's shared instance (started by sextant serve)"),
                ),
        )
}

fn workspace_args() -> Vec<Arg> {
    vec![
        Arg::new("root")
            .long("root")
            .value_name("DIR")
            .value_parser(clap::value_parser!(PathBuf))
            .help("Workspace root (default: $CLAUDE_PROJECT_DIR, else the current directory)"),
        Arg::new("library-root")
            .long("library-root")
            .value_name("DIR")
            .action(ArgAction::Append)
            .value_parser(clap::value_parser!(PathBuf))
            .help(
                "An extra read-only root (repeatable); the cargo registry sources are always one",
            ),
        Arg::new("config")
            .long("config")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .help("A configuration file merged over the built-in languages and the workspace's sextant.toml"),
    ]
}

/// `sextant <tool>`: its parameters come from the tool's schema.
fn tool_command(tool: &ToolEntry) -> Command {
    let schema = crate::server::schema::compact(tool.input_schema());
    let mut help = String::from("Parameters (key=value, or --json '{...}'):\n");
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            let kind = property_type(property).unwrap_or("value");
            let needed = if required.contains(&name.as_str()) {
                ", required"
            } else {
                ""
            };
            let choices: Vec<&str> = property
                .get("enum")
                .and_then(Value::as_array)
                .map(|e| e.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let kind = if choices.is_empty() {
                kind.to_string()
            } else {
                choices.join(" | ")
            };
            help.push_str(&format!("  {name} ({kind}{needed})\n"));
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                help.push_str(&format!("      {description}\n"));
            }
        }
    }
    let about = tool
        .description
        .split(". ")
        .next()
        .unwrap_or(tool.description);
    Command::new(tool.name)
        .about(about.to_string())
        .long_about(tool.description)
        .after_help(help)
        .args(workspace_args())
        .arg(
            Arg::new("json")
                .long("json")
                .value_name("JSON")
                .help("All parameters as one JSON object"),
        )
        .arg(
            Arg::new("params")
                .value_name("KEY=VALUE")
                .num_args(0..)
                .action(ArgAction::Append)
                .allow_hyphen_values(true)
                .help("Parameters; a bare KEY means KEY=true"),
        )
}

/// The JSON type of a schema property (`string`, `integer`, ...), the first
/// non-null one when optional.
fn property_type(property: &Value) -> Option<&str> {
    if property.get("enum").is_some() {
        return Some("string");
    }
    match property.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => property
            .get("anyOf")
            .or_else(|| property.get("oneOf"))
            .and_then(Value::as_array)
            .and_then(|alts| alts.iter().find_map(property_type)),
    }
}

/// Turns `key=value` words into a JSON object, typed by the schema: strings
/// stay as written, other types are parsed as JSON (`5`, `true`, `["a"]`).
pub fn parse_params(
    tool: &ToolEntry,
    json: Option<&str>,
    words: &[String],
) -> ToolResult<Map<String, Value>> {
    let invalid = |message: String| ToolError::new(ErrorCode::InvalidParams, message);
    let mut args = match json.map(serde_json::from_str::<Value>) {
        Some(Ok(Value::Object(object))) => object,
        Some(Ok(_)) => return Err(invalid("--json must be a JSON object".into())),
        Some(Err(err)) => return Err(invalid(format!("--json is not valid JSON: {err}"))),
        None => Map::new(),
    };
    let schema = crate::server::schema::compact(tool.input_schema());
    let properties = schema.get("properties").and_then(Value::as_object);
    for word in words {
        if let Some(option) = ["--root", "--library-root", "--json"]
            .into_iter()
            .find(|o| word == o || word.starts_with(&format!("{o}=")))
        {
            return Err(invalid(format!(
                "{option} must come before the key=value parameters: sextant {} {option} ... key=value",
                tool.name
            )));
        }
        let (key, raw) = match word.split_once('=') {
            Some((key, raw)) => (key, Some(raw)),
            None => (word.as_str(), None),
        };
        let kind = properties.and_then(|p| p.get(key)).and_then(property_type);
        let value = match (raw, kind) {
            (None, _) => Value::Bool(true),
            (Some(raw), Some("string")) => Value::String(raw.to_string()),
            (Some(raw), Some(kind)) => serde_json::from_str(raw)
                .map_err(|_| invalid(format!("{key}={raw}: expected a value of type {kind}")))?,
            (Some(raw), None) => {
                serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
            }
        };
        args.insert(key.to_string(), value);
    }
    Ok(args)
}

/// The workspace from `--root`, else `$CLAUDE_PROJECT_DIR`, else the cwd.
pub fn workspace(matches: &ArgMatches) -> anyhow::Result<Workspace> {
    let root = match matches.get_one::<PathBuf>("root") {
        Some(root) => root.clone(),
        None => match std::env::var_os("CLAUDE_PROJECT_DIR") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => std::env::current_dir()?,
        },
    };
    let extra: Vec<PathBuf> = matches
        .get_many::<PathBuf>("library-root")
        .map(|roots| roots.cloned().collect())
        .unwrap_or_default();
    Workspace::new(&root, &extra)
}

/// Which shared instance serves this command line's workspace: its roots
/// and configuration file, as an instance is started with them.
pub fn instance_spec(matches: &ArgMatches) -> anyhow::Result<InstanceSpec> {
    let workspace = workspace(matches)?;
    let config = matches
        .get_one::<PathBuf>("config")
        .map(|config| std::path::absolute(config).unwrap_or_else(|_| config.clone()));
    // Loaded only to refuse a broken configuration here, where the client
    // sees why, rather than in the instance's log.
    Config::load(workspace.root(), config.as_deref())?;
    let library_roots: Vec<PathBuf> = matches
        .get_many::<PathBuf>("library-root")
        .map(|roots| {
            roots
                .map(|root| root.canonicalize().unwrap_or_else(|_| root.clone()))
                .collect()
        })
        .unwrap_or_default();
    Ok(InstanceSpec {
        root: workspace.root().to_path_buf(),
        library_roots,
        config,
    })
}

/// What `sextant serve` relays to: the workspace's shared instance, and the
/// arguments to start it with.
pub fn relay(matches: &ArgMatches) -> anyhow::Result<Relay> {
    let spec = instance_spec(matches)?;
    let mut instance_args: Vec<OsString> = vec!["--root".into(), spec.root.clone().into()];
    for root in &spec.library_roots {
        instance_args.extend(["--library-root".into(), root.into()]);
    }
    if let Some(config) = &spec.config {
        instance_args.extend(["--config".into(), config.into()]);
    }
    let idle_exit = idle_exit(matches);
    instance_args.extend(["--idle-exit".into(), idle_exit.as_secs().to_string().into()]);
    Ok(Relay {
        spec,
        read_only: matches.get_flag("read-only"),
        instance_args,
    })
}

/// `--idle-exit`: how long a shared instance stays up with no session.
pub fn idle_exit(matches: &ArgMatches) -> Duration {
    Duration::from_secs(matches.get_one::<u64>("idle-exit").copied().unwrap_or(300))
}

/// The context for a command: workspace, configuration, language servers.
pub fn context(matches: &ArgMatches, read_only: bool) -> anyhow::Result<Arc<Context>> {
    let workspace = workspace(matches)?;
    let config = Config::load(
        workspace.root(),
        matches.get_one::<PathBuf>("config").map(PathBuf::as_path),
    )?;
    Ok(Arc::new(Context::new(workspace, config, read_only)))
}

/// Runs one tool from the command line and prints its answer.
pub async fn run_tool(name: &str, matches: &ArgMatches) -> anyhow::Result<ExitCode> {
    let tool = tools::all()
        .into_iter()
        .find(|t| t.name == name)
        .with_context(|| format!("no tool named {name}"))?;
    let words: Vec<String> = matches
        .get_many::<String>("params")
        .map(|w| w.cloned().collect())
        .unwrap_or_default();
    let ctx = context(matches, false)?;
    // One request, then exit: no file changes to tell a server of.
    ctx.lsp.set_file_watching(false);
    let json = matches.get_one::<String>("json").map(String::as_str);
    let answer = match parse_params(&tool, json, &words) {
        Ok(args) => tools::call(&ctx, name, args).await,
        Err(err) => Err(err),
    };
    let (text, code) = match answer {
        Ok(answer) => match answer.json {
            Some(json) => (serde_json::to_string_pretty(&json)?, ExitCode::SUCCESS),
            None => (answer.blocks.join("\n\n"), ExitCode::SUCCESS),
        },
        Err(err) => (err.to_string(), ExitCode::from(1)),
    };
    ctx.lsp.shutdown(std::time::Duration::from_secs(2)).await;
    // A reader that stops early (`| head`) is not an error worth a panic.
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(err.into()),
        _ => Ok(code),
    }
}
