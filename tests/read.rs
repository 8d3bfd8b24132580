//! Golden tests for `read`, called through the tool registry (the MCP path
//! without its transport), on copies of `fixtures/`; and once over MCP.

mod common;

use common::Expect::{Snapshot, Text};
use common::fixture;
use common::mcp::{call, start, texts};
use insta::assert_snapshot;
use serde_json::{Value, json};

// ---- the four tiers ----

#[tokio::test]
async fn signature_tier_is_the_default() {
    let f = fixture("ts");
    let mut cases = common::cases!();
    let out = f.run("read", json!({"file": "src/shapes.ts"})).await;
    // Without `preview`, the signature tier.
    let signature = f
        .run(
            "read",
            json!({"file": "src/shapes.ts", "preview": "signature"}),
        )
        .await;
    cases.check_text("the_default_is_signature", &out, &signature);
    cases.expect("signature_tier_is_the_default", &out, Snapshot);
    cases.finish();
}

#[tokio::test]
async fn none_tier_rust() {
    let f = fixture("rust");
    assert_snapshot!(
        f.run("read", json!({"file": "src/lib.rs", "preview": "none"}))
            .await
    );
}

#[tokio::test]
async fn expanded_tier() {
    let (ts, rust) = (fixture("ts"), fixture("rust"));
    let mut cases = common::cases!();
    for (name, f, file) in [
        // A TypeScript module, every leaf's code.
        ("expanded_shapes_ts", &ts, "src/shapes.ts"),
        // A Rust crate's lib.rs.
        ("expanded_ledger_rs", &rust, "src/lib.rs"),
    ] {
        let out = f
            .run("read", json!({"file": file, "preview": "expanded"}))
            .await;
        cases.expect(name, &out, Snapshot);
    }
    cases.finish();
}

/// Long leaves are cut after 10 lines with a comment in the file's syntax;
/// leaves sharing a line print it once.
#[tokio::test]
async fn expanded_tier_cuts_long_leaves_and_never_repeats_a_line() {
    let f = fixture("syntax");
    let body: String = (1..=20).map(|i| format!("    let x{i} = {i};\n")).collect();
    std::fs::write(
        f.path("long.rs"),
        format!("pub fn long() {{\n{body}}}\n\npub enum E {{ A, B, C }}\n"),
    )
    .unwrap();
    let out = f
        .run("read", json!({"file": "long.rs", "preview": "expanded"}))
        .await;
    let mut cases = common::cases!();
    // The tenth line, then how many more, in a Rust comment.
    cases.check(
        "cut_after_10_lines",
        out.contains("    let x9 = 9;\n  // ... 12 more lines\n  ```"),
        &out,
    );
    cases.check("nothing_after_the_cut", !out.contains("x10"), &out);
    // The enum's line holds all three variants: shown once.
    cases.check(
        "shared_line_once",
        out.matches("pub enum E { A, B, C }").count() == 1,
        &out,
    );
    cases.expect(
        "expanded_tier_cuts_long_leaves_and_never_repeats_a_line",
        &out,
        Snapshot,
    );
    cases.finish();
}

#[tokio::test]
async fn raw_tier_is_numbered_like_read_file() {
    let f = fixture("ts");
    let mut cases = common::cases!();
    let raw = f
        .run(
            "read",
            json!({"file": "src/shapes.ts", "preview": "raw", "offset": 18, "limit": 5}),
        )
        .await;
    let read_file = f
        .run(
            "read_file",
            json!({"path": "src/shapes.ts", "offset": 18, "limit": 5}),
        )
        .await;
    // The same lines, numbered the same way, as read_file.
    cases.check_text("as_read_file", &raw, &read_file);
    cases.expect("raw_tier_is_numbered_like_read_file", &raw, Snapshot);
    // Any text file, with or without a grammar.
    let json_file = f
        .run("read", json!({"file": "package.json", "preview": "raw"}))
        .await;
    cases.check(
        "a_file_without_a_grammar",
        json_file.starts_with("     1\t{\n"),
        &json_file,
    );
    cases.finish();
}

