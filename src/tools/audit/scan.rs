//! Where a name appears in one file's text, and as what: the per-file
//! half of the text audit. A source file of the language is read by
//! tree-sitter (a name, or a comment or string); a component that embeds
//! the language (`.svelte`, `.vue`, `.astro`) by its script blocks, parsed
//! as the language, and a small reading of its template (expressions in
//! braces and attribute values are code, the rest is text); a Markdown
//! file by its fenced code blocks of the language.

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use crate::fs::new_text::{Edited, NewText};
use crate::fs::stamped::Stamp;
use crate::lsp::config::AuditScope;
use crate::model::Position;
use crate::syntax::{self, Language, LineIndex, Token, is_name_char as is_word};

/// A name's places in one file: as code, and in comments and strings
/// (or a component's template text).
#[derive(Debug, Default, PartialEq)]
pub struct Found {
    pub code: Vec<Position>,
    /// Names in conditional code (`#[cfg(windows)]`) outside `code`, when
    /// asked for.
    pub conditional: Vec<Position>,
    pub prose: Vec<Position>,
    /// The text read, by its stamp, where its places carry over to a
    /// rename of it (see [`renamed`]): one that parsed without an error,
    /// for a name that is no word of the grammar's own.
    pub carries: Option<Stamp>,
}

/// The words of a text (its longest runs of name characters, each once,
/// by hash): whether a name is a whole word of it is told without the
/// text, so a name's first walk of the workspace reads only the files
/// that may hold it (reading every file took the TypeScript SDK's first
/// renames 6 ms each). Kept by the file's stamp, as what was found in it
/// is.
#[derive(Debug)]
pub struct Words(Vec<u64>);

impl Words {
    pub fn of(text: &str) -> Words {
        let mut hashes: Vec<u64> = text
            .split(|c: char| !is_word(c))
            .filter(|word| !word.is_empty())
            .map(|word| xxhash_rust::xxh3::xxh3_64(word.as_bytes()))
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        Words(hashes)
    }

    /// Whether `name` may be a whole word of the text: surely not where
    /// this says no (a name of other characters always may).
    pub fn may_hold(&self, name: &str) -> bool {
        !name.chars().all(is_word)
            || self
                .0
                .binary_search(&xxhash_rust::xxh3::xxh3_64(name.as_bytes()))
                .is_ok()
    }

    /// The bytes it takes, roughly.
    pub fn weight(&self) -> usize {
        64 + self.0.len() * 8
    }
}

/// The byte offsets where `name` is a whole word of `text`.
pub fn word_offsets(text: &str, name: &str) -> Vec<usize> {
    if name.is_empty() || !text.contains(name) {
        return Vec::new();
    }
    text.match_indices(name)
        .map(|(at, _)| at)
        .filter(|&at| whole_word(text, at..at + name.len()))
        .collect()
}

/// Whether no name character is just before or just after `bytes` of
/// `text`.
fn whole_word(text: &str, bytes: Range<usize>) -> bool {
    !text[..bytes.start].chars().next_back().is_some_and(is_word)
        && !text[bytes.end..].chars().next().is_some_and(is_word)
}

/// `name` in a source file of the language: as code where tree-sitter
/// reads a name there within `scope`, else as conditional code where it is
/// under a conditional attribute (with `conditional`), as prose in a
/// comment or a string.
pub fn source(
    path: &Path,
    text: Cow<'_, str>,
    name: &str,
    scope: AuditScope,
    conditional: bool,
) -> Found {
    let offsets = word_offsets(&text, name);
    let Some(language) = Language::from_path(path).filter(|_| !offsets.is_empty()) else {
        return Found::default();
    };
    // Copied only to be parsed: most texts a rename hands in no longer
    // hold the name.
    let file = syntax::parse(language, text.into_owned());
    let mut carries = !file.has_syntax_errors() && !language.is_grammar_word(name);
    let attributes = conditional && file.has_conditional_attributes();
    let mut found = Found::default();
    for at in offsets {
        let position = file.lines().position(file.text(), at);
        // Each question of the place follows the same nodes: found once.
        let spot = file.spot(position);
        // Conditional code is told by its attribute's words: a place in
        // one, renamed, could change what is conditional.
        carries = carries && !(attributes && spot.in_conditional_attribute());
        match spot.token() {
            Token::Name if scope == AuditScope::Code || spot.in_macro() => {
                found.code.push(position)
            }
            Token::Name if conditional && spot.in_conditional() => found.conditional.push(position),
            Token::Comment | Token::Literal => found.prose.push(position),
            Token::Name | Token::Keyword => {}
        }
    }
    found.carries = carries.then(|| Stamp::of_text(file.text()));
    found
}

