//! Python on ty, on the `python` fixture: a package with a Protocol, a
//! dataclass, two classes with same-name methods (`area`), overloads
//! (`parse_point`), a call chain (`demo` -> `summarize` -> `total_area`),
//! standard-library calls (`json.dumps`, `math.hypot`), non-ASCII names
//! and text, a CRLF file (`units.py`) and a type error (`broken.py`).
//! Every tool through the server, the outline and signatures from
//! tree-sitter, and a rename applied held to `ty check` before and after.
//!
//! ty must be installed (scripts/test.sh does it): a missing server fails
//! these tests, it never skips them.

mod common;

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use common::Expect::Snapshot;
use common::{Fixture, fixture};
use serde_json::{Value, json};

/// Folders outside the workspace that answers name, by what they are:
/// the Python whose standard library ty reads, and the typeshed stubs ty
/// carries (written into its cache, under a hash of its version, the first
/// time it runs: looked for at each answer, since on a clean machine the
/// first answer comes before the folder is there).
fn outside() -> Vec<(String, &'static str)> {
    let mut folders = Vec::new();
    if let Some(stdlib) = STDLIB.as_ref() {
        folders.push((stdlib.clone(), "<stdlib>"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        let vendored = Path::new(&home).join(".cache/ty/vendored/typeshed");
        if let Ok(entries) = std::fs::read_dir(&vendored) {
            for entry in entries.flatten() {
                folders.push((entry.path().display().to_string(), "<typeshed>"));
            }
        }
    }
    folders
}

/// The standard library of the Python on the path.
static STDLIB: LazyLock<Option<String>> = LazyLock::new(|| {
    std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|path| !path.is_empty())
});

/// Runs a tool, with machine-specific folders named.
async fn run(f: &Fixture, tool: &str, args: Value) -> String {
    let mut out = f.run(tool, args).await;
    for (folder, name) in outside() {
        out = out.replace(&folder, name);
    }
    out
}

/// ty as sextant installs it (scripts/test.sh does it the same way).
fn ty() -> PathBuf {
    let tools = sextant::lsp::config::default_tools_dir();
    let ty = tools.join("ty/bin/ty");
    assert!(ty.is_file(), "{} is not installed", ty.display());
    ty
}

/// What `ty check` reports in `root`: one line per diagnostic.
fn ty_check(root: &Path) -> String {
    let out = std::process::Command::new(ty())
        .args(["check", "--output-format", "concise", "--no-progress"])
        .current_dir(root)
        .output()
        .unwrap();
    common::findings(
        &String::from_utf8_lossy(&out.stdout),
        &[": error[", ": warning["],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_on_ty() {
    let f = fixture("python");
    // ty writes the typeshed stubs it carries into its cache the first
    // time it runs on a machine; a definition asked while it writes them
    // can come back empty (seen once in four runs on an empty cache). One
    // question into the standard library first, as any earlier session on
    // the machine would have asked.
    run(
        &f,
        "inspect",
        json!({"file": "shapes/geometry.py", "line": 28, "character": 21}),
    )
    .await;
    let mut cases = common::cases!();
    // The navigation tools first: each waits for the server, so the
    // search after them answers from it, not from the index.
    let calls: &[(&str, &str, Value)] = &[
        (
            "references_same_name_method",
            "references",
            json!({"file": "shapes/geometry.py", "symbol": "Circle.area"}),
        ),
        (
            "references_protocol_method",
            "references",
            json!({"file": "shapes/geometry.py", "symbol": "Shape.area"}),
        ),
        (
            "references_after_non_ascii",
            "references",
            json!({"file": "shapes/units.py", "symbol": "to_centimetres"}),
        ),
        (
            "references_overloads",
            "references",
            json!({"file": "shapes/geometry.py", "line": 64, "character": 5}),
        ),
        (
            "search_same_name_methods",
            "search",
            json!({"query": "area"}),
        ),
        (
            "search_class",
            "search",
            json!({"query": "Point", "kinds": ["Class"]}),
        ),
        (
            "read_outline",
            "read",
            json!({"file": "shapes/geometry.py"}),
        ),
        (
            "read_crlf_non_ascii",
            "read",
            json!({"file": "shapes/units.py", "preview": "expanded"}),
        ),
        (
            "inspect_function",
            "inspect",
            json!({"file": "shapes/report.py", "symbol": "summarize"}),
        ),
        (
            "inspect_class",
            "inspect",
            json!({"file": "shapes/geometry.py", "symbol": "Circle"}),
        ),
        (
            "inspect_standard_library",
            "inspect",
            json!({"file": "shapes/geometry.py", "line": 28, "character": 21}),
        ),
        (
            "call_hierarchy_chain",
            "call_hierarchy",
            json!({"file": "shapes/report.py", "symbol": "summarize"}),
        ),
        (
            "call_hierarchy_outgoing_depth_2",
            "call_hierarchy",
            json!({"file": "shapes/report.py", "symbol": "demo", "direction": "outgoing", "depth": 2}),
        ),
        (
            "completion_inside_a_member",
            "completion",
            json!({"file": "shapes/report.py", "line": 21, "character": 24, "limit": 5}),
        ),
        (
            "rename_preview",
            "rename",
            json!({"file": "shapes/geometry.py", "symbol": "Circle.scale", "new_name": "resized"}),
        ),
        (
            "diagnostics_file",
            "diagnostics",
            json!({"file": "shapes/broken.py"}),
        ),
        (
            "diagnostics_folder",
            "diagnostics",
            json!({"file": "shapes"}),
        ),
        ("diagnostics_workspace", "diagnostics", json!({})),
    ];
    for (name, tool, args) in calls {
        let answer = run(&f, tool, args.clone()).await;
        cases.expect(name, &answer, Snapshot);
    }
    let logs = run(&f, "logs", json!({})).await;
    cases.check(
        "logs_name_the_server",
        logs.contains("ty (python): ready"),
        &logs,
    );
    cases.finish();
}

/// A rename applied across the package leaves `ty check` reporting what it
/// reported before, and every use renamed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_applied_rename_leaves_the_check_as_it_was() {
    let f = fixture("python");
    let before = ty_check(f.root());
    assert!(
        before.contains("shapes/broken.py:7:12: error[invalid-explicit-return]"),
        "{before}"
    );
    let answer = run(
        &f,
        "rename",
        json!({"file": "shapes/geometry.py", "symbol": "parse_point", "new_name": "read_point", "apply": true}),
    )
    .await;
    assert!(
        answer.contains("5 changes across 2 files, written"),
        "{answer}"
    );
    assert_eq!(ty_check(f.root()), before);
    let geometry = f.read("shapes/geometry.py");
    assert_eq!(geometry.matches("def read_point(").count(), 3, "{geometry}");
    assert!(!geometry.contains("parse_point"), "{geometry}");
    assert!(
        f.read("shapes/report.py")
            .contains("centre = read_point(\"0,0\")")
    );
}

/// From an empty tools directory the first question installs ty (pip,
/// into the directory's `ty` folder, at the pinned version), then answers
/// from it; `doctor` then finds it there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ty_is_installed_on_first_use() {
    let tools = tempfile::tempdir().unwrap();
    let config = format!("tools_dir = {:?}\n", tools.path().display().to_string());
    let f = common::fixture_with("python", &[("sextant.toml", &config)]);
    let answer = run(
        &f,
        "references",
        json!({"file": "shapes/units.py", "symbol": "to_centimetres"}),
    )
    .await;
    assert!(
        answer.contains("Found 3 references to to_centimetres across 2 files"),
        "{answer}"
    );
    let ty = tools.path().join("ty/bin/ty");
    assert!(ty.is_file(), "{} was not installed", ty.display());
    let logs = run(&f, "logs", json!({"level": "info"})).await;
    let installed = format!(
        "installed with python3 -m pip install --disable-pip-version-check --no-input --target {}/ty ty==0.0.107",
        tools.path().display()
    );
    assert!(logs.contains(&installed), "{logs}");
}

/// Files of languages sextant covers neither with a server nor a grammar
/// are named, by language and count, wherever an answer over the
/// workspace did not look at them; `read` says how to add a server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn languages_without_a_server_are_named() {
    let f = common::fixture_with(
        "python",
        &[
            (
                "java/Main.java",
                "class Main { double area() { return 0; } }\n",
            ),
            ("java/Util.java", "class Util {}\n"),
            ("tools/release.rb", "puts 'release'\n"),
        ],
    );
    let named = "not searched: 2 Java files, 1 Ruby file (sextant has no server or grammar for them; add a server as [language.NAME] with `command` and `extensions` in sextant.toml)";
    let search = run(&f, "search", json!({"query": "make_context"})).await;
    assert!(search.contains(&format!("Note: {named}")), "{search}");
    let references = run(
        &f,
        "references",
        json!({"file": "shapes/units.py", "symbol": "to_centimetres"}),
    )
    .await;
    assert!(
        references.contains("Note: not searched for uses: 2 Java files, 1 Ruby file"),
        "{references}"
    );
    let diagnostics = run(&f, "diagnostics", json!({})).await;
    assert!(
        diagnostics.contains("Note: not checked: 2 Java files, 1 Ruby file"),
        "{diagnostics}"
    );
    assert_eq!(
        run(&f, "read", json!({"file": "java/Main.java"})).await,
        "error[no-server]: java/Main.java: sextant has no server or grammar for Java; add a server as [language.java] with `command` and `extensions = [\"java\"]` in sextant.toml, or use read_file, or read with preview \"raw\""
    );
    // A file added later is counted once the watcher has seen it.
    std::fs::write(f.path("java/Extra.java"), "class Extra {}\n").unwrap();
    common::wait_for(
        "the new Java file counted",
        || run(&f, "search", json!({"query": "make_context"})),
        |answer| answer.contains("not searched: 3 Java files"),
    )
    .await;
}

