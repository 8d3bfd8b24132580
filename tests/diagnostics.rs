//! Whole-workspace and folder `diagnostics` on a generated TypeScript
//! monorepo larger than one answer used to cover (300 files): every file is
//! checked, a few at a time, with progress; a folder is checked alone; and
//! when the time bound comes first, the answer says which files were left
//! and how to check them.
//!
//! The servers must be installed (scripts/test.sh does it).

mod common;

use std::sync::{Arc, Mutex};

use serde_json::json;

/// 8 packages of 40 modules: 320 files, 8 errors.
fn monorepo(config: &str) -> (tempfile::TempDir, Arc<sextant::context::Context>) {
    let dir = tempfile::tempdir().unwrap();
    common::generate_monorepo(dir.path(), 8, 40);
    std::fs::write(dir.path().join("sextant.toml"), config).unwrap();
    let ctx = common::context(dir.path(), false);
    (dir, ctx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_file_of_a_large_workspace_is_checked_with_progress() {
    let (_dir, ctx) = monorepo("");
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink: sextant::progress::Sink = {
        let reports = Arc::clone(&reports);
        Arc::new(move |message: &str, _| reports.lock().unwrap().push(message.to_string()))
    };
    let call = common::run(&ctx, "diagnostics", json!({"severity": "error"}));
    let answer = sextant::progress::with_sink(sink, call).await;
    let summary = answer.split("\n\n=== next block ===\n\n").next().unwrap();
    assert_eq!(summary, "8 errors in 8 files (320 checked)", "{answer}");
    assert!(
        answer.contains("packages/p7/src/m39.ts (1 error)\n  ✘ @18:14 [Error][2322] Type 'string' is not assignable to type 'number'."),
        "{answer}"
    );
    let reports = reports.lock().unwrap().clone();
    assert_eq!(
        reports.last().map(String::as_str),
        Some("diagnostics: 320 of 320 files"),
        "{reports:?}"
    );

    // The documents opened for the report are closed again, but for one
    // file of each project, which keeps the project (and what its config's
    // diagnostics say) loaded.
    let client = ctx
        .lsp
        .client_for(&ctx.workspace.root().join("packages/p0/src/m0.ts"))
        .await
        .unwrap();
    let open = client.open_documents().await;
    let packages: std::collections::BTreeSet<_> = open
        .iter()
        .map(|path| {
            path.strip_prefix(ctx.workspace.root())
                .unwrap()
                .iter()
                .nth(1)
        })
        .collect();
    assert_eq!((open.len(), packages.len()), (8, 8), "{open:?}");

    // One folder: its files only.
    assert_eq!(
        common::run(&ctx, "diagnostics", json!({"file": "packages/p3"})).await,
        "1 error in 1 file (40 checked under packages/p3)\n\n=== next block ===\n\n\
         packages/p3/src/m39.ts (1 error)\n  ✘ @18:14 [Error][2322] Type 'string' is not assignable to type 'number'. (ts)"
    );
    assert_eq!(
        common::run(
            &ctx,
            "diagnostics",
            json!({"file": "packages/p3/src/m1.ts"})
        )
        .await,
        "No errors or warnings in packages/p3/src/m1.ts"
    );
}

/// A bound too short for the whole workspace: the files checked are
/// reported, and the rest are counted by folder with how to check them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_bound_names_the_files_left_unchecked() {
    let (_dir, ctx) = monorepo("workspace_diagnostics_timeout = 0.05\n");
    // The server is started and its first project loaded outside the bound.
    assert_eq!(
        common::run(
            &ctx,
            "diagnostics",
            json!({"file": "packages/p0/src/m0.ts"})
        )
        .await,
        "No errors or warnings in packages/p0/src/m0.ts"
    );
    let answer = common::run(&ctx, "diagnostics", json!({})).await;
    let note = answer
        .lines()
        .find_map(|line| line.strip_prefix("Note: "))
        .unwrap_or_else(|| panic!("no note: {answer}"));
    let (left, rest) = note
        .split_once(" of 320 files were not checked within 0.05 s: ")
        .unwrap_or_else(|| panic!("{note}"));
    let left: usize = left.parse().unwrap();
    assert!(left > 0, "{note}");
    assert!(
        rest.ends_with("; pass one of those folders (or a file) as `file`, or raise workspace_diagnostics_timeout in sextant.toml"),
        "{note}"
    );
    assert!(rest.contains("packages/p"), "{note}");
    // The files checked and those left add up to the workspace.
    let summary = answer.lines().next().unwrap();
    let checked: usize = if let Some(n) = summary
        .strip_prefix("No errors or warnings in ")
        .and_then(|rest| rest.strip_suffix(" files").or(rest.strip_suffix(" file")))
    {
        n.parse().unwrap()
    } else {
        let inside = summary.rsplit_once(" (").unwrap().1;
        inside.strip_suffix(" checked)").unwrap().parse().unwrap()
    };
    assert_eq!(checked + left, 320, "{answer}");
}

/// A file no language serves (a project's tsconfig.json) gets what its
/// server published about it, in the workspace report, and no note asking
/// to configure a server for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_config_file_shows_what_its_server_published_without_a_note() {
    let tsconfig = std::fs::read_to_string(common::fixtures_dir().join("ts/tsconfig.json"))
        .unwrap()
        .replacen(
            "\"compilerOptions\": {",
            "\"compilerOptions\": {\n    \"notAnOption\": true,",
            1,
        );
    let f = common::fixture_with("ts", &[("tsconfig.json", &tsconfig)]);
    let report = f.run("diagnostics", json!({})).await;
    assert!(
        report.contains(
            "tsconfig.json (1 error)\n  ✘ @3:5 [Error][5023] Unknown compiler option 'notAnOption'. (ts)"
        ),
        "{report}"
    );
    assert!(!report.contains("Note:"), "{report}");
    // Those publications are waited for (a quiet spell of 300 ms with
    // no new one), warm too: the tool log counts that as waiting on
    // servers.
    assert_eq!(f.run("diagnostics", json!({})).await, report);
    let log = f.run("logs", json!({"server": "tool", "tail": 1})).await;
    let waited = log
        .lines()
        .find(|line| line.contains("tool  diagnostics"))
        .and_then(|line| line.split_once(" ms, "))
        .and_then(|(_, rest)| rest.split_once(" waiting on servers"))
        .and_then(|(waited, _)| waited.parse::<f64>().ok());
    assert!(waited.is_some_and(|ms| ms >= 300.0), "{log}");
}

