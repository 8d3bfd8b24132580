//! The tools: one file each, one shape each.
//!
//! A tool is its parameters (deserialised from the caller's JSON, with a JSON
//! Schema derived from the same type), a `run` that turns them into a typed
//! `model` value, and the renderer for that value. [`ToolEntry`] erases the
//! types so the MCP edge and the command line can list and call any tool by
//! name; neither knows what a tool does.

use std::collections::HashMap;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::text::{LineWindow, read_lines};
use crate::model::{ALL_KINDS, FileLines, LogLevel, SymbolKind};
use crate::sync::lock;
use crate::waits::{self, Waits};

pub mod address;
pub mod apply_patch;
pub mod audit;
pub mod call_hierarchy;
pub mod completion;
pub mod create_file;
pub mod diagnostics;
pub mod edit;
pub mod find;
pub mod fix;
pub mod grep;
mod impact;
pub mod inspect;
pub mod locations;
pub mod logs;
pub mod name_path;
pub mod outline;
mod page;
pub mod pipe;
pub mod read;
pub mod read_file;
pub mod references;
pub mod rename;
pub mod search;
mod server_edit;

/// About 8,000 tokens of text: what one answer may hold before it pages.
pub const BUDGET_CHARS: usize = 32_000;

/// One tool: parameters in, a typed result out, text from a renderer.
pub trait Tool: 'static {
    const NAME: &'static str;
    /// What the agent reads to decide when to call it (under 2 KB).
    const DESCRIPTION: &'static str;
    /// The tool writes files (left out in read-only mode).
    const WRITES: bool;
    /// A writing tool that still previews in read-only mode (listed there,
    /// writing nothing).
    const PREVIEWS_WHEN_READ_ONLY: bool = false;
    type Params: DeserializeOwned + JsonSchema + Send + 'static;
    type Output: Serialize + Send + 'static;

    fn run(
        ctx: Arc<Context>,
        params: Self::Params,
    ) -> impl Future<Output = ToolResult<Self::Output>> + Send;

    fn render(output: &Self::Output) -> Vec<String>;
}

/// What a call returns to the edge: text blocks, and the typed result as
/// JSON when `format: "json"` was asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub blocks: Vec<String>,
    pub json: Option<Value>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A type-erased tool call: context and JSON arguments in, an answer out.
type ErasedCall = fn(Arc<Context>, Map<String, Value>) -> BoxFuture<ToolResult<Answer>>;

/// A tool with its types erased.
#[derive(Clone, Copy)]
pub struct ToolEntry {
    pub name: &'static str,
    pub description: &'static str,
    pub writes: bool,
    pub previews_when_read_only: bool,
    schema: fn() -> Map<String, Value>,
    call: ErasedCall,
}

impl ToolEntry {
    fn of<T: Tool>() -> ToolEntry {
        ToolEntry {
            name: T::NAME,
            description: T::DESCRIPTION,
            writes: T::WRITES,
            previews_when_read_only: T::PREVIEWS_WHEN_READ_ONLY,
            schema: input_schema::<T::Params>,
            call: |ctx, args| Box::pin(call_typed::<T>(ctx, args)),
        }
    }

    /// The JSON Schema of the parameters as derived (an object schema,
    /// all inline; `server::schema::compact` is what clients are shown).
    pub fn input_schema(&self) -> Map<String, Value> {
        (self.schema)()
    }
}

/// Every tool, in the order they are listed.
pub fn all() -> Vec<ToolEntry> {
    vec![
        ToolEntry::of::<search::Search>(),
        ToolEntry::of::<read::Read>(),
        ToolEntry::of::<inspect::Inspect>(),
        ToolEntry::of::<references::References>(),
        ToolEntry::of::<call_hierarchy::CallHierarchy>(),
        ToolEntry::of::<completion::Completion>(),
        ToolEntry::of::<rename::Rename>(),
        ToolEntry::of::<fix::Fix>(),
        ToolEntry::of::<read_file::ReadFile>(),
        ToolEntry::of::<find::Find>(),
        ToolEntry::of::<grep::Grep>(),
        ToolEntry::of::<edit::Edit>(),
        ToolEntry::of::<apply_patch::ApplyPatch>(),
        ToolEntry::of::<create_file::CreateFile>(),
        ToolEntry::of::<pipe::Pipe>(),
        ToolEntry::of::<diagnostics::Diagnostics>(),
        ToolEntry::of::<logs::Logs>(),
    ]
}

