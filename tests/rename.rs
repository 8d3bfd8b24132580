//! `rename` on the real servers, on copies of the fixtures: previews (one
//! diff per file, a patch id), `apply_patch` and `apply: true`, the project
//! still checking as before afterwards (TypeScript's own `tsc --noEmit`,
//! `cargo check`, and sextant's `diagnostics`), a file changed or made
//! read-only between preview and apply, renames raced against another
//! writer, and every refusal.

mod common;

use std::path::Path;
use std::process::Command;

use common::{Fixture, fixture, fixture_with};
use insta::assert_snapshot;
use serde_json::json;

/// A class with an `add` of its own, beside Registry's.
const TALLY_TS: &str = "\
/** Counts things: a class with an `add` of its own. */
export class Tally {
  private count = 0;

  add(n: number): this {
    this.count += n;
    return this;
  }
}

export const tally = new Tally().add(1).add(2);
";

fn typescript() -> Fixture {
    fixture_with("ts", &[("src/tally.ts", TALLY_TS)])
}

/// The errors `tsc --noEmit` reports for the project, one per line.
fn tsc_errors(root: &Path) -> String {
    let out = Command::new(common::tsc())
        .args(["--noEmit", "-p"])
        .arg(root)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("error TS"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The errors and warnings `cargo check` reports, one per line.
fn cargo_check(root: &Path) -> String {
    common::cargo_check(root, &[])
}

/// The patch id a preview shows.
fn patch_id(preview: &str) -> String {
    preview
        .lines()
        .find_map(|l| l.strip_prefix("patch: "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("no patch id in:\n{preview}"))
        .to_string()
}

#[tokio::test]
async fn typescript_renames_preview_apply_and_still_check() {
    let f = typescript();
    let errors_before = tsc_errors(f.root());
    assert!(errors_before.contains("src/broken.ts"), "{errors_before}");
    let diagnostics_before = f.run("diagnostics", json!({})).await;

    // A class used in several files: previewed, nothing written yet.
    let preview = f
        .run(
            "rename",
            json!({"file": "src/shapes.ts", "symbol": "Registry", "new_name": "Catalog"}),
        )
        .await;
    assert_snapshot!("ts_class_preview", preview);
    assert!(f.read("src/shapes.ts").contains("class Registry<"));
    let applied = f
        .run("apply_patch", json!({"patch": patch_id(&preview)}))
        .await;
    assert!(
        applied.starts_with("Applied patch p1: 2 files changed"),
        "{applied}"
    );
    assert!(f.read("src/index.ts").contains("new Catalog<Shape>()"));
    assert_eq!(tsc_errors(f.root()), errors_before);
    // The servers were told: the next answers see the new code.
    assert_eq!(f.run("diagnostics", json!({})).await, diagnostics_before);
    let uses = f
        .run(
            "references",
            json!({"file": "src/index.ts", "line": 5, "symbol": "Catalog"}),
        )
        .await;
    assert!(
        uses.contains("Found 3 references to Catalog across 2 files"),
        "{uses}"
    );

    // A method with a same-name method in another class: only Catalog's
    // `add` and its uses change, never Tally's.
    let tally = f.read("src/tally.ts");
    let preview = f
        .run(
            "rename",
            json!({"file": "src/shapes.ts", "symbol": "Catalog.add", "new_name": "insert"}),
        )
        .await;
    assert_snapshot!("ts_method_preview", preview);
    f.run("apply_patch", json!({"patch": patch_id(&preview)}))
        .await;
    assert_eq!(f.read("src/tally.ts"), tally);
    assert!(
        f.read("src/index.ts")
            .contains("registry.insert(new Circle(1)).insert(")
    );
    assert_eq!(tsc_errors(f.root()), errors_before);

    // An exported function imported elsewhere, written at once: the import
    // line changes too.
    let written = f.run("rename", json!({"file": "src/greeting.ts", "symbol": "greet", "new_name": "welcome", "apply": true})).await;
    assert_snapshot!("ts_function_applied", written);
    assert!(
        f.read("src/index.ts")
            .contains("import { welcome } from \"./greeting\";")
    );
    assert_eq!(tsc_errors(f.root()), errors_before);
    assert_eq!(f.run("diagnostics", json!({})).await, diagnostics_before);
}

#[tokio::test]
async fn rust_renames_apply_and_still_check() {
    let f = fixture("rust");
    let before = cargo_check(f.root());
    assert!(before.contains("src/broken.rs"), "{before}");
    // A struct.
    let preview = f
        .run(
            "rename",
            json!({"file": "src/lib.rs", "symbol": "Ledger", "new_name": "Book"}),
        )
        .await;
    assert_snapshot!("rust_struct_preview", preview);
    f.run("apply_patch", json!({"patch": patch_id(&preview)}))
        .await;
    assert!(
        f.read("src/report.rs")
            .contains("pub fn summary(value: &Book) -> String {")
    );
    assert_eq!(cargo_check(f.root()), before);
    // A trait method implemented twice: the trait, both impls, every call.
    let written = f.run("rename", json!({"file": "src/lib.rs", "symbol": "Account::balance", "new_name": "amount", "apply": true})).await;
    assert_snapshot!("rust_trait_method_applied", written);
    assert!(
        !f.read("src/lib.rs").contains("balance(") && !f.read("src/report.rs").contains("balance(")
    );
    assert_eq!(cargo_check(f.root()), before);
    // A function used from another module.
    let written = f.run("rename", json!({"file": "src/lib.rs", "symbol": "total_of", "new_name": "sum_of", "apply": true})).await;
    assert!(
        written.contains("Renamed 'total_of' -> 'sum_of': 3 changes across 2 files, written"),
        "{written}"
    );
    assert!(
        f.read("src/report.rs")
            .contains("use crate::{sum_of, Account, Book, Wallet};")
    );
    assert_eq!(cargo_check(f.root()), before);
    // A module: its file moves with it, in the same patch.
    let report = f.read("src/report.rs");
    let preview = f
        .run(
            "rename",
            json!({"file": "src/lib.rs", "line": 96, "symbol": "report", "new_name": "summary"}),
        )
        .await;
    assert_snapshot!(preview, @"
    rename report (Module) at src/lib.rs:96:9
    Rename 'report' -> 'summary': 2 changes across 2 files
      src/report.rs -> src/summary.rs (moved)
    patch: p2 (pass it to apply_patch to write exactly this change)

    === next block ===

    --- a/src/lib.rs
    +++ b/src/lib.rs
    @@ -93,4 +93,4 @@
         cents!(amount)
     }
     
    -pub mod report;
    +pub mod summary;
    ");
    f.run("apply_patch", json!({"patch": patch_id(&preview)}))
        .await;
    assert!(!f.path("src/report.rs").exists());
    assert_eq!(f.read("src/summary.rs"), report);
    assert!(f.read("src/lib.rs").ends_with("pub mod summary;\n"));
    assert_eq!(cargo_check(f.root()), before);
}

/// rust-analyzer renames a method's uses in macro expansions, not in a
/// `macro_rules!` body, where it is text until the macro is used: the
/// preview names the place, the rename is not applied, and forced it
/// breaks the build, as the note warned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_use_in_a_macro_body_is_named_and_the_rename_not_applied() {
    let lib = std::fs::read_to_string(common::fixtures_dir().join("rust/src/lib.rs")).unwrap();
    let lib = format!(
        "{lib}\nmacro_rules! twice {{\n    ($l:expr) => {{\n        $l.balance() * 2\n    }};\n}}\n\npub fn doubled(l: &Ledger) -> i64 {{\n    twice!(l)\n}}\n"
    );
    let f = fixture_with("rust", &[("src/lib.rs", lib.as_str())]);
    let before = cargo_check(f.root());
    let at = json!({"file": "src/lib.rs", "symbol": "Account::balance"});
    let why = "(rust-analyzer does not see a name in a macro's rules (`macro_rules!`) or in macro input it cannot expand)";
    let references = f.run("references", at.clone()).await;
    assert!(
        references.contains(&format!(
            "Note: `balance` also appears in macro bodies in 1 place in 1 file that the server did not count as references {why}: src/lib.rs @100:12; check them"
        )),
        "{references}"
    );
    let mut rename = at.clone();
    rename["new_name"] = json!("amount");
    let preview = f.run("rename", rename.clone()).await;
    assert!(
        preview.contains(&format!(
            "that the server did not rename {why}: src/lib.rs @100; check them"
        )),
        "{preview}"
    );
    rename["apply"] = json!(true);
    let refused = f.run("rename", rename.clone()).await;
    assert!(
        refused.starts_with("error[cannot-rename]: nothing was written: `balance` also appears")
            && !f.read("src/lib.rs").contains("fn amount("),
        "{refused}"
    );
    rename["force"] = json!(true);
    let forced = f.run("rename", rename).await;
    assert!(forced.contains(", written"), "{forced}");
    let after = cargo_check(f.root());
    assert!(after != before && after.contains("balance"), "{after}");
}

#[tokio::test]
async fn a_patch_applies_whole_or_not_at_all() {
    let f = typescript();
    let shapes = f.read("src/shapes.ts");
    // A file edited between preview and apply: nothing written.
    let preview = f
        .run(
            "rename",
            json!({"file": "src/shapes.ts", "symbol": "Registry", "new_name": "Catalog"}),
        )
        .await;
    let index = f.read("src/index.ts").replace("main()", "main( )");
    std::fs::write(f.path("src/index.ts"), &index).unwrap();
    assert_snapshot!(f.run("apply_patch", json!({"patch": patch_id(&preview)})).await, @"error[stale-patch]: src/index.ts changed on disk since the preview; nothing was written. Read it again and preview a new change");
    assert_eq!(
        (f.read("src/shapes.ts"), f.read("src/index.ts")),
        (shapes.clone(), index)
    );
    // A file made read-only after the preview: nothing written.
    let preview = f
        .run(
            "rename",
            json!({"file": "src/shapes.ts", "symbol": "Registry", "new_name": "Catalog"}),
        )
        .await;
    let path = f.path("src/index.ts");
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&path, permissions).unwrap();
    assert_snapshot!(f.run("apply_patch", json!({"patch": patch_id(&preview)})).await, @"error[read-only]: src/index.ts is read-only (its permissions allow no writing); nothing was written. Make it writable first if it should change");
    assert_eq!(f.read("src/shapes.ts"), shapes);
    // Applied once, a patch is gone, and says why.
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    permissions.set_readonly(false);
    std::fs::set_permissions(&path, permissions).unwrap();
    let id = patch_id(&preview);
    f.run("apply_patch", json!({"patch": id})).await;
    assert_eq!(
        f.run("apply_patch", json!({"patch": id})).await,
        format!(
            "error[unknown-patch]: no patch {id}: it was already applied; preview the change again"
        )
    );
}

#[tokio::test]
async fn what_cannot_be_renamed_is_refused() {
    let f = typescript();
    let refused = |args| async { f.run("rename", args).await };
    // A keyword: a rename must hit the name itself.
    assert_snapshot!(refused(json!({"file": "src/shapes.ts", "line": 63, "character": 2, "new_name": "grow"})).await, @"error[cannot-rename]: `export` at 63:1 is a keyword; used `scale` at 63:17, the nearest name on that line; pass the position of the name to rename itself");
    // Names that are not names.
    assert_snapshot!(refused(json!({"file": "src/shapes.ts", "symbol": "Registry", "new_name": "class"})).await, @"error[cannot-rename]: `class` is a reserved word in TypeScript; pass a valid name");
    assert_snapshot!(refused(json!({"file": "src/shapes.ts", "symbol": "Registry", "new_name": "9lives"})).await, @"error[cannot-rename]: `9lives` is not a TypeScript identifier; pass a valid name");
    assert_snapshot!(refused(json!({"file": "src/shapes.ts", "symbol": "Registry", "new_name": " "})).await, @r#"error[cannot-rename]: new_name " " is empty or holds whitespace; pass the new name alone"#);
    // A library's symbol: the server refuses TypeScript's own.
    assert_snapshot!(refused(json!({"file": "src/shapes.ts", "line": 47, "symbol": "Map", "new_name": "Mapping"})).await, @"error[cannot-rename]: typescript-go will not rename `Map` at src/shapes.ts:47:23: You cannot rename elements that are defined in the standard TypeScript library.");
    // Unchanged name.
    assert_snapshot!(refused(json!({"file": "src/shapes.ts", "symbol": "Registry", "new_name": "Registry"})).await, @"error[no-change]: `Registry` already has that name");
    // Nothing was written by any of them.
    assert!(
        f.read("src/shapes.ts")
            .contains("export class Registry<T extends Shape>")
    );
}

#[tokio::test]
async fn a_library_file_is_never_renamed_in() {
    let f = fixture("rust");
    let registry_file = f
        .run(
            "inspect",
            json!({"file": "src/report.rs", "line": 7, "symbol": "levenshtein"}),
        )
        .await
        .lines()
        .find_map(|l| {
            // `strsim@0.11.1:src/lib.rs:269:8 ...`: the file is what comes
            // before the line and character.
            let place = l.strip_prefix("Definition: ")?.split(' ').next()?;
            place.rsplitn(3, ':').nth(2).map(String::from)
        })
        .expect("strsim's source");
    assert!(registry_file.starts_with("strsim@"), "{registry_file}");
    let out = f
        .run(
            "rename",
            json!({"file": registry_file, "symbol": "levenshtein", "new_name": "lev"}),
        )
        .await;
    assert!(
        out.starts_with("error[cannot-rename]: `levenshtein` at ")
            && out.contains("is in a library file (read-only)"),
        "{out}"
    );
    // From its use, rust-analyzer refuses too.
    let out = f
        .run(
            "rename",
            json!({"file": "src/report.rs", "line": 7, "symbol": "levenshtein", "new_name": "lev"}),
        )
        .await;
    assert_snapshot!(out, @"error[cannot-rename]: rust-analyzer will not rename `levenshtein` at src/report.rs:7:13: Cannot rename a non-local definition");
}

#[tokio::test]
async fn read_only_mode_previews_only() {
    let f = typescript();
    let ctx = common::context(f.root(), true);
    let preview = common::run(
        &ctx,
        "rename",
        json!({"file": "src/shapes.ts", "symbol": "Registry", "new_name": "Catalog"}),
    )
    .await;
    assert!(
        preview.contains("Rename 'Registry' -> 'Catalog': 3 changes across 2 files"),
        "{preview}"
    );
    assert!(
        !preview.contains("patch: p")
            && preview.contains("Note: read-only mode: nothing can be written"),
        "{preview}"
    );
    assert_snapshot!(common::run(&ctx, "rename", json!({"file": "src/shapes.ts", "symbol": "Registry", "new_name": "Catalog", "apply": true})).await, @"error[read-only]: sextant runs read-only (--read-only): rename previews, and writes nothing; leave apply out");
    assert!(f.read("src/shapes.ts").contains("class Registry<"));
}

/// Renames previewed and applied while another writer keeps rewriting one
/// of the files they change (whole files, through a rename, as editors
/// save): each apply writes every file of the patch or, the file having
/// changed since the preview, none; no file is ever seen torn, and no
/// staged file is left behind. The other writer comes between preview and
/// apply, surely or by chance, but never during an apply: there its check
/// and its rename could let it put back a race_b.ts the apply renamed in,
/// and every later rename would change race_a.ts alone. A third of the
/// rounds hold it off from preview to apply, and each of those applies: a
/// race the other writer always wins on a slow machine proves nothing of
/// applying.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renames_raced_against_another_writer_apply_whole_or_not_at_all() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let f = fixture_with(
        "ts",
        &[
            (
                "src/race_a.ts",
                "export function shift0(n: number): number {\n  return n + 1;\n}\n// end of a\n",
            ),
            (
                "src/race_b.ts",
                "import { shift0 } from \"./race_a\";\nexport const moved = shift0(1);\n// b by start\n// end of b\n",
            ),
        ],
    );
    let (a, b) = (
        f.root().join("src/race_a.ts"),
        f.root().join("src/race_b.ts"),
    );
    let stop = Arc::new(AtomicBool::new(false));
    // The threads stop when the test ends, an assertion failing included.
    struct StopOnDrop(Arc<AtomicBool>);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let _stopping = StopOnDrop(Arc::clone(&stop));
    // Held by the other writer while it writes, and by the test through a
    // quiet round.
    let turn = Arc::new(tokio::sync::Mutex::new(()));
    let writer = {
        let (stop, turn, b) = (Arc::clone(&stop), Arc::clone(&turn), b.clone());
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let writing = turn.blocking_lock();
                let text = std::fs::read_to_string(&b).unwrap();
                let rewritten: String = text
                    .lines()
                    .map(|line| match line.starts_with("// b by") {
                        true => format!("// b by other #{n}\n"),
                        false => format!("{line}\n"),
                    })
                    .collect();
                let temp = b.with_extension("other");
                std::fs::write(&temp, rewritten).unwrap();
                // Not over a rename applied meanwhile (which would undo
                // it, and leave later renames nothing to race for).
                if std::fs::read_to_string(&b).unwrap() == text {
                    std::fs::rename(&temp, &b).unwrap();
                }
                drop(writing);
                // Pauses, so some previews find their files unchanged.
                std::thread::sleep(std::time::Duration::from_millis(if n % 4 == 0 {
                    40
                } else {
                    1
                }));
            }
        })
    };
    let reader = {
        let (stop, a, b) = (Arc::clone(&stop), a.clone(), b.clone());
        std::thread::spawn(move || {
            let mut reads = 0;
            while !stop.load(Ordering::Relaxed) {
                let (text_a, text_b) = (
                    std::fs::read_to_string(&a).unwrap(),
                    std::fs::read_to_string(&b).unwrap(),
                );
                assert!(
                    text_a.starts_with("export function shift")
                        && text_a.ends_with("// end of a\n"),
                    "a torn race_a.ts: {text_a:?}"
                );
                assert!(
                    text_b.starts_with("import { shift") && text_b.ends_with("// end of b\n"),
                    "a torn race_b.ts: {text_b:?}"
                );
                reads += 1;
            }
            reads
        })
    };

    let rounds = 30;
    let (mut applied, mut stale, mut both) = (0, 0, 0);
    for round in 0..rounds {
        let before = std::fs::read_to_string(&a).unwrap();
        let name = before
            .strip_prefix("export function ")
            .and_then(|rest| rest.split('(').next())
            .unwrap()
            .to_string();
        let new_name = format!("shift{}", round + 1);
        let quiet = round % 3 == 1;
        let held_off = if quiet { Some(turn.lock().await) } else { None };
        let preview = f
            .run(
                "rename",
                json!({"file": "src/race_a.ts", "symbol": name, "new_name": new_name}),
            )
            .await;
        let changes_b = preview.contains("+++ b/src/race_b.ts");
        if changes_b {
            both += 1;
        }
        let forced = round % 3 == 0;
        if forced {
            // Every third round a writer surely comes between preview and
            // apply; the round after it none does (quiet), and the next
            // races the other writer.
            let _writing = turn.lock().await;
            let text = std::fs::read_to_string(&b).unwrap();
            let temp = b.with_extension("test");
            std::fs::write(&temp, text.replace("// b by", "// b by the test,")).unwrap();
            std::fs::rename(&temp, &b).unwrap();
        }
        let held_off = match held_off {
            Some(held) => held,
            None => turn.lock().await,
        };
        let answer = f
            .run("apply_patch", json!({"patch": patch_id(&preview)}))
            .await;
        drop(held_off);
        let after = std::fs::read_to_string(&a).unwrap();
        assert!(
            !quiet || answer.starts_with("Applied patch"),
            "nothing was written since the preview, yet: {answer}"
        );
        if answer.starts_with("Applied patch") {
            applied += 1;
            assert!(
                after.starts_with(&format!("export function {new_name}(")),
                "{answer}\n{after}"
            );
        } else {
            assert!(answer.starts_with("error[stale-patch]"), "{answer}");
            assert_eq!(after, before, "a refused patch wrote race_a.ts");
            stale += 1;
        }
        if forced && changes_b {
            assert!(
                answer.starts_with("error[stale-patch]"),
                "race_b.ts changed since the preview, yet: {answer}"
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    let reads = reader.join().expect("no torn file was read");
    // Each quiet round applied (asserted in the round).
    assert!(
        applied >= rounds / 3,
        "{applied} applied in {rounds} rounds"
    );
    assert!(stale > 0, "no rename found race_b.ts changed");
    // The server sees race_b.ts as the other writer rewrites it: now and
    // then TypeScript 7 answers from a view that misses its use, and the
    // renames after that change race_a.ts alone.
    assert!(both > 0, "no rename changed both files");
    assert!(reads > 0);
    let left = common::staged_files_left(&f.root().join("src"));
    assert!(left.is_empty(), "staged files left behind: {left:?}");
    println!("{applied} applied, {stale} refused as stale, {both} of both files, {reads} reads");
}

/// Renaming an export that a package's index re-exports renames every
/// use, through the re-export: never `newName as oldName` in the index with
/// the importers left on the old name (both servers alias by default). The
/// project type-checks as before once it is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_re_exported_name_is_renamed_everywhere_not_aliased() {
    let mut cases = common::cases!();
    for server in [common::TYPESCRIPT_GO, common::TYPESCRIPT_LANGUAGE_SERVER] {
        let index = std::fs::read_to_string(common::fixtures_dir().join("ts/src/index.ts"))
            .unwrap()
            + "export { greet } from \"./greeting\";\n";
        let f = common::fixture_on_with(
            "ts",
            server,
            &[
                ("src/index.ts", index.as_str()),
                (
                    "src/user.ts",
                    "import { greet } from \"./index\";\nexport const hi = greet(\"you\");\n",
                ),
            ],
        );
        // The fixture's broken.ts has errors of its own: no new ones.
        let before = tsc_errors(f.root());
        let applied = f
            .run(
                "rename",
                json!({"file": "src/greeting.ts", "symbol": "greet", "new_name": "salute", "apply": true}),
            )
            .await;
        let errors = tsc_errors(f.root());
        cases.check(
            server,
            applied.contains("Renamed 'greet' -> 'salute': 6 changes across 3 files, written")
                && !applied.contains(" as ")
                && f.read("src/user.ts")
                    .contains("import { salute } from \"./index\";")
                && errors == before,
            format!("{applied}\n{errors}"),
        );
    }
    cases.finish();
}

/// A Svelte component calls a TypeScript function that neither server
/// reads it for: references and the rename preview name its places, and the
/// rename is not applied while they would be left on the old name, unless
/// forced. The name in a README's TypeScript example and in a comment is
/// named too, and does not stop the write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uses_in_files_the_server_does_not_read_are_named() {
    let f = common::fixture_with(
        "ts",
        &[
            (
                "src/Hello.svelte",
                "<script lang=\"ts\">\n  import { greet } from \"./greeting\";\n  // greet whoever comes\n  export let name: string;\n</script>\n\n<h1>greet</h1>\n<p>{greet(name)}</p>\n",
            ),
            (
                "README.md",
                "# Greetings\n\nCall greet:\n\n```ts\nimport { greet } from \"./src/greeting\";\ngreet(\"Ada\");\n```\n\n```sh\ngreet\n```\n",
            ),
        ],
    );
    let why = "(the TypeScript servers do not read .svelte, .vue or .astro files)";
    let at = json!({"file": "src/greeting.ts", "symbol": "greet"});
    let references = f.run("references", at.clone()).await;
    assert!(
        references.contains(&format!(
            "Note: `greet` also appears in 2 places in 1 file that the server did not count as references {why}: src/Hello.svelte @2:12, @8:5; check them"
        )) && !references.contains("README"),
        "{references}"
    );
    let mut rename = at.clone();
    rename["new_name"] = json!("salute");
    let preview = f.run("rename", rename.clone()).await;
    let embedded = format!(
        "`greet` also appears in 2 places in 1 file that the server did not rename {why}: src/Hello.svelte @2, @8; check them"
    );
    let markdown =
        "`greet` is left in 2 places in Markdown code blocks of 1 file: README.md @6, @7";
    let prose = "`greet` is left in 2 comments and strings in 1 file: src/Hello.svelte @3, @7";
    for note in [embedded.as_str(), markdown, prose] {
        assert!(preview.contains(note), "{note}\n{preview}");
    }
    rename["apply"] = json!(true);
    let refused = f.run("rename", rename.clone()).await;
    assert_eq!(
        refused,
        format!(
            "error[cannot-rename]: nothing was written: {embedded}. Pass force: true to write anyway, or preview the rename (leave apply out) and apply its patch with apply_patch"
        )
    );
    assert!(f.read("src/greeting.ts").contains("export function greet("));
    rename["force"] = json!(true);
    let forced = f.run("rename", rename).await;
    assert!(
        forced.contains(", written")
            && forced.contains(&embedded)
            && f.read("src/greeting.ts")
                .contains("export function salute(")
            && f.read("src/Hello.svelte").contains("{greet(name)}"),
        "{forced}"
    );
}