/// Files no config includes (a project's tests, checked by no `tsc -p`):
/// the server checks them with its default settings, so their errors may
/// be none of the project's, and the answer says which files those are. A
/// file only a config of another name includes (`tsconfig.spec.json`,
/// which a test script passes to `tsc -p`) is in a project.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_no_config_includes_are_named_as_checked_with_defaults() {
    const LOOSE: &str = "export const count: number = \"three\";\n";
    let f = common::fixture_with(
        "ts",
        &[
            ("test/loose.test.ts", LOOSE),
            ("spec/held.ts", LOOSE),
            (
                "tsconfig.spec.json",
                "{ \"extends\": \"./tsconfig.json\", \"include\": [\"spec\"] }",
            ),
        ],
    );
    let mut cases = common::cases!();
    let note = "test/loose.test.ts is in no project (no tsconfig*.json or jsconfig*.json includes it): \
                it was checked with the server's default settings, which the project's own check does not use";
    let workspace = f.run("diagnostics", json!({"severity": "error"})).await;
    cases.check(
        "workspace",
        workspace.contains(&format!("Note: {note}"))
            && workspace.contains("test/loose.test.ts (1 error)")
            && workspace.contains("spec/held.ts (1 error)")
            && workspace.contains("src/broken.ts (3 errors)")
            && !workspace.contains("spec/held.ts is")
            && !workspace.contains("broken.ts is"),
        &workspace,
    );
    let file = f
        .run("diagnostics", json!({"file": "test/loose.test.ts"}))
        .await;
    cases.check("file", file.contains(&format!("Note: {note}")), &file);
    let held = f.run("diagnostics", json!({"file": "spec/held.ts"})).await;
    cases.check("held", !held.contains("Note:"), &held);

    // What the configs say is kept between calls, and forgotten when a
    // config is created or written.
    f.run(
        "create_file",
        json!({"path": "tsconfig.test.json", "content": "{ \"include\": [\"test\"] }", "impact": false}),
    )
    .await;
    let included = f
        .run("diagnostics", json!({"file": "test/loose.test.ts"}))
        .await;
    cases.check(
        "a config created",
        included.starts_with("1 error in 1 file") && !included.contains("Note:"),
        &included,
    );
    f.run(
        "edit",
        json!({"path": "tsconfig.test.json", "old_string": "test", "new_string": "tests", "apply": true, "impact": false}),
    )
    .await;
    let again = f
        .run("diagnostics", json!({"file": "test/loose.test.ts"}))
        .await;
    cases.check(
        "a config written",
        again.contains(&format!("Note: {note}")),
        &again,
    );
    cases.finish();
}

