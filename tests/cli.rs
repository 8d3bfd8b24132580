//! `sextant <tool> key=value ...` prints exactly what an agent would read.

mod common;

use std::process::{Command, Output};

use common::fixture;

fn sextant(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .expect("run sextant")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn a_tool_run_prints_the_agent_text() {
    let f = fixture("ts");
    let root = f.root().to_str().unwrap();
    let out = sextant(&[
        "read_file",
        "--root",
        root,
        "path=src/paths.ts",
        "offset=2",
        "limit=1",
    ]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "     2\texport const tsFile = /\\.ts$/;\nsrc/paths.ts · lines 2-2 of 8; pass offset=3 for more\n"
    );
    assert!(
        out.stderr.is_empty(),
        "a one-off run logs nothing by default"
    );

    let out = sextant(&[
        "grep",
        "--root",
        root,
        "pattern=class (Circle|Square)",
        "output_mode=content",
        "-n=false",
        "-i",
    ]);
    assert_eq!(
        stdout(&out),
        "Found 2 matching lines in 1 file for class (Circle|Square)\nsrc/shapes.ts:export class Circle extends Base {\nsrc/shapes.ts:export class Square extends Base {\n"
    );
}

#[test]
fn a_one_off_run_watches_no_files() {
    let f = fixture("ts");
    let root = f.root().to_str().unwrap();
    let out = sextant(&["logs", "--root", root, "tail=0"]);
    let tools = sextant::lsp::config::default_tools_dir();
    let text = stdout(&out).replace(tools.to_str().unwrap(), "[tools]");
    insta::with_settings!({filters => vec![
        (r"typescript-[a-z0-9]+-[a-z0-9]+/lib/tsc", "typescript-[platform]/lib/tsc"),
    ]}, {
        insta::assert_snapshot!(text, @r"
        Language servers:
          typescript-go (typescript): not started
            command: [tools]/typescript-go/node_modules/@typescript/typescript-[platform]/lib/tsc --lsp --stdio
            why: no TypeScript in the project: sextant's own TypeScript 7
          not started: clangd (c), gopls (go), ty (python), rust-analyzer (rust)
        File watching: off (one-off run)

        No log lines match.
        ");
    });
}

#[test]
fn json_arguments_and_json_format() {
    let f = fixture("ts");
    let root = f.root().to_str().unwrap();
    let out = sextant(&[
        "find",
        "--root",
        root,
        "--json",
        r#"{"pattern": "*.json", "format": "json"}"#,
    ]);
    assert!(out.status.success());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        value["files"],
        serde_json::json!(["tsconfig.json", "package.json"])
    );
}

#[test]
fn a_tool_error_exits_with_status_1() {
    let f = fixture("ts");
    let root = f.root().to_str().unwrap();
    let out = sextant(&["read_file", "--root", root, "path=../x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("error[outside-root]: ../x is outside the workspace"));

    let out = sextant(&["grep", "--root", root, "head_limit=many"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "error[invalid-params]: head_limit=many: expected a value of type integer\n"
    );

    let out = sextant(&["grep", "pattern=x", "--root", root]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "error[invalid-params]: --root must come before the key=value parameters: sextant grep --root ... key=value\n"
    );
}

#[test]
fn help_lists_tools_and_their_parameters() {
    let out = sextant(&["--help"]);
    let text = stdout(&out);
    for tool in ["serve"].into_iter().chain(common::tool_names()) {
        assert!(
            text.contains(&format!("  {tool} ")),
            "{tool} missing from\n{text}"
        );
    }
    let out = sextant(&["grep", "--help"]);
    let text = stdout(&out);
    assert!(
        text.contains("  pattern (string, required)\n      Rust regex\n"),
        "{text}"
    );
    assert!(text.contains("  -C (integer)\n  -i (boolean)\n"), "{text}");
    assert!(
        text.contains("  output_mode (files_with_matches | content | count)\n  path (string)\n"),
        "{text}"
    );
}

#[test]
fn doctor_reports_languages_servers_and_roots() {
    let f = fixture("rust");
    // A meeting place of its own: no shared instance runs there.
    let place = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args(["doctor", "--root", f.root().to_str().unwrap()])
        .env_remove("RUST_LOG")
        .env("XDG_RUNTIME_DIR", place.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let root = f.root().canonicalize().unwrap().display().to_string();
    let tools = sextant::lsp::config::default_tools_dir();
    let text = stdout(&out)
        .replace(&root, "[root]")
        .replace(tools.to_str().unwrap(), "[tools]")
        .replace(place.path().to_str().unwrap(), "[runtime]");
    insta::with_settings!({filters => vec![
        (r"typescript-[a-z0-9]+-[a-z0-9]+/lib/tsc", "typescript-[platform]/lib/tsc"),
        (r"sextant \d+\.\d+\.\d+", "sextant [version]"),
        (r"ok: \S+ \(.*\)", "ok: [path] ([version])"),
        // gopls is installed only where Debian's package could be (see
        // scripts/install-servers.sh): either way is this line.
        (r"(?m)(go \(\.go\): gopls\n    )(ok: .*|missing: .*)$", "$1[found, or how to install it]"),
        (r"Tools directory: \S+", "Tools directory: [tools]"),
        (r"sextant/[0-9a-f]{16}\.log", "sextant/[key].log"),
        (r"(?s)Library roots \(read-only\):.*", "Library roots (read-only): [roots]"),
    ]}, {
        insta::assert_snapshot!(text);
    });
}

/// The repository is a Claude Code plugin marketplace with one plugin:
/// its manifests agree, its MCP server is `sextant serve` on the project
/// Claude Code names, and its skill has the frontmatter Claude Code reads.
#[test]
fn the_claude_code_plugin_is_well_formed() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(repo.join(path)).unwrap())
            .unwrap_or_else(|err| panic!("{path}: {err}"))
    };
    let marketplace = read(".claude-plugin/marketplace.json");
    let entry = &marketplace["plugins"][0];
    assert_eq!(marketplace["plugins"].as_array().unwrap().len(), 1);
    let source = entry["source"].as_str().unwrap();
    let plugin = read(&format!("{source}/.claude-plugin/plugin.json"));
    assert_eq!(plugin["name"], entry["name"]);
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    let mcp = read(&format!("{source}/.mcp.json"));
    let server = &mcp["mcpServers"]["sextant"];
    assert_eq!(server["command"], "sextant");
    assert_eq!(
        server["args"],
        serde_json::json!(["serve", "--root", "${CLAUDE_PROJECT_DIR}"])
    );
    let skill = std::fs::read_to_string(repo.join(source).join("skills/sextant/SKILL.md")).unwrap();
    let frontmatter = skill
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(front, _)| front)
        .expect("the skill opens with frontmatter");
    assert!(frontmatter.contains("name: sextant\n"), "{frontmatter}");
    assert!(frontmatter.contains("description: "), "{frontmatter}");
    // Every tool the skill names exists.
    for tool in [
        "search",
        "references",
        "read",
        "inspect",
        "call_hierarchy",
        "diagnostics",
        "rename",
        "apply_patch",
    ] {
        assert!(skill.contains(&format!("`{tool}`")), "{tool}");
        assert!(common::tool_names().contains(&tool), "{tool}");
    }
}
