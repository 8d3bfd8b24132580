#!/usr/bin/env python3
"""Tries sextant on a real project the way an agent would, over MCP (stdio).

    python3 scripts/trial.py BINARY PROJECT_DIR [--check DIR::COMMAND ...] [QUERY ...]

For each language the project has a file of (by extension), it calls
search (each QUERY, else a name taken from the project), read on the files
the search found, inspect, references, call_hierarchy and a rename preview
on the first symbol found, completion after the first `name.` of that
file, diagnostics of that file, the code actions at the symbol (`fix`),
and an applied edit renaming its declaration by hand and its undoing
(their impact blocks: what the edit broke, what the undoing fixed); then
diagnostics of the whole workspace. It prints one row per call: tool, arguments, milliseconds,
bytes, and the answer's first line.

Every `@line:char Kind - name` an answer shows is checked against the file:
the name's last segment must stand at that position. A position that does
not is printed as a MISMATCH row.

Each `--check DIR::COMMAND` is one of the project's own checks (`tsc -p
tsconfig.json --noEmit`, `cargo check --message-format short`), run in DIR
(relative to PROJECT_DIR). Its errors and warnings (tsc's `file(l,c): error
TS…`, rustc's short `file:l:c: error…`) are compared by file and line with
the workspace diagnostics: the table counts those both report and those
only one side reports, and lists the latter, except those in a file whose
own diagnostics answer says it is in no project (counted as noted).

The exit status is 1 when a position does not hold its name.
"""

import json
import os
import re
import subprocess
import sys
import time

EXTENSIONS = {".ts": "typescript", ".tsx": "typescript", ".js": "typescript", ".mjs": "typescript",
              ".rs": "rust", ".py": "python", ".c": "c", ".cpp": "c", ".cc": "c", ".go": "go"}
SKIP = {".git", "node_modules", "target", "dist", "distribution", "build", ".venv", "__pycache__"}
SYMBOL_LINE = re.compile(r"^\s*@(\d+):(\d+) (\w+) - (.+)$")


