//! Patches: previewed changes kept until applied, and atomic writes.
//!
//! A patch records, per file, the exact bytes it was computed from and the
//! bytes it will write. Applying it checks every file still holds the bytes
//! of the preview, then writes each through a temporary file and a rename,
//! so a reader never sees half a file and a stale preview writes nothing.

use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use similar::TextDiff;

use super::new_text::{ChangedLine, Edited, NewText};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::model::FileChange;
use crate::sync::lock;

/// How many unapplied patches are kept; the oldest go first.
const MAX_PATCHES: usize = 64;

/// How long an unapplied patch is kept.
const MAX_AGE: Duration = Duration::from_secs(30 * 60);

/// The bytes all kept patches may hold (before and after texts); the
/// oldest go first.
const MAX_BYTES: usize = 64 * 1024 * 1024;

/// One file's part of a patch.
#[derive(Debug, Clone)]
pub struct FileEdit {
    /// Where to write (resolved, inside the root).
    pub path: PathBuf,
    /// The path as shown.
    pub shown: String,
    /// The content the change was computed from; `None` for a new file.
    pub before: Option<Arc<str>>,
    /// The content to write; `None` to delete the file (the old side of a
    /// file a rename moves).
    pub after: Option<NewText>,
}

impl FileEdit {
    /// The change as shown: counts and a unified diff of at most
    /// `max_diff_chars` characters (cut at a line end).
    pub fn describe(&self, max_diff_chars: usize) -> FileChange {
        let old = self.before.as_deref().unwrap_or("");
        let old_header = if self.before.is_some() {
            format!("a/{}", self.shown)
        } else {
            "/dev/null".to_string()
        };
        let new_header = if self.after.is_some() {
            format!("b/{}", self.shown)
        } else {
            "/dev/null".to_string()
        };
        let headers = (old_header.as_str(), new_header.as_str());
        // A text made by replacements that keep every line in place is
        // diffed from them, its text before read only around them.
        let edited = match (&self.before, &self.after) {
            (Some(before), Some(after)) => after
                .edited_on(before)
                .and_then(|edited| Some((edited, edited.changed_lines()?))),
            _ => None,
        };
        let (mut text, removed, added, beyond) = match edited {
            Some((edited, lines)) => {
                write_parts(edited_parts(edited, &lines), true, headers, max_diff_chars)
            }
            None => {
                let new = self.after.as_ref().map_or("", NewText::as_str);
                unified_diff(old, new, headers, max_diff_chars)
            }
        };
        let omitted = cut(&mut text, max_diff_chars) + beyond;
        FileChange {
            path: self.shown.clone(),
            created: self.before.is_none(),
            deleted: self.after.is_none(),
            moved_from: None,
            lines_added: added,
            lines_removed: removed,
            diff: text,
            diff_lines_omitted: omitted,
        }
    }
}

/// Cuts `text` at the last line end within `max_chars` (after its first
/// line at least), and says how many lines it cut.
fn cut(text: &mut String, max_chars: usize) -> usize {
    if text.len() <= max_chars {
        return 0;
    }
    let mut cut = text[..text.floor_char_boundary(max_chars)]
        .rfind('\n')
        .map_or(0, |at| at + 1);
    if cut == 0 {
        cut = text.find('\n').map_or(text.len(), |at| at + 1);
    }
    let omitted = text[cut..].lines().count();
    text.truncate(cut);
    omitted
}

/// Lines of context around a change in a diff.
const CONTEXT: usize = 3;

/// The unified diff of `old` and `new`, with `headers`, and the lines it
/// removes and adds; CRLF line ends are compared and shown as LF. Texts
/// are read side by side first (`changed_regions`); where they have as
/// many lines (every rename, most edits) each stretch around the lines
/// that differ is written as it is read ([`write_in_place`]), in the
/// hunks it holds once CRLF is read as LF (none where its lines differ
/// only by that): diffing a whole file hashes every line, and diffing
/// even the stretches (then formatting their hunks) was a tenth of the
/// CPU of a preview of a rename through 71 files of the TypeScript SDK.
/// A stretch with a lone CR, and texts not of as many lines, are diffed
/// with `similar`. Once the text is past `max_chars`, the hunks
/// after are only counted, not written: their lines are the fourth
/// figure (that rename shows each file in 600 characters; writing out
/// the rest cost its preview half a millisecond of CPU).
fn unified_diff(
    old: &str,
    new: &str,
    headers: (&str, &str),
    max_chars: usize,
) -> (String, usize, usize, usize) {
    let regions = changed_regions(old, new);
    let in_place = regions.is_some();
    let parts = match regions {
        Some(regions) => regions
            .into_iter()
            .map(|region| Part {
                first_line: region.lines.start,
                old: &old[region.old_bytes],
                new: Cow::Borrowed(&new[region.new_bytes]),
            })
            .collect(),
        // Its hunks count from the first line.
        None => vec![Part {
            first_line: 0,
            old,
            new: Cow::Borrowed(new),
        }],
    };
    write_parts(parts, in_place, headers, max_chars)
}

/// A stretch of whole lines of two texts, and the number of its first.
struct Part<'a> {
    first_line: usize,
    old: &'a str,
    new: Cow<'a, str>,
}

/// The stretches a diff of `edited`'s text before and after shows, made
/// from its `lines` changed in place (see [`Edited::changed_lines`]), as
/// [`changed_regions`] finds them reading both texts whole: each changed
/// line with its context, those no more than twice the context apart in
/// one.
fn edited_parts<'a>(edited: &'a Edited, lines: &[ChangedLine]) -> Vec<Part<'a>> {
    let base = edited.base.as_bytes();
    let mut regions: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    for changed in lines {
        let (after_end, after) = lines_on(base, changed.bytes.end, CONTEXT);
        let first = changed.line.saturating_sub(CONTEXT);
        let end = changed.line + 1 + after;
        match regions.last_mut() {
            Some((lines, bytes)) if first <= lines.end => {
                lines.end = end;
                bytes.end = after_end;
            }
            _ => {
                let start = lines_back(base, changed.bytes.start, changed.line - first);
                regions.push((first..end, start..after_end));
            }
        }
    }
    regions
        .into_iter()
        .map(|(lines, bytes)| Part {
            first_line: lines.start,
            old: &edited.base[bytes.clone()],
            new: Cow::Owned(edited.replaced_in(bytes)),
        })
        .collect()
}