/// In JavaScript a server cannot always find every use of a member (its
/// object often has no type): references name the places the text holds
/// that the answer left out, a rename preview says which uses it would
/// leave, and a rename that would leave them is not written. The commonjs
/// fixture uses `normalizeType` through `require('./utils').normalizeType`
/// and `utils.normalizeType(...)`, and binds a local of the same name
/// (`var normalizeType = require('./utils').normalizeType`), which is
/// another symbol, not a use left out.
///
/// TypeScript's native server checks each file of a workspace with no
/// config alone, so it misses the other files' uses; typescript-language-
/// server, which `auto` chooses there, holds them all in one project and
/// finds them all, so its rename is written, and the tests still pass. A
/// use through an untyped parameter is named even then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_answers_name_the_uses_the_server_left_out() {
    let why = "(in JavaScript the server cannot tell every use of a name (a member's object \
               often has no type it can follow))";
    let at = json!({"file": "lib/utils.js", "symbol": "exports.normalizeType"});
    let mut rename = at.clone();
    rename["new_name"] = json!("normalizeMime");
    let mut cases = common::cases!();

    let f = common::fixture_on("commonjs", common::TYPESCRIPT_GO);
    let references = f.run("references", at.clone()).await;
    cases.check(
        "typescript-go: references",
        references.contains(&format!(
            "Note: `normalizeType` also appears as code in 3 places in 3 files that the server did not count as references {why}: lib/app.js @13:25; lib/response.js @4:40; test/app.test.js @8:26; check them"
        )),
        &references,
    );
    let preview = f.run("rename", rename.clone()).await;
    cases.check(
        "typescript-go: preview",
        preview.contains("patch: p")
            && preview.contains(&format!(
                "that the server did not rename {why}: lib/app.js @13; lib/response.js @4; test/app.test.js @8; check them",
            )),
        &preview,
    );
    let before = f.read("lib/utils.js");
    let mut apply = rename.clone();
    apply["apply"] = json!(true);
    let applied = f.run("rename", apply.clone()).await;
    cases.check(
        "typescript-go: apply",
        applied
            .starts_with("error[cannot-rename]: nothing was written: `normalizeType` also appears")
            && f.read("lib/utils.js") == before,
        &applied,
    );

    let f = common::fixture("commonjs");
    let references = f.run("references", at.clone()).await;
    cases.check(
        "auto: references",
        references.contains("Found 5 references to normalizeType across 4 files")
            && !references.contains("Note:"),
        &references,
    );
    // A file created since the server started joins its project.
    let created = f
        .run(
            "create_file",
            json!({"path": "lib/extra.js", "content": "var utils = require('./utils');\nexports.html = utils.normalizeType('html');\n"}),
        )
        .await;
    let references = f.run("references", at.clone()).await;
    cases.check(
        "auto: a new file",
        references.contains("Found 6 references to normalizeType across 5 files")
            && references.contains("lib/extra.js (1 reference)"),
        format!("{created}\n{references}"),
    );
    let applied = f.run("rename", apply.clone()).await;
    let test = std::process::Command::new("node")
        .arg("test/app.test.js")
        .current_dir(f.root())
        .output()
        .unwrap();
    cases.check(
        "auto: apply",
        applied.contains(
            "Renamed 'normalizeType' -> 'normalizeMime': 6 changes across 5 files, written",
        ) && f
            .read("lib/response.js")
            .contains("var normalizeType = require('./utils').normalizeMime;")
            && test.status.success(),
        format!("{applied}\n{}", String::from_utf8_lossy(&test.stderr)),
    );
    let logs = f.run("logs", json!({})).await;
    cases.check(
        "auto: the server and its project",
        logs.contains("typescript-language-server (typescript): ready")
            && logs.contains("7 files no tsconfig or jsconfig holds are one project"),
        &logs,
    );

    let untyped = "'use strict';\n\nmodule.exports = function format(helpers, type) {\n  return helpers.normalizeType(type);\n};\n";
    let f = common::fixture_with("commonjs", &[("lib/format.js", untyped)]);
    let references = f.run("references", at.clone()).await;
    cases.check(
        "auto: an untyped use",
        references.contains("Found 5 references to normalizeType across 4 files")
            && references.contains(&format!(
                "Note: `normalizeType` also appears as code in 1 place in 1 file that the server did not count as references {why}: lib/format.js @4:18; check them"
            )),
        &references,
    );
    // TypeScript's types make its answers whole: nothing is audited there.
    let f = common::fixture("ts");
    let references = f
        .run(
            "references",
            json!({"file": "src/shapes.ts", "symbol": "Registry.add"}),
        )
        .await;
    cases.check(
        "typescript",
        !references.contains("also appears"),
        &references,
    );
    cases.finish();
}

