"""Latency of `dynlint server`: diagnostics after an edit of a big model file, in a project.

The workspace is a copy of the installed transformers package's core (its top-level modules,
`utils/`, `integrations/` and the model directories measured), so the server keeps that
project's cross-file facts warm. Through a real LSP client (pygls' LanguageClient, stdio):
open the model file, then EDITS edits sent as editors send them (incremental changes of one
line inside a `forward`), each timed from didChange sent to publishDiagnostics received.
Every other edit adds a boolean-mask read, so a stale answer would show. At the end the
server's diagnostics are compared with `dynlint check` on the same text.

Anchors measured in the same run: a `python -m dynlint check --no-cache` subprocess on the
same file, and the in-process analysis of the file alone (what an edit cannot go below without
caching inside the analysis).

    python bench/bench_server.py [--whole] [MODULE ...]   # default: BERT, and Longformer

With `--whole` the workspace is a copy of the whole installed transformers package (every
model: the project the cross-file summaries are walked in), not its core.
"""
from __future__ import annotations

import ast
import asyncio
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

EDITS = 40
DEFAULT = ("transformers.models.bert.modeling_bert",
           "transformers.models.longformer.modeling_longformer")


def edit_point(text: str) -> tuple[int, str, str]:
    """(0-based line, indentation, tensor name): before the last statement of the first
    `forward` whose first argument after self is a tensor by its name."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and node.name == "forward" and len(node.args.args) > 1:
            name = node.args.args[1].arg
            last = node.body[-1]
            return last.lineno - 1, " " * last.col_offset, name
    raise SystemExit("no forward method to edit")


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


async def measure(root: Path, path: Path):
    client = LanguageClient("bench", "1")
    queue: asyncio.Queue = asyncio.Queue()

    loaded: asyncio.Queue = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params):
        queue.put_nowait((time.perf_counter(), params))

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def on_log(params):
        if "cross-file facts" in params.message:
            loaded.put_nowait(time.perf_counter())

    await client.start_io(sys.executable, "-m", "dynlint", "server", cwd=str(root))
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")]))
    client.initialized(types.InitializedParams())
    text = path.read_text()
    uri = path.as_uri()

    async def diagnostics_for(version):
        while True:
            done, params = await queue.get()
            if params.uri == uri and params.version == version:
                return done, params

    start = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    done, params = await diagnostics_for(1)
    first = done - start
    warm = await asyncio.wait_for(loaded.get(), 1200) - start      # the workspace's facts
    line, indent, name = edit_point(text)
    lines = text.splitlines(keepends=True)
    inserted = False
    times = []
    for i in range(EDITS):
        new = (f"{indent}_m{i} = {name}[{name} > 0]\n" if i % 2 == 0 else f"{indent}_n{i} = {i}\n")
        end = types.Position(line=line + 1 if inserted else line, character=0)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=line, character=0), end=end), text=new)
        if inserted:
            lines[line] = new
        else:
            lines.insert(line, new)
        inserted = True
        start = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=i + 2),
            content_changes=[change]))
        done, params = await diagnostics_for(i + 2)
        times.append(done - start)
        flagged = any(d.range.start.line == line for d in params.diagnostics)
        assert flagged == (i % 2 == 0), (i, params.diagnostics)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    final = [(d.code, d.range.start.line + 1, d.range.start.character + 1)
             for d in params.diagnostics]
    return first, warm, times, "".join(lines), final


def project(tmp: Path, name: str, whole: bool = False) -> Path:
    """A copy of transformers' core (or `whole` package) plus the measured model's directory;
    the model file's path."""
    pkg = Path(importlib.util.find_spec("transformers").origin).parent
    dest = tmp / "transformers"
    if whole and not dest.exists():
        shutil.copytree(pkg, dest, ignore=shutil.ignore_patterns("*.pyc", "__pycache__"))
    if not dest.exists():
        dest.mkdir()
        for f in pkg.glob("*.py"):
            shutil.copy(f, dest / f.name)
        for sub in ("utils", "integrations"):
            shutil.copytree(pkg / sub, dest / sub, ignore=shutil.ignore_patterns("*.pyc", "__pycache__"))
        (dest / "models").mkdir()
        shutil.copy(pkg / "models" / "__init__.py", dest / "models" / "__init__.py")
    src = Path(importlib.util.find_spec(name).origin)      # found, not imported
    target = dest / "models" / src.parent.name
    if not target.exists():
        shutil.copytree(src.parent, target, ignore=shutil.ignore_patterns("*.pyc", "__pycache__"))
    return target / src.name


def anchors(path: Path, text: str, tmp: Path):
    """(median check subprocess seconds, median in-process analysis seconds, check's findings)."""
    path.write_text(text)
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "dynlint", "check", "--no-cache",
                               "--output-format", "json", str(path)],
                              capture_output=True, text=True, cwd=tmp)
        runs.append(time.perf_counter() - t)
    # The server reports what checking the whole workspace reports for the file.
    proc = subprocess.run([sys.executable, "-m", "dynlint", "check", "--no-cache",
                           "--output-format", "json", "."], capture_output=True, text=True, cwd=tmp)
    found = [(f["code"], f["line"], f["column"]) for f in json.loads(proc.stdout)
             if os.path.abspath(os.path.join(tmp, f["path"])) == str(path)]
    from dynlint.api import build_engine
    from dynlint.check.runner import analyse_source, module_name
    engine = build_engine()
    inproc = []
    for _ in range(10):
        t = time.perf_counter()
        analyse_source(engine, text, str(path), module_name(str(path)))
        inproc.append(time.perf_counter() - t)
    return statistics.median(runs), statistics.median(inproc), found


def main(names, whole=False) -> None:
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for name in names:
            path = project(tmp, name, whole)
            n_files = sum(1 for _ in (tmp / "transformers").rglob("*.py"))
            lines = len(path.read_text().splitlines())
            first, warm, times, final_text, final = asyncio.run(measure(tmp, path))
            check_s, inproc_s, check_found = anchors(path, final_text, tmp)
            same = sorted(final) == sorted(check_found)
            print(f"{name} ({lines} lines) in a {n_files}-file workspace: "
                  f"{len(final)} diagnostics, identical to `dynlint check`: {same}")
            print(f"  after didOpen: first diagnostics {first * 1000:.0f} ms, the workspace's "
                  f"cross-file facts loaded {warm * 1000:.0f} ms")
            print(f"  after an edit ({EDITS} edits): median {statistics.median(times) * 1000:.1f} ms, "
                  f"p90 {percentile(times, 0.9) * 1000:.1f} ms, min {min(times) * 1000:.1f}, "
                  f"max {max(times) * 1000:.1f}")
            print(f"  anchors: `dynlint check --no-cache` subprocess {check_s * 1000:.0f} ms; "
                  f"in-process analysis of the file {inproc_s * 1000:.1f} ms (medians)")
            if not same:
                sys.exit(f"server {final} != check {check_found}")


if __name__ == "__main__":
    args = sys.argv[1:]
    whole = "--whole" in args
    args = [a for a in args if a != "--whole"]
    main(args or DEFAULT, whole)
