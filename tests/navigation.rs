//! The navigation tools on the real servers: `inspect`, `references`,
//! `call_hierarchy` and `completion` on the TypeScript fixture (TypeScript
//! 7's server, with a scoped package in pnpm's layout under node_modules)
//! and on the Rust crate (rust-analyzer, into a crate of the cargo registry
//! and the toolchain's sources), and each way they can go wrong.
//!
//! Paths outside the workspace differ between machines; they are shown as
//! `<tools>` (sextant's tools folder, where TypeScript's `lib.d.ts` is),
//! `<registry>` and `<sysroot>`.

mod common;

use std::path::Path;

use common::Expect::{Snapshot, Text};
use common::{Fixture, fixture, fixture_with};
use serde_json::{Value, json};

/// The scoped package the TypeScript tests install: pnpm's layout, the
/// package in `.pnpm/` and a symlink to it.
const PACKAGE: &str = "node_modules/.pnpm/@acme+geometry@1.2.0/node_modules/@acme/geometry";

const PACKAGE_TYPES: &str = "\
/** A point in the plane. */
export interface Point {
  readonly x: number;
  readonly y: number;
}

/** The distance between two points, in their unit. */
export declare function distance(a: Point, b: Point): number;
";

const GEOMETRY_TS: &str = "\
import { distance, type Point } from \"@acme/geometry\";

/** From the first point to the last. */
export function span(points: Point[]): number {
  return points.length < 2 ? 0 : distance(points[0], points[points.length - 1]);
}

export const origin: Point = { x: 0, y: 0 };
";

/// The TypeScript fixture with `@acme/geometry` installed and a module
/// using it.
fn typescript() -> Fixture {
    let f = fixture_with(
        "ts",
        &[
            (
                &format!("{PACKAGE}/package.json"),
                "{\"name\": \"@acme/geometry\", \"version\": \"1.2.0\", \"types\": \"index.d.ts\"}\n",
            ),
            (&format!("{PACKAGE}/index.d.ts"), PACKAGE_TYPES),
            ("src/geometry.ts", GEOMETRY_TS),
        ],
    );
    std::fs::create_dir_all(f.path("node_modules/@acme")).unwrap();
    std::os::unix::fs::symlink(
        "../.pnpm/@acme+geometry@1.2.0/node_modules/@acme/geometry",
        f.path("node_modules/@acme/geometry"),
    )
    .unwrap();
    f
}

/// Runs a tool, with machine-specific folders named.
async fn run(f: &Fixture, tool: &str, args: Value) -> String {
    let mut out = f.run(tool, args).await;
    let tools = f.ctx.lsp.config().tools_dir.display().to_string();
    out = out.replace(&tools, "<tools>");
    for (folder, name) in [(registry_src(), "<registry>"), (sysroot(), "<sysroot>")] {
        if let Some(folder) = folder {
            out = out.replace(&folder, name);
        }
    }
    out
}