/// A workspace with no config at all checks every file the same way: no
/// file is singled out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_configs_no_file_is_singled_out() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("package.json"), "{}").unwrap();
    std::fs::write(
        dir.path().join("a.ts"),
        "export const count: number = \"three\";\n",
    )
    .unwrap();
    let ctx = common::context(dir.path(), false);
    let answer = common::run(&ctx, "diagnostics", json!({})).await;
    assert!(
        answer.starts_with("1 error in 1 file") && !answer.contains("Note:"),
        "{answer}"
    );
}

/// The checks a tsconfig turns on (`noUnusedLocals`, `noUnusedParameters`)
/// fail `tsc`, so they are errors on both TypeScript servers (the native
/// one reports them as warnings unless told not to), and the ones it
/// leaves off are not reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checks_the_tsconfig_turns_on_are_errors_as_tsc_reports_them() {
    const CONFIG: &str = r#"{ "compilerOptions": { "strict": true, "noEmit": true,
        "noUnusedLocals": true, "target": "ES2022", "module": "ES2022",
        "moduleResolution": "bundler" }, "include": ["src/**/*.ts"] }"#;
    const UNUSED: &str = "export function f(x: number, unusedParameter: string): number {\n  \
                          const unusedLocal = 1;\n  return x;\n}\n";
    let mut cases = common::cases!();
    for server in ["typescript-go", "typescript-language-server"] {
        let f = common::fixture_on_with(
            "ts",
            server,
            &[("tsconfig.json", CONFIG), ("src/unused.ts", UNUSED)],
        );
        let errors = f
            .run(
                "diagnostics",
                json!({"file": "src/unused.ts", "severity": "error"}),
            )
            .await;
        cases.check(
            server,
            errors.starts_with("1 error in 1 file")
                && errors.contains("@2:9 [Error][6133] 'unusedLocal' is declared")
                && !errors.contains("unusedParameter"),
            &errors,
        );
    }
    cases.finish();
}

