//! The tree-sitter layer on its own: queries, outlines (kinds, names,
//! positions, ranges), signature previews, excerpts, nesting and filters.
//!
//! Golden outlines cover every declaration form of `fixtures/syntax/` and
//! the fixture projects' files; each line is
//! `@selection Kind - name [range]` with the signature under it.

mod common;

use std::sync::Arc;

use insta::assert_snapshot;
use sextant::model::{OutlineSymbol, Position, Range, SymbolKind};
use sextant::syntax::{self, Language, SourceFile};

fn parse(path: &str) -> SourceFile {
    let full = common::fixtures_dir().join(path);
    let language = Language::from_path(&full).expect("a language with a grammar");
    SourceFile::parse(language, std::fs::read_to_string(&full).unwrap())
}

/// The outline with ranges and signatures, one symbol per line.
fn outline_text(path: &str) -> String {
    let file = parse(path);
    let mut out = String::new();
    if file.has_syntax_errors() {
        out.push_str("(syntax errors)\n");
    }
    write_symbols(&file, file.outline(), 0, &mut out);
    out
}

fn write_symbols(file: &SourceFile, symbols: &[OutlineSymbol], depth: usize, out: &mut String) {
    for s in symbols {
        let indent = "  ".repeat(depth);
        out.push_str(&format!(
            "{indent}@{} {} - {} [{}-{}]\n",
            s.selection_range.start,
            s.kind.name(),
            s.name,
            s.range.start,
            s.range.end
        ));
        if let Some(signature) = file.signature(s) {
            out.push_str(&format!("{indent}  `{signature}`\n"));
        }
        write_symbols(file, &s.children, depth + 1, out);
    }
}

fn symbol(name: &str, kind: SymbolKind, start: (u32, u32), end: (u32, u32)) -> OutlineSymbol {
    let start = Position::new(start.0, start.1);
    let end = Position::new(end.0, end.1);
    OutlineSymbol {
        name: name.to_string(),
        kind,
        detail: None,
        range: Range::new(start, end),
        selection_range: Range::new(start, start),
        qualifier: None,
        children: Vec::new(),
    }
}