/// The unified diff of `parts`, as [`unified_diff`] writes it; `in_place`
/// where each part's sides have as many lines, which pair one to one.
fn write_parts(
    parts: Vec<Part>,
    in_place: bool,
    headers: (&str, &str),
    max_chars: usize,
) -> (String, usize, usize, usize) {
    let (mut out, mut removed, mut added, mut beyond) = (String::new(), 0, 0, 0);
    for part in parts {
        // Line ends made LF only in the stretches diffed: a line counts as
        // one either way (each ends at its LF), and a region starts and ends
        // between lines, never inside a CRLF.
        let old_part = unix_newlines(part.old);
        let new_part = unix_newlines(&part.new);
        if in_place {
            let stretch = Stretch {
                old: &old_part,
                new: &new_part,
                first_line: part.first_line,
            };
            if let Some(counts) = write_in_place(&stretch, headers, max_chars, &mut out) {
                removed += counts.changed;
                added += counts.changed;
                beyond += counts.beyond;
                continue;
            }
        }
        let diff = TextDiff::from_lines(old_part.as_ref(), new_part.as_ref());
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        for hunk in diff.unified_diff().context_radius(CONTEXT).iter_hunks() {
            if out.len() > max_chars {
                // The line ends it would write: its header's, each
                // change's (none after a lone CR, which `similar` ends a
                // line at too), and the two of the note after a last line
                // without one.
                let lines: usize = hunk
                    .iter_changes()
                    .map(|change| {
                        newlines(change.value().as_bytes())
                            + 2 * usize::from(change.missing_newline())
                    })
                    .sum();
                beyond += 1 + lines;
                continue;
            }
            if out.is_empty() {
                out.push_str(&format!("--- {}\n+++ {}\n", headers.0, headers.1));
            }
            // The hunk's header counts from the region's first line.
            let ops: Vec<similar::DiffOp> = hunk
                .ops()
                .iter()
                .map(|op| shifted(*op, part.first_line))
                .collect();
            out.push_str(&format!(
                "{}\n",
                similar::udiff::UnifiedHunkHeader::new(&ops)
            ));
            let body = hunk.to_string();
            out.push_str(body.split_once('\n').map_or("", |(_, rest)| rest));
        }
    }
    (out, removed, added, beyond)
}

/// One stretch of two texts of as many lines: its lines in each (LF line
/// ends), which pair one to one, and the number of its first line.
struct Stretch<'a> {
    old: &'a str,
    new: &'a str,
    first_line: usize,
}

/// What [`write_in_place`] wrote or counted.
struct InPlace {
    /// Lines that differ: each removed and added.
    changed: usize,
    /// The lines of the hunks counted, not written, past `max_chars`.
    beyond: usize,
}

/// Writes the hunks of `stretch` to `out` (after `headers` when `out` is
/// empty), as a unified diff: each run of lines that differ in place, its
/// old lines removed, then its new added, with the lines alike around as
/// context (runs more than twice the context apart in hunks of their own:
/// lines that differ only by their CRLF are alike). That is what a diff of
/// the whole texts gives where no changed line's text is a line of the
/// other text; where one is (lines swapped or moved), a diff may match it
/// and change fewer, and this shows them all changed in place, as they
/// were edited. Hunks past `max_chars` are only counted. `None`, with
/// nothing written, where the stretch holds a lone CR (`similar` ends a
/// line there, and the stretch is left to it), or, as a guard, where its
/// sides do not pair (`changed_regions`' stretches always do).
fn write_in_place(
    stretch: &Stretch,
    headers: (&str, &str),
    max_chars: usize,
    out: &mut String,
) -> Option<InPlace> {
    let (old, new) = (stretch.old, stretch.new);
    if memchr::memchr(b'\r', old.as_bytes()).is_some()
        || memchr::memchr(b'\r', new.as_bytes()).is_some()
        || line_count(old) != line_count(new)
    {
        return None;
    }
    let lines: Vec<(&str, &str)> = old
        .split_inclusive('\n')
        .zip(new.split_inclusive('\n'))
        .collect();
    let differing: Vec<usize> = (0..lines.len())
        .filter(|&at| lines[at].0 != lines[at].1)
        .collect();
    let mut done = InPlace {
        changed: differing.len(),
        beyond: 0,
    };
    // The hunks: runs of differing lines with their context, those at
    // most twice the context apart together.
    let mut hunks: Vec<std::ops::Range<usize>> = Vec::new();
    for &at in &differing {
        let (first, end) = (
            at.saturating_sub(CONTEXT),
            (at + 1 + CONTEXT).min(lines.len()),
        );
        match hunks.last_mut() {
            Some(last) if first <= last.end => last.end = end,
            _ => hunks.push(first..end),
        }
    }
    // The line ends a line is written with: its own, or, for a last line
    // without one, the two of the note after it.
    let written_lines = |line: &str| if line.ends_with('\n') { 1 } else { 2 };
    let write = |out: &mut String, tag: char, line: &str| {
        out.push(tag);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    };
    for hunk in hunks {
        let lines = &lines[hunk.clone()];
        if out.len() > max_chars {
            done.beyond += 1 + lines
                .iter()
                .map(|&(old, new)| match old == new {
                    true => written_lines(old),
                    false => written_lines(old) + written_lines(new),
                })
                .sum::<usize>();
            continue;
        }
        if out.is_empty() {
            for part in ["--- ", headers.0, "\n+++ ", headers.1, "\n"] {
                out.push_str(part);
            }
        }
        let range = hunk_range(stretch.first_line + hunk.start, hunk.len());
        for part in ["@@ -", &range, " +", &range, " @@\n"] {
            out.push_str(part);
        }
        // The run of lines that differ being read: its new lines wait
        // until its old ones are written.
        let mut run: Vec<&str> = Vec::new();
        for &(old, new) in lines {
            if old == new {
                for new in run.drain(..) {
                    write(out, '+', new);
                }
                write(out, ' ', old);
            } else {
                write(out, '-', old);
                run.push(new);
            }
        }
        for new in run {
            write(out, '+', new);
        }
    }
    Some(done)
}