/// A workspace report pages within the answer's budget (32,000
/// characters): `offset`/`limit` walk the rest, and the pages together
/// hold every diagnostic once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_report_pages_within_the_budget() {
    let many: String = (0..400)
        .map(|i| format!("export const value{i}: number = \"not a number {i}\";\n"))
        .collect();
    let f = common::fixture_with("ts", &[("src/many.ts", many.as_str())]);
    let mut cases = common::cases!();
    let first = f.run("diagnostics", json!({})).await;
    let summary = first.split("\n\n").next().unwrap_or_default();
    // The answer's blocks, without the separators the test joins them with.
    let size: usize = first
        .split("\n\n=== next block ===\n\n")
        .map(str::len)
        .sum();
    cases.check(
        "within the budget, saying what it shows",
        size <= 32_000
            && summary.contains("\nShowing diagnostics 1-")
            && summary.contains("; pass offset="),
        format!("{size} bytes: {summary}"),
    );
    // Small pages, walked to the end: every diagnostic once.
    let lines = |answer: &str| -> Vec<String> {
        answer
            .lines()
            .filter(|line| line.starts_with("  ✘") || line.starts_with("  ⚠"))
            .map(str::to_string)
            .collect()
    };
    let (mut walked, mut offset, mut pages) = (Vec::new(), 0, 0);
    loop {
        let page = f
            .run("diagnostics", json!({"limit": 150, "offset": offset}))
            .await;
        walked.extend(lines(&page));
        pages += 1;
        match page.split("pass offset=").nth(1) {
            Some(rest) if pages < 10 => {
                offset = rest
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap()
            }
            _ => break,
        }
    }
    let total: usize = summary
        .split(" of ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let unique: std::collections::HashSet<&String> = walked.iter().collect();
    cases.check(
        "pages hold every diagnostic once",
        total > 400
            && walked.len() == total
            && unique.len() == total
            && pages == total.div_ceil(150),
        format!("{} walked of {total} in {pages} pages", walked.len()),
    );
    cases.finish();
}

/// Files with errors lead the report, before files with warnings only,
/// whatever their names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_with_errors_come_first() {
    let lib = std::fs::read_to_string(common::fixtures_dir().join("rust/src/lib.rs")).unwrap();
    let lib = format!("{lib}pub mod aa_warned;\n");
    let f = common::fixture_with(
        "rust",
        &[
            ("src/lib.rs", lib.as_str()),
            ("src/aa_warned.rs", "pub fn f() {\n    let unused = 1;\n}\n"),
        ],
    );
    let answer = f.run("diagnostics", json!({})).await;
    let order: Vec<&str> = answer
        .split("\n\n=== next block ===\n\n")
        .skip(1)
        .map(|block| block.split(" (").next().unwrap())
        .collect();
    assert_eq!(order, ["src/broken.rs", "src/aa_warned.rs"], "{answer}");
}

/// An example whose required features the workspace's build leaves off is
/// skipped by `cargo check --workspace --all-targets`: what rust-analyzer
/// finds there (the `compile_error!` arm such an example often has) is no
/// error of the build's, so a report counts it apart and names why, and
/// the file asked about alone shows it with the same reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn targets_the_build_leaves_out_are_counted_apart() {
    let manifest = std::fs::read_to_string(common::fixtures_dir().join("rust/Cargo.toml")).unwrap();
    let manifest = format!(
        "{manifest}\n[features]\ntls = []\n\n[[example]]\nname = \"secure\"\nrequired-features = [\"tls\"]\n"
    );
    let f = common::fixture_with(
        "rust",
        &[
            ("Cargo.toml", manifest.as_str()),
            (
                "examples/secure.rs",
                "#[cfg(not(feature = \"tls\"))]\ncompile_error!(\"the `tls` feature is required\");\n\nfn main() {}\n",
            ),
        ],
    );
    let answer = f.run("diagnostics", json!({})).await;
    assert!(
        answer.contains("src/broken.rs (")
            && !answer.contains("examples/secure.rs (")
            && answer.contains(
                "1 error in 1 file the build leaves out (targets whose required features are off in the workspace's features) are not counted: examples/secure.rs: example `secure` requires feature `tls`"
            ),
        "{answer}"
    );
    let alone = f
        .run("diagnostics", json!({"file": "examples/secure.rs"}))
        .await;
    assert!(
        alone.contains("the `tls` feature is required")
            && alone.contains(
                "Note: the build leaves examples/secure.rs out (example `secure` requires feature `tls`, off in the workspace's features)"
            ),
        "{alone}"
    );
    // The manifest written: what it says is read again.
    f.run(
        "edit",
        json!({"path": "Cargo.toml", "old_string": "required-features = [\"tls\"]\n", "new_string": "", "apply": true, "impact": false}),
    )
    .await;
    let built = f
        .run("diagnostics", json!({"file": "examples/secure.rs"}))
        .await;
    assert!(
        built.contains("the `tls` feature is required") && !built.contains("the build leaves"),
        "{built}"
    );
}

