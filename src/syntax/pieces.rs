//! Parsing a large text in pieces, one per core.
//!
//! tree-sitter parses one text on one thread, about 35 MB/s for TypeScript
//! here, so a 2 MB `.d.ts` costs 60 ms or more. A text of several hundred
//! kilobytes is therefore cut at top-level declaration boundaries and the
//! pieces are parsed at once, each on its own thread, by parsers limited to
//! their piece (tree-sitter's included ranges). Every tree keeps the
//! offsets and points of the whole text, so nothing downstream shifts a
//! position: a symbol found in any piece is where it is in the file.
//!
//! A cut is only made where a top-level statement has just ended (a line
//! that starts at column 0 and ends with `}` or `;`) and a declaration
//! begins (a line at column 0 that opens with a declaration keyword, a
//! comment or an attribute). Should a cut still land inside something (a
//! template literal, a raw string, a macro), one of the pieces does not
//! parse cleanly, and the text is parsed whole instead: the pieces are
//! used only when every one of them is free of errors. (Where the error
//! shows tells nothing: tree-sitter recovers from a template literal left
//! open at a cut by skipping its opening and parsing its contents as code,
//! so the error sits where the literal began, far from the cut. A large
//! file with a syntax error therefore costs a parse in pieces and a whole
//! one.)

use std::sync::OnceLock;

use tree_sitter::{Point, Range, Tree};

use super::{Language, LineIndex, grammar};

/// Each piece holds at least this many bytes: below it, starting a thread
/// costs more than it saves.
const MIN_PIECE_BYTES: usize = 256 * 1024;

/// At most this many pieces, whatever the core count.
const MAX_PIECES: usize = 8;

/// How many lines past the ideal cut a boundary is looked for.
const BOUNDARY_SEARCH_LINES: usize = 4000;

/// Parses `text`, in pieces on several threads when it is large enough and
/// the pieces parse cleanly, else whole. The trees cover the text in order.
pub(crate) fn parse(language: Language, text: &str, lines: &LineIndex) -> Vec<Tree> {
    let wanted = (text.len() / MIN_PIECE_BYTES).min(cores()).min(MAX_PIECES);
    parse_in(language, text, lines, wanted)
}

/// Parses `text` in up to `wanted` pieces (see [`parse`]).
pub(super) fn parse_in(
    language: Language,
    text: &str,
    lines: &LineIndex,
    wanted: usize,
) -> Vec<Tree> {
    if wanted > 1 {
        let cuts = cuts(language, text, lines, wanted);
        if cuts.len() > 2 {
            let trees = parse_pieces(language, text, lines, &cuts);
            if trees.iter().all(|tree| !tree.root_node().has_error()) {
                return trees;
            }
        }
    }
    vec![grammar::parse(language, text, None)]
}

/// The cores this process may use, asked once.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Byte offsets where the pieces start, with the text's end last: `[0, ..,
/// len]`. Fewer pieces than wanted when no boundary is found near a cut.
fn cuts(language: Language, text: &str, lines: &LineIndex, wanted: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    for k in 1..wanted {
        let ideal = text.len() / wanted * k;
        let from = lines.point(ideal).0.max(1);
        let previous = *cuts.last().expect("cuts start with 0");
        if let Some(cut) = boundary_from(language, text, lines, from)
            .filter(|&cut| cut > previous && cut < text.len())
        {
            cuts.push(cut);
        }
    }
    cuts.push(text.len());
    cuts
}

/// The start of the first line at or after line `from` (0-based) where one
/// top-level declaration has ended and the next begins.
fn boundary_from(language: Language, text: &str, lines: &LineIndex, from: usize) -> Option<usize> {
    let last = lines.line_count().min(from + BOUNDARY_SEARCH_LINES);
    // The last non-blank line before the candidate.
    let mut before = (0..from)
        .rev()
        .map(|row| lines.line(text, row))
        .find(|line| !line.trim().is_empty())?;
    for row in from..last {
        let line = lines.line(text, row);
        if line.trim().is_empty() {
            continue;
        }
        if ends_top_level_statement(before) && declaration_follows(language, text, lines, row) {
            return Some(lines.line_start(row));
        }
        before = line;
    }
    None
}