// ---- every declaration form, through the tool ----

#[tokio::test]
async fn typescript_declarations_with_signatures() {
    let f = fixture("syntax");
    assert_snapshot!(f.run("read", json!({"file": "decls.ts"})).await);
}

#[tokio::test]
async fn rust_declarations_expanded() {
    let f = fixture("syntax");
    assert_snapshot!(
        f.run("read", json!({"file": "decls.rs", "preview": "expanded"}))
            .await
    );
}

#[tokio::test]
async fn tsx_javascript_and_ambient_files() {
    let f = fixture("syntax");
    let mut cases = common::cases!();
    for (name, args) in [
        // JSX components, expanded.
        (
            "view_tsx_expanded",
            json!({"file": "view.tsx", "preview": "expanded"}),
        ),
        // Plain JavaScript, signatures.
        ("legacy_js", json!({"file": "legacy.js"})),
        // Ambient declarations, names only.
        (
            "decls_d_ts",
            json!({"file": "decls.d.ts", "preview": "none"}),
        ),
    ] {
        cases.expect(name, &f.run("read", args).await, Snapshot);
    }
    cases.finish();
}

// ---- narrowing: symbol, kinds, max_depth ----

#[tokio::test]
async fn symbol_by_name_path() {
    let f = fixture("ts");
    let mut cases = common::cases!();
    for (name, args) in [
        // A class, with its members.
        (
            "symbol_registry",
            json!({"file": "src/shapes.ts", "symbol": "Registry"}),
        ),
        // A method by its path, expanded.
        (
            "symbol_circle_area_expanded",
            json!({"file": "src/shapes.ts", "symbol": "Circle.area", "preview": "expanded"}),
        ),
        // Overloads: one name at one place, shown together.
        (
            "symbol_overloads",
            json!({"file": "src/shapes.ts", "symbol": "scale"}),
        ),
    ] {
        cases.expect(name, &f.run("read", args).await, Snapshot);
    }
    cases.finish();
}

#[tokio::test]
async fn rust_impl_paths() {
    let f = fixture("rust");
    let mut cases = common::cases!();
    // A method through its impl block.
    let total = f
        .run(
            "read",
            json!({"file": "src/lib.rs", "symbol": "impl Ledger/total"}),
        )
        .await;
    cases.expect("symbol_impl_ledger_total", &total, Snapshot);
    // A name holding `::` still resolves, with any separator after it.
    let display = f
        .run(
            "read",
            json!({"file": "src/lib.rs", "symbol": "impl fmt::Display for Ledger::fmt"}),
        )
        .await;
    cases.check(
        "impl_path_with_colons",
        display.contains(
            "@58:8 Method - fmt\n  `fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result`",
        ),
        &display,
    );
    // A trait's method, by the trait's name and a dot.
    let trait_method = f
        .run(
            "read",
            json!({"file": "src/lib.rs", "symbol": "Account.describe", "preview": "none"}),
        )
        .await;
    cases.check(
        "trait_method",
        trait_method.starts_with("Found 1 symbol under Account.describe in file: src/lib.rs"),
        &trait_method,
    );
    cases.finish();
}

