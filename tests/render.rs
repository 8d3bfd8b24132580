//! The renderers (`sextant::render`), tested in-process: every case builds a
//! `model` value by hand, renders it, and compares the whole text with the
//! text written next to it. No language server, no file system: this pins
//! the wording the live tests reach only through real servers (singular and
//! plural counts, paging footers, `Note:` lines, one block per file).
//!
//! One test per renderer, each a table of `(case name, model value, expected
//! text)`. Every case of a table runs; the table then fails once, naming
//! each case that differed with its actual and expected text. Blocks are
//! joined as `tests/common` joins them for the snapshots; expected texts are
//! written indented, and [`dedent`] takes that indentation off.

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

use sextant::model::*;
use sextant::render;

#[test]
fn created_file() {
    check(
        render::created_file,
        vec![
            (
                "created, plural",
                CreatedFile {
                    path: "src/x.ts".into(),
                    overwritten: false,
                    lines: 3,
                    bytes: 52,
                    impact: None,
                },
                "Created src/x.ts (3 lines, 52 bytes)",
            ),
            (
                "overwrote, singular",
                CreatedFile {
                    path: "a.txt".into(),
                    overwritten: true,
                    lines: 1,
                    bytes: 1,
                    impact: None,
                },
                "Overwrote a.txt (1 line, 1 byte)",
            ),
            (
                "created, nothing new",
                CreatedFile {
                    path: "src/x.ts".into(),
                    overwritten: false,
                    lines: 3,
                    bytes: 52,
                    impact: Some(Impact {
                        files_compared: 1,
                        ..Impact::default()
                    }),
                },
                "
                Created src/x.ts (3 lines, 52 bytes)

                === next block ===

                Impact: no new errors or warnings (1 file re-checked)
                ",
            ),
        ],
    );
}

#[test]
fn file_lines() {
    check(
        render::file_lines,
        vec![
            (
                "whole file",
                FileLines {
                    lines: vec![numbered(1, "fn main() {"), numbered(2, "}")],
                    total_lines: 2,
                    ..file("src/main.rs")
                },
                "     1\tfn main() {\n     2\t}\nsrc/main.rs · lines 1-2 of 2",
            ),
            (
                "empty file",
                FileLines {
                    total_lines: 0,
                    ..file("empty.ts")
                },
                "empty.ts · empty file",
            ),
            (
                "crlf line endings",
                FileLines {
                    lines: vec![numbered(1, "a"), numbered(2, "")],
                    total_lines: 2,
                    crlf: true,
                    ..file("src/crlf.ts")
                },
                "     1\ta\n     2\t\nsrc/crlf.ts · lines 1-2 of 2 · CRLF line endings",
            ),
            (
                "a middle page, with more after it",
                FileLines {
                    lines: vec![numbered(9, "x"), numbered(10, "y")],
                    total_lines: 200,
                    crlf: true,
                    next_offset: Some(11),
                    ..file("big.txt")
                },
                "     9\tx\n    10\ty\nbig.txt · lines 9-10 of 200 · CRLF line endings; pass offset=11 for more",
            ),
            (
                "a line cut",
                FileLines {
                    lines: vec![NumberedLine {
                        number: 1,
                        text: "abcde".into(),
                        cut_from: Some(5000),
                    }],
                    total_lines: 1,
                    ..file("min.js")
                },
                "     1\tabcde [... line cut at 5 of 5000 characters]\nmin.js · lines 1-1 of 1",
            ),
        ],
    );
}

#[test]
fn found_files() {
    let found = |files: &[&str], offset, total| FoundFiles {
        pattern: "*.ts".into(),
        base: "src".into(),
        files: files.iter().map(|f| f.to_string()).collect(),
        offset,
        total,
    };
    check(
        render::found_files,
        vec![
            ("none", found(&[], 0, 0), "No files match *.ts in src"),
            (
                "one",
                found(&["src/a.ts"], 0, 1),
                "
                src/a.ts
                1 file matches *.ts in src
                ",
            ),
            (
                "all of several",
                found(&["src/b.ts", "src/a.ts"], 0, 2),
                "
                src/b.ts
                src/a.ts
                2 files match *.ts in src
                ",
            ),
            (
                "first page",
                found(&["src/c.ts", "src/b.ts"], 0, 6),
                "
                src/c.ts
                src/b.ts
                6 files match *.ts in src; showing 1-2; pass offset=2 for more
                ",
            ),
            (
                "last page",
                found(&["src/a.ts"], 5, 6),
                "
                src/a.ts
                6 files match *.ts in src; showing 6-6
                ",
            ),
        ],
    );
}