/// A code line at column 0 that ends a statement or a block (a comment or
/// attribute line never does: `/// assert_eq!(f(), 3);` is inside a doc
/// block).
fn ends_top_level_statement(line: &str) -> bool {
    let starts_at_column_0 = line.chars().next().is_some_and(|c| !c.is_whitespace());
    starts_at_column_0 && !is_comment_or_attribute(line) && line.trim_end().ends_with(['}', ';'])
}

fn is_comment_or_attribute(line: &str) -> bool {
    let line = line.trim_start();
    ["//", "/*", "*", "#", "@"]
        .iter()
        .any(|start| line.starts_with(start))
}

/// Line `row` begins a declaration, after any comments: the first code
/// line from there starts at column 0 with a declaration keyword or an
/// attribute. (A comment followed by `(x).y = 1` is no boundary: without a
/// `;`, TypeScript reads that line as a call on what came before.)
fn declaration_follows(language: Language, text: &str, lines: &LineIndex, row: usize) -> bool {
    let last = lines.line_count().min(row + BOUNDARY_SEARCH_LINES);
    let mut in_block_comment = false;
    for row in row..last {
        let line = lines.line(text, row);
        let trimmed = line.trim_start();
        if in_block_comment {
            in_block_comment = !trimmed.contains("*/");
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with("//") {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("/*") {
            in_block_comment = !rest.contains("*/");
            continue;
        }
        return language.begins_declaration(line);
    }
    false
}

/// Parses each piece `cuts[i]..cuts[i + 1]` on its own thread (the first on
/// this one).
fn parse_pieces(language: Language, text: &str, lines: &LineIndex, cuts: &[usize]) -> Vec<Tree> {
    let ranges: Vec<Range> = cuts
        .windows(2)
        .map(|piece| Range {
            start_byte: piece[0],
            end_byte: piece[1],
            start_point: point(lines, piece[0]),
            end_point: point(lines, piece[1]),
        })
        .collect();
    in_parallel(&ranges, |&range| {
        grammar::parse(language, text, Some(range))
    })
}

/// `work` on each item, the first on this thread and each other on its
/// own, the results in order. Work whose thread could not start (a process
/// limit) or panicked is done again here, so a panic that is not the
/// thread's fault still reaches the caller.
pub(crate) fn in_parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let Some((first, rest)) = items.split_first() else {
        return Vec::new();
    };
    let work = &work;
    std::thread::scope(|scope| {
        let others: Vec<_> = rest
            .iter()
            .map(|item| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || work(item))
                    .ok()
            })
            .collect();
        let mut results = vec![work(first)];
        for (handle, item) in others.into_iter().zip(rest) {
            let done = handle.and_then(|handle| handle.join().ok());
            results.push(done.unwrap_or_else(|| work(item)));
        }
        results
    })
}

