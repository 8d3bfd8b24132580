//! `search` on the real servers and the fixtures: ranking, filters, a
//! workspace of two languages, a monorepo with no root tsconfig searched
//! right after start, library hits on request, and the tree-sitter index
//! where no server can answer.
//!
//! The servers must be installed (scripts/test.sh does it).

mod common;

use std::time::Duration;

use common::{Fixture, fixture, fixtures_dir};
use insta::assert_snapshot;
use serde_json::json;
use sextant::lsp::Need;

async fn search(f: &Fixture, args: serde_json::Value) -> String {
    f.run("search", args).await
}

/// Waits until every server the workspace needs is ready, so answers come
/// from the servers, not the index.
async fn servers_ready(f: &Fixture) {
    for file in f.ctx.lsp.projects().await {
        // Ready to search means every project loaded, which takes
        // typescript-language-server a while longer (seconds on a loaded
        // machine): a search meanwhile answers from tree-sitter.
        // A search that could not wait left a task waiting for the
        // server, and asking with a deadline does not wait behind it: ask
        // until it is ready.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
        loop {
            let soon = tokio::time::Instant::now() + Duration::from_secs(1);
            let server = f.ctx.lsp.server(&file, Need::WORKSPACE.by(soon)).await;
            if server.as_ref().is_ok_and(|s| s.index_complete()) {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{} never became ready with every project loaded: {:?}",
                file.display(),
                server.err()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_matches_rank_and_filter() {
    let f = fixture("ts");
    search(&f, json!({"query": "x"})).await;
    servers_ready(&f).await;
    // Exact, then prefix, substring and fuzzy matches.
    assert_snapshot!("exact", search(&f, json!({"query": "Registry"})).await);
    assert_snapshot!(
        "prefix_and_substring",
        search(&f, json!({"query": "area", "preview": "none"})).await
    );
    assert_snapshot!("fuzzy", search(&f, json!({"query": "mkcrc"})).await);
    // Kinds, and a path (a file, a glob).
    assert_snapshot!(
        "kinds",
        search(
            &f,
            json!({"query": "e", "kinds": ["Class", "Interface"], "preview": "none"})
        )
        .await
    );
    assert_snapshot!(
        "path_glob",
        search(
            &f,
            json!({"query": "e", "path": "src/g*.ts", "preview": "none"})
        )
        .await
    );
    // A type alias is one (the server calls it a Class).
    let alias = search(
        &f,
        json!({"query": "Measured", "kinds": ["TypeAlias"], "preview": "none"}),
    )
    .await;
    assert!(alias.contains("@43:13 TypeAlias - Measured"), "{alias}");
    assert_snapshot!(search(&f, json!({"query": "Nothingness"})).await, @r#"No matches for query "Nothingness", from typescript-go"#);
    // Paging.
    assert_snapshot!(
        "paged",
        search(
            &f,
            json!({"query": "a", "preview": "none", "limit": 3, "offset": 2})
        )
        .await
    );
    // Bad input.
    assert_snapshot!(search(&f, json!({"query": " "})).await, @"error[invalid-params]: query is empty; pass a name or part of one");
    assert_snapshot!(search(&f, json!({"query": "a", "kinds": ["Klass"]})).await, @"error[invalid-params]: unknown kind 'Klass' in kinds; the kinds are File, Module, Namespace, Package, Class, Method, Property, Field, Constructor, Enum, Interface, Function, Variable, Constant, String, Number, Boolean, Array, Object, Key, Null, EnumMember, Struct, Event, Operator, TypeParameter, TypeAlias");
    assert_snapshot!(search(&f, json!({"query": "a", "path": "src/[.ts"})).await, @"error[invalid-glob]: path src/[.ts: unclosed character class; missing ']'");
    assert_snapshot!(search(&f, json!({"query": "a", "offset": 500})).await, @r#"error[out-of-range]: 42 matches for query "a"; offset 500 is past the end"#);
}

/// A pnpm-style monorepo: no tsconfig at the root, one per package. The
/// servers search only projects they have a file of open: the first
/// search right after start finds both packages' symbols.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_search_of_a_monorepo_finds_every_package() {
    let f = fixture("monorepo");
    // The right hits on the very first search: from the server if it was up
    // within search's wait (it is, on a machine not loaded by other tests),
    // else from the index, and the header says which and why: the server
    // was still starting, or (a busy CI machine) still loading the
    // projects it was given.
    let first = search(&f, json!({"query": "lookup"})).await;
    let (header, blocks) = first.split_once("\n\n").unwrap();
    let from_index = "Found 2 matches for query \"lookup\" across 2 files, from tree-sitter\nNote: typescript-go is still";
    assert!(
        header == "Found 2 matches for query \"lookup\" across 2 files, from typescript-go"
            || [
                "starting; typescript results are from tree-sitter",
                "loading its projects; typescript results are from tree-sitter"
            ]
            .iter()
            .any(|why| header == format!("{from_index} {why}")),
        "{first}"
    );
    // Once the server has loaded its projects (seconds on a loaded
    // machine), the same hits come from it.
    servers_ready(&f).await;
    let again = search(&f, json!({"query": "lookup"})).await;
    assert_eq!(again.split_once("\n\n").unwrap().1, blocks);
    assert_snapshot!(again, @r#"
    Found 2 matches for query "lookup" across 2 files, from typescript-go

    === next block ===

    packages/app/src/session.ts (1 result)
      @16:3 Method - SessionManager.lookup
        `lookup(user: string): SessionInfo | undefined`

    === next block ===

    packages/lib/src/store.ts (1 result)
      @15:3 Method - BoundedStore.lookup
        `lookup(key: string): V | undefined`
    "#);
}

/// The same with typescript-language-server, whose own workspace/symbol
/// searches one project only: tsserver is asked for every open project.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_language_server_searches_every_package_too() {
    let f = common::fixture_on("monorepo", common::TYPESCRIPT_LANGUAGE_SERVER);
    search(&f, json!({"query": "lookup"})).await;
    servers_ready(&f).await;
    let answer = search(&f, json!({"query": "lookup", "preview": "none"})).await;
    assert_eq!(
        answer,
        "Found 2 matches for query \"lookup\" across 2 files, from typescript-language-server\n\n=== next block ===\n\n\
         packages/app/src/session.ts (1 result)\n  @16:3 Method - SessionManager.lookup\n\n=== next block ===\n\n\
         packages/lib/src/store.ts (1 result)\n  @15:3 Method - BoundedStore.lookup"
    );
}

/// A first search, while typescript-language-server is still loading the
/// projects it was just given: never the partial answer it gives meanwhile
/// (the opened file's names only, half the time before this was checked),
/// but the whole one, from it or from tree-sitter with a note.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_search_on_typescript_language_server_is_whole() {
    for _ in 0..2 {
        let f = common::fixture_on("monorepo", common::TYPESCRIPT_LANGUAGE_SERVER);
        let answer = search(&f, json!({"query": "lookup", "preview": "none"})).await;
        for expected in [
            "packages/app/src/session.ts (1 result)\n  @16:3 Method - SessionManager.lookup",
            "packages/lib/src/store.ts (1 result)\n  @15:3 Method - BoundedStore.lookup",
        ] {
            assert!(
                answer.contains(expected),
                "{expected} missing from:\n{answer}"
            );
        }
        let f = common::fixture_on("ts", common::TYPESCRIPT_LANGUAGE_SERVER);
        let answer = search(&f, json!({"query": "Circle", "preview": "none"})).await;
        assert!(
            answer.contains(
                "src/shapes.ts (2 results)\n  @18:14 Class - Circle\n  @69:14 Constant - makeCircle"
            ),
            "{answer}"
        );
    }
}

/// A project opened through a file whose path servers percent-encode
/// their own way (Next.js's `app/(group)/[id]/page.tsx`):
/// typescript-language-server publishes its diagnostics under `%28group%29`,
/// which must still count as the sign that the project loaded, or search
/// would answer from tree-sitter for good.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_opened_through_a_path_with_brackets_loads() {
    let f = common::fixture_on_with(
        "ts",
        common::TYPESCRIPT_LANGUAGE_SERVER,
        &[("src/(group)/[id]/page.ts", "export const page = 1;\n")],
    );
    search(&f, json!({"query": "Circle"})).await;
    servers_ready(&f).await;
    let answer = search(&f, json!({"query": "Circle", "preview": "none"})).await;
    assert!(
        answer.starts_with(
            "Found 3 matches for query \"Circle\" across 2 files, from typescript-language-server\n"
        ),
        "{answer}"
    );
}

/// TypeScript and Rust in one workspace: one name defined in both, each
/// from its own server; library files only when asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_languages_and_library_hits() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(
        &fixtures_dir().join("ts"),
        &dir.path().join("web"),
        &mut Vec::new(),
    );
    common::copy_tree(
        &fixtures_dir().join("rust"),
        &dir.path().join("core"),
        &mut Vec::new(),
    );
    // A library under node_modules that the project uses.
    let library = dir.path().join("web/node_modules/describer");
    std::fs::create_dir_all(&library).unwrap();
    std::fs::write(
        library.join("package.json"),
        r#"{ "name": "describer", "version": "1.0.0", "types": "index.d.ts" }"#,
    )
    .unwrap();
    std::fs::write(
        library.join("index.d.ts"),
        "export declare function describeAll(items: string[]): string;\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("web/package.json"),
        r#"{ "name": "web", "private": true, "type": "module", "dependencies": { "describer": "1.0.0" } }"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("web/src/uses.ts"),
        "import { describeAll } from \"describer\";\n\nexport const described = describeAll([\"a\"]);\n",
    )
    .unwrap();
    let f = Fixture {
        ctx: common::context(dir.path(), false),
        dir,
    };
    search(&f, json!({"query": "describe"})).await;
    servers_ready(&f).await;
    assert_snapshot!(
        "both_languages",
        search(&f, json!({"query": "describe"})).await
    );
    // Library hits on request: the npm dependency's declarations, and
    // rust-analyzer's search of the standard library.
    assert_snapshot!(
        "with_libraries",
        search(&f, json!({"query": "describeA", "include_external": true})).await
    );
    let btree = search(
        &f,
        json!({"query": "BTreeMap", "include_external": true, "kinds": ["Struct"]}),
    )
    .await;
    assert!(
        btree.contains("std:alloc/src/collections/btree/map.rs (1 result)\n  @")
            && btree.contains(" Struct - BTreeMap\n    `pub struct BTreeMap<"),
        "{btree}"
    );
    assert!(
        search(&f, json!({"query": "BTreeMap", "kinds": ["Struct"]}))
            .await
            .starts_with("No matches"),
        "library hits only when asked for"
    );
}

/// With no server to ask, the tree-sitter index answers, and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_server_the_index_answers() {
    let f = common::fixture_with(
        "ts",
        &[(
            "sextant.toml",
            "auto_install = false\n[language.typescript]\ncommand = \"sextant-no-such-server\"\n",
        )],
    );
    assert_snapshot!(search(&f, json!({"query": "greet"})).await, @r#"
    Found 2 matches for query "greet" across 1 file, from tree-sitter
    Note: sextant-no-such-server is not installed; install `sextant-no-such-server` and put it on PATH, or set `command` for [language.typescript] in sextant.toml; typescript results are from tree-sitter

    === next block ===

    src/greeting.ts (2 results)
      @2:14 Constant - greeting
        `export const greeting = "héllo wörld"`
      @6:17 Function - greet
        `export function greet(名前: string): string`
    "#);
    // The index follows the disk, once the watcher has walked the folders
    // (a file written in a folder before its watch has no event: the walk
    // is a moment after start, an agent's next edit a model turn away).
    common::wait_for(
        "the watcher's first walk",
        || f.run("logs", json!({"tail": 0})),
        |logs| logs.contains(" folder") && !logs.contains("still walking"),
    )
    .await;
    std::fs::write(
        f.path("src/added.ts"),
        "export function greetAgain(): void {}\n",
    )
    .unwrap();
    let found = common::wait_for(
        "the index notes src/added.ts",
        || search(&f, json!({"query": "greet", "preview": "none"})),
        |answer| answer.contains("src/added.ts"),
    )
    .await;
    assert_snapshot!(found, @r#"
    Found 3 matches for query "greet" across 2 files, from tree-sitter
    Note: sextant-no-such-server is not installed; install `sextant-no-such-server` and put it on PATH, or set `command` for [language.typescript] in sextant.toml; typescript results are from tree-sitter

    === next block ===

    src/greeting.ts (2 results)
      @2:14 Constant - greeting
      @6:17 Function - greet

    === next block ===

    src/added.ts (1 result)
      @1:17 Function - greetAgain
    "#);
}

/// A search of files parsed before answers from their kept parses (where
/// the call runs); one whose file changed since reads it again: the same
/// answer either way, and never a parse the disk no longer holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_from_kept_parses_answers_as_one_that_reads() {
    let f = common::fixture_with(
        "ts",
        &[(
            "sextant.toml",
            "auto_install = false\n[language.typescript]\ncommand = \"sextant-no-such-server\"\n",
        )],
    );
    let first = search(&f, json!({"query": "greet"})).await;
    assert!(
        first.contains("`export function greet(名前: string): string`"),
        "{first}"
    );
    assert_eq!(search(&f, json!({"query": "greet"})).await, first);
    // The declaration changed where it stands, its line and name kept (the
    // index's hit stays); its modification time kept too: the size tells,
    // the status change time, or the file watcher, which hears the write
    // within an agent's turn.
    let text = f.read("src/greeting.ts");
    f.rewrite_keeping_time(
        "src/greeting.ts",
        &text.replace("greet(名前: string)", "greet(名前: string, times: number)"),
    );
    common::agent_turn().await;
    let changed = search(&f, json!({"query": "greet"})).await;
    assert_eq!(
        changed,
        first.replace("greet(名前: string)", "greet(名前: string, times: number)"),
    );
    assert_eq!(search(&f, json!({"query": "greet"})).await, changed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_answers_from_rust_analyzer_once_ready() {
    let f = fixture("rust");
    search(&f, json!({"query": "x"})).await;
    servers_ready(&f).await;
    assert_snapshot!(
        "rust_balance",
        search(&f, json!({"query": "balance"})).await
    );
    assert_snapshot!(
        "rust_kinds",
        search(
            &f,
            json!({"query": "l", "kinds": ["Struct", "Interface"], "preview": "none"})
        )
        .await
    );
}

/// A query finds the same symbols, exact names first, whether the index
/// answers (rust-analyzer not started) or rust-analyzer does, which
/// matches an upper-case query case-sensitively and so would leave out
/// `accumulate_count_1` for "Account": the index adds what it left out.
/// The exact name is on the first page though its file holds 60 weaker
/// matches before it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_finds_the_same_symbols_exact_first_from_either_source() {
    let lib = std::fs::read_to_string(common::fixtures_dir().join("rust/src/lib.rs")).unwrap()
        + "\npub mod tally;\n";
    let mut tally: String = (1..=60)
        .map(|i| format!("pub fn accumulate_count_{i}() {{}}\n"))
        .collect();
    tally.push_str("pub struct Account;\n");
    let files = [
        ("src/lib.rs", lib.as_str()),
        ("src/tally.rs", tally.as_str()),
    ];
    let served = common::fixture_with("rust", &files);
    let unserved = common::fixture_with(
        "rust",
        &[
            files[0],
            files[1],
            (
                "sextant.toml",
                "auto_install = false\n[language.rust]\ncommand = \"sextant-no-such-server\"\n",
            ),
        ],
    );
    search(&served, json!({"query": "x"})).await;
    servers_ready(&served).await;
    let mut cases = common::cases!();
    for (name, f, source) in [
        (
            "rust-analyzer",
            &served,
            "from rust-analyzer and tree-sitter",
        ),
        ("the index", &unserved, "from tree-sitter"),
    ] {
        let first = search(f, json!({"query": "Account", "preview": "none"})).await;
        cases.check(
            &format!("{name}: the exact name on the first page"),
            first.contains(source) && first.contains("@61:12 Struct - Account"),
            &first,
        );
        let functions = search(
            f,
            json!({"query": "Account", "kinds": ["Function"], "preview": "none", "path": "src/tally.rs", "limit": 100}),
        )
        .await;
        cases.check(
            &format!("{name}: every function"),
            functions.starts_with("Found 60 matches for query \"Account\" across 1 file")
                && functions.contains("@60:8 Function - accumulate_count_60"),
            &functions,
        );
    }
    cases.finish();
}

/// rust-analyzer lists a `pub use` re-export as a symbol of its own: it
/// ranks after the declaration it re-exports, whatever the paths' order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_re_export_ranks_after_its_declaration() {
    let lib = std::fs::read_to_string(common::fixtures_dir().join("rust/src/lib.rs")).unwrap()
        + "\npub mod shelf;\npub use shelf::Shelf;\n";
    let f = common::fixture_with(
        "rust",
        &[
            ("src/lib.rs", lib.as_str()),
            (
                "src/shelf.rs",
                "/// Where ledgers are kept.\npub struct Shelf;\n",
            ),
        ],
    );
    search(&f, json!({"query": "x"})).await;
    servers_ready(&f).await;
    let answer = search(&f, json!({"query": "Shelf", "preview": "none"})).await;
    let blocks: Vec<&str> = answer.split("\n\n=== next block ===\n\n").collect();
    // The index adds the module `shelf`, which rust-analyzer's
    // case-sensitive match of "Shelf" leaves out.
    assert!(
        blocks
            .first()
            .is_some_and(|b| b.ends_with("from rust-analyzer and tree-sitter")),
        "{answer}"
    );
    assert!(
        blocks
            .get(1)
            .is_some_and(|b| b.starts_with("src/shelf.rs (1 result)\n  @2:12 Struct - Shelf")),
        "the declaration first: {answer}"
    );
}

/// A server that finds no match is not the last word: TypeScript's
/// servers search only what they have loaded, and JavaScript without a
/// config loads only the files opened (the native server, when asked
/// for: `auto` chooses typescript-language-server there). The index's
/// matches come, and the answer says where from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_server_answer_falls_back_to_the_index() {
    let f = common::fixture_on("commonjs", common::TYPESCRIPT_GO);
    let answer = search(&f, json!({"query": "normalizeType"})).await;
    assert!(
        answer.contains("lib/utils.js (2 results)\n  @12:9 Function - normalizeType")
            && answer.contains(
                "Note: typescript-go found no symbol matching \"normalizeType\" (it searches only what it has loaded, and matches more strictly); these typescript results are from tree-sitter"
            ),
        "{answer}"
    );
}
