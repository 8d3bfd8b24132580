//! Text for the tools that stand on the language servers: diagnostics (and
//! a write's impact on them), logs, and `sextant doctor`.

use std::fmt::Write;

use super::count;
use crate::model::{
    Diagnostic, DiagnosticsReport, DiagnosticsScope, DoctorReport, FileDiagnostics, FileFinding,
    Impact, InstanceCheck, InstanceState, LogLine, LogsReport, ServerState, ServerStatus, Severity,
    SeverityCounts, WatchStatus,
};

/// A summary block (with which part of the list the page shows), then one
/// block per file: `✘ @12:5 [Error][2304] Cannot find name 'x' (typescript)`.
pub fn diagnostics(report: &DiagnosticsReport) -> Vec<String> {
    let parts = severity_parts(&report.counts);
    let mut summary = if parts.is_empty() {
        let what = match report.min_severity {
            Severity::Error => "No errors",
            Severity::Warning => "No errors or warnings",
            _ => "No diagnostics",
        };
        let checked = count(report.files_checked, "file", "files");
        match &report.scope {
            DiagnosticsScope::File(file) => format!("{what} in {file}"),
            DiagnosticsScope::Folder(folder) => format!("{what} in {checked} under {folder}"),
            DiagnosticsScope::Workspace => format!("{what} in {checked}"),
        }
    } else {
        format!(
            "{} in {}",
            parts.join(", "),
            count(report.files_with, "file", "files")
        )
    };
    if !parts.is_empty() {
        match &report.scope {
            DiagnosticsScope::File(_) => {}
            DiagnosticsScope::Folder(folder) => {
                let _ = write!(
                    summary,
                    " ({} checked under {folder})",
                    report.files_checked
                );
            }
            DiagnosticsScope::Workspace => {
                let _ = write!(summary, " ({} checked)", report.files_checked);
            }
        }
    }
    if !report.folders.is_empty() {
        let folders: Vec<String> = report
            .folders
            .iter()
            .map(|(folder, counts)| format!("{folder} ({})", severity_parts(counts).join(", ")))
            .collect();
        let _ = write!(summary, "\nBy folder: {}", folders.join("; "));
        let more = report.folders_total.saturating_sub(report.folders.len());
        if more > 0 {
            let noun = if more == 1 { "folder" } else { "folders" };
            let _ = write!(summary, "; and {more} more {noun}");
        }
    }
    if let Some(showing) = super::page::showing("diagnostics", &report.page) {
        let _ = write!(summary, "\n{showing}");
    }
    for note in &report.notes {
        let _ = write!(summary, "\nNote: {note}");
    }
    let mut blocks = vec![summary];
    for file in &report.files {
        let mut block = diagnostics_header(file);
        for diagnostic in &file.diagnostics {
            block.push_str(&diagnostic_line(diagnostic));
        }
        blocks.push(block);
    }
    blocks
}

/// A file's block header: `src/a.ts (2 errors, 1 warning)`, the whole
/// file's counts.
pub fn diagnostics_header(file: &FileDiagnostics) -> String {
    format!(
        "{} ({})",
        file.path,
        severity_parts(&file.counts).join(", ")
    )
}

/// One diagnostic as its file's block holds it, with the line break that
/// starts it.
pub fn diagnostic_line(diagnostic: &Diagnostic) -> String {
    let icon = match diagnostic.severity {
        Severity::Error => '✘',
        Severity::Warning => '⚠',
        Severity::Information => 'ℹ',
        Severity::Hint => '·',
    };
    let mut line = format!(
        "\n  {icon} @{} [{}]",
        diagnostic.position,
        diagnostic.severity.name()
    );
    if let Some(code) = &diagnostic.code {
        let _ = write!(line, "[{code}]");
    }
    // Multi-line messages (rustc's notes, ty's `info:` lines) stay
    // readable, indented; the blank lines between their parts say nothing.
    let message = diagnostic
        .message
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n      ");
    let _ = write!(line, " {message}");
    if let Some(source) = &diagnostic.source {
        let _ = write!(line, " ({source})");
    }
    line
}