/// While the file watcher hears every change, the audit keeps its whole
/// look through the workspace for a name: a file written since (no file
/// created or deleted, so the list of files stays) is looked at again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_kept_whole_forgets_a_file_written_since() {
    let f = common::fixture_on("commonjs", common::TYPESCRIPT_GO);
    let at = json!({"file": "lib/utils.js", "symbol": "exports.normalizeType"});
    let first = f.run("references", at.clone()).await;
    assert!(
        first.contains("3 places in 3 files that the server did not count as references"),
        "{first}"
    );
    assert_eq!(f.run("references", at.clone()).await, first);
    let text = f.read("lib/app.js") + "\nexports.again = utils.normalizeType('txt');\n";
    std::fs::write(f.path("lib/app.js"), text).unwrap();
    common::agent_turn().await;
    let after = f.run("references", at.clone()).await;
    assert!(
        after.contains("4 places in 3 files that the server did not count as references"),
        "{after}"
    );
}

/// The text audit keeps what it found in each file while the file keeps
/// its stamp, and forgets it when the file watcher
/// reports the file written: a file written since, even to the same length
/// with its old time put back (which the watcher tells, and the stamp by
/// the file's status change time), one created and one deleted are each
/// looked at again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_looks_again_at_files_written_since_it_last_looked() {
    let f = common::fixture_on("commonjs", common::TYPESCRIPT_GO);
    let at = json!({"file": "lib/utils.js", "symbol": "exports.normalizeType"});
    let first = f.run("references", at.clone()).await;
    assert!(
        first.contains(
            "3 places in 3 files that the server did not count as references (in JavaScript the server cannot tell every use of a name (a member's object often has no type it can follow)): lib/app.js @13:25; lib/response.js @4:40; test/app.test.js @8:26;"
        ),
        "{first}"
    );
    assert_eq!(f.run("references", at.clone()).await, first);

    // response.js loses its blank second line and gains a space on the
    // line of the use: the same length. Its old time is put back.
    let text = f
        .read("lib/response.js")
        .replacen("'use strict';\n\n", "'use strict';\n", 1)
        .replacen("require('./utils')", "require( './utils')", 1);
    assert_eq!(text.len(), f.read("lib/response.js").len());
    f.rewrite_keeping_time("lib/response.js", &text);
    std::fs::write(
        f.path("lib/more.js"),
        "var utils = require('./utils');\nexports.kind = utils.normalizeType('css');\n",
    )
    .unwrap();
    std::fs::remove_file(f.path("test/app.test.js")).unwrap();
    common::agent_turn().await;

    let after = f.run("references", at.clone()).await;
    assert!(
        after.contains("3 places in 3 files that the server did not count as references")
            && after.contains(": lib/app.js @13:25; lib/more.js @2:22; lib/response.js @3:41;"),
        "{after}"
    );
}