/// The cargo registry's source folder (`~/.cargo/registry/src/<index>`).
fn registry_src() -> Option<String> {
    let home = std::env::var("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| Path::new(&std::env::var("HOME").unwrap()).join(".cargo"));
    let entry = std::fs::read_dir(home.join("registry/src")).ok()?.next()?;
    let path = entry.ok()?.path();
    Some(path.canonicalize().unwrap_or(path).display().to_string())
}

fn sysroot() -> Option<String> {
    let out = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .ok()?;
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

/// The `file`, `line` and `character` of an answer's `Definition:` line.
fn definition_location(answer: &str) -> Option<(String, u32, u32)> {
    let line = answer.lines().find(|l| l.starts_with("Definition: "))?;
    let location = line["Definition: ".len()..].split(' ').next()?;
    let mut parts = location.rsplitn(3, ':');
    let character = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?.to_string();
    Some((file, line, character))
}

#[tokio::test]
async fn inspect_typescript() {
    let f = typescript();
    let mut cases = common::cases!();
    for (name, args, expect) in [
        // A local method: hover, definition, the class its `this` returns.
        (
            "ts_inspect_method",
            json!({"file": "src/shapes.ts", "symbol": "Registry.add"}),
            Snapshot,
        ),
        // An interface and an abstract method, two implementations each.
        (
            "ts_inspect_interface",
            json!({"file": "src/shapes.ts", "symbol": "Shape"}),
            Snapshot,
        ),
        (
            "ts_inspect_abstract_method",
            json!({"file": "src/shapes.ts", "symbol": "Base.area"}),
            Snapshot,
        ),
        // A use whose definition is in a scoped package under pnpm's store.
        (
            "ts_inspect_into_node_modules",
            json!({"file": "src/geometry.ts", "line": 5, "symbol": "distance"}),
            Snapshot,
        ),
        // TypeScript's own declarations are outside every root: shown by
        // absolute path, and marked.
        (
            "ts_inspect_outside",
            json!({"file": "src/shapes.ts", "line": 47, "symbol": "Map"}),
            Snapshot,
        ),
        // A keyword is not a name: the nearest name is used, and said.
        (
            "ts_inspect_keyword",
            json!({"file": "src/shapes.ts", "line": 65, "character": 3}),
            Text(
                "\
inspect scale (Function) at src/shapes.ts:65:17
Note: `export` at 65:1 is a keyword; used `scale` at 65:17, the nearest name on that line

```typescript
function scale(shape: Shape, factor: number): Shape
```

Definitions (3):
  src/shapes.ts:63:17 `export function scale(shape: Circle, factor: number): Circle;`
  src/shapes.ts:64:17 `export function scale(shape: Square, factor: number): Square;`
  src/shapes.ts:65:17 `export function scale(shape: Shape, factor: number): Shape {`",
            ),
        ),
    ] {
        cases.expect(name, &run(&f, "inspect", args).await, expect);
    }
    // The short name the definition in node_modules shows can be passed
    // straight back: to inspect, at its line and character, and to read.
    let into_package = cases
        .answer("ts_inspect_into_node_modules")
        .unwrap_or_default();
    match definition_location(&into_package) {
        None => cases.fail(
            "ts_definition_location",
            format_args!("no `Definition:` line; the steps on it did not run:\n{into_package}"),
        ),
        Some((file, line, character)) => {
            cases.check(
                "ts_definition_location",
                // The package and version, then the path in it.
                file == "@acme/geometry@1.2.0:index.d.ts",
                &file,
            );
            let again = run(
                &f,
                "inspect",
                json!({"file": file, "line": line, "character": character}),
            )
            .await;
            cases.check(
                "ts_inspect_at_the_definition",
                again.starts_with(&format!(
                    "inspect distance (Function) at {file}:{line}:{character}"
                )),
                &again,
            );
            let outline = run(&f, "read", json!({"file": file})).await;
            cases.check(
                "ts_read_the_definition_file",
                outline.contains("Function - distance"),
                &outline,
            );
        }
    }
    cases.finish();
}

#[tokio::test]
async fn references_typescript() {
    let f = typescript();
    let mut cases = common::cases!();
    for (name, args) in [
        // Across files; enclosing symbols: a function with overloads, an
        // arrow function assigned to a constant, a free function; the
        // declaration's file first.
        (
            "ts_references_class",
            json!({"file": "src/index.ts", "line": 6, "symbol": "Circle"}),
        ),
        // Inside methods.
        (
            "ts_references_method",
            json!({"file": "src/shapes.ts", "symbol": "Circle.area"}),
        ),
        // With context lines, paged, and the next page without the
        // declaration.
        (
            "ts_references_context_paged",
            json!({"file": "src/shapes.ts", "symbol": "Circle", "context": 1, "limit": 3}),
        ),
        (
            "ts_references_second_page",
            json!({"file": "src/shapes.ts", "symbol": "Circle", "offset": 3, "limit": 3, "include_declaration": false}),
        ),
        // Into a .d.ts: its declaration is in a library file, left out
        // unless asked for.
        (
            "ts_references_into_dts",
            json!({"file": "src/geometry.ts", "line": 5, "symbol": "distance"}),
        ),
        (
            "ts_references_into_dts_external",
            json!({"file": "src/geometry.ts", "line": 5, "symbol": "distance", "include_external": true}),
        ),
        // Out of a .d.ts: from the package's declaration to the workspace's
        // uses.
        (
            "ts_references_out_of_dts",
            json!({"file": format!("{PACKAGE}/index.d.ts"), "symbol": "Point"}),
        ),
    ] {
        cases.expect(name, &run(&f, "references", args).await, Snapshot);
    }
    cases.finish();
}

#[tokio::test]
async fn call_hierarchy_and_completion_typescript() {
    let f = typescript();
    let mut cases = common::cases!();
    for (name, tool, args) in [
        // Who calls a method.
        (
            "ts_calls_incoming",
            "call_hierarchy",
            json!({"file": "src/shapes.ts", "symbol": "Circle.area", "direction": "incoming"}),
        ),
        // Both directions (outgoing into lib.d.ts too), two levels.
        (
            "ts_calls_both_depth_2",
            "call_hierarchy",
            json!({"file": "src/shapes.ts", "symbol": "Registry.totalArea", "depth": 2}),
        ),
        // A function reached from two places is expanded once.
        (
            "ts_calls_outgoing_depth_2",
            "call_hierarchy",
            json!({"file": "src/index.ts", "symbol": "main", "direction": "outgoing", "depth": 2}),
        ),
        // After `registry.`: the methods of Registry, with their signatures
        // (TypeScript 7's server gives them only when each item is resolved).
        (
            "ts_completion_members",
            "completion",
            json!({"file": "src/index.ts", "line": 6, "character": 12}),
        ),
    ] {
        cases.expect(name, &run(&f, tool, args).await, Snapshot);
    }
    // Completion item kinds, not symbol kinds (where 2 would read Module):
    // Functions, Keywords, and Modules only for namespaces.
    let scope = run(
        &f,
        "completion",
        json!({"file": "src/index.ts", "line": 6, "character": 3, "limit": 5000}),
    )
    .await;
    cases.check(
        "ts_completion_functions",
        scope.contains("\n\nFunctions (") && scope.contains("\n  main"),
        &scope,
    );
    cases.check(
        "ts_completion_keywords",
        scope.contains("\n\nKeywords (") && scope.contains("\n  const"),
        &scope,
    );
    match scope.split("\n\nModules (").nth(1) {
        None => cases.fail(
            "ts_completion_modules",
            format_args!("no namespaces in:\n{scope}"),
        ),
        Some(modules) => {
            let modules = modules.split("\n\n").next().unwrap();
            cases.check(
                "ts_completion_modules",
                modules.contains("\n  Intl") && !modules.contains("main"),
                modules,
            );
        }
    }
    let members = cases.answer("ts_completion_members").unwrap_or_default();
    cases.check(
        "ts_completion_members_are_methods",
        members.contains("\n\nMethods (3)\n"),
        &members,
    );
    // TypeScript's own lib file, shown by its short name in the call tree
    // (outside every root), reads back by that name.
    let lib = run(
        &f,
        "read",
        json!({"file": "typescript:lib.es5.d.ts", "symbol": "Array.reduce", "preview": "none"}),
    )
    .await;
    cases.check(
        "ts_lib_file_reads_back",
        lib.starts_with("Found 3 symbols under Array.reduce in file: typescript:lib.es5.d.ts\n"),
        &lib,
    );
    // A session never shown one has no TypeScript lib folder to read it
    // from (the fixture has no node_modules/typescript): a clear error.
    let fresh = typescript();
    cases.check_text(
        "ts_lib_file_unknown",
        &run(&fresh, "read", json!({"file": "typescript:lib.es5.d.ts"})).await,
        "error[not-found]: typescript:lib.es5.d.ts: no library typescript: is found here (a name as answers show it: NAME@VERSION:PATH, std:PATH, typescript:FILE)",
    );
    cases.finish();
}

#[tokio::test]
async fn navigation_rust() {
    let f = fixture("rust");
    let mut cases = common::cases!();
    for (name, tool, args) in [
        // Into a crate of the registry, with its docs.
        (
            "rust_inspect_registry",
            "inspect",
            json!({"file": "src/report.rs", "line": 7, "symbol": "levenshtein"}),
        ),
        // A trait method implemented twice.
        (
            "rust_inspect_trait_method",
            "inspect",
            json!({"file": "src/lib.rs", "symbol": "Account::balance"}),
        ),
        // References in impl-block methods and across modules.
        (
            "rust_references_struct",
            "references",
            json!({"file": "src/lib.rs", "symbol": "Ledger"}),
        ),
        (
            "rust_references_function",
            "references",
            json!({"file": "src/report.rs", "symbol": "summary"}),
        ),
        // Who calls `impl Ledger/total`, two levels up, and what it calls
        // (the standard library, shown but not followed).
        (
            "rust_calls_depth_2",
            "call_hierarchy",
            json!({"file": "src/lib.rs", "symbol": "impl Ledger/total", "depth": 2}),
        ),
    ] {
        cases.expect(name, &run(&f, tool, args).await, Snapshot);
    }
    // After `value.`: methods, as rust-analyzer kinds them, with their docs.
    let members = run(
        &f,
        "completion",
        json!({"file": "src/report.rs", "line": 14, "character": 35}),
    )
    .await;
    cases.check(
        "rust_completion_methods",
        members.contains("\n\nMethods (") && members.contains("\n  total - fn(&self) -> i64"),
        &members,
    );
    cases.check(
        "rust_completion_docs",
        members.contains("\n  balance - fn(&self) -> i64\n    The balance in cents."),
        &members,
    );
    cases.finish();
}

#[tokio::test]
async fn what_goes_wrong_is_said() {
    let f = typescript();
    let mut cases = common::cases!();
    for (name, tool, args, expected) in [
        // A comment holds no name.
        (
            "in_a_comment",
            "references",
            json!({"file": "src/paths.ts", "line": 4, "character": 30}),
            "error[not-found]: `C` at 4:29 is in a comment, and line 4 of src/paths.ts has no name (keywords, comments and literals name nothing); pass the line of a name",
        ),
        // A name in a literal is not the name.
        (
            "in_a_literal",
            "inspect",
            json!({"file": "src/paths.ts", "line": 2, "symbol": "ts"}),
            "error[not-found]: no `ts` on line 2 of src/paths.ts; its names are tsFile",
        ),
        // A file of a language without a server.
        (
            "no_server",
            "inspect",
            json!({"file": "package.json", "line": 2, "character": 4}),
            "error[no-server]: no language server is configured for package.json; add one in sextant.toml ([language.NAME] with command and extensions)",
        ),
        // Bad parameters.
        (
            "depth_too_deep",
            "call_hierarchy",
            json!({"file": "src/index.ts", "symbol": "main", "depth": 4}),
            "error[invalid-params]: depth is 1, 2 or 3, not 4",
        ),
        (
            "too_much_context",
            "references",
            json!({"file": "src/index.ts", "symbol": "main", "context": 11}),
            "error[invalid-params]: context is at most 10 lines",
        ),
        (
            "offset_past_the_end",
            "references",
            json!({"file": "src/index.ts", "symbol": "main", "offset": 9}),
            "error[out-of-range]: offset 9 is past the last reference (1 in all)",
        ),
        (
            "unknown_parameter",
            "inspect",
            json!({"file": "src/index.ts", "symbol": "main", "colour": 1}),
            "error[invalid-params]: inspect: unknown field `colour`, expected one of `character`, `file`, `line`, `offset`, `symbol`; see the parameters with `sextant inspect --help`",
        ),
        (
            "line_past_the_end",
            "completion",
            json!({"file": "src/index.ts", "line": 40, "character": 1}),
            "error[out-of-range]: line 40 is past the end of src/index.ts (8 lines)",
        ),
        (
            "character_past_the_end",
            "completion",
            json!({"file": "src/index.ts", "line": 6, "character": 70}),
            "error[out-of-range]: character 70 is past the end of line 6 of src/index.ts (59 characters; the cursor may stand at 60)",
        ),
        // Not something with calls.
        (
            "no_calls",
            "call_hierarchy",
            json!({"file": "src/shapes.ts", "symbol": "Unit"}),
            "error[not-found]: typescript-go has no call hierarchy for `Unit` at src/shapes.ts:38:13: it is not a function, method or constructor it knows; pass the name of one",
        ),
        // A name that resolves to nothing: said, not silent.
        (
            "unresolved_name",
            "inspect",
            json!({"file": "src/broken.ts", "line": 7, "symbol": "missingName"}),
            "\
inspect missingName at src/broken.ts:7:31

```typescript
any
```

Note: typescript-go finds no definition of `missingName`: a name that does not resolve? (`diagnostics` says)",
        ),
    ] {
        cases.expect(name, &run(&f, tool, args).await, Text(expected));
    }
    cases.finish();
}

/// A server without the navigation requests: `unsupported`, naming it.
#[tokio::test]
async fn a_server_without_the_request_says_unsupported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.fake"), "fn fake() {}\n").unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(
        dir.path().join("sextant.toml"),
        format!(
            "auto_install = false\n[language.fake]\ncommand = {:?}\nargs = [\"normal\", {:?}]\nextensions = [\"fake\"]\n",
            common::fake_server().display().to_string(),
            state.display().to_string()
        ),
    )
    .unwrap();
    let ctx = common::context(dir.path(), false);
    let at = json!({"file": "main.fake", "symbol": "fake"});
    let mut cases = common::cases!();
    for (tool, args, expected) in [
        (
            "references",
            at.clone(),
            "error[unsupported]: fake_lsp does not support find references",
        ),
        (
            "call_hierarchy",
            at.clone(),
            "error[unsupported]: fake_lsp does not support call hierarchy",
        ),
        (
            "inspect",
            at,
            "error[unsupported]: fake_lsp does not support hover, go to definition, go to type definition or go to implementation",
        ),
        (
            "completion",
            json!({"file": "main.fake", "line": 1, "character": 4}),
            "error[unsupported]: fake_lsp does not support completion",
        ),
    ] {
        cases.expect(tool, &common::run(&ctx, tool, args).await, Text(expected));
    }
    cases.finish();
}