/// A hunk header's range of `len` lines from line `first` (0-based), as
/// `similar` and diff write it: `N` for one line, else `N,len`.
fn hunk_range(first: usize, len: usize) -> String {
    match len {
        1 => (first + 1).to_string(),
        0 => format!("{first},0"),
        _ => format!("{},{len}", first + 1),
    }
}

/// Lines in `text`: its line ends, and a last line without one.
fn line_count(text: &str) -> usize {
    newlines(text.as_bytes()) + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Line ends in `bytes` (memchr's vectorised count).
fn newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// How many bytes `a` and `b` start with alike: compared 64 at a time
/// (each a `memcmp`), then byte by byte.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 64;
    let n = a.len().min(b.len());
    let mut alike = 0;
    while alike + CHUNK <= n && a[alike..alike + CHUNK] == b[alike..alike + CHUNK] {
        alike += CHUNK;
    }
    alike
        + a[alike..n]
            .iter()
            .zip(&b[alike..n])
            .take_while(|(x, y)| x == y)
            .count()
}

/// The start of the line `lines` lines before the one starting at `at`
/// (the text's start at most).
fn lines_back(text: &[u8], mut at: usize, lines: usize) -> usize {
    for _ in 0..lines {
        if at == 0 {
            break;
        }
        at = memchr::memrchr(b'\n', &text[..at - 1]).map_or(0, |end| end + 1);
    }
    at
}

/// The start of the line `lines` lines after the one starting at `at`
/// (the text's end at most), and how many lines it passed.
fn lines_on(text: &[u8], mut at: usize, lines: usize) -> (usize, usize) {
    for passed in 0..lines {
        if at >= text.len() {
            return (at, passed);
        }
        at = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |end| at + end + 1);
    }
    (at, lines)
}

/// A stretch of the two texts a diff shows: its lines (alike in both, the
/// texts having as many lines) and its bytes in each.
#[derive(Debug, PartialEq, Eq)]
struct Region {
    lines: std::ops::Range<usize>,
    old_bytes: std::ops::Range<usize>,
    new_bytes: std::ops::Range<usize>,
}

/// Lines found differing after which `changed_regions` counts the texts'
/// lines, once: after a line added or removed every line differs, and
/// such texts are diffed whole.
const COUNT_AFTER: usize = 64;

/// The stretches of lines that a diff of two texts of as many lines
/// shows: each run of lines that differ with its context, runs no more
/// than twice the context apart in one; `None` when the texts have not
/// as many lines. The texts are read side by side, the alike stretches
/// between differing lines compared whole (a `memcmp`), never split into
/// lines; only the lines that differ are counted in each (and, after
/// [`COUNT_AFTER`] of them, both texts' lines once).
fn changed_regions(old: &str, new: &str) -> Option<Vec<Region>> {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut regions: Vec<Region> = Vec::new();
    // At the start of line `line` in both texts.
    let (mut i, mut j, mut line) = (0, 0, 0);
    // Line ends in the differing lines of each: the alike stretches hold
    // as many in both.
    let (mut old_ends, mut new_ends) = (0, 0);
    for differing in 0.. {
        let alike = common_prefix(&a[i..], &b[j..]);
        if i + alike == a.len() && j + alike == b.len() {
            break;
        }
        if differing == COUNT_AFTER && line_count(old) != line_count(new) {
            return None;
        }
        // The first line that differs: the alike lines before it are
        // passed over, and it ends at its own line end in each text.
        let passed = &a[i..i + alike];
        let into_line = memchr::memrchr(b'\n', passed).map_or(0, |end| end + 1);
        line += newlines(&passed[..into_line]);
        let (old_start, new_start) = (i + into_line, j + into_line);
        let ((old_end, old_ended), (new_end, new_ended)) =
            (lines_on(a, i + alike, 1), lines_on(b, j + alike, 1));
        let ended = |text: &[u8], end: usize, passed| passed == 1 && text[end - 1] == b'\n';
        old_ends += usize::from(ended(a, old_end, old_ended));
        new_ends += usize::from(ended(b, new_end, new_ended));
        // The context after: as many lines in both where they have as
        // many (else the regions are not used).
        let ((old_after, after), (new_after, _)) =
            (lines_on(a, old_end, CONTEXT), lines_on(b, new_end, CONTEXT));
        let first = line.saturating_sub(CONTEXT);
        let end = line + 1 + after;
        match regions.last_mut() {
            // Equal lines between: at most twice the context.
            Some(last) if first <= last.lines.end => {
                last.lines.end = end;
                last.old_bytes.end = old_after;
                last.new_bytes.end = new_after;
            }
            _ => regions.push(Region {
                lines: first..end,
                old_bytes: lines_back(a, old_start, line - first)..old_after,
                new_bytes: lines_back(b, new_start, line - first)..new_after,
            }),
        }
        line += 1;
        (i, j) = (old_end, new_end);
    }
    // As many lines: line ends, and a last line without one.
    let unended = |text: &str| usize::from(!text.is_empty() && !text.ends_with('\n'));
    (old_ends + unended(old) == new_ends + unended(new)).then_some(regions)
}