/// A write's impact, one block: `Impact: introduced 1 error (2 files
/// re-checked)`, the introduced findings under their files, the fixed ones
/// one a line, then what was not compared.
pub fn impact(impact: &Impact) -> String {
    let tally = |findings: &[FileFinding]| {
        let mut counts: SeverityCounts = [0; 4];
        for finding in findings {
            counts[finding.diagnostic.severity as usize] += 1;
        }
        severity_parts(&counts).join(", ")
    };
    let mut parts = Vec::new();
    if !impact.introduced.is_empty() {
        parts.push(format!("introduced {}", tally(&impact.introduced)));
    }
    if !impact.fixed.is_empty() {
        parts.push(format!("fixed {}", tally(&impact.fixed)));
    }
    let mut block = if impact.files_compared == 0 {
        "Impact: not measured, no file was re-checked".to_string()
    } else {
        if parts.is_empty() {
            parts.push("no new errors or warnings".into());
        }
        let mut scope = count(impact.files_compared, "file", "files") + " re-checked";
        if impact.remaining > 0 {
            let _ = write!(scope, ", {} from before remain", impact.remaining);
        }
        format!("Impact: {} ({scope})", parts.join(", "))
    };
    let mut file = None;
    for finding in &impact.introduced {
        if file != Some(&finding.path) {
            let _ = write!(block, "\n{}", finding.path);
            file = Some(&finding.path);
        }
        block.push_str(&diagnostic_line(&finding.diagnostic));
    }
    // One line per fixed finding, those alike once with their number.
    let mut fixed: Vec<(String, usize)> = Vec::new();
    for finding in &impact.fixed {
        let diagnostic = &finding.diagnostic;
        let code = diagnostic
            .code
            .as_ref()
            .map(|code| format!("[{code}] "))
            .unwrap_or_default();
        let message = diagnostic.message.lines().next().unwrap_or("");
        let line = format!("{} {code}{message}", finding.path);
        match fixed.iter_mut().find(|(known, _)| *known == line) {
            Some((_, times)) => *times += 1,
            None => fixed.push((line, 1)),
        }
    }
    for (line, times) in fixed {
        let _ = write!(block, "\nFixed: {line}");
        if times > 1 {
            let _ = write!(block, " ({times}x)");
        }
    }
    for note in &impact.notes {
        let _ = write!(block, "\nNote: {note}");
    }
    block
}

/// `2 errors`, `1 warning`, ... for the severities counted.
fn severity_parts(counts: &SeverityCounts) -> Vec<String> {
    const NAMES: [(&str, &str); 4] = [
        ("error", "errors"),
        ("warning", "warnings"),
        ("info", "infos"),
        ("hint", "hints"),
    ];
    counts
        .iter()
        .zip(NAMES)
        .filter(|(n, _)| **n > 0)
        .map(|(n, (one, many))| count(*n, one, many))
        .collect()
}

/// Server statuses first, then log lines, newest last.
pub fn logs(report: &LogsReport) -> Vec<String> {
    let mut status = String::from("Language servers:");
    if report.servers.is_empty() {
        match &report.server_filter {
            Some(name) => {
                let _ = write!(status, " none named {name}");
            }
            None => status.push_str(" none configured"),
        }
    }
    // Servers nothing has asked for yet, one line for all: what they run
    // says little before they start.
    let idle =
        |server: &&ServerStatus| server.state == ServerState::NotStarted && server.reason.is_none();
    for server in report.servers.iter().filter(|s| !idle(s)) {
        let _ = write!(status, "\n  {}", server_line(server));
    }
    let not_started: Vec<String> = report
        .servers
        .iter()
        .filter(idle)
        .map(|server| format!("{} ({})", server.server, server.language))
        .collect();
    if !not_started.is_empty() {
        let _ = write!(status, "\n  not started: {}", not_started.join(", "));
    }
    if let Some(watching) = &report.watching {
        let _ = write!(status, "\nFile watching: {}", watch_line(watching));
    }
    if let Some(instance) = &report.instance {
        let _ = write!(status, "\nShared instance: {}", instance_line(instance));
    }
    let mut lines = String::new();
    if report.lines.is_empty() && report.older_lines == 0 {
        lines.push_str("No log lines match.");
    } else {
        if report.older_lines > 0 {
            let _ = writeln!(
                lines,
                "... {} not shown (raise tail to see them)",
                count(
                    report.older_lines,
                    "older matching line",
                    "older matching lines"
                )
            );
        }
        for line in &report.lines {
            let _ = writeln!(lines, "{}", log_line(line));
        }
        lines.truncate(lines.trim_end().len());
    }
    vec![status, lines]
}

fn watch_line(status: &WatchStatus) -> String {
    match status {
        WatchStatus::NotStarted => "starts with the first language server".to_string(),
        WatchStatus::Off => "off (one-off run)".to_string(),
        WatchStatus::Watching {
            folders,
            full,
            walking,
        } => {
            let folders = count(*folders, "folder", "folders");
            if *full {
                format!(
                    "{folders}, at the limit: files in other folders reach the servers only when a tool opens them"
                )
            } else if *walking {
                format!("{folders} so far, still walking the workspace")
            } else {
                folders
            }
        }
        WatchStatus::Failed { error } => format!(
            "unavailable ({error}): servers see files they have not opened as they were when they started"
        ),
    }
}

