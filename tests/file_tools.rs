//! Golden tests for the plain file tools, on copies of `fixtures/`.

mod common;

use common::fixture;
use insta::assert_snapshot;
use serde_json::json;

// ---- read_file ----

#[tokio::test]
async fn read_file_whole() {
    let f = fixture("ts");
    assert_snapshot!(f.run("read_file", json!({"path": "src/paths.ts"})).await);
}

#[tokio::test]
async fn read_file_offset_and_limit() {
    let f = fixture("ts");
    assert_snapshot!(
        f.run(
            "read_file",
            json!({"path": "src/shapes.ts", "offset": 18, "limit": 5})
        )
        .await
    );
}

#[tokio::test]
async fn read_file_crlf_and_non_ascii() {
    let f = fixture("ts");
    assert_snapshot!(
        "read_file_crlf",
        f.run("read_file", json!({"path": "src/crlf.ts"})).await
    );
    assert_snapshot!(
        "read_file_non_ascii",
        f.run("read_file", json!({"path": "src/greeting.ts"})).await
    );
}

#[tokio::test]
async fn read_file_cuts_long_lines_and_shows_empty_files() {
    let f = fixture("ts");
    let long = format!("short\n{}\n", "é".repeat(2500));
    std::fs::write(f.path("long.txt"), long).unwrap();
    std::fs::write(f.path("empty.txt"), "").unwrap();
    let out = f.run("read_file", json!({"path": "long.txt"})).await;
    let second = out.lines().nth(1).unwrap();
    assert!(second.starts_with(&format!("     2\t{}", "é".repeat(2000))));
    assert!(
        second.ends_with("é [... line cut at 2000 of 2500 characters]"),
        "{second}"
    );
    assert_eq!(out.lines().last().unwrap(), "long.txt · lines 1-2 of 2");
    assert_snapshot!(f.run("read_file", json!({"path": "empty.txt"})).await, @"empty.txt · empty file");
}

#[tokio::test]
async fn read_file_pages_within_the_budget() {
    let f = fixture("ts");
    let line = "x".repeat(1000);
    let text: String = (0..100).map(|_| format!("{line}\n")).collect();
    std::fs::write(f.path("wide.txt"), text).unwrap();
    let out = f.run("read_file", json!({"path": "wide.txt"})).await;
    let last = out.lines().last().unwrap();
    let shown = out.lines().count() - 1;
    assert!(shown > 10 && shown < 40, "{shown} lines shown");
    assert_eq!(
        last,
        format!(
            "wide.txt · lines 1-{shown} of 100; pass offset={} for more",
            shown + 1
        )
    );
    let next = f
        .run(
            "read_file",
            json!({"path": "wide.txt", "offset": shown + 1, "limit": 2}),
        )
        .await;
    assert!(
        next.ends_with(&format!(
            "lines {}-{} of 100; pass offset={} for more",
            shown + 1,
            shown + 2,
            shown + 3
        )),
        "{next}"
    );
}

// ---- find ----

#[tokio::test]
async fn find_by_glob_newest_first() {
    let f = fixture("ts");
    assert_snapshot!(f.run("find", json!({"pattern": "**/*.ts"})).await);
}

#[tokio::test]
async fn find_includes_ignored_on_request() {
    let f = fixture("ts");
    assert_snapshot!(
        f.run(
            "find",
            json!({"pattern": "**/*.ts", "include_ignored": true, "limit": 3})
        )
        .await
    );
}

#[tokio::test]
async fn find_in_a_folder_with_paging() {
    let f = fixture("ts");
    assert_snapshot!(
        f.run(
            "find",
            json!({"pattern": "*.ts", "path": "src", "offset": 2, "limit": 2})
        )
        .await
    );
}

#[tokio::test]
async fn find_star_stays_in_one_folder() {
    let f = fixture("ts");
    assert_snapshot!(f.run("find", json!({"pattern": "*.ts"})).await, @"No files match *.ts in .");
    assert_snapshot!(f.run("find", json!({"pattern": "*.{json,ts}"})).await);
}

// ---- grep ----

#[tokio::test]
async fn grep_files_with_matches() {
    let f = fixture("ts");
    assert_snapshot!(f.run("grep", json!({"pattern": "Circle"})).await);
}

#[tokio::test]
async fn grep_content_with_context() {
    let f = fixture("ts");
    assert_snapshot!(
        f.run(
            "grep",
            json!({"pattern": "area\\(\\): number", "output_mode": "content", "-C": 1})
        )
        .await
    );
}

