//! `pipe`: a chain of read-only tools in one call, each step's typed
//! output handed to the next without being rendered; only the last step's
//! outputs are shown, paged to the budget.
//!
//! What flows between steps is files (`find`, `grep`'s file modes),
//! matching lines (`grep` content), symbols (`search` hits) or the symbols
//! enclosing references (`references`). Each step says what it takes, so a
//! chain that does not fit is refused before any step runs.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::locations::SourceFiles;
use super::page::Pager;
use super::{Tool, blocking};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::model::{GrepEntry, GrepMode, PipeOutput, PipeResult, Position, ReferencesResult};
use crate::render::count;

/// The most steps a pipe may have.
const MAX_STEPS: usize = 8;

/// The chains that fit: (a step, the step that may follow it).
const EDGES: [(&str, &str); 6] = [
    ("find", "grep"),
    ("find", "read"),
    ("grep", "read"),
    ("search", "read"),
    ("search", "references"),
    ("references", "read"),
];

/// The parameters a step gets from the one before it, which its own args
/// may not give.
fn supplied_keys(before: &str, tool: &str) -> &'static [&'static str] {
    match (before, tool) {
        ("find", "read") => &["file"],
        (_, "read") => &["file", "symbol"],
        (_, "references") => &["file", "line", "character", "symbol"],
        _ => &[],
    }
}

/// The step's args, with placeholders for what it is supplied, fit its
/// parameters.
fn check_args(step: &Step, supplied: &[&str]) -> ToolResult<()> {
    let placeholders: Vec<(&str, Value)> = supplied
        .iter()
        .map(|key| match *key {
            "line" | "character" => (*key, json!(1)),
            _ => (*key, json!("x")),
        })
        .collect();
    match step.tool.as_str() {
        "find" => params::<super::find::Params>(step, &placeholders).map(drop),
        "grep" => params::<super::grep::Params>(step, &placeholders).map(drop),
        "search" => params::<super::search::Params>(step, &placeholders).map(drop),
        "references" => params::<super::references::Params>(step, &placeholders).map(drop),
        "read" => params::<super::read::Params>(step, &placeholders).map(drop),
        _ => Ok(()),
    }
}

/// Where a pipe may start.
const FIRST: [&str; 4] = ["find", "grep", "search", "references"];

pub struct Pipe;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// [{"tool":"find","args":{...}}, ...]
    pub steps: Vec<Step>,
    pub offset: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub tool: String,
    #[serde(default)]
    pub args: Map<String, Value>,
}

impl Tool for Pipe {
    const NAME: &'static str = "pipe";
    const DESCRIPTION: &'static str = "Read-only tools chained, each fed the last one's results (find -> grep -> read); \
only the last is shown.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = PipeResult;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<PipeResult> {
        pipe(&ctx, params).await
    }

    fn render(output: &PipeResult) -> Vec<String> {
        crate::render::pipe(output)
    }
}

/// What one step hands the next.
enum Flow {
    Files(Vec<PathBuf>),
    /// Matching lines: file and line.
    Lines(Vec<(PathBuf, u32)>),
    /// Symbols: file, name path, where the name starts.
    Symbols(Vec<(PathBuf, String, Position)>),
    /// The symbols enclosing references: file and name path.
    Enclosing(Vec<(PathBuf, String)>),
}

/// Refuses a chain that does not fit, before anything runs.
fn check(steps: &[Step]) -> ToolResult<()> {
    let invalid = |message: String| ToolError::new(ErrorCode::InvalidParams, message);
    if steps.len() < 2 || steps.len() > MAX_STEPS {
        return Err(invalid(format!(
            "a pipe has 2 to {MAX_STEPS} steps, not {}; for one tool, call it directly",
            steps.len()
        )));
    }
    let fits: Vec<String> = EDGES.iter().map(|(a, b)| format!("{a} -> {b}")).collect();
    for (i, step) in steps.iter().enumerate() {
        let Some(entry) = super::all().into_iter().find(|t| t.name == step.tool) else {
            return Err(ToolError::new(
                ErrorCode::UnknownTool,
                format!("step {}: no tool named '{}'", i + 1, step.tool),
            ));
        };
        if entry.writes {
            return Err(invalid(format!(
                "step {}: {} writes files, and a pipe only reads; call it on its own",
                i + 1,
                step.tool
            )));
        }
        if i == 0 && !FIRST.contains(&step.tool.as_str()) {
            return Err(invalid(format!(
                "step 1: a pipe starts with {}, not {}",
                FIRST.join(", "),
                step.tool
            )));
        }
        if i > 0 {
            let before = steps[i - 1].tool.as_str();
            if !EDGES.contains(&(before, step.tool.as_str())) {
                return Err(invalid(format!(
                    "step {}: {} cannot take what {before} gives ({}); the chains that fit are {}",
                    i + 1,
                    step.tool,
                    gives(before),
                    fits.join(", ")
                )));
            }
        }
    }
    // The chain fits; then each step's args must fit its tool.
    for (i, step) in steps.iter().enumerate() {
        let supplied = match i {
            0 => &[][..],
            _ => supplied_keys(&steps[i - 1].tool, &step.tool),
        };
        check_args(step, supplied)
            .map_err(|err| ToolError::new(err.code, format!("step {}: {}", i + 1, err.message)))?;
    }
    Ok(())
}

