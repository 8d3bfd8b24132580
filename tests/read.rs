//! Golden tests for `read`, called through the tool registry (the MCP path
//! without its transport), on copies of `fixtures/`; and once over MCP.

mod common;

use common::fixture;
use common::mcp::{call, start, texts};
use insta::assert_snapshot;
use serde_json::{Value, json};

// ---- the four tiers ----

#[tokio::test]
async fn signature_tier_is_the_default() {
    let f = fixture("ts");
    let out = f.run("read", json!({"file": "src/shapes.ts"})).await;
    assert_eq!(
        out,
        f.run(
            "read",
            json!({"file": "src/shapes.ts", "preview": "signature"})
        )
        .await
    );
    assert_snapshot!(out);
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
    let f = fixture("ts");
    assert_snapshot!(
        "expanded_shapes_ts",
        f.run(
            "read",
            json!({"file": "src/shapes.ts", "preview": "expanded"})
        )
        .await
    );
    let f = fixture("rust");
    assert_snapshot!(
        "expanded_ledger_rs",
        f.run("read", json!({"file": "src/lib.rs", "preview": "expanded"}))
            .await
    );
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
    assert!(
        out.contains("    let x9 = 9;\n  // ... 12 more lines\n  ```"),
        "{out}"
    );
    assert!(!out.contains("x10"), "{out}");
    assert_eq!(out.matches("pub enum E { A, B, C }").count(), 1, "{out}");
    assert_snapshot!(out);
}

#[tokio::test]
async fn raw_tier_is_numbered_like_read_file() {
    let f = fixture("ts");
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
    assert_eq!(raw, read_file);
    assert_snapshot!(raw);
    // Any text file, with or without a grammar.
    let json_file = f
        .run("read", json!({"file": "package.json", "preview": "raw"}))
        .await;
    assert!(json_file.starts_with("     1\t{\n"), "{json_file}");
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
    assert_snapshot!(
        "view_tsx_expanded",
        f.run("read", json!({"file": "view.tsx", "preview": "expanded"}))
            .await
    );
    assert_snapshot!(
        "legacy_js",
        f.run("read", json!({"file": "legacy.js"})).await
    );
    assert_snapshot!(
        "decls_d_ts",
        f.run("read", json!({"file": "decls.d.ts", "preview": "none"}))
            .await
    );
}

// ---- narrowing: symbol, kinds, max_depth ----

#[tokio::test]
async fn symbol_by_name_path() {
    let f = fixture("ts");
    assert_snapshot!(
        "symbol_registry",
        f.run(
            "read",
            json!({"file": "src/shapes.ts", "symbol": "Registry"})
        )
        .await
    );
    assert_snapshot!(
        "symbol_circle_area_expanded",
        f.run(
            "read",
            json!({"file": "src/shapes.ts", "symbol": "Circle.area", "preview": "expanded"})
        )
        .await
    );
    // Overloads: one name at one place, shown together.
    assert_snapshot!(
        "symbol_overloads",
        f.run("read", json!({"file": "src/shapes.ts", "symbol": "scale"}))
            .await
    );
}

#[tokio::test]
async fn rust_impl_paths() {
    let f = fixture("rust");
    assert_snapshot!(
        "symbol_impl_ledger_total",
        f.run(
            "read",
            json!({"file": "src/lib.rs", "symbol": "impl Ledger/total"})
        )
        .await
    );
    // A name holding `::` still resolves, with any separator after it.
    let display = f
        .run(
            "read",
            json!({"file": "src/lib.rs", "symbol": "impl fmt::Display for Ledger::fmt"}),
        )
        .await;
    assert!(
        display.contains(
            "@58:8 Method - fmt\n  `fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result`"
        ),
        "{display}"
    );
    let trait_method = f
        .run(
            "read",
            json!({"file": "src/lib.rs", "symbol": "Account.describe", "preview": "none"}),
        )
        .await;
    assert!(
        trait_method.starts_with("Found 1 symbol under Account.describe in file: src/lib.rs"),
        "{trait_method}"
    );
}

#[tokio::test]
async fn ambiguous_and_unknown_symbols_list_candidates() {
    let f = fixture("ts");
    assert_snapshot!(
        f.run("read", json!({"file": "src/shapes.ts", "symbol": "area"}))
            .await,
        @"error[ambiguous-match]: `area` matches 4 symbols in src/shapes.ts: @4:3 Method - Shape.area, @11:12 Method - Base.area, @23:3 Method - Circle.area, @33:3 Method - Square.area; pass one of these name paths"
    );
    assert_snapshot!(
        f.run("read", json!({"file": "src/shapes.ts", "symbol": "Registry.total"}))
            .await,
        @"error[not-found]: no symbol `Registry.total` in src/shapes.ts; the closest names: @58:3 Method - Registry.totalArea"
    );
    assert_snapshot!(
        f.run("read", json!({"file": "src/shapes.ts", "symbol": "Nothing"}))
            .await,
        @"error[not-found]: no symbol `Nothing` in src/shapes.ts; its top-level symbols: @2:18 Interface - Shape, @8:23 Class - Base, @18:14 Class - Circle, @28:14 Class - Square, @38:13 Enum - Unit, @43:13 Variable - Measured, @46:14 Class - Registry, @63:17 Function - scale, @64:17 Function - scale, @65:17 Function - scale, @69:14 Constant - makeCircle"
    );
    let f = fixture("rust");
    assert_snapshot!(
        f.run("read", json!({"file": "src/lib.rs", "symbol": "balance"}))
            .await,
        @"error[ambiguous-match]: `balance` matches 3 symbols in src/lib.rs: @13:8 Method - Account::balance, @43:8 Method - impl Account for Ledger/balance, @52:8 Method - impl Account for Wallet/balance; pass one of these name paths"
    );
}

