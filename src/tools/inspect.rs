//! `inspect`: everything about one symbol in one call. The hover text
//! (signature and documentation), where it is defined, where its type is
//! defined and where it is implemented, each location with its source line.
//! The four requests go to the server at once, so the answer costs about
//! its slowest request.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use super::address::{Address, resolve};
use super::locations::{SourceFiles, place};
use super::page::Pager;
use crate::context::Context;
use crate::error::ToolResult;
use crate::lsp::navigate::{Goto, Spot, goto, hover, references as find_references};
use crate::lsp::{LspError, Need, Session};
use crate::model::{InspectResult, Place, Range, SourceLocation, SymbolKind};

/// Hover text past this many lines is cut (the documentation of a std
/// type runs to hundreds).
const MAX_HOVER_LINES: usize = 40;

/// The longest wait for the type definition and the implementations.
const SECONDARY_BOUND: Duration = Duration::from_secs(10);

pub struct Inspect;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    #[serde(flatten)]
    pub at: Address,
    /// Skip this many implementations
    pub offset: Option<usize>,
}

impl Tool for Inspect {
    const NAME: &'static str = "inspect";
    const DESCRIPTION: &'static str = "A symbol's signature, docs, definition, type definition and implementations; also \
in libraries.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = InspectResult;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<InspectResult> {
        inspect(&ctx, params).await
    }

    fn render(output: &InspectResult) -> Vec<String> {
        crate::render::inspect(output)
    }
}

