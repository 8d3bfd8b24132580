//! `sextant grep` against ripgrep (`rg`) on a large real tree.
//!
//! Run it with `bash scripts/bench.sh` (installs `rg` if missing), or
//! `cargo bench --bench grep_vs_rg` when `rg` is already on the PATH.
//!
//! What it measures: the wall time of one whole process run, start to exit,
//! of `sextant grep --root TREE pattern=P output_mode=M` and of the matching
//! `rg` command (`rg -n P .` for `content`, `rg -l P .` for
//! `files_with_matches`, run from inside TREE), both with stdout to
//! /dev/null. Both walk the same files: ripgrep's default ignore rules
//! (.gitignore, hidden files, binary files skipped), and `rg`'s config file
//! is not read. sextant always finishes the whole search (it reports totals)
//! but prints only one page; `rg` prints everything.
//!
//! Each case runs once per tool to warm the page cache, then N times
//! alternating the two tools (N = `$SEXTANT_BENCH_RUNS`, default 7); the
//! table shows the median of each and the ratio sextant/rg (below 1 means
//! sextant was faster). The last lines give the worst ratio per mode
//! against the target of 1.2x. Timings only inform: it always exits 0
//! once it has run, whatever the ratios.
//!
//! Before timing, the number of files (files_with_matches) and of matching
//! lines (content) that sextant reports is compared with `rg -l` / `rg -c`;
//! a difference is printed as a WARNING, since it means the two did not
//! search the same thing.
//!
//! The tree is `$SEXTANT_BENCH_TREE`, else the cargo registry sources
//! (`$CARGO_HOME/registry/src`, `~/.cargo` by default). Words given after
//! `--` keep only the cases whose name contains one of them.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// The sextant binary, built with the bench (release) profile.
const SEXTANT: &str = env!("CARGO_BIN_EXE_sextant");
/// The ratio sextant/rg the grep tool aims to stay under.
const TARGET_RATIO: f64 = 1.2;

/// A pattern of some selectivity: its name in the table, and the regex.
pub const CASES: &[(&str, &str)] = &[
    ("rare literal", "fn new_unchecked"),
    ("common word", "unsafe"),
    ("regex", r"impl<T: \w+> \w+ for"),
    ("no match", "zq_no_such_identifier_qz"),
];

#[derive(Clone, Copy, PartialEq)]
pub enum Mode {
    Content,
    FilesWithMatches,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Content, Mode::FilesWithMatches];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Content => "content",
            Mode::FilesWithMatches => "files_with_matches",
        }
    }
}