/// The tools this context offers (writing ones left out when read-only).
pub fn available(ctx: &Context) -> Vec<ToolEntry> {
    all()
        .into_iter()
        .filter(|tool| !(ctx.read_only && tool.writes && !tool.previews_when_read_only))
        .collect()
}

/// Calls the tool `name` with JSON arguments; logs the call and its outcome.
pub async fn call(ctx: &Arc<Context>, name: &str, args: Map<String, Value>) -> ToolResult<Answer> {
    let tools = available(ctx);
    let Some(tool) = tools.iter().find(|t| t.name == name) else {
        let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        return Err(ToolError::new(
            ErrorCode::UnknownTool,
            format!("no tool named '{name}'; the tools are {}", names.join(", ")),
        ));
    };
    let summary = summarize_args(&args);
    let started = Instant::now();
    let waits = Arc::new(Waits::default());
    let result = waits::counted(Arc::clone(&waits), (tool.call)(Arc::clone(ctx), args)).await;
    let millis = started.elapsed().as_secs_f64() * 1000.0;
    // What of it was the servers' answering, when it asked any.
    let waited = match waits.total() {
        waited if waited.is_zero() => String::new(),
        waited => format!(", {:.1} waiting on servers", waited.as_secs_f64() * 1000.0),
    };
    // The error's code only: its message is in the answer (and, for
    // `level: "debug"`, on a line of its own).
    let outcome = match &result {
        Ok(_) => "ok".to_string(),
        Err(err) => format!("error[{}]", err.code.as_str()),
    };
    // The log book also writes it to stderr through tracing.
    ctx.logs.record(
        LogLevel::Info,
        "tool",
        format!("{name} {summary} -> {outcome} ({millis:.1} ms{waited})"),
    );
    if let Err(err) = &result {
        ctx.logs
            .record(LogLevel::Debug, "tool", format!("{name}: {err}"));
    }
    result
}

async fn call_typed<T: Tool>(
    ctx: Arc<Context>,
    mut args: Map<String, Value>,
) -> ToolResult<Answer> {
    let json = match args.remove("format") {
        None => false,
        Some(Value::String(f)) if f == "text" => false,
        Some(Value::String(f)) if f == "json" => true,
        Some(other) => {
            return Err(ToolError::new(
                ErrorCode::InvalidParams,
                format!("format must be \"text\" or \"json\", not {other}"),
            ));
        }
    };
    let args_keys: Vec<String> = args.keys().cloned().collect();
    let params: T::Params = serde_json::from_value(Value::Object(args)).map_err(|err| {
        ToolError::new(
            ErrorCode::InvalidParams,
            format!(
                "{}: {err}; see the parameters with `sextant {} --help`",
                T::NAME,
                T::NAME
            ),
        )
    })?;
    // Serde cannot refuse unknown keys of a struct with a flattened part
    // (the tools that take a symbol address): the schema's names can.
    let known = parameter_names::<T>();
    if let Some(unknown) = args_keys.iter().find(|key| !known.contains(key)) {
        let names: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!(
                "{}: unknown field `{unknown}`, expected one of {}; see the parameters with `sextant {} --help`",
                T::NAME,
                names.join(", "),
                T::NAME
            ),
        ));
    }
    let output = T::run(ctx, params).await?;
    let blocks = T::render(&output);
    let json = if json {
        Some(serde_json::to_value(&output).map_err(|err| {
            ToolError::new(
                ErrorCode::Io,
                format!("the result could not be serialised: {err}"),
            )
        })?)
    } else {
        None
    };
    Ok(Answer { blocks, json })
}

/// The names of a tool's parameters, from its schema; made once per tool
/// (every call checks against them, and a schema takes a while to make).
fn parameter_names<T: Tool>() -> Arc<[String]> {
    type ByTool = Mutex<HashMap<&'static str, Arc<[String]>>>;
    static NAMES: OnceLock<ByTool> = OnceLock::new();
    let mut names = lock(NAMES.get_or_init(Default::default));
    Arc::clone(names.entry(T::NAME).or_insert_with(|| {
        match input_schema::<T::Params>().get("properties") {
            Some(Value::Object(properties)) => properties.keys().cloned().collect(),
            _ => Arc::from(Vec::new()),
        }
    }))
}

