//! A file's text as a patch leaves it: a whole text, or a text before with
//! some of its bytes replaced (a language server's edit), made whole only
//! when it is read whole (written, or read by what needs all of it).
//!
//! A rename previewed through 71 files of the TypeScript SDK made each
//! renamed text whole (1.4 MB copied into fresh memory: 0.7 ms of the
//! 2.4 its preview spent past the server's answer), then read every byte
//! of them again to diff, stamp and search them. What a preview shows
//! lies on the lines replaced: the diff's hunks, the aliases a rename
//! added, the audit's stamp of the text ([`NewText::stamp`]) are made from
//! the replacements alone.

use std::hash::Hash;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use super::stamped::Stamp;

/// A file's text as a patch leaves it; cloned cheaply (shared, and made
/// whole once for every clone).
#[derive(Clone)]
pub struct NewText(Arc<Inner>);

enum Inner {
    Whole(Arc<str>),
    /// Made whole once, when asked.
    Edited {
        edited: Edited,
        whole: OnceLock<Arc<str>>,
    },
}

/// A text before (`base`) and the bytes of it replaced.
pub struct Edited {
    pub base: Arc<str>,
    /// The stamp of `base`, found once: shared with whatever keeps `base`
    /// (a file's kept line index), so a text renamed again and again is
    /// hashed once while it keeps its stamp on disk.
    base_stamp: Arc<OnceLock<Stamp>>,
    /// In order, none overlapping another.
    replaced: Vec<Replaced>,
}

/// Bytes of a text replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The bytes replaced, in the text before.
    pub bytes: Range<usize>,
    /// The 0-based line (counted by LF) where they start.
    pub line: usize,
    pub with: String,
}

/// A line of a text before with replacements on it, and what they make
/// of it: one whose text they change.
#[derive(Debug, PartialEq, Eq)]
pub struct ChangedLine {
    /// 0-based, counted by LF.
    pub line: usize,
    /// The line's bytes in the text before, from its start to past its LF
    /// (or the text's end).
    pub bytes: Range<usize>,
    /// The line as the replacements leave it (with its line end).
    pub new: String,
}

impl NewText {
    pub fn whole(text: Arc<str>) -> NewText {
        NewText(Arc::new(Inner::Whole(text)))
    }

    /// `base` with `replaced` (in any order; none overlapping another, the
    /// caller sees to it), each on the LF-counted line it says.
    pub fn from_replacements(
        base: Arc<str>,
        base_stamp: Arc<OnceLock<Stamp>>,
        mut replaced: Vec<Replaced>,
    ) -> NewText {
        replaced.sort_by_key(|r| (r.bytes.start, r.bytes.end));
        NewText(Arc::new(Inner::Edited {
            edited: Edited {
                base,
                base_stamp,
                replaced,
            },
            whole: OnceLock::new(),
        }))
    }

    /// The whole text, made once.
    pub fn text(&self) -> &Arc<str> {
        match &*self.0 {
            Inner::Whole(text) => text,
            Inner::Edited { edited, whole } => whole.get_or_init(|| joined(edited.parts())),
        }
    }

    pub fn as_str(&self) -> &str {
        self.text()
    }