/// What a tool hands on, for messages.
fn gives(tool: &str) -> &'static str {
    match tool {
        "find" => "files",
        "grep" => "files or matching lines",
        "search" => "symbols",
        "references" => "the symbols enclosing references",
        _ => "an answer to read, nothing to take further",
    }
}

/// A step's parameters: its own args, and what the step before supplies
/// (which the args may not also give).
fn params<P: DeserializeOwned>(step: &Step, supplied: &[(&str, Value)]) -> ToolResult<P> {
    let mut args = step.args.clone();
    args.remove("format");
    for (key, value) in supplied {
        if args.contains_key(*key) {
            return Err(ToolError::new(
                ErrorCode::InvalidParams,
                format!(
                    "{}'s `{key}` comes from the step before it; leave it out of its args",
                    step.tool
                ),
            ));
        }
        args.insert((*key).to_string(), value.clone());
    }
    serde_json::from_value(Value::Object(args)).map_err(|err| {
        ToolError::new(
            ErrorCode::InvalidParams,
            format!("{}: {err}; see `sextant {} --help`", step.tool, step.tool),
        )
    })
}

async fn pipe(ctx: &Arc<Context>, params: Params) -> ToolResult<PipeResult> {
    let steps = params.steps;
    check(&steps)?;
    let mut summaries = Vec::new();
    let mut notes = Vec::new();
    let mut flow = first_step(ctx, &steps[0], &mut summaries).await?;
    let last = steps.len() - 1;
    for step in &steps[1..last] {
        flow = middle_step(ctx, step, flow, &mut summaries, &mut notes).await?;
    }
    last_step(
        ctx,
        &steps[last],
        flow,
        params.offset.unwrap_or(0),
        summaries,
        notes,
    )
    .await
}

async fn first_step(
    ctx: &Arc<Context>,
    step: &Step,
    summaries: &mut Vec<String>,
) -> ToolResult<Flow> {
    let flow = match step.tool.as_str() {
        "find" => {
            let found = super::find::Find::run(Arc::clone(ctx), params(step, &[])?).await?;
            let files = resolve_all(ctx, &found.files);
            summaries.push(format!("find: {}", count(files.len(), "file", "files")));
            Flow::Files(files)
        }
        "grep" => {
            let result = grep_step(ctx, step, None).await?;
            grep_flow(ctx, &result, summaries)
        }
        "search" => {
            let found = super::search::Search::run(Arc::clone(ctx), params(step, &[])?).await?;
            let mut symbols = Vec::new();
            for file in &found.files {
                if let Ok(path) = ctx.resolve_read(&file.path) {
                    for symbol in &file.symbols {
                        symbols.push((path.clone(), symbol.name.clone(), symbol.position));
                    }
                }
            }
            summaries.push(format!(
                "search: {}",
                count(symbols.len(), "symbol", "symbols")
            ));
            Flow::Symbols(symbols)
        }
        _ => {
            let found =
                super::references::References::run(Arc::clone(ctx), params(step, &[])?).await?;
            let enclosing = enclosing_of(ctx, std::slice::from_ref(&found));
            summaries.push(format!(
                "references: {} in {}",
                count(found.total, "reference", "references"),
                count(enclosing.len(), "enclosing symbol", "enclosing symbols")
            ));
            Flow::Enclosing(enclosing)
        }
    };
    Ok(flow)
}

