//! A write's impact: every writing tool's answer ends with the errors and
//! warnings the write introduced and fixed, in the written files and the
//! files that name them, measured by the real servers before and after the
//! write (both TypeScript servers, rust-analyzer with its cargo check), and
//! what a server too slow for the bound left unmeasured (the fake server).

mod common;

use common::{Fixture, TYPESCRIPT_GO, TYPESCRIPT_LANGUAGE_SERVER, fake_server, fixture_with};
use serde_json::{Value, json};

/// The fixture `name` with a bound long enough that a loaded machine's
/// servers always answer within it (the bound itself is the fake server's
/// test), and `keys` added to its configuration.
fn fixture(name: &str, keys: &str) -> Fixture {
    let config = format!("impact_timeout = 120\n{keys}");
    fixture_with(name, &[("sextant.toml", config.as_str())])
}

/// The TypeScript fixture on `server`.
fn typescript(server: &str) -> Fixture {
    fixture(
        "ts",
        &format!("[language.typescript]\nserver = \"{server}\"\n"),
    )
}

/// The answer's impact block (the last block), or what the answer was.
async fn impact(f: &Fixture, tool: &str, args: Value) -> String {
    let answer = f.run(tool, args).await;
    let last = answer.rsplit("\n\n=== next block ===\n\n").next().unwrap();
    assert!(last.starts_with("Impact: "), "no impact in:\n{answer}");
    last.to_string()
}

fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({"path": path, "old_string": old, "new_string": new, "apply": true})
}

const AREA: &str = "return Math.PI * this.radius * this.radius;";

#[tokio::test]
async fn typescript_writes_say_what_they_broke_and_fixed() {
    for server in [TYPESCRIPT_GO, TYPESCRIPT_LANGUAGE_SERVER] {
        let f = typescript(server);
        let source = match server {
            TYPESCRIPT_GO => "ts",
            _ => "typescript",
        };
        // An edit that introduces a type error reports exactly it; the
        // fixture's own errors (src/broken.ts) are there before and after.
        let broke = impact(&f, "edit", edit("src/shapes.ts", AREA, "return \"round\";")).await;
        assert_eq!(
            broke,
            format!(
                "Impact: introduced 1 error (3 files re-checked, 3 from before remain)\n\
                 src/shapes.ts\n  \
                 ✘ @24:5 [Error][2322] Type 'string' is not assignable to type 'number'. ({source})"
            ),
            "{server}"
        );
        let fixed = impact(&f, "edit", edit("src/shapes.ts", "return \"round\";", AREA)).await;
        assert_eq!(
            fixed,
            "Impact: fixed 1 error (3 files re-checked, 3 from before remain)\n\
             Fixed: src/shapes.ts [2322] Type 'string' is not assignable to type 'number'.",
            "{server}"
        );
        // A module's export renamed by hand: its importer breaks.
        let export = edit("src/shapes.ts", "export class Square", "export class Quad");
        let importer = impact(&f, "edit", export).await;
        assert!(
            importer.contains(
                "src/index.ts\n  ✘ @1:28 [Error][2305] Module '\"./shapes\"' has no exported member 'Square'."
            ),
            "{server}: {importer}"
        );
        let back = edit("src/shapes.ts", "export class Quad", "export class Square");
        let mended = impact(&f, "edit", back).await;
        assert!(
            mended.starts_with("Impact: fixed 3 errors (")
                && mended.contains("Fixed: src/index.ts [2305]"),
            "{server}: {mended}"
        );
        // A rename written by the server breaks nothing.
        let renamed = impact(
            &f,
            "rename",
            json!({"file": "src/shapes.ts", "symbol": "Circle", "new_name": "Disc", "apply": true}),
        )
        .await;
        assert!(
            renamed.starts_with("Impact: no new errors or warnings ("),
            "{server}: {renamed}"
        );
        // A new file's errors are all new.
        let created = impact(
            &f,
            "create_file",
            json!({"path": "src/extra.ts", "content": "export const n: number = \"one\";\n"}),
        )
        .await;
        assert_eq!(
            created,
            format!(
                "Impact: introduced 1 error (1 file re-checked)\n\
                 src/extra.ts\n  \
                 ✘ @1:14 [Error][2322] Type 'string' is not assignable to type 'number'. ({source})"
            ),
            "{server}"
        );
        // A previewed edit writes nothing, so has no impact; its patch,
        // applied, has.
        let preview = f
            .run(
                "edit",
                json!({"path": "src/extra.ts", "old_string": "\"one\"", "new_string": "1"}),
            )
            .await;
        assert!(!preview.contains("Impact:"), "{server}: {preview}");
        let applied = impact(&f, "apply_patch", json!({"patch": "p1"})).await;
        assert_eq!(
            applied,
            "Impact: fixed 1 error (1 file re-checked)\n\
             Fixed: src/extra.ts [2322] Type 'string' is not assignable to type 'number'.",
            "{server}"
        );
        // impact: false leaves it out.
        let quiet = f
            .run(
                "edit",
                json!({"path": "src/extra.ts", "old_string": "= 1", "new_string": "= 2", "apply": true, "impact": false}),
            )
            .await;
        assert!(!quiet.contains("Impact:"), "{server}: {quiet}");
    }
}