fn server_line(server: &ServerStatus) -> String {
    let state = match &server.state {
        ServerState::NotStarted => "not started".to_string(),
        ServerState::Missing { hint } => format!("missing: {hint}"),
        ServerState::Starting => "starting".to_string(),
        ServerState::Indexing {
            percentage: Some(p),
            title,
        } => format!("indexing {p}% ({title})"),
        ServerState::Indexing {
            percentage: None,
            title,
        } => format!("indexing ({title})"),
        ServerState::Ready => "ready".to_string(),
        ServerState::Crashed { exit, gave_up, .. } => {
            let then = if *gave_up {
                "not restarted for now"
            } else {
                "restarts on next use"
            };
            format!("crashed ({exit}); {then}")
        }
        ServerState::Failed { error } => format!("failed: {error}"),
    };
    let mut line = format!("{} ({}): {state}", server.server, server.language);
    if server.restarts > 0 {
        let _ = write!(
            line,
            ", restarted {}",
            count(server.restarts as usize, "time", "times")
        );
    }
    let _ = write!(line, "\n    command: {}", server.command);
    if let Some(root) = &server.root {
        let _ = write!(line, "; root: {root}");
    }
    if let Some(pid) = server.pid {
        let _ = write!(line, "; pid {pid}");
    }
    if let Some(uptime) = server.uptime_secs {
        let _ = write!(line, "; up {}", duration(uptime));
    }
    if let Some(reason) = &server.reason {
        let _ = write!(line, "\n    why: {reason}");
    }
    if let ServerState::Crashed { stderr_tail, .. } = &server.state {
        for stderr in stderr_tail {
            let _ = write!(line, "\n    stderr: {stderr}");
        }
    }
    line
}

fn duration(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m{:02}s", secs / 60, secs % 60),
        _ => format!("{}h{:02}m", secs / 3600, (secs % 3600) / 60),
    }
}

/// `12:03:04.120 warn  rust-analyzer  failed to load build scripts` (UTC).
fn log_line(line: &LogLine) -> String {
    let ms = line.time_ms % 1000;
    let secs = line.time_ms / 1000;
    let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    format!(
        "{h:02}:{m:02}:{s:02}.{ms:03} {:<5} {}  {}",
        line.level.name(),
        line.source,
        line.message
    )
}

/// The doctor's report.
pub fn doctor(report: &DoctorReport) -> String {
    let mut out = format!(
        "sextant {}\nWorkspace: {}\n",
        report.version, report.workspace
    );
    let _ = writeln!(out, "Configuration: {}", report.config_files.join(", "));
    let _ = writeln!(
        out,
        "Tools directory: {} (auto_install {})",
        report.tools_dir,
        if report.auto_install { "on" } else { "off" }
    );
    out.push_str("\nLanguages:\n");
    for language in &report.languages {
        let exts: Vec<String> = language
            .extensions
            .iter()
            .map(|e| format!(".{e}"))
            .collect();
        let _ = write!(out, "  {} ({}): ", language.language, exts.join(" "));
        let several = language.servers.len() > 1;
        match (several, language.servers.first()) {
            (false, Some(only)) => {
                let _ = writeln!(out, "{}", only.command);
            }
            _ => {
                let _ = writeln!(out, "{}", language.chosen);
            }
        }
        if let Some(reason) = &language.reason {
            let _ = writeln!(out, "    why: {reason}");
        }
        let indent = if several { "      " } else { "    " };
        for server in &language.servers {
            if several {
                let _ = writeln!(out, "    {}: {}", server.server, server.command);
            }
            match (&server.found, &server.version) {
                (Some(found), Some(version)) => {
                    let _ = writeln!(out, "{indent}ok: {found} ({version})");
                }
                (Some(found), None) => {
                    let _ = writeln!(out, "{indent}found but not working: {found}");
                }
                (None, _) => {
                    let _ = writeln!(out, "{indent}missing");
                }
            }
            if let Some(hint) = &server.hint {
                let _ = writeln!(out, "{indent}fix: {hint}");
            }
        }
    }
    if !report.grammars.is_empty() {
        let _ = writeln!(
            out,
            "\nTree-sitter grammars: {}",
            report.grammars.join(", ")
        );
    }
    let instance = match &report.instance {
        InstanceCheck::Running(state) => instance_line(state),
        InstanceCheck::NotRunning { log } => format!(
            "none running; `sextant serve` starts one (log: {}), `--no-shared` serves alone",
            log.display()
        ),
        InstanceCheck::Unavailable { why } => format!("unavailable: {why}"),
    };
    let _ = writeln!(out, "\nShared instance: {instance}");
    out.push_str("\nLibrary roots (read-only):\n");
    if report.library_roots.is_empty() {
        out.push_str("  none\n");
    }
    for root in &report.library_roots {
        let _ = writeln!(out, "  {root}");
    }
    out.truncate(out.trim_end().len());
    out
}

/// `pid 412, 3 sessions, up 5m 12s, ends after 300 s with none; log: …`.
pub fn instance_line(state: &InstanceState) -> String {
    let up = state.uptime_secs;
    let uptime = match up {
        0..60 => format!("{up}s"),
        60..3600 => format!("{}m {}s", up / 60, up % 60),
        _ => format!("{}h {}m", up / 3600, up % 3600 / 60),
    };
    let idle = match state.idle_secs {
        Some(idle) => format!("no session for {idle} s, "),
        None => String::new(),
    };
    format!(
        "pid {}, {}, up {uptime}, {idle}ends after {} s with none; log: {}",
        state.pid,
        count(state.sessions, "session", "sessions"),
        state.idle_exit_secs,
        state.log.display()
    )
}