/// The workspace report holds exactly what `ty check` reports, file by
/// file and line by line, over 300 modules checked several at a time (ty
/// cancels the answers in flight whenever a document opens: those are
/// asked again alone; `faults.rs` provokes it every time).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workspace_report_is_what_ty_check_reports() {
    const MODULES: usize = 300;
    // Modules each calling the one before and returning an int
    // where a str is declared: one error each.
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("pyproject.toml", "[project]\nname = \"many\"\n");
    write("many/__init__.py", "");
    write(
        "many/m0.py",
        "def value() -> int:\n    return 0\n\n\ndef label() -> str:\n    return value()\n",
    );
    for i in 1..MODULES {
        write(
            &format!("many/m{i}.py"),
            &format!(
                "from many.m{} import value\n\n\ndef label() -> str:\n    return value() + {i}\n",
                i - 1
            ),
        );
    }
    let ctx = common::context(dir.path(), false);
    let check = ty_check(dir.path());
    assert_eq!(check.lines().count(), MODULES, "{check}");
    // Every page of the report.
    let mut report = common::run(&ctx, "diagnostics", json!({})).await;
    let counts = format!(
        "{MODULES} errors in {MODULES} files ({} checked)\n",
        MODULES + 1
    );
    assert!(report.starts_with(&counts), "{report}");
    assert!(!report.contains("Note:"), "{report}");
    while let Some(offset) = report
        .split("pass offset=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<usize>().ok())
    {
        let page = common::run(&ctx, "diagnostics", json!({"offset": offset})).await;
        report = report.replace(&format!("pass offset={offset}"), "") + &page;
    }
    for line in check.lines() {
        // `many/m7.py:5:12: error[...]` -> the file's block holds `@5:12`.
        let (file, rest) = line.split_once(':').unwrap();
        let at = rest.split(": ").next().unwrap();
        assert!(
            report.contains(&format!("{file} (1 error)\n  ✘ @{at} [Error]")),
            "{line} is not in the report:\n{report}"
        );
    }
}
