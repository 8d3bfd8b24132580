//! `fix`: the code actions of the real servers listed at a place and taken
//! by number as patches — a missing import added, an interface's members
//! implemented, a match's arms filled, imports organized, a refactor the
//! server runs as a command captured into the patch — and the numbers it
//! refuses (stale, out of range), and a server without code actions.

mod common;

use common::{Fixture, TYPESCRIPT_GO, TYPESCRIPT_LANGUAGE_SERVER, fake_server, fixture_with};
use serde_json::{Value, json};

/// A file of the TypeScript fixture that needs fixing: `scale` used
/// without its import, a class that does not implement its interface, and
/// a function with an expression to extract.
const USES: &str = "import { Circle } from \"./shapes\";\n\
import type { Shape } from \"./shapes\";\n\
export const big = scale(new Circle(1), 2);\n\
export class Sq implements Shape {}\n\
export function f(a: number) { return a * 2 + 1; }\n";

fn typescript(server: &str) -> Fixture {
    let config = format!("[language.typescript]\nserver = \"{server}\"\n");
    fixture_with(
        "ts",
        &[("sextant.toml", config.as_str()), ("src/uses.ts", USES)],
    )
}

fn at(line: u32, character: u32) -> Value {
    json!({"file": "src/uses.ts", "line": line, "character": character})
}

fn taking(mut place: Value, action: usize) -> Value {
    place["action"] = json!(action);
    place
}

/// The number the list gives the action whose title starts with `title`.
fn number_of(list: &str, title: &str) -> usize {
    list.lines()
        .find_map(|line| {
            let (number, rest) = line.split_once(". ")?;
            rest.starts_with(title).then(|| number.parse().ok())?
        })
        .unwrap_or_else(|| panic!("no `{title}` in:\n{list}"))
}

#[tokio::test]
async fn typescript_actions_become_patches() {
    for server in [TYPESCRIPT_GO, TYPESCRIPT_LANGUAGE_SERVER] {
        let f = typescript(server);
        // An unresolved name: the import that resolves it.
        let list = f.run("fix", at(3, 20)).await;
        // An import from there exists: it is updated.
        let title = "Update import from \"./shapes\"";
        assert!(
            list.contains(&format!("{title} (quick fix"))
                && list.contains("fixes [2304] Cannot find name 'scale'.")
                && list.contains("Organize Imports (organize imports, whole file"),
            "{server}: {list}"
        );
        let import = number_of(&list, title);
        let preview = f.run("fix", taking(at(3, 20), import)).await;
        assert!(
            preview.contains(&format!("{title}: "))
                && preview.contains("+import { Circle, scale } from \"./shapes\";")
                && preview.contains("patch: p1"),
            "{server}: {preview}"
        );
        assert_eq!(f.read("src/uses.ts"), USES, "a preview writes nothing");
        let applied = f.run("apply_patch", json!({"patch": "p1"})).await;
        assert!(
            applied.contains("Fixed: src/uses.ts [2304] Cannot find name 'scale'."),
            "{server}: {applied}"
        );
        // An interface's members, written at once (the file's lines moved
        // by one: the import is on line 1 now).
        let list = f.run("fix", at(4, 14)).await;
        let implement = number_of(&list, "Implement interface 'Shape'");
        let mut args = taking(at(4, 14), implement);
        args["apply"] = json!(true);
        let written = f.run("fix", args).await;
        assert!(written.contains(", written"), "{server}: {written}");
        assert!(
            f.read("src/uses.ts").contains("area(): number {"),
            "{server}: {}",
            f.read("src/uses.ts")
        );
        assert!(
            written.contains("Fixed: src/uses.ts [2420]"),
            "{server}: {written}"
        );
    }
}

/// typescript-language-server runs a refactor as a command, which sends
/// the edit back (`workspace/applyEdit`): it lands in the patch, not on
/// disk.
#[tokio::test]
async fn a_refactor_run_as_a_command_is_captured_into_the_patch() {
    let f = typescript(TYPESCRIPT_LANGUAGE_SERVER);
    let list = f.run("fix", at(5, 39)).await;
    let extract = number_of(&list, "Extract to function in module scope");
    let preview = f.run("fix", taking(at(5, 39), extract)).await;
    assert!(
        preview.contains("+export function f(a: number) { return newFunction(a); }")
            && preview.contains("+function newFunction(a: number) {"),
        "{preview}"
    );
    assert_eq!(
        f.read("src/uses.ts"),
        USES,
        "nothing written behind the agent's back"
    );
    // The file's imports organized: an entry of every list.
    let organize = number_of(&list, "Organize Imports");
    let preview = f.run("fix", taking(at(5, 39), organize)).await;
    assert!(
        preview.contains("Organize Imports: ")
            && preview.contains("+import type { Shape } from \"./shapes\";"),
        "{preview}"
    );
}

#[tokio::test]
async fn numbers_that_are_not_the_list_s_are_refused() {
    let f = typescript(TYPESCRIPT_GO);
    let list = f.run("fix", at(4, 14)).await;
    let count = list
        .lines()
        .filter(|l| l.starts_with(char::is_numeric))
        .count();
    let wrong = f.run("fix", taking(at(4, 14), 99)).await;
    assert_eq!(
        wrong,
        format!(
            "error[cannot-fix]: there is no action 99 at src/uses.ts:4:14: typescript-go offers {count} (action: 1 to {count}); list them (leave action out)"
        )
    );
    // The file changed since the list: its numbers name nothing.
    f.run(
        "edit",
        json!({"path": "src/uses.ts", "old_string": "a * 2 + 1", "new_string": "a * 3", "apply": true, "impact": false}),
    )
    .await;
    let stale = f.run("fix", taking(at(4, 14), 1)).await;
    assert_eq!(
        stale,
        "error[cannot-fix]: the code actions at src/uses.ts:4:14 are not those listed: the file or the server's offer changed since; list them again (leave action out)"
    );
    assert!(!f.read("src/uses.ts").contains("area()"));
}

#[tokio::test]
async fn rust_analyzer_fills_a_match_s_arms() {
    let arms = "pub enum Coin {\n    Penny,\n    Dime,\n}\n\npub fn cents(coin: Coin) -> u32 {\n    match coin {}\n}\n";
    let lib = std::fs::read_to_string(common::fixtures_dir().join("rust/src/lib.rs")).unwrap();
    let lib = format!("{lib}pub mod arms;\n");
    let f = fixture_with(
        "rust",
        &[("src/arms.rs", arms), ("src/lib.rs", lib.as_str())],
    );
    let place = json!({"file": "src/arms.rs", "line": 7, "character": 5});
    let list = f.run("fix", place.clone()).await;
    let fill = number_of(&list, "Fill match arms");
    let preview = f.run("fix", taking(place, fill)).await;
    assert!(
        preview.contains("+        Coin::Penny => todo!(),\n+        Coin::Dime => todo!(),"),
        "{preview}"
    );
}

#[tokio::test]
async fn a_server_without_code_actions_answers_unsupported() {
    let config = format!(
        "auto_install = false\n[language.fake]\ncommand = {:?}\nargs = [\"declines\", \"state\"]\nextensions = [\"fake\"]\n",
        fake_server().display().to_string()
    );
    let f = fixture_with(
        "rust",
        &[
            ("sextant.toml", config.as_str()),
            ("main.fake", "fn fake() {}\n"),
            ("state/.keep", ""),
        ],
    );
    let answer = f
        .run(
            "fix",
            json!({"file": "main.fake", "line": 1, "character": 4}),
        )
        .await;
    assert_eq!(
        answer,
        "error[unsupported]: fake_lsp does not support code actions"
    );
}