async fn inspect(ctx: &Context, params: Params) -> ToolResult<InspectResult> {
    let resolved = resolve(ctx, &params.at).await?;
    let session = ctx.lsp.open(&resolved.path, Need::SEEING).await?;
    // Implementations in other projects of a monorepo are found only in
    // projects the server has loaded.
    let unloaded = session.unloaded_note("implementations");
    let position = resolved.target.position;
    // The type definition and the implementations say less than the rest:
    // a server still loading may take its whole request timeout over them,
    // so the answer comes without them past a bound.
    let bounded = |goto_what: Goto, method: &'static str| {
        let session = &session;
        async move {
            tokio::time::timeout(SECONDARY_BOUND, goto(session, position, goto_what))
                .await
                .unwrap_or_else(|_| {
                    Err(LspError::Timeout {
                        server: session.server().to_string(),
                        method: method.to_string(),
                        seconds: SECONDARY_BOUND.as_secs_f64(),
                    })
                })
        }
    };
    // A server that answers implementations from the file's own project
    // alone: its references, which span every loaded project, find the
    // types that extend or implement this one elsewhere.
    let references = async {
        if !session.answers_from_one_project("textDocument/implementation") {
            return Vec::new();
        }
        tokio::time::timeout(SECONDARY_BOUND, find_references(&session, position, false))
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default()
    };
    let (hover, definitions, type_definitions, implementations, references) = tokio::join!(
        hover(&session, position),
        goto(&session, position, Goto::Definition),
        bounded(Goto::TypeDefinition, "textDocument/typeDefinition"),
        bounded(Goto::Implementation, "textDocument/implementation"),
        references,
    );
    let mut notes: Vec<String> = unloaded.into_iter().collect();
    if !session.index_complete() {
        notes.push(format!(
            "{} is still indexing; the answer may be incomplete",
            session.server()
        ));
    }
    // A request the server lacks leaves its section out; one that failed
    // says so. Only when nothing at all came back is it an error.
    let mut first_error = None;
    let mut unsupported = Vec::new();
    let mut keep = |what: &str, result: Result<Vec<Spot>, LspError>| match result {
        Ok(spots) => spots,
        Err(LspError::Unsupported { what, .. }) => {
            unsupported.push(what);
            Vec::new()
        }
        Err(err) => {
            notes.push(format!("{what} failed: {err}"));
            first_error.get_or_insert(err);
            Vec::new()
        }
    };
    // In file order: servers list implementations in no stable order.
    let sorted = |mut spots: Vec<Spot>| {
        spots.sort_by(|a, b| (&a.path, a.range).cmp(&(&b.path, b.range)));
        spots
    };
    // "No definition" is a finding only when the server answered.
    let definition_answered = definitions.is_ok();
    let definitions = sorted(keep("the definition", definitions));
    let type_definitions = sorted(keep("the type definition", type_definitions));
    let implementations = sorted(keep("the implementations", implementations));
    let hover = match hover {
        Ok(text) => text
            .map(|t| without_restated_name(&readable_markdown(&t), &resolved.target.name))
            .filter(|t| !t.is_empty()),
        Err(LspError::Unsupported { what, .. }) => {
            unsupported.insert(0, what);
            None
        }
        Err(err) => {
            notes.push(format!("the hover text failed: {err}"));
            first_error.get_or_insert(err);
            None
        }
    };
    let nothing = hover.is_none()
        && definitions.is_empty()
        && type_definitions.is_empty()
        && implementations.is_empty();
    if nothing && let Some(err) = first_error {
        return Err(err.into());
    }
    if unsupported.len() == 4 {
        let last = unsupported.pop().unwrap_or_default();
        return Err(LspError::Unsupported {
            server: session.server().to_string(),
            what: format!("{} or {last}", unsupported.join(", ")),
        }
        .into());
    }
    if !nothing && definition_answered && definitions.is_empty() {
        notes.push(format!(
            "{} finds no definition of `{}`: a name that does not resolve? (`diagnostics` says)",
            session.server(),
            resolved.target.name
        ));
    }
    if nothing {
        let why = match session.unlinked_note().await {
            Some(note) => note,
            None => "not a name it resolves (a keyword, a literal, or code it cannot type)".into(),
        };
        notes.push(format!(
            "{} knows nothing about `{}` here: {why}",
            session.server(),
            resolved.target.name
        ));
    }

    let mut files = SourceFiles::new(ctx);
    let definitions = past_imports(
        ctx,
        &session,
        &mut files,
        definitions,
        &resolved.target.name,
        &mut notes,
    )
    .await;
    let definition_spots = definitions.clone();
    let definitions = locations(&mut files, &definitions).await;
    // A class is its own type: a type definition equal to the definition
    // says nothing more.
    let type_definitions: Vec<SourceLocation> = locations(&mut files, &type_definitions)
        .await
        .into_iter()
        .filter(|l| !definitions.contains(l))
        .collect();
    // Nor does an implementation that is the definition itself (a
    // concrete method is its own implementation).
    let implementations: Vec<Spot> = implementations
        .into_iter()
        .filter(|i| !definition_spots.contains(i))
        .collect();
    // Only places that declare one: a server also lists the imports of the
    // type, annotations that name it, a function expression typed by it.
    let listed = implementations.len();
    let mut declared = Vec::with_capacity(listed);
    for spot in implementations {
        if files.declares(&spot.path, spot.range.start).await != Some(false) {
            declared.push(spot);
        }
    }
    let dropped = listed - declared.len();
    let mut implementations = declared;
    // A member's references hold the members that implement or override
    // it elsewhere: a member of a class or interface whose heading names
    // the member's own container (`class Derived implements Named`).
    let base = match &resolved.target.declaration {
        Some((path, SymbolKind::Method | SymbolKind::Property | SymbolKind::Field)) => {
            let separator = files.separator(&resolved.path).await;
            path.rsplit_once(separator).map(|(container, _)| {
                container
                    .rsplit(separator)
                    .next()
                    .unwrap_or(container)
                    .to_string()
            })
        }
        _ => None,
    };
    for spot in references {
        if place(ctx, &spot.path) != Place::Workspace {
            continue;
        }
        let member = match &base {
            Some(base) => {
                files
                    .member_of_heir(&spot.path, spot.range.start, base)
                    .await
            }
            None => false,
        };
        let at = if member {
            Some(spot.range.start)
        } else {
            files.heir_at(&spot.path, spot.range.start).await
        };
        let Some(at) = at else {
            continue;
        };
        let known = implementations
            .iter()
            .chain(&definition_spots)
            .any(|i| i.path == spot.path && i.range.start == at);
        if !known {
            implementations.push(Spot {
                path: spot.path,
                range: Range::new(at, at),
            });
        }
    }
    implementations.sort_by(|a, b| (&a.path, a.range).cmp(&(&b.path, b.range)));
    let server = session.server();
    match dropped {
        0 => {}
        1 => notes.push(format!(
            "1 place {server} listed as an implementation is not a declaration (an import, a type annotation, an expression) and is left out"
        )),
        n => notes.push(format!(
            "{n} places {server} listed as implementations are not declarations (imports, type annotations, expressions) and are left out"
        )),
    }
    let implementations_total = implementations.len();
    let offset = params.offset.unwrap_or(0).min(implementations_total);
    let around = hover.as_ref().map_or(0, String::len)
        + definitions
            .iter()
            .chain(&type_definitions)
            .map(|l| crate::render::location(l).len() + 3)
            .sum::<usize>();
    let mut pager = Pager::new(offset, None).reserve(around);
    let mut shown = Vec::new();
    for spot in &implementations {
        if pager.skip() {
            continue;
        }
        let location = files.location(&spot.path, spot.range.start).await;
        if !pager.admit(crate::render::location(&location).len() + 3) {
            break;
        }
        shown.push(location);
    }
    let end = offset + shown.len();
    Ok(InspectResult {
        target: resolved.target,
        hover,
        definitions,
        type_definitions,
        implementations: shown,
        implementations_total,
        offset,
        next_offset: (end < implementations_total).then_some(end),
        notes,
    })
}