/// `op` with its indexes in both texts moved on by `lines` lines.
fn shifted(op: similar::DiffOp, lines: usize) -> similar::DiffOp {
    use similar::DiffOp::*;
    match op {
        Equal {
            old_index,
            new_index,
            len,
        } => Equal {
            old_index: old_index + lines,
            new_index: new_index + lines,
            len,
        },
        Delete {
            old_index,
            old_len,
            new_index,
        } => Delete {
            old_index: old_index + lines,
            old_len,
            new_index: new_index + lines,
        },
        Insert {
            old_index,
            new_index,
            new_len,
        } => Insert {
            old_index: old_index + lines,
            new_index: new_index + lines,
            new_len,
        },
        Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => Replace {
            old_index: old_index + lines,
            old_len,
            new_index: new_index + lines,
            new_len,
        },
    }
}

/// `text` with its CRLF line ends as LF; most texts have no CR, and are
/// not copied.
fn unix_newlines(text: &str) -> Cow<'_, str> {
    match memchr::memchr(b'\r', text.as_bytes()).is_some() {
        true => Cow::Owned(text.replace("\r\n", "\n")),
        false => Cow::Borrowed(text),
    }
}

/// A previewed change to one or more files.
#[derive(Debug, Clone)]
pub struct Patch {
    pub files: Vec<FileEdit>,
}

impl Patch {
    fn bytes(&self) -> usize {
        self.files
            .iter()
            .map(|f| {
                f.before.as_deref().map_or(0, str::len) + f.after.as_ref().map_or(0, NewText::len)
            })
            .sum()
    }
}

/// Patches waiting for `apply_patch`, by id, bounded in count, age and
/// bytes. An id that is gone says why: applied, or expired.
#[derive(Debug, Default)]
pub struct PatchStore {
    inner: Mutex<StoreInner>,
}

#[derive(Debug, Default)]
struct StoreInner {
    next_id: u64,
    patches: BTreeMap<u64, (Patch, Instant)>,
    order: VecDeque<u64>,
    bytes: usize,
    /// Ids that are gone, and why (the newest few thousand).
    gone: BTreeMap<u64, Gone>,
}

#[derive(Debug, Clone, Copy)]
enum Gone {
    Applied,
    Expired,
}

/// How many gone ids are remembered.
const MAX_GONE: usize = 4096;

impl StoreInner {
    fn forget(&mut self, id: u64, why: Gone) {
        if let Some((patch, _)) = self.patches.remove(&id) {
            self.bytes -= patch.bytes();
        }
        self.order.retain(|&n| n != id);
        self.gone.insert(id, why);
        while self.gone.len() > MAX_GONE {
            self.gone.pop_first();
        }
    }

    /// Drops the patches past the age bound, then the oldest while the
    /// count or bytes bound is passed.
    fn expire(&mut self, now: Instant) {
        let old: Vec<u64> = self
            .patches
            .iter()
            .filter(|(_, (_, made))| now.duration_since(*made) > MAX_AGE)
            .map(|(id, _)| *id)
            .collect();
        for id in old {
            self.forget(id, Gone::Expired);
        }
        while self.order.len() > MAX_PATCHES || (self.bytes > MAX_BYTES && self.order.len() > 1) {
            let Some(oldest) = self.order.front().copied() else {
                break;
            };
            self.forget(oldest, Gone::Expired);
        }
    }
}

impl PatchStore {
    /// Keeps `patch` and returns its id (`p1`, `p2`, ...).
    pub fn insert(&self, patch: Patch) -> String {
        let mut inner = lock(&self.inner);
        inner.next_id += 1;
        let id = inner.next_id;
        inner.bytes += patch.bytes();
        inner.patches.insert(id, (patch, Instant::now()));
        inner.order.push_back(id);
        inner.expire(Instant::now());
        format!("p{id}")
    }

    /// Takes the patch `id` out of the store (put it back with `restore`
    /// if it is not applied).
    pub fn take(&self, id: &str) -> ToolResult<Patch> {
        let number = id
            .trim()
            .strip_prefix('p')
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::InvalidParams,
                    format!("'{id}' is not a patch id; pass the id shown as `patch: pN` by edit or rename"),
                )
            })?;
        let mut inner = lock(&self.inner);
        inner.expire(Instant::now());
        if let Some((patch, _)) = inner.patches.remove(&number) {
            inner.bytes -= patch.bytes();
            inner.order.retain(|&n| n != number);
            return Ok(patch);
        }
        let why = match inner.gone.get(&number) {
            Some(Gone::Applied) => "it was already applied".to_string(),
            Some(Gone::Expired) => format!(
                "it expired (patches are kept {} minutes, the {MAX_PATCHES} newest at most)",
                MAX_AGE.as_secs() / 60
            ),
            None => "no such patch was made in this session".to_string(),
        };
        Err(ToolError::new(
            ErrorCode::UnknownPatch,
            format!("no patch {id}: {why}; preview the change again"),
        ))
    }

    /// Puts a patch back under its id (after a refused apply).
    pub fn restore(&self, id: &str, patch: Patch) {
        if let Some(number) = id.strip_prefix('p').and_then(|n| n.parse::<u64>().ok()) {
            let mut inner = lock(&self.inner);
            inner.bytes += patch.bytes();
            inner.patches.insert(number, (patch, Instant::now()));
            inner.order.push_back(number);
            inner.gone.remove(&number);
        }
    }

    /// Records that `id` was applied, so using it again says so.
    pub fn mark_applied(&self, id: &str) {
        if let Some(number) = id.strip_prefix('p').and_then(|n| n.parse::<u64>().ok()) {
            let mut inner = lock(&self.inner);
            inner.forget(number, Gone::Applied);
        }
    }
}

/// Applies every file of `patch`, or none: each file must still hold the
/// content of the preview (or still not exist, for a new file). Every file
/// is staged beside its target first, checked again, then renamed into
/// place; should a rename fail midway, the files already written are put
/// back as they were, and the error says so.
pub fn apply(patch: &Patch) -> ToolResult<()> {
    apply_with(patch, |temp, path| {
        temp.persist(path).map(drop).map_err(|e| e.error)
    })
}

