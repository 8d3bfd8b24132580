//! This build of sextant against another, side by side on a real project:
//! each a `sextant serve` of its own on the same checkout, their calls
//! alternated, so both meet the machine as it is in that minute. This
//! machine's speed moves by a third between runs an hour apart, more than
//! most changes: the corpus table (`table -- --corpus`) cannot tell a
//! change of a few tenths of a millisecond from the weather; this can.
//!
//! `cargo bench --bench versus -- --against PROGRAM --corpus NAME=DIR
//! [--rounds N] [--tools rename,references] [--this PROGRAM]`, PROGRAM
//! another build (of the last landing, say: `git worktree add`, `cargo
//! build --release` there); `--this` a program to run in this build's
//! place (see below). For read, read_file, search, inspect, references,
//! call_hierarchy, rename's preview, diagnostics and logs (or those
//! `--tools` names), as the corpus table asks them; `first_rename`, a
//! rename previewed of another function or method of the corpus's file
//! each round (see [`first_renames`]); and (where all are asked) a `ping`
//! after 20 ms idle, the floor under the others: the
//! median own time (a call's time less its waits on servers, from each
//! sextant's tool log; a build whose log says nothing of waits gives its
//! wall time; a ping's is its wall time) and CPU per call (its threads'
//! run time) of both, and the change (this build's less the other's:
//! negative is faster). Printed only: the figures are for the change at
//! hand.
//!
//! The side started first is not always even with the other: one build
//! run against itself on the TypeScript SDK gave its first side's rename
//! preview 0.47 ms more own time (CPU +0.16), and two builds, run in
//! both orders, each put the side started first 0.3-0.5 ms behind.
//! Where a change is that small, run both orders (`--this` the other
//! build, `--against` this one's binary) and take what both agree on.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "corpora.rs"]
mod corpora;
#[path = "rounds.rs"]
mod rounds;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use corpora::{Project, corpora_asked, servers_answer_search};
use rounds::{ROUNDS, Rounds, call, ms};

/// How long the bench's pings wait before each (see `main`).
const PING_IDLE: Duration = Duration::from_millis(20);

/// One build's server on the project.
struct Side {
    client: common::mcp::Client,
    pid: u32,
}

/// The value after `flag` on the command line.
fn flag(flag: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .zip(args.iter().skip(1))
        .find(|(name, _)| *name == flag)
        .map(|(_, value)| value.clone())
}

/// The calls compared, as the corpus table makes them.
fn calls(project: &Project) -> Vec<(&'static str, Value)> {
    let mut rename = project.function.clone();
    rename["new_name"] = json!("renamedForBench");
    vec![
        ("read", json!({"file": project.file})),
        ("read_file", json!({"path": project.file})),
        ("search", json!({"query": project.query})),
        ("inspect", project.symbol.clone()),
        ("references", project.symbol.clone()),
        ("call_hierarchy", project.function.clone()),
        ("rename", rename),
        ("diagnostics", json!({"file": project.file})),
        ("logs", json!({})),
    ]
}

/// `after` less `before`, signed, in ms.
fn change(before: Option<Duration>, after: Option<Duration>) -> String {
    match (before, after) {
        (Some(before), Some(after)) => format!(
            "{:+.2}",
            (after.as_secs_f64() - before.as_secs_f64()) * 1000.0
        ),
        _ => "-".into(),
    }
}

fn shown(figure: Option<Duration>) -> String {
    figure.map_or_else(|| "-".into(), ms)
}

/// A row of the table: both sides' own time and CPU per call, and the
/// changes.
fn print_row(name: &str, own: &[Option<Duration>], cpu: &[Option<Duration>]) {
    println!(
        "| {name} | {} | {} | {} | {} | {} | {} |",
        shown(own[0]),
        shown(own[1]),
        change(own[1], own[0]),
        shown(cpu[0]),
        shown(cpu[1]),
        change(cpu[1], cpu[0]),
    );
}

/// The row of calls timed on both sides: own times (from each side's log)
/// and CPU per call.
async fn print_measured(name: &str, sides: &[Side], timed: &[Rounds]) {
    let mut own = Vec::new();
    for (side, rounds) in sides.iter().zip(timed) {
        own.push(rounds.own_median(&side.client).await);
    }
    let cpu: Vec<Option<Duration>> = timed.iter().map(Rounds::cpu_per_call).collect();
    print_row(name, &own, &cpu);
}

/// The row a rename of a name not renamed before makes.
const FIRST_RENAME: &str = "first_rename";

/// A rename preview of each function and method of the corpus's file, by
/// position, a name once: what an agent's rename costs. Repeating one
/// rename (the `rename` row) finds the text audit's walk of the workspace
/// for its name kept; a name's first walks every file that holds it
/// (hundreds of milliseconds on the TypeScript SDK). Each side is its own
/// process, so both meet each name first.
async fn first_renames(side: &Side, project: &Project) -> Vec<Value> {
    let args = json!({"file": project.file, "preview": "none"});
    let result = common::mcp::call(&side.client, "read", args).await;
    let outline = common::mcp::texts(&result).concat();
    let mut seen = std::collections::HashSet::new();
    outline
        .lines()
        .filter_map(|line| {
            let (at, symbol) = line.trim().strip_prefix('@')?.split_once(' ')?;
            let (kind, name) = symbol.split_once(" - ")?;
            let (line, character) = at.split_once(':')?;
            let (line, character) = (line.parse::<u32>().ok()?, character.parse::<u32>().ok()?);
            let callable = matches!(kind, "Method" | "Function") && name != "constructor";
            (callable && seen.insert(name.to_string())).then(|| {
                json!({
                    "file": project.file,
                    "line": line,
                    "character": character,
                    "new_name": "renamedForBench",
                })
            })
        })
        .collect()
}

