//! The tree-sitter outline against the language servers' outline of the same
//! files: every source file of the `ts` and `commonjs` fixtures (with each
//! TypeScript server), of the `rust` fixture (rust-analyzer) and of the
//! `python` fixture with `syntax/decls.py` (ty), the non-ASCII and CRLF
//! ones included, since positions are 1-based characters on both sides.
//!
//! tree-sitter follows typescript-language-server's kinds (ARCHITECTURE,
//! "Decisions worth knowing"); TypeScript 7's native server names some
//! kinds otherwise and lists import bindings, each listed in `KNOWN`.
//!
//! Each outline is flattened to `@line:char Kind - name` rows (the name's
//! position, indented by depth, in order), the server's after the filters
//! `read` applies. The two lists must be equal row for row, and every
//! symbol's whole range must be equal too, except for the differences listed
//! in `KNOWN`, each with why. A new disagreement fails, and so does a listed
//! one that went away.
//!
//! The servers must be installed (scripts/test.sh does it): a missing server
//! fails these tests, it never skips them.

mod common;

use common::{
    Fixture, TYPESCRIPT_GO, TYPESCRIPT_LANGUAGE_SERVER, fixture, fixture_on, outline_rows,
    server_outline,
};
use sextant::model::{OutlineSymbol, Range};
use sextant::syntax::{self, Language, filter_outline};

/// Where one file's two outlines differ on purpose; everything else must
/// agree exactly.
struct Known {
    /// The server whose outline differs.
    server: &'static str,
    /// The file, relative to its fixture.
    file: &'static str,
    /// `(server row, tree-sitter row)`: one symbol shown differently (an
    /// empty string for a symbol only the other side lists).
    rows: &'static [(&'static str, &'static str)],
    /// `(tree-sitter row, server range, tree-sitter range)`: one symbol
    /// whose whole range differs.
    ranges: &'static [(&'static str, &'static str, &'static str)],
}