#[tokio::test]
async fn grep_content_after_before_without_numbers() {
    let f = fixture("ts");
    assert_snapshot!(f.run("grep", json!({"pattern": "class Square", "output_mode": "content", "-A": 2, "-B": 1, "-n": false})).await);
}

#[tokio::test]
async fn grep_count_case_insensitive_with_glob() {
    let f = fixture("ts");
    assert_snapshot!(
        f.run(
            "grep",
            json!({"pattern": "circle", "-i": true, "output_mode": "count", "glob": "!index.ts"})
        )
        .await
    );
}

#[tokio::test]
async fn grep_by_type_in_rust_fixture() {
    let f = fixture("rust");
    assert_snapshot!(
        f.run(
            "grep",
            json!({"pattern": "fn balance", "type": "rust", "output_mode": "content"})
        )
        .await
    );
}

#[tokio::test]
async fn grep_multiline() {
    let f = fixture("rust");
    assert_snapshot!(f.run("grep", json!({"pattern": "impl Account for \\w+ \\{\\n\\s+fn", "multiline": true, "output_mode": "content"})).await);
}

#[tokio::test]
async fn grep_backslashes_stay_single() {
    let f = fixture("ts");
    let out = f
        .run(
            "grep",
            json!({"pattern": "\\\\\\.ts\\$", "output_mode": "content", "path": "src/paths.ts"}),
        )
        .await;
    assert_snapshot!(out);
    assert!(out.contains("C:\\temp and a TypeScript file matches \\.ts$"));
}

#[tokio::test]
async fn grep_pages_with_head_limit_and_offset() {
    let f = fixture("ts");
    assert_snapshot!(
        "grep_page_1",
        f.run(
            "grep",
            json!({"pattern": "return", "output_mode": "content", "head_limit": 3})
        )
        .await
    );
    assert_snapshot!(
        "grep_page_2",
        f.run(
            "grep",
            json!({"pattern": "return", "output_mode": "content", "head_limit": 3, "offset": 3})
        )
        .await
    );
}