/// `apply`, with the final rename of each staged file done by `place`
/// (a test makes it fail).
fn apply_with(
    patch: &Patch,
    place: impl Fn(tempfile::NamedTempFile, &Path) -> std::io::Result<()>,
) -> ToolResult<()> {
    check_unchanged(patch)?;
    let mut staged = Vec::with_capacity(patch.files.len());
    for edit in &patch.files {
        staged.push(match &edit.after {
            Some(after) => Some(stage(&edit.path, &edit.shown, after.as_str().as_bytes())?),
            None => None,
        });
    }
    // Staging takes time: a writer may have come in between.
    check_unchanged(patch)?;
    let mut written: Vec<&FileEdit> = Vec::with_capacity(patch.files.len());
    for (edit, temp) in patch.files.iter().zip(staged) {
        let done = match temp {
            Some(temp) => place(temp, &edit.path),
            None => std::fs::remove_file(&edit.path),
        };
        if let Err(err) = done {
            let failed = ToolError::io(&edit.shown, &err);
            let restored = put_back(&written);
            return Err(ToolError::new(
                failed.code,
                format!("writing failed: {}; {restored}", failed.message),
            ));
        }
        written.push(edit);
    }
    Ok(())
}

/// Every file still holds what the patch was computed from, and may be
/// written.
fn check_unchanged(patch: &Patch) -> ToolResult<()> {
    for edit in &patch.files {
        refuse_read_only(&edit.path, &edit.shown)?;
        let current = match std::fs::read(&edit.path) {
            Ok(bytes) => Some(bytes),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => return Err(ToolError::io(&edit.shown, &err)),
        };
        if current.as_deref() != edit.before.as_deref().map(str::as_bytes) {
            return Err(ToolError::new(
                ErrorCode::StalePatch,
                format!(
                    "{} changed on disk since the preview; nothing was written. Read it again and preview a new change",
                    edit.shown
                ),
            ));
        }
    }
    Ok(())
}

/// Puts the files of a half-applied patch back as they were; what it says
/// of them.
fn put_back(written: &[&FileEdit]) -> String {
    if written.is_empty() {
        return "nothing was written".to_string();
    }
    let mut failed = Vec::new();
    for edit in written.iter().rev() {
        let result = match &edit.before {
            Some(before) => stage(&edit.path, &edit.shown, before.as_bytes())
                .and_then(|temp| {
                    temp.persist(&edit.path)
                        .map_err(|e| ToolError::io(&edit.shown, &e.error))
                })
                .map(drop),
            None => std::fs::remove_file(&edit.path).map_err(|e| ToolError::io(&edit.shown, &e)),
        };
        if let Err(err) = result {
            failed.push(err.message);
        }
    }
    if failed.is_empty() {
        match written.len() {
            1 => "the file already written was restored, so nothing changed".to_string(),
            n => format!("the {n} files already written were restored, so nothing changed"),
        }
    } else {
        format!(
            "restoring the files already written failed too ({}); check them",
            failed.join("; ")
        )
    }
}

/// A file whose permissions say it may not be written (mode 0444) is not
/// replaced: an atomic rename would go around them.
fn refuse_read_only(path: &Path, shown: &str) -> ToolResult<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.permissions().readonly() => Err(ToolError::new(
            ErrorCode::ReadOnly,
            format!(
                "{shown} is read-only (its permissions allow no writing); nothing was written. Make it writable first if it should change"
            ),
        )),
        _ => Ok(()),
    }
}

/// Writes `bytes` to `path` atomically (temporary file, then rename).
pub fn write_atomic(path: &Path, shown: &str, bytes: &[u8]) -> ToolResult<()> {
    refuse_read_only(path, shown)?;
    stage(path, shown, bytes)?
        .persist(path)
        .map_err(|err| ToolError::io(shown, &err.error))?;
    Ok(())
}

/// A temporary file beside `path` holding `bytes`, with `path`'s permissions.
fn stage(path: &Path, shown: &str, bytes: &[u8]) -> ToolResult<tempfile::NamedTempFile> {
    let parent = path.parent().ok_or_else(|| {
        ToolError::new(
            ErrorCode::InvalidParams,
            format!("{shown} has no parent folder"),
        )
    })?;
    std::fs::create_dir_all(parent).map_err(|err| ToolError::io(shown, &err))?;
    let mut temp = tempfile::Builder::new()
        .prefix(".sextant-")
        .tempfile_in(parent)
        .map_err(|err| ToolError::io(shown, &err))?;
    temp.write_all(bytes)
        .and_then(|_| temp.as_file().sync_all())
        .map_err(|err| ToolError::io(shown, &err))?;
    if let Ok(meta) = std::fs::metadata(path) {
        // Keep the mode of the file being replaced (the temp file is 0600).
        let _ = std::fs::set_permissions(temp.path(), meta.permissions());
    } else {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = 0o666 & !umask();
            let _ = std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(mode));
        }
    }
    Ok(temp)
}

