//! Every project in the workspace, as the project builds it: shapes that
//! ts-sdk and ripgrep do not have, each a fixture of that shape.
//!
//! - `cargo_nested`: a cargo workspace with a workspace of examples and a
//!   standalone tool beside it, both using the root's crate by path.
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