#[tokio::test]
async fn kinds_keep_their_containers_as_context() {
    let f = fixture("ts");
    assert_snapshot!(
        f.run(
            "read",
            json!({"file": "src/shapes.ts", "kinds": ["Method", "constructor"], "preview": "none"})
        )
        .await
    );
    assert_snapshot!(
        f.run("read", json!({"file": "src/shapes.ts", "kinds": ["Widget"]}))
            .await,
        @"error[invalid-params]: unknown kind 'Widget' in kinds; the kinds are File, Module, Namespace, Package, Class, Method, Property, Field, Constructor, Enum, Interface, Function, Variable, Constant, String, Number, Boolean, Array, Object, Key, Null, EnumMember, Struct, Event, Operator, TypeParameter"
    );
}

#[tokio::test]
async fn max_depth() {
    let f = fixture("syntax");
    assert_snapshot!(
        "max_depth_1",
        f.run(
            "read",
            json!({"file": "decls.ts", "max_depth": 1, "preview": "none"})
        )
        .await
    );
    // Below a symbol, depth counts from it.
    assert_snapshot!(
        "max_depth_under_symbol",
        f.run(
            "read",
            json!({"file": "decls.ts", "symbol": "Geometry", "max_depth": 2})
        )
        .await
    );
    assert_snapshot!(
        f.run("read", json!({"file": "decls.ts", "max_depth": 0})).await,
        @"error[invalid-params]: max_depth must be at least 1 (1 shows the top-level symbols only)"
    );
}

// ---- paging and the budget ----

#[tokio::test]
async fn offset_and_limit_page_through_symbols() {
    let f = fixture("ts");
    let first = f
        .run(
            "read",
            json!({"file": "src/shapes.ts", "limit": 5, "preview": "none"}),
        )
        .await;
    assert_snapshot!("page_1", first);
    // The next page starts inside a class: the class comes first as context.
    let second = f
        .run(
            "read",
            json!({"file": "src/shapes.ts", "offset": 5, "limit": 5, "preview": "none"}),
        )
        .await;
    assert_snapshot!("page_2", second);
    let last = f
        .run(
            "read",
            json!({"file": "src/shapes.ts", "offset": 27, "preview": "none"}),
        )
        .await;
    assert!(last.ends_with("Showing symbols 28-29 of 29"), "{last}");
    assert_snapshot!(
        f.run("read", json!({"file": "src/shapes.ts", "offset": 29})).await,
        @"error[out-of-range]: src/shapes.ts has 29 symbols here; offset 29 is past the end"
    );
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
    assert!(out.len() < 36_000, "{} characters", out.len());
    assert!(
        out.starts_with("Found 1600 symbols in file: big.d.ts\nSymbol breakdown: 800 properties, 400 methods, 400 interfaces\nOutline from tree-sitter (no language server yet)"),
        "{}",
        &out[..300]
    );
    let last = out.lines().last().unwrap();
    let shown: usize = last
        .strip_prefix("Showing symbols 1-")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{last}"));
    assert!(shown > 200 && shown < 1600, "{last}");
    assert_eq!(
        last,
        format!(
            "Showing symbols 1-{shown} of 1600; pass offset={shown} for more, or narrow with max_depth=1 or symbol=<name path>"
        )
    );
    let next = f
        .run("read", json!({"file": "big.d.ts", "offset": shown}))
        .await;
    assert!(
        next.contains(&format!("Showing symbols {}-", shown + 1)),
        "{next}"
    );
    // One content block per root container, then the paging block.
    let blocks = next.split("\n\n=== next block ===\n\n").count();
    assert!(blocks > 50, "{blocks} blocks");
}

// ---- positions, line endings, syntax errors ----

#[tokio::test]
async fn columns_count_characters_and_crlf_is_invisible() {
    let f = fixture("ts");
    assert_snapshot!(
        "greeting_ts",
        f.run(
            "read",
            json!({"file": "src/greeting.ts", "preview": "expanded"})
        )
        .await
    );
    let crlf = f
        .run(
            "read",
            json!({"file": "src/crlf.ts", "preview": "expanded"}),
        )
        .await;
    assert!(!crlf.contains('\r'));
    assert_snapshot!("crlf_ts", crlf);
    let f = fixture("rust");
    assert_snapshot!(
        "text_rs",
        f.run("read", json!({"file": "src/text.rs"})).await
    );
    let crlf = f
        .run(
            "read",
            json!({"file": "src/crlf.rs", "preview": "expanded"}),
        )
        .await;
    assert!(!crlf.contains('\r'));
    let f = fixture("syntax");
    assert_snapshot!(
        "unicode_ts",
        f.run("read", json!({"file": "unicode.ts", "preview": "none"}))
            .await
    );
}