const KNOWN: &[Known] = &[
    Known {
        server: TYPESCRIPT_LANGUAGE_SERVER,
        file: "src/shapes.ts",
        rows: &[
            // A type alias is a Variable to it (LSP has no kind for one);
            // tree-sitter says TypeAlias.
            ("@43:13 Variable - Measured", "@43:13 TypeAlias - Measured"),
            // For every overload after the first, typescript-language-server's
            // selection range is the whole declaration (64:1-64:62), so the
            // symbol sits at `export`; tree-sitter puts every overload at its
            // name, on purpose (ARCHITECTURE, "Decisions worth knowing").
            ("@64:1 Function - scale", "@64:17 Function - scale"),
            ("@65:1 Function - scale", "@65:17 Function - scale"),
        ],
        ranges: &[],
    },
    // TypeScript 7's native server lists the bindings of an import as
    // Variables; an outline is the file's own declarations.
    Known {
        server: TYPESCRIPT_GO,
        file: "src/broken.ts",
        rows: &[("@2:10 Variable - Circle", "")],
        ranges: &[],
    },
    Known {
        server: TYPESCRIPT_GO,
        file: "src/index.ts",
        rows: &[
            ("@1:10 Variable - Circle", ""),
            ("@1:18 Variable - Registry", ""),
            ("@1:28 Variable - Square", ""),
            ("@1:36 Variable - scale", ""),
            ("@1:48 Variable - Shape", ""),
            ("@2:10 Variable - greet", ""),
        ],
        ranges: &[],
    },
    // It calls a `const` a Variable; tree-sitter keeps
    // typescript-language-server's Constant, which says more.
    Known {
        server: TYPESCRIPT_GO,
        file: "src/crlf.ts",
        rows: &[("@6:14 Variable - afterCrlf", "@6:14 Constant - afterCrlf")],
        ranges: &[],
    },
    Known {
        server: TYPESCRIPT_GO,
        file: "src/greeting.ts",
        rows: &[
            ("@2:14 Variable - greeting", "@2:14 Constant - greeting"),
            ("@3:14 Variable - japanese", "@3:14 Constant - japanese"),
            ("@4:14 Variable - party", "@4:14 Constant - party"),
        ],
        ranges: &[],
    },
    Known {
        server: TYPESCRIPT_GO,
        file: "src/paths.ts",
        rows: &[
            ("@2:14 Variable - tsFile", "@2:14 Constant - tsFile"),
            (
                "@3:14 Variable - windowsTemp",
                "@3:14 Constant - windowsTemp",
            ),
        ],
        ranges: &[],
    },
    Known {
        server: TYPESCRIPT_GO,
        file: "src/shapes.ts",
        rows: &[
            // Enum members are EnumMember: tree-sitter keeps
            // typescript-language-server's Constant. Type aliases are
            // Class; LSP has no kind for them, and tree-sitter says
            // TypeAlias (sextant's own kind).
            ("  @39:3 EnumMember - Metre", "  @39:3 Constant - Metre"),
            ("  @40:3 EnumMember - Foot", "  @40:3 Constant - Foot"),
            ("@43:13 Class - Measured", "@43:13 TypeAlias - Measured"),
            (
                "@69:14 Variable - makeCircle",
                "@69:14 Constant - makeCircle",
            ),
        ],
        ranges: &[],
    },
    // Members of an object type in what an interface or class extends or
    // implements (`interface D extends Declare<{ kind: "max" }>`) are the
    // declaration's own: TypeScript 7's server and tree-sitter list them,
    // typescript-language-server does not. A member named by a literal in
    // brackets (`["long long"]`) is the member of that name: tree-sitter
    // names it by the literal, as TypeScript 7's server does
    // (typescript-language-server keeps the brackets), and puts it at the
    // literal, where both servers answer for the member (they put it at
    // the bracket, where TypeScript 7's server answers nothing).
    Known {
        server: TYPESCRIPT_LANGUAGE_SERVER,
        file: "src/library.d.ts",
        rows: &[
            ("", "  @29:3 Property - kind"),
            ("", "  @30:3 Property - limit"),
            ("", "  @34:3 Property - configFile"),
            ("", "  @35:3 Method - resolve"),
            ("", "  @41:3 Property - value"),
            ("", "  @45:3 Property - language"),
            ("", "  @51:3 Method - render"),
            ("", "  @55:3 Property - []"),
            ("", "  @57:3 Property - []"),
            ("", "  @61:3 Method - ()"),
            ("", "  @62:3 Constructor - new()"),
            (
                "  @91:3 Method - [\"long long\"]",
                "  @91:4 Method - \"long long\"",
            ),
            (
                "  @92:3 Property - [\"sequence<ByteString>\"]",
                "  @92:4 Property - \"sequence<ByteString>\"",
            ),
            ("  @93:3 Property - [0]", "  @93:4 Property - 0"),
        ],
        ranges: &[],
    },
    // TypeScript 7's server also lists, as a class's own, the members of an
    // object type in its type parameter's constraint or default (`class
    // CursorPage<Item extends { id: string }>`): they are no members of the
    // class, and tree-sitter leaves them out. It calls a module (and
    // `global { }`) a Namespace; tree-sitter keeps
    // typescript-language-server's Module. A member named by a literal in
    // brackets sits at the literal in tree-sitter's outline (see above).
    Known {
        server: TYPESCRIPT_GO,
        file: "src/library.d.ts",
        rows: &[
            ("  @68:41 Property - id", ""),
            ("  @68:58 Property - id", ""),
            (
                "@76:16 Namespace - \"fixture-worker\"",
                "@76:16 Module - \"fixture-worker\"",
            ),
            ("  @77:3 Namespace - global", "  @77:3 Module - global"),
            (
                "@82:16 Namespace - \"fixture-channel\"",
                "@82:16 Module - \"fixture-channel\"",
            ),
            ("  @84:3 Namespace - global", "  @84:3 Module - global"),
            (
                "  @91:3 Method - \"long long\"",
                "  @91:4 Method - \"long long\"",
            ),
            (
                "  @92:3 Property - \"sequence<ByteString>\"",
                "  @92:4 Property - \"sequence<ByteString>\"",
            ),
            ("  @93:3 Property - 0", "  @93:4 Property - 0"),
        ],
        ranges: &[],
    },
    // CommonJS members (`res.send = function send() {}`): both servers
    // put a member assigned a function at the function's own name, or at
    // `function` when it has none, with the function as its range;
    // tree-sitter puts it at the member's name, where references and
    // renames of the member are answered (at the function's own name they
    // find the function's name only), with the whole assignment as its
    // range. typescript-language-server does the same for members of
    // `exports` (so only the others differ there).
    Known {
        server: TYPESCRIPT_GO,
        file: "lib/app.js",
        rows: &[
            ("@8:21 Function - init", "@8:5 Function - init"),
            ("@12:23 Function - handle", "@12:5 Function - handle"),
        ],
        ranges: &[
            ("@8:5 Function - init", "8:12-10:2", "8:1-10:2"),
            ("@12:5 Function - handle", "12:14-14:2", "12:1-14:2"),
        ],
    },
    Known {
        server: TYPESCRIPT_LANGUAGE_SERVER,
        file: "lib/app.js",
        rows: &[
            ("@8:21 Function - init", "@8:5 Function - init"),
            ("@12:23 Function - handle", "@12:5 Function - handle"),
        ],
        ranges: &[
            ("@8:5 Function - init", "8:12-10:2", "8:1-10:2"),
            ("@12:5 Function - handle", "12:14-14:2", "12:1-14:2"),
        ],
    },
    Known {
        server: TYPESCRIPT_GO,
        file: "lib/response.js",
        rows: &[
            ("@12:21 Function - send", "@12:5 Function - send"),
            ("@17:21 Function - json", "@17:5 Function - json"),
            ("@21:12 Function - type", "@21:5 Function - type"),
            ("@26:25 Function - sendFile", "@26:5 Function - sendFile"),
        ],
        ranges: &[
            ("@12:5 Function - send", "12:12-15:2", "12:1-15:2"),
            ("@17:5 Function - json", "17:12-19:2", "17:1-19:2"),
            ("@21:5 Function - type", "21:12-24:2", "21:1-24:2"),
            ("@26:5 Function - sendFile", "26:16-28:2", "26:1-28:2"),
        ],
    },
    // typescript-language-server also lists `module.exports = res` as a
    // Constant named `<unknown>` (the rows below are that one extra row,
    // and the positions above, aligned).
    Known {
        server: TYPESCRIPT_LANGUAGE_SERVER,
        file: "lib/response.js",
        rows: &[
            ("@7:1 Constant - <unknown>", "@12:5 Function - send"),
            ("@12:21 Function - send", "@17:5 Function - json"),
            ("@17:21 Function - json", "@21:5 Function - type"),
            ("@21:12 Function - type", "@26:5 Function - sendFile"),
            ("@26:25 Function - sendFile", ""),
        ],
        ranges: &[
            ("@12:5 Function - send", "7:1-7:21", "12:1-15:2"),
            ("@17:5 Function - json", "12:12-15:2", "17:1-19:2"),
            ("@21:5 Function - type", "17:12-19:2", "21:1-24:2"),
            ("@26:5 Function - sendFile", "21:12-24:2", "26:1-28:2"),
        ],
    },
    // `module.exports = { file: function file() {}, stream() {}, version }`:
    // TypeScript 7's server calls a function-valued property a Property;
    // tree-sitter keeps typescript-language-server's Method. That server
    // holds the members under a Constant `<unknown>` (the object), whose
    // children an outline does not show; tree-sitter lists the members.
    Known {
        server: TYPESCRIPT_GO,
        file: "lib/send.js",
        rows: &[("@4:3 Property - file", "@4:3 Method - file")],
        ranges: &[],
    },
    Known {
        server: TYPESCRIPT_LANGUAGE_SERVER,
        file: "lib/send.js",
        rows: &[
            ("@3:1 Constant - <unknown>", "@4:3 Method - file"),
            ("", "@7:3 Method - stream"),
            ("", "@10:3 Property - version"),
        ],
        ranges: &[("@4:3 Method - file", "3:1-11:2", "4:3-6:4")],
    },
    Known {
        server: TYPESCRIPT_GO,
        file: "lib/unchecked.js",
        rows: &[
            ("@6:7 Variable - limit", "@6:7 Constant - limit"),
            ("@8:26 Function - raise", "@8:9 Function - raise"),
        ],
        ranges: &[("@8:9 Function - raise", "8:17-11:2", "8:1-11:2")],
    },
    // TypeScript 7's server does not list `exports.separator = path.sep`
    // (a member whose value is not a function); typescript-language-server
    // and tree-sitter list it as a Constant.
    Known {
        server: TYPESCRIPT_GO,
        file: "lib/utils.js",
        rows: &[
            (
                "@12:25 Function - normalizeType",
                "@12:9 Function - normalizeType",
            ),
            (
                "@16:35 Function - normalizeTypes",
                "@16:9 Function - normalizeTypes",
            ),
            ("@22:22 Function - isAbsolute", "@20:9 Constant - separator"),
            ("", "@22:9 Function - isAbsolute"),
        ],
        ranges: &[
            ("@12:9 Function - normalizeType", "12:25-14:2", "12:1-14:2"),
            ("@16:9 Function - normalizeTypes", "16:26-18:2", "16:1-18:2"),
            ("@20:9 Constant - separator", "22:22-22:53", "20:1-20:29"),
        ],
    },
    // ty gives a `for` or `with` target the whole statement's range (its
    // body included, where the names it binds are its siblings);
    // tree-sitter gives it its name's, since symbols nest by range.
    Known {
        server: "ty",
        file: "decls.py",
        rows: &[],
        ranges: &[
            ("@75:5 Variable - index", "75:1-76:17", "75:5-75:10"),
            ("@78:24 Variable - handle", "78:1-79:30", "78:24-78:30"),
        ],
    },
    // clangd gives a typedef of a struct, and a member whose type is an
    // anonymous union, the whole declaration's range, in which the struct
    // or union it also lists as their sibling lies; tree-sitter gives them
    // their name's range, since symbols nest by range.
    Known {
        server: "clangd",
        file: "include/shapes.h",
        rows: &[],
        ranges: &[
            ("  @33:7 Field - as", "30:5-33:9", "33:7-33:9"),
            ("@34:3 Class - shape_t", "28:1-34:10", "34:3-34:10"),
        ],
    },
    // A declaration behind an export macro, `SHAPES_PUBLIC(const char *)
    // shapes_version(void);`, is no declaration to tree-sitter (the file
    // has syntax errors to it): sextant reads clangd's outline for such a
    // file once clangd is up, and resolves names through it
    // (tests/c.rs).
    Known {
        server: "clangd",
        file: "include/version.h",
        rows: &[("@9:29 Function - shapes_version", "")],
        ranges: &[],
    },
    // Its definition parses; clangd starts its range at the macro's
    // argument, tree-sitter at the macro.
    Known {
        server: "clangd",
        file: "src/version.c",
        rows: &[],
        ranges: &[("@3:29 Function - shapes_version", "3:15-3:67", "3:1-3:67")],
    },
    // As in shapes.h; and clangd lists only the active branch of an
    // `#ifdef` (tree-sitter cannot tell which is: it lists both), and
    // ends the first name of `int x, y;` at that name (tree-sitter: every
    // name at the declaration's end).
    Known {
        server: "clangd",
        file: "decls.c",
        rows: &[("", "@41:5 Function - extra")],
        ranges: &[
            ("  @28:9 Field - x", "28:5-28:10", "28:5-28:14"),
            ("@29:3 Class - point", "27:1-29:8", "29:3-29:8"),
            ("@31:28 Class - level", "31:1-31:33", "31:28-31:33"),
        ],
    },
    // clangd lists `namespace outer::inner` as two namespaces, one in the
    // other, tree-sitter as the one it declares; clangd puts an anonymous
    // namespace at its `{`, tree-sitter at `namespace`; and a template's
    // `template <...>` line is in tree-sitter's range (see geometry.hpp).
    Known {
        server: "clangd",
        file: "decls.cpp",
        rows: &[
            ("@4:11 Namespace - outer", "@4:11 Namespace - outer::inner"),
            ("  @4:18 Namespace - inner", "  @5:5 Variable - depth"),
            (
                "    @5:5 Variable - depth",
                "@8:1 Namespace - (anonymous namespace)",
            ),
            ("@8:11 Namespace - (anonymous namespace)", ""),
        ],
        ranges: &[
            ("  @5:5 Variable - depth", "4:16-6:2", "5:1-5:15"),
            (
                "@8:1 Namespace - (anonymous namespace)",
                "5:1-5:14",
                "8:1-10:2",
            ),
            ("@17:7 Class - Box", "17:1-29:2", "16:1-29:2"),
        ],
    },
    // clangd's range of a template starts at the declaration after its
    // `template <...>` line; tree-sitter's takes that line in, as the
    // signature does.
    Known {
        server: "clangd",
        file: "cpp/geometry.hpp",
        rows: &[],
        ranges: &[("  @51:3 Function - largest", "51:1-59:2", "50:1-59:2")],
    },
];