/// A server that pulls a file's diagnostics from the disk (rust-analyzer,
/// `pulls_unopened`) is asked each file of a workspace report without its
/// opening: a warm report tells it nothing (opened and closed, each file
/// had its diagnostics published anew), so no publication is waited for;
/// and a file written on disk meanwhile is answered as it is now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_report_pulls_each_file_unopened_and_as_the_disk_has_it() {
    let f = common::fixture("rust");
    let debug_lines = |source: &'static str, text: &'static str| {
        let f = &f;
        async move {
            f.run(
                "logs",
                json!({"server": source, "level": "debug", "tail": 100000}),
            )
            .await
            .lines()
            .filter(|line| line.contains(text))
            .count()
        }
    };
    let first = f.run("diagnostics", json!({})).await;
    assert!(first.contains("src/broken.rs ("), "{first}");
    // The first check's build wrote under target/, which this copy (no git
    // repository, so no .gitignore applies) watches: the second report
    // checks again, and finds the build fresh.
    assert_eq!(f.run("diagnostics", json!({})).await, first);
    let published = debug_lines("rust-analyzer", "published").await;
    let skipped = debug_lines("sextant", "no publications waited for").await;
    let warm = f.run("diagnostics", json!({})).await;
    assert_eq!(warm, first);
    assert_eq!(
        debug_lines("rust-analyzer", "published").await,
        published,
        "{}",
        f.run("logs", json!({"level": "debug", "tail": 40})).await
    );
    assert_eq!(
        debug_lines("sextant", "no publications waited for").await,
        skipped + 1
    );
    // Written behind sextant's back: the server hears of it first.
    let report = f.read("src/report.rs");
    std::fs::write(
        f.path("src/report.rs"),
        format!("{report}\npub fn unfinished() -> u32 {{\n    \"none\"\n}}\n"),
    )
    .unwrap();
    let written = f.run("diagnostics", json!({})).await;
    assert!(written.contains("src/report.rs (1 error)"), "{written}");
    // Put back: rust-analyzer reports that error itself too, so a pull
    // from its old copy of the file would still show it.
    std::fs::write(f.path("src/report.rs"), report).unwrap();
    assert_eq!(f.run("diagnostics", json!({})).await, first);
}

/// Without the file watcher, rust-analyzer hears of a file changed on disk
/// only when it is opened: a workspace report then opens each file, where
/// a pull without opening would answer from the server's old copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_watcher_a_report_opens_each_file() {
    let report =
        std::fs::read_to_string(common::fixtures_dir().join("rust/src/report.rs")).unwrap();
    // The server reads the file with its error when it starts.
    let unfinished = format!("{report}\npub fn unfinished() -> u32 {{\n    \"none\"\n}}\n");
    let f = common::fixture_with("rust", &[("src/report.rs", &unfinished)]);
    f.ctx.lsp.set_file_watching(false);
    let written = f.run("diagnostics", json!({})).await;
    assert!(written.contains("src/report.rs (1 error)"), "{written}");
    // Mended behind sextant's back: rust-analyzer reports that error itself
    // too, so a pull from its copy of the file would still show it.
    std::fs::write(f.path("src/report.rs"), report).unwrap();
    let mended = f.run("diagnostics", json!({})).await;
    assert!(!mended.contains("src/report.rs ("), "{mended}");
}