/// Where `name` is in `after`, a rename of `before` (the text `found`
/// was read from by `language`'s grammar, as its `carries` says) to
/// `new`: the places of `found` the rename left, each moved along its
/// line by the names renamed or spelled out before it there (and by the
/// new name, where it was put before the old: `new: name`). One name made
/// another, no word of the grammar's own, changes no token's kind around
/// it, nor does a place spelled out ([`SPELLED_OUT`]): a place read as
/// code, conditional code or prose stays so (`carries` is only set where
/// no place of the name is in the text of an attribute that makes code
/// conditional, which is read by its words). `None` where that cannot be
/// told without reading `after` again: `after` is not `before` with some
/// of the name's whole-word places made `new` or spelled out and nothing
/// else changed, `new` is not a plain name or is a word of the grammar,
/// or `before` is not the text read. (tree-sitter's TypeScript
/// scanner reads a line that begins with `in` or `instanceof` as going
/// on the line before: a name renamed to `in_flight` there parses with
/// an error, which the places carried over, following the code, do not
/// have.)
pub fn renamed(
    found: &Found,
    before: &Arc<str>,
    after: &NewText,
    name: &str,
    new: &str,
    language: Language,
) -> Option<Found> {
    let plain = !new.is_empty() && new != name && new.chars().all(is_word);
    if !plain || language.is_grammar_word(new) {
        return None;
    }
    let edited = after.edited_on(before);
    let before_stamp = edited.map_or_else(|| Stamp::of_text(before), Edited::base_stamp);
    if found.carries != Some(before_stamp) {
        return None;
    }
    // What the rename did at each of the places it changed, from its
    // replacements where each is one (a server's edit of a rename), else
    // read from both texts side by side.
    let changes = match edited.and_then(|edited| replaced_places(edited, name, new)) {
        Some(changes) => changes,
        None => read_places(before, after.as_str(), name, new)?,
    };
    let moved = |places: &[Position]| -> Vec<Position> {
        places
            .iter()
            .filter_map(|place| {
                // The changes before it on its line (both lists in order),
                // and its own.
                let line_start = changes.partition_point(|(at, _)| at.line < place.line);
                let own = changes.partition_point(|(at, _)| at < place);
                let earlier: i64 = changes[line_start..own].iter().map(|(_, c)| c.longer).sum();
                let shift = match changes.get(own) {
                    Some((at, change)) if at == place => change.shift?,
                    _ => 0,
                };
                // Never below the line's first character: each change
                // before it is at least as long as its shift.
                let character = i64::from(place.character) + earlier + shift;
                Some(Position::new(place.line, character as u32))
            })
            .collect()
    };
    Some(Found {
        code: moved(&found.code),
        conditional: moved(&found.conditional),
        prose: moved(&found.prose),
        // A rename's text, never one on disk: nothing is carried from it
        // (nor from a rename's text read, whose `carries` is never asked).
        carries: None,
    })
}

/// What the rename did at each of `name`'s places in `before` (in
/// order), read walking both texts side by side: `None` where `after` is
/// not `before` with some of those places made `new` or spelled out and
/// nothing else changed.
fn read_places(
    before: &str,
    after: &str,
    name: &str,
    new: &str,
) -> Option<Vec<(Position, Change)>> {
    let mut changes = Vec::new();
    let (mut read, mut at_after) = (0, 0);
    for at in word_offsets(before, name) {
        let between = &before[read..at];
        if after.get(at_after..at_after + between.len())? != between {
            return None;
        }
        at_after += between.len();
        let rest = &after[at_after..];
        let word = &rest[..rest.find(|c| !is_word(c)).unwrap_or(rest.len())];
        let change = if word == new || word == name {
            let beside = if word == new { name } else { new };
            let spelled = spelled_out(&before[at + name.len()..], &rest[word.len()..], beside);
            Change::at(word == new, spelled, name, new)
        } else {
            return None;
        };
        at_after += change.after_bytes;
        read = at + name.len();
        changes.push((at, change));
    }
    if after.get(at_after..)? != &before[read..] {
        return None;
    }
    let lines = LineIndex::new(before);
    let changes = changes
        .into_iter()
        .map(|(at, change)| (lines.position(before, at), change))
        .collect();
    Some(changes)
}