/// One symbol of a flattened outline.
struct Row {
    /// `@line:char Kind - name`, two spaces of indent per level.
    text: String,
    range: Range,
}

fn flatten(symbols: &[OutlineSymbol]) -> Vec<Row> {
    outline_rows(symbols)
        .into_iter()
        .map(|(text, symbol)| Row {
            text,
            range: symbol.range,
        })
        .collect()
}

fn show(range: Range) -> String {
    format!("{}-{}", range.start, range.end)
}

/// The two lists aligned: rows both list (a longest common subsequence) side
/// by side, and between two of those, the rows only one side lists paired
/// in order (a row without a partner faces `None`).
fn align<'a>(server: &'a [Row], tree: &'a [Row]) -> Vec<(Option<&'a Row>, Option<&'a Row>)> {
    let (n, m) = (server.len(), tree.len());
    // common[i][j]: the longest common subsequence of server[i..] and tree[j..].
    let mut common = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            common[i][j] = if server[i].text == tree[j].text {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let mut pairs = Vec::new();
    let (mut only_server, mut only_tree) = (Vec::new(), Vec::new());
    let flush = |pairs: &mut Vec<_>, a: &mut Vec<&'a Row>, b: &mut Vec<&'a Row>| {
        for k in 0..a.len().max(b.len()) {
            pairs.push((a.get(k).copied(), b.get(k).copied()));
        }
        a.clear();
        b.clear();
    };
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && server[i].text == tree[j].text {
            flush(&mut pairs, &mut only_server, &mut only_tree);
            pairs.push((Some(&server[i]), Some(&tree[j])));
            i += 1;
            j += 1;
        } else if j == m || (i < n && common[i + 1][j] >= common[i][j + 1]) {
            only_server.push(&server[i]);
            i += 1;
        } else {
            only_tree.push(&tree[j]);
            j += 1;
        }
    }
    flush(&mut pairs, &mut only_server, &mut only_tree);
    pairs
}