#[tokio::test]
async fn ambiguous_and_unknown_symbols_list_candidates() {
    let (ts, rust) = (fixture("ts"), fixture("rust"));
    let mut cases = common::cases!();
    for (name, f, args, expected) in [
        // A name several symbols have: each, with its name path.
        (
            "ambiguous",
            &ts,
            json!({"file": "src/shapes.ts", "symbol": "area"}),
            "error[ambiguous-match]: `area` matches 4 symbols in src/shapes.ts: @4:3 Method - Shape.area, @11:12 Method - Base.area, @23:3 Method - Circle.area, @33:3 Method - Square.area; pass one of these name paths",
        ),
        // A near miss: the closest names.
        (
            "near_miss",
            &ts,
            json!({"file": "src/shapes.ts", "symbol": "Registry.total"}),
            "error[not-found]: no symbol `Registry.total` in src/shapes.ts; the closest names: @58:3 Method - Registry.totalArea",
        ),
        // Nothing close: the top-level symbols.
        (
            "nothing_close",
            &ts,
            json!({"file": "src/shapes.ts", "symbol": "Nothing"}),
            "error[not-found]: no symbol `Nothing` in src/shapes.ts; its top-level symbols: @2:18 Interface - Shape, @8:23 Class - Base, @18:14 Class - Circle, @28:14 Class - Square, @38:13 Enum - Unit, @43:13 TypeAlias - Measured, @46:14 Class - Registry, @63:17 Function - scale, @64:17 Function - scale, @65:17 Function - scale, @69:14 Constant - makeCircle",
        ),
        // Rust: a trait's method and its implementations.
        (
            "ambiguous_rust",
            &rust,
            json!({"file": "src/lib.rs", "symbol": "balance"}),
            "error[ambiguous-match]: `balance` matches 3 symbols in src/lib.rs: @13:8 Method - Account::balance, @43:8 Method - impl Account for Ledger/balance, @52:8 Method - impl Account for Wallet/balance; pass one of these name paths",
        ),
    ] {
        cases.expect(name, &f.run("read", args).await, Text(expected));
    }
    cases.finish();
}

#[tokio::test]
async fn kinds_keep_their_containers_as_context() {
    let f = fixture("ts");
    let mut cases = common::cases!();
    for (name, args, expect) in [
        // Methods and constructors (any case), under their classes.
        (
            "kinds_keep_their_containers_as_context",
            json!({"file": "src/shapes.ts", "kinds": ["Method", "constructor"], "preview": "none"}),
            Snapshot,
        ),
        // An unknown kind: the kinds there are.
        (
            "unknown_kind",
            json!({"file": "src/shapes.ts", "kinds": ["Widget"]}),
            Text(
                "error[invalid-params]: unknown kind 'Widget' in kinds; the kinds are File, Module, Namespace, Package, Class, Method, Property, Field, Constructor, Enum, Interface, Function, Variable, Constant, String, Number, Boolean, Array, Object, Key, Null, EnumMember, Struct, Event, Operator, TypeParameter, TypeAlias",
            ),
        ),
    ] {
        cases.expect(name, &f.run("read", args).await, expect);
    }
    cases.finish();
}

#[tokio::test]
async fn max_depth() {
    let f = fixture("syntax");
    let mut cases = common::cases!();
    for (name, args, expect) in [
        // The top-level symbols only.
        (
            "max_depth_1",
            json!({"file": "decls.ts", "max_depth": 1, "preview": "none"}),
            Snapshot,
        ),
        // Below a symbol, depth counts from it.
        (
            "max_depth_under_symbol",
            json!({"file": "decls.ts", "symbol": "Geometry", "max_depth": 2}),
            Snapshot,
        ),
        // Zero shows nothing: refused.
        (
            "max_depth_0",
            json!({"file": "decls.ts", "max_depth": 0}),
            Text(
                "error[invalid-params]: max_depth must be at least 1 (1 shows the top-level symbols only)",
            ),
        ),
    ] {
        cases.expect(name, &f.run("read", args).await, expect);
    }
    cases.finish();
}

// ---- paging and the budget ----

#[tokio::test]
async fn offset_and_limit_page_through_symbols() {
    let f = fixture("ts");
    let mut cases = common::cases!();
    for (name, args, expect) in [
        // The first five symbols.
        (
            "page_1",
            json!({"file": "src/shapes.ts", "limit": 5, "preview": "none"}),
            Snapshot,
        ),
        // The next page starts inside a class: the class comes first as
        // context.
        (
            "page_2",
            json!({"file": "src/shapes.ts", "offset": 5, "limit": 5, "preview": "none"}),
            Snapshot,
        ),
        // Past the last symbol.
        (
            "offset_past_the_end",
            json!({"file": "src/shapes.ts", "offset": 29}),
            Text(
                "error[out-of-range]: src/shapes.ts has 29 symbols here; offset 29 is past the end",
            ),
        ),
    ] {
        cases.expect(name, &f.run("read", args).await, expect);
    }
    // The last page says which symbols it shows, and no more pages.
    let last = f
        .run(
            "read",
            json!({"file": "src/shapes.ts", "offset": 27, "preview": "none"}),
        )
        .await;
    cases.check(
        "last_page",
        last.ends_with("Showing symbols 28-29 of 29"),
        &last,
    );
    cases.finish();
}

