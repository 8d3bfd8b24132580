//! C and C++ on clangd, on the `c` fixture: a C library (structs, a
//! typedef of a struct holding an anonymous union, an enum, functions
//! declared in a header and defined in two files, a declaration behind an
//! export macro, a call chain,
//! standard-library calls, non-ASCII text, a CRLF file, a type error) and
//! C++ beside it (a base class and two classes overriding `area`,
//! overloads, a template, a namespace), with a `compile_commands.json`
//! whose folders are relative. Every tool through the server with its
//! compilation database, the notes and the preview-only rename without
//! one, and nothing written into the project (clangd's index goes to
//! sextant's cache).
//!
//! clangd must be installed (scripts/test.sh does it): a missing server
//! fails these tests, it never skips them.

mod common;

use std::path::Path;

use common::Expect::Snapshot;
use common::{Fixture, fixture, fixture_with};
use serde_json::{Value, json};

async fn run(f: &Fixture, tool: &str, args: Value) -> String {
    f.run(tool, args).await
}

/// What the compiler reports for every C file of the fixture: one line
/// per error or warning, `file:line:col: error: …`.
fn compile_c(root: &Path) -> String {
    let mut lines = Vec::new();
    for file in [
        "src/shapes.c",
        "src/report.c",
        "src/main.c",
        "src/version.c",
        "src/broken.c",
    ] {
        let out = std::process::Command::new("cc")
            .args(["-std=c11", "-Iinclude", "-fsyntax-only", file])
            .current_dir(root)
            .output()
            .unwrap();
        lines.push(common::findings(
            &String::from_utf8_lossy(&out.stderr),
            &[": error:", ": warning:"],
        ));
    }
    lines.retain(|found| !found.is_empty());
    lines.join("\n")
}

