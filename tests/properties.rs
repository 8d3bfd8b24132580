//! Property tests of the pure parsers, on generated input that hits their
//! edges (CRLF and lone CR, tabs, multi-byte and astral characters, empty
//! lines, positions past the ends, names holding separators):
//! - position conversion (`lsp::convert::LineIndex`) round trips in every
//!   encoding, and never panics out of range;
//! - symbol addresses: every symbol of a generated outline resolves by its
//!   name path, and any text as a path is an answer or a clear error;
//! - glob and regex options: any pattern compiles or is `invalid-glob` /
//!   `invalid-regex`, never a panic;
//! - `key=value` command-line arguments: every tool's parameters round trip
//!   through `cli::parse_params` by their schema types;
//! - patch application (`edit` then `apply_patch`): the file becomes exactly
//!   the text with the one replacement, line endings kept; a file changed
//!   after the preview is left as the other writer made it.

mod common;

use proptest::prelude::*;
use serde_json::{Value, json};
use sextant::lsp::convert::{Encoding, LineIndex};
use sextant::model::{OutlineSymbol, Position, Range, SymbolKind};

const ENCODINGS: [Encoding; 3] = [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32];

/// A line's characters: ASCII, a tab, Latin-1, a BMP symbol, an astral
/// character (two UTF-16 units) and a combining mark.
fn line_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => proptest::char::range('a', 'z'),
            1 => Just(' '),
            1 => Just('\t'),
            1 => Just('é'),
            1 => Just('€'),
            1 => Just('𝄞'),
            1 => Just('😀'),
            1 => Just('\u{301}'),
        ],
        0..12,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// A text of lines ended by `\n`, `\r\n` or `\r`, the last one maybe not.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        (
            line_text(),
            prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
        ),
        0..8,
    )
    .prop_flat_map(|lines| {
        let body: String = lines.iter().map(|(l, end)| format!("{l}{end}")).collect();
        (Just(body), line_text()).prop_map(|(body, last)| body + &last)
    })
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Every position on a line (up to just past its end) goes to LSP and
    /// back unchanged in every encoding, and to a byte offset and back.
    #[test]
    fn positions_round_trip(text in text()) {
        let index = LineIndex::new(&text);
        for line in 0..index.line_count() {
            let content = index.line(line).unwrap();
            prop_assert!(!content.contains('\n') && !content.contains('\r'));
            for character in 1..=content.chars().count() as u32 + 1 {
                let position = Position::new(line as u32 + 1, character);
                let prefix: String = content.chars().take(character as usize - 1).collect();
                for encoding in ENCODINGS {
                    let lsp = index.to_lsp(position, encoding).unwrap();
                    // The units as the standard library counts them.
                    let units = match encoding {
                        Encoding::Utf8 => prefix.len(),
                        Encoding::Utf16 => prefix.encode_utf16().count(),
                        Encoding::Utf32 => prefix.chars().count(),
                    };
                    prop_assert_eq!((lsp.line, lsp.character as usize), (line as u32, units));
                    prop_assert_eq!(index.to_model(lsp, encoding), position, "{:?} {:?}", encoding, lsp);
                }
                let offset = index.offset_of(position).unwrap();
                prop_assert!(text.is_char_boundary(offset));
                prop_assert_eq!(index.byte_to_model(offset), position);
            }
        }
    }

    /// Positions out of range: a line past the end has no LSP position; an
    /// LSP position anywhere clamps into the text, never panicking.
    #[test]
    fn positions_out_of_range_clamp_or_refuse(text in text(), line in 0u32..20, character in 0u32..40, offset in 0usize..400) {
        let index = LineIndex::new(&text);
        let lines = index.line_count() as u32;
        for encoding in ENCODINGS {
            let lsp = index.to_lsp(Position::new(line, character), encoding);
            prop_assert_eq!(lsp.is_some(), line >= 1 && line <= lines);
            let model = index.to_model(lsp_types::Position::new(line, character), encoding);
            prop_assert!(model.line >= 1 && model.line <= lines);
            let content = index.line(model.line as usize - 1).unwrap();
            prop_assert!(model.character >= 1 && model.character <= content.chars().count() as u32 + 1);
        }
        let at = index.byte_to_model(offset);
        prop_assert!(at.line >= 1 && at.line <= lines);
    }
}