#[tokio::test]
async fn a_file_too_big_for_one_answer_keeps_its_header_and_says_how_to_page() {
    let f = fixture("syntax");
    let mut text = String::new();
    for i in 0..400 {
        text.push_str(&format!(
            "export interface Widget{i} {{\n  id: number;\n  label: string;\n  render(target: HTMLElement, options?: {{ force: boolean }}): void;\n}}\n\n"
        ));
    }
    std::fs::write(f.path("big.d.ts"), text).unwrap();
    let out = f.run("read", json!({"file": "big.d.ts"})).await;
    let mut cases = common::cases!();
    // Within the budget, with the header of the whole file.
    cases.check(
        "within_the_budget",
        out.len() < 36_000,
        format_args!("{} characters", out.len()),
    );
    cases.check(
        "header",
        out.starts_with("Found 1600 symbols in file: big.d.ts\nSymbol breakdown: 800 properties, 400 methods, 400 interfaces\nOutline from tree-sitter"),
        out.get(..300).unwrap_or(&out),
    );
    // The last line says how far it went and how to go on.
    let last = out.lines().last().unwrap_or("");
    let shown: Option<usize> = last
        .strip_prefix("Showing symbols 1-")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok());
    let Some(shown) = shown else {
        cases.fail(
            "how_to_page",
            format_args!("no `Showing symbols 1-N` (the steps on it did not run): {last}"),
        );
        return cases.finish();
    };
    cases.check("part_of_the_file", shown > 200 && shown < 1600, last);
    cases.check_text(
        "how_to_page",
        last,
        &format!(
            "Showing symbols 1-{shown} of 1600; pass offset={shown} for more, or narrow with max_depth=1 or symbol=<name path>"
        ),
    );
    // The next page goes on from there.
    let next = f
        .run("read", json!({"file": "big.d.ts", "offset": shown}))
        .await;
    cases.check(
        "next_page",
        next.contains(&format!("Showing symbols {}-", shown + 1)),
        &next,
    );
    // One content block per root container, then the paging block.
    let blocks = next.split("\n\n=== next block ===\n\n").count();
    cases.check(
        "a_block_per_container",
        blocks > 50,
        format_args!("{blocks} blocks"),
    );
    cases.finish();
}

// ---- positions, line endings, syntax errors ----

#[tokio::test]
async fn columns_count_characters_and_crlf_is_invisible() {
    let (ts, rust, syntax) = (fixture("ts"), fixture("rust"), fixture("syntax"));
    let mut cases = common::cases!();
    for (name, f, args) in [
        // Non-ASCII names: columns count characters.
        (
            "greeting_ts",
            &ts,
            json!({"file": "src/greeting.ts", "preview": "expanded"}),
        ),
        // CRLF line endings: never shown.
        (
            "crlf_ts",
            &ts,
            json!({"file": "src/crlf.ts", "preview": "expanded"}),
        ),
        // The same in Rust.
        ("text_rs", &rust, json!({"file": "src/text.rs"})),
        // Names after non-ASCII text on their line.
        (
            "unicode_ts",
            &syntax,
            json!({"file": "unicode.ts", "preview": "none"}),
        ),
    ] {
        cases.expect(name, &f.run("read", args).await, Snapshot);
    }
    // No carriage return in either CRLF file's answer.
    let crlf_ts = cases.answer("crlf_ts").unwrap_or_default();
    cases.check("crlf_ts_has_no_cr", !crlf_ts.contains('\r'), &crlf_ts);
    let crlf_rs = rust
        .run(
            "read",
            json!({"file": "src/crlf.rs", "preview": "expanded"}),
        )
        .await;
    cases.check("crlf_rs_has_no_cr", !crlf_rs.contains('\r'), &crlf_rs);
    cases.finish();
}