class Client:
    def __init__(self, binary, root):
        self.root = root
        self.process = subprocess.Popen(
            [binary, "serve", "--no-shared", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "trial", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("sextant closed its stdout")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                return message

    def call(self, tool, args):
        started = time.monotonic()
        answer = self.request("tools/call", {"name": tool, "arguments": args})
        millis = (time.monotonic() - started) * 1000
        blocks = [c.get("text", "") for c in answer.get("result", {}).get("content", [])]
        return millis, "\n\n".join(blocks)

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def project_files(root):
    by_language = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP and not d.startswith("."))
        for name in sorted(files):
            language = EXTENSIONS.get(os.path.splitext(name)[1])
            if language and not name.endswith(".d.ts"):
                by_language.setdefault(language, []).append(
                    os.path.relpath(os.path.join(folder, name), root))
    return by_language


SHORT_NAME = re.compile(r"^(?:std|typescript|[^/:]+@\d[^:]*):")


def check_positions(root, answer, default_file, read_line=None):
    """The `@line:char Kind - name` lines whose name is not at its position.
    A library file shown by its short name (`zod@4.3.6:index.d.ts`,
    `std:...`) is read through sextant (`read_line(shown, row)`), as an agent
    passes it back."""
    mismatches = []
    current = default_file
    for line in answer.splitlines():
        header = re.match(r"^(\S+\.\w+) \(\d+", line) or re.match(
            r"^(?:Incoming|Outgoing) calls in (\S+)$", line)
        if header:
            current = header.group(1)
            continue
        match = SYMBOL_LINE.match(line)
        if not match or current is None:
            continue
        row, column, kind, name = match.groups()
        # A file's top level, as a caller; an anonymous struct, union or
        # namespace, which stands at its keyword (clangd's place too).
        if name.startswith(("(top level)", "(anonymous ")):
            continue
        name, _, elsewhere = name.partition(" in ")
        # A function a macro wrote, at the macro's invocation: the
        # position holds the macro's name.
        made_by = re.search(r"\(made by (\S+!) here\)", name)
        name = made_by.group(1) if made_by else name.split(" (")[0]
        # `impl Trait for Type<T>` stands at its type's name.
        if name.startswith("impl ") and "/" not in name:
            name = re.sub(r"<.*", "", name.split(" for ")[-1].removeprefix("impl "))
        last = re.split(r"\.|::|/", name.split("/")[-1])[-1].strip()
        shown = elsewhere.split(" (")[0] or current
        if SHORT_NAME.match(shown) and read_line:
            text = read_line(shown, int(row))
            if text is None:
                mismatches.append(f"{shown}:{row}:{column} {name}: not readable by its short name")
                continue
        else:
            path = shown if os.path.isabs(shown) else os.path.join(root, shown)
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read().split("\n")[int(row) - 1]
            except (OSError, IndexError):
                mismatches.append(f"{shown}:{row}:{column} {name}: no such line")
                continue
        at = text[int(column) - 1:]
        if not at.startswith(last):
            mismatches.append(f"{shown}:{row}:{column} {name}: the line has `{at[:30]}`")
    return mismatches


MEMBER_ACCESS = re.compile(r"\b[A-Za-z_$][\w$]*\.(?=[A-Za-z_$])")
# tsc/tsgo: `src/a.ts(3,5): error TS2322: ...`; rustc short: `src/a.rs:3:5: error[E0382]: ...`.
TSC_LINE = re.compile(r"^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+)")
# rustc's short form, gcc's and clang's, and ty's concise one (`error[rule] msg`).
RUSTC_LINE = re.compile(r"^(.+?):(\d+):(\d+): (error|warning)(\[[\w-]+\])?[: ]")
DIAGNOSTIC_FILE = re.compile(r"^(\S.*?) \(\d+ (?:error|warning|info|hint)")
DIAGNOSTIC_ITEM = re.compile(r"^\s+\S @(\d+):(\d+) \[(\w+)\]")


def first_member_access(root, path):
    """The position just after the first `name.` followed by a name."""
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for number, text in enumerate(f, 1):
            stripped = text.lstrip()
            if stripped.startswith(("//", "*", "/*", "#", "import", "use ", "from ")):
                continue
            for match in MEMBER_ACCESS.finditer(text):
                # Not in a string.
                if text[:match.start()].count('"') % 2 == 0:
                    return {"file": path, "line": number, "character": len(text[:match.end()]) + 1}
    return None


def own_check(root, spec):
    """The errors and warnings a project's own check reports, as
    {(path, line, severity)}, paths relative to the root."""
    folder, _, command = spec.partition("::")
    cwd = os.path.join(root, folder)
    run = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True)
    found = set()
    for line in (run.stdout + run.stderr).splitlines():
        match = TSC_LINE.match(line) or RUSTC_LINE.match(line)
        if not match:
            continue
        path, row, severity = match.group(1), int(match.group(2)), match.group(4)
        absolute = os.path.normpath(os.path.join(cwd, path))
        if not os.path.exists(absolute):
            absolute = os.path.normpath(os.path.join(root, path))
        found.add((os.path.relpath(absolute, root), row, severity))
    return found