/// `definitions` with each one on an import of the name (a server still
/// loading the module it comes from stops there) asked once more from the
/// import; one that goes no further stays, and a note says so.
async fn past_imports(
    ctx: &Context,
    session: &Session,
    files: &mut SourceFiles<'_>,
    definitions: Vec<Spot>,
    name: &str,
    notes: &mut Vec<String>,
) -> Vec<Spot> {
    let mut found: Vec<Spot> = Vec::with_capacity(definitions.len());
    for spot in definitions {
        if !files.in_import(&spot.path, spot.range.start).await {
            if !found.contains(&spot) {
                found.push(spot);
            }
            continue;
        }
        let further = match ctx.lsp.open(&spot.path, Need::DOCUMENT).await {
            Ok(there) => goto(&there, spot.range.start, Goto::Definition)
                .await
                .unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        let mut went_further = false;
        for next in further {
            if next != spot && !files.in_import(&next.path, next.range.start).await {
                went_further = true;
                if !found.contains(&next) {
                    found.push(next);
                }
            }
        }
        if !went_further {
            notes.push(format!(
                "{} resolves `{name}` only as far as its import at {}:{}: where it comes from is not resolved (a module not loaded yet, not installed, or without types)",
                session.server(),
                files.shown(&spot.path),
                spot.range.start
            ));
            found.push(spot);
        }
    }
    found
}

async fn locations(files: &mut SourceFiles<'_>, spots: &[Spot]) -> Vec<SourceLocation> {
    let mut out = Vec::with_capacity(spots.len());
    for spot in spots {
        out.push(files.location(&spot.path, spot.range.start).await);
    }
    out
}

/// Hover markdown as a person would want to read it in plain text: code
/// fences kept (with their language), horizontal rules, empty fences and
/// runs of blank lines gone, backslash escapes and link targets dropped
/// outside code, and cut after [`MAX_HOVER_LINES`] lines.
pub fn readable_markdown(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let mut lines: Vec<String> = Vec::new();
    let mut in_code = false;
    let mut fence_start = 0;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            // A longer fence (ty opens docstring examples with eleven
            // backticks) reads the same with three.
            let line = format!("```{}", info.trim_start_matches('`'));
            if in_code {
                in_code = false;
                // An empty fence says nothing.
                if lines.len() == fence_start + 1 {
                    lines.truncate(fence_start);
                    continue;
                }
            } else {
                in_code = true;
                fence_start = lines.len();
            }
            lines.push(line.trim_end().to_string());
            continue;
        }
        if in_code {
            lines.push(line.trim_end().to_string());
            continue;
        }
        let bare = trimmed.trim_end();
        if bare.len() >= 3 && (bare.chars().all(|c| c == '-') || bare.chars().all(|c| c == '*')) {
            lines.push(String::new());
            continue;
        }
        // rust-analyzer writes `{unknown}` for a type it could not infer
        // (its notable traits of a trait method's fn item): a line built
        // on one says nothing true.
        if line.contains("{unknown}") {
            continue;
        }
        // ty keeps a docstring's indentation as `&nbsp;`s.
        let line = line.trim_end().replace("&nbsp;", " ");
        lines.push(plain_markdown_line(&line));
    }
    // Blank lines: none at either end, never two in a row.
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        if line.is_empty() && out.last().is_none_or(|l: &String| l.is_empty()) {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    if out.len() > MAX_HOVER_LINES {
        let more = out.len() - MAX_HOVER_LINES;
        out.truncate(MAX_HOVER_LINES);
        // Never leave a code fence open.
        if out
            .iter()
            .filter(|l| l.trim_start().starts_with("```"))
            .count()
            % 2
            == 1
        {
            out.push("```".to_string());
        }
        out.push(format!("... {more} more lines of documentation"));
    }
    out.join("\n")
}

