//! Symbol addresses, the one way every position-taking tool is told which
//! symbol it works on: each form, the header line that names what was hit,
//! and an error (with its code and fix) for each bad form.
//!
//! Each test is a table of cases: an address (as a tool takes it) and the
//! header or error line it must give.

mod common;

use common::Expect::Text;
use common::{Fixture, fixture};
use serde_json::{Value, json};
use sextant::tools::address::{Address, resolve};

/// The header an answer would start with, or the error line.
async fn hit(f: &Fixture, address: Value) -> String {
    let address: Address = serde_json::from_value(address).unwrap();
    match resolve(&f.ctx, &address).await {
        Ok(resolved) => sextant::render::target_header("inspect", &resolved.target),
        Err(err) => err
            .to_string()
            .replace(&f.root().display().to_string(), "<root>"),
    }
}

/// Resolves each case's address in `f`, checking them all.
async fn check_all(f: &Fixture, table: Vec<(&str, Value, &'static str)>) {
    let mut cases = common::cases!();
    for (name, address, expected) in table {
        cases.expect(name, &hit(f, address).await, Text(expected));
    }
    cases.finish();
}

#[tokio::test]
async fn each_form_names_what_it_hit() {
    let f = fixture("ts");
    check_all(
        &f,
        vec![
            // line + character, as any @line:char shows it.
            (
                "line_and_character",
                json!({"file": "src/shapes.ts", "line": 49, "character": 3}),
                "inspect Registry.add (Method) at src/shapes.ts:49:3",
            ),
            // Inside the name, or right after it: the same name.
            (
                "inside_the_name",
                json!({"file": "src/shapes.ts", "line": 49, "character": 5}),
                "inspect Registry.add (Method) at src/shapes.ts:49:3",
            ),
            // line + symbol: a wrong column, or none, still finds the name.
            (
                "line_and_symbol_wrong_column",
                json!({"file": "src/shapes.ts", "line": 49, "character": 30, "symbol": "add"}),
                "inspect Registry.add (Method) at src/shapes.ts:49:3",
            ),
            (
                "line_and_symbol",
                json!({"file": "src/index.ts", "line": 7, "symbol": "totalArea"}),
                "inspect totalArea at src/index.ts:7:42",
            ),
            // A name path through the outline.
            (
                "name_path",
                json!({"file": "src/shapes.ts", "symbol": "Registry.add"}),
                "inspect Registry.add (Method) at src/shapes.ts:49:3",
            ),
            // Two classes with a same-name method: each path its own.
            (
                "name_path_circle",
                json!({"file": "src/shapes.ts", "symbol": "Circle.area"}),
                "inspect Circle.area (Method) at src/shapes.ts:23:3",
            ),
            (
                "name_path_square",
                json!({"file": "src/shapes.ts", "symbol": "Square.area"}),
                "inspect Square.area (Method) at src/shapes.ts:33:3",
            ),
            // A use, not a declaration: the identifier alone.
            (
                "a_use",
                json!({"file": "src/index.ts", "line": 6, "character": 12}),
                "inspect add at src/index.ts:6:12",
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn a_position_off_any_identifier_uses_the_nearest_and_says_so() {
    let f = fixture("ts");
    check_all(
        &f,
        vec![
            // On the space before `add(`: the nearest name on the line.
            (
                "before_the_name",
                json!({"file": "src/shapes.ts", "line": 49, "character": 1}),
                "\
inspect Registry.add (Method) at src/shapes.ts:49:3
Note: no identifier at 49:1; used `add` at 49:3, the nearest on that line",
            ),
            // Non-ASCII: characters, not bytes.
            (
                "non_ascii",
                json!({"file": "src/greeting.ts", "line": 3, "character": 14}),
                "inspect japanese (Constant) at src/greeting.ts:3:14",
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn overloads_are_picked_by_index() {
    let f = fixture("ts");
    check_all(
        &f,
        vec![
            // The first, and the way to the others.
            (
                "first_overload",
                json!({"file": "src/shapes.ts", "symbol": "scale"}),
                "\
inspect scale (Function) at src/shapes.ts:63:17
Note: scale has 3 overloads; this is the first, scale[1]; pass scale[2] ... scale[3] for the others",
            ),
            // One by its index.
            (
                "second_overload",
                json!({"file": "src/shapes.ts", "symbol": "scale[2]"}),
                "inspect scale (Function) at src/shapes.ts:64:17",
            ),
            // An index past the last.
            (
                "no_fourth_overload",
                json!({"file": "src/shapes.ts", "symbol": "scale[4]"}),
                "error[not-found]: scale has 3 declarations in src/shapes.ts; pass [1] to [3]",
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn rust_paths_go_through_impl_blocks() {
    let f = fixture("rust");
    check_all(
        &f,
        vec![
            // A trait's method in an impl block.
            (
                "trait_impl_method",
                json!({"file": "src/lib.rs", "symbol": "impl Account for Ledger/balance"}),
                "inspect impl Account for Ledger/balance (Method) at src/lib.rs:43:8",
            ),
            // The trait's own declaration.
            (
                "trait_method",
                json!({"file": "src/lib.rs", "symbol": "Account::balance"}),
                "inspect Account::balance (Method) at src/lib.rs:13:8",
            ),
            // A trait path holding `::`.
            (
                "trait_path_with_colons",
                json!({"file": "src/lib.rs", "symbol": "impl fmt::Display for Ledger/fmt"}),
                "inspect impl fmt::Display for Ledger/fmt (Method) at src/lib.rs:58:8",
            ),
            // A line picks one of the same-name methods.
            (
                "line_and_symbol",
                json!({"file": "src/lib.rs", "line": 43, "symbol": "balance"}),
                "inspect impl Account for Ledger/balance (Method) at src/lib.rs:43:8",
            ),
        ],
    )
    .await;
}

#[tokio::test]
async fn bad_addresses_say_what_to_pass() {
    let f = fixture("ts");
    check_all(
        &f,
        vec![
            // An ambiguous name: every candidate, with its position.
            (
                "ambiguous",
                json!({"file": "src/shapes.ts", "symbol": "area"}),
                "error[ambiguous-match]: `area` matches 4 symbols in src/shapes.ts: @4:3 Method - Shape.area, @11:12 Method - Base.area, @23:3 Method - Circle.area, @33:3 Method - Square.area; pass one of these name paths",
            ),
            // No such symbol: the closest names, never a guess.
            (
                "no_such_symbol",
                json!({"file": "src/shapes.ts", "symbol": "Registy.ad"}),
                "error[not-found]: no symbol `Registy.ad` in src/shapes.ts; the closest names: @49:3 Method - Registry.add",
            ),
            // Past the end.
            (
                "line_past_the_end",
                json!({"file": "src/shapes.ts", "line": 500, "character": 1}),
                "error[out-of-range]: line 500 is past the end of src/shapes.ts (69 lines)",
            ),
            (
                "character_past_the_end",
                json!({"file": "src/shapes.ts", "line": 49, "character": 90}),
                "error[out-of-range]: character 90 is past the end of line 49 of src/shapes.ts (22 characters)",
            ),
            (
                "line_zero",
                json!({"file": "src/shapes.ts", "line": 0, "character": 1}),
                "error[invalid-params]: line counts from 1",
            ),
            // A name that is not on that line.
            (
                "name_not_on_the_line",
                json!({"file": "src/shapes.ts", "line": 49, "symbol": "remove"}),
                "error[not-found]: no `remove` on line 49 of src/shapes.ts; its names are add, item, T, this",
            ),
            // A line with no name at all.
            (
                "line_without_a_name",
                json!({"file": "src/shapes.ts", "line": 52, "character": 1}),
                "error[not-found]: line 52 of src/shapes.ts has no name (keywords, comments and literals name nothing); pass the line of a name",
            ),
            // Not enough to go on.
            (
                "character_alone",
                json!({"file": "src/shapes.ts", "character": 3}),
                "error[invalid-params]: an address needs `line` (with `character` or `symbol`) or `symbol` (a name path such as `Registry.add`) besides `file` src/shapes.ts",
            ),
            (
                "line_alone",
                json!({"file": "src/shapes.ts", "line": 49}),
                "error[invalid-params]: with `line`, pass `character` or `symbol` (the name on that line)",
            ),
            // Files: missing, outside, without an outline.
            (
                "missing_file",
                json!({"file": "src/nothing.ts", "line": 1, "character": 1}),
                "error[not-found]: src/nothing.ts does not exist; check the path (find lists files by glob)",
            ),
            (
                "outside_the_workspace",
                json!({"file": "../outside.ts", "line": 1, "character": 1}),
                "error[outside-root]: ../outside.ts is outside the workspace <root>; pass a path inside it",
            ),
            (
                "no_server",
                json!({"file": "package.json", "line": 1, "character": 1}),
                "error[no-server]: no language server is configured for package.json; add one in sextant.toml ([language.NAME] with command and extensions)",
            ),
        ],
    )
    .await;
}

/// Addresses as an agent writes them: an impl block's member by the
/// type's name alone (an inherent impl's, generics and all, or a trait
/// impl's when only one has it), and a private member with its `#`.
#[tokio::test]
async fn members_as_an_agent_names_them() {
    let rust = common::fixture_with(
        "rust",
        &[(
            "src/store.rs",
            "pub struct Store<S> {\n    items: Vec<S>,\n}\n\nimpl<S: Clone> Store<S> {\n    pub fn first(&self) -> Option<S> {\n        self.items.first().cloned()\n    }\n}\n\nimpl<S> Default for Store<S> {\n    fn default() -> Self {\n        Store { items: Vec::new() }\n    }\n}\n",
        )],
    );
    check_all(
        &rust,
        vec![
            (
                "inherent_by_type_with_colons",
                json!({"file": "src/store.rs", "symbol": "Store::first"}),
                "inspect impl Store<S>/first (Method) at src/store.rs:6:12",
            ),
            (
                "inherent_by_type_with_a_dot",
                json!({"file": "src/store.rs", "symbol": "Store.first"}),
                "inspect impl Store<S>/first (Method) at src/store.rs:6:12",
            ),
            (
                "inherent_by_type_with_a_slash",
                json!({"file": "src/store.rs", "symbol": "Store/first"}),
                "inspect impl Store<S>/first (Method) at src/store.rs:6:12",
            ),
            (
                "a_trait_impls_only_member",
                json!({"file": "src/store.rs", "symbol": "Store::default"}),
                "inspect impl Default for Store<S>/default (Function) at src/store.rs:12:8",
            ),
            (
                "the_type_itself_is_the_struct",
                json!({"file": "src/store.rs", "symbol": "Store"}),
                "inspect Store (Struct) at src/store.rs:1:12",
            ),
            (
                "a_trait_impl_member_only_one_impl_has",
                json!({"file": "src/lib.rs", "symbol": "Ledger::balance"}),
                "inspect impl Account for Ledger/balance (Method) at src/lib.rs:43:8",
            ),
        ],
    )
    .await;
    let ts = common::fixture_with(
        "ts",
        &[(
            "src/counter.ts",
            "export class Counter {\n  #count = 0;\n  bump(): number {\n    return ++this.#count;\n  }\n}\n",
        )],
    );
    check_all(
        &ts,
        vec![
            (
                "a_private_member_on_its_line",
                json!({"file": "src/counter.ts", "line": 2, "symbol": "#count"}),
                "inspect Counter.#count (Property) at src/counter.ts:2:3",
            ),
            (
                "a_private_member_used",
                json!({"file": "src/counter.ts", "line": 4, "symbol": "#count"}),
                "inspect #count at src/counter.ts:4:19",
            ),
            (
                "a_private_member_by_its_path",
                json!({"file": "src/counter.ts", "symbol": "Counter.#count"}),
                "inspect Counter.#count (Property) at src/counter.ts:2:3",
            ),
        ],
    )
    .await;
}

/// CommonJS members, as an agent names them: by the object they are
/// assigned to (`res.send`, `exports.normalizeType`), or by their own name
/// (which may be shared: a `var send = require(…)` beside `res.send`).
#[tokio::test]
async fn commonjs_members_by_their_object() {
    let f = fixture("commonjs");
    check_all(
        &f,
        vec![
            (
                "a_member_of_an_object",
                json!({"file": "lib/response.js", "symbol": "res.send"}),
                "inspect send (Function) at lib/response.js:12:5",
            ),
            (
                "a_member_of_exports",
                json!({"file": "lib/utils.js", "symbol": "exports.normalizeType"}),
                "inspect normalizeType (Function) at lib/utils.js:12:9",
            ),
            (
                "a_member_by_its_name",
                json!({"file": "lib/response.js", "symbol": "json"}),
                "inspect json (Function) at lib/response.js:17:5",
            ),
            (
                "a_member_of_module_exports",
                json!({"file": "lib/send.js", "symbol": "stream"}),
                "inspect stream (Method) at lib/send.js:7:3",
            ),
        ],
    )
    .await;
}