/// The process's umask, as a new file's mode should honour it (read from
/// /proc: setting it to read it back would race with other threads).
#[cfg(unix)]
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("Umask:"))
                .and_then(|value| u32::from_str_radix(value.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_as_split_after_each_line_end() {
        for text in ["", "a", "a\n", "a\nb", "\n\n", "a\r\nb\n"] {
            assert_eq!(
                line_count(text),
                text.split_inclusive('\n').count(),
                "{text:?}"
            );
        }
    }

    /// The regions as the lines of both texts, split and compared pair by
    /// pair, give them.
    fn regions_by_lines(old: &str, new: &str) -> Vec<Region> {
        let (a, b): (Vec<&str>, Vec<&str>) = (
            old.split_inclusive('\n').collect(),
            new.split_inclusive('\n').collect(),
        );
        let start = |lines: &[&str], line: usize| lines[..line].iter().map(|l| l.len()).sum();
        let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
        for line in (0..a.len()).filter(|&i| a[i] != b[i]) {
            let (first, end) = (
                line.saturating_sub(CONTEXT),
                (line + 1 + CONTEXT).min(a.len()),
            );
            match ranges.last_mut() {
                Some(last) if first <= last.end => last.end = end,
                _ => ranges.push(first..end),
            }
        }
        ranges
            .into_iter()
            .map(|lines| Region {
                old_bytes: start(&a, lines.start)..start(&a, lines.end),
                new_bytes: start(&b, lines.start)..start(&b, lines.end),
                lines,
            })
            .collect()
    }

    proptest::proptest! {
        /// Texts with some lines changed (longer, shorter, emptied, split
        /// in two; the last with its line end or without, in either), read
        /// side by side: the same regions as line by line where they have
        /// as many lines, and none where they have not.
        #[test]
        fn regions_read_side_by_side_are_those_line_by_line(
            lines in proptest::collection::vec("[ab]{0,3}", 0..40),
            changes in proptest::collection::vec((0usize..40, "[abc\n]{0,4}"), 0..8),
            last_newlines in (proptest::bool::ANY, proptest::bool::ANY),
        ) {
            let join = |lines: &[String], last_newline: bool| {
                let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
                if !last_newline {
                    text.pop();
                }
                text
            };
            let mut changed = lines.clone();
            for (at, text) in &changes {
                if let Some(line) = changed.get_mut(*at) {
                    *line = text.clone();
                }
            }
            let (old, new) = (join(&lines, last_newlines.0), join(&changed, last_newlines.1));
            let regions = changed_regions(&old, &new);
            match line_count(&old) == line_count(&new) {
                true => proptest::prop_assert_eq!(regions, Some(regions_by_lines(&old, &new))),
                false => proptest::prop_assert_eq!(regions, None),
            }
        }
    }

    #[test]
    fn more_lines_differing_than_are_read_before_counting_give_the_same_regions() {
        let lines: Vec<String> = (0..3 * COUNT_AFTER)
            .map(|i| format!("line {i}\n"))
            .collect();
        let old: String = lines.concat();
        // Every line changed in place: regions all the same.
        let new = old.replace("line", "LINE");
        assert_eq!(
            changed_regions(&old, &new),
            Some(regions_by_lines(&old, &new))
        );
        // A line added at the start, or one taken away: none.
        assert_eq!(changed_regions(&old, &format!("first\n{old}")), None);
        assert_eq!(changed_regions(&old, &lines[1..].concat()), None);
    }

    /// `old` with the hunks of the unified diff `diff` applied, each line
    /// of context and each removed checked against `old`.
    fn patched(old: &str, diff: &str) -> String {
        let old: Vec<&str> = old.split_inclusive('\n').collect();
        let (mut new, mut next) = (String::new(), 0);
        let mut lines = diff.split_inclusive('\n').skip(2).peekable();
        while let Some(header) = lines.next() {
            let range = header
                .strip_prefix("@@ -")
                .unwrap()
                .split(' ')
                .next()
                .unwrap();
            let start: usize = range.split(',').next().unwrap().parse().unwrap();
            let start = if range.ends_with(",0") {
                start
            } else {
                start - 1
            };
            new.extend(old[next..start].iter().copied());
            next = start;
            while let Some(line) = lines.next_if(|line| !line.starts_with("@@")) {
                // A line without its line end, as the note after it says.
                let line = match lines.next_if(|note| note.starts_with('\\')) {
                    Some(_) => line.strip_suffix('\n').unwrap(),
                    None => line,
                };
                let (tag, text) = line.split_at(1);
                if tag != "+" {
                    assert_eq!(old[next], text, "{diff}");
                    next += 1;
                }
                if tag != "-" {
                    new.push_str(text);
                }
            }
        }
        new.extend(old[next..].iter().copied());
        new
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config {
            failure_persistence: None,
            ..proptest::test_runner::Config::default()
        })]

        /// A diff of texts of as many lines: applied, it makes the new
        /// text; it removes and adds each line that differs, once; cut at
        /// any budget, it is the whole diff cut there, the lines left out
        /// counted; and where no changed line's text is a line of the
        /// other text (every line unique), it is the diff of the whole
        /// texts. Either text may end without a line end.
        #[test]
        fn a_diff_in_place_is_a_patch_and_a_whole_diff_where_lines_are_unique(
            lines in proptest::collection::vec("[ab]{0,3}", 1..40),
            changes in proptest::collection::vec((0usize..40, "[abX]{0,3}"), 0..8),
            last_newline in (proptest::bool::ANY, proptest::bool::ANY),
            crlf in (proptest::bool::ANY, proptest::bool::ANY),
            max_chars in 0usize..400,
        ) {
            let text = |lines: &[String], last_newline: bool| {
                let mut text = lines.join("\n");
                if last_newline {
                    text.push('\n');
                }
                text
            };
            let mut changed = lines.clone();
            for (at, line) in &changes {
                changed[at % lines.len()] = line.clone();
            }
            let (old, new) = (text(&lines, last_newline.0), text(&changed, last_newline.1));
            let (diff, removed, added, beyond) =
                unified_diff(&old, &new, ("a/f", "b/f"), usize::MAX);
            proptest::prop_assert_eq!(patched(&old, &diff), new.clone());
            // (A last empty line without a line end is no line.)
            if line_count(&old) == line_count(&new) {
                let differing = old
                    .split_inclusive('\n')
                    .zip(new.split_inclusive('\n'))
                    .filter(|(a, b)| a != b)
                    .count();
                proptest::prop_assert_eq!((removed, added, beyond), (differing, differing, 0));
            }
            let mut expected = diff;
            let expected_omitted = cut(&mut expected, max_chars);
            let (mut shown, _, _, beyond) = unified_diff(&old, &new, ("a/f", "b/f"), max_chars);
            let omitted = cut(&mut shown, max_chars) + beyond;
            proptest::prop_assert_eq!((shown, omitted), (expected, expected_omitted));
            // Unique lines, changed to others: the whole diff, with CRLF
            // line ends in either text (compared and shown as LF).
            let unique = |lines: &[String]| -> Vec<String> {
                lines.iter().enumerate().map(|(i, l)| format!("{l} {i}")).collect()
            };
            let (old, new) = (
                text(&unique(&lines), last_newline.0),
                text(&unique(&changed), last_newline.1),
            );
            let with_crlf = |text: &str, yes: bool| match yes {
                true => text.replace('\n', "\r\n"),
                false => text.to_string(),
            };
            let whole = TextDiff::from_lines(old.as_str(), new.as_str());
            let whole = whole.unified_diff().context_radius(CONTEXT).header("a/f", "b/f").to_string();
            let (diff, ..) = unified_diff(
                &with_crlf(&old, crlf.0),
                &with_crlf(&new, crlf.1),
                ("a/f", "b/f"),
                usize::MAX,
            );
            proptest::prop_assert_eq!(diff, whole);
        }
    }

    #[test]
    fn lines_swapped_are_shown_changed_in_place() {
        let (diff, removed, added, _) =
            unified_diff("a\nb\nc\n", "b\na\nc\n", ("a/f", "b/f"), usize::MAX);
        assert_eq!(
            diff,
            "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n-b\n+b\n+a\n c\n"
        );
        assert_eq!((removed, added), (2, 2));
    }

    #[test]
    fn a_diff_by_stretches_is_the_whole_texts_diff() {
        let whole = |old: &str, new: &str| {
            let diff = TextDiff::from_lines(old, new);
            let text = diff
                .unified_diff()
                .context_radius(CONTEXT)
                .header("a/f", "b/f")
                .to_string();
            let count = |tag| diff.iter_all_changes().filter(|c| c.tag() == tag).count();
            (
                text,
                count(similar::ChangeTag::Delete),
                count(similar::ChangeTag::Insert),
                0,
            )
        };
        let lines: Vec<String> = (1..=30).map(|i| format!("line {i}\n")).collect();
        let text = |changed: &[usize], last_newline: bool| {
            let mut text: String = lines
                .iter()
                .enumerate()
                .map(|(i, l)| match changed.contains(&i) {
                    true => l.replace("line", "LINE"),
                    false => l.clone(),
                })
                .collect();
            if !last_newline {
                text.pop();
            }
            text
        };
        // Changes at either end, next to each other, six and seven equal
        // lines apart, and a last line without its newline.
        for changed in [
            vec![0],
            vec![29],
            vec![3, 4],
            vec![5, 12],
            vec![5, 13],
            vec![0, 10, 20, 29],
            vec![],
        ] {
            for last_newline in [true, false] {
                let (old, new) = (text(&[], last_newline), text(&changed, last_newline));
                assert_eq!(
                    unified_diff(&old, &new, ("a/f", "b/f"), usize::MAX),
                    whole(&old, &new),
                    "{changed:?} {last_newline}"
                );
                // Cut short, the hunks past the cut counted, not written:
                // what is shown and the lines left out are those of the
                // whole diff cut there.
                // So with lone CRs, which `similar` ends lines at and a
                // count of lines does not (against this diff written
                // whole: `changed_regions` counts lines by LF alone).
                let lone_cr = |text: &str| text.replace("line 2\n", "line 2\r");
                for (old, new) in [(old.clone(), new.clone()), (lone_cr(&old), lone_cr(&new))] {
                    for max_chars in [0, 20, 60, 100, 150, 220, 300] {
                        let (mut expected, ..) =
                            unified_diff(&old, &new, ("a/f", "b/f"), usize::MAX);
                        let expected_omitted = cut(&mut expected, max_chars);
                        let (mut shown, _, _, beyond) =
                            unified_diff(&old, &new, ("a/f", "b/f"), max_chars);
                        let omitted = cut(&mut shown, max_chars) + beyond;
                        assert_eq!(
                            (shown, omitted),
                            (expected, expected_omitted),
                            "{changed:?} {last_newline} {max_chars}"
                        );
                    }
                }
                // CRLF line ends, in both texts or in one: compared and
                // shown as LF.
                let crlf = |text: &str| text.replace('\n', "\r\n");
                for (crlf_old, crlf_new) in [(true, true), (true, false), (false, true)] {
                    let old = if crlf_old { crlf(&old) } else { old.clone() };
                    let new = if crlf_new { crlf(&new) } else { new.clone() };
                    assert_eq!(
                        unified_diff(&old, &new, ("a/f", "b/f"), usize::MAX),
                        whole(&unix_newlines(&old), &unix_newlines(&new)),
                        "{changed:?} {last_newline} CRLF {crlf_old} {crlf_new}"
                    );
                }
            }
        }
        // Lines added: the whole texts are diffed.
        let (old, new) = (text(&[], true), format!("new\n{}", text(&[7], true)));
        assert_eq!(
            unified_diff(&old, &new, ("a/f", "b/f"), usize::MAX),
            whole(&old, &new)
        );
        // So with CRLF line ends: compared and shown as LF.
        let (crlf_old, crlf_new) = (old.replace('\n', "\r\n"), new.replace('\n', "\r\n"));
        assert_eq!(
            unified_diff(&crlf_old, &crlf_new, ("a/f", "b/f"), usize::MAX),
            whole(&old, &new)
        );
    }

    #[test]
    fn a_text_made_by_replacements_is_diffed_from_them_as_read_whole() {
        use crate::fs::new_text::Replaced;
        use crate::fs::new_text::tests::replacing;
        // Lines far apart and near (hunks apart and together), several
        // replacements on one line, one that changes nothing, the first
        // and last lines (the last without a line end), CRLF and a lone CR.
        let lines: Vec<String> = (0..40).map(|n| format!("line {n} send(x)\n")).collect();
        let long = lines.concat();
        let cases: Vec<(String, Vec<(&str, &str)>)> = vec![
            (
                long.clone(),
                vec![
                    ("send", "ship"),
                    ("line 5 send", "line 5 ship"),
                    ("send", "send"),
                    ("line 12 send", "line 12 shipped"),
                ],
            ),
            (
                long.clone(),
                vec![
                    ("line 20 send", "line 20 ship"),
                    ("line 26 send", "line 26 ship"),
                    ("line 33 send", "line 33 ship"),
                    ("line 39 send", "line 39 ship"),
                ],
            ),
            (
                "a send send\nb\nc send".into(),
                vec![("send", "ship"), ("send", "ship"), ("send", "ship")],
            ),
            (
                "a send\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh send\r\n".into(),
                vec![("send", "ship"), ("send", "ship")],
            ),
            ("a\rb send\nc\n".into(), vec![("send", "ship")]),
            ("send\n".into(), vec![("send", "")]),
            ("a send\n".into(), vec![("send", "send")]),
        ];
        for (base, edits) in cases {
            let edited = replacing(&base, &edits);
            assert_diffed_alike(&edited, &format!("{base:?} {edits:?}"));
            assert!(!edited.made_whole(), "{base:?} {edits:?} was diffed whole");
        }
        // Text put at the end of a last line without a line end, beside a
        // replacement there or alone; that line emptied (a line gone, so
        // the whole texts are diffed), with a change far above it or
        // alone; text put between a CR and its LF.
        let fillers: String = (0..20).map(|n| format!("filler {n}\n")).collect();
        let emptied = format!("a send\na ship\n{fillers}send");
        let last = emptied.len() - 4;
        type Edits<'a> = Vec<(std::ops::Range<usize>, &'a str)>;
        let cases: Vec<(&str, Edits)> = vec![
            ("a\nb\nc", vec![(5..5, "X")]),
            ("x = greet", vec![(4..9, "salute"), (9..9, " as greet")]),
            (&emptied, vec![(2..6, "ship"), (last..last + 4, "")]),
            (&emptied, vec![(last..last + 4, "")]),
            ("a\r\nb\r\n", vec![(2..2, "x")]),
        ];
        for (base, edits) in cases {
            let base: Arc<str> = Arc::from(base);
            let replaced: Vec<Replaced> = edits
                .iter()
                .map(|(bytes, with)| Replaced {
                    bytes: bytes.clone(),
                    line: base[..bytes.start].matches('\n').count(),
                    with: with.to_string(),
                })
                .collect();
            let edited = NewText::from_replacements(Arc::clone(&base), Arc::default(), replaced);
            assert_diffed_alike(&edited, &format!("{base:?} {edits:?}"));
        }
    }

    /// `edited`'s diff, made from its replacements, is the diff of its
    /// whole text, at each budget.
    fn assert_diffed_alike(edited: &NewText, case: &str) {
        let replaced = edited.edited().unwrap();
        let base = Arc::clone(&replaced.base);
        let copy = NewText::from_replacements(
            Arc::clone(&base),
            Arc::default(),
            replaced.replaced().to_vec(),
        );
        let whole = NewText::from(copy.as_str());
        let file = |after: &NewText| FileEdit {
            path: PathBuf::from("a.ts"),
            shown: "a.ts".to_string(),
            before: Some(Arc::clone(&base)),
            after: Some(after.clone()),
        };
        for max_chars in [60, 200, 100_000] {
            assert_eq!(
                file(edited).describe(max_chars),
                file(&whole).describe(max_chars),
                "{case}"
            );
        }
    }

    fn edit_of(dir: &Path, name: &str, before: &str, after: &str) -> FileEdit {
        std::fs::write(dir.join(name), before).unwrap();
        FileEdit {
            path: dir.join(name),
            shown: name.to_string(),
            before: Some(before.into()),
            after: Some(NewText::whole(after.into())),
        }
    }

    #[test]
    fn a_write_failing_midway_puts_back_the_files_already_written() {
        let dir = tempfile::tempdir().unwrap();
        let patch = Patch {
            files: vec![
                edit_of(dir.path(), "a.ts", "a1\n", "a2\n"),
                edit_of(dir.path(), "b.ts", "b1\n", "b2\n"),
                edit_of(dir.path(), "c.ts", "c1\n", "c2\n"),
            ],
        };
        let err = apply_with(&patch, |temp, path| {
            if path.ends_with("c.ts") {
                return Err(std::io::Error::other("disk full"));
            }
            temp.persist(path).map(drop).map_err(|e| e.error)
        })
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "error[io]: writing failed: c.ts: disk full; the 2 files already written were restored, so nothing changed"
        );
        for (name, text) in [("a.ts", "a1\n"), ("b.ts", "b1\n"), ("c.ts", "c1\n")] {
            assert_eq!(
                std::fs::read_to_string(dir.path().join(name)).unwrap(),
                text
            );
        }
        // No staged file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }

    #[test]
    fn patches_past_the_bounds_expire_and_say_so() {
        let store = PatchStore::default();
        let patch = || Patch { files: Vec::new() };
        let first = store.insert(patch());
        for _ in 0..MAX_PATCHES {
            store.insert(patch());
        }
        let err = store.take(&first).unwrap_err().to_string();
        assert!(err.contains("it expired"), "{err}");
        let last = store.insert(patch());
        store.take(&last).unwrap();
        store.mark_applied(&last);
        let err = store.take(&last).unwrap_err().to_string();
        assert!(err.contains("already applied"), "{err}");
        assert!(
            store
                .take("p999999")
                .unwrap_err()
                .to_string()
                .contains("no such patch")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_honours_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.txt");
        write_atomic(&path, "new.txt", b"x").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask());
        // The umask as the kernel says it (for the test's process).
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        assert!(
            status.contains(&format!("Umask:\t{:04o}", umask())),
            "{status}"
        );
    }
}