/// What the rename did at each place it replaced (in order), told from
/// the replacements alone: `None` unless each replaced a whole-word
/// place of `name` with `new`, or spelled it out. The places it left are
/// not changes: each stays where it was, and the texts between are alike
/// (so a place kept just before one renamed, `{ send: send }` made `{
/// send: ship }`, is told as kept, where [`read_places`] takes it for
/// spelled out and gives up).
fn replaced_places(edited: &Edited, name: &str, new: &str) -> Option<Vec<(Position, Change)>> {
    let base = &edited.base;
    let mut changes = Vec::with_capacity(edited.replaced().len());
    for replaced in edited.replaced() {
        let (start, end) = (replaced.bytes.start, replaced.bytes.end);
        if base[start..end] != *name || !whole_word(base, start..end) {
            return None;
        }
        let with = replaced.with.as_str();
        let word = &with[..with.find(|c| !is_word(c)).unwrap_or(with.len())];
        if word != new && word != name {
            return None;
        }
        // What follows the place after the rename: the rest of what
        // replaced it, then the text before, as far as a spelling out
        // could reach.
        let following = &base[end..];
        let following = &following[..following.floor_char_boundary(name.len().max(new.len()) + 8)];
        let rest = format!("{}{following}", &with[word.len()..]);
        let beside = if word == new { name } else { new };
        let spelled = spelled_out(following, &rest, beside);
        let change = Change::at(word == new, spelled, name, new);
        if change.after_bytes != with.len() {
            return None;
        }
        let line_start = memchr::memrchr(b'\n', &base.as_bytes()[..start]).map_or(0, |end| end + 1);
        let character = base[line_start..start].chars().count() + 1;
        let at = Position::new(replaced.line as u32 + 1, character as u32);
        changes.push((at, change));
    }
    Some(changes)
}

/// How a rename may spell the old name out beside the new one, at a
/// place it renamed: a shorthand property or field made whole
/// (`{ connect }` to `{ renamedConnect: connect }`, or `{ connect:
/// renamedConnect }` where the local was renamed) or an alias kept (`new
/// as name`). The old name stays there a name, as it was.
const SPELLED_OUT: [&str; 2] = [": ", " as "];

/// The separator `after` (the text after a renamed place) begins with
/// before `beside` as a whole word, where `before` (the text after that
/// place before the rename) does not: the rename spelled the place out.
fn spelled_out(before: &str, after: &str, beside: &str) -> Option<&'static str> {
    let begins = |text: &str, separator: &str| {
        text.strip_prefix(separator)
            .and_then(|rest| rest.strip_prefix(beside))
            .is_some_and(|rest| !rest.starts_with(is_word))
    };
    SPELLED_OUT
        .into_iter()
        .find(|separator| begins(after, separator) && !begins(before, separator))
}

/// What a rename did at one place of the old name (in characters, as
/// positions count them; but `after_bytes`).
struct Change {
    /// How much longer the place's text became: what follows it on its
    /// line moves by that much.
    longer: i64,
    /// Where the old name now is, from where it was; `None` where it is
    /// gone.
    shift: Option<i64>,
    /// The bytes the place took in the renamed text.
    after_bytes: usize,
}

impl Change {
    /// At a place of `name` read in the renamed text as `new` (`renamed`)
    /// or as `name`, spelled out with `separator` and the other of the
    /// two after it, or not.
    fn at(renamed: bool, separator: Option<&str>, name: &str, new: &str) -> Change {
        let chars = |text: &str| text.chars().count() as i64;
        let (first, shift) = if renamed {
            (new, None)
        } else {
            (name, Some(0))
        };
        match separator {
            None => Change {
                longer: chars(first) - chars(name),
                shift,
                after_bytes: first.len(),
            },
            Some(separator) => {
                let added = chars(separator) + chars(if renamed { name } else { new });
                Change {
                    longer: chars(first) - chars(name) + added,
                    // `new: name`: the old name after the new one.
                    shift: Some(shift.unwrap_or(chars(new) + chars(separator))),
                    after_bytes: name.len() + new.len() + separator.len(),
                }
            }
        }
    }
}

/// `name` in a component that embeds `language`'s code: its script
/// blocks are read as `language` source, its template by [`template`].
pub fn component(text: &str, name: &str, language: Language) -> Found {
    let offsets = word_offsets(text, name);
    if offsets.is_empty() {
        return Found::default();
    }
    let scripts = script_blocks(text);
    // The scripts alone, at their own offsets: the rest blanked out (line
    // breaks kept), so a position in the parse is one in the file.
    let masked: String = text
        .char_indices()
        .map(|(at, c)| {
            if c == '\n' || scripts.iter().any(|s| s.contains(&at)) {
                c
            } else {
                ' '
            }
        })
        .collect();
    let file = syntax::parse(language, masked);
    let template = template(text, &scripts);
    let mut found = Found::default();
    for at in offsets {
        let position = file.lines().position(file.text(), at);
        let code = if scripts.iter().any(|s| s.contains(&at)) {
            match file.token_at(position) {
                Token::Name => Some(true),
                Token::Comment | Token::Literal => Some(false),
                Token::Keyword => None,
            }
        } else {
            Some(template.iter().any(|t| t.contains(&at)))
        };
        match code {
            Some(true) => found.code.push(position),
            Some(false) => found.prose.push(position),
            None => {}
        }
    }
    found
}