#[tokio::test]
async fn syntax_errors_are_said_and_the_rest_is_shown() {
    let f = fixture("syntax");
    let mut cases = common::cases!();
    // Rust: the symbols around the error.
    let rs = f.run("read", json!({"file": "syntax_error.rs"})).await;
    cases.expect("syntax_error_rs", &rs, Snapshot);
    // TypeScript: said in the header, and a symbol after the error shown.
    let ts = f.run("read", json!({"file": "syntax_error.ts"})).await;
    cases.check(
        "said_in_the_header",
        ts.contains("; the file has syntax errors, so some symbols may be missing"),
        &ts,
    );
    cases.check(
        "symbols_after_the_error",
        ts.contains("@17:18 Interface - StillHere"),
        &ts,
    );
    cases.finish();
}

// ---- where files come from ----

#[tokio::test]
async fn declaration_files_under_node_modules() {
    let f = fixture("ts");
    let dir = f.path("node_modules/@scope/pkg/dist");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("index.d.ts"),
        "export declare class McpServer {\n    private _server;\n    constructor(info: string);\n    connect(transport: unknown): Promise<void>;\n}\n",
    )
    .unwrap();
    assert_snapshot!(
        f.run(
            "read",
            json!({"file": "node_modules/@scope/pkg/dist/index.d.ts"})
        )
        .await
    );
}

#[tokio::test]
async fn crate_sources_in_the_cargo_registry() {
    let f = fixture("ts");
    let Some(file) = registry_file() else {
        panic!("no crate source with src/lib.rs under the cargo registry; cargo fetch fills it");
    };
    let out = f
        .run(
            "read",
            json!({"file": file.display().to_string(), "preview": "none", "max_depth": 1}),
        )
        .await;
    let mut cases = common::cases!();
    // Asked by its absolute path, named by its short name: the crate and
    // version, then its path in the crate.
    let krate = file.parent().unwrap().parent().unwrap();
    let folder = krate.file_name().unwrap().to_string_lossy().into_owned();
    let (name, version) = folder.split_at(folder.find("-0.").unwrap());
    let short = format!("{name}@{}:binding_rust/lib.rs", &version[1..]);
    cases.check(
        "short_name",
        out.starts_with("Found ") && out.contains(&format!(" symbols in file: {short}\n")),
        &out,
    );
    // Read back by that name, the same answer; and in a session that was
    // never shown it (the registry searched).
    let by_name = json!({"file": short, "preview": "none", "max_depth": 1});
    cases.check_text("read_back", &f.run("read", by_name.clone()).await, &out);
    let fresh = fixture("ts");
    cases.check_text("read_back_fresh", &fresh.run("read", by_name).await, &out);
    // The standard library's sources by their short name, never shown.
    let std_file = fresh
        .run(
            "read",
            json!({"file": "std:alloc/src/collections/btree/map.rs", "preview": "none", "max_depth": 1}),
        )
        .await;
    cases.check(
        "std_by_short_name",
        std_file.starts_with("Found ")
            && std_file.contains(" symbols in file: std:alloc/src/collections/btree/map.rs\n")
            && std_file.contains(" Struct - BTreeMap"),
        &std_file,
    );
    // Its outline, from tree-sitter.
    cases.check(
        "from_tree_sitter",
        out.contains("\nOutline from tree-sitter"),
        &out,
    );
    cases.finish();
}