/// typescript-language-server, asked first thing after it starts: it hands
/// a new document to tsserver in a later batch, so an early answer would
/// see one file; sextant waits for the project.
#[tokio::test]
async fn typescript_language_server_answers_from_the_whole_project() {
    let f = common::fixture_on("ts", common::TYPESCRIPT_LANGUAGE_SERVER);
    let mut cases = common::cases!();
    // References: what typescript-go answers.
    let references = run(
        &f,
        "references",
        json!({"file": "src/shapes.ts", "symbol": "Circle"}),
    )
    .await;
    let on_typescript_go = run(
        &typescript(),
        "references",
        json!({"file": "src/shapes.ts", "symbol": "Circle"}),
    )
    .await;
    cases.check_text("tsls_references", &references, &on_typescript_go);
    // Completion, the first request of a fresh workspace: Registry's
    // methods.
    let g = common::fixture_on("ts", common::TYPESCRIPT_LANGUAGE_SERVER);
    let members = run(
        &g,
        "completion",
        json!({"file": "src/index.ts", "line": 6, "character": 12}),
    )
    .await;
    cases.expect(
        "tsls_completion_members",
        &members,
        Text(
            "\
completion at src/index.ts:6:12: 3 items

Methods (3)
  add - (method) Registry<Shape>.add(item: Shape): Registry<Shape>
  get - (method) Registry<Shape>.get(name: string): Shape | undefined
  totalArea - (method) Registry<Shape>.totalArea(): number",
        ),
    );
    // Who calls Circle.area.
    let calls = run(
        &f,
        "call_hierarchy",
        json!({"file": "src/shapes.ts", "symbol": "Circle.area"}),
    )
    .await;
    cases.check(
        "tsls_calls_incoming",
        calls.contains("@58:3 Method - Registry.totalArea"),
        &calls,
    );
    cases.finish();
}