/// `name(child, child)` for a tree, to compare nestings at a glance.
fn shape(symbols: &[OutlineSymbol]) -> String {
    symbols
        .iter()
        .map(|s| {
            if s.children.is_empty() {
                s.name.clone()
            } else {
                format!("{}({})", s.name, shape(&s.children))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

// ---- grammars and queries ----

#[test]
fn every_query_compiles_against_its_grammars() {
    let checked = syntax::grammar::check_queries().unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(
        checked,
        [
            "typescript: queries/typescript/outline.scm",
            "typescript: queries/typescript/signature.scm",
            "tsx: queries/typescript/outline.scm",
            "tsx: queries/typescript/signature.scm",
            "rust: queries/rust/outline.scm",
            "rust: queries/rust/signature.scm",
            "python: queries/python/outline.scm",
            "python: queries/python/signature.scm",
            "c: queries/c/outline.scm",
            "c: queries/c/signature.scm",
            "cpp: queries/cpp/outline.scm",
            "cpp: queries/cpp/signature.scm",
            "go: queries/go/outline.scm",
            "go: queries/go/signature.scm",
        ]
    );
}

#[test]
fn languages_by_extension() {
    let of = |p: &str| Language::from_path(std::path::Path::new(p));
    assert_eq!(of("a/b.ts"), Some(Language::named("TypeScript").unwrap()));
    assert_eq!(
        of("index.d.ts"),
        Some(Language::named("TypeScript").unwrap())
    );
    assert_eq!(of("x.mts"), Some(Language::named("TypeScript").unwrap()));
    assert_eq!(of("x.cts"), Some(Language::named("TypeScript").unwrap()));
    assert_eq!(of("x.tsx"), Some(Language::named("TSX").unwrap()));
    assert_eq!(of("x.js"), Some(Language::named("JavaScript").unwrap()));
    assert_eq!(of("x.JSX"), Some(Language::named("JavaScript").unwrap()));
    assert_eq!(of("x.mjs"), Some(Language::named("JavaScript").unwrap()));
    assert_eq!(of("x.cjs"), Some(Language::named("JavaScript").unwrap()));
    assert_eq!(of("lib.rs"), Some(Language::named("Rust").unwrap()));
    assert_eq!(of("x.py"), Some(Language::named("Python").unwrap()));
    assert_eq!(of("x.pyi"), Some(Language::named("Python").unwrap()));
    assert_eq!(of("x.c"), Some(Language::named("C").unwrap()));
    assert_eq!(of("x.h"), Some(Language::named("C++").unwrap()));
    assert_eq!(of("x.cpp"), Some(Language::named("C++").unwrap()));
    assert_eq!(of("x.hpp"), Some(Language::named("C++").unwrap()));
    assert_eq!(of("x.go"), Some(Language::named("Go").unwrap()));
    assert_eq!(of("x.java"), None);
    assert_eq!(of("Makefile"), None);
}

// ---- outlines and signatures of every declaration form ----

#[test]
fn typescript_declarations() {
    assert_snapshot!(outline_text("syntax/decls.ts"));
}

#[test]
fn typescript_ambient_declarations() {
    assert_snapshot!(outline_text("syntax/decls.d.ts"));
}

#[test]
fn tsx_and_javascript() {
    assert_snapshot!("tsx", outline_text("syntax/view.tsx"));
    assert_snapshot!("javascript", outline_text("syntax/legacy.js"));
}

/// CommonJS modules build their API by assignment: `exports.x = …`,
/// `module.exports = { … }`, `obj.x = function x() {}`. Each member is a
/// symbol (a Function for a function value, else a Variable for what is
/// assigned to `exports`); a plain property assignment is not.
#[test]
fn commonjs_members_are_symbols() {
    let files = ["utils", "send", "response", "app"];
    let outlines: Vec<String> = files
        .iter()
        .map(|name| {
            format!(
                "--- {name}.js\n{}",
                outline_text(&format!("commonjs/lib/{name}.js"))
            )
        })
        .collect();
    assert_snapshot!(outlines.join("\n"));
}

#[test]
fn rust_declarations() {
    assert_snapshot!(outline_text("syntax/decls.rs"));
}

#[test]
fn python_declarations() {
    assert_snapshot!(outline_text("syntax/decls.py"));
}

#[test]
fn c_declarations() {
    assert_snapshot!(outline_text("syntax/decls.c"));
}

#[test]
fn cpp_declarations() {
    assert_snapshot!(outline_text("syntax/decls.cpp"));
}

/// The fixtures the language-server tests use: the tree-sitter outline
/// follows typescript-language-server's and rust-analyzer's conventions
/// (kinds, names, positions) so the two can be compared.
#[test]
fn fixture_projects_follow_the_servers_conventions() {
    assert_snapshot!("shapes_ts", outline_text("ts/src/shapes.ts"));
    assert_snapshot!("ledger_rs", outline_text("rust/src/lib.rs"));
    assert_snapshot!("geometry_py", outline_text("python/shapes/geometry.py"));
    assert_snapshot!("shapes_h", outline_text("c/include/shapes.h"));
    assert_snapshot!("geometry_cpp", outline_text("c/cpp/geometry.cpp"));
}

#[test]
fn columns_count_characters() {
    assert_snapshot!("unicode_ts", outline_text("syntax/unicode.ts"));
    assert_snapshot!("unicode_rs", outline_text("syntax/unicode.rs"));
    assert_snapshot!("greeting_ts", outline_text("ts/src/greeting.ts"));
    assert_snapshot!("text_rs", outline_text("rust/src/text.rs"));
}

#[test]
fn crlf_files_outline_like_lf_files() {
    let crlf = outline_text("ts/src/crlf.ts");
    let lf_text = std::fs::read_to_string(common::fixtures_dir().join("ts/src/crlf.ts"))
        .unwrap()
        .replace("\r\n", "\n");
    let lf = SourceFile::parse(Language::named("TypeScript").unwrap(), lf_text);
    let mut lf_out = String::new();
    write_symbols(&lf, lf.outline(), 0, &mut lf_out);
    assert_eq!(crlf, lf_out);
    assert_snapshot!("crlf_ts", crlf);
    assert_snapshot!("crlf_rs", outline_text("rust/src/crlf.rs"));
    assert_snapshot!("crlf_py", outline_text("python/shapes/units.py"));
    assert_snapshot!("crlf_c", outline_text("c/src/main.c"));
}

#[test]
fn files_with_syntax_errors_outline_what_they_can() {
    assert_snapshot!("syntax_error_ts", outline_text("syntax/syntax_error.ts"));
    assert_snapshot!("syntax_error_rs", outline_text("syntax/syntax_error.rs"));
    assert_snapshot!("syntax_error_py", outline_text("syntax/syntax_error.py"));
}

#[test]
fn empty_and_symbol_free_files() {
    let empty = SourceFile::parse(Language::named("TypeScript").unwrap(), String::new());
    assert!(empty.outline().is_empty());
    let script = SourceFile::parse(
        Language::named("JavaScript").unwrap(),
        "console.log(1);\n".into(),
    );
    assert!(script.outline().is_empty());
    assert!(!script.has_syntax_errors());
}

// ---- signatures for symbols from elsewhere (a language server) ----

#[test]
fn signatures_for_symbols_found_by_position() {
    let file = parse("ts/src/shapes.ts");
    // A symbol as typescript-language-server reports the second overload of
    // `scale`: its selection at the start of `export`, not at the name.
    let overload = symbol("scale", SymbolKind::Function, (64, 1), (64, 62));
    assert_eq!(
        file.signature(&overload).as_deref(),
        Some("export function scale(shape: Square, factor: number): Square")
    );
    // By name position, with a range that starts elsewhere.
    let mut area = symbol("area", SymbolKind::Method, (23, 3), (25, 4));
    area.range.start = Position::new(22, 1);
    assert_eq!(file.signature(&area).as_deref(), Some("area(): number"));
    // A local inside a function body has no declaration here: no preview,
    // rather than the enclosing method's.
    let local = symbol("sum", SymbolKind::Variable, (59, 45), (59, 48));
    assert_eq!(file.signature(&local), None);
    // Out of the file: nothing.
    let past = symbol("ghost", SymbolKind::Function, (900, 1), (900, 5));
    assert_eq!(file.signature(&past), None);
}

// ---- excerpts ----

#[test]
fn excerpts_are_whole_lines_cut_after_n() {
    let file = parse("syntax/decls.rs");
    let longest = file
        .outline()
        .iter()
        .find(|s| s.name == "longest")
        .unwrap()
        .clone();
    // Its range starts at the doc comment (as rust-analyzer's does).
    assert_eq!(longest.range.start, Position::new(10, 1));
    let cut = file.excerpt(longest.range, 4);
    assert_eq!(cut.start_line, 10);
    assert_eq!(
        cut.lines,
        [
            "/// Generics, lifetimes and a where clause, over several lines.",
            "pub fn longest<'a, T, U>(",
            "    first: &'a [T],",
            "    second: &'a [U],",
        ]
    );
    assert_eq!(cut.omitted_lines, 10);
    let whole = file.excerpt(longest.range, 100);
    assert_eq!(whole.lines.len(), 14);
    assert_eq!(whole.omitted_lines, 0);
    assert_eq!(whole.lines.last().unwrap(), "}");

    // An LSP range that ends at the start of the next line does not take it.
    let lsp = Range::new(Position::new(6, 1), Position::new(9, 1));
    let three = file.excerpt(lsp, 10);
    assert_eq!(three.lines.len(), 3);
    assert_eq!(three.lines[2], "}");

    // CRLF files give lines without `\r`.
    let crlf = parse("rust/src/crlf.rs");
    let f = crlf.outline()[0].clone();
    let code = crlf.excerpt(f.range, 10);
    assert_eq!(code.lines, ["pub fn crlf_line() -> u32 {", "    1", "}"]);
}

// ---- nesting and filtering, whatever the source ----

#[test]
fn flat_symbols_nest_by_range_never_by_name() {
    // Name-sorted, as typescript-language-server answers; two methods with
    // one name in two classes; a parameter property inside a constructor.
    let flat = vec![
        symbol("area", SymbolKind::Method, (23, 3), (25, 4)),
        symbol("area", SymbolKind::Method, (11, 3), (11, 27)),
        symbol("Base", SymbolKind::Class, (8, 1), (16, 2)),
        symbol("Circle", SymbolKind::Class, (18, 1), (26, 2)),
        symbol("constructor", SymbolKind::Constructor, (19, 3), (21, 4)),
        symbol("radius", SymbolKind::Property, (19, 15), (19, 37)),
        symbol("describe", SymbolKind::Method, (13, 3), (15, 4)),
        symbol("makeCircle", SymbolKind::Constant, (69, 14), (69, 73)),
    ];
    let nested = syntax::nest_by_range(flat);
    assert_eq!(
        shape(&nested),
        "Base(area, describe), Circle(constructor, radius, area), makeCircle"
    );
    assert_eq!(nested[1].children[2].range.start, Position::new(23, 3));
}

#[test]
fn equal_ranges_are_siblings() {
    let nested = syntax::nest_by_range(vec![
        symbol("a", SymbolKind::Constant, (1, 1), (1, 10)),
        symbol("b", SymbolKind::Constant, (1, 1), (1, 10)),
    ]);
    assert_eq!(shape(&nested), "a, b");
}

#[test]
fn filters_drop_literals_bodies_and_callbacks() {
    let mut impl_block = symbol("impl Ledger", SymbolKind::Object, (1, 1), (20, 2));
    impl_block.children = vec![symbol("total", SymbolKind::Method, (2, 5), (4, 6))];
    let mut method = symbol("totalArea", SymbolKind::Method, (30, 3), (32, 4));
    method.children = vec![symbol(
        "reduce() callback",
        SymbolKind::Function,
        (31, 40),
        (31, 60),
    )];
    let mut constant = symbol("LIMITS", SymbolKind::Constant, (40, 1), (40, 30));
    constant.children = vec![symbol("min", SymbolKind::Property, (40, 20), (40, 26))];
    let mut class = symbol("Registry", SymbolKind::Class, (29, 1), (33, 2));
    class.children = vec![method];
    let symbols = vec![
        impl_block,
        class,
        constant,
        symbol("\"key\"", SymbolKind::Key, (50, 1), (50, 5)),
        symbol("42", SymbolKind::Number, (51, 1), (51, 3)),
        symbol(
            "describe() callback",
            SymbolKind::Function,
            (60, 1),
            (62, 3),
        ),
        symbol("items", SymbolKind::Array, (63, 1), (63, 9)),
    ];
    let filtered = syntax::filter_outline(symbols);
    // impl blocks (Object, as rust-analyzer reports them) stay.
    assert_eq!(
        shape(&filtered),
        "impl Ledger(total), Registry(totalArea), LIMITS"
    );
    assert!(syntax::is_leaf(&filtered[1].children[0]));
    assert!(!syntax::is_leaf(&filtered[0]));
}

// ---- the cache ----

#[test]
fn the_cache_parses_the_same_content_once() {
    let text = std::fs::read_to_string(common::fixtures_dir().join("syntax/decls.rs")).unwrap();
    let first = syntax::parse(Language::named("Rust").unwrap(), text.clone());
    let outline = first.outline().as_ptr();
    let second = syntax::parse(Language::named("Rust").unwrap(), text.clone());
    assert!(Arc::ptr_eq(&first, &second));
    assert_eq!(second.outline().as_ptr(), outline);
    let changed = syntax::parse(
        Language::named("Rust").unwrap(),
        format!("{text}\npub fn extra() {{}}\n"),
    );
    assert!(!Arc::ptr_eq(&first, &changed));
    assert_eq!(
        changed.outline().last().map(|s| s.name.as_str()),
        Some("extra")
    );
}