fn point(lines: &LineIndex, offset: usize) -> Point {
    let (row, column) = lines.point(offset);
    Point { row, column }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_fall_between_top_level_declarations() {
        let text = "interface A {\n  x: number;\n}\n\nconst s = `\n}\nexport const y = 1;\n`;\n/** B */\nexport class B {\n}\ntype C = A;\n";
        let lines = LineIndex::new(text);
        let first = boundary_from(Language::named("TypeScript").unwrap(), text, &lines, 1).unwrap();
        assert_eq!(&text[first..], &text[text.find("\nconst s").unwrap() + 1..]);
        // Inside the template literal a `}` line at column 0 is followed
        // by an `export` line: a boundary by the lines alone. That is the
        // risk the error check of `parse` covers (see the test below).
        let inside =
            boundary_from(Language::named("TypeScript").unwrap(), text, &lines, 5).unwrap();
        assert!(text[inside..].starts_with("export const y"));
        let after_literal =
            boundary_from(Language::named("TypeScript").unwrap(), text, &lines, 7).unwrap();
        assert!(text[after_literal..].starts_with("/** B */"));
        let last = boundary_from(Language::named("TypeScript").unwrap(), text, &lines, 10).unwrap();
        assert!(text[last..].starts_with("type C"));
        // No boundary after the last declaration.
        assert_eq!(
            boundary_from(Language::named("TypeScript").unwrap(), text, &lines, 12),
            None
        );

        // A comment goes with the declaration after it, and only a
        // declaration: `(x).y` after a `}` continues the statement before.
        let text = "export const g = function () {\n}\n// note\n(globalThis).g = g;\n/* doc\n   more */\nexport const h = 1;\n";
        let lines = LineIndex::new(text);
        let cut = boundary_from(Language::named("TypeScript").unwrap(), text, &lines, 1).unwrap();
        assert!(text[cut..].starts_with("/* doc"), "{:?}", &text[cut..]);

        // A doc block's lines end in `;` often; they end no statement.
        let text = "pub fn a() {}\n/// ```\n/// assert_eq!(b(), 3);\n/// ```\npub fn b() -> i32 {\n    3\n}\nfn c() {}\n";
        let lines = LineIndex::new(text);
        let cut = boundary_from(Language::named("Rust").unwrap(), text, &lines, 2).unwrap();
        assert!(text[cut..].starts_with("fn c"), "{:?}", &text[cut..]);
        let cut = boundary_from(Language::named("Rust").unwrap(), text, &lines, 1).unwrap();
        assert!(text[cut..].starts_with("/// ```"), "{:?}", &text[cut..]);
    }

    #[test]
    fn keywords_need_a_word_boundary() {
        let (rust, typescript) = (
            Language::named("Rust").unwrap(),
            Language::named("TypeScript").unwrap(),
        );
        assert!(rust.begins_declaration("pub(crate) fn f() {}"));
        assert!(rust.begins_declaration("#[derive(Debug)]"));
        assert!(rust.begins_declaration("macro_rules! m {"));
        assert!(!rust.begins_declaration("public_thing();"));
        assert!(!typescript.begins_declaration("types.push(1);"));
        assert!(!typescript.begins_declaration("  export const x = 1;"));
        assert!(typescript.begins_declaration("@Component()"));
        assert!(!typescript.begins_declaration("// export"));
        assert!(!ends_top_level_statement("  }"));
        assert!(!ends_top_level_statement("/// f();"));
        assert!(!ends_top_level_statement("#[cfg(test)];"));
        assert!(ends_top_level_statement("};"));
        assert!(ends_top_level_statement("}\r"));
    }

    /// A text big enough to be cut, with a template literal that looks like
    /// a boundary from inside: the pieces hold an error there, so the text
    /// is parsed whole, and the outline is the same as a whole parse's
    /// either way.
    #[test]
    fn pieces_give_the_whole_text_s_tree_or_are_not_used() {
        let mut clean = String::new();
        for i in 0..4000 {
            clean.push_str(&format!(
                "/** Doc {i}. */\nexport interface Item{i} {{\n  name: string;\n  size(unit: \"m\" | \"ft\"): number;\n}}\n\n"
            ));
        }
        let lines = LineIndex::new(&clean);
        let cuts = super::cuts(Language::named("TypeScript").unwrap(), &clean, &lines, 4);
        assert_eq!(cuts.len(), 5, "{cuts:?}");
        let pieces = parse_pieces(
            Language::named("TypeScript").unwrap(),
            &clean,
            &lines,
            &cuts,
        );
        assert!(pieces.iter().all(|t| !t.root_node().has_error()));
        let whole = grammar::parse(Language::named("TypeScript").unwrap(), &clean, None);
        let top_level = |trees: &[Tree]| -> Vec<(usize, usize, String)> {
            trees
                .iter()
                .flat_map(|tree| {
                    let root = tree.root_node();
                    let mut cursor = root.walk();
                    root.named_children(&mut cursor)
                        .map(|n| (n.start_byte(), n.end_byte(), n.kind().to_string()))
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        assert_eq!(top_level(&pieces), top_level(std::slice::from_ref(&whole)));
        // Points are the whole text's, not the piece's.
        let second = pieces[1].root_node().named_child(0).unwrap();
        assert_eq!(
            second.start_position().row,
            lines.point(second.start_byte()).0
        );

        // The same text with a template literal around its middle: the cut
        // lands inside it, the pieces hold errors, and the text is parsed
        // whole.
        let middle = clean.len() / 2;
        let open = clean[..middle - 2000].rfind("\n/** Doc").unwrap() + 1;
        let close = clean[middle + 2000..].find("\n/** Doc").unwrap() + middle + 2001;
        let mut tricky = String::new();
        tricky.push_str(&clean[..open]);
        tricky.push_str("export const t = `\n");
        tricky.push_str(&clean[open..close]);
        tricky.push_str("`;\n");
        tricky.push_str(&clean[close..]);
        let lines = LineIndex::new(&tricky);
        let cuts = super::cuts(Language::named("TypeScript").unwrap(), &tricky, &lines, 2);
        assert!(open < cuts[1] && cuts[1] < close, "{cuts:?}");
        let pieces = parse_pieces(
            Language::named("TypeScript").unwrap(),
            &tricky,
            &lines,
            &cuts,
        );
        assert!(pieces.iter().any(|t| t.root_node().has_error()));
        let trees = parse_in(Language::named("TypeScript").unwrap(), &tricky, &lines, 2);
        assert_eq!(trees.len(), 1);
        assert!(!trees[0].root_node().has_error());
        let whole = grammar::parse(Language::named("TypeScript").unwrap(), &tricky, None);
        assert_eq!(top_level(&trees), top_level(std::slice::from_ref(&whole)));
    }

    /// The outline and every signature of a text parsed in pieces are
    /// those of the same text parsed whole: the fixtures with every
    /// declaration form (and non-ASCII names), repeated into a large file.
    #[test]
    fn an_outline_from_pieces_is_the_whole_text_s_outline() {
        use crate::model::OutlineSymbol;
        use crate::syntax::SourceFile;

        fn flatten<'a>(symbols: &'a [OutlineSymbol], out: &mut Vec<&'a OutlineSymbol>) {
            for symbol in symbols {
                out.push(symbol);
                flatten(&symbol.children, out);
            }
        }
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/syntax");
        let sets = [
            (
                Language::named("TypeScript").unwrap(),
                ["decls.ts", "unicode.ts"],
            ),
            (Language::named("Rust").unwrap(), ["decls.rs", "unicode.rs"]),
        ];
        for (language, files) in sets {
            let mut text = String::new();
            while text.len() < 3 * 100 * 1024 {
                for file in files {
                    text.push_str(&std::fs::read_to_string(fixtures.join(file)).unwrap());
                    text.push('\n');
                }
            }
            let lines = LineIndex::new(&text);
            let split = SourceFile {
                language,
                trees: parse_in(language, &text, &lines, 3),
                text: text.clone(),
                lines: lines.clone(),
                derived: OnceLock::new(),
                conditional_file: OnceLock::new(),
            };
            assert_eq!(split.trees.len(), 3, "{language:?}: not cut in 3");
            let whole = SourceFile {
                language,
                trees: vec![grammar::parse(language, &text, None)],
                text,
                lines,
                derived: OnceLock::new(),
                conditional_file: OnceLock::new(),
            };
            assert_eq!(split.outline(), whole.outline(), "{language:?}");
            let mut symbols = Vec::new();
            flatten(whole.outline(), &mut symbols);
            assert!(symbols.len() > 1000, "{language:?}: {}", symbols.len());
            for symbol in symbols {
                assert_eq!(
                    split.signature(symbol),
                    whole.signature(symbol),
                    "{language:?} {}",
                    symbol.name
                );
            }
        }
    }
}