/// A call from a file's top level comes from its module, which TypeScript
/// 7's server names by its absolute path and typescript-language-server by
/// its file name: on both, the caller is shown as the file's top level, the
/// file named once, by the block.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_from_a_files_top_level_names_the_file_once() {
    for server in [common::TYPESCRIPT_GO, common::TYPESCRIPT_LANGUAGE_SERVER] {
        let f = common::fixture_on_with(
            "ts",
            server,
            &[(
                "src/boot.ts",
                "import { makeCircle } from \"./shapes\";\n\nmakeCircle(1);\n",
            )],
        );
        let calls = run(
            &f,
            "call_hierarchy",
            json!({"file": "src/shapes.ts", "symbol": "makeCircle", "direction": "incoming"}),
        )
        .await;
        assert_eq!(
            calls,
            "call_hierarchy makeCircle (Constant) at src/shapes.ts:69:14\n\
             Incoming calls: 1 caller in 1 file\n\n=== next block ===\n\n\
             Incoming calls in src/boot.ts\n  @1:1 Module - (top level)\n    @3:1 `makeCircle(1);`",
            "{server}"
        );
    }
}

/// Completing inside a member access that is called (`c.|json(c.env)`):
/// every property keeps its own type on both TypeScript servers (TypeScript
/// 7's server, asked in the file itself, gives each the call's type), and
/// the copy sextant completes in leaves no trace in diagnostics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_inside_a_called_member_gives_each_member_its_own_type() {
    const CONTEXT: &str = "\
export interface Context {
  env: Record<string, string>;
  json(object: unknown): string;
}