/// The hover text without a first line that only restates what the
/// answer's header says (`inspect Circle (Class) at ...`): clangd's
/// heading (`### class \`Circle\``) and ty's class block
/// (```` ```xml <class 'Circle'> ``` ````).
fn without_restated_name(text: &str, name: &str) -> String {
    let heading = |line: &str| {
        line.starts_with('#')
            && line
                .trim_start_matches('#')
                .trim()
                .split_once(' ')
                .is_some_and(|(_, rest)| rest == format!("`{name}`"))
    };
    let class_block = format!("<class '{name}'>");
    let lines: Vec<&str> = text.lines().collect();
    let rest = match lines.as_slice() {
        [first, rest @ ..] if heading(first) => rest,
        [open, only, "```", rest @ ..] if open.starts_with("```") && *only == class_block => rest,
        _ => return text.to_string(),
    };
    rest.join("\n").trim_start_matches('\n').to_string()
}

/// One line of markdown prose: `\_` -> `_`, `[text](https://...)` -> `text`
/// (inline code left as it is).
pub(crate) fn plain_markdown_line(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    let mut in_code = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            in_code = !in_code;
            out.push(c);
            i += 1;
            continue;
        }
        if !in_code {
            if c == '\\' && chars.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()) {
                out.push(chars[i + 1]);
                i += 2;
                continue;
            }
            if c == '['
                && let Some((text, after)) = link(&chars, i)
            {
                out.push_str(&text);
                i = after;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// A `[text](target)` link starting at `start`: its text and the index
/// after it.
fn link(chars: &[char], start: usize) -> Option<(String, usize)> {
    let close = start + chars[start..].iter().position(|&c| c == ']')?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = close + 1 + chars[close + 1..].iter().position(|&c| c == ')')?;
    let text: String = chars[start + 1..close].iter().collect();
    Some((text, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hover_markdown_keeps_code_and_drops_noise() {
        let hover = "```rust\nsextant_fixture::Ledger\n```\n\n```rust\npub fn total(&self) -> i64\n```\n\n---\n\nSums the \\_entries\\_, see [`Vec::iter`](https://doc.rust-lang.org/std/vec/struct.Vec.html#method.iter).\n\n```ts\n```\n\n\n";
        assert_eq!(
            readable_markdown(hover),
            "```rust\nsextant_fixture::Ledger\n```\n\n```rust\npub fn total(&self) -> i64\n```\n\nSums the _entries_, see `Vec::iter`."
        );
    }

    /// ty's rendering of a docstring: indentation as `&nbsp;`, examples
    /// in a fence of many backticks.
    #[test]
    fn docstring_indentation_and_long_fences_read_plainly() {
        let hover = "Roughly:\n&nbsp;&nbsp;sqrt(x)\n\n```````````python\n    >>> hypot(3.0, 4.0)\n```````````\n";
        assert_eq!(
            readable_markdown(hover),
            "Roughly:\n  sqrt(x)\n\n```python\n    >>> hypot(3.0, 4.0)\n```"
        );
    }

    #[test]
    fn a_first_line_restating_the_name_is_left_out() {
        assert_eq!(
            without_restated_name("### function `total_area`\n\n→ `double`", "total_area"),
            "→ `double`"
        );
        assert_eq!(
            without_restated_name("```xml\n<class 'Circle'>\n```\n\nA circle.", "Circle"),
            "A circle."
        );
        // Another name, or more than the name: kept.
        let kept = "### function `area`\n\nx";
        assert_eq!(without_restated_name(kept, "total_area"), kept);
        let code = "```ts\nclass Circle\n```";
        assert_eq!(without_restated_name(code, "Circle"), code);
    }

    #[test]
    fn long_hover_text_is_cut_without_leaving_a_fence_open() {
        let hover = format!("```ts\n{}```", "line\n".repeat(100));
        let out = readable_markdown(&hover);
        assert_eq!(out.lines().count(), MAX_HOVER_LINES + 2);
        assert!(
            out.ends_with("```\n... 62 more lines of documentation"),
            "{out}"
        );
    }
}
