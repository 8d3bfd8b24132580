//! BENCHMARKS.md is one file written by several benches: `table` writes the
//! whole of it but the sections other benches own, which each replaces on
//! its own (`shared`: the shared instance; `navigation -- writes`: a
//! write's impact and `fix`; `table -- --corpus`: real projects;
//! `library_outlines`: outlines of a real `node_modules`).

// Each bench uses a part of it.
#![allow(dead_code)]

/// The heading of the section `table -- --corpus NAME=DIR` writes.
pub const REAL_PROJECTS: &str = "## Real projects";

/// The heading of the section `library_outlines` writes.
pub const LIBRARY_OUTLINES: &str = "## Library outlines";

/// The headings of the sections benches other than `table`'s whole run
/// write.
pub const OWNED: [&str; 4] = [
    "## Shared instance",
    "## Writes",
    REAL_PROJECTS,
    LIBRARY_OUTLINES,
];

/// Replaces the section under `heading` of the project's BENCHMARKS.md by
/// `section` (or appends it), saying where on stderr.
pub fn write(heading: &str, section: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS.md");
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    match std::fs::write(&path, replace(&existing, heading, section)) {
        Ok(()) => eprintln!("written to {}", path.display()),
        Err(err) => eprintln!("cannot write {}: {err}", path.display()),
    }
}

/// `document` with the section under `heading` replaced by `section` (or
/// appended).
pub fn replace(document: &str, heading: &str, section: &str) -> String {
    let kept = match find(document, heading) {
        Some((start, end)) => format!("{}{}", &document[..start], &document[end..]),
        None => document.to_string(),
    };
    format!("{}\n\n{}", kept.trim_end(), section.trim_end()) + "\n"
}

/// `new` (the table's document) followed by the owned sections `old` has.
pub fn keep_owned(old: &str, new: &str) -> String {
    let mut out = new.trim_end().to_string();
    for heading in OWNED {
        if let Some((start, end)) = find(old, heading) {
            out = format!("{}\n\n{}", out.trim_end(), old[start..end].trim_end());
        }
    }
    out + "\n"
}

/// Where the section under `heading` starts and ends in `document`.
fn find(document: &str, heading: &str) -> Option<(usize, usize)> {
    let start = if document.starts_with(heading) {
        0
    } else {
        document.find(&format!("\n{heading}"))? + 1
    };
    let rest = &document[start + heading.len()..];
    let end = rest
        .find("\n## ")
        .map_or(document.len(), |i| start + heading.len() + i + 1);
    Some((start, end))
}