/// Whether two ranges differ only by the `;` that ends a declaration: a
/// server's range of a member or a C declaration may end before or after
/// it, a tree-sitter node the other way (the `;` belongs to the body or
/// the declaration around it). Excerpts are whole lines and signatures are
/// found by name, so nothing shown differs.
fn differ_by_semicolon(text: &str, a: Range, b: Range) -> bool {
    let (short, long) = if a.end < b.end { (a, b) } else { (b, a) };
    if short.start != long.start
        || short.end.line != long.end.line
        || short.end.character + 1 != long.end.character
    {
        return false;
    }
    let line = text.lines().nth(short.end.line as usize - 1).unwrap_or("");
    line.chars().nth(short.end.character as usize - 1) == Some(';')
}

/// Compares one file's outlines; `Some(report)` if they disagree other than
/// as `KNOWN` says.
async fn compare(f: &Fixture, file: &str) -> Option<String> {
    let server_name = f
        .ctx
        .lsp
        .client_for(&f.path(file))
        .await
        .expect("a running server")
        .server()
        .to_string();
    let server = flatten(&filter_outline(server_outline(f, file).await));
    assert!(!server.is_empty(), "{file}: the server lists no symbols");

    let language = Language::from_path(&f.path(file)).expect("a language with an outline");
    let source = f.read(file);
    let parsed = syntax::parse(language, source.clone());
    let tree = flatten(parsed.outline());

    let mut rows = Vec::new();
    let mut ranges = Vec::new();
    for (s, t) in align(&server, &tree) {
        let text = |row: Option<&Row>| row.map_or(String::new(), |r| r.text.clone());
        if s.map(|r| &r.text) != t.map(|r| &r.text) {
            rows.push((text(s), text(t)));
        }
        if let (Some(s), Some(t)) = (s, t)
            && s.range != t.range
            && !differ_by_semicolon(&source, s.range, t.range)
        {
            ranges.push((t.text.clone(), show(s.range), show(t.range)));
        }
    }

    let known = KNOWN
        .iter()
        .find(|k| k.file == file && k.server == server_name);
    let known_rows: Vec<(String, String)> = known
        .map_or(&[][..], |k| k.rows)
        .iter()
        .map(|&(s, t)| (s.to_string(), t.to_string()))
        .collect();
    let known_ranges: Vec<(String, String, String)> = known
        .map_or(&[][..], |k| k.ranges)
        .iter()
        .map(|&(row, s, t)| (row.to_string(), s.to_string(), t.to_string()))
        .collect();
    if rows == known_rows && ranges == known_ranges {
        return None;
    }
    let listing = |rows: &[Row]| {
        rows.iter()
            .map(|r| format!("{}    {}\n", r.text, show(r.range)))
            .collect::<String>()
    };
    Some(format!(
        "{file}: the outlines of {server_name} and tree-sitter disagree other than as KNOWN says\n\
         rows (server, tree-sitter):\n  found    {rows:?}\n  expected {known_rows:?}\n\
         ranges (tree-sitter row, server, tree-sitter):\n  found    {ranges:?}\n  expected {known_ranges:?}\n\
         --- server\n{}--- tree-sitter\n{}",
        listing(&server),
        listing(&tree)
    ))
}