/// A Rust file under no Cargo.toml is one rust-analyzer does not know
/// until it is opened: a workspace report, which pulls its files unopened,
/// asks that one again, opened, rather than failing on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rust_file_under_no_cargo_project_is_asked_opened() {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        (
            "crates/a/Cargo.toml",
            "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("crates/a/src/lib.rs", "pub fn f() -> u32 {\n    1\n}\n"),
        ("loose/gen.rs", "pub fn g() -> u32 {\n    2\n}\n"),
    ] {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let ctx = common::context(dir.path(), false);
    let report = common::run(&ctx, "diagnostics", json!({})).await;
    assert!(
        report.starts_with("No errors or warnings in 2 files")
            && !report.contains("answered textDocument/diagnostic"),
        "{report}"
    );
}

/// JavaScript that its project does not type-check is checked for syntax
/// only: "no errors" there says so, with how to have it type-checked; with
/// `checkJs` or `// @ts-check` its type errors come and the note goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_checked_for_syntax_only_says_so() {
    let unchecked =
        std::fs::read_to_string(common::fixtures_dir().join("commonjs/lib/unchecked.js")).unwrap();
    let ts_check = format!("// @ts-check\n{unchecked}");
    let note = "Note: lib/unchecked.js was checked for syntax only, not type-checked: \
                add `// @ts-check` at a file's top, or `\"checkJs\": true` to the compilerOptions \
                of a jsconfig.json or tsconfig.json that includes it";
    let mut cases = common::cases!();
    for server in [common::TYPESCRIPT_GO, common::TYPESCRIPT_LANGUAGE_SERVER] {
        let plain = common::fixture_on("commonjs", server);
        let answer = plain
            .run("diagnostics", json!({"file": "lib/unchecked.js"}))
            .await;
        cases.check_text(
            &format!("{server}: syntax only"),
            &answer,
            &format!("No errors or warnings in lib/unchecked.js\n{note}"),
        );
        let workspace = plain.run("diagnostics", json!({})).await;
        cases.check(
            &format!("{server}: the workspace"),
            workspace.contains("\nNote: 7 files (index.js, lib/app.js,")
                && workspace.contains(") were checked for syntax only, not type-checked: "),
            &workspace,
        );
        for (how, extra) in [
            (
                "checkJs",
                ("jsconfig.json", r#"{"compilerOptions": {"checkJs": true}}"#),
            ),
            ("@ts-check", ("lib/unchecked.js", ts_check.as_str())),
        ] {
            let checked = common::fixture_on_with("commonjs", server, &[extra]);
            let answer = checked
                .run("diagnostics", json!({"file": "lib/unchecked.js"}))
                .await;
            cases.check(
                &format!("{server}: {how}"),
                answer.starts_with("2 errors in 1 file")
                    && answer.contains("[2588]")
                    && answer.contains("[2304]")
                    && !answer.contains("Note:"),
                &answer,
            );
        }
    }
    cases.finish();
}

/// A report of many files says where its findings are before its first
/// page: by folder, two levels deep, the folders with the most errors
/// first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_report_counts_its_findings_by_folder() {
    let files: Vec<(String, String)> = (0..24)
        .map(|i| {
            let folder = ["pkgs/core", "pkgs/web", "tools"][i % 3];
            let errors = if folder == "pkgs/web" { 2 } else { 1 };
            let text: String = (0..errors)
                .map(|e| format!("export const v{e}: number = \"{i}\";\n"))
                .collect();
            (format!("src/{folder}/f{i}.ts"), text)
        })
        .collect();
    let extra: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let f = common::fixture_with("ts", &extra);
    let answer = f.run("diagnostics", json!({"severity": "error"})).await;
    let summary = answer.split("\n\n").next().unwrap_or_default();
    assert!(
        summary.contains("\nBy folder: src/pkgs (24 errors); src/tools (8 errors); src (3 errors)"),
        "{summary}"
    );
}
