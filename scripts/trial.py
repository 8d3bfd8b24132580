#!/usr/bin/env python3
"""Tries sextant on a real project the way an agent would, over MCP (stdio).

    python3 scripts/trial.py BINARY PROJECT_DIR [QUERY ...]

For each language the project has a file of (by extension), it calls
search (each QUERY, else a name taken from the project), read on the files
the search found, inspect, references and call_hierarchy on the first
symbol, and diagnostics of the whole workspace, and prints one row per
call: tool, arguments, milliseconds, bytes, and the answer's first line.

Every `@line:char Kind - name` an answer shows is checked against the file:
the name's last segment must stand at that position. A position that does
not is printed as a MISMATCH row, and the exit status is 1.
"""

import json
import os
import re
import subprocess
import sys
import time

EXTENSIONS = {".ts": "typescript", ".tsx": "typescript", ".js": "typescript", ".mjs": "typescript",
              ".rs": "rust"}
SKIP = {".git", "node_modules", "target", "dist", "distribution", "build"}
SYMBOL_LINE = re.compile(r"^\s*@(\d+):(\d+) (\w+) - (.+)$")


class Client:
    def __init__(self, binary, root):
        self.root = root
        self.process = subprocess.Popen(
            [binary, "serve", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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


def check_positions(root, answer, default_file):
    """The `@line:char Kind - name` lines whose name is not at its position."""
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
        # A file's top level, as a caller.
        if name.startswith("(top level)"):
            continue
        name, _, elsewhere = name.partition(" in ")
        name = name.split(" (")[0]
        last = re.split(r"\.|::|/", name)[-1].strip()
        shown = elsewhere.split(" (")[0] or current
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


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    binary, root = sys.argv[1], os.path.abspath(sys.argv[2])
    queries = sys.argv[3:]
    client = Client(binary, root)
    rows, failures = [], 0

    def call(tool, args, file=None):
        nonlocal failures
        millis, answer = client.call(tool, args)
        first = answer.splitlines()[0] if answer else ""
        rows.append((tool, json.dumps(args)[:60], f"{millis:.0f}", str(len(answer)), first[:90]))
        for mismatch in check_positions(root, answer, file):
            failures += 1
            rows.append(("MISMATCH", tool, "", "", mismatch[:120]))
        return answer

    for language, files in project_files(root).items():
        outline = call("read", {"file": files[0], "preview": "none"}, files[0])
        names = [m.group(4) for m in map(SYMBOL_LINE.match, outline.splitlines()) if m]
        asked = queries or [re.split(r"\.|::|/", n)[-1] for n in names[:1]]
        for query in asked:
            found = call("search", {"query": query, "limit": 10})
            hit = next((line for line in found.splitlines() if SYMBOL_LINE.match(line)), None)
            path = next((line.split(" (")[0] for line in found.split("\n\n")[1:2]), None)
            if hit and path:
                row, column = SYMBOL_LINE.match(hit).groups()[:2]
                at = {"file": path, "line": int(row), "character": int(column)}
                call("read", {"file": path}, path)
                call("inspect", at, path)
                call("references", {**at, "limit": 20})
                call("call_hierarchy", at, path)
    call("diagnostics", {"severity": "error"})
    call("logs", {"tail": 5})
    client.close()

    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) if i < 4 else cell for i, cell in enumerate(row)))
    print(f"\n{len(rows) - failures} calls, {failures} positions that do not hold their name")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