/// A symbol name: plain identifiers, overload-prone repeats, and names
/// holding separators as real outlines have them.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(vec!["a", "b", "add", "Registry", "ß", "名前"]).prop_map(str::to_string),
        1 => Just("impl fmt::Display for Ledger".to_string()),
        1 => Just("[Symbol.iterator]".to_string()),
        1 => Just("impl Area for Shape".to_string()),
    ]
}

fn outline(depth: u32) -> BoxedStrategy<Vec<OutlineSymbol>> {
    let leaf = name().prop_map(|name| symbol(name, Vec::new()));
    let node = if depth == 0 {
        leaf.boxed()
    } else {
        (name(), outline(depth - 1))
            .prop_map(|(name, children)| symbol(name, children))
            .boxed()
    };
    proptest::collection::vec(node, 0..4).boxed()
}

fn symbol(name: String, children: Vec<OutlineSymbol>) -> OutlineSymbol {
    let at = Range::new(Position::new(1, 1), Position::new(1, 2));
    OutlineSymbol {
        name,
        kind: SymbolKind::Function,
        detail: None,
        range: at,
        selection_range: at,
        qualifier: None,
        children,
    }
}

/// Every symbol with the names of its chain from the root.
fn chains<'a>(
    outline: &'a [OutlineSymbol],
    above: &mut Vec<&'a str>,
    out: &mut Vec<(Vec<&'a str>, &'a OutlineSymbol)>,
) {
    for symbol in outline {
        above.push(&symbol.name);
        out.push((above.clone(), symbol));
        chains(&symbol.children, above, out);
        above.pop();
    }
}

proptest! {
    #![proptest_config(config())]

    /// Every symbol resolves by its name path joined the file's way (with
    /// its overloads, or as one of the candidates of an ambiguous path).
    #[test]
    fn every_symbol_resolves_by_its_name_path(outline in outline(2), separator in prop_oneof![Just("."), Just("::")]) {
        let mut all = Vec::new();
        chains(&outline, &mut Vec::new(), &mut all);
        for (names, wanted) in all {
            let path = sextant::tools::name_path::join_path(&names, separator);
            match sextant::tools::name_path::resolve_name_path(&outline, &path, "f.ts", separator) {
                Ok(group) => prop_assert!(
                    group.symbols.iter().any(|s| std::ptr::eq(*s, wanted)),
                    "{} resolved to {}", path, group.path
                ),
                Err(err) => prop_assert_eq!(err.code, sextant::error::ErrorCode::AmbiguousMatch, "{}: {}", path, err.message),
            }
        }
    }

    /// Any text as a name path is an answer or a clear error.
    #[test]
    fn any_name_path_is_an_answer_or_an_error(outline in outline(1), path in "\\PC{0,24}") {
        use sextant::error::ErrorCode;
        match sextant::tools::name_path::resolve_name_path(&outline, &path, "f.ts", ".") {
            Ok(group) => prop_assert!(!group.symbols.is_empty(), "{}", path),
            Err(err) => prop_assert!(
                matches!(err.code, ErrorCode::NotFound | ErrorCode::AmbiguousMatch) && !err.message.is_empty(),
                "{:?}: {}", err.code, err.message
            ),
        }
    }

    /// Any glob compiles or is `invalid-glob`; any regex compiles or is
    /// `invalid-regex`, whatever the options.
    #[test]
    fn any_pattern_compiles_or_is_a_clear_error(
        pattern in "[a-z*?\\[\\]{},!/\\\\().+|^$]{0,16}",
        case_insensitive: bool,
        multiline: bool,
    ) {
        if let Err(err) = sextant::fs::walk::compile_glob(&pattern) {
            prop_assert_eq!(err.code, sextant::error::ErrorCode::InvalidGlob);
            prop_assert!(err.message.contains(&pattern) || pattern.is_empty(), "{}", err.message);
        }
        if let Err(err) = sextant::fs::grep::compile(&pattern, case_insensitive, multiline) {
            prop_assert_eq!(err.code, sextant::error::ErrorCode::InvalidRegex);
        }
    }
}