/// `src/lib.rs` of a crate the build itself downloaded (this one's
/// dependencies), so it is there wherever the tests build.
fn registry_file() -> Option<std::path::PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")))?;
    let src = cargo_home.join("registry").join("src");
    for index in std::fs::read_dir(src).ok()?.flatten() {
        let mut crates: Vec<_> = std::fs::read_dir(index.path()).ok()?.flatten().collect();
        crates.sort_by_key(|c| c.file_name());
        for krate in crates {
            if krate
                .file_name()
                .to_string_lossy()
                .starts_with("tree-sitter-0.")
            {
                let lib = krate.path().join("binding_rust").join("lib.rs");
                if lib.is_file() {
                    return Some(lib);
                }
            }
        }
    }
    None
}

// ---- errors ----

#[tokio::test]
async fn errors_have_codes_and_fixes() {
    let f = fixture("ts");
    std::fs::write(f.path("blob.ts"), b"\x00\x01binary").unwrap();
    let mut cases = common::cases!();
    for (name, args, expected) in [
        // A missing file: how to find one.
        (
            "missing_file",
            json!({"file": "src/missing.ts"}),
            "error[not-found]: src/missing.ts does not exist; check the path (find lists files by glob)",
        ),
        // Not text.
        (
            "binary_file",
            json!({"file": "blob.ts"}),
            "error[binary-file]: blob.ts is a binary file (8 bytes); only text files can be read",
        ),
        // A folder.
        (
            "a_folder",
            json!({"file": "src"}),
            "error[not-a-file]: src is a folder, not a file; use find to list its files",
        ),
        // A file no outline covers: the other ways to read it.
        (
            "no_outline",
            json!({"file": "package.json"}),
            r#"error[invalid-params]: package.json: no outline for this kind of file (outlines cover TypeScript, TSX, JavaScript, Rust, Python, C, C++, Go and the files of languages configured in sextant.toml); use read_file, or read with preview "raw""#,
        ),
        // Narrowing the raw tier.
        (
            "raw_with_symbol",
            json!({"file": "src/shapes.ts", "preview": "raw", "symbol": "Circle"}),
            r#"error[invalid-params]: symbol, kinds and max_depth narrow the outline tiers; with preview "raw" page with offset (first line) and limit"#,
        ),
        // An unknown tier.
        (
            "unknown_preview",
            json!({"file": "src/shapes.ts", "preview": "full"}),
            "error[invalid-params]: read: unknown variant `full`, expected one of `none`, `signature`, `expanded`, `raw`; see the parameters with `sextant read --help`",
        ),
        // Outside the workspace.
        (
            "outside_the_workspace",
            json!({"file": "../outside.ts"}),
            "error[outside-root]: ../outside.ts is outside the workspace <root>; pass a path inside it",
        ),
    ] {
        cases.expect(name, &f.run("read", args).await, Text(expected));
    }
    cases.finish();
}

#[tokio::test]
async fn json_format_is_the_typed_result() {
    let f = fixture("ts");
    let out = f
        .run(
            "read",
            json!({"file": "src/shapes.ts", "symbol": "Unit", "format": "json"}),
        )
        .await;
    let value: Value = serde_json::from_str(&out).unwrap();
    let mut cases = common::cases!();
    for (pointer, expected) in [
        // The tier and where the outline came from.
        ("/tier", json!("outline")),
        ("/source", json!({"kind": "tree_sitter"})),
        // The enum and its two members.
        ("/total", json!(3)),
        // A member: name, kind, position and signature.
        ("/entries/1/name", json!("Metre")),
        ("/entries/1/kind", json!("Constant")),
        ("/entries/1/position", json!({"line": 39, "character": 3})),
        ("/entries/1/signature", json!("Metre = \"m\"")),
    ] {
        cases.check_eq(pointer, value.pointer(pointer), Some(&expected));
    }
    cases.finish();
}

// ---- over MCP ----

