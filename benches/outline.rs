//! tree-sitter outlines of the largest declaration files at hand.
//!
//! Run it with `cargo bench --bench outline` (a release build). It times,
//! per file: reading it, parsing it (no cache; a large file in pieces, one
//! per core), the outline (the outline
//! and signature queries, nesting and filtering), a signature preview for
//! every symbol, and then the same file again through the parse cache
//! (what a second `read` of an unchanged file costs). Each timing is the
//! median of several runs (`$SEXTANT_BENCH_RUNS`, default 5). It prints
//! figures and the targets beside them; it asserts nothing.
//!
//! The files:
//! - TypeScript's `lib.dom.d.ts` (about 45,000 lines): `$SEXTANT_BENCH_DTS`,
//!   else `node_modules/typescript/lib/lib.dom.d.ts` under sextant's tools
//!   folder (where `scripts/test.sh` installs typescript),
//!   `/tmp/sextant-bench`, the current folder or `$HOME`; if none is there
//!   it says how to get one (`npm install --prefix /tmp/sextant-bench
//!   typescript@6`);
//! - the largest `.rs` file of the cargo registry sources
//!   (`$CARGO_HOME/registry/src/*/`, `~/.cargo` by default).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sextant::model::OutlineSymbol;
use sextant::syntax::{self, Language, SourceFile};

/// Outline with signatures of a 40,000-line `.d.ts`, release build.
const TARGET_OUTLINE: Duration = Duration::from_millis(100);
/// A second outline of the same content, through the cache.
const TARGET_CACHED: Duration = Duration::from_millis(5);

/// The allocator of sextant's binary (see `src/main.rs`): sextant's code
/// run here is measured as it ships.
#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    let runs: usize = std::env::var("SEXTANT_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5)
        .max(1);
    println!("tree-sitter outline benchmark (median of {runs} runs)");
    println!();
    match find_dts() {
        Some(path) => bench(&path, Language::named("TypeScript").unwrap(), runs),
        None => println!(
            "lib.dom.d.ts not found: set SEXTANT_BENCH_DTS, or run\n  npm install --prefix /tmp/sextant-bench typescript@6\n"
        ),
    }
    match largest_registry_rs() {
        Some(path) => bench(&path, Language::named("Rust").unwrap(), runs),
        None => println!("no .rs file found under the cargo registry sources\n"),
    }
}

fn bench(path: &Path, language: Language, runs: usize) {
    let read = median(runs, || {
        let started = Instant::now();
        let text = std::fs::read_to_string(path).expect("readable UTF-8");
        (started.elapsed(), text)
    });
    let text = read.1;
    let lines = text.lines().count();
    println!(
        "{} ({lines} lines, {} KB)",
        path.display(),
        text.len() / 1024
    );

    let parse = median(runs, || {
        let started = Instant::now();
        let file = SourceFile::parse(language, text.clone());
        (started.elapsed(), file)
    });
    let outline = median(runs, || {
        let file = SourceFile::parse(language, text.clone());
        let started = Instant::now();
        let symbols = count(file.outline());
        (started.elapsed(), symbols)
    });
    let symbols = outline.1;
    let file = parse.1;
    file.outline();
    let signatures = median(runs, || {
        let started = Instant::now();
        let mut chars = 0;
        each(file.outline(), &mut |s| {
            chars += file.signature(s).map_or(0, |sig| sig.len());
        });
        (started.elapsed(), chars)
    });
    // Through the cache: the first call parses and outlines, the next ones
    // find the same bytes (the copy of the text stands for the file read).
    let _ = syntax::parse(language, text.clone()).outline().len();
    let cached = median(runs, || {
        let copy = text.clone();
        let started = Instant::now();
        let file = syntax::parse(language, copy);
        let n = count(file.outline());
        (started.elapsed(), n)
    });
    let cached_signatures = median(runs, || {
        let copy = text.clone();
        let started = Instant::now();
        let file = syntax::parse(language, copy);
        let mut n = 0;
        each(file.outline(), &mut |s| {
            n += usize::from(file.signature(s).is_some());
        });
        (started.elapsed(), n)
    });

    let with_signatures = parse.0 + outline.0 + signatures.0;
    let per_second = symbols as f64 / (outline.0 + signatures.0).as_secs_f64();
    println!("  symbols                 {symbols}");
    println!(
        "  parsed in               {} piece(s), on as many threads",
        file.pieces()
    );
    println!("  read                    {}", ms(read.0));
    println!("  parse                   {}", ms(parse.0));
    println!("  outline                 {}", ms(outline.0));
    println!("  signatures (all)        {}", ms(signatures.0));
    println!(
        "  parse+outline+sigs      {}   (target for a 40,000-line .d.ts: under {})",
        ms(with_signatures),
        ms(TARGET_OUTLINE)
    );
    println!("  symbols per second      {:.0}", per_second);
    println!(
        "  cached re-outline       {}   (target: under {})",
        ms(cached.0),
        ms(TARGET_CACHED)
    );
    println!("  cached, with sigs       {}", ms(cached_signatures.0));
    println!();
}

/// Runs `f` `runs` times; the median duration and the last value.
fn median<T>(runs: usize, mut f: impl FnMut() -> (Duration, T)) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let (time, value) = f();
        times.push(time);
        last = Some(value);
    }
    times.sort();
    (times[times.len() / 2], last.expect("at least one run"))
}

fn ms(d: Duration) -> String {
    format!("{:8.2} ms", d.as_secs_f64() * 1000.0)
}

fn count(symbols: &[OutlineSymbol]) -> usize {
    let mut n = 0;
    each(symbols, &mut |_| n += 1);
    n
}

fn each(symbols: &[OutlineSymbol], f: &mut impl FnMut(&OutlineSymbol)) {
    for symbol in symbols {
        f(symbol);
        each(&symbol.children, f);
    }
}

fn find_dts() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SEXTANT_BENCH_DTS") {
        return Some(PathBuf::from(path)).filter(|p| p.is_file());
    }
    // sextant's tools folder holds typescript once the tests have run
    // (TypeScript 6 for typescript-language-server, in its own prefix).
    let tools = sextant::lsp::config::default_tools_dir();
    let mut bases = vec![
        tools.join("typescript-language-server"),
        tools,
        PathBuf::from("/tmp/sextant-bench"),
        PathBuf::from("."),
    ];
    if let Some(home) = std::env::var_os("HOME") {
        bases.push(PathBuf::from(home));
    }
    bases
        .into_iter()
        .map(|base| base.join("node_modules/typescript/lib/lib.dom.d.ts"))
        .find(|p| p.is_file())
}

fn largest_registry_rs() -> Option<PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let mut best: Option<(u64, PathBuf)> = None;
    let mut stack = vec![cargo_home.join("registry").join("src")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
                let len = entry.metadata().map_or(0, |m| m.len());
                if best.as_ref().is_none_or(|(size, _)| len > *size) {
                    best = Some((len, path));
                }
            }
        }
    }
    best.map(|(_, path)| path)
}