/// The fixture without its compilation database.
fn without_database() -> Fixture {
    let f = fixture("c");
    std::fs::remove_file(f.path("compile_commands.json")).unwrap();
    f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_on_clangd() {
    let f = fixture("c");
    let mut cases = common::cases!();
    // The navigation tools first: the first waits for clangd's index, so
    // the search after them answers from it.
    let calls: &[(&str, &str, Value)] = &[
        (
            "references_across_files",
            "references",
            json!({"file": "include/shapes.h", "symbol": "circle_area"}),
        ),
        (
            "references_same_name_method",
            "references",
            json!({"file": "cpp/geometry.hpp", "symbol": "Circle.area"}),
        ),
        (
            "references_after_non_ascii",
            "references",
            json!({"file": "src/report.c", "symbol": "total_area"}),
        ),
        (
            "references_overloads",
            "references",
            json!({"file": "cpp/geometry.hpp", "line": 48, "character": 8}),
        ),
        ("search_function", "search", json!({"query": "shape_area"})),
        (
            "search_class",
            "search",
            json!({"query": "Circle", "kinds": ["Class"]}),
        ),
        ("read_header", "read", json!({"file": "include/shapes.h"})),
        // Declarations behind a macro: tree-sitter misreads them, so the
        // ready server's outline is read, and names resolve through it.
        (
            "read_declarations_behind_a_macro",
            "read",
            json!({"file": "include/version.h"}),
        ),
        (
            "inspect_declaration_behind_a_macro",
            "inspect",
            json!({"file": "include/version.h", "symbol": "shapes_version"}),
        ),
        (
            "read_out_of_line_definitions",
            "read",
            json!({"file": "cpp/geometry.cpp"}),
        ),
        (
            "read_crlf",
            "read",
            json!({"file": "src/main.c", "preview": "expanded"}),
        ),
        (
            "inspect_function",
            "inspect",
            json!({"file": "src/report.c", "symbol": "total_area"}),
        ),
        (
            "inspect_class",
            "inspect",
            json!({"file": "cpp/geometry.hpp", "symbol": "Circle"}),
        ),
        (
            "call_hierarchy_c",
            "call_hierarchy",
            json!({"file": "src/report.c", "symbol": "total_area"}),
        ),
        (
            "call_hierarchy_cpp",
            "call_hierarchy",
            json!({"file": "cpp/geometry.cpp", "symbol": "total", "direction": "incoming"}),
        ),
        (
            "completion_member",
            "completion",
            json!({"file": "cpp/main.cpp", "line": 9, "character": 32, "limit": 5}),
        ),
        (
            "rename_preview",
            "rename",
            json!({"file": "cpp/geometry.hpp", "symbol": "Circle.scaled", "new_name": "resized"}),
        ),
        (
            "diagnostics_file",
            "diagnostics",
            json!({"file": "src/broken.c"}),
        ),
        ("diagnostics_folder", "diagnostics", json!({"file": "src"})),
        ("diagnostics_workspace", "diagnostics", json!({})),
    ];
    for (name, tool, args) in calls {
        let answer = run(&f, tool, args.clone()).await;
        cases.expect(name, &answer, Snapshot);
    }
    // The standard library's header is the system's: its line differs
    // between C libraries.
    let strlen = run(
        &f,
        "inspect",
        json!({"file": "src/report.c", "line": 16, "character": 47}),
    )
    .await;
    cases.check(
        "inspect_standard_library",
        strlen.starts_with("inspect strlen at src/report.c:16:47")
            && strlen.contains("Definition: /usr/include/string.h:")
            && strlen.contains("(outside the workspace)"),
        &strlen,
    );
    // A definition outside its class is named `Circle::scaled`; the rename
    // is of its identifier.
    let outside = run(
        &f,
        "rename",
        json!({"file": "cpp/geometry.cpp", "symbol": "Circle::scaled", "new_name": "resized"}),
    )
    .await;
    cases.check(
        "rename_from_a_definition_outside_its_class",
        outside.contains("Rename 'scaled' -> 'resized': 3 changes across 3 files"),
        &outside,
    );
    // clangd's index is in sextant's cache, not in the project.
    cases.check(
        "nothing_written_into_the_project",
        !f.path(".cache").exists(),
        "clangd wrote .cache/ into the project",
    );
    cases.finish();
}

/// A rename applied across a header and two files leaves the compiler
/// reporting what it reported before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_applied_rename_leaves_the_build_as_it_was() {
    let f = fixture("c");
    let before = compile_c(f.root());
    assert!(before.contains("src/broken.c:5:18: error:"), "{before}");
    let answer = run(
        &f,
        "rename",
        json!({"file": "include/shapes.h", "symbol": "circle_area", "new_name": "disc_area", "apply": true}),
    )
    .await;
    assert!(
        answer.contains("3 changes across 2 files, written"),
        "{answer}"
    );
    assert_eq!(compile_c(f.root()), before);
    assert!(
        f.read("src/shapes.c")
            .contains("return disc_area(&shape->as.circle);")
    );
}

/// Without a compilation database clangd reads each file alone: every
/// answer that needs other files says so, a rename is only previewed, and
/// diagnostics say why includes fail.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_compilation_database_answers_say_they_stop_at_the_file() {
    let f = without_database();
    let mut cases = common::cases!();
    let note = "Note: no compile_commands.json in ., build, build*: clangd reads each file alone";
    let references = run(
        &f,
        "references",
        json!({"file": "include/shapes.h", "symbol": "circle_area"}),
    )
    .await;
    cases.expect("without_database_references", &references, Snapshot);
    cases.check("references_say_so", references.contains(note), &references);
    let calls = run(
        &f,
        "call_hierarchy",
        json!({"file": "src/report.c", "symbol": "total_area"}),
    )
    .await;
    cases.check("calls_say_so", calls.contains(note), &calls);
    let written = run(
        &f,
        "rename",
        json!({"file": "include/shapes.h", "symbol": "circle_area", "new_name": "disc_area", "apply": true}),
    )
    .await;
    cases.expect("without_database_rename_applied", &written, Snapshot);
    cases.check(
        "nothing_renamed",
        !f.read("include/shapes.h").contains("disc_area"),
        f.read("include/shapes.h"),
    );
    let preview = run(
        &f,
        "rename",
        json!({"file": "include/shapes.h", "symbol": "circle_area", "new_name": "disc_area"}),
    )
    .await;
    cases.check("preview_says_so", preview.contains(note), &preview);
    let diagnostics = run(&f, "diagnostics", json!({"file": "src/shapes.c"})).await;
    cases.check(
        "diagnostics_say_why",
        diagnostics.contains(note) && diagnostics.contains("'shapes.h' file not found"),
        &diagnostics,
    );
    cases.finish();
}