#[tokio::test]
async fn syntax_errors_are_said_and_the_rest_is_shown() {
    let f = fixture("syntax");
    assert_snapshot!(
        "syntax_error_rs",
        f.run("read", json!({"file": "syntax_error.rs"})).await
    );
    let ts = f.run("read", json!({"file": "syntax_error.ts"})).await;
    assert!(ts.contains("; the file has syntax errors, so some symbols may be missing"));
    assert!(ts.contains("@17:18 Interface - StillHere"), "{ts}");
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
    let header = format!("symbols in file: {}\n", file.display());
    assert!(out.starts_with("Found ") && out.contains(&header), "{out}");
    assert!(
        out.contains("\nOutline from tree-sitter (no language server yet)"),
        "{out}"
    );
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
    assert_snapshot!(
        f.run("read", json!({"file": "src/missing.ts"})).await,
        @"error[not-found]: src/missing.ts does not exist; check the path (find lists files by glob)"
    );
    assert_snapshot!(
        f.run("read", json!({"file": "blob.ts"})).await,
        @"error[binary-file]: blob.ts is a binary file (8 bytes); only text files can be read"
    );
    assert_snapshot!(
        f.run("read", json!({"file": "src"})).await,
        @"error[not-a-file]: src is a folder, not a file; use find to list its files"
    );
    assert_snapshot!(
        f.run("read", json!({"file": "package.json"})).await,
        @r#"error[invalid-params]: package.json: no outline for this kind of file (outlines cover .ts .mts .cts .tsx .js .jsx .mjs .cjs .rs and the files of languages configured in sextant.toml); use read_file, or read with preview "raw""#
    );
    assert_snapshot!(
        f.run("read", json!({"file": "src/shapes.ts", "preview": "raw", "symbol": "Circle"})).await,
        @r#"error[invalid-params]: symbol, kinds and max_depth narrow the outline tiers; with preview "raw" page with offset (first line) and limit"#
    );
    assert_snapshot!(
        f.run("read", json!({"file": "src/shapes.ts", "preview": "full"})).await,
        @"error[invalid-params]: read: unknown variant `full`, expected one of `none`, `signature`, `expanded`, `raw`; see the parameters with `sextant read --help`"
    );
    assert_snapshot!(
        f.run("read", json!({"file": "../outside.ts"})).await,
        @"error[outside-root]: ../outside.ts is outside the workspace <root>; pass a path inside it"
    );
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
    assert_eq!(value["tier"], "outline");
    assert_eq!(value["source"], json!({"kind": "tree_sitter"}));
    assert_eq!(value["total"], 3);
    assert_eq!(value["entries"][1]["name"], "Metre");
    assert_eq!(value["entries"][1]["kind"], "Constant");
    assert_eq!(
        value["entries"][1]["position"],
        json!({"line": 39, "character": 3})
    );
    assert_eq!(value["entries"][1]["signature"], "Metre = \"m\"");
}

// ---- over MCP ----

#[tokio::test]
async fn read_over_mcp_answers_in_text_blocks() {
    let f = fixture("ts");
    let client = start(f.root(), &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let read = tools
        .iter()
        .find(|t| t.name == "read")
        .expect("read is listed");
    assert_eq!(
        read.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    let result = call(
        &client,
        "read",
        json!({"file": "src/shapes.ts", "symbol": "Circle"}),
    )
    .await;
    assert_eq!(result.is_error, Some(false));
    assert!(result.structured_content.is_none());
    assert_eq!(
        texts(&result),
        [
            "Found 4 symbols under Circle in file: src/shapes.ts\nSymbol breakdown: 1 class, 1 method, 1 property, 1 constructor\nOutline from tree-sitter (no language server yet)",
            "@18:14 Class - Circle\n  `export class Circle extends Base`\n  @19:3 Constructor - constructor\n    `constructor(private radius: number)`\n  @19:23 Property - radius\n    `private radius: number`\n  @23:3 Method - area\n    `area(): number`",
        ]
    );
    client.cancel().await.unwrap();
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
    assert_snapshot!(common::run(&ctx, "read", json!({"file": "main.fake"})).await, @r"
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
      `fn beta() {}`
    ");
    assert_snapshot!(common::run(&ctx, "read", json!({"file": "main.fake", "symbol": "Zeta.alpha", "preview": "expanded"})).await, @r"
    Found 1 symbol under Zeta.alpha in file: main.fake
    Symbol breakdown: 1 method
    Outline from fake_lsp

    === next block ===

    @2:3 Method - alpha
      ```fake
      alpha() {}
      ```
    ");
}