/// Compares every file under the fixture's `folder` that has an outline,
/// and checks every `KNOWN` entry of this fixture's server named a file it
/// compared.
async fn check_fixture(f: &Fixture, server: &str, folder: &str, extension: &str) {
    let mut files: Vec<String> = std::fs::read_dir(f.path(folder))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|file| file.ends_with(extension))
        .map(|file| match folder {
            "." => file,
            _ => format!("{folder}/{file}"),
        })
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for file in &files {
        if let Some(report) = compare(f, file).await {
            failures.push(report);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let in_folder = |file: &str| match file.rsplit_once('/') {
        Some((dir, _)) => dir == folder,
        None => folder == ".",
    };
    for known in KNOWN
        .iter()
        .filter(|k| k.server == server && in_folder(k.file) && k.file.ends_with(extension))
    {
        assert!(
            files.iter().any(|file| file == known.file),
            "KNOWN names {}, which was not compared with {server}",
            known.file
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_go_and_tree_sitter_agree() {
    let f = fixture("ts");
    check_fixture(&f, TYPESCRIPT_GO, "src", ".ts").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_language_server_and_tree_sitter_agree() {
    let f = fixture_on("ts", TYPESCRIPT_LANGUAGE_SERVER);
    check_fixture(&f, TYPESCRIPT_LANGUAGE_SERVER, "src", ".ts").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_analyzer_and_tree_sitter_agree() {
    check_fixture(&fixture("rust"), "rust-analyzer", "src", ".rs").await;
}

/// CommonJS: the members a module assigns (`exports.x`, `module.exports =
/// { … }`, `res.x = function`), on both TypeScript servers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commonjs_outlines_agree() {
    check_fixture(&fixture("commonjs"), TYPESCRIPT_GO, "lib", ".js").await;
    let f = fixture_on("commonjs", TYPESCRIPT_LANGUAGE_SERVER);
    check_fixture(&f, TYPESCRIPT_LANGUAGE_SERVER, "lib", ".js").await;
}

/// Python: the `python` fixture's package, and every form of declaration
/// (`syntax/decls.py`: decorated methods, overloads, nested classes, names
/// bound under `if`, `try`, `for` and `with`), on ty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ty_and_tree_sitter_agree() {
    check_fixture(&fixture("python"), "ty", "shapes", ".py").await;
    check_fixture(&fixture("syntax"), "ty", ".", ".py").await;
}

/// C and C++ (headers parsed as C++): the `c` fixture on clangd, with its
/// compilation database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clangd_and_tree_sitter_agree() {
    let f = fixture("c");
    check_fixture(&f, "clangd", "include", ".h").await;
    check_fixture(&f, "clangd", "src", ".c").await;
    check_fixture(&f, "clangd", "cpp", ".hpp").await;
    check_fixture(&f, "clangd", "cpp", ".cpp").await;
    let syntax = fixture("syntax");
    check_fixture(&syntax, "clangd", ".", ".c").await;
    check_fixture(&syntax, "clangd", ".", ".cpp").await;
}

/// Go on gopls, where one is installed (Go's module proxy, which `go
/// install` needs, is not reachable from every machine the tests run on;
/// scripts/test.sh installs Debian's gopls where it can): skipped, saying
/// so, where none is found.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gopls_and_tree_sitter_agree() {
    let f = fixture("go");
    if let Some(why) = common::gopls_missing(&f) {
        eprintln!("skipped: {why}");
        return;
    }
    check_fixture(&f, "gopls", ".", ".go").await;
}
