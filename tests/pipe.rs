//! `pipe`: every chain it takes, on the TypeScript fixture with TypeScript
//! 7's server, a chain that does not fit (refused before anything runs),
//! and the budget over many answers.

mod common;

use common::fixture;
use insta::assert_snapshot;
use serde_json::json;

#[tokio::test]
async fn every_chain_feeds_the_next_step() {
    let f = fixture("ts");
    // find -> grep: only the files found are searched.
    assert_snapshot!(
        "find_grep",
        f.run(
            "pipe",
            json!({"steps": [
                {"tool": "find", "args": {"pattern": "src/{index,broken}.ts"}},
                {"tool": "grep", "args": {"pattern": "Circle", "output_mode": "content"}},
            ]})
        )
        .await
    );
    // grep (files) -> read: each file's outline.
    assert_snapshot!(
        "grep_files_read",
        f.run(
            "pipe",
            json!({"steps": [
                {"tool": "grep", "args": {"pattern": "greet\\("}},
                {"tool": "read", "args": {"preview": "none"}},
            ]})
        )
        .await
    );
    // grep (content) -> read: the symbol around each match, each once.
    assert_snapshot!("grep_content_read", f.run("pipe", json!({"steps": [
        {"tool": "grep", "args": {"pattern": "area\\(\\)", "output_mode": "content", "path": "src/shapes.ts"}},
        {"tool": "read", "args": {"preview": "signature"}},
    ]})).await);
    // search -> read: each hit's symbol, in the tier asked.
    assert_snapshot!(
        "search_read",
        f.run(
            "pipe",
            json!({"steps": [
                {"tool": "search", "args": {"query": "totalArea"}},
                {"tool": "read", "args": {"preview": "expanded"}},
            ]})
        )
        .await
    );
    // references -> read: the symbols the references are in, with code.
    assert_snapshot!(
        "references_read",
        f.run(
            "pipe",
            json!({"steps": [
                {"tool": "references", "args": {"file": "src/shapes.ts", "symbol": "Square"}},
                {"tool": "read", "args": {}},
            ]})
        )
        .await
    );
    // search -> references, and three steps: search -> references -> read.
    assert_snapshot!(
        "search_references",
        f.run(
            "pipe",
            json!({"steps": [
                {"tool": "search", "args": {"query": "makeCircle"}},
                {"tool": "references", "args": {}},
            ]})
        )
        .await
    );
    assert_snapshot!(
        "search_references_read",
        f.run(
            "pipe",
            json!({"steps": [
                {"tool": "search", "args": {"query": "greet", "kinds": ["Function"]}},
                {"tool": "references", "args": {"include_declaration": false}},
                {"tool": "read", "args": {"preview": "none"}},
            ]})
        )
        .await
    );
}

#[tokio::test]
async fn a_chain_that_does_not_fit_is_refused_before_it_runs() {
    let f = fixture("ts");
    assert_snapshot!(f.run("pipe", json!({"steps": [
        {"tool": "grep", "args": {"pattern": "x"}},
        {"tool": "references", "args": {}},
    ]})).await, @"error[invalid-params]: step 2: references cannot take what grep gives (files or matching lines); the chains that fit are find -> grep, find -> read, grep -> read, search -> read, search -> references, references -> read");
    assert_snapshot!(f.run("pipe", json!({"steps": [
        {"tool": "read", "args": {"file": "src/index.ts"}},
        {"tool": "grep", "args": {"pattern": "x"}},
    ]})).await, @"error[invalid-params]: step 1: a pipe starts with find, grep, search, references, not read");
    // A writing tool, anywhere: refused, so nothing is written.
    let index = f.read("src/index.ts");
    assert_snapshot!(f.run("pipe", json!({"steps": [
        {"tool": "find", "args": {"pattern": "src/index.ts"}},
        {"tool": "edit", "args": {"old_string": "main", "new_string": "x", "apply": true}},
    ]})).await, @"error[invalid-params]: step 2: edit writes files, and a pipe only reads; call it on its own");
    assert_eq!(f.read("src/index.ts"), index);
    assert_snapshot!(f.run("pipe", json!({"steps": [{"tool": "find", "args": {"pattern": "*"}}]})).await, @"error[invalid-params]: a pipe has 2 to 8 steps, not 1; for one tool, call it directly");
    assert_snapshot!(f.run("pipe", json!({"steps": [
        {"tool": "find", "args": {"pattern": "*"}},
        {"tool": "grepp", "args": {}},
    ]})).await, @"error[unknown-tool]: step 2: no tool named 'grepp'");
    // A step's args that do not fit its tool.
    assert_snapshot!(f.run("pipe", json!({"steps": [
        {"tool": "find", "args": {"pattern": "*"}},
        {"tool": "grep", "args": {"pattern": "x", "head_limit": "many"}},
    ]})).await, @r#"error[invalid-params]: step 2: grep: invalid type: string "many", expected usize; see `sextant grep --help`"#);
    // What the step before supplies may not be given too.
    assert_snapshot!(f.run("pipe", json!({"steps": [
        {"tool": "find", "args": {"pattern": "src/*.ts"}},
        {"tool": "read", "args": {"file": "src/index.ts"}},
    ]})).await, @"error[invalid-params]: step 2: read's `file` comes from the step before it; leave it out of its args");
}

#[tokio::test]
async fn many_answers_are_paged_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    common::generate_monorepo(dir.path(), 4, 40);
    let ctx = common::context(dir.path(), true);
    let steps = json!([
        {"tool": "find", "args": {"pattern": "**/*.ts", "limit": 500}},
        {"tool": "read", "args": {"preview": "expanded"}},
    ]);
    let first = common::run(&ctx, "pipe", json!({"steps": steps})).await;
    let summary = first.split("\n\n").take(2).collect::<Vec<_>>().join("\n\n");
    let next: usize = summary
        .split("pass offset=")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no next offset in:\n{summary}"));
    assert!(
        summary.starts_with("pipe: find: 160 files -> 160 answers\nShowing answers 1-"),
        "{summary}"
    );
    assert!(first.len() < 40_000, "{} characters", first.len());
    let second = common::run(&ctx, "pipe", json!({"steps": steps, "offset": next})).await;
    assert!(
        second.starts_with(&format!(
            "pipe: find: 160 files -> 160 answers\nShowing answers {}-",
            next + 1
        )),
        "{}",
        &second[..200.min(second.len())]
    );
}
