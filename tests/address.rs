//! Symbol addresses, the one way every position-taking tool is told which
//! symbol it works on: each form, the header line that names what was hit,
//! and an error (with its code and fix) for each bad form.

mod common;

use common::{Fixture, fixture};
use insta::assert_snapshot;
use sextant::tools::address::{Address, resolve};

/// The header an answer would start with, or the error line.
async fn hit(
    f: &Fixture,
    file: &str,
    line: Option<u32>,
    character: Option<u32>,
    symbol: Option<&str>,
) -> String {
    let address = Address {
        file: file.to_string(),
        line,
        character,
        symbol: symbol.map(str::to_string),
    };
    match resolve(&f.ctx, &address).await {
        Ok(resolved) => sextant::render::target_header("inspect", &resolved.target),
        Err(err) => err
            .to_string()
            .replace(&f.root().display().to_string(), "<root>"),
    }
}

#[tokio::test]
async fn each_form_names_what_it_hit() {
    let f = fixture("ts");
    // line + character, as any @line:char shows it.
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(49), Some(3), None).await, @"inspect Registry.add (Method) at src/shapes.ts:49:3");
    // Inside the name, or right after it: the same name.
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(49), Some(5), None).await, @"inspect Registry.add (Method) at src/shapes.ts:49:3");
    // line + symbol: a wrong column, or none, still finds the name.
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(49), Some(30), Some("add")).await, @"inspect Registry.add (Method) at src/shapes.ts:49:3");
    assert_snapshot!(hit(&f, "src/index.ts", Some(7), None, Some("totalArea")).await, @"inspect totalArea at src/index.ts:7:42");
    // A name path through the outline.
    assert_snapshot!(hit(&f, "src/shapes.ts", None, None, Some("Registry.add")).await, @"inspect Registry.add (Method) at src/shapes.ts:49:3");
    // Two classes with a same-name method: each path its own.
    assert_snapshot!(hit(&f, "src/shapes.ts", None, None, Some("Circle.area")).await, @"inspect Circle.area (Method) at src/shapes.ts:23:3");
    assert_snapshot!(hit(&f, "src/shapes.ts", None, None, Some("Square.area")).await, @"inspect Square.area (Method) at src/shapes.ts:33:3");
    // A use, not a declaration: the identifier alone.
    assert_snapshot!(hit(&f, "src/index.ts", Some(6), Some(12), None).await, @"inspect add at src/index.ts:6:12");
}

#[tokio::test]
async fn a_position_off_any_identifier_uses_the_nearest_and_says_so() {
    let f = fixture("ts");
    // On the space before `add(`: the nearest name on the line.
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(49), Some(1), None).await, @r"
    inspect Registry.add (Method) at src/shapes.ts:49:3
    Note: no identifier at 49:1; used `add` at 49:3, the nearest on that line
    ");
    // Non-ASCII: characters, not bytes.
    assert_snapshot!(hit(&f, "src/greeting.ts", Some(3), Some(14), None).await, @"inspect japanese (Constant) at src/greeting.ts:3:14");
}

#[tokio::test]
async fn overloads_are_picked_by_index() {
    let f = fixture("ts");
    assert_snapshot!(hit(&f, "src/shapes.ts", None, None, Some("scale")).await, @r"
    inspect scale (Function) at src/shapes.ts:63:17
    Note: scale has 3 overloads; this is the first, scale[1]; pass scale[2] ... scale[3] for the others
    ");
    assert_snapshot!(hit(&f, "src/shapes.ts", None, None, Some("scale[2]")).await, @"inspect scale (Function) at src/shapes.ts:64:17");
    assert_snapshot!(hit(&f, "src/shapes.ts", None, None, Some("scale[4]")).await, @"error[not-found]: scale has 3 declarations in src/shapes.ts; pass [1] to [3]");
}

#[tokio::test]
async fn rust_paths_go_through_impl_blocks() {
    let f = fixture("rust");
    assert_snapshot!(hit(&f, "src/lib.rs", None, None, Some("impl Account for Ledger/balance")).await, @"inspect impl Account for Ledger/balance (Method) at src/lib.rs:43:8");
    assert_snapshot!(hit(&f, "src/lib.rs", None, None, Some("Account::balance")).await, @"inspect Account::balance (Method) at src/lib.rs:13:8");
    assert_snapshot!(hit(&f, "src/lib.rs", None, None, Some("impl fmt::Display for Ledger/fmt")).await, @"inspect impl fmt::Display for Ledger/fmt (Method) at src/lib.rs:58:8");
    assert_snapshot!(hit(&f, "src/lib.rs", Some(43), None, Some("balance")).await, @"inspect impl Account for Ledger/balance (Method) at src/lib.rs:43:8");
}

#[tokio::test]
async fn bad_addresses_say_what_to_pass() {
    let f = fixture("ts");
    // An ambiguous name: every candidate, with its position.
    assert_snapshot!(hit(&f, "src/shapes.ts", None, None, Some("area")).await, @"error[ambiguous-match]: `area` matches 4 symbols in src/shapes.ts: @4:3 Method - Shape.area, @11:12 Method - Base.area, @23:3 Method - Circle.area, @33:3 Method - Square.area; pass one of these name paths");
    // No such symbol: the closest names, never a guess.
    assert_snapshot!(hit(&f, "src/shapes.ts", None, None, Some("Registy.ad")).await, @"error[not-found]: no symbol `Registy.ad` in src/shapes.ts; the closest names: @49:3 Method - Registry.add");
    // Past the end.
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(500), Some(1), None).await, @"error[out-of-range]: line 500 is past the end of src/shapes.ts (69 lines)");
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(49), Some(90), None).await, @"error[out-of-range]: character 90 is past the end of line 49 of src/shapes.ts (22 characters)");
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(0), Some(1), None).await, @"error[invalid-params]: line counts from 1");
    // A name that is not on that line.
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(49), None, Some("remove")).await, @"error[not-found]: no `remove` on line 49 of src/shapes.ts; its names are add, item, T, this");
    // A line with no name at all.
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(52), Some(1), None).await, @"error[not-found]: line 52 of src/shapes.ts has no name (keywords, comments and literals name nothing); pass the line of a name");
    // Not enough to go on.
    assert_snapshot!(hit(&f, "src/shapes.ts", None, Some(3), None).await, @"error[invalid-params]: an address needs `line` (with `character` or `symbol`) or `symbol` (a name path such as `Registry.add`) besides `file` src/shapes.ts");
    assert_snapshot!(hit(&f, "src/shapes.ts", Some(49), None, None).await, @"error[invalid-params]: with `line`, pass `character` or `symbol` (the name on that line)");
    // Files: missing, outside, without an outline.
    assert_snapshot!(hit(&f, "src/nothing.ts", Some(1), Some(1), None).await, @"error[not-found]: src/nothing.ts does not exist; check the path (find lists files by glob)");
    assert_snapshot!(hit(&f, "../outside.ts", Some(1), Some(1), None).await, @"error[outside-root]: ../outside.ts is outside the workspace <root>; pass a path inside it");
    assert_snapshot!(hit(&f, "package.json", Some(1), Some(1), None).await, @"error[no-server]: no language server is configured for package.json; add one in sextant.toml ([language.NAME] with command and extensions)");
}