#[tokio::test]
async fn rust_writes_say_what_cargo_check_and_the_server_found() {
    let f = fixture("rust", "");
    let broke = impact(
        &f,
        "edit",
        edit(
            "src/lib.rs",
            "    pub fn total(&self) -> i64 {",
            "    pub fn total(&self) -> String {",
        ),
    )
    .await;
    // rust-analyzer's own finding and cargo check's, each once.
    assert!(
        broke.starts_with("Impact: introduced 3 errors (")
            && broke.contains("✘ @44:14 [Error][E0308] expected i64, found String (rust-analyzer)")
            && broke.contains("✘ @44:9 [Error][E0308] mismatched types")
            && broke.contains("✘ @38:29 [Error][E0277]"),
        "{broke}"
    );
    let fixed = impact(
        &f,
        "edit",
        edit(
            "src/lib.rs",
            "    pub fn total(&self) -> String {",
            "    pub fn total(&self) -> i64 {",
        ),
    )
    .await;
    assert!(
        fixed.starts_with("Impact: fixed 3 errors (") && !fixed.contains("Note:"),
        "{fixed}"
    );
}

/// A server slower than the bound: what it did not answer in time is
/// named, before the write and after it, with the call that finishes it.
#[tokio::test]
async fn what_a_slow_server_did_not_answer_in_time_is_named() {
    let config = format!(
        "impact_timeout = 1\nauto_install = false\n[language.fake]\ncommand = {:?}\n\
         args = [\"unpublished-for:user.fake\", \"state\"]\nextensions = [\"fake\"]\n",
        fake_server().display().to_string()
    );
    let f = fixture_with(
        "rust",
        &[
            ("sextant.toml", config.as_str()),
            ("shapes.fake", "fn fake() {}\n"),
            ("user.fake", "use shapes;\n"),
            ("state/.keep", ""),
        ],
    );
    // The server started and the file open first: the bound is then all
    // the fake server's to answer in, even on a loaded machine.
    let warm = f.run("diagnostics", json!({"file": "shapes.fake"})).await;
    assert_eq!(warm, "No errors or warnings in shapes.fake");
    let answer = impact(&f, "edit", edit("shapes.fake", "fn fake", "fn faker")).await;
    // The written file was diagnosed before the write (the fake server
    // publishes for what it opens) but never again after it; the file
    // naming it, never.
    assert_eq!(
        answer,
        "Impact: not measured, no file was re-checked\n\
         Note: not compared: user.fake (no diagnostics before the write within 1 s); `diagnostics` checks them\n\
         Note: not compared: shapes.fake (no diagnostics after the write within 1 s); `diagnostics` checks them"
    );
}

#[tokio::test]
async fn python_writes_say_which_importers_they_broke() {
    let f = fixture("python", "");
    let broke = impact(
        &f,
        "edit",
        edit("shapes/geometry.py", "class Square", "class Quad"),
    )
    .await;
    assert!(
        broke.starts_with("Impact: introduced 2 errors (")
            && broke.contains("shapes/__init__.py\n  ✘ ")
            && broke.contains("shapes/report.py\n  ✘ ")
            && broke.contains(
                "[missing-module-member] Module `shapes.geometry` has no member `Square`"
            ),
        "{broke}"
    );
}

/// clangd only publishes: a file including a written header is compared
/// once clangd has published for it again, and one it does not publish
/// for again (a file that names the header's module but does not include
/// it) is named as not re-checked, not taken as unchanged.
#[tokio::test]
async fn c_writes_wait_for_what_the_server_publishes_again() {
    let f = fixture_with("c", &[("sextant.toml", "impact_timeout = 15\n")]);
    let broke = impact(
        &f,
        "edit",
        edit("include/shapes.h", "double total_area(", "double sum_area("),
    )
    .await;
    assert!(
        broke.starts_with("Impact: introduced 1 error (")
            && broke.contains(
                "src/main.c\n  ✘ @5:12 [Error][-Wimplicit-function-declaration] Call to undeclared function 'total_area'"
            ),
        "{broke}"
    );
}

/// A file that names the written module but is in no project is checked
/// with the server's defaults, in whatever project the open files make
/// up: it is named, not compared.
#[tokio::test]
async fn a_file_in_no_project_is_named_not_compared() {
    let config = "impact_timeout = 120\n[language.typescript]\nserver = \"typescript-go\"\n";
    let f = fixture_with(
        "ts",
        &[
            ("sextant.toml", config),
            (
                "scripts/draw.ts",
                "import { Circle } from \"../src/shapes\";\nexport const drawn = new Circle(2);\n",
            ),
        ],
    );
    let answer = impact(&f, "edit", edit("src/shapes.ts", AREA, "return \"round\";")).await;
    assert!(
        answer.starts_with("Impact: introduced 1 error (3 files re-checked")
            && answer.ends_with(
                "Note: not compared: scripts/draw.ts (in no project: checked with the server's defaults, not the project's settings)"
            ),
        "{answer}"
    );
}

/// The search for the files naming a written module is part of the bound:
/// on a tree too large for it, it is cut short and said so.
#[tokio::test]
async fn the_search_for_importers_is_bounded_too() {
    let dir = tempfile::tempdir().unwrap();
    common::generate_monorepo(dir.path(), 10, 100);
    std::fs::write(dir.path().join("sextant.toml"), "impact_timeout = 0.001\n").unwrap();
    let ctx = common::context(dir.path(), false);
    let answer = common::run(
        &ctx,
        "edit",
        edit(
            "packages/p3/src/m20.ts",
            "return this.value * 2;",
            "return this.value * 3;",
        ),
    )
    .await;
    assert!(
        answer.contains(
            "Note: the files naming m20 were not searched within 0.001 s: only the written files are compared; `diagnostics` checks the workspace"
        ),
        "{answer}"
    );
    assert!(
        std::fs::read_to_string(dir.path().join("packages/p3/src/m20.ts"))
            .unwrap()
            .contains("* 3;"),
        "the write stands"
    );
}