export function handle(c: Context): string {
  return c.json(c.env);
}
";
    const EXPECTED: &str = "\
completion at src/context.ts:7:{character}: 2 items

Fields (1)
  env - (property) Context.env: Record<string, string>

Methods (1)
  json - (method) Context.json(object: unknown): string";
    let mut cases = common::cases!();
    for server in [common::TYPESCRIPT_GO, common::TYPESCRIPT_LANGUAGE_SERVER] {
        let f = common::fixture_on_with("ts", server, &[("src/context.ts", CONTEXT)]);
        // Before the name, within it, after it.
        for character in [12, 14, 16] {
            let answer = run(
                &f,
                "completion",
                json!({"file": "src/context.ts", "line": 7, "character": character}),
            )
            .await;
            let expected = EXPECTED.replace("{character}", &character.to_string());
            cases.check_text(&format!("{server}_at_{character}"), &answer, &expected);
        }
        let diagnostics = run(&f, "diagnostics", json!({})).await;
        cases.check(
            &format!("{server}_no_copy_in_diagnostics"),
            !diagnostics.contains("sextant-completion"),
            &diagnostics,
        );
    }
    cases.finish();
}

/// Implementations are the places that declare one: TypeScript 7's server
/// also lists an annotation that names the class (`Array<Registry>`) and a
/// function expression typed by it; those are left out, and the answer
/// says how many.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn implementations_are_declarations_only() {
    const MORE: &str = "import { Registry } from \"./shapes\";\n\nexport class BigRegistry extends Registry {}\n\n\
                        export const registries: Array<Registry> = [];\n\nexport function makeRegistry(): () => Registry {\n  \
                        return () => {\n    return new Registry();\n  };\n}\n";
    let mut cases = common::cases!();
    for server in [common::TYPESCRIPT_GO, common::TYPESCRIPT_LANGUAGE_SERVER] {
        let f = common::fixture_on_with("ts", server, &[("src/more.ts", MORE)]);
        let answer = f
            .run(
                "inspect",
                json!({"file": "src/shapes.ts", "symbol": "Registry"}),
            )
            .await;
        let listed: Vec<&str> = answer
            .lines()
            .filter(|line| line.contains("src/more.ts:") && !line.starts_with("Note:"))
            .collect();
        cases.check(
            server,
            answer.contains(
                "Implementation: src/more.ts:3:14 `export class BigRegistry extends Registry {}`",
            ) && listed.len() == 1,
            &answer,
        );
    }
    // A derive declares implementations too (rust-analyzer lists each).
    let rust = common::fixture("rust");
    let ledger = rust
        .run("inspect", json!({"file": "src/lib.rs", "symbol": "Ledger"}))
        .await;
    cases.check(
        "rust-analyzer: derives",
        ledger.contains(
            "Implementations (6):\n  src/lib.rs:21:10 `#[derive(Debug, Clone, Default)]`",
        ) && !ledger.contains("Note:"),
        &ledger,
    );
    cases.finish();
}