/// The bodies of a component's `<script>` blocks, and an Astro
/// component's frontmatter (between its opening `---` lines).
fn script_blocks(text: &str) -> Vec<Range<usize>> {
    let mut blocks = Vec::new();
    if let Some(rest) = text.strip_prefix("---\n")
        && let Some(end) = rest.find("\n---")
    {
        blocks.push(4..4 + end);
    }
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while let Some(open) = lower[from..].find("<script").map(|at| from + at) {
        let Some(body) = lower[open..].find('>').map(|at| open + at + 1) else {
            break;
        };
        let end = lower[body..]
            .find("</script")
            .map_or(text.len(), |at| body + at);
        blocks.push(body..end);
        from = end;
    }
    blocks
}

/// Where a component's template holds code: inside braces (`{greet()}`,
/// `{{ greet() }}`) and in a tag's quoted attribute values
/// (`@click="greet"`). Text between tags, comments and `<style>` blocks
/// are not code. The `scripts` are read apart, and skipped.
fn template(text: &str, scripts: &[Range<usize>]) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut code = Vec::new();
    let (mut at, mut depth, mut start) = (0, 0usize, 0);
    let (mut in_tag, mut quote) = (false, None::<u8>);
    while at < bytes.len() {
        if let Some(script) = scripts.iter().find(|s| s.start == at) {
            at = script.end.max(at + 1);
            continue;
        }
        let rest = &text[at..];
        let b = bytes[at];
        if depth == 0 && quote.is_none() {
            if !in_tag && rest.starts_with("<!--") {
                at = rest.find("-->").map_or(bytes.len(), |end| at + end + 3);
                continue;
            }
            if !in_tag && rest.len() > 6 && rest[..6].eq_ignore_ascii_case("<style") {
                at = text[at..]
                    .to_ascii_lowercase()
                    .find("</style")
                    .map_or(bytes.len(), |end| at + end + 7);
                continue;
            }
        }
        match (b, quote) {
            (b'{', None) => {
                if depth == 0 {
                    start = at;
                }
                depth += 1;
            }
            (b'}', None) if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    code.push(start..at + 1);
                }
            }
            (b'"' | b'\'', None) if in_tag && depth == 0 => {
                quote = Some(b);
                start = at;
            }
            (q, Some(open)) if q == open => {
                quote = None;
                code.push(start..at + 1);
            }
            (b'<', None) if depth == 0 && !in_tag => {
                in_tag = bytes
                    .get(at + 1)
                    .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'/');
            }
            (b'>', None) if depth == 0 => in_tag = false,
            _ => {}
        }
        at += 1;
    }
    code
}

/// `name` in the fenced code blocks of a Markdown text whose info string
/// starts with one of `tags` (```` ```rust ````, ```` ```ts title="x" ````).
pub fn markdown(text: &str, name: &str, tags: &[String]) -> Vec<Position> {
    let offsets = word_offsets(text, name);
    if offsets.is_empty() {
        return Vec::new();
    }
    let blocks = fenced_blocks(text, tags);
    let lines = LineIndex::new(text);
    offsets
        .into_iter()
        .filter(|at| blocks.iter().any(|b| b.contains(at)))
        .map(|at| lines.position(text, at))
        .collect()
}