    /// Its length in bytes, without making it whole.
    pub fn len(&self) -> usize {
        match &*self.0 {
            Inner::Whole(text) => text.len(),
            Inner::Edited { edited, .. } => {
                edited.replaced.iter().fold(edited.base.len(), |len, r| {
                    len + r.with.len() - r.bytes.len()
                })
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The text before and what was replaced of it, where it was made so.
    pub fn edited(&self) -> Option<&Edited> {
        match &*self.0 {
            Inner::Whole(_) => None,
            Inner::Edited { edited, .. } => Some(edited),
        }
    }

    /// Whether it was made whole.
    #[cfg(test)]
    pub(crate) fn made_whole(&self) -> bool {
        match &*self.0 {
            Inner::Whole(_) => true,
            Inner::Edited { whole, .. } => whole.get().is_some(),
        }
    }

    /// Whether it is `text`: where it was made from `text` itself, whether
    /// each replacement left the bytes it replaced as they were.
    pub fn is(&self, text: &Arc<str>) -> bool {
        match self.edited_on(text) {
            Some(edited) => edited
                .replaced
                .iter()
                .all(|r| edited.base[r.bytes.clone()] == r.with),
            None => **self.text() == **text,
        }
    }

    /// Its replacements, where it was made from `base` (that very text).
    pub fn edited_on(&self, base: &Arc<str>) -> Option<&Edited> {
        self.edited().filter(|e| Arc::ptr_eq(&e.base, base))
    }

    /// Its stamp: equal stamps are equal texts (but for a 64-bit hash
    /// collision). A text made from replacements is stamped by its text
    /// before's stamp and the replacements, not read whole: it has
    /// another stamp than the same text given whole.
    pub fn stamp(&self) -> Stamp {
        let Some(edited) = self.edited() else {
            return Stamp::of_text(self.text());
        };
        let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
        edited.base_stamp().hash(&mut hasher);
        for r in &edited.replaced {
            for figure in [r.bytes.start, r.bytes.end, r.with.len()] {
                hasher.update(&(figure as u64).to_le_bytes());
            }
            hasher.update(r.with.as_bytes());
        }
        Stamp::Text {
            len: self.len() as u64,
            hash: hasher.digest(),
        }
    }
}

impl Default for NewText {
    /// An empty text.
    fn default() -> NewText {
        NewText::whole(Arc::from(""))
    }
}

impl From<&str> for NewText {
    fn from(text: &str) -> NewText {
        NewText::whole(Arc::from(text))
    }
}

impl From<String> for NewText {
    fn from(text: String) -> NewText {
        NewText::whole(Arc::from(text))
    }
}

/// Equal texts, however made (each made whole to compare).
impl PartialEq for NewText {
    fn eq(&self, other: &NewText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for NewText {}

impl std::fmt::Debug for NewText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.0 {
            Inner::Whole(text) => f.debug_tuple("NewText").field(text).finish(),
            Inner::Edited { edited, .. } => f
                .debug_struct("NewText")
                .field("base_len", &edited.base.len())
                .field("replaced", &edited.replaced)
                .finish(),
        }
    }
}

impl Edited {
    /// The stamp of the text before, found once while it is kept.
    pub fn base_stamp(&self) -> Stamp {
        *self.base_stamp.get_or_init(|| Stamp::of_text(&self.base))
    }

    pub fn replaced(&self) -> &[Replaced] {
        &self.replaced
    }

    /// The text's parts in order: kept stretches of the base, and what
    /// replaced the others.
    fn parts(&self) -> impl Iterator<Item = &str> + Clone {
        let kept = self.replaced.iter().scan(0, |last, r| {
            let kept = &self.base[*last..r.bytes.start];
            *last = r.bytes.end;
            Some([kept, r.with.as_str()])
        });
        let tail = self.replaced.last().map_or(0, |r| r.bytes.end);
        kept.flatten().chain([&self.base[tail..]])
    }

    /// The lines whose text the replacements change, in order, each once;
    /// `None` where lines are not all kept in place: a replacement takes or
    /// puts a line end (LF or CR), puts text after the last line end, or
    /// empties a last line that has none.
    pub fn changed_lines(&self) -> Option<Vec<ChangedLine>> {
        let ends = |text: &str| memchr::memchr2(b'\n', b'\r', text.as_bytes()).is_some();
        if (self.replaced.iter()).any(|r| ends(&self.base[r.bytes.clone()]) || ends(&r.with)) {
            return None;
        }
        let base = self.base.as_bytes();
        let mut lines = Vec::new();
        let mut on_line = self.replaced.iter().peekable();
        while let Some(first) = on_line.next() {
            let start = memchr::memrchr(b'\n', &base[..first.bytes.start]).map_or(0, |end| end + 1);
            let end = memchr::memchr(b'\n', &base[first.bytes.start..])
                .map_or(base.len(), |at| first.bytes.start + at + 1);
            if start == end {
                // Text put after the last line end: a line added.
                return None;
            }
            // The others on its line.
            while on_line.next_if(|next| self.within(next, end)).is_some() {}
            let new = self.replaced_in(start..end);
            if new.is_empty() && self.unended_at(end) {
                // The last line emptied, without a line end: a line gone.
                return None;
            }
            if new != self.base[start..end] {
                lines.push(ChangedLine {
                    line: first.line,
                    bytes: start..end,
                    new,
                });
            }
        }
        Some(lines)
    }

    /// `range` of the text before (whole lines) as the replacements in it
    /// leave it: each replacement lies wholly in it or outside it.
    pub fn replaced_in(&self, range: Range<usize>) -> String {
        let mut new = String::with_capacity(range.len());
        let mut read = range.start;
        let from = self
            .replaced
            .partition_point(|r| r.bytes.start < range.start);
        for r in self.replaced[from..]
            .iter()
            .take_while(|r| self.within(r, range.end))
        {
            new.push_str(&self.base[read..r.bytes.start]);
            new.push_str(&r.with);
            read = r.bytes.end;
        }
        new.push_str(&self.base[read..range.end]);
        new
    }

    /// Whether `replaced` (starting at or after a line's start) is on the
    /// lines up to `end`, a line's end: it starts before, or at `end`
    /// where that ends a last line without a line end (text put at its
    /// end is the line's).
    fn within(&self, replaced: &Replaced, end: usize) -> bool {
        replaced.bytes.start < end || (replaced.bytes.start == end && self.unended_at(end))
    }

    /// Whether `end` is the end of a last line without a line end.
    fn unended_at(&self, end: usize) -> bool {
        end == self.base.len() && !self.base.ends_with('\n')
    }
}

/// `parts` one after another, written once into the shared text's own
/// memory. A `String` made into an `Arc<str>` is copied again: in a rename
/// through 71 files of the TypeScript SDK that second copy of every
/// renamed text (and the fresh pages it fills) was a twentieth of the
/// preview's CPU.
fn joined<'a>(parts: impl Iterator<Item = &'a str> + Clone) -> Arc<str> {
    let length = parts.clone().map(str::len).sum();
    let mut shared = Arc::<[u8]>::new_uninit_slice(length);
    let slots = Arc::get_mut(&mut shared).expect("a new Arc has no other owner");
    let mut written = 0;
    for part in parts {
        let slot = &mut slots[written..written + part.len()];
        // SAFETY: `slot` is `part.len()` bytes of a new allocation, which
        // `part` cannot overlap. (`write_copy_of_slice` does this safely
        // from Rust 1.93.)
        unsafe {
            std::ptr::copy_nonoverlapping(part.as_ptr(), slot.as_mut_ptr().cast(), part.len())
        };
        written += part.len();
    }
    assert_eq!(written, length, "every byte of the text is written");
    // SAFETY: all `length` bytes were written above.
    let bytes = unsafe { shared.assume_init() };
    // SAFETY: the bytes are whole `str`s one after another, so UTF-8; `str`
    // and `[u8]` have the same layout, which `Arc`'s pointer keeps.
    unsafe { Arc::from_raw(Arc::into_raw(bytes) as *const str) }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `base` with each `(needle, with)` replacing the first `needle`
    /// after the last one's place.
    pub(crate) fn replacing(base: &str, edits: &[(&str, &str)]) -> NewText {
        let base: Arc<str> = Arc::from(base);
        let mut from = 0;
        let replaced = edits
            .iter()
            .map(|(needle, with)| {
                let start = from + base[from..].find(needle).expect("the needle is there");
                from = start + needle.len();
                Replaced {
                    bytes: start..from,
                    line: base[..start].matches('\n').count(),
                    with: with.to_string(),
                }
            })
            .collect();
        NewText::from_replacements(base, Arc::default(), replaced)
    }

    #[test]
    fn a_text_made_by_replacements_is_read_whole_only_when_asked() {
        let text = replacing("let a = 1;\nlet b = a;\n", &[("a", "x"), ("a", "x")]);
        assert_eq!(text.len(), "let x = 1;\nlet b = x;\n".len());
        let stamp = text.stamp();
        assert!(
            !text.made_whole(),
            "neither length nor stamp makes it whole"
        );
        assert_eq!(text.as_str(), "let x = 1;\nlet b = x;\n");
        // Made whole, it keeps the stamp it was given.
        assert_eq!(text.stamp(), stamp);
    }

    #[test]
    fn stamps_tell_replacements_and_texts_before_apart() {
        let stamp = |base: &str, edits: &[(&str, &str)]| replacing(base, edits).stamp();
        let base = "send(a);\nsend(b);\n";
        let one = stamp(base, &[("send", "ship")]);
        assert_eq!(one, stamp(base, &[("send", "ship")]));
        for other in [
            stamp(base, &[("send", "shop")]),
            stamp(base, &[("send", "ship"), ("send", "ship")]),
            stamp(base, &[("(b", "ship")]),
            stamp("send(a);\nsend(c);\n", &[("send", "ship")]),
        ] {
            assert_ne!(one, other);
        }
    }

    #[test]
    fn a_text_is_the_one_it_was_made_from_only_where_nothing_changed() {
        let text = replacing("a b a\n", &[("a", "a"), ("a", "a")]);
        let base = Arc::clone(&text.edited().unwrap().base);
        assert!(text.is(&base));
        assert!(text.is(&Arc::from("a b a\n")));
        let changed = replacing("a b a\n", &[("a", "a"), ("a", "c")]);
        let base = Arc::clone(&changed.edited().unwrap().base);
        assert!(!changed.is(&base));
        assert!(NewText::from("a b a\n").is(&base));
    }

    #[test]
    fn changed_lines_are_each_line_a_replacement_changes_once() {
        let text = replacing(
            "one two\r\nthree\nfour four\nfive",
            &[("two", "2"), ("four", "four"), ("four", "4"), ("five", "5")],
        );
        let lines = text.edited().unwrap().changed_lines().unwrap();
        let shown: Vec<(usize, &str, &str)> = lines
            .iter()
            .map(|l| {
                (
                    l.line,
                    &text.edited().unwrap().base[l.bytes.clone()],
                    l.new.as_str(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                (0, "one two\r\n", "one 2\r\n"),
                (2, "four four\n", "four 4\n"),
                (3, "five", "5"),
            ]
        );
        // Text put at the end of a last line without a line end is the
        // line's.
        let base: Arc<str> = Arc::from("a\nx = greet");
        let replaced = |bytes: Range<usize>, with: &str| Replaced {
            bytes,
            line: 1,
            with: with.to_string(),
        };
        let put = vec![replaced(6..11, "salute"), replaced(11..11, " as greet")];
        let text = NewText::from_replacements(base, Arc::default(), put);
        let lines = text.edited().unwrap().changed_lines().unwrap();
        let shown: Vec<(usize, &str)> = lines.iter().map(|l| (l.line, l.new.as_str())).collect();
        assert_eq!(shown, [(1, "x = salute as greet")]);
        // A line no replacement changes is not one.
        let same = replacing("a\nb\n", &[("b", "b")]);
        assert_eq!(same.edited().unwrap().changed_lines(), Some(Vec::new()));
    }

    #[test]
    fn lines_are_not_told_where_a_replacement_takes_or_puts_a_line_end() {
        for edits in [
            &[("a\r\n", "a")][..],
            &[("a", "a\nz")],
            &[("a", "a\r")],
            &[("\r", "")],
        ] {
            let text = replacing("a\r\nb\n", edits);
            assert_eq!(text.edited().unwrap().changed_lines(), None, "{edits:?}");
        }
        // Text put after the last line end adds a line.
        let base: Arc<str> = Arc::from("a\n");
        let added = Replaced {
            bytes: 2..2,
            line: 1,
            with: "b".to_string(),
        };
        let text = NewText::from_replacements(base, Arc::default(), vec![added]);
        assert_eq!(text.edited().unwrap().changed_lines(), None);
        assert_eq!(text.as_str(), "a\nb");
    }

    #[test]
    fn a_stretch_of_lines_is_read_with_the_replacements_in_it() {
        let text = replacing("a1\nb1\nc1\n", &[("a", "x"), ("b", ""), ("c", "yy")]);
        let edited = text.edited().unwrap();
        assert_eq!(edited.replaced_in(3..6), "1\n");
        assert_eq!(edited.replaced_in(0..9), "x1\n1\nyy1\n");
        assert_eq!(edited.replaced_in(6..9), "yy1\n");
    }

    #[test]
    fn parts_are_joined_whole() {
        let parts = ["", "h\u{e9}llo", "", " w\u{f6}rld \u{1f600}", "\r\n"];
        assert_eq!(
            &*joined(parts.into_iter()),
            "h\u{e9}llo w\u{f6}rld \u{1f600}\r\n"
        );
        assert_eq!(&*joined(std::iter::empty()), "");
    }
}