#[tokio::test]
async fn read_over_mcp_answers_in_text_blocks() {
    let f = fixture("ts");
    let client = start(f.root(), &[]).await;
    let mut cases = common::cases!();
    // Listed, as a tool that only reads.
    let tools = client.list_all_tools().await.unwrap();
    let read_only_hint = tools
        .iter()
        .find(|t| t.name == "read")
        .map(|read| read.annotations.as_ref().and_then(|a| a.read_only_hint));
    cases.check_eq("listed_read_only", read_only_hint, Some(Some(true)));
    // The answer: plain text blocks, the header and then the class.
    let result = call(
        &client,
        "read",
        json!({"file": "src/shapes.ts", "symbol": "Circle"}),
    )
    .await;
    cases.check_eq("not_an_error", result.is_error, Some(false));
    cases.check(
        "no_structured_content",
        result.structured_content.is_none(),
        format_args!("{:?}", result.structured_content),
    );
    cases.check_eq(
        "text_blocks",
        texts(&result),
        vec![
            "Found 4 symbols under Circle in file: src/shapes.ts\nSymbol breakdown: 1 class, 1 method, 1 property, 1 constructor\nOutline from tree-sitter".to_string(),
            "@18:14 Class - Circle\n  `export class Circle extends Base`\n  @19:3 Constructor - constructor\n    `constructor(private radius: number)`\n  @19:23 Property - radius\n    `private radius: number`\n  @23:3 Method - area\n    `area(): number`".to_string(),
        ],
    );
    client.cancel().await.unwrap();
    cases.finish();
}

/// A language sextant has no grammar for gets its outline from its
/// language server: a flat, name-sorted answer is nested by range, put in
/// line order, and each symbol shown where its name starts, with its
/// declaration line as the signature.
#[tokio::test]
async fn other_languages_outline_from_their_server() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    std::fs::write(
        dir.path().join("main.fake"),
        "class Zeta {\n  alpha() {}\n}\nfn beta() {}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("sextant.toml"),
        format!(
            "[language.fake]\ncommand = {:?}\nargs = [\"flat-outline\", {:?}]\nextensions = [\"fake\"]\n",
            common::fake_server().display().to_string(),
            state.display().to_string()
        ),
    )
    .unwrap();
    let ctx = common::context(dir.path(), false);
    let mut cases = common::cases!();
    for (name, args, expected) in [
        // The whole file: a class holding a method, then a function.
        (
            "outline",
            json!({"file": "main.fake"}),
            "\
Found 3 symbols in file: main.fake
Symbol breakdown: 1 class, 1 method, 1 function
Outline from fake_lsp

=== next block ===

@1:7 Class - Zeta
  `class Zeta`
  @2:3 Method - alpha
    `alpha() {}`

=== next block ===

@4:4 Function - beta
  `fn beta() {}`",
        ),
        // A symbol by its name path, its code as the declaration's line.
        (
            "symbol_expanded",
            json!({"file": "main.fake", "symbol": "Zeta.alpha", "preview": "expanded"}),
            "\
Found 1 symbol under Zeta.alpha in file: main.fake
Symbol breakdown: 1 method
Outline from fake_lsp

=== next block ===

@2:3 Method - alpha
  ```fake
  alpha() {}
  ```",
        ),
    ] {
        cases.expect(name, &common::run(&ctx, "read", args).await, Text(expected));
    }
    cases.finish();
}

/// A file's parse is kept while the file keeps its stamp (length, times,
/// inode), and forgotten when the file watcher reports it
/// written: a file rewritten to the same length with its old time put back
/// (which the watcher tells, and the stamp by the file's status change
/// time) is outlined anew.
#[tokio::test]
async fn an_outline_follows_a_file_the_watcher_saw_written() {
    let f = fixture("ts");
    f.watch_files().await;
    let args = json!({"file": "src/shapes.ts", "preview": "none"});
    let first = f.run("read", args.clone()).await;
    assert!(first.contains("Class - Square"), "{first}");
    assert_eq!(f.run("read", args.clone()).await, first);

    let text = f.read("src/shapes.ts").replace("Square", "Squire");
    f.rewrite_keeping_time("src/shapes.ts", &text);
    // The watcher hands changes out within its batch pause (50 ms); the
    // answer is asked for until it holds the new name, for 10 s at most.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let now = f.run("read", args.clone()).await;
        if now.contains("Class - Squire") {
            assert!(!now.contains("Square"), "{now}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the outline kept the old text: {now}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