/// The parameters' JSON Schema as schemars derives it (draft-07, every
/// subschema inlined). The edges trim it for what they show (see
/// `server::schema`).
fn input_schema<P: JsonSchema>() -> Map<String, Value> {
    let generator = schemars::generate::SchemaSettings::draft07()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    match generator.into_root_schema_for::<P>().to_value() {
        Value::Object(object) => object,
        _ => Map::new(),
    }
}

/// The `kinds` parameter: symbol kind names (`Class`, `Method`), checked.
pub(crate) fn parse_kinds(kinds: Option<&[String]>) -> ToolResult<Vec<SymbolKind>> {
    let mut out = Vec::new();
    for name in kinds.unwrap_or_default() {
        match SymbolKind::parse(name.trim()) {
            Some(kind) if !out.contains(&kind) => out.push(kind),
            Some(_) => {}
            None => {
                let names: Vec<&str> = ALL_KINDS.iter().map(|k| k.name()).collect();
                return Err(ToolError::new(
                    ErrorCode::InvalidParams,
                    format!(
                        "unknown kind '{name}' in kinds; the kinds are {}",
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// Runs blocking file work off the async threads, from the call on (not
/// from the first poll: work started before other awaits runs beside
/// them); a panic becomes an error.
pub(crate) fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> ToolResult<T> + Send + 'static,
) -> impl Future<Output = ToolResult<T>> {
    let task = tokio::task::spawn_blocking(work);
    async move {
        task.await.map_err(|err| {
            ToolError::new(ErrorCode::Io, format!("the tool failed internally: {err}"))
        })?
    }
}

/// Runs blocking file work of a bounded size (a small file, see
/// [`lines_of`]) where the call runs, on its worker: a trip to the
/// blocking pool and back is two thread switches, which a 3-line
/// `read_file` measured at a tenth of a millisecond. Work that may run
/// long (a walk of the workspace, files parsed on a miss, a large file),
/// or that should run beside the servers' answers, goes to
/// [`blocking`]. Not `block_in_place`: that may move this worker's place
/// to another thread and this thread to the blocking pool, whose idle
/// threads exit, and a language server spawned from it is killed with it
/// (`PR_SET_PDEATHSIG`, see `lsp::transport`). A panic becomes an error.
fn in_place<T>(work: impl FnOnce() -> ToolResult<T>) -> ToolResult<T> {
    catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        let why = (panic.downcast_ref::<&str>().copied())
            .or(panic.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic");
        Err(ToolError::new(
            ErrorCode::Io,
            format!("the tool failed internally: {why}"),
        ))
    })
}

/// Files at most this large have their lines read in place
/// ([`in_place`]); larger ones on the blocking pool: reading a file's
/// lines reads it whole.
const IN_PLACE_BYTES: u64 = 1 << 20;

/// The lines of `window` of the file at `path` (`read_lines`): a small
/// file's read in place, a larger one's on the blocking pool.
pub(crate) async fn lines_of(
    path: PathBuf,
    shown: String,
    window: LineWindow,
) -> ToolResult<FileLines> {
    let bytes = std::fs::metadata(&path).map_or(u64::MAX, |meta| meta.len());
    let read = move || read_lines(&path, &shown, window);
    match bytes <= IN_PLACE_BYTES {
        true => in_place(read),
        false => blocking(read).await,
    }
}

/// A short, single-line view of the arguments for the log.
fn summarize_args(args: &Map<String, Value>) -> String {
    let mut out = String::new();
    for (key, value) in args {
        let value = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let value: String = value
            .chars()
            .take(60)
            .collect::<String>()
            .replace('\n', "\\n");
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!("{key}={value}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn panicking() -> ToolResult<()> {
        panic!("a bug in a tool")
    }

    #[test]
    fn work_in_place_that_panics_is_an_error_and_the_next_goes_on() {
        let failed = in_place(panicking).unwrap_err();
        assert_eq!(
            failed.message,
            "the tool failed internally: a bug in a tool"
        );
        assert_eq!(in_place(|| Ok(7)).unwrap(), 7);
    }
}
