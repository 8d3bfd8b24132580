//! Every project in the workspace, as the project builds it: shapes that
//! ts-sdk and ripgrep do not have, each a fixture of that shape.
//!
//! - `cargo_nested`: a cargo workspace with a workspace of examples and a
//!   standalone tool beside it, both using the root's crate by path.
//! - `ts_solution`: a solution-style `tsconfig.json` (no files of its own)
//!   referencing `tsconfig.build.json` (the sources) and
//!   `tsconfig.spec.json` (sources and tests).
//! - a Rust module no `mod` declares, and a file no cargo project holds.
//!
//! The servers must be installed (scripts/test.sh does it).

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::json;

/// What `cargo check` says is wrong in the project at `dir`: its errors
/// and warnings, one per line.
fn cargo_check(dir: &Path) -> String {
    let out = Command::new("cargo")
        .args(["check", "--offline", "--quiet", "--message-format", "short"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo check in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(": error") || l.contains(": warning"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A workspace of examples and a standalone tool beside the root's cargo
/// workspace are loaded with it: an example's call goes to the root's
/// crate, references of a root crate's method find the uses in every
/// project (the server holds a copy of the crate per project and answers
/// from one), and a rename applied there leaves all three building.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_cargo_workspaces_are_loaded_and_renamed_through() {
    let f = common::fixture("cargo_nested");
    let mut cases = common::cases!();

    let inspect = f
        .run(
            "inspect",
            json!({"file": "examples/demo/src/main.rs", "line": 5, "symbol": "run"}),
        )
        .await;
    cases.check(
        "an_example_reaches_the_root_crate",
        inspect.contains("Definition: core/src/lib.rs:14:12 `pub fn run(&self) -> u32 {`"),
        &inspect,
    );

    let expected = "\
references impl Engine/run (Method) at core/src/lib.rs:14:12
Found 4 references to run across 3 files

=== next block ===

core/src/lib.rs (2 references)
  @14:12 in impl Engine: `pub fn run(&self) -> u32 {`
  @29:41 in tests::one_job: `assert_eq!(super::Engine::new().run(), 1);`

=== next block ===

examples/demo/src/main.rs (1 reference)
  @5:27 in main: `println!(\"{}\", engine.run());`

=== next block ===

tools/src/main.rs (1 reference)
  @2:48 in main: `let total = nested_core::Engine::default().run();`";
    let from_the_root = f
        .run(
            "references",
            json!({"file": "core/src/lib.rs", "symbol": "impl Engine/run"}),
        )
        .await;
    cases.check_text("references_from_the_root_crate", &from_the_root, expected);
    let from_an_example = f
        .run(
            "references",
            json!({"file": "examples/demo/src/main.rs", "line": 5, "symbol": "run"}),
        )
        .await;
    cases.check_text(
        "references_from_an_example",
        &from_an_example,
        &expected.replace(
            "references impl Engine/run (Method) at core/src/lib.rs:14:12",
            "references run at examples/demo/src/main.rs:5:27",
        ),
    );

    let renamed = f
        .run(
            "rename",
            json!({"file": "core/src/lib.rs", "symbol": "impl Engine/run", "new_name": "execute", "apply": true}),
        )
        .await;
    cases.check(
        "rename_writes_every_project",
        renamed.contains("Renamed 'run' -> 'execute': 4 changes across 3 files, written"),
        &renamed,
    );
    for project in ["", "examples", "tools"] {
        cases.check_eq(
            &format!(
                "cargo_check_{}",
                if project.is_empty() { "root" } else { project }
            ),
            cargo_check(&f.root().join(project)).as_str(),
            "",
        );
    }
    cases.finish();
}

/// The other cargo projects are searched for a place to ask from through
/// a list of their files kept between answers: a file created there after
/// one answer is searched by the next. Here no other project uses
/// `Engine::new` at first; then a new module of the examples does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_created_in_another_cargo_project_is_searched_by_the_next_answer() {
    let f = common::fixture("cargo_nested");
    let demo = "use nested_core::Engine;\n\nfn main() {\n    println!(\"{}\", Engine::default().run());\n}\n";
    std::fs::write(f.path("examples/demo/src/main.rs"), demo).unwrap();
    f.watch_files().await;
    let at = json!({"file": "core/src/lib.rs", "symbol": "Engine::new"});
    let before = f.run("references", at.clone()).await;
    assert!(
        before.contains("references to new") && !before.contains("examples/"),
        "{before}"
    );
    std::fs::write(
        f.path("examples/demo/src/extra.rs"),
        "pub fn fresh() -> nested_core::Engine {\n    nested_core::Engine::new()\n}\n",
    )
    .unwrap();
    std::fs::write(
        f.path("examples/demo/src/main.rs"),
        format!("mod extra;\n{demo}"),
    )
    .unwrap();
    common::agent_turn().await;

    let after = f.run("references", at).await;
    assert!(
        after.contains("examples/demo/src/extra.rs (1 reference)\n  @2:26 in fresh:"),
        "{after}"
    );
}

/// What `tsc -b` (every referenced project built) says is wrong.
fn tsc_build(dir: &Path) -> String {
    let out = Command::new(common::tsc())
        .arg("-b")
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A solution-style tsconfig.json holds no file and references the build
/// project and the test project: references reach the tests, which only
/// the test project holds, on both TypeScript servers; a rename applied
/// leaves `tsc -b` clean; and after the server is killed, the restarted
/// one answers the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn projects_only_a_solution_config_references_are_loaded() {
    let expected = "\
references parsePair (Function) at src/parse.ts:2:17
Found 7 references to parsePair across 4 files

=== next block ===

src/parse.ts (1 reference)
  @2:17: `export function parsePair(text: string): [string, string] {`

=== next block ===

src/config.ts (2 references)
  @1:10: `import { parsePair } from \"./parse\";`
  @4:28 in readConfig: `return new Map(lines.map(parsePair));`

=== next block ===

test/config.test.ts (2 references)
  @1:10: `import { parsePair } from \"../src/parse\";`
  @5:25: `if (config.get(\"a\") !== parsePair(\"a=1\")[1]) {`

=== next block ===

test/parse.test.ts (2 references)
  @1:10: `import { parsePair } from \"../src/parse\";`
  @3:22: `const [key, value] = parsePair(\"a=1\");`";
    let mut cases = common::cases!();
    let at = json!({"file": "src/parse.ts", "symbol": "parsePair"});
    for server in [common::TYPESCRIPT_GO, common::TYPESCRIPT_LANGUAGE_SERVER] {
        let f = common::fixture_on("ts_solution", server);
        let references = f.run("references", at.clone()).await;
        cases.check_text(&format!("{server}_references"), &references, expected);
        if server != common::TYPESCRIPT_GO {
            continue;
        }
        // The real server killed: the next calls restart it, and it gets
        // back every project its predecessor had.
        let pid = f
            .ctx
            .lsp
            .clients()
            .first()
            .and_then(|client| client.pid())
            .expect("a running server");
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        assert!(
            common::process_gone(pid).await,
            "the server outlived its kill"
        );
        let again = common::wait_for(
            "references after the restart",
            || f.run("references", at.clone()),
            |answer| !answer.contains("crashed"),
        )
        .await;
        cases.check_text("references_after_a_restart", &again, expected);

        let renamed = f
            .run(
                "rename",
                json!({"file": "src/parse.ts", "symbol": "parsePair", "new_name": "splitPair", "apply": true}),
            )
            .await;
        cases.check(
            "rename_writes_the_tests_too",
            renamed
                .contains("Renamed 'parsePair' -> 'splitPair': 7 changes across 4 files, written"),
            &renamed,
        );
        cases.check_eq(
            "tsc_build_after_the_rename",
            tsc_build(f.root()).as_str(),
            "",
        );
    }
    cases.finish();
}

/// tsserver dying behind typescript-language-server (node's heap limit
/// aborts it) leaves typescript-language-server running and answering
/// from nothing. Its "[tsserver] Exited" line makes it a crash like any
/// other: no answer after it states a semantic fact ("No references"), the
/// server is restarted with every project back, and `logs` says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tsserver_dying_behind_its_server_is_a_crash() {
    let f = common::fixture_on("ts_solution", common::TYPESCRIPT_LANGUAGE_SERVER);
    let at = json!({"file": "src/parse.ts", "symbol": "parsePair"});
    let before = f.run("references", at.clone()).await;
    assert!(
        before.starts_with(
            "references parsePair (Function) at src/parse.ts:2:17\nFound 7 references"
        ),
        "{before}"
    );
    let server = f
        .ctx
        .lsp
        .clients()
        .first()
        .and_then(|client| client.pid())
        .expect("a running server");
    let tsservers: Vec<u32> = common::descendants(server)
        .into_iter()
        .map(|(pid, _)| pid)
        .collect();
    assert!(!tsservers.is_empty(), "no tsserver under {server}");
    for pid in &tsservers {
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
    }
    common::wait_for(
        "the death logged",
        || f.run("logs", json!({"tail": 1})),
        |logs| {
            logs.contains("crashed (the process that answers for it died (")
                && logs.contains("[tsserver] Exited.")
        },
    )
    .await;
    // Every answer from then on is the whole one or says the server
    // crashed; never an empty finding.
    let mut answers = Vec::new();
    for _ in 0..20 {
        let answer = f.run("references", at.clone()).await;
        let whole = answer == before;
        answers.push(answer);
        if whole {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert!(
        answers.last() == Some(&before)
            && answers[..answers.len() - 1]
                .iter()
                .all(|answer| answer.contains("crashed")),
        "{answers:#?}"
    );
    let logs = f.run("logs", json!({"tail": 10, "level": "error"})).await;
    assert!(
        logs.contains("crashed (the process that answers for it died (")
            && logs.contains("[tsserver] Exited.")
            && logs.contains("restarting")
            && !common::process_exists(server),
        "{logs}"
    );
}

/// A module no `mod` declares, and a file under no Cargo.toml: rust-analyzer
/// knows their text only, so every answer there is empty; each says why,
/// with what to do, and rename refuses.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_outside_every_cargo_project_says_so() {
    const CODE: &str = "pub fn lonely() -> u32 {\n    1\n}\n\npub fn caller() -> u32 {\n    lonely().count_ones()\n}\n";
    let f = common::fixture_with("rust", &[("src/orphan.rs", CODE), ("loose/alone.rs", CODE)]);
    let mut cases = common::cases!();
    for (file, module, why) in [
        (
            "src/orphan.rs",
            "orphan",
            "This file is not included anywhere in the module tree",
        ),
        (
            "loose/alone.rs",
            "alone",
            "This file is not included in any crates",
        ),
    ] {
        let note = format!(
            "{file} is in none of rust-analyzer's projects ({why}, so rust-analyzer can't offer IDE services.); \
             declare it as a module of its crate (`mod {module};` in the module above it), \
             or put it in a cargo project under the workspace"
        );
        let at = json!({"file": file, "symbol": "lonely", "line": 6});
        let answers = [
            ("references", f.run("references", at.clone()).await),
            ("inspect", f.run("inspect", at.clone()).await),
            ("call_hierarchy", f.run("call_hierarchy", at.clone()).await),
            (
                "rename",
                f.run("rename", json!({"file": file, "symbol": "lonely", "line": 6, "new_name": "solo", "apply": true}))
                    .await,
            ),
            (
                "completion",
                f.run("completion", json!({"file": file, "line": 6, "character": 14})).await,
            ),
            ("diagnostics", f.run("diagnostics", json!({"file": file})).await),
        ];
        for (tool, answer) in answers {
            cases.check(&format!("{module}_{tool}"), answer.contains(&note), &answer);
        }
        // Nothing was written.
        let text = std::fs::read_to_string(f.root().join(file)).unwrap();
        cases.check(&format!("{module}_unchanged"), text == CODE, &text);
    }
    // A file of the crate is answered as before, with no such note.
    let linked = f
        .run(
            "references",
            json!({"file": "src/lib.rs", "symbol": "Ledger"}),
        )
        .await;
    cases.check(
        "linked_has_no_note",
        linked.contains("references to Ledger") && !linked.contains("none of"),
        &linked,
    );
    cases.finish();
}

/// A monorepo of many projects: a question about one symbol loads the
/// projects that can see it (its own, those of packages depending on its
/// package, directly or through another, and those whose own `paths`
/// alias points into it), not the others: `examples/` holds many more
/// projects, none of which is opened for a question about `packages/`.
/// The answer still holds every use, and every call is in the call
/// hierarchy or named by its note.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_about_one_symbol_loads_the_projects_that_see_it() {
    for server in [common::TYPESCRIPT_GO, common::TYPESCRIPT_LANGUAGE_SERVER] {
        projects_seeing_one_symbol(server).await;
    }
}

async fn projects_seeing_one_symbol(server: &str) {
    const EXAMPLES: usize = 12;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let config = r#"{ "compilerOptions": { "strict": true, "noEmit": true, "module": "esnext",
        "moduleResolution": "bundler", "target": "es2022" }, "include": ["src"] }"#;
    let package = |dir: &str, name: &str, deps: &[&str], index: &str| {
        let deps: Vec<String> = deps
            .iter()
            .map(|d| format!("\"{d}\": \"workspace:*\""))
            .collect();
        write(
            &format!("{dir}/package.json"),
            &format!(
                r#"{{ "name": "{name}", "types": "src/index.ts", "dependencies": {{ {} }} }}"#,
                deps.join(", ")
            ),
        );
        write(&format!("{dir}/tsconfig.json"), config);
        write(&format!("{dir}/src/index.ts"), index);
        // How a package manager links a workspace package.
        let link = root.join("node_modules").join(name);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(root.join(dir), link).unwrap();
    };
    write("package.json", r#"{ "name": "mono", "private": true }"#);
    write(
        "sextant.toml",
        &format!("[language.typescript]\nserver = \"{server}\"\n"),
    );
    package(
        "packages/core",
        "@m/core",
        &[],
        "export function coreFn(x: number): number {\n  return x + 1;\n}\n\nexport class Base {\n  describe(): string {\n    return \"base\";\n  }\n}\n\nexport interface Named {\n  name(): string;\n}\n",
    );
    package(
        "packages/a",
        "@m/a",
        &["@m/core"],
        "import { coreFn, Base, Named } from \"@m/core\";\n\nexport { coreFn };\nexport const a = coreFn(1);\n\nexport class Derived extends Base implements Named {\n  describe(): string {\n    return \"derived\";\n  }\n  name(): string {\n    return \"d\";\n  }\n}\n",
    );
    package(
        "packages/b",
        "@m/b",
        &["@m/a"],
        "import { coreFn } from \"@m/a\";\n\nexport const b = coreFn(2);\n",
    );
    package("packages/c", "@m/c", &[], "export const c = 3;\n");
    for i in 0..EXAMPLES {
        package(
            &format!("examples/ex{i}"),
            &format!("ex{i}"),
            &["@m/c"],
            "import { c } from \"@m/c\";\n\nexport const shown = c;\n",
        );
    }
    let ctx = common::context(root, false);
    let at = json!({"file": "packages/core/src/index.ts", "symbol": "coreFn"});
    let mut references = common::run(&ctx, "references", at.clone()).await;
    // On a loaded machine the projects may take longer than the wait; the
    // answer then says so and to retry, which the agent does.
    if references.contains("had not loaded the project within") {
        references = common::run(&ctx, "references", at).await;
    }
    assert!(
        references.contains("Found 6 references to coreFn across 3 files")
            && references.contains("packages/b/src/index.ts (2 references)"),
        "{server}: {references}"
    );
    // A package created since is a project that can see it: the projects
    // chosen for the file are chosen again.
    for (path, content) in [
        (
            "packages/d/package.json",
            r#"{ "name": "@m/d", "dependencies": { "@m/core": "workspace:*" } }"#,
        ),
        ("packages/d/tsconfig.json", config),
        (
            "packages/d/src/index.ts",
            "import { coreFn } from \"@m/core\";\n\nexport const d = coreFn(4);\n",
        ),
    ] {
        let created = common::run(
            &ctx,
            "create_file",
            json!({"path": path, "content": content}),
        )
        .await;
        assert!(!created.starts_with("error"), "{created}");
    }
    let again = common::run(
        &ctx,
        "references",
        json!({"file": "packages/core/src/index.ts", "symbol": "coreFn"}),
    )
    .await;
    assert!(
        again.contains("Found 8 references to coreFn across 4 files")
            && again.contains("packages/d/src/index.ts (2 references)"),
        "{server}: {again}"
    );
    // Every call is in the call hierarchy, or named by its note:
    // typescript-language-server answers calls from the function's own
    // project only.
    let calls = common::run(
        &ctx,
        "call_hierarchy",
        json!({"file": "packages/core/src/index.ts", "symbol": "coreFn", "direction": "incoming"}),
    )
    .await;
    for (file, site) in [
        ("packages/a/src/index.ts", "4:18"),
        ("packages/b/src/index.ts", "3:18"),
    ] {
        let held = calls.contains(&format!("Incoming calls in {file}"))
            && calls.contains(&format!("@{site} "));
        let named = calls
            .contains("that typescript-language-server's call hierarchy does not hold (")
            && calls.contains(&format!("{file}:{site}"));
        assert!(held || named, "{server}: {file}:{site}: {calls}");
    }
    // A subclass in another package is an implementation, whichever
    // server answers (typescript-language-server's own answer covers the
    // class's project only).
    let base = common::run(
        &ctx,
        "inspect",
        json!({"file": "packages/core/src/index.ts", "symbol": "Base"}),
    )
    .await;
    assert!(
        base.contains(
            "Implementation: packages/a/src/index.ts:6:14 `export class Derived extends Base implements Named {`"
        ),
        "{server}: {base}"
    );
    // So is a method that implements an interface's, or overrides a base
    // class's, in another package; the member it implements is not.
    for (symbol, implementation) in [
        (
            "Named.name",
            "packages/a/src/index.ts:10:3 `name(): string {`",
        ),
        (
            "Base.describe",
            "packages/a/src/index.ts:7:3 `describe(): string {`",
        ),
    ] {
        let answer = common::run(
            &ctx,
            "inspect",
            json!({"file": "packages/core/src/index.ts", "symbol": symbol}),
        )
        .await;
        assert!(
            answer.contains(&format!("Implementation: {implementation}")),
            "{server}: {symbol}: {answer}"
        );
    }
    let derived = common::run(
        &ctx,
        "inspect",
        json!({"file": "packages/a/src/index.ts", "symbol": "Derived.name"}),
    )
    .await;
    assert!(
        !derived.contains("packages/core/src/index.ts:12:3"),
        "{server}: {derived}"
    );
    let client = ctx.lsp.clients().into_iter().next().expect("a server");
    let open: Vec<String> = client
        .open_documents()
        .await
        .iter()
        .map(|path| path.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert!(
        open.iter().all(|path| path.starts_with("packages/"))
            && !open.iter().any(|path| path.starts_with("packages/c/")),
        "{server}: {open:?}"
    );
    // A search asks every project.
    common::run(&ctx, "search", json!({"query": "shown"})).await;
    let open = client.open_documents().await.len();
    assert!(
        open > EXAMPLES,
        "{server}: {open} documents open after a search"
    );
    ctx.lsp.shutdown(std::time::Duration::from_secs(2)).await;

    // At most `max_projects`, nearest first: core's own and `a`'s (a
    // library), not `d`'s (an application at the same distance) nor `b`'s
    // (further); the answer names them, and a rename is not applied.
    write(
        "sextant.toml",
        &format!(
            "[language.typescript]\nserver = \"{server}\"\n[language.typescript.servers.{server}]\nmax_projects = 2\n"
        ),
    );
    let bounded = common::context(root, false);
    let at = json!({"file": "packages/core/src/index.ts", "symbol": "coreFn"});
    let references = common::run(&bounded, "references", at.clone()).await;
    assert!(
        references.contains(&format!(
            "2 projects that can see this file were not loaded (packages/d/tsconfig.json, packages/b/tsconfig.json), since {server} loads at most 2 for one question (`max_projects`, each costs it memory): references there are not included"
        )),
        "{server}: {references}"
    );
    let mut rename = at;
    rename["new_name"] = json!("coreFunction");
    rename["apply"] = json!(true);
    let renamed = common::run(&bounded, "rename", rename).await;
    assert!(
        renamed.contains("nothing was written") && renamed.contains("packages/b/tsconfig.json"),
        "{server}: {renamed}"
    );
    // A search is bounded too: the index adds the matches of the projects
    // not loaded, and the answer says so.
    let search = || common::run(&bounded, "search", json!({"query": "shown"}));
    let found = common::wait_for("a search the server answered", search, |answer| {
        !answer.contains("still starting") && !answer.contains("still loading")
    })
    .await;
    assert!(
        found.contains(&format!("Found {EXAMPLES} matches"))
            && found.contains(&format!(
                "{server} has {} projects not loaded (at most `max_projects` are, each costs it memory); the index adds their typescript matches",
                EXAMPLES + 5 - 2
            )),
        "{server}: {found}"
    );
}