/// A step between the first and the last: `grep` over found files, or
/// `references` of found symbols.
async fn middle_step(
    ctx: &Arc<Context>,
    step: &Step,
    flow: Flow,
    summaries: &mut Vec<String>,
    notes: &mut Vec<String>,
) -> ToolResult<Flow> {
    match (step.tool.as_str(), flow) {
        ("grep", Flow::Files(files)) => {
            let result = grep_step(ctx, step, Some(files)).await?;
            Ok(grep_flow(ctx, &result, summaries))
        }
        ("references", Flow::Symbols(symbols)) => {
            let mut all = Vec::new();
            for (path, _, position) in symbols {
                match references_at(ctx, step, &path, position).await {
                    Ok(found) => all.push(found),
                    Err(err) => notes.push(err.to_string()),
                }
            }
            let enclosing = enclosing_of(ctx, &all);
            summaries.push(format!(
                "references: {}",
                count(enclosing.len(), "enclosing symbol", "enclosing symbols")
            ));
            Ok(Flow::Enclosing(enclosing))
        }
        (tool, _) => Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("{tool} cannot be in the middle of a pipe"),
        )),
    }
}

async fn last_step(
    ctx: &Arc<Context>,
    step: &Step,
    flow: Flow,
    offset: usize,
    steps: Vec<String>,
    mut notes: Vec<String>,
) -> ToolResult<PipeResult> {
    // `grep` gives one answer over all the files.
    if let ("grep", Flow::Files(files)) = (step.tool.as_str(), &flow) {
        let result = grep_step(ctx, step, Some(files.clone())).await?;
        return Ok(PipeResult {
            steps,
            outputs: vec![PipeOutput::Grep(result)],
            total: 1,
            offset: 0,
            next_offset: None,
            notes,
        });
    }
    // Every other last step gives one answer per input, computed only for
    // the page shown.
    let inputs = last_inputs(ctx, step, flow, &mut notes).await?;
    let total = inputs.len();
    let mut outputs = Vec::new();
    let mut skipped = Vec::new();
    let mut pager = Pager::new(offset, None);
    for input in inputs {
        if pager.skip() {
            continue;
        }
        // An answer is computed only once it is on the page: it goes on
        // while the page has room, its size counted once it is known.
        if !pager.admit(0) {
            break;
        }
        let output = match input {
            LastInput::Read(args) => read_one(ctx, step, args).await.map(PipeOutput::Read),
            LastInput::References(path, position) => references_at(ctx, step, &path, position)
                .await
                .map(PipeOutput::References),
        };
        match output {
            Ok(output) => {
                pager.add(rendered_size(&output));
                outputs.push(output);
            }
            Err(err) => skipped.push(err.to_string()),
        }
    }
    if !skipped.is_empty() {
        notes.push(format!(
            "{} could not be shown: {}",
            count(skipped.len(), "input", "inputs"),
            skipped
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    Ok(PipeResult {
        steps,
        outputs,
        total,
        offset,
        next_offset: pager.page(total).next_offset,
        notes,
    })
}

/// One input of the last step.
enum LastInput {
    /// `read` with these supplied parameters.
    Read(Vec<(&'static str, Value)>),
    References(PathBuf, Position),
}

async fn last_inputs(
    ctx: &Arc<Context>,
    step: &Step,
    flow: Flow,
    notes: &mut Vec<String>,
) -> ToolResult<Vec<LastInput>> {
    let shown = |path: &PathBuf| Value::String(ctx.workspace.display(path));
    let mut seen = HashSet::new();
    let mut inputs = Vec::new();
    let read = |path: &PathBuf, symbol: Option<&str>| {
        let mut args = vec![("file", shown(path))];
        if let Some(symbol) = symbol {
            args.push(("symbol", json!(symbol)));
        }
        args
    };
    match (step.tool.as_str(), flow) {
        ("read", Flow::Files(files)) => {
            inputs.extend(files.iter().map(|path| LastInput::Read(read(path, None))));
        }
        ("read", Flow::Lines(lines)) => {
            // The symbol around each match, each once; a match outside
            // every symbol reads its file's outline.
            let mut files = SourceFiles::new(ctx);
            for (path, line) in lines {
                let enclosing = files.symbol_at_line(&path, line).await;
                if seen.insert((path.clone(), enclosing.clone())) {
                    inputs.push(LastInput::Read(read(&path, enclosing.as_deref())));
                }
            }
        }
        ("read", Flow::Symbols(symbols)) => {
            for (path, name, _) in symbols {
                if seen.insert((path.clone(), Some(name.clone()))) {
                    inputs.push(LastInput::Read(read(&path, Some(&name))));
                }
            }
        }
        ("read", Flow::Enclosing(enclosing)) => {
            for (path, name) in enclosing {
                let mut args = read(&path, Some(&name));
                // A reference's code is what was asked for.
                if !step.args.contains_key("preview") {
                    args.push(("preview", json!("expanded")));
                }
                inputs.push(LastInput::Read(args));
            }
        }
        ("references", Flow::Symbols(symbols)) => {
            inputs.extend(
                symbols
                    .into_iter()
                    .map(|(path, _, position)| LastInput::References(path, position)),
            );
        }
        // `check` let no other pair through.
        (tool, _) => {
            return Err(ToolError::new(
                ErrorCode::InvalidParams,
                format!("{tool} cannot come last after the step before it"),
            ));
        }
    }
    if inputs.is_empty() {
        notes.push("the steps before found nothing to hand on".to_string());
    }
    Ok(inputs)
}

async fn read_one(
    ctx: &Arc<Context>,
    step: &Step,
    supplied: Vec<(&'static str, Value)>,
) -> ToolResult<crate::model::ReadResult> {
    let p: super::read::Params = params(step, &supplied)?;
    super::read::Read::run(Arc::clone(ctx), p).await
}

async fn references_at(
    ctx: &Arc<Context>,
    step: &Step,
    path: &std::path::Path,
    position: Position,
) -> ToolResult<ReferencesResult> {
    let supplied = [
        ("file", Value::String(ctx.workspace.display(path))),
        ("line", json!(position.line)),
        ("character", json!(position.character)),
    ];
    let p: super::references::Params = params(step, &supplied)?;
    super::references::References::run(Arc::clone(ctx), p).await
}

/// A `grep` step: over `files` only, when the step before found them.
async fn grep_step(
    ctx: &Arc<Context>,
    step: &Step,
    files: Option<Vec<PathBuf>>,
) -> ToolResult<crate::model::GrepResult> {
    let p: super::grep::Params = params(step, &[])?;
    let only: Option<HashSet<PathBuf>> = files.map(|files| files.into_iter().collect());
    let ctx = Arc::clone(ctx);
    blocking(move || super::grep::grep(&ctx, &p, only.as_ref())).await
}

/// What a grep hands on: matching lines in content mode, else files.
fn grep_flow(
    ctx: &Context,
    result: &crate::model::GrepResult,
    summaries: &mut Vec<String>,
) -> Flow {
    let mut files = Vec::new();
    let mut lines = Vec::new();
    for entry in &result.entries {
        match entry {
            GrepEntry::File { path } | GrepEntry::Count { path, .. } => {
                if let Ok(path) = ctx.resolve_read(path) {
                    files.push(path);
                }
            }
            GrepEntry::Line {
                path,
                line,
                is_match: true,
                ..
            } => {
                if let Ok(path) = ctx.resolve_read(path) {
                    lines.push((path, *line as u32));
                }
            }
            GrepEntry::Line { .. } => {}
        }
    }
    if result.mode == GrepMode::Content {
        summaries.push(format!(
            "grep: {} in {}",
            count(lines.len(), "matching line", "matching lines"),
            count(result.total_files, "file", "files")
        ));
        Flow::Lines(lines)
    } else {
        summaries.push(format!("grep: {}", count(files.len(), "file", "files")));
        Flow::Files(files)
    }
}

/// The symbols enclosing the references of these answers, each once, in
/// order; references at the top level have none and are left out.
fn enclosing_of(ctx: &Context, answers: &[ReferencesResult]) -> Vec<(PathBuf, String)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for answer in answers {
        for file in &answer.files {
            let Ok(path) = ctx.resolve_read(&file.path) else {
                continue;
            };
            for line in &file.lines {
                if let Some(enclosing) = &line.enclosing
                    && seen.insert((path.clone(), enclosing.clone()))
                {
                    out.push((path.clone(), enclosing.clone()));
                }
            }
        }
    }
    out
}

fn resolve_all(ctx: &Context, shown: &[String]) -> Vec<PathBuf> {
    shown
        .iter()
        .filter_map(|p| ctx.resolve_read(p).ok())
        .collect()
}

/// The characters an output takes once rendered (renderers are pure).
fn rendered_size(output: &PipeOutput) -> usize {
    let blocks = match output {
        PipeOutput::Grep(result) => crate::render::grep(result),
        PipeOutput::Read(result) => crate::render::read(result),
        PipeOutput::References(result) => crate::render::references(result),
    };
    blocks.iter().map(String::len).sum()
}