/// A JavaScript project whose `src/main.js` uses `measure` from
/// `src/linked/thing.js`, where `src/linked` is a symlink to `folder`
/// (which gets `thing.js`), read with `preserveSymlinks`: TypeScript then
/// names the file by the symlink's path.
fn through_a_symlink(root: &Path, folder: &Path) {
    for (path, text) in [
        (
            "package.json",
            r#"{ "name": "linked", "private": true, "type": "module" }"#,
        ),
        (
            "jsconfig.json",
            r#"{ "compilerOptions": { "module": "ES2022", "moduleResolution": "bundler", "preserveSymlinks": true }, "include": ["src/main.js"] }"#,
        ),
        (
            "src/main.js",
            "import { measure } from \"./linked/thing.js\";\n\nexport const twice = measure(2);\n",
        ),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    std::fs::create_dir_all(folder).unwrap();
    std::fs::write(
        folder.join("thing.js"),
        "export function measure(x) {\n  return x * 2;\n}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(folder, root.join("src/linked")).unwrap();
}

/// The rename of `measure` at its use in `through_a_symlink`'s project.
fn rename_measure(apply: bool) -> serde_json::Value {
    json!({"file": "src/main.js", "line": 3, "character": 22, "new_name": "gauge", "apply": apply})
}

/// A server may name a file through a symlinked folder inside the root
/// (TypeScript with `preserveSymlinks`): the rename lands on the real
/// file, and the audit, which reads the workspace by real paths, reads
/// the renamed text there, not the file on disk still holding the old
/// name (which would be named as left, and stop the write).
#[tokio::test]
async fn a_file_named_through_a_symlink_is_renamed_and_audited_at_its_real_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    through_a_symlink(root, &root.join("src/real"));
    let ctx = common::context(root, false);
    let preview = common::run(&ctx, "rename", rename_measure(false)).await;
    // The server's path is the one shown; nothing is named as left.
    assert!(
        preview.contains("3 changes across 2 files")
            && preview.contains("+++ b/src/linked/thing.js")
            && !preview.contains("Note:"),
        "{preview}"
    );
    let applied = common::run(&ctx, "rename", rename_measure(true)).await;
    assert!(applied.contains("written"), "{applied}");
    let real = std::fs::read_to_string(root.join("src/real/thing.js")).unwrap();
    assert!(real.starts_with("export function gauge(x)"), "{real}");
    assert!(
        std::fs::symlink_metadata(root.join("src/linked"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// Named through a symlink that leads out of the root, a file fails the
/// write check: the rename is refused, previewed or applied, and nothing
/// is written on either side of the link.
#[tokio::test]
async fn a_file_named_through_a_symlink_out_of_the_root_is_not_renamed() {
    let (dir, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path();
    through_a_symlink(root, outside.path());
    let ctx = common::context(root, false);
    for apply in [false, true] {
        let refused = common::run(&ctx, "rename", rename_measure(apply)).await;
        assert!(
            refused
                .starts_with("error[outside-root]: src/linked/thing.js is outside the workspace")
                && refused.contains("through a symlink"),
            "{refused}"
        );
    }
    let main = std::fs::read_to_string(root.join("src/main.js")).unwrap();
    let thing = std::fs::read_to_string(outside.path().join("thing.js")).unwrap();
    assert!(
        main.contains("measure(2)") && thing.contains("function measure"),
        "{main}\n{thing}"
    );
}