def reported(answer):
    """The errors and warnings of a diagnostics answer, as own_check's."""
    found, current = set(), None
    for line in answer.splitlines():
        header = DIAGNOSTIC_FILE.match(line)
        if header:
            current = header.group(1)
            continue
        item = DIAGNOSTIC_ITEM.match(line)
        if item and current and item.group(3).lower() in ("error", "warning"):
            found.add((current, int(item.group(1)), item.group(3).lower()))
    return found


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    binary, root = args[0], os.path.abspath(args[1])
    checks, queries, rest = [], [], args[2:]
    while rest:
        word = rest.pop(0)
        if word == "--check" and rest:
            checks.append(rest.pop(0))
        else:
            queries.append(word)
    client = Client(binary, root)
    rows, failures = [], 0

    def read_line(shown, row):
        """Line `row` of a file named as sextant shows it, read through it."""
        _, text = client.call("read_file", {"path": shown, "offset": row, "limit": 1})
        first = text.splitlines()[0] if text else ""
        number, tab, line = first.partition("\t")
        return line if tab and number.strip() == str(row) else None

    def call(tool, args, file=None):
        nonlocal failures
        millis, answer = client.call(tool, args)
        first = answer.splitlines()[0] if answer else ""
        rows.append((tool, json.dumps(args)[:60], f"{millis:.0f}", str(len(answer)), first[:90]))
        for mismatch in check_positions(root, answer, file, read_line):
            failures += 1
            rows.append(("MISMATCH", tool, "", "", mismatch[:120]))
        return answer

    def write_and_undo(path, row, name):
        """The declaration's name changed by hand (an edit an agent makes,
        breaking its uses), then back: each answer's impact block in the
        table (its first line, and the files it names)."""
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        line = text.splitlines()[row - 1] if row <= len(text.splitlines()) else ""
        if not name or name not in line or text.count(line) != 1:
            return
        broken = line.replace(name, name + "Broken", 1)
        for old, new in ((line, broken), (broken, line)):
            answer = call("edit", {"path": path, "old_string": old, "new_string": new, "apply": True})
            block = answer.split("\n\n")[-1] if "Impact:" in answer else "(no impact block)"
            lines = block.splitlines()
            files = [l for l in lines[1:] if not l.startswith(("  ", "Fixed:", "Note:"))]
            rows.append(("impact", "", "", "", (lines[0] + (" in " + ", ".join(files[:3]) if files else ""))[:110]))

    for language, files in project_files(root).items():
        outline = call("read", {"file": files[0], "preview": "none"}, files[0])
        names = [m.group(4) for m in map(SYMBOL_LINE.match, outline.splitlines()) if m]
        asked = queries or [re.split(r"\.|::|/", n)[-1] for n in names[:1]]
        for query in asked:
            found = call("search", {"query": query, "limit": 10})
            # The declaration named exactly so, else the first match.
            hit, path, current = None, None, None
            for line in found.splitlines():
                header = re.match(r"^(\S+\.\w+) \(\d+", line)
                if header:
                    current = header.group(1)
                match = SYMBOL_LINE.match(line)
                if match and current:
                    exact = re.split(r"\.|::|/", match.group(4))[-1] == query
                    if hit is None or exact:
                        hit, path = line, current
                    if exact:
                        break
            if hit and path:
                row, column, _, name = SYMBOL_LINE.match(hit).groups()
                at = {"file": path, "line": int(row), "character": int(column)}
                call("read", {"file": path}, path)
                call("inspect", at, path)
                call("references", {**at, "limit": 20})
                call("call_hierarchy", at, path)
                last = re.split(r"\.|::|/", name)[-1].split(" ")[0]
                call("rename", {**at, "new_name": last + "Renamed"}, path)
                member = first_member_access(root, path)
                if member:
                    call("completion", {**member, "limit": 10}, path)
                call("diagnostics", {"file": path}, path)
                call("fix", at, path)
                write_and_undo(path, int(row), last)
    workspace = call("diagnostics", {})
    theirs = set().union(*(own_check(root, spec) for spec in checks)) if checks else set()
    # A file whose findings only sextant has: does its answer say why (a
    # file outside every project, checked with the server's defaults)?
    outside = set()
    for path in sorted({d[0] for d in reported(workspace) - theirs} if checks else ()):
        answer = call("diagnostics", {"file": path})
        if " is in no project " in answer or " is in none of " in answer:
            outside.add(path)
    call("logs", {"tail": 5})
    client.close()

    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)))
    print(f"\n{len(rows) - failures} calls, {failures} positions that do not hold their name")

    if checks:
        ours = reported(workspace)
        print("\nWorkspace diagnostics against the project's own check")
        print("(noted: sextant only, in a file its answer says is in no project)")
        print("severity  both  sextant only  of them noted  check only")
        for severity in ("error", "warning"):
            a = {d for d in ours if d[2] == severity}
            b = {d for d in theirs if d[2] == severity}
            noted = {d for d in a - b if d[0] in outside}
            print(f"{severity:8}  {len(a & b):4}  {len(a - b):12}  {len(noted):13}  {len(b - a):10}")
        for label, only in (("sextant only", ours - theirs), ("check only", theirs - ours)):
            for path, row, severity in sorted(only):
                if path not in outside:
                    print(f"  {label}: {path}:{row} {severity}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