#[test]
fn grep() {
    check(
        render::grep,
        vec![
            (
                "no matches",
                grep_of("nothing", GrepMode::Content),
                "No matches for nothing",
            ),
            (
                "no matches, binary files skipped",
                GrepResult {
                    binary_files_skipped: 2,
                    ..grep_of("nothing", GrepMode::FilesWithMatches)
                },
                "No matches for nothing (2 binary files skipped)",
            ),
            (
                "files with matches, one",
                GrepResult {
                    entries: vec![GrepEntry::File {
                        path: "src/a.ts".into(),
                    }],
                    total_entries: 1,
                    total_files: 1,
                    total_matching_lines: 3,
                    binary_files_skipped: 1,
                    ..grep_of("greet\\(", GrepMode::FilesWithMatches)
                },
                "
                Found 1 file containing greet\\( (1 binary file skipped)
                src/a.ts
                ",
            ),
            (
                "count mode",
                GrepResult {
                    entries: vec![
                        GrepEntry::Count {
                            path: "src/a.ts".into(),
                            count: 1,
                        },
                        GrepEntry::Count {
                            path: "src/b.ts".into(),
                            count: 4,
                        },
                    ],
                    total_entries: 2,
                    total_files: 2,
                    total_matching_lines: 5,
                    ..grep_of("area", GrepMode::Count)
                },
                "
                Found 5 matching lines in 2 files for area
                src/a.ts:1
                src/b.ts:4
                ",
            ),
            (
                "content, one line, no line numbers",
                GrepResult {
                    line_numbers: false,
                    entries: vec![hit("src/a.ts", 7, "return 1;")],
                    total_entries: 1,
                    total_files: 1,
                    total_matching_lines: 1,
                    ..grep_of("return", GrepMode::Content)
                },
                "
                Found 1 matching line in 1 file for return
                src/a.ts:return 1;
                ",
            ),
            (
                "content with context: -- between groups and files",
                GrepResult {
                    has_context: true,
                    entries: vec![
                        context_line("src/a.ts", 3, "  readonly name: string;"),
                        hit("src/a.ts", 4, "  area(): number;"),
                        context_line("src/a.ts", 5, "}"),
                        hit("src/a.ts", 11, "  abstract area(): number;"),
                        hit("src/b.ts", 12, "area(): number {"),
                    ],
                    total_entries: 5,
                    total_files: 2,
                    total_matching_lines: 3,
                    ..grep_of("area", GrepMode::Content)
                },
                "
                Found 3 matching lines in 2 files for area
                src/a.ts-3-  readonly name: string;
                src/a.ts:4:  area(): number;
                src/a.ts-5-}
                --
                src/a.ts:11:  abstract area(): number;
                --
                src/b.ts:12:area(): number {
                ",
            ),
            (
                "content without context: no --",
                GrepResult {
                    entries: vec![hit("src/a.ts", 4, "x"), hit("src/a.ts", 40, "y")],
                    total_entries: 2,
                    total_files: 1,
                    total_matching_lines: 2,
                    ..grep_of("x|y", GrepMode::Content)
                },
                "
                Found 2 matching lines in 1 file for x|y
                src/a.ts:4:x
                src/a.ts:40:y
                ",
            ),
            (
                "a line cut",
                GrepResult {
                    entries: vec![GrepEntry::Line {
                        path: "dist/min.js".into(),
                        line: 1,
                        is_match: true,
                        text: "var a=1".into(),
                        cut_from: Some(90000),
                    }],
                    total_entries: 1,
                    total_files: 1,
                    total_matching_lines: 1,
                    ..grep_of("var", GrepMode::Content)
                },
                "
                Found 1 matching line in 1 file for var
                dist/min.js:1:var a=1 [... cut at 7 of 90000 characters]
                ",
            ),
            (
                "first page of lines",
                GrepResult {
                    entries: vec![
                        hit("src/a.ts", 1, "return a;"),
                        hit("src/b.ts", 2, "return b;"),
                    ],
                    total_entries: 12,
                    total_files: 6,
                    total_matching_lines: 12,
                    ..grep_of("return", GrepMode::Content)
                },
                "
                Found 12 matching lines in 6 files for return
                src/a.ts:1:return a;
                src/b.ts:2:return b;
                Showing lines 1-2 of 12; pass offset=2 for more
                ",
            ),
            (
                "last page of files",
                GrepResult {
                    entries: vec![GrepEntry::File {
                        path: "src/z.ts".into(),
                    }],
                    offset: 3,
                    total_entries: 4,
                    total_files: 4,
                    total_matching_lines: 9,
                    ..grep_of("import", GrepMode::FilesWithMatches)
                },
                "
                Found 4 files containing import
                src/z.ts
                Showing files 4-4 of 4
                ",
            ),
            (
                "middle page of counts",
                GrepResult {
                    entries: vec![GrepEntry::Count {
                        path: "src/m.ts".into(),
                        count: 2,
                    }],
                    offset: 1,
                    total_entries: 3,
                    total_files: 3,
                    total_matching_lines: 6,
                    ..grep_of("let", GrepMode::Count)
                },
                "
                Found 6 matching lines in 3 files for let
                src/m.ts:2
                Showing counts 2-2 of 3; pass offset=2 for more
                ",
            ),
        ],
    );
}

#[test]
fn fix() {
    let place = target("src/uses.ts", 3, 20, "scale", None);
    let offered = |title: &str, kind: &str, fixes: &[&str], whole_file, preferred| OfferedFix {
        title: title.into(),
        kind: kind.into(),
        fixes: fixes.iter().map(|f| f.to_string()).collect(),
        whole_file,
        preferred,
    };
    check(
        render::fix_list,
        vec![
            (
                "actions, numbered",
                FixList {
                    target: place.clone(),
                    server: "typescript-go".into(),
                    actions: vec![
                        offered("Update import from \"./shapes\"", "quick fix", &["[2304] Cannot find name 'scale'."], false, true),
                        offered("Extract to function", "refactor", &[], false, false),
                        offered("Organize Imports", "organize imports", &[], true, false),
                    ],
                },
                "
                fix scale at src/uses.ts:3:20
                typescript-go offers 3 actions (pass action: N to preview one as a patch):
                1. Update import from \"./shapes\" (quick fix, preferred): fixes [2304] Cannot find name 'scale'.
                2. Extract to function (refactor)
                3. Organize Imports (organize imports, whole file)
                ",
            ),
            (
                "none",
                FixList {
                    target: place.clone(),
                    server: "rust-analyzer".into(),
                    actions: Vec::new(),
                },
                "
                fix scale at src/uses.ts:3:20
                rust-analyzer offers no code action here
                ",
            ),
        ],
    );
    let one_line_diff = "--- a/src/uses.ts\n+++ b/src/uses.ts\n@@ -1 +1 @@\n-old\n+new\n";
    let taken = |applied: bool, patch_id: Option<&str>| PatchReport {
        patch_id: patch_id.map(String::from),
        applied,
        replacements: None,
        rename: None,
        changes: vec![change("src/uses.ts", 1, 1, one_line_diff)],
        notes: Vec::new(),
        impact: None,
        fix: Some(TakenFix {
            target: place.clone(),
            title: "Update import from \"./shapes\"".into(),
            edits: 1,
        }),
    };
    check(
        render::patch_report,
        vec![
            (
                "previewed",
                taken(false, Some("p4")),
                "
                fix scale at src/uses.ts:3:20
                Update import from \"./shapes\": 1 change across 1 file
                patch: p4 (pass it to apply_patch to write exactly this change)

                === next block ===

                --- a/src/uses.ts
                +++ b/src/uses.ts
                @@ -1 +1 @@
                -old
                +new
                ",
            ),
            (
                "written",
                taken(true, None),
                "
                fix scale at src/uses.ts:3:20
                Update import from \"./shapes\": 1 change across 1 file, written

                === next block ===

                --- a/src/uses.ts
                +++ b/src/uses.ts
                @@ -1 +1 @@
                -old
                +new
                ",
            ),
        ],
    );
}

#[test]
fn patch_report() {
    let one_line_diff = "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-old\n+new\n";
    let edit = |applied: bool, patch_id: Option<&str>| PatchReport {
        patch_id: patch_id.map(String::from),
        applied,
        replacements: Some(1),
        rename: None,
        changes: vec![change("src/a.ts", 1, 1, one_line_diff)],
        notes: Vec::new(),
        impact: None,
        fix: None,
    };
    let patch = |applied: bool, patch_id: Option<&str>| PatchReport {
        replacements: None,
        changes: vec![
            change("src/a.ts", 1, 1, one_line_diff),
            change(
                "src/b.ts",
                2,
                0,
                "--- a/src/b.ts\n+++ b/src/b.ts\n@@ -1,0 +1,2 @@\n+x\n+y\n",
            ),
        ],
        ..edit(applied, patch_id)
    };
    let rename = |applied: bool, patch_id: Option<&str>, changes, notes| PatchReport {
        patch_id: patch_id.map(String::from),
        applied,
        replacements: None,
        rename: Some(Renaming {
            target: target(
                "src/shapes.ts",
                46,
                14,
                "Registry",
                Some(("Registry", SymbolKind::Class)),
            ),
            old: "Registry".into(),
            new: "Catalog".into(),
            edits: 3,
        }),
        changes,
        notes,
        impact: None,
        fix: None,
    };
    let found = |path: &str, severity, at, code, message: &str| FileFinding {
        path: path.into(),
        diagnostic: diagnostic(severity, at, code, message, Some("ts")),
    };
    check(
        render::patch_report,
        vec![
            (
                "edit preview",
                edit(false, Some("p1")),
                "
                Preview of edit to src/a.ts: 1 replacement, +1 -1 lines; nothing written yet
                patch: p1 (pass it to apply_patch to write exactly this change)

                === next block ===

                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1 +1 @@
                -old
                +new
                ",
            ),
            (
                "edit applied at once, several replacements",
                PatchReport {
                    replacements: Some(2),
                    changes: vec![change(
                        "src/a.ts",
                        2,
                        2,
                        "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n-a\n-a\n+b\n+b\n",
                    )],
                    ..edit(true, None)
                },
                "
                Applied edit to src/a.ts: 2 replacements, +2 -2 lines

                === next block ===

                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1,2 +1,2 @@
                -a
                -a
                +b
                +b
                ",
            ),
            (
                "edit applied, its impact: introduced, fixed (alike ones once), not compared",
                PatchReport {
                    impact: Some(Impact {
                        introduced: vec![
                            found("src/a.ts", Severity::Error, (1, 5), Some("2322"), "Type 'string' is not assignable to type 'number'."),
                            found("src/a.ts", Severity::Warning, (3, 1), None, "'x' is declared but never used."),
                            found("src/index.ts", Severity::Error, (1, 10), Some("2305"), "Module './a' has no exported member 'b'."),
                        ],
                        fixed: vec![
                            found("src/a.ts", Severity::Error, (9, 1), Some("2304"), "Cannot find name 'y'.\nmore"),
                            found("src/a.ts", Severity::Error, (12, 1), Some("2304"), "Cannot find name 'y'."),
                        ],
                        remaining: 4,
                        files_compared: 3,
                        notes: vec!["not compared: src/b.ts (no diagnostics after the write within 3 s); `diagnostics` checks them".into()],
                    }),
                    ..edit(true, None)
                },
                "
                Applied edit to src/a.ts: 1 replacement, +1 -1 lines

                === next block ===

                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1 +1 @@
                -old
                +new

                === next block ===

                Impact: introduced 2 errors, 1 warning, fixed 2 errors (3 files re-checked, 4 from before remain)
                src/a.ts
                  ✘ @1:5 [Error][2322] Type 'string' is not assignable to type 'number'. (ts)
                  ⚠ @3:1 [Warning] 'x' is declared but never used. (ts)
                src/index.ts
                  ✘ @1:10 [Error][2305] Module './a' has no exported member 'b'. (ts)
                Fixed: src/a.ts [2304] Cannot find name 'y'. (2x)
                Note: not compared: src/b.ts (no diagnostics after the write within 3 s); `diagnostics` checks them
                ",
            ),
            (
                "a write whose impact no file could measure",
                PatchReport {
                    impact: Some(Impact {
                        notes: vec!["not compared: src/a.ts (typescript is still starting before the write); `diagnostics` checks them".into()],
                        ..Impact::default()
                    }),
                    ..edit(true, None)
                },
                "
                Applied edit to src/a.ts: 1 replacement, +1 -1 lines

                === next block ===

                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1 +1 @@
                -old
                +new

                === next block ===

                Impact: not measured, no file was re-checked
                Note: not compared: src/a.ts (typescript is still starting before the write); `diagnostics` checks them
                ",
            ),
            (
                "edit preview with diff lines left out",
                PatchReport {
                    changes: vec![FileChange {
                        diff_lines_omitted: 1,
                        ..change(
                            "src/a.ts",
                            1,
                            1,
                            "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-old\n",
                        )
                    }],
                    ..edit(false, Some("p2"))
                },
                "
                Preview of edit to src/a.ts: 1 replacement, +1 -1 lines; nothing written yet
                patch: p2 (pass it to apply_patch to write exactly this change)

                === next block ===

                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1 +1 @@
                -old
                ... 1 more diff line not shown (the patch holds the whole change)
                ",
            ),
            (
                "patch preview, one block per file",
                patch(false, Some("p3")),
                "
                Preview of patch p3: 2 files changed, +3 -1 lines; nothing written yet
                patch: p3 (pass it to apply_patch to write exactly this change)

                === next block ===

                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1 +1 @@
                -old
                +new

                === next block ===

                --- a/src/b.ts
                +++ b/src/b.ts
                @@ -1,0 +1,2 @@
                +x
                +y
                ",
            ),
            (
                "patch preview without an id",
                PatchReport {
                    changes: vec![FileChange {
                        diff_lines_omitted: 40,
                        ..change("src/a.ts", 1, 1, one_line_diff)
                    }],
                    ..patch(false, None)
                },
                "
                Preview of patch (unsaved): 1 file changed, +1 -1 lines

                === next block ===

                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1 +1 @@
                -old
                +new
                ... 40 more diff lines not shown (the patch holds the whole change)
                ",
            ),
            (
                "patch applied: a line per file, no diffs",
                patch(true, Some("p3")),
                "
                Applied patch p3: 2 files changed, +3 -1 lines
                  src/a.ts (+1 -1)
                  src/b.ts (+2 -0)
                ",
            ),
            (
                "an edit preview with a note",
                PatchReport {
                    notes: strings(["the file changed on disk since it was read"]),
                    ..edit(false, Some("p5"))
                },
                "
                Preview of edit to src/a.ts: 1 replacement, +1 -1 lines; nothing written yet
                patch: p5 (pass it to apply_patch to write exactly this change)
                Note: the file changed on disk since it was read

                === next block ===

                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1 +1 @@
                -old
                +new
                ",
            ),
            (
                "rename preview: moved, created, deleted files and a note",
                rename(
                    false,
                    Some("p4"),
                    vec![
                        change(
                            "src/index.ts",
                            1,
                            1,
                            "--- a/src/index.ts\n+++ b/src/index.ts\n@@ -1 +1 @@\n-Registry\n+Catalog\n",
                        ),
                        FileChange {
                            moved_from: Some("src/registry.ts".into()),
                            ..change("src/catalog.ts", 0, 0, "")
                        },
                        FileChange {
                            created: true,
                            ..change(
                                "src/new.ts",
                                1,
                                0,
                                "--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1 @@\n+Catalog\n",
                            )
                        },
                        FileChange {
                            deleted: true,
                            ..change(
                                "src/old.ts",
                                0,
                                1,
                                "--- a/src/old.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-Registry\n",
                            )
                        },
                    ],
                    strings(["read-only mode: nothing can be written from this preview"]),
                ),
                "
                rename Registry (Class) at src/shapes.ts:46:14
                Rename 'Registry' -> 'Catalog': 3 changes across 4 files
                  src/registry.ts -> src/catalog.ts (moved)
                  src/new.ts (created)
                  src/old.ts (deleted)
                patch: p4 (pass it to apply_patch to write exactly this change)
                Note: read-only mode: nothing can be written from this preview

                === next block ===

                --- a/src/index.ts
                +++ b/src/index.ts
                @@ -1 +1 @@
                -Registry
                +Catalog

                === next block ===

                --- /dev/null
                +++ b/src/new.ts
                @@ -0,0 +1 @@
                +Catalog

                === next block ===

                --- a/src/old.ts
                +++ /dev/null
                @@ -1 +0,0 @@
                -Registry
                ",
            ),
            (
                "rename applied, one change",
                PatchReport {
                    rename: Some(Renaming {
                        target: target("src/a.ts", 1, 10, "x", None),
                        old: "x".into(),
                        new: "y".into(),
                        edits: 1,
                    }),
                    ..rename(
                        true,
                        None,
                        vec![change("src/a.ts", 1, 1, one_line_diff)],
                        Vec::new(),
                    )
                },
                "
                rename x at src/a.ts:1:10
                Renamed 'x' -> 'y': 1 change across 1 file, written

                === next block ===

                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1 +1 @@
                -old
                +new
                ",
            ),
        ],
    );
}

#[test]
fn call_hierarchy() {
    let header = target(
        "src/shapes.ts",
        58,
        3,
        "totalArea",
        Some(("Registry.totalArea", SymbolKind::Method)),
    );
    let calls = |depth, incoming, outgoing, notes| CallHierarchyResult {
        target: header.clone(),
        depth,
        incoming,
        outgoing,
        notes,
    };
    let tree = |direction, calls: Vec<CallNode>, shown, files, left_out| {
        Some(CallTree {
            direction,
            calls,
            shown,
            files,
            left_out,
        })
    };
    let main = call(
        "src/index.ts",
        (4, 17),
        SymbolKind::Function,
        "main",
        vec![at("src/index.ts", 7, 42, "return registry.totalArea();")],
    );
    check(
        render::call_hierarchy,
        vec![
            (
                "no calls either way",
                calls(
                    1,
                    tree(CallDirection::Incoming, vec![], 0, 0, 0),
                    tree(CallDirection::Outgoing, vec![], 0, 0, 0),
                    vec![],
                ),
                "
                call_hierarchy Registry.totalArea (Method) at src/shapes.ts:58:3
                Incoming calls: none
                Outgoing calls: none
                ",
            ),
            (
                "a callee a macro made, where the server points at the macro",
                calls(
                    1,
                    None,
                    tree(
                        CallDirection::Outgoing,
                        vec![CallNode {
                            made_by: Some("iterator!".into()),
                            place: Place::Outside,
                            ..call(
                                "core/src/slice/iter.rs",
                                (142, 1),
                                SymbolKind::Function,
                                "position",
                                vec![at(
                                    "src/shapes.ts",
                                    60,
                                    30,
                                    "buf.iter().position(|&b| b == 0)",
                                )],
                            )
                        }],
                        1,
                        1,
                        0,
                    ),
                    vec![],
                ),
                "
                call_hierarchy Registry.totalArea (Method) at src/shapes.ts:58:3
                Outgoing calls: 1 callee in 1 file

                === next block ===

                Outgoing calls in core/src/slice/iter.rs
                  @142:1 Function - position (made by iterator! here) (outside the workspace)
                    src/shapes.ts:60:30 `buf.iter().position(|&b| b == 0)`
                ",
            ),
            (
                "one caller, with a note",
                calls(
                    1,
                    tree(CallDirection::Incoming, vec![main.clone()], 1, 1, 0),
                    None,
                    strings(["typescript-go is still indexing; callers may be missing"]),
                ),
                "
                call_hierarchy Registry.totalArea (Method) at src/shapes.ts:58:3
                Incoming calls: 1 caller in 1 file
                Note: typescript-go is still indexing; callers may be missing

                === next block ===

                Incoming calls in src/index.ts
                  @4:17 Function - main
                    @7:42 `return registry.totalArea();`
                ",
            ),
            (
                "incoming to depth 2, a caller expanded elsewhere",
                calls(
                    2,
                    tree(
                        CallDirection::Incoming,
                        vec![
                            CallNode {
                                children: vec![CallNode {
                                    repeated: true,
                                    ..call(
                                        "src/report.rs",
                                        (11, 8),
                                        SymbolKind::Function,
                                        "summary",
                                        vec![at(
                                            "src/report.rs",
                                            13,
                                            49,
                                            "Wallet(value.balance())",
                                        )],
                                    )
                                }],
                                ..call(
                                    "src/lib.rs",
                                    (43, 8),
                                    SymbolKind::Method,
                                    "impl Account for Ledger/balance",
                                    vec![at("src/lib.rs", 44, 14, "self.total()")],
                                )
                            },
                            call(
                                "src/lib.rs",
                                (58, 8),
                                SymbolKind::Method,
                                "impl fmt::Display for Ledger/fmt",
                                vec![
                                    at("src/lib.rs", 59, 45, "self.total()"),
                                    at("src/lib.rs", 60, 9, "self.total()"),
                                ],
                            ),
                            CallNode {
                                children: vec![call(
                                    "src/report.rs",
                                    (22, 12),
                                    SymbolKind::Method,
                                    "impl Report/lines",
                                    vec![at("src/report.rs", 23, 33, "map(summary)")],
                                )],
                                ..call(
                                    "src/report.rs",
                                    (11, 8),
                                    SymbolKind::Function,
                                    "summary",
                                    vec![at("src/report.rs", 12, 31, "value.total()")],
                                )
                            },
                        ],
                        5,
                        2,
                        0,
                    ),
                    None,
                    vec![],
                ),
                "
                call_hierarchy Registry.totalArea (Method) at src/shapes.ts:58:3
                Incoming calls: 3 callers in 2 files, 5 in all to depth 2

                === next block ===

                Incoming calls in src/lib.rs
                  @43:8 Method - impl Account for Ledger/balance
                    @44:14 `self.total()`
                    called by:
                      @11:8 Function - summary in src/report.rs (expanded elsewhere)
                        @13:49 `Wallet(value.balance())`
                  @58:8 Method - impl fmt::Display for Ledger/fmt
                    @59:45 `self.total()`
                    @60:9 `self.total()`

                === next block ===

                Incoming calls in src/report.rs
                  @11:8 Function - summary
                    @12:31 `value.total()`
                    called by:
                      @22:12 Method - impl Report/lines
                        @23:33 `map(summary)`
                ",
            ),
            (
                "outgoing: sites in the caller's file, a callee outside",
                calls(
                    2,
                    None,
                    tree(
                        CallDirection::Outgoing,
                        vec![
                            CallNode {
                                place: Place::Outside,
                                ..call(
                                    "/tools/lib.es5.d.ts",
                                    (1486, 5),
                                    SymbolKind::Method,
                                    "Array.reduce",
                                    vec![at("src/shapes.ts", 59, 12, "items.reduce(add, 0)")],
                                )
                            },
                            CallNode {
                                children: vec![call(
                                    "src/math.ts",
                                    (1, 17),
                                    SymbolKind::Function,
                                    "plus",
                                    vec![at("src/shapes.ts", 3, 10, "plus(a, b)")],
                                )],
                                ..call(
                                    "src/shapes.ts",
                                    (2, 10),
                                    SymbolKind::Function,
                                    "add",
                                    vec![at("src/shapes.ts", 59, 25, "items.reduce(add, 0)")],
                                )
                            },
                        ],
                        3,
                        2,
                        0,
                    ),
                    vec![],
                ),
                "
                call_hierarchy Registry.totalArea (Method) at src/shapes.ts:58:3
                Outgoing calls: 2 callees in 2 files, 3 in all to depth 2

                === next block ===

                Outgoing calls in /tools/lib.es5.d.ts
                  @1486:5 Method - Array.reduce (outside the workspace)
                    src/shapes.ts:59:12 `items.reduce(add, 0)`

                === next block ===

                Outgoing calls in src/shapes.ts
                  @2:10 Function - add
                    @59:25 `items.reduce(add, 0)`
                    calls:
                      @1:17 Function - plus in src/math.ts
                        src/shapes.ts:3:10 `plus(a, b)`
                ",
            ),
            (
                "calls left out by the size bound",
                calls(
                    1,
                    tree(CallDirection::Incoming, vec![main.clone()], 1, 1, 1),
                    tree(CallDirection::Outgoing, vec![], 0, 0, 12),
                    vec![],
                ),
                "
                call_hierarchy Registry.totalArea (Method) at src/shapes.ts:58:3
                Incoming calls: 1 caller in 1 file; 1 call left out (the answer's size bound)
                Outgoing calls: 0 callees in 0 files; 12 calls left out (the answer's size bound)

                === next block ===

                Incoming calls in src/index.ts
                  @4:17 Function - main
                    @7:42 `return registry.totalArea();`
                ",
            ),
        ],
    );
}

#[test]
fn completion() {
    let item = |label: &str, detail: Option<&str>, documentation: Option<&str>| CompletionEntry {
        label: label.into(),
        detail: detail.map(String::from),
        documentation: documentation.map(String::from),
    };
    let completion = |total, groups, incomplete, notes| CompletionResult {
        path: "src/index.ts".into(),
        position: Position::new(6, 12),
        total,
        groups,
        incomplete,
        notes,
    };
    check(
        render::completion,
        vec![
            (
                "nothing",
                completion(0, vec![], false, vec![]),
                "completion at src/index.ts:6:12: 0 items",
            ),
            (
                "one item",
                completion(
                    1,
                    vec![CompletionGroup {
                        kind: CompletionKind::Keyword,
                        items: vec![item("return", None, None)],
                    }],
                    false,
                    vec![],
                ),
                "
                completion at src/index.ts:6:12: 1 item

                Keywords (1)
                  return
                ",
            ),
            (
                "groups, details and documentation",
                completion(
                    3,
                    vec![
                        CompletionGroup {
                            kind: CompletionKind::Method,
                            items: vec![
                                item("add", Some("(item: Shape): Registry"), Some("Adds a shape.")),
                                item("get", Some("(name: string): Shape"), None),
                            ],
                        },
                        CompletionGroup {
                            kind: CompletionKind::EnumMember,
                            items: vec![item("Metre", None, Some("A metre."))],
                        },
                    ],
                    false,
                    vec![],
                ),
                "
                completion at src/index.ts:6:12: 3 items

                Methods (2)
                  add - (item: Shape): Registry
                    Adds a shape.
                  get - (name: string): Shape

                Enum members (1)
                  Metre
                    A metre.
                ",
            ),
            (
                "cut to the limit, incomplete, with a note",
                completion(
                    250,
                    vec![CompletionGroup {
                        kind: CompletionKind::Other,
                        items: vec![item("a", None, None), item("b", None, None)],
                    }],
                    true,
                    strings(["the server is still indexing"]),
                ),
                "
                completion at src/index.ts:6:12: 250 items, the best 2 shown (248 more; pass a larger limit, or type more of the name)
                Note: the server's list is incomplete; type more of the name to narrow it
                Note: the server is still indexing

                Other (2)
                  a
                  b
                ",
            ),
        ],
    );
}

#[test]
fn inspect() {
    let header = target(
        "src/shapes.ts",
        2,
        18,
        "Shape",
        Some(("Shape", SymbolKind::Interface)),
    );
    let nothing = InspectResult {
        target: header.clone(),
        hover: None,
        definitions: vec![],
        type_definitions: vec![],
        implementations: vec![],
        implementations_total: 0,
        offset: 0,
        next_offset: None,
        notes: vec![],
    };
    let hover = Some("```typescript\ninterface Shape\n```\nAnything with an area.".to_string());
    let classes = vec![
        at(
            "src/shapes.ts",
            8,
            23,
            "export abstract class Base implements Shape {",
        ),
        at(
            "src/shapes.ts",
            18,
            14,
            "export class Circle extends Base {",
        ),
    ];
    check(
        render::inspect,
        vec![
            (
                "nothing found",
                nothing.clone(),
                "inspect Shape (Interface) at src/shapes.ts:2:18",
            ),
            (
                "nothing found, with a note",
                InspectResult {
                    notes: strings(["hover failed: request timed out"]),
                    ..nothing.clone()
                },
                "
                inspect Shape (Interface) at src/shapes.ts:2:18
                Note: hover failed: request timed out
                ",
            ),
            (
                "hover only",
                InspectResult {
                    hover: hover.clone(),
                    ..nothing.clone()
                },
                "
                inspect Shape (Interface) at src/shapes.ts:2:18

                ```typescript
                interface Shape
                ```
                Anything with an area.
                ",
            ),
            (
                "hover and a note: a blank line between",
                InspectResult {
                    hover: Some("`x: number`".into()),
                    notes: strings(["typescript-go is still indexing"]),
                    ..nothing.clone()
                },
                "
                inspect Shape (Interface) at src/shapes.ts:2:18

                `x: number`

                Note: typescript-go is still indexing
                ",
            ),
            (
                "one of each, no hover",
                InspectResult {
                    definitions: vec![at("src/shapes.ts", 2, 18, "export interface Shape {")],
                    type_definitions: vec![at("src/types.ts", 1, 1, "")],
                    implementations: vec![classes[0].clone()],
                    implementations_total: 1,
                    ..nothing.clone()
                },
                "
                inspect Shape (Interface) at src/shapes.ts:2:18

                Definition: src/shapes.ts:2:18 `export interface Shape {`
                Type definition: src/types.ts:1:1
                Implementation: src/shapes.ts:8:23 `export abstract class Base implements Shape {`
                ",
            ),
            (
                "hover, several definitions, one outside the workspace",
                InspectResult {
                    target: target("src/shapes.ts", 47, 23, "Map", None),
                    hover: Some("var Map: MapConstructor".into()),
                    definitions: vec![
                        SourceLocation {
                            place: Place::Outside,
                            ..at(
                                "/tools/lib.es2015.collection.d.ts",
                                17,
                                11,
                                "interface Map<K, V> {",
                            )
                        },
                        SourceLocation {
                            place: Place::Library,
                            ..at("node_modules/map/index.d.ts", 1, 1, "declare var Map;")
                        },
                    ],
                    ..nothing.clone()
                },
                "
                inspect Map at src/shapes.ts:47:23

                var Map: MapConstructor

                Definitions (2):
                  /tools/lib.es2015.collection.d.ts:17:11 (outside the workspace) `interface Map<K, V> {`
                  node_modules/map/index.d.ts:1:1 `declare var Map;`
                ",
            ),
            (
                "implementations paged, one more",
                InspectResult {
                    hover: hover.clone(),
                    definitions: vec![at("src/shapes.ts", 2, 18, "export interface Shape {")],
                    implementations: classes.clone(),
                    implementations_total: 3,
                    next_offset: Some(2),
                    ..nothing.clone()
                },
                "
                inspect Shape (Interface) at src/shapes.ts:2:18

                ```typescript
                interface Shape
                ```
                Anything with an area.

                Definition: src/shapes.ts:2:18 `export interface Shape {`
                Implementations (3):
                  src/shapes.ts:8:23 `export abstract class Base implements Shape {`
                  src/shapes.ts:18:14 `export class Circle extends Base {`
                  ... 1 more implementation; pass offset=2
                ",
            ),
            (
                "a page of one implementation, many more",
                InspectResult {
                    implementations: vec![classes[1].clone()],
                    implementations_total: 10,
                    offset: 1,
                    next_offset: Some(2),
                    notes: strings(["implementations are from typescript-go"]),
                    ..nothing.clone()
                },
                "
                inspect Shape (Interface) at src/shapes.ts:2:18

                Implementations (10):
                  src/shapes.ts:18:14 `export class Circle extends Base {`
                  ... 8 more implementations; pass offset=2
                Note: implementations are from typescript-go
                ",
            ),
        ],
    );
}

#[test]
fn references() {
    let circle = target(
        "src/shapes.ts",
        18,
        14,
        "Circle",
        Some(("Circle", SymbolKind::Class)),
    );
    let none = ReferencesResult {
        target: circle.clone(),
        total: 0,
        total_files: 0,
        files: vec![],
        offset: 0,
        next_offset: None,
        left_out: 0,
        left_out_files: 0,
        notes: vec![],
    };
    let line = |line, characters: &[u32], enclosing: Option<&str>, text: &str| ReferenceLine {
        line,
        characters: characters.to_vec(),
        enclosing: enclosing.map(String::from),
        shown_in: enclosing.map(String::from),
        text: text.into(),
        context: vec![],
    };
    check(
        render::references,
        vec![
            (
                "none",
                none.clone(),
                "
                references Circle (Class) at src/shapes.ts:18:14
                No references to Circle
                ",
            ),
            (
                "none, with the address's note and a note",
                ReferencesResult {
                    target: Target {
                        note: Some("no identifier at 18:1; used the nearest, Circle".into()),
                        ..circle.clone()
                    },
                    notes: strings(["typescript-go is still indexing; references may be missing"]),
                    ..none.clone()
                },
                "
                references Circle (Class) at src/shapes.ts:18:14
                Note: no identifier at 18:1; used the nearest, Circle
                No references to Circle
                Note: typescript-go is still indexing; references may be missing
                ",
            ),
            (
                "one",
                ReferencesResult {
                    total: 1,
                    total_files: 1,
                    files: vec![ReferenceFile {
                        path: "src/shapes.ts".into(),
                        total: 1,
                        lines: vec![line(18, &[14], None, "export class Circle extends Base {")],
                    }],
                    ..none.clone()
                },
                "
                references Circle (Class) at src/shapes.ts:18:14
                Found 1 reference to Circle across 1 file

                === next block ===

                src/shapes.ts (1 reference)
                  @18:14: `export class Circle extends Base {`
                ",
            ),
            (
                "on the enclosing symbol's own declaration line: its container, or nothing",
                ReferencesResult {
                    total: 2,
                    total_files: 1,
                    files: vec![ReferenceFile {
                        path: "src/lib.rs".into(),
                        total: 2,
                        lines: vec![
                            ReferenceLine {
                                shown_in: None,
                                ..line(121, &[6], Some("impl Shape for Circle"), "impl Shape for Circle {")
                            },
                            ReferenceLine {
                                shown_in: Some("impl Ledger".into()),
                                ..line(28, &[44], Some("impl Ledger/new"), "pub fn new(name: impl Into<String>) -> Self {")
                            },
                        ],
                    }],
                    ..none.clone()
                },
                "
                references Circle (Class) at src/shapes.ts:18:14
                Found 2 references to Circle across 1 file

                === next block ===

                src/lib.rs (2 references)
                  @121:6: `impl Shape for Circle {`
                  @28:44 in impl Ledger: `pub fn new(name: impl Into<String>) -> Self {`
                ",
            ),
            (
                "many: merged columns, enclosing symbols, a block per file",
                ReferencesResult {
                    total: 4,
                    total_files: 2,
                    files: vec![
                        ReferenceFile {
                            path: "src/shapes.ts".into(),
                            total: 3,
                            lines: vec![
                                line(18, &[14], None, "export class Circle extends Base {"),
                                line(
                                    63,
                                    &[30, 55],
                                    Some("scale"),
                                    "export function scale(shape: Circle, factor: number): Circle;",
                                ),
                            ],
                        },
                        ReferenceFile {
                            path: "src/index.ts".into(),
                            total: 1,
                            lines: vec![line(6, &[20], Some("main"), "add(new Circle(1));")],
                        },
                    ],
                    ..none.clone()
                },
                "
                references Circle (Class) at src/shapes.ts:18:14
                Found 4 references to Circle across 2 files

                === next block ===

                src/shapes.ts (3 references)
                  @18:14: `export class Circle extends Base {`
                  @63:30,55 in scale: `export function scale(shape: Circle, factor: number): Circle;`

                === next block ===

                src/index.ts (1 reference)
                  @6:20 in main: `add(new Circle(1));`
                ",
            ),
            (
                "a page with context lines, more after it",
                ReferencesResult {
                    total: 10,
                    total_files: 3,
                    files: vec![ReferenceFile {
                        path: "src/shapes.ts".into(),
                        total: 5,
                        lines: vec![
                            ReferenceLine {
                                context: vec![
                                    numbered(8, "  }"),
                                    numbered(9, "export class Circle {"),
                                    numbered(10, ""),
                                ],
                                ..line(9, &[14], None, "export class Circle {")
                            },
                            ReferenceLine {
                                context: vec![numbered(63, "function scale(c: Circle): Circle;")],
                                ..line(
                                    63,
                                    &[19, 29],
                                    Some("scale"),
                                    "function scale(c: Circle): Circle;",
                                )
                            },
                        ],
                    }],
                    next_offset: Some(3),
                    left_out: 7,
                    left_out_files: 3,
                    ..none.clone()
                },
                "
                references Circle (Class) at src/shapes.ts:18:14
                Found 10 references to Circle across 3 files
                ... 7 more references in 3 files; pass offset=3

                === next block ===

                src/shapes.ts (5 references)
                  @9:14:
                     8    }
                   > 9  export class Circle {
                    10
                  @63:19,29 in scale:
                   >63  function scale(c: Circle): Circle;
                ",
            ),
            (
                "a middle page, one more reference",
                ReferencesResult {
                    total: 7,
                    total_files: 3,
                    files: vec![ReferenceFile {
                        path: "src/broken.ts".into(),
                        total: 2,
                        lines: vec![line(
                            5,
                            &[17, 30],
                            Some("broken"),
                            "const c: Circle = new Circle(1);",
                        )],
                    }],
                    offset: 3,
                    next_offset: Some(6),
                    left_out: 1,
                    left_out_files: 1,
                    ..none.clone()
                },
                "
                references Circle (Class) at src/shapes.ts:18:14
                Found 7 references to Circle across 3 files
                ... 1 more reference in 1 file; pass offset=6

                === next block ===

                src/broken.ts (2 references)
                  @5:17,30 in broken: `const c: Circle = new Circle(1);`
                ",
            ),
        ],
    );
}

#[test]
fn read() {
    let leaf = |depth, kind, name: &str, line, character| OutlineEntry {
        depth,
        kind,
        name: name.into(),
        position: Position::new(line, character),
        context: false,
        signature: None,
        code: None,
    };
    let signed = |depth, kind, name: &str, line, character, signature: &str| OutlineEntry {
        signature: Some(signature.into()),
        ..leaf(depth, kind, name, line, character)
    };
    let outline = ReadOutline {
        path: "src/shapes.ts".into(),
        preview: Preview::None,
        source: OutlineSource::TreeSitter,
        note: None,
        fence: "ts".into(),
        line_comment: "//".into(),
        scope: None,
        kinds: vec![],
        max_depth: None,
        total: 0,
        breakdown: vec![],
        entries: vec![],
        offset: 0,
        next_offset: None,
    };
    let breakdown = |counts: &[(SymbolKind, usize)]| -> Vec<KindCount> {
        counts
            .iter()
            .map(|&(kind, count)| KindCount { kind, count })
            .collect()
    };
    check(
        render::read,
        vec![
            (
                "raw tier: numbered lines",
                ReadResult::Raw(FileLines {
                    lines: vec![numbered(1, "x")],
                    total_lines: 1,
                    ..file("notes.txt")
                }),
                "     1\tx\nnotes.txt · lines 1-1 of 1",
            ),
            (
                "no symbols",
                ReadResult::Outline(ReadOutline {
                    path: "src/empty.ts".into(),
                    ..outline.clone()
                }),
                "
                Found 0 symbols in file: src/empty.ts
                Outline from tree-sitter
                ",
            ),
            (
                "leaf roots share a block, a container gets its own",
                ReadResult::Outline(ReadOutline {
                    source: OutlineSource::LanguageServer("typescript-go".into()),
                    total: 6,
                    breakdown: breakdown(&[
                        (SymbolKind::Constant, 2),
                        (SymbolKind::Property, 1),
                        (SymbolKind::Method, 1),
                        (SymbolKind::Interface, 1),
                        (SymbolKind::Function, 1),
                    ]),
                    entries: vec![
                        leaf(0, SymbolKind::Constant, "greeting", 2, 14),
                        leaf(0, SymbolKind::Constant, "party", 3, 14),
                        leaf(0, SymbolKind::Interface, "Shape", 5, 18),
                        leaf(1, SymbolKind::Property, "name", 6, 12),
                        leaf(1, SymbolKind::Method, "area", 7, 3),
                        leaf(0, SymbolKind::Function, "greet", 10, 17),
                    ],
                    ..outline.clone()
                }),
                "
                Found 6 symbols in file: src/shapes.ts
                Symbol breakdown: 2 constants, 1 property, 1 method, 1 interface, 1 function
                Outline from typescript-go

                === next block ===

                @2:14 Constant - greeting
                @3:14 Constant - party

                === next block ===

                @5:18 Interface - Shape
                  @6:12 Property - name
                  @7:3 Method - area

                === next block ===

                @10:17 Function - greet
                ",
            ),
            (
                "signatures, kinds and a scope, a note instead of the source",
                ReadResult::Outline(ReadOutline {
                    preview: Preview::Signature,
                    note: Some("Outline from tree-sitter".into()),
                    scope: Some("Registry".into()),
                    kinds: vec![SymbolKind::Method, SymbolKind::Property],
                    total: 2,
                    breakdown: breakdown(&[(SymbolKind::Method, 1), (SymbolKind::Property, 1)]),
                    entries: vec![
                        OutlineEntry {
                            context: true,
                            ..signed(0, SymbolKind::Class, "Registry", 46, 14, "class Registry")
                        },
                        signed(1, SymbolKind::Property, "items", 47, 11, "private items = []"),
                        signed(1, SymbolKind::Method, "add", 49, 3, "add(item: T): this"),
                    ],
                    ..outline.clone()
                }),
                "
                Found 2 symbols of kind Method, Property under Registry in file: src/shapes.ts
                Symbol breakdown: 1 method, 1 property
                Outline from tree-sitter

                === next block ===

                @46:14 Class - Registry
                  @47:11 Property - items
                    `private items = []`
                  @49:3 Method - add
                    `add(item: T): this`
                ",
            ),
            (
                "expanded: code dedented under its symbol, blank lines, lines left out",
                ReadResult::Outline(ReadOutline {
                    preview: Preview::Expanded,
                    fence: "rust".into(),
                    total: 3,
                    breakdown: breakdown(&[(SymbolKind::Method, 2), (SymbolKind::Struct, 1)]),
                    entries: vec![
                        signed(0, SymbolKind::Struct, "Ledger", 3, 12, "pub struct Ledger"),
                        OutlineEntry {
                            code: Some(CodeExcerpt {
                                start_line: 5,
                                lines: strings([
                                    "    pub fn total(&self) -> i64 {",
                                    "        let sum = self.entries.iter().sum();",
                                    "",
                                    "        sum",
                                    "    }",
                                ]),
                                omitted_lines: 0,
                            }),
                            ..leaf(1, SymbolKind::Method, "total", 5, 12)
                        },
                        OutlineEntry {
                            code: Some(CodeExcerpt {
                                start_line: 11,
                                lines: strings(["    pub fn long(&self) {", "        step_one();"]),
                                omitted_lines: 30,
                            }),
                            ..leaf(1, SymbolKind::Method, "long", 11, 12)
                        },
                    ],
                    ..outline.clone()
                }),
                "
                Found 3 symbols in file: src/shapes.ts
                Symbol breakdown: 2 methods, 1 struct
                Outline from tree-sitter

                === next block ===

                @3:12 Struct - Ledger
                  `pub struct Ledger`
                  @5:12 Method - total
                    ```rust
                    pub fn total(&self) -> i64 {
                        let sum = self.entries.iter().sum();

                        sum
                    }
                    ```
                  @11:12 Method - long
                    ```rust
                    pub fn long(&self) {
                        step_one();
                    // ... 30 more lines
                    ```
                ",
            ),
            (
                "first page: how to go on, and how to narrow",
                ReadResult::Outline(ReadOutline {
                    total: 29,
                    breakdown: breakdown(&[(SymbolKind::Class, 29)]),
                    entries: vec![
                        leaf(0, SymbolKind::Class, "A", 1, 14),
                        leaf(0, SymbolKind::Class, "B", 2, 14),
                    ],
                    next_offset: Some(2),
                    ..outline.clone()
                }),
                "
                Found 29 symbols in file: src/shapes.ts
                Symbol breakdown: 29 classes
                Outline from tree-sitter

                === next block ===

                @1:14 Class - A
                @2:14 Class - B

                === next block ===

                Showing symbols 1-2 of 29; pass offset=2 for more, or narrow with max_depth=1 or symbol=<name path>
                ",
            ),
            (
                "a middle page already narrowed: a parent as context, no narrowing hint",
                ReadResult::Outline(ReadOutline {
                    scope: Some("Registry".into()),
                    max_depth: Some(1),
                    total: 5,
                    breakdown: breakdown(&[(SymbolKind::Method, 5)]),
                    entries: vec![
                        OutlineEntry {
                            context: true,
                            ..leaf(0, SymbolKind::Class, "Registry", 46, 14)
                        },
                        leaf(1, SymbolKind::Method, "get", 54, 3),
                    ],
                    offset: 2,
                    next_offset: Some(3),
                    ..outline.clone()
                }),
                "
                Found 5 symbols under Registry in file: src/shapes.ts
                Symbol breakdown: 5 methods
                Outline from tree-sitter

                === next block ===

                @46:14 Class - Registry
                  @54:3 Method - get

                === next block ===

                Showing symbols 3-3 of 5; pass offset=3 for more
                ",
            ),
            (
                "last page",
                ReadResult::Outline(ReadOutline {
                    total: 3,
                    breakdown: breakdown(&[(SymbolKind::Function, 3)]),
                    entries: vec![leaf(0, SymbolKind::Function, "last", 30, 17)],
                    offset: 2,
                    ..outline.clone()
                }),
                "
                Found 3 symbols in file: src/shapes.ts
                Symbol breakdown: 3 functions
                Outline from tree-sitter

                === next block ===

                @30:17 Function - last

                === next block ===

                Showing symbols 3-3 of 3
                ",
            ),
        ],
    );
}

#[test]
fn pipe() {
    let pipe = |steps: &[&str], outputs, total, offset, next_offset, notes| PipeResult {
        steps: steps.iter().map(|s| s.to_string()).collect(),
        outputs,
        total,
        offset,
        next_offset,
        notes,
    };
    let files_with = |path: &str| {
        PipeOutput::Grep(GrepResult {
            entries: vec![GrepEntry::File { path: path.into() }],
            total_entries: 1,
            total_files: 1,
            total_matching_lines: 1,
            ..grep_of("greet", GrepMode::FilesWithMatches)
        })
    };
    let no_references = PipeOutput::References(ReferencesResult {
        target: target(
            "src/a.ts",
            1,
            17,
            "greet",
            Some(("greet", SymbolKind::Function)),
        ),
        total: 0,
        total_files: 0,
        files: vec![],
        offset: 0,
        next_offset: None,
        left_out: 0,
        left_out_files: 0,
        notes: vec![],
    });
    check(
        render::pipe,
        vec![
            (
                "nothing to hand on",
                pipe(
                    &["find: 0 files"],
                    vec![],
                    0,
                    0,
                    None,
                    strings(["find found no files; grep did not run"]),
                ),
                "
                pipe: find: 0 files
                Note: find found no files; grep did not run
                ",
            ),
            (
                "one answer: no count",
                pipe(
                    &["search: 1 match"],
                    vec![no_references],
                    1,
                    0,
                    None,
                    vec![],
                ),
                "
                pipe: search: 1 match

                === next block ===

                references greet (Function) at src/a.ts:1:17
                No references to greet
                ",
            ),
            (
                "several answers, two steps before the last",
                pipe(
                    &["find: 2 files", "read: 2 files"],
                    vec![files_with("src/a.ts"), files_with("src/b.ts")],
                    2,
                    0,
                    None,
                    vec![],
                ),
                "
                pipe: find: 2 files -> read: 2 files -> 2 answers

                === next block ===

                Found 1 file containing greet
                src/a.ts

                === next block ===

                Found 1 file containing greet
                src/b.ts
                ",
            ),
            (
                "first page, with notes",
                pipe(
                    &["grep: 5 files"],
                    vec![PipeOutput::Read(ReadResult::Raw(FileLines {
                        lines: vec![numbered(1, "x")],
                        total_lines: 1,
                        ..file("a.txt")
                    }))],
                    5,
                    0,
                    Some(1),
                    strings(["b.bin: binary, skipped", "c.txt: not readable"]),
                ),
                "
                pipe: grep: 5 files -> 5 answers
                Showing answers 1-1 of 5; pass offset=1 for more
                Note: b.bin: binary, skipped
                Note: c.txt: not readable

                === next block ===

                     1\tx
                a.txt · lines 1-1 of 1
                ",
            ),
            (
                "last page",
                pipe(
                    &["grep: 5 files"],
                    vec![files_with("src/e.ts")],
                    5,
                    4,
                    None,
                    vec![],
                ),
                "
                pipe: grep: 5 files -> 5 answers
                Showing answers 5-5 of 5

                === next block ===

                Found 1 file containing greet
                src/e.ts
                ",
            ),
        ],
    );
}

#[test]
fn search() {
    let symbol = |line, character, kind, name: &str, signature: Option<&str>| SearchSymbol {
        position: Position::new(line, character),
        kind,
        name: name.into(),
        signature: signature.map(String::from),
    };
    let none = SearchResult {
        query: "nothing".into(),
        total: 0,
        total_files: 0,
        sources: vec![],
        notes: vec![],
        files: vec![],
        offset: 0,
        next_offset: None,
    };
    check(
        render::search,
        vec![
            ("no matches, no sources", none.clone(), "No matches for query \"nothing\""),
            (
                "no matches, with a note",
                SearchResult {
                    sources: strings(["tree-sitter"]),
                    notes: strings(["rust: its server is still starting"]),
                    ..none.clone()
                },
                "
                No matches for query \"nothing\", from tree-sitter
                Note: rust: its server is still starting
                ",
            ),
            (
                "one match with its signature",
                SearchResult {
                    query: "Registry".into(),
                    total: 1,
                    total_files: 1,
                    sources: strings(["typescript-go"]),
                    files: vec![SearchFile {
                        path: "src/shapes.ts".into(),
                        total: 1,
                        symbols: vec![symbol(
                            46,
                            14,
                            SymbolKind::Class,
                            "Registry",
                            Some("export class Registry<T extends Shape>"),
                        )],
                    }],
                    ..none.clone()
                },
                "
                Found 1 match for query \"Registry\" across 1 file, from typescript-go

                === next block ===

                src/shapes.ts (1 result)
                  @46:14 Class - Registry
                    `export class Registry<T extends Shape>`
                ",
            ),
            (
                "several sources and files",
                SearchResult {
                    query: "describe".into(),
                    total: 3,
                    total_files: 2,
                    sources: strings(["rust-analyzer", "typescript-go", "tree-sitter"]),
                    files: vec![
                        SearchFile {
                            path: "core/src/lib.rs".into(),
                            total: 2,
                            symbols: vec![
                                symbol(
                                    15,
                                    8,
                                    SymbolKind::Method,
                                    "Account::describe",
                                    Some("fn describe(&self) -> String"),
                                ),
                                symbol(20, 8, SymbolKind::Function, "describe_all", None),
                            ],
                        },
                        SearchFile {
                            path: "web/src/uses.ts".into(),
                            total: 1,
                            symbols: vec![symbol(3, 14, SymbolKind::Constant, "described", None)],
                        },
                    ],
                    ..none.clone()
                },
                "
                Found 3 matches for query \"describe\" across 2 files, from rust-analyzer, typescript-go and tree-sitter

                === next block ===

                core/src/lib.rs (2 results)
                  @15:8 Method - Account::describe
                    `fn describe(&self) -> String`
                  @20:8 Function - describe_all

                === next block ===

                web/src/uses.ts (1 result)
                  @3:14 Constant - described
                ",
            ),
            (
                "a page: part of a file, how to go on",
                SearchResult {
                    query: "a".into(),
                    total: 20,
                    total_files: 4,
                    sources: strings(["rust-analyzer", "typescript-go"]),
                    files: vec![SearchFile {
                        path: "src/shapes.ts".into(),
                        total: 16,
                        symbols: vec![
                            symbol(3, 12, SymbolKind::Property, "Shape.name", None),
                            symbol(4, 3, SymbolKind::Method, "Shape.area", None),
                            symbol(8, 23, SymbolKind::Class, "Base", None),
                        ],
                    }],
                    offset: 2,
                    next_offset: Some(5),
                    ..none.clone()
                },
                "
                Found 20 matches for query \"a\" across 4 files, from rust-analyzer and typescript-go

                === next block ===

                src/shapes.ts (3 of 16 results)
                  @3:12 Property - Shape.name
                  @4:3 Method - Shape.area
                  @8:23 Class - Base

                === next block ===

                Showing matches 3-5 of 20; pass offset=5 for more
                ",
            ),
        ],
    );
}

#[test]
fn diagnostics() {
    let report = |scope, min_severity, files: Vec<FileDiagnostics>, files_checked, notes| {
        let mut counts = [0; 4];
        for file in &files {
            for (total, n) in counts.iter_mut().zip(file.counts) {
                *total += n;
            }
        }
        let total = counts.iter().sum();
        DiagnosticsReport {
            scope,
            min_severity,
            files_with: files.len(),
            files,
            files_checked,
            notes,
            counts,
            folders: Vec::new(),
            folders_total: 0,
            page: Page {
                offset: 0,
                shown: total,
                total,
                next_offset: None,
            },
        }
    };
    let in_file = |path: &str, diagnostics| FileDiagnostics::whole(path.into(), diagnostics);
    let cannot_find = diagnostic(
        Severity::Error,
        (7, 31),
        Some("2304"),
        "Cannot find name 'x'.",
        Some("ts"),
    );
    let workspace = DiagnosticsScope::Workspace;
    check(
        render::diagnostics,
        vec![
            (
                "clean file, errors and warnings asked",
                report(
                    DiagnosticsScope::File("src/a.ts".into()),
                    Severity::Warning,
                    vec![],
                    1,
                    vec![],
                ),
                "No errors or warnings in src/a.ts",
            ),
            (
                "clean folder, errors asked",
                report(
                    DiagnosticsScope::Folder("src".into()),
                    Severity::Error,
                    vec![],
                    1,
                    vec![],
                ),
                "No errors in 1 file under src",
            ),
            (
                "clean workspace, hints asked, with a note",
                report(
                    workspace.clone(),
                    Severity::Hint,
                    vec![],
                    6,
                    strings(["rust-analyzer is still indexing; diagnostics may be missing"]),
                ),
                "
                No diagnostics in 6 files
                Note: rust-analyzer is still indexing; diagnostics may be missing
                ",
            ),
            (
                "one error in a file",
                report(
                    DiagnosticsScope::File("src/broken.ts".into()),
                    Severity::Hint,
                    vec![in_file("src/broken.ts", vec![cannot_find.clone()])],
                    1,
                    vec![],
                ),
                "
                1 error in 1 file

                === next block ===

                src/broken.ts (1 error)
                  ✘ @7:31 [Error][2304] Cannot find name 'x'. (ts)
                ",
            ),
            (
                "every severity across files, counted in all and per file",
                report(
                    workspace.clone(),
                    Severity::Hint,
                    vec![
                        in_file(
                            "src/a.rs",
                            vec![
                                diagnostic(
                                    Severity::Error,
                                    (1, 1),
                                    Some("E0308"),
                                    "mismatched types",
                                    Some("rustc"),
                                ),
                                diagnostic(
                                    Severity::Error,
                                    (2, 1),
                                    None,
                                    "unresolved import",
                                    None,
                                ),
                                diagnostic(
                                    Severity::Warning,
                                    (3, 5),
                                    Some("unused_variables"),
                                    "unused variable",
                                    Some("rustc"),
                                ),
                                diagnostic(
                                    Severity::Hint,
                                    (3, 5),
                                    None,
                                    "remove this",
                                    Some("rust-analyzer"),
                                ),
                            ],
                        ),
                        in_file(
                            "src/b.rs",
                            vec![
                                diagnostic(
                                    Severity::Information,
                                    (9, 2),
                                    None,
                                    "a note",
                                    Some("clippy"),
                                ),
                                diagnostic(
                                    Severity::Information,
                                    (10, 2),
                                    None,
                                    "another note",
                                    Some("clippy"),
                                ),
                            ],
                        ),
                    ],
                    12,
                    vec![],
                ),
                "
                2 errors, 1 warning, 2 infos, 1 hint in 2 files (12 checked)

                === next block ===

                src/a.rs (2 errors, 1 warning, 1 hint)
                  ✘ @1:1 [Error][E0308] mismatched types (rustc)
                  ✘ @2:1 [Error] unresolved import
                  ⚠ @3:5 [Warning][unused_variables] unused variable (rustc)
                  · @3:5 [Hint] remove this (rust-analyzer)

                === next block ===

                src/b.rs (2 infos)
                  ℹ @9:2 [Information] a note (clippy)
                  ℹ @10:2 [Information] another note (clippy)
                ",
            ),
            (
                "a folder, a multi-line message, a note",
                report(
                    DiagnosticsScope::Folder("src".into()),
                    Severity::Warning,
                    vec![in_file(
                        "src/broken.rs",
                        vec![diagnostic(
                            Severity::Warning,
                            (6, 9),
                            None,
                            "unused variable: `unused`\n`#[warn(unused_variables)]` on by default\n",
                            Some("rustc"),
                        )],
                    )],
                    3,
                    strings(["cargo check is still running"]),
                ),
                "
                1 warning in 1 file (3 checked under src)
                Note: cargo check is still running

                === next block ===

                src/broken.rs (1 warning)
                  ⚠ @6:9 [Warning] unused variable: `unused`
                      `#[warn(unused_variables)]` on by default (rustc)
                ",
            ),
            (
                "a page that holds part of a file: its header counts the whole file; a large report by folder",
                DiagnosticsReport {
                    counts: [40, 2, 0, 0],
                    files_with: 3,
                    folders: vec![("src".into(), [30, 0, 0, 0]), ("lib".into(), [10, 2, 0, 0])],
                    folders_total: 5,
                    page: Page {
                        offset: 20,
                        shown: 1,
                        total: 42,
                        next_offset: Some(21),
                    },
                    files: vec![FileDiagnostics {
                        counts: [30, 0, 0, 0],
                        ..in_file("src/big.ts", vec![cannot_find.clone()])
                    }],
                    ..report(workspace.clone(), Severity::Warning, vec![], 9, vec![])
                },
                "
                40 errors, 2 warnings in 3 files (9 checked)
                By folder: src (30 errors); lib (10 errors, 2 warnings); and 3 more folders
                Showing diagnostics 21-21 of 42; pass offset=21 for more

                === next block ===

                src/big.ts (30 errors)
                  ✘ @7:31 [Error][2304] Cannot find name 'x'. (ts)
                ",
            ),
        ],
    );
}

#[test]
fn doctor() {
    let ok = |server: &str, command: &str| ServerCheck {
        server: server.into(),
        command: command.into(),
        found: Some(format!("/bin/{server}")),
        version: Some(format!("{server} 1.0")),
        hint: None,
    };
    let rust = LanguageCheck {
        language: "rust".into(),
        extensions: strings(["rs"]),
        chosen: "rust-analyzer".into(),
        reason: None,
        servers: vec![ok("rust-analyzer", "rust-analyzer")],
    };
    let report = DoctorReport {
        version: "0.1.0".into(),
        workspace: "/work/project".into(),
        config_files: strings(["built-in languages.toml", "sextant.toml"]),
        tools_dir: "/home/me/.cache/sextant".into(),
        auto_install: true,
        languages: vec![rust.clone()],
        instance: InstanceCheck::Running(InstanceState {
            pid: 412,
            sessions: 2,
            uptime_secs: 3725,
            idle_exit_secs: 300,
            idle_secs: None,
            log: "/run/user/1000/sextant/0a1b.log".into(),
        }),
        grammars: strings(["rust", "typescript"]),
        library_roots: strings(["/home/me/.cargo/registry/src", "node_modules"]),
    };
    check(
        |report| vec![render::doctor(report)],
        vec![
            (
                "one language, its server ready",
                report.clone(),
                "
                sextant 0.1.0
                Workspace: /work/project
                Configuration: built-in languages.toml, sextant.toml
                Tools directory: /home/me/.cache/sextant (auto_install on)

                Languages:
                  rust (.rs): rust-analyzer
                    ok: /bin/rust-analyzer (rust-analyzer 1.0)

                Tree-sitter grammars: rust, typescript

                Shared instance: pid 412, 2 sessions, up 1h 2m, ends after 300 s with none; log: /run/user/1000/sextant/0a1b.log

                Library roots (read-only):
                  /home/me/.cargo/registry/src
                  node_modules
                ",
            ),
            (
                "several servers, why, missing with a fix; no grammars, no roots",
                DoctorReport {
                    auto_install: false,
                    languages: vec![LanguageCheck {
                        language: "typescript".into(),
                        extensions: strings(["ts", "tsx"]),
                        chosen: "typescript-go".into(),
                        reason: Some(
                            "no TypeScript in the project: sextant's own TypeScript 7".into(),
                        ),
                        servers: vec![
                            ok("typescript-go", "tsc --lsp --stdio"),
                            ServerCheck {
                                found: None,
                                version: None,
                                hint: Some("npm install -g typescript-language-server".into()),
                                ..ok(
                                    "typescript-language-server",
                                    "typescript-language-server --stdio",
                                )
                            },
                        ],
                    }],
                    grammars: vec![],
                    library_roots: vec![],
                    instance: InstanceCheck::NotRunning {
                        log: "/run/user/1000/sextant/0a1b.log".into(),
                    },
                    ..report.clone()
                },
                "
                sextant 0.1.0
                Workspace: /work/project
                Configuration: built-in languages.toml, sextant.toml
                Tools directory: /home/me/.cache/sextant (auto_install off)

                Languages:
                  typescript (.ts .tsx): typescript-go
                    why: no TypeScript in the project: sextant's own TypeScript 7
                    typescript-go: tsc --lsp --stdio
                      ok: /bin/typescript-go (typescript-go 1.0)
                    typescript-language-server: typescript-language-server --stdio
                      missing
                      fix: npm install -g typescript-language-server

                Shared instance: none running; `sextant serve` starts one (log: /run/user/1000/sextant/0a1b.log), `--no-shared` serves alone

                Library roots (read-only):
                  none
                ",
            ),
            (
                "one server found but not working, one missing",
                DoctorReport {
                    languages: vec![
                        LanguageCheck {
                            servers: vec![ServerCheck {
                                version: None,
                                hint: Some("reinstall it".into()),
                                ..ok("rust-analyzer", "rust-analyzer")
                            }],
                            ..rust.clone()
                        },
                        LanguageCheck {
                            language: "python".into(),
                            extensions: strings(["py"]),
                            chosen: "pyright".into(),
                            reason: None,
                            servers: vec![ServerCheck {
                                found: None,
                                version: None,
                                ..ok("pyright", "pyright-langserver --stdio")
                            }],
                        },
                    ],
                    grammars: vec![],
                    instance: InstanceCheck::Unavailable {
                        why: "/tmp/sextant-1000 is not a private folder of this user (owner 0, mode 777); remove it, or run with --no-shared".into(),
                    },
                    ..report.clone()
                },
                "
                sextant 0.1.0
                Workspace: /work/project
                Configuration: built-in languages.toml, sextant.toml
                Tools directory: /home/me/.cache/sextant (auto_install on)

                Languages:
                  rust (.rs): rust-analyzer
                    found but not working: /bin/rust-analyzer
                    fix: reinstall it
                  python (.py): pyright-langserver --stdio
                    missing

                Shared instance: unavailable: /tmp/sextant-1000 is not a private folder of this user (owner 0, mode 777); remove it, or run with --no-shared

                Library roots (read-only):
                  /home/me/.cargo/registry/src
                  node_modules
                ",
            ),
            (
                "a reason with a single server",
                DoctorReport {
                    languages: vec![LanguageCheck {
                        reason: Some("configured in sextant.toml".into()),
                        ..rust.clone()
                    }],
                    grammars: vec![],
                    library_roots: vec![],
                    ..report.clone()
                },
                "
                sextant 0.1.0
                Workspace: /work/project
                Configuration: built-in languages.toml, sextant.toml
                Tools directory: /home/me/.cache/sextant (auto_install on)

                Languages:
                  rust (.rs): rust-analyzer
                    why: configured in sextant.toml
                    ok: /bin/rust-analyzer (rust-analyzer 1.0)

                Shared instance: pid 412, 2 sessions, up 1h 2m, ends after 300 s with none; log: /run/user/1000/sextant/0a1b.log

                Library roots (read-only):
                  none
                ",
            ),
        ],
    );
}

#[test]
fn logs() {
    let status = |language: &str, server: &str, state| ServerStatus {
        language: language.into(),
        server: server.into(),
        root: None,
        command: server.into(),
        reason: None,
        state,
        pid: None,
        uptime_secs: None,
        restarts: 0,
    };
    let running = |state, uptime_secs| ServerStatus {
        root: Some(".".into()),
        pid: Some(4242),
        uptime_secs: Some(uptime_secs),
        ..status("typescript", "typescript-go", state)
    };
    let logs = |servers, lines, older_lines, watching| LogsReport {
        instance: None,
        server_filter: None,
        servers,
        lines,
        older_lines,
        watching,
    };
    let line = |time_ms, level, source: &str, message: &str| LogLine {
        time_ms,
        level,
        source: source.into(),
        message: message.into(),
    };
    check(
        render::logs,
        vec![
            (
                "nothing configured, nothing logged",
                logs(vec![], vec![], 0, None),
                "
                Language servers: none configured

                === next block ===

                No log lines match.
                ",
            ),
            (
                "no server of that name, older lines only",
                LogsReport {
                    server_filter: Some("tool".into()),
                    ..logs(vec![], vec![], 1, None)
                },
                "
                Language servers: none named tool

                === next block ===

                ... 1 older matching line not shown (raise tail to see them)
                ",
            ),
            (
                "a session of a shared instance",
                LogsReport {
                    instance: Some(InstanceState {
                        pid: 412,
                        sessions: 3,
                        uptime_secs: 312,
                        idle_exit_secs: 300,
                        idle_secs: None,
                        log: "/run/user/1000/sextant/0a1b.log".into(),
                    }),
                    ..logs(vec![], vec![], 0, Some(WatchStatus::NotStarted))
                },
                "
                Language servers: none configured
                File watching: starts with the first language server
                Shared instance: pid 412, 3 sessions, up 5m 12s, ends after 300 s with none; log: /run/user/1000/sextant/0a1b.log

                === next block ===

                No log lines match.
                ",
            ),
            (
                "not started, missing with a hint, starting; watching starts later",
                logs(
                    vec![
                        status("rust", "rust-analyzer", ServerState::NotStarted),
                        status(
                            "python",
                            "pyright",
                            ServerState::Missing {
                                hint: "npm install -g pyright".into(),
                            },
                        ),
                        status("go", "gopls", ServerState::Starting),
                    ],
                    vec![],
                    0,
                    Some(WatchStatus::NotStarted),
                ),
                "
                Language servers:
                  pyright (python): missing: npm install -g pyright
                    command: pyright
                  gopls (go): starting
                    command: gopls
                  not started: rust-analyzer (rust)
                File watching: starts with the first language server

                === next block ===

                No log lines match.
                ",
            ),
            (
                "indexing with and without a percentage, ready with why; lines, older lines",
                logs(
                    vec![
                        running(
                            ServerState::Indexing {
                                percentage: Some(42),
                                title: "Indexing".into(),
                            },
                            59,
                        ),
                        ServerStatus {
                            root: Some("core".into()),
                            ..status(
                                "rust",
                                "rust-analyzer",
                                ServerState::Indexing {
                                    percentage: None,
                                    title: "Roots Scanned".into(),
                                },
                            )
                        },
                        ServerStatus {
                            reason: Some("no TypeScript in the project".into()),
                            ..running(ServerState::Ready, 3_725)
                        },
                    ],
                    vec![
                        line(43_384_120, LogLevel::Warn, "rust-analyzer", "no build scripts"),
                        line(86_400_000 + 5_007, LogLevel::Debug, "tool", "read -> ok (3ms)"),
                    ],
                    3,
                    Some(WatchStatus::Watching {
                        folders: 1,
                        full: false,
                        walking: false,
                    }),
                ),
                "
                Language servers:
                  typescript-go (typescript): indexing 42% (Indexing)
                    command: typescript-go; root: .; pid 4242; up 59s
                  rust-analyzer (rust): indexing (Roots Scanned)
                    command: rust-analyzer; root: core
                  typescript-go (typescript): ready
                    command: typescript-go; root: .; pid 4242; up 1h02m
                    why: no TypeScript in the project
                File watching: 1 folder

                === next block ===

                ... 3 older matching lines not shown (raise tail to see them)
                12:03:04.120 warn  rust-analyzer  no build scripts
                00:00:05.007 debug tool  read -> ok (3ms)
                ",
            ),
            (
                "crashed and restarted, its stderr; watching while walking",
                logs(
                    vec![ServerStatus {
                        restarts: 2,
                        ..running(
                            ServerState::Crashed {
                                exit: "exit status: 101".into(),
                                stderr_tail: strings(["thread 'main' panicked", "note: backtrace"]),
                                gave_up: false,
                            },
                            125,
                        )
                    }],
                    vec![line(1_000, LogLevel::Error, "typescript-go", "server exited")],
                    0,
                    Some(WatchStatus::Watching {
                        folders: 120,
                        full: false,
                        walking: true,
                    }),
                ),
                "
                Language servers:
                  typescript-go (typescript): crashed (exit status: 101); restarts on next use, restarted 2 times
                    command: typescript-go; root: .; pid 4242; up 2m05s
                    stderr: thread 'main' panicked
                    stderr: note: backtrace
                File watching: 120 folders so far, still walking the workspace

                === next block ===

                00:00:01.000 error typescript-go  server exited
                ",
            ),
            (
                "crashed for good, failed to start; watching at its limit",
                logs(
                    vec![
                        ServerStatus {
                            restarts: 1,
                            ..status(
                                "rust",
                                "rust-analyzer",
                                ServerState::Crashed {
                                    exit: "signal 9".into(),
                                    stderr_tail: vec![],
                                    gave_up: true,
                                },
                            )
                        },
                        status(
                            "go",
                            "gopls",
                            ServerState::Failed {
                                error: "initialize timed out".into(),
                            },
                        ),
                    ],
                    vec![],
                    0,
                    Some(WatchStatus::Watching {
                        folders: 4096,
                        full: true,
                        walking: true,
                    }),
                ),
                "
                Language servers:
                  rust-analyzer (rust): crashed (signal 9); not restarted for now, restarted 1 time
                    command: rust-analyzer
                  gopls (go): failed: initialize timed out
                    command: gopls
                File watching: 4096 folders, at the limit: files in other folders reach the servers only when a tool opens them

                === next block ===

                No log lines match.
                ",
            ),
            (
                "watching off",
                logs(vec![], vec![], 0, Some(WatchStatus::Off)),
                "
                Language servers: none configured
                File watching: off (one-off run)

                === next block ===

                No log lines match.
                ",
            ),
            (
                "watching failed",
                logs(
                    vec![],
                    vec![],
                    0,
                    Some(WatchStatus::Failed {
                        error: "inotify limit reached".into(),
                    }),
                ),
                "
                Language servers: none configured
                File watching: unavailable (inotify limit reached): servers see files they have not opened as they were when they started

                === next block ===

                No log lines match.
                ",
            ),
        ],
    );
}

#[test]
fn target_header() {
    check(
        |(tool, target): &(&str, Target)| vec![render::target_header(tool, target)],
        vec![
            (
                "a declaration",
                (
                    "inspect",
                    target(
                        "src/shapes.ts",
                        49,
                        3,
                        "add",
                        Some(("Registry.add", SymbolKind::Method)),
                    ),
                ),
                "inspect Registry.add (Method) at src/shapes.ts:49:3",
            ),
            (
                "an identifier that declares nothing there",
                (
                    "references",
                    target("src/index.ts", 7, 22, "totalArea", None),
                ),
                "references totalArea at src/index.ts:7:22",
            ),
            (
                "with a note on how the address was read",
                (
                    "call_hierarchy",
                    Target {
                        note: Some("2 overloads; this is the first".into()),
                        ..target(
                            "src/shapes.ts",
                            63,
                            17,
                            "scale",
                            Some(("scale", SymbolKind::Function)),
                        )
                    },
                ),
                "
                call_hierarchy scale (Function) at src/shapes.ts:63:17
                Note: 2 overloads; this is the first
                ",
            ),
        ],
    );
}

// ---- helpers ----

/// How `tests/common` joins an answer's blocks for the snapshots.
const NEXT_BLOCK: &str = "\n\n=== next block ===\n\n";

/// Renders every case and compares the whole text, blocks joined by
/// [`NEXT_BLOCK`], with the expected one (after [`dedent`]). Fails once, at
/// the end, naming every case that differed (or panicked).
fn check<T>(render: impl Fn(&T) -> Vec<String>, cases: Vec<(&str, T, &str)>) {
    let mut names = HashSet::new();
    let mut failures = Vec::new();
    for (name, model, expected) in &cases {
        assert!(names.insert(*name), "two cases are named {name:?}");
        let expected = dedent(expected);
        let actual = match catch_unwind(AssertUnwindSafe(|| render(model))) {
            Ok(blocks) => blocks.join(NEXT_BLOCK),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("(no message)");
                format!("<the renderer panicked: {message}>")
            }
        };
        if actual != expected {
            failures.push(format!(
                "case {name:?}\n--- actual ---\n{actual}\n--- expected ---\n{expected}\n---"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// Expected text written indented in the source: when it starts with a
/// newline, that newline, the indentation common to its non-blank lines and
/// the last line's indentation (before the closing quote) are taken off.
/// Text that starts any other way is taken as is.
fn dedent(text: &str) -> String {
    let Some(body) = text.strip_prefix('\n') else {
        return text.to_string();
    };
    let body = body
        .trim_end_matches(' ')
        .strip_suffix('\n')
        .unwrap_or(body);
    let margin = body
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    body.lines()
        .map(|line| line.get(margin..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn strings<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.into_iter().map(String::from).collect()
}

fn target(
    path: &str,
    line: u32,
    character: u32,
    name: &str,
    declaration: Option<(&str, SymbolKind)>,
) -> Target {
    Target {
        path: path.into(),
        position: Position::new(line, character),
        name: name.into(),
        declaration: declaration.map(|(path, kind)| (path.into(), kind)),
        note: None,
    }
}

/// A location in the workspace.
fn at(path: &str, line: u32, character: u32, text: &str) -> SourceLocation {
    SourceLocation {
        path: path.into(),
        position: Position::new(line, character),
        text: text.into(),
        place: Place::Workspace,
    }
}

/// A function in the workspace, not repeated, without children.
fn call(
    path: &str,
    (line, character): (u32, u32),
    kind: SymbolKind,
    name: &str,
    sites: Vec<SourceLocation>,
) -> CallNode {
    CallNode {
        path: path.into(),
        position: Position::new(line, character),
        kind,
        name: name.into(),
        place: Place::Workspace,
        sites,
        repeated: false,
        made_by: None,
        children: vec![],
    }
}

fn numbered(number: usize, text: &str) -> NumberedLine {
    NumberedLine {
        number,
        text: text.into(),
        cut_from: None,
    }
}

/// `read_file`'s answer with no lines yet, LF line ends, nothing after.
fn file(path: &str) -> FileLines {
    FileLines {
        path: path.into(),
        lines: vec![],
        total_lines: 0,
        crlf: false,
        next_offset: None,
    }
}

/// A grep with nothing found, line numbers on, no context.
fn grep_of(pattern: &str, mode: GrepMode) -> GrepResult {
    GrepResult {
        pattern: pattern.into(),
        mode,
        line_numbers: true,
        has_context: false,
        entries: vec![],
        offset: 0,
        total_entries: 0,
        total_files: 0,
        total_matching_lines: 0,
        binary_files_skipped: 0,
    }
}

fn hit(path: &str, line: u64, text: &str) -> GrepEntry {
    GrepEntry::Line {
        path: path.into(),
        line,
        is_match: true,
        text: text.into(),
        cut_from: None,
    }
}

fn context_line(path: &str, line: u64, text: &str) -> GrepEntry {
    GrepEntry::Line {
        path: path.into(),
        line,
        is_match: false,
        text: text.into(),
        cut_from: None,
    }
}

fn change(path: &str, lines_added: usize, lines_removed: usize, diff: &str) -> FileChange {
    FileChange {
        path: path.into(),
        created: false,
        deleted: false,
        moved_from: None,
        lines_added,
        lines_removed,
        diff: diff.into(),
        diff_lines_omitted: 0,
    }
}

fn diagnostic(
    severity: Severity,
    (line, character): (u32, u32),
    code: Option<&str>,
    message: &str,
    source: Option<&str>,
) -> Diagnostic {
    Diagnostic {
        severity,
        position: Position::new(line, character),
        end: Position::new(line, character + 1),
        code: code.map(String::from),
        source: source.map(String::from),
        message: message.into(),
    }
}