/// The bodies of the fenced code blocks tagged with one of `tags`.
fn fenced_blocks(text: &str, tags: &[String]) -> Vec<Range<usize>> {
    let mut blocks = Vec::new();
    // The open fence: its character, its length, where its body starts,
    // and whether its tag is one of `tags`.
    let mut open: Option<(char, usize, usize, bool)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let indent = line.len() - line.trim_start_matches(' ').len();
        let fence = &line[indent..];
        let marker = fence.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = marker.map_or(0, |m| fence.len() - fence.trim_start_matches(m).len());
        match (open, marker) {
            (None, Some(m)) if indent <= 3 && run >= 3 => {
                let info = fence[run..].trim();
                let tag = info
                    .split(|c: char| c == ',' || c == '{' || c.is_whitespace())
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                open = Some((m, run, offset, tags.contains(&tag)));
            }
            (Some((m, length, body, wanted)), Some(c))
                if c == m && run >= length && fence[run..].trim().is_empty() =>
            {
                if wanted {
                    blocks.push(body..start);
                }
                open = None;
            }
            _ => {}
        }
    }
    if let Some((_, _, body, true)) = open {
        blocks.push(body..text.len());
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::new_text::Replaced;

    fn at(line: u32, character: u32) -> Position {
        Position::new(line, character)
    }

    /// Where `name` is in `text`, read as the source file `file`.
    fn read(file: &str, text: &str, name: &str, scope: AuditScope, conditional: bool) -> Found {
        source(
            Path::new(file),
            Cow::Borrowed(text),
            name,
            scope,
            conditional,
        )
    }

    #[test]
    fn a_texts_words_hold_its_whole_words_only() {
        let words = Words::of("greet(x.greeter, $é_1)—send;\n// ünï\n");
        for word in ["greet", "x", "greeter", "$é_1", "send", "ünï"] {
            assert!(words.may_hold(word), "{word}");
        }
        for word in ["gree", "é_1", "sen", "ün", "missing"] {
            assert!(!words.may_hold(word), "{word}");
        }
        // A name of other characters may always be there.
        assert!(words.may_hold("r#greet"));
    }

    #[test]
    fn whole_words_only() {
        assert_eq!(word_offsets("greet greeter $greet greet", "greet"), [0, 21]);
        assert!(word_offsets("", "greet").is_empty());
    }

    #[test]
    fn a_component_is_read_by_its_scripts_and_its_template() {
        let svelte = "<script lang=\"ts\">\n  import { greet } from './g';\n  // greet them\n  const s = 'greet';\n</script>\n\n<h1>greet</h1>\n<button on:click={() => greet(name)}>Hi</button>\n<!-- greet -->\n<p title=\"greet\">x</p>\n<style>.greet { color: red }</style>\n";
        let found = component(svelte, "greet", language_of("a.ts"));
        assert_eq!(found.code, [at(2, 12), at(8, 25), at(10, 11)]);
        assert_eq!(
            found.prose,
            [at(3, 6), at(4, 14), at(7, 5), at(9, 6), at(11, 9)]
        );
    }

    #[test]
    fn an_astro_frontmatter_is_script() {
        let astro = "---\nimport { greet } from '../g';\n---\n<p>{greet('x')}</p>\n";
        let found = component(astro, "greet", language_of("a.ts"));
        assert_eq!(found.code, [at(2, 10), at(4, 5)]);
        assert!(found.prose.is_empty());
    }

    #[test]
    fn rust_names_in_macros_conditional_code_and_prose() {
        let rust = "\
//! Totals: amount
#[cfg(windows)]
fn console(e: &Entry) -> i64 { e.amount() }
#[cfg(test)]
fn tested(e: &Entry) -> i64 { e.amount() }
#[cfg(feature = \"tls\")]
#[inline]
mod secure { fn f(e: &Entry) -> i64 { e.amount() } }
fn plain(e: &Entry) -> i64 { e.amount() + total!(e.amount()) }
";
        let found = read("a.rs", rust, "amount", AuditScope::Macros, true);
        assert_eq!(found.code, [at(9, 52)]);
        assert_eq!(found.conditional, [at(3, 34), at(8, 41)]);
        assert_eq!(found.prose, [at(1, 13)]);
        let whole = "#![cfg(unix)]\nfn f(e: &Entry) -> i64 { e.amount() }\n";
        let found = read("b.rs", whole, "amount", AuditScope::Macros, true);
        assert_eq!(found.conditional, [at(2, 28)]);
        let found = read("b.rs", whole, "amount", AuditScope::Macros, false);
        assert!(found.conditional.is_empty() && found.code.is_empty());
        // A match arm and a struct literal's field hold their attributes:
        // an arm after a cfg'd one is not under its attribute.
        let held = "fn f(m: M) {\n    match m {\n        #[cfg(unix)]\n        M::A(x) => x.amount(),\n        M::B(y) => y.amount(),\n    }\n    S {\n        #[cfg(test)]\n        a: 1,\n        b: amount(),\n        #[cfg(unix)]\n        c: amount(),\n        #[cfg(unix)]\n        amount,\n    }\n}\n";
        let found = read("c.rs", held, "amount", AuditScope::Macros, true);
        assert_eq!(found.conditional, [at(4, 22), at(12, 12), at(14, 9)]);
    }

    /// `renamed` of `after`, given whole.
    fn carried(
        found: &Found,
        before: &str,
        after: &str,
        (name, new): (&str, &str),
        language: Language,
    ) -> Option<Found> {
        renamed(
            found,
            &Arc::from(before),
            &NewText::from(after),
            name,
            new,
            language,
        )
    }

    /// `renamed` of `before` with the name's whole-word places numbered in
    /// `which` made the text paired with each, given whole and as the
    /// replacements (a server's edit): both carry the same, and the
    /// replacements without being made whole where they carry.
    fn carried_both(
        found: &Found,
        before: &str,
        which: &[(usize, &str)],
        (name, new): (&str, &str),
        language: Language,
    ) -> Option<Found> {
        let after = spell_places(before, name, which);
        let whole = carried(found, before, &after, (name, new), language);
        let base: Arc<str> = Arc::from(before);
        let replaced = word_offsets(before, name)
            .into_iter()
            .enumerate()
            .filter_map(|(n, at)| {
                let (_, form) = which.iter().find(|(w, _)| *w == n)?;
                Some(Replaced {
                    bytes: at..at + name.len(),
                    line: before[..at].matches('\n').count(),
                    with: form.to_string(),
                })
            })
            .collect();
        let replacing = NewText::from_replacements(Arc::clone(&base), Arc::default(), replaced);
        let by_replacements = renamed(found, &base, &replacing, name, new, language);
        assert_eq!(by_replacements, whole, "{after}");
        assert!(whole.is_none() || !replacing.made_whole(), "{after}");
        whole
    }

    /// [`carried_both`] of the places numbered in `which` made `new`.
    fn renamed_both(
        found: &Found,
        before: &str,
        which: &[usize],
        (name, new): (&str, &str),
        language: Language,
    ) -> Option<Found> {
        let which: Vec<(usize, &str)> = which.iter().map(|&n| (n, new)).collect();
        carried_both(found, before, &which, (name, new), language)
    }

    /// `text` with the name's whole-word places numbered in `which` (from
    /// 0) made `new`.
    fn rename_places(text: &str, name: &str, new: &str, which: &[usize]) -> String {
        let which: Vec<(usize, &str)> = which.iter().map(|&n| (n, new)).collect();
        spell_places(text, name, &which)
    }

    /// `text` with each of the name's whole-word places numbered in
    /// `which` (from 0) made the text paired with it (`deliverAll: send`).
    fn spell_places(text: &str, name: &str, which: &[(usize, &str)]) -> String {
        let mut out = text.to_string();
        for (n, at) in word_offsets(text, name).into_iter().enumerate().rev() {
            if let Some((_, form)) = which.iter().find(|(w, _)| *w == n) {
                out.replace_range(at..at + name.len(), form);
            }
        }
        out
    }

    /// A place the rename spelled out (a shorthand made whole, an alias
    /// kept) keeps the old name, moved: carried, it is where a read of
    /// the renamed text finds it, as what it was.
    #[test]
    fn a_renamed_text_carries_the_places_it_spelled_out() {
        let typescript = "import { send } from './s';\nconst { send: s, x } = o; const { send } = o; send(send);\nconst y = { send, n: 1 }; // send\nexport { send };\n";
        let rust = "fn f() { m!(S { send }); let S { send } = s; send(send) }\n// send\n";
        let forms = |file: &str| -> Vec<Vec<(usize, &str)>> {
            match file {
                "a.ts" => vec![
                    vec![(0, "deliverAll as send"), (3, "deliverAll")],
                    vec![(2, "deliverAll: send"), (4, "send: deliverAll")],
                    vec![(5, "send: deliverAll"), (7, "deliverAll as send")],
                    vec![
                        (3, "send: deliverAll"),
                        (4, "deliverAll: send"),
                        (5, "deliverAll"),
                    ],
                ],
                _ => vec![
                    vec![(0, "deliverAll: send")],
                    vec![(1, "send: deliverAll"), (2, "deliverAll")],
                    vec![(0, "send: deliverAll"), (3, "deliverAll")],
                ],
            }
        };
        for (file, before, scope) in [
            ("a.ts", typescript, AuditScope::Code),
            ("a.rs", rust, AuditScope::Macros),
        ] {
            let language = language_of(file);
            let read = |text: &str| read(file, text, "send", scope, false);
            let found = read(before);
            assert!(found.carries.is_some(), "{file}");
            for which in forms(file) {
                let after = spell_places(before, "send", &which);
                let carried =
                    carried_both(&found, before, &which, ("send", "deliverAll"), language)
                        .unwrap_or_else(|| panic!("{file} {which:?}: not carried"));
                let again = read(&after);
                assert!(!again.code.is_empty() || !again.prose.is_empty(), "{after}");
                assert_eq!(
                    (&carried.code, &carried.conditional, &carried.prose),
                    (&again.code, &again.conditional, &again.prose),
                    "{file} {which:?}: {after}"
                );
            }
        }
        // Spelled out with another name, or where the text already said
        // so: not the rename's doing, read again.
        let found = read("a.ts", typescript, "send", AuditScope::Code, false);
        let ts_language = language_of("a.ts");
        let other = [(3, "other: send")];
        let names = ("send", "deliverAll");
        assert!(carried_both(&found, typescript, &other, names, ts_language).is_none());
        let already = "const { send: deliverAll } = o;\nsend();\n";
        let found = read("a.ts", already, "send", AuditScope::Code, false);
        // Made `const { deliverAll: deliverAll } = o;`.
        let kept = carried_both(&found, already, &[(0, "deliverAll")], names, ts_language);
        assert_eq!(kept.map(|c| c.code), Some(vec![at(2, 1)]));
        let after = "const { send: deliverAll } = o;\ndeliverAll();\n";
        let kept = carried(&found, already, after, names, ts_language);
        assert_eq!(kept.map(|c| c.code), Some(vec![at(1, 9)]));
    }

    #[test]
    fn a_renamed_text_carries_the_places_a_read_of_it_finds() {
        let typescript = "// send it\nconst send = x.send; send(send, 'send');\nconst é = `${send} send`; // é send\nfunction f() { send(); }\n";
        let rust = "//! send\n#[cfg(windows)]\nfn a(e: &E) { e.send(); send!(e.send()) }\nfn é() { send!(é.send(), \"send\") }\n";
        let crlf = typescript.replace('\n', "\r\n");
        let cases = [
            ("a.ts", typescript, AuditScope::Code, vec![1, 2, 6]),
            ("a.ts", typescript, AuditScope::Code, vec![]),
            ("a.rs", rust, AuditScope::Macros, vec![1, 4]),
            ("a.rs", rust, AuditScope::Macros, vec![2, 3, 5]),
            ("b.ts", crlf.as_str(), AuditScope::Code, vec![1, 4, 9]),
        ];
        for (file, before, scope, which) in cases {
            let language = language_of(file);
            let read = |text: &str| read(file, text, "send", scope, true);
            let found = read(before);
            for new in ["deliverAll", "s", "envoyé"] {
                let after = rename_places(before, "send", new, &which);
                let carried = renamed_both(&found, before, &which, ("send", new), language)
                    .unwrap_or_else(|| panic!("{file} {which:?} to {new}: not carried"));
                let again = read(&after);
                assert_eq!(
                    (&carried.code, &carried.conditional, &carried.prose),
                    (&again.code, &again.conditional, &again.prose),
                    "{file} {which:?} to {new}"
                );
            }
        }
        // Places move along their lines: `send(send` made `s(send`.
        let found = read("a.ts", typescript, "send", AuditScope::Code, false);
        assert!(found.code.contains(&at(2, 27)));
        let ts = language_of("a.ts");
        let carried = renamed_both(&found, typescript, &[1, 2, 3], ("send", "s"), ts);
        assert!(carried.unwrap().code.contains(&at(2, 18)));
    }

    fn language_of(file: &str) -> Language {
        Language::from_path(Path::new(file)).unwrap()
    }

    #[test]
    fn what_a_renamed_text_cannot_carry_is_read_again() {
        let before = "const send = 1;\nsend;\n";
        let found = read("a.ts", before, "send", AuditScope::Code, false);
        let ts = language_of("a.ts");
        let carry = |after: &str, new: &str| carried(&found, before, after, ("send", new), ts);
        assert!(carry("const ship = 1;\nsend;\n", "ship").is_some());
        // Anything else changed, a name not the new one, a new name that
        // is a word of the grammar or no plain name.
        assert!(carry("const ship = 2;\nsend;\n", "ship").is_none());
        assert!(carry("const ship = 1;\nsend;\n// x\n", "ship").is_none());
        assert!(carry("const sail = 1;\nsend;\n", "ship").is_none());
        assert!(carry("const type = 1;\nsend;\n", "type").is_none());
        assert!(carry("const r#ship = 1;\nsend;\n", "r#ship").is_none());
        // Places found in another text than the one renamed.
        let other = "let send = 1;\nsend;\n";
        assert!(
            carried(
                &found,
                other,
                "let ship = 1;\nsend;\n",
                ("send", "ship"),
                ts
            )
            .is_none()
        );
        // Replacements that are not all of the name's places made the new
        // name are read whole, as any other text.
        let replaced = |edits: &[(&str, &str)]| {
            let after = crate::fs::new_text::tests::replacing(before, edits);
            let base = Arc::clone(&after.edited().unwrap().base);
            renamed(&found, &base, &after, "send", "ship", ts)
        };
        assert!(replaced(&[("send", "ship")]).is_some());
        assert!(replaced(&[("send", "ship"), ("1", "2")]).is_none());
        assert!(replaced(&[("send", "ship"), ("send", "sail")]).is_none());
        assert!(replaced(&[("send", "shipment")]).is_none());
        assert!(replaced(&[("send", "ship;")]).is_none());
        // The name's bytes, but inside another word.
        let inside = "const sends = 1;\nsend;\n";
        let found_inside = read("a.ts", inside, "send", AuditScope::Code, false);
        let after = crate::fs::new_text::tests::replacing(inside, &[("send", "ship")]);
        let base = Arc::clone(&after.edited().unwrap().base);
        assert!(renamed(&found_inside, &base, &after, "send", "ship", ts).is_none());
        // A place kept just before one renamed (`{ send: send }` made `{
        // send: ship }`): read side by side it looks spelled out, and is
        // read again; the replacements tell it, as a fresh read finds it.
        for (before, at) in [
            ("const o = { send: send };\nsend;\n", 18),
            ("import { send as send } from 'x';\n", 17),
        ] {
            let found = read("a.ts", before, "send", AuditScope::Code, false);
            let base: Arc<str> = Arc::from(before);
            let ship = Replaced {
                bytes: at..at + 4,
                line: 0,
                with: "ship".to_string(),
            };
            let after = NewText::from_replacements(Arc::clone(&base), Arc::default(), vec![ship]);
            let carried = renamed(&found, &base, &after, "send", "ship", ts).expect("carried");
            assert!(!after.made_whole());
            let again = read("a.ts", after.as_str(), "send", AuditScope::Code, false);
            assert_eq!(
                (&carried.code, &carried.conditional, &carried.prose),
                (&again.code, &again.conditional, &again.prose),
                "{before}"
            );
        }
        assert!(replaced(&[("sen", "shi")]).is_none());
        assert_eq!(
            replaced(&[("send", "ship"), ("send", "ship")]).map(|f| f.code),
            replaced(&[("send = 1;\nsend", "ship = 1;\nship")]).map(|f| f.code)
        );
        // A text that does not parse cleanly carries nothing.
        let broken = "const send = (;\nsend;\n";
        let found = read("a.ts", broken, "send", AuditScope::Code, false);
        assert_eq!(found.carries, None);
        // Nor does one read for a word of the grammar's own.
        let typed = "type T = 1;\nlet type = 2;\n";
        let found = read("a.ts", typed, "type", AuditScope::Code, false);
        assert_eq!(found.carries, None);
        // Words of the grammar are also its named kinds of fixed text and
        // the words of its longer tokens.
        assert!(ts.is_grammar_word("undefined") && ts.is_grammar_word("get"));
        assert!(language_of("a.rs").is_grammar_word("macro_rules"));
        assert!(!ts.is_grammar_word("ship"));
        // Nor one where the name is in an attribute that makes code
        // conditional, read by its words; elsewhere in Rust it carries.
        let rust = "#[cfg(unix)]\nfn f(e: &E) { m!(e.unix()) }\n";
        let rust_read =
            |text, conditional| read("a.rs", text, "unix", AuditScope::Macros, conditional);
        assert_eq!(rust_read(rust, true).carries, None);
        assert!(rust_read(rust, false).carries.is_some());
        let plain = "fn f(e: &E) { m!(e.unix()) }\n";
        assert!(rust_read(plain, true).carries.is_some());
        // A match arm holds its attributes: a place in its body is not in
        // one, and carries (ripgrep's `search_path` under a
        // `#[cfg(feature = "pcre2")]` arm was read again on every rename).
        let arm_read = |text: &str| read("a.rs", text, "send", AuditScope::Macros, true);
        let arm = "fn f(m: M) {\n    match m {\n        #[cfg(unix)]\n        M::A(x) => x.send(),\n        #[cfg(unix)]\n        M::B(send) => 0,\n    }\n}\n";
        let found = arm_read(arm);
        assert_eq!(found.conditional.len(), 2);
        let after = rename_places(arm, "send", "deliver", &[0]);
        let carried = renamed_both(&found, arm, &[0], ("send", "deliver"), language_of("a.rs"));
        let (carried, again) = (carried.expect("carried"), arm_read(&after));
        assert_eq!(
            (&carried.code, &carried.conditional, &carried.prose),
            (&again.code, &again.conditional, &again.prose)
        );
        let in_attribute = "fn f(m: M) {\n    match m {\n        #[cfg(feature = \"send\")]\n        M::A(x) => x.send(),\n    }\n}\n";
        assert_eq!(arm_read(in_attribute).carries, None);
    }

    #[test]
    fn markdown_code_blocks_of_the_language_only() {
        let tags = ["rust".to_string(), "rs".to_string()];
        let md = "Call balance here.\n\n```rust,no_run\nlet b = l.balance();\n```\n\n```sh\nbalance\n```\n\n  ~~~~rs\nbalance\n~~~\n~~~~\n";
        assert_eq!(markdown(md, "balance", &tags), [at(4, 11), at(12, 1)]);
        assert!(markdown("```\nbalance\n```\n", "balance", &tags).is_empty());
    }
}