fn main() -> ExitCode {
    let Some(rg_version) = rg_version() else {
        eprintln!(
            "grep_vs_rg: ripgrep (`rg`) is not on the PATH; run `bash scripts/bench.sh`, which installs it"
        );
        return ExitCode::from(2);
    };
    let tree = match bench_tree() {
        Ok(tree) => tree,
        Err(message) => {
            eprintln!("grep_vs_rg: {message}");
            return ExitCode::from(2);
        }
    };
    let runs = env::var("SEXTANT_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(7);
    // `cargo bench` passes `--bench`; other words filter the cases.
    let filters: Vec<String> = env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let cases: Vec<(&str, &str)> = CASES
        .iter()
        .copied()
        .filter(|(name, _)| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
        .collect();

    println!("sextant: {SEXTANT}");
    println!("rg:      {rg_version}");
    println!("tree:    {}", tree.display());
    match rg_output(&tree, &["--files", "."]) {
        Some(files) => println!("files:   {} (rg --files)", files.lines().count()),
        None => println!("files:   ? (rg --files failed)"),
    }
    println!("runs:    1 warm-up + {runs} per tool and case, median wall time\n");

    println!("Sanity check (sextant vs rg):");
    let mut mismatches = 0;
    for &(name, pattern) in &cases {
        for mode in Mode::ALL {
            let (what, rg_args) = match mode {
                Mode::FilesWithMatches => ("files", ["-l", pattern, "."]),
                Mode::Content => ("matching lines", ["-c", pattern, "."]),
            };
            let ours = sextant_total(&tree, pattern, mode);
            let theirs = rg_output(&tree, &rg_args).map(|out| match mode {
                Mode::FilesWithMatches => out.lines().count(),
                // `path:count` per file; the path may hold a colon.
                Mode::Content => out
                    .lines()
                    .filter_map(|l| l.rsplit(':').next()?.parse::<usize>().ok())
                    .sum(),
            });
            let show = |n: Option<usize>| n.map_or("?".to_string(), |n| n.to_string());
            let verdict = if ours.is_some() && ours == theirs {
                "ok"
            } else {
                mismatches += 1;
                "WARNING: counts differ"
            };
            println!(
                "  {name:<13} {what:<15} sextant {:>7}  rg {:>7}  {verdict}",
                show(ours),
                show(theirs)
            );
        }
    }
    if mismatches > 0 {
        println!("  {mismatches} mismatch(es): sextant and rg did not find the same things");
    }
    println!();

    println!(
        "{:<13} {:<19} {:>11} {:>9} {:>13}",
        "case", "mode", "sextant ms", "rg ms", "sextant/rg"
    );
    let mut worst: Vec<(Mode, f64, &str)> = Vec::new();
    for &(name, pattern) in &cases {
        for mode in Mode::ALL {
            let (ours, theirs) = time_case(&tree, pattern, mode, runs);
            let ratio = ours.as_secs_f64() / theirs.as_secs_f64().max(1e-9);
            println!(
                "{name:<13} {:<19} {:>11.1} {:>9.1} {:>12.2}x",
                mode.name(),
                ms(ours),
                ms(theirs),
                ratio
            );
            match worst.iter_mut().find(|(m, _, _)| *m == mode) {
                Some(entry) if entry.1 >= ratio => {}
                Some(entry) => *entry = (mode, ratio, name),
                None => worst.push((mode, ratio, name)),
            }
        }
    }
    println!();
    for (mode, ratio, name) in worst {
        let verdict = if ratio <= TARGET_RATIO {
            "within"
        } else {
            "ABOVE"
        };
        println!(
            "worst {:<19} {ratio:.2}x ({name}): {verdict} the {TARGET_RATIO}x target",
            mode.name()
        );
    }
    ExitCode::SUCCESS
}

/// `rg --version`'s first line, or None when there is no `rg`.
pub fn rg_version() -> Option<String> {
    let out = Command::new("rg").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    out.status
        .success()
        .then(|| text.lines().next().unwrap_or("rg").to_string())
}

pub fn bench_tree() -> Result<PathBuf, String> {
    let tree = match env::var_os("SEXTANT_BENCH_TREE") {
        Some(tree) => PathBuf::from(tree),
        None => {
            let cargo_home = env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
                .ok_or("neither CARGO_HOME nor HOME is set; set SEXTANT_BENCH_TREE")?;
            cargo_home.join("registry").join("src")
        }
    };
    tree.canonicalize().map_err(|err| {
        format!(
            "the tree {} cannot be used ({err}); set SEXTANT_BENCH_TREE to a large source tree",
            tree.display()
        )
    })
}

/// `sextant grep` over the tree, stdout to `stdout`.
fn sextant(tree: &Path, pattern: &str, mode: Mode, stdout: Stdio) -> Command {
    let mut cmd = Command::new(SEXTANT);
    cmd.arg("grep")
        .arg("--root")
        .arg(tree)
        .arg(format!("pattern={pattern}"))
        .arg(format!("output_mode={}", mode.name()))
        .current_dir(tree)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::null());
    cmd
}

/// `rg` from inside the tree, without the user's config file.
fn rg(tree: &Path, args: &[&str], stdout: Stdio) -> Command {
    let mut cmd = Command::new("rg");
    cmd.args(args)
        .current_dir(tree)
        .env_remove("RIPGREP_CONFIG_PATH")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::null());
    cmd
}

/// rg's stdout; None if it failed (exit 1, no match, is a success here).
fn rg_output(tree: &Path, args: &[&str]) -> Option<String> {
    let out = rg(tree, args, Stdio::piped()).output().ok()?;
    matches!(out.status.code(), Some(0 | 1)).then(|| String::from_utf8_lossy(&out.stdout).into())
}

/// The total sextant reports on its first line: files for
/// `Found 123 files containing P`, matching lines for
/// `Found 7 matching lines in 1 file for P`, 0 for `No matches for P`.
fn sextant_total(tree: &Path, pattern: &str, mode: Mode) -> Option<usize> {
    let out = sextant(tree, pattern, mode, Stdio::piped()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next()?;
    if first.starts_with("No matches") {
        return Some(0);
    }
    let mut words = first.split_whitespace();
    (words.next()? == "Found").then_some(())?;
    words.next()?.parse().ok()
}

/// Median wall times (sextant, rg) of one case: a warm-up each, then
/// `runs` runs alternating the two.
pub fn time_case(tree: &Path, pattern: &str, mode: Mode, runs: usize) -> (Duration, Duration) {
    let rg_args: [&str; 3] = match mode {
        Mode::Content => ["-n", pattern, "."],
        Mode::FilesWithMatches => ["-l", pattern, "."],
    };
    // A failed run would make its time meaningless: that stops the bench.
    // sextant exits 0 even without a match; rg exits 1 then.
    let time = |mut cmd: Command, no_match_code: i32| {
        let start = Instant::now();
        let status = cmd.status().expect("cannot start the command");
        let elapsed = start.elapsed();
        let code = status.code();
        assert!(
            code == Some(0) || code == Some(no_match_code),
            "{cmd:?} failed: {status}"
        );
        elapsed
    };
    let ours_cmd = || sextant(tree, pattern, mode, Stdio::null());
    let rg_cmd = || rg(tree, &rg_args, Stdio::null());
    time(ours_cmd(), 0);
    time(rg_cmd(), 1);
    let mut ours = Vec::with_capacity(runs);
    let mut theirs = Vec::with_capacity(runs);
    for _ in 0..runs {
        ours.push(time(ours_cmd(), 0));
        theirs.push(time(rg_cmd(), 1));
    }
    (median(ours), median(theirs))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    let mid = times.len() / 2;
    if times.len() % 2 == 1 {
        times[mid]
    } else {
        (times[mid - 1] + times[mid]) / 2
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