/// A definition that stops at an import of the name (the module it comes
/// from is not resolved: not installed, or not loaded yet) is not the
/// declaration: it is asked once more from the import, and when it goes no
/// further the answer says so. A resolved import goes to the declaration.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_definition_stopping_at_an_import_says_so() {
    const IMPORTS: &str = "import { Thing } from \"@scope/missing\";\nimport { Registry } from \"./shapes\";\n\n\
                           export const made: Thing = new Thing();\nexport const kept = new Registry();\n";
    let mut cases = common::cases!();
    for server in [common::TYPESCRIPT_GO, common::TYPESCRIPT_LANGUAGE_SERVER] {
        let f = common::fixture_on_with("ts", server, &[("src/imports.ts", IMPORTS)]);
        let unresolved = f
            .run(
                "inspect",
                json!({"file": "src/imports.ts", "line": 4, "symbol": "Thing"}),
            )
            .await;
        cases.check(
            &format!("{server}: unresolved"),
            unresolved.contains(&format!(
                "Note: {server} resolves `Thing` only as far as its import at src/imports.ts:1:10: where it comes from is not resolved"
            )),
            &unresolved,
        );
        let resolved = f
            .run(
                "inspect",
                json!({"file": "src/imports.ts", "line": 5, "symbol": "Registry"}),
            )
            .await;
        cases.check(
            &format!("{server}: resolved"),
            resolved.contains(
                "Definition: src/shapes.ts:46:14 `export class Registry<T extends Shape> {`",
            ) && !resolved.contains("src/imports.ts:2:")
                && !resolved.contains("Note:"),
            &resolved,
        );
    }
    cases.finish();
}

