//! Rust as cargo builds it, on the `cargo_features` fixture: a workspace
//! whose `ledger` has a test crate gated by a feature only `app` turns on
//! (`#![cfg(feature = "audit")]`), an example with `required-features`
//! nobody turns on, a `macro_rules!` and a `#[cfg(windows)]` function
//! calling `Entry::amount`, and a derive
//! macro (`describe`) whose `quote!` output calls the type's `label`.
//! What `diagnostics` says is held to `cargo check --workspace
//! --all-targets` (and what neither checks is named), and every applied
//! rename to the same check after it.
//!
//! rust-analyzer must be installed (scripts/test.sh does it).

mod common;

use std::path::Path;

use serde_json::json;

/// `cargo check --workspace --all-targets` in `root`: its errors and
/// warnings, one per line.
fn cargo_check(root: &Path) -> String {
    common::cargo_check(root, &["--workspace", "--all-targets"])
}

const MOVED_WHILE_BORROWED: &str = "
#[test]
fn moved_while_borrowed() {
    let entries = vec![Entry::new(1)];
    let first = &entries[0];
    drop(entries);
    assert_eq!(first.amount(), 1);
}
";

/// A borrow error in the test crate gated by `audit`: cargo's build of the
/// workspace has the feature (app asks for it), so it reports the error.
/// Checked as the saved file's target alone (`cargo check -p ledger
/// --test audit`, the package's own features) the crate is empty, and the
/// error would never be reported: the check is asked for the workspace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_test_crate_gated_by_a_feature_another_member_turns_on_is_checked() {
    let gated = std::fs::read_to_string(
        common::fixtures_dir().join("cargo_features/ledger/tests/audit.rs"),
    )
    .unwrap();
    let gated = format!("{gated}{MOVED_WHILE_BORROWED}");
    let f = common::fixture_with(
        "cargo_features",
        &[
            ("ledger/tests/audit.rs", &gated),
            // No `mod` declares it: nothing checks it.
            ("ledger/src/orphan.rs", "pub fn orphan() -> u8 { 1 }\n"),
        ],
    );
    let cargo = cargo_check(f.root());
    assert_eq!(
        cargo,
        "ledger/tests/audit.rs:15:10: error[E0505]: cannot move out of `entries` because it is borrowed: move out of `entries` occurs here"
    );
    let file = f
        .run("diagnostics", json!({"file": "ledger/tests/audit.rs"}))
        .await;
    assert!(
        file.starts_with("1 error in 1 file")
            && file.contains("@15:10 [Error][E0505] cannot move out of `entries`"),
        "{file}"
    );
    // The whole workspace: the same one error, the example the build
    // leaves out counted apart, and the file nothing checks named.
    let workspace = f.run("diagnostics", json!({})).await;
    assert!(
        workspace.starts_with("1 error in 1 file (6 checked)")
            && workspace.contains("ledger/tests/audit.rs (1 error)")
            && workspace.contains("are not counted: ledger/examples/secure.rs")
            && workspace.contains("Note: 1 file is in none of the server's projects, so nothing checked it: ledger/src (1)"),
        "{workspace}"
    );
}

/// A rename whose uses are all the server's (the feature-gated test crate
/// and the example the build leaves out among them) is written, and the
/// workspace builds as before (one whose name code built on Unix calls
/// from the standard library among them); renames that would leave uses in a
/// `macro_rules!` body, in code built only on Windows, or in a derive
/// macro's `quote!` output name them and are not written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renames_are_whole_or_say_what_they_leave() {
    let f = common::fixture("cargo_features");
    let before = cargo_check(f.root());
    assert_eq!(before, "");
    let why = "(rust-analyzer does not see a name in a macro's rules (`macro_rules!`) or in macro input it cannot expand)";
    let mut cases = common::cases!();

    let amount = json!({"file": "ledger/src/lib.rs", "symbol": "Entry::amount", "new_name": "value", "apply": true});
    let refused = f.run("rename", amount).await;
    cases.check(
        "a method called in a macro_rules! body and in Windows-only code",
        refused.contains(&format!("`amount` also appears in macro bodies in 1 place in 1 file that the server did not rename {why}: ledger/src/lib.rs @24; check them"))
            && refused.contains("`amount` also appears in conditional code in 1 place in 1 file that the server did not rename (rust-analyzer does not analyse code under a `#[cfg]` that is off in its build: another OS, a feature that is off): ledger/src/lib.rs @41; check them")
            && refused.starts_with("error[cannot-rename]: nothing was written")
            && f.read("ledger/src/lib.rs").contains("fn amount("),
        &refused,
    );
    let label = json!({"file": "app/src/main.rs", "symbol": "Account::label", "new_name": "title", "apply": true});
    let refused = f.run("rename", label).await;
    cases.check(
        "a method called by a derive macro's output",
        refused.contains(&format!("`label` also appears in macro bodies in 1 place in 1 file that the server did not rename {why}: derive/src/lib.rs @14; check them"))
            && f.read("app/src/main.rs").contains("fn label("),
        &refused,
    );
    // `std::process::id()` in code built on Unix is the standard
    // library's `id`: the server tells it apart, nothing is left.
    let id =
        json!({"file": "ledger/src/lib.rs", "symbol": "id", "new_name": "number", "apply": true});
    let written = f.run("rename", id).await;
    cases.check(
        "a function whose name conditional code calls from another crate",
        written.contains("Renamed 'id' -> 'number': 1 change across 1 file, written")
            && !written.contains("conditional code")
            && f.read("ledger/src/lib.rs")
                .contains("    std::process::id()\n"),
        &written,
    );
    let new = json!({"file": "ledger/src/lib.rs", "symbol": "Entry::new", "new_name": "make", "apply": true});
    let written = f.run("rename", new).await;
    cases.check(
        "a function used in a gated test crate and an unbuilt example",
        written.contains("Renamed 'new' -> 'make': 9 changes across 5 files, written")
            && f.read("ledger/tests/audit.rs").contains("Entry::make(5)")
            && f.read("ledger/examples/secure.rs")
                .contains("Entry::make(1)"),
        &written,
    );
    cases.check_eq(
        "the workspace builds after it",
        cargo_check(f.root()),
        before,
    );
    cases.finish();
}

/// Two sessions on one workspace give the same references, once the
/// server is done indexing; code cargo builds but Miri would not
/// (`#[cfg(not(miri))]`, which rust-analyzer's own defaults leave
/// inactive) among them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn references_are_the_same_in_every_session() {
    let f = common::fixture("cargo_features");
    let at = json!({"file": "ledger/src/lib.rs", "symbol": "Entry::new"});
    let first = f.run("references", at.clone()).await;
    assert!(
        first.contains("Found 9 references to new across 5 files"),
        "{first}"
    );
    let other = common::context(f.root(), false);
    let second = common::run(&other, "references", at).await;
    assert_eq!(first, second);
}

/// rust-analyzer places a function a macro wrote (as Rust's core writes
/// its iterators' methods) at the macro's invocation, where the name is not
/// written: the call tree says which macro made it there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callee_a_macro_made_is_said_to_be() {
    let f = common::fixture("cargo_features");
    let calls = f
        .run(
            "call_hierarchy",
            json!({"file": "ledger/src/lib.rs", "symbol": "starts_at", "direction": "outgoing"}),
        )
        .await;
    let invocation = f
        .read("ledger/src/lib.rs")
        .lines()
        .position(|l| l == "zero_fn!();")
        .unwrap()
        + 1;
    assert!(
        calls.contains(&format!(
            "@{invocation}:1 Function - zero (made by zero_fn! here)\n    @"
        )),
        "{calls}"
    );
}