async fn start(program: &Path, project: &Project) -> Side {
    let (client, pid) = common::mcp::start_program(program, &project.root, &[]).await;
    servers_answer_search(&client, project.query).await;
    Side { client, pid }
}

#[tokio::main]
async fn main() {
    let Some(against) = flag("--against").map(PathBuf::from) else {
        eprintln!(
            "versus: pass --against PROGRAM (another build of sextant) and --corpus NAME=DIR"
        );
        return;
    };
    let rounds: usize = flag("--rounds")
        .map_or(ROUNDS, |n| n.parse().expect("--rounds N"))
        .max(1);
    let tools: Option<Vec<String>> =
        flag("--tools").map(|tools| tools.split(',').map(str::to_string).collect());
    // Both run from fresh copies: the same binary ran 5-10% slower from
    // the file the linker wrote than from a copy of it (the page cache
    // holds the two differently), which is more than most changes.
    let copies = tempfile::tempdir().expect("a folder for the two builds");
    let copy = |program: &Path, name: &str| {
        let path = copies.path().join(name);
        std::fs::copy(program, &path).unwrap_or_else(|err| panic!("{}: {err}", program.display()));
        path
    };
    // `--this` puts another program in this build's place: two other
    // builds, or one run two ways through a wrapper script. A wrapper must
    // `exec` the program (its CPU is read by the pid started), and only
    // the wrapper is copied, not what it runs.
    let given = flag("--this").map(PathBuf::from);
    let this = copy(
        given
            .as_deref()
            .unwrap_or(Path::new(env!("CARGO_BIN_EXE_sextant"))),
        "this",
    );
    let this_name = given.map_or("this build".to_string(), |p| p.display().to_string());
    let other = copy(&against, "against");
    for project in corpora_asked() {
        let sides = [start(&this, &project).await, start(&other, &project).await];
        println!(
            "\n{} ({rounds} calls each, alternated): {this_name} against {}\n",
            project.name,
            against.display()
        );
        println!("| tool | own ms | against | change | CPU ms | against | change |");
        println!("|---|---:|---:|---:|---:|---:|---:|");
        let all = calls(&project);
        if let Some(unknown) = tools
            .iter()
            .flatten()
            .find(|tool| *tool != FIRST_RENAME && !all.iter().any(|(known, _)| known == tool))
        {
            let mut known: Vec<&str> = all.iter().map(|(tool, _)| *tool).collect();
            known.push(FIRST_RENAME);
            panic!("--tools: no {unknown}; known: {}", known.join(", "));
        }
        let asked = all
            .into_iter()
            .filter(|(tool, _)| tools.as_ref().is_none_or(|t| t.iter().any(|t| t == tool)));
        // First, so that no name was renamed before (the rename row's).
        if tools
            .as_ref()
            .is_none_or(|t| t.iter().any(|t| t == FIRST_RENAME))
        {
            let renames = first_renames(&sides[0], &project).await;
            assert!(
                !renames.is_empty(),
                "no function or method in {}",
                project.file
            );
            let mut timed = [Rounds::new(sides[0].pid), Rounds::new(sides[1].pid)];
            for (round, args) in renames.iter().take(rounds).enumerate() {
                let mut order = [0, 1];
                if round % 2 == 1 {
                    order.reverse();
                }
                for side in order {
                    timed[side].call(&sides[side].client, "rename", args).await;
                }
            }
            let name = format!("{FIRST_RENAME} ({} names)", renames.len().min(rounds));
            print_measured(&name, &sides, &timed).await;
        }
        for (tool, args) in asked {
            // A warm-up call each, then the rounds in turn.
            let mut timed = Vec::new();
            for side in &sides {
                call(&side.client, tool, &args).await;
                timed.push(Rounds::new(side.pid));
            }
            // Each goes first in every other round: the second call of a
            // round may find the machine warmer (or busier) for it.
            for round in 0..rounds {
                let (first, second) = timed.split_at_mut(1);
                let mut pair = [(&sides[0], &mut first[0]), (&sides[1], &mut second[0])];
                if round % 2 == 1 {
                    pair.reverse();
                }
                for (side, rounds) in pair {
                    rounds.call(&side.client, tool, &args).await;
                }
            }
            print_measured(tool, &sides, &timed).await;
        }
        // The floor under every own time above: a ping's round trip after
        // an idle as long as a call's wait on its server. Threads that
        // slept run slower for a while: on the 2-core machine this was
        // written on, 0.47-0.51 ms (0.25 ms of CPU), where a Python
        // client's ping back to back took 0.09 ms, and a pipe's round
        // trip through `cat` 0.01 ms back to back and 0.11 ms after 20 ms.
        if tools.is_none() {
            let mut timed = [Rounds::new(sides[0].pid), Rounds::new(sides[1].pid)];
            for round in 0..rounds {
                let mut order = [0, 1];
                if round % 2 == 1 {
                    order.reverse();
                }
                for side in order {
                    timed[side].ping(&sides[side].client, PING_IDLE).await;
                }
            }
            let own: Vec<Option<Duration>> = timed.iter().map(|r| Some(r.median())).collect();
            let cpu: Vec<Option<Duration>> = timed.iter().map(Rounds::cpu_per_call).collect();
            let name = format!("ping after {} ms idle", PING_IDLE.as_millis());
            print_row(&name, &own, &cpu);
        }
        for side in sides {
            side.client.cancel().await.ok();
        }
    }
}