/// A function called from many files: the answer stays within its budget
/// (32,000 characters), each file's block header counted, and says how
/// many calls it left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_hierarchy_of_many_files_stays_within_the_budget() {
    let callers: Vec<(String, String)> = (0..400)
        .map(|i| {
            (
                format!(
                    "src/callers/a_folder_whose_name_is_long_enough_that_each_files_block_header_costs_more_than_its_calls_do/caller_number_{i}.ts"
                ),
                format!(
                    "import {{ greet }} from \"../../greeting\";\n\nexport function call{i}(): string {{\n  return greet(\"caller {i}\");\n}}\n"
                ),
            )
        })
        .collect();
    let extra: Vec<(&str, &str)> = callers
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    let f = common::fixture_with("ts", &extra);
    let answer = f
        .run(
            "call_hierarchy",
            json!({"file": "src/greeting.ts", "symbol": "greet", "direction": "incoming"}),
        )
        .await;
    let size: usize = answer
        .split("\n\n=== next block ===\n\n")
        .map(|block| block.chars().count() + 2)
        .sum();
    assert!(
        size <= 32_000 && answer.contains("calls left out (the answer's size bound)"),
        "{size} characters: {}",
        answer.lines().take(4).collect::<Vec<_>>().join("\n")
    );
}

/// A function assigned to a member (`exports.x = function (…) {…}`) has no
/// call item from the server: the answer says so, and where to look
/// instead, rather than that it is no function.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_function_assigned_to_a_member_points_to_references() {
    let f = fixture("commonjs");
    let answer = f
        .run(
            "call_hierarchy",
            json!({"file": "lib/utils.js", "symbol": "exports.normalizeType"}),
        )
        .await;
    assert_eq!(
        answer,
        "error[not-found]: typescript-language-server has no call hierarchy for `normalizeType` at lib/utils.js:12:9: it gives no call item for this function (a server often does not for one assigned to a member or variable); find its callers with references"
    );
}