/// A value of a JSON Schema type, and how it is written on the command line.
fn typed_value(kind: &str) -> BoxedStrategy<Value> {
    match kind {
        "integer" => any::<i32>().prop_map(|n| json!(n)).boxed(),
        "boolean" => any::<bool>().prop_map(|b| json!(b)).boxed(),
        "array" => proptest::collection::vec("[a-zA-Z0-9 ]{0,6}", 0..3)
            .prop_map(|v| json!(v))
            .boxed(),
        // Strings stay as written: spaces, `=`, quotes, JSON-looking text.
        _ => "[a-zA-Z0-9 =:\\\"\\[\\]{}.,*/-]{0,20}"
            .prop_map(Value::String)
            .boxed(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Every parameter of every tool, written `key=value`, comes back as
    /// the typed value: strings as written, other types parsed.
    #[test]
    fn key_value_arguments_round_trip(tool_index in 0usize..common::TOOLS.len(), seed in any::<u64>()) {
        let tools = sextant::tools::all();
        let tool = &tools[tool_index % tools.len()];
        let schema = sextant::server::schema::compact(tool.input_schema());
        let properties = schema["properties"].as_object().unwrap();
        let mut runner = proptest::test_runner::TestRunner::new_with_rng(
            ProptestConfig::default(),
            proptest::test_runner::TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &seed_bytes(seed)),
        );
        let mut words = Vec::new();
        let mut expected = serde_json::Map::new();
        for (key, property) in properties {
            let kind = property["type"].as_str().unwrap_or(if property.get("enum").is_some() { "string" } else { "object" });
            if kind == "object" {
                continue;
            }
            let value = typed_value(kind).new_tree(&mut runner).unwrap().current();
            let written = match &value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            words.push(format!("{key}={written}"));
            expected.insert(key.clone(), value);
        }
        let parsed = sextant::cli::parse_params(tool, None, &words).unwrap();
        prop_assert_eq!(parsed, expected);
    }
}

fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&(seed.wrapping_add(i as u64)).to_le_bytes());
    }
    bytes
}

/// A file's lines (ASCII and multi-byte), a line picked to change, and
/// whether the file ends lines with CRLF.
fn file_and_edit() -> impl Strategy<Value = (Vec<String>, usize, String, bool)> {
    proptest::collection::vec("[a-zé€ ]{0,10}", 1..12).prop_flat_map(|lines| {
        let count = lines.len();
        (Just(lines), 0..count, "[a-z😀]{1,8}", any::<bool>())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// `edit` of a unique line then `apply_patch` writes exactly the text
    /// with that one replacement, CRLF kept; a file changed after the
    /// preview is refused and keeps the other writer's text.
    #[test]
    fn patches_apply_exactly_or_not_at_all((lines, pick, new, crlf) in file_and_edit(), change_first: bool) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ctx = common::context(dir.path(), false);
        // Each line made unique by its number, so the edit's text is too
        // (bracketed: `0:` alone is also in `10:`).
        let lines: Vec<String> = lines.iter().enumerate().map(|(i, l)| format!("<{i}>:{l}")).collect();
        let ending = if crlf { "\r\n" } else { "\n" };
        let original = lines.join(ending) + ending;
        std::fs::write(dir.path().join("f.txt"), &original).unwrap();
        let old = lines[pick].clone();
        let replacement = format!("<{pick}>:{new}");
        // An edit to the same text is refused (no-change), not previewed.
        prop_assume!(replacement != old);
        let preview = runtime.block_on(common::run(&ctx, "edit", json!({"path": "f.txt", "old_string": old, "new_string": replacement})));
        let id = preview
            .lines()
            .find_map(|l| l.strip_prefix("patch: "))
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_else(|| panic!("no patch in {preview}"))
            .to_string();
        let mut expected = lines.clone();
        expected[pick] = replacement;
        let expected = expected.join(ending) + ending;
        if change_first {
            let other = original.replacen("<0>:", "<0>:other ", 1);
            std::fs::write(dir.path().join("f.txt"), &other).unwrap();
            let answer = runtime.block_on(common::run(&ctx, "apply_patch", json!({"patch": id})));
            prop_assert!(answer.starts_with("error[stale-patch]"), "{}", answer);
            prop_assert_eq!(std::fs::read_to_string(dir.path().join("f.txt")).unwrap(), other);
        } else {
            let answer = runtime.block_on(common::run(&ctx, "apply_patch", json!({"patch": id})));
            prop_assert!(answer.starts_with("Applied patch"), "{}", answer);
            prop_assert_eq!(std::fs::read_to_string(dir.path().join("f.txt")).unwrap(), expected);
        }
    }
}