/// A database in a `build*/` folder is found, its relative folders read
/// from where it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_in_a_build_folder_is_found() {
    let database = std::fs::read_to_string(common::fixtures_dir().join("c/compile_commands.json"))
        .unwrap()
        .replace("\"directory\": \".\"", "\"directory\": \"..\"");
    let f = fixture_with("c", &[("build-debug/compile_commands.json", &database)]);
    std::fs::remove_file(f.path("compile_commands.json")).unwrap();
    let references = run(
        &f,
        "references",
        json!({"file": "include/shapes.h", "symbol": "circle_area"}),
    )
    .await;
    assert!(
        references.contains("Found 3 references to circle_area across 2 files")
            && !references.contains("Note:"),
        "{references}"
    );
    let logs = run(&f, "logs", json!({"level": "info"})).await;
    assert!(
        logs.contains("reads build-debug/compile_commands.json (a copy: --compile-commands-dir="),
        "{logs}"
    );
}

/// A header no database entry compiles is checked by clangd alone, with a
/// source file's flags: under `-Wunused-macros` the macros it defines for
/// its includers (after its first declaration) are "not used", which the build, compiling it inside those
/// files, never says. Such findings are named and counted apart; what is
/// counted is what the compiler reports.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn findings_of_headers_checked_alone_are_counted_apart() {
    let database = std::fs::read_to_string(common::fixtures_dir().join("c/compile_commands.json"))
        .unwrap()
        .replace("\"-std=c11\",", "\"-std=c11\", \"-Wunused-macros\",");
    let f = fixture_with("c", &[("compile_commands.json", &database)]);
    let workspace = run(&f, "diagnostics", json!({"file": "src"})).await;
    let header = run(&f, "diagnostics", json!({"file": "include/version.h"})).await;
    // The compiler, given the same flags, on every source.
    let mut compiled = 0;
    for file in ["shapes.c", "report.c", "main.c", "version.c", "broken.c"] {
        let out = std::process::Command::new("cc")
            .args(["-std=c11", "-Wunused-macros", "-Iinclude", "-fsyntax-only"])
            .arg(format!("src/{file}"))
            .current_dir(f.root())
            .output()
            .unwrap();
        compiled += common::findings(
            &String::from_utf8_lossy(&out.stderr),
            &[": error:", ": warning:"],
        )
        .lines()
        .count();
    }
    assert_eq!(compiled, 1, "the compiler reports broken.c's error only");
    let headers = run(&f, "diagnostics", json!({"file": "include"})).await;
    assert!(
        workspace.starts_with("1 error in 1 file (5 checked under src)"),
        "{workspace}"
    );
    assert!(
        headers.starts_with("No errors or warnings in 2 files under include")
            && headers.contains(
                "Note: 2 warnings in 1 file no compile_commands.json entry compiles are not counted: include/version.h; the server checked it alone"
            ),
        "{headers}"
    );
    assert!(
        header.contains("Macro is not used")
            && header.contains("Note: no compile_commands.json entry compiles include/version.h: the server checked it alone"),
        "{header}"
    );
}