#[tokio::test]
async fn grep_respects_gitignore_and_reports_no_match() {
    let f = fixture("ts");
    assert_snapshot!(f.run("grep", json!({"pattern": "generatedMarker"})).await, @"No matches for generatedMarker");
    assert_snapshot!(f.run("grep", json!({"pattern": "generatedMarker", "path": "generated/out.ts"})).await, @r"
    Found 1 file containing generatedMarker
    generated/out.ts
    ");
}

#[tokio::test]
async fn grep_json_format() {
    let f = fixture("ts");
    assert_snapshot!(
        f.run(
            "grep",
            json!({"pattern": "windowsTemp", "output_mode": "count", "format": "json"})
        )
        .await
    );
}

// ---- edit, apply_patch, create_file ----

#[tokio::test]
async fn edit_previews_then_apply_patch_writes() {
    let f = fixture("ts");
    let before = f.read("src/shapes.ts");
    let preview = f
        .run(
            "edit",
            json!({
                "path": "src/shapes.ts",
                "old_string": "    return this.side * this.side;",
                "new_string": "    return this.side ** 2;"
            }),
        )
        .await;
    assert_snapshot!("edit_preview", preview);
    assert_eq!(f.read("src/shapes.ts"), before, "a preview writes nothing");
    // The impact of a write is `tests/impact.rs`'s: these show the writes.
    let applied = f
        .run("apply_patch", json!({"patch": "p1", "impact": false}))
        .await;
    assert_snapshot!("edit_apply_patch", applied);
    assert_eq!(
        f.read("src/shapes.ts"),
        before.replace("this.side * this.side", "this.side ** 2")
    );
    assert_snapshot!(f.run("apply_patch", json!({"patch": "p1"})).await, @"error[unknown-patch]: no patch p1: it was already applied; preview the change again");
}

#[tokio::test]
async fn edit_apply_at_once_and_replace_all() {
    let f = fixture("ts");
    let out = f
        .run(
            "edit",
            json!({
                "path": "src/shapes.ts",
                "old_string": "area(): number",
                "new_string": "area(): Area",
                "replace_all": true,
                "apply": true,
                "impact": false
            }),
        )
        .await;
    assert_snapshot!(out);
    assert_eq!(f.read("src/shapes.ts").matches("area(): Area").count(), 4);
}

#[tokio::test]
async fn edit_keeps_crlf_line_endings() {
    let f = fixture("ts");
    let out = f
        .run(
            "edit",
            json!({
                "path": "src/crlf.ts",
                "old_string": "export function crlfLine(): number {\n  return 1;",
                "new_string": "export function crlfLine(): number {\n  // two now\n  return 2;",
                "apply": true,
                "impact": false
            }),
        )
        .await;
    assert_snapshot!(out);
    assert_eq!(
        f.read("src/crlf.ts"),
        "// This file uses CRLF line endings.\r\nexport function crlfLine(): number {\r\n  // two now\r\n  return 2;\r\n}\r\n\r\nexport const afterCrlf = \"still here\";\r\n"
    );
}

#[tokio::test]
async fn create_file_new_exists_and_overwrite() {
    let f = fixture("ts");
    assert_snapshot!(f.run("create_file", json!({"path": "src/new/util.ts", "content": "export const one = 1;\nexport const two = 2;\n", "impact": false})).await, @"Created src/new/util.ts (2 lines, 44 bytes)");
    assert_eq!(
        f.read("src/new/util.ts"),
        "export const one = 1;\nexport const two = 2;\n"
    );
    assert_snapshot!(f.run("create_file", json!({"path": "src/new/util.ts", "content": "x"})).await, @"error[exists]: src/new/util.ts already exists; pass overwrite: true to replace it, or use edit to change part of it");
    assert_eq!(
        f.read("src/new/util.ts"),
        "export const one = 1;\nexport const two = 2;\n"
    );
    assert_snapshot!(f.run("create_file", json!({"path": "src/new/util.ts", "content": "x", "overwrite": true, "impact": false})).await, @"Overwrote src/new/util.ts (1 line, 1 byte)");
    assert_eq!(f.read("src/new/util.ts"), "x");
}

#[tokio::test]
async fn a_large_diff_is_cut_but_the_patch_is_whole() {
    let f = fixture("ts");
    let text: String = (0..3000)
        .map(|i| format!("const value{i} = {i};\n"))
        .collect();
    std::fs::write(f.path("src/big.ts"), &text).unwrap();
    let preview = f.run("edit", json!({"path": "src/big.ts", "old_string": "const ", "new_string": "let ", "replace_all": true})).await;
    assert!(
        preview.starts_with("Preview of edit to src/big.ts: 3000 replacements, +3000 -3000 lines"),
        "{}",
        &preview[..200]
    );
    assert!(preview.len() < 40_000, "{} characters", preview.len());
    let last = preview.lines().last().unwrap();
    assert!(
        last.starts_with("... ")
            && last.ends_with(" more diff lines not shown (the patch holds the whole change)"),
        "{last}"
    );
    assert_eq!(f.read("src/big.ts"), text);
    f.run("apply_patch", json!({"patch": "p1"})).await;
    assert_eq!(f.read("src/big.ts"), text.replace("const ", "let "));
}

#[tokio::test]
async fn grep_pages_within_the_budget() {
    let f = fixture("ts");
    let text: String = (0..300)
        .map(|i| format!("needle {i} {}\n", "x".repeat(400)))
        .collect();
    std::fs::write(f.path("src/wide.ts"), &text).unwrap();
    let out = f
        .run(
            "grep",
            json!({"pattern": "needle", "output_mode": "content"}),
        )
        .await;
    let last = out.lines().last().unwrap();
    let shown = out.lines().count() - 2;
    assert!(shown > 20 && shown < 100, "{shown} lines");
    assert_eq!(
        last,
        format!("Showing lines 1-{shown} of 300; pass offset={shown} for more")
    );
    let next = f.run("grep", json!({"pattern": "needle", "output_mode": "content", "offset": shown, "head_limit": 1})).await;
    assert!(
        next.contains(&format!("src/wide.ts:{}:needle {shown} x", shown + 1)),
        "{next}"
    );
}

#[tokio::test]
async fn grep_pages_deep_into_many_files() {
    let f = fixture("ts");
    std::fs::create_dir(f.path("many")).unwrap();
    for file in 0..30 {
        let text: String = (1..=10)
            .map(|line| format!("hit {file:02}.{line}\n"))
            .collect();
        std::fs::write(f.path(&format!("many/f{file:02}.txt")), text).unwrap();
    }
    let out = f.run("grep", json!({"pattern": "hit", "path": "many", "output_mode": "content", "offset": 155, "head_limit": 3})).await;
    assert_eq!(
        out,
        "Found 300 matching lines in 30 files for hit\nmany/f15.txt:6:hit 15.6\nmany/f15.txt:7:hit 15.7\nmany/f15.txt:8:hit 15.8\nShowing lines 156-158 of 300; pass offset=158 for more"
    );
}
