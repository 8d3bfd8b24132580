//! Go, on the `go` fixture: a module with an interface, structs with
//! same-name methods on value and pointer receivers, grouped constants, a
//! function type, a call chain, standard-library calls, non-ASCII text, a
//! CRLF file and a package with a type error.
//!
//! What tree-sitter gives (outline, signatures, the search index) is
//! tested everywhere. The tools through gopls run where a gopls is found
//! (scripts/test.sh installs Debian's where it can: `go install` needs
//! Go's module proxy); elsewhere they print why they are skipped. Their
//! checks are what any gopls answers alike (counts, positions, the type
//! error), not one version's text.

mod common;

use common::{Fixture, fixture, fixture_with};
use serde_json::{Value, json};

async fn run(f: &Fixture, tool: &str, args: Value) -> String {
    f.run(tool, args).await
}

/// The outline and signatures from tree-sitter: methods at the top level
/// named after their receiver, as gopls names them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outline_comes_from_tree_sitter() {
    let f = fixture("go");
    insta::assert_snapshot!(run(&f, "read", json!({"file": "shapes.go"})).await);
    let crlf = run(
        &f,
        "read",
        json!({"file": "units.go", "preview": "expanded"}),
    )
    .await;
    insta::assert_snapshot!("crlf", crlf);
    // A method is found by its receiver's bare name, pointer or not.
    let scale = run(
        &f,
        "read",
        json!({"file": "shapes.go", "symbol": "Circle.Scale", "preview": "expanded"}),
    )
    .await;
    assert!(
        scale.contains("func (c *Circle) Scale(factor float64) { c.Radius *= factor }"),
        "{scale}"
    );
}

/// Without gopls, search answers from the tree-sitter index and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_gopls_search_answers_from_the_index() {
    let f = fixture_with(
        "go",
        &[(
            "sextant.toml",
            "auto_install = false\n[language.go]\ncommand = \"sextant-no-such-gopls\"\n",
        )],
    );
    insta::assert_snapshot!(run(&f, "search", json!({"query": "Area"})).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_on_gopls() {
    let f = fixture("go");
    if let Some(why) = common::gopls_missing(&f) {
        eprintln!("skipped: {why}");
        return;
    }
    let mut cases = common::cases!();
    let references = run(
        &f,
        "references",
        json!({"file": "report.go", "symbol": "Total"}),
    )
    .await;
    cases.check(
        "references_after_non_ascii",
        references.contains("Found 2 references to Total across 1 file")
            && references.contains("@19:75 in Summarize:"),
        &references,
    );
    let area = run(
        &f,
        "references",
        json!({"file": "shapes.go", "symbol": "Circle.Area"}),
    )
    .await;
    cases.check(
        "references_method_by_receiver",
        area.starts_with("references (Circle).Area (Method) at shapes.go:41:17"),
        &area,
    );
    let search = run(&f, "search", json!({"query": "Summarize"})).await;
    cases.check(
        "search",
        search.contains("@18:6 Function - Summarize"),
        &search,
    );
    let calls = run(
        &f,
        "call_hierarchy",
        json!({"file": "report.go", "symbol": "Total", "direction": "incoming"}),
    )
    .await;
    cases.check(
        "call_hierarchy",
        calls.contains("@18:6 Function - Summarize") && calls.contains("@19:75"),
        &calls,
    );
    let inspect = run(
        &f,
        "inspect",
        json!({"file": "report.go", "symbol": "Summarize"}),
    )
    .await;
    cases.check(
        "inspect",
        inspect.contains("func Summarize(shapes []Shape) string")
            && inspect.contains("Summarize is the total as text.")
            && !inspect.contains("failed"),
        &inspect,
    );
    let rename = run(
        &f,
        "rename",
        json!({"file": "report.go", "symbol": "Total", "new_name": "Sum"}),
    )
    .await;
    cases.check(
        "rename",
        rename.contains("+func Sum(shapes []Shape) float64 {")
            && rename.contains("label, Sum(shapes)))"),
        &rename,
    );
    let diagnostics = run(&f, "diagnostics", json!({})).await;
    cases.check(
        "diagnostics_workspace",
        diagnostics.starts_with("1 error in 1 file")
            && diagnostics.contains("✘ @7:9 [Error]")
            && diagnostics.contains("broken/broken.go (1 error)"),
        &diagnostics,
    );
    cases.finish();
}
