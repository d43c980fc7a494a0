"""Latency of `dynlint server`: diagnostics after an edit of transformers' BERT modeling file.

Through a real LSP client (pygls' LanguageClient, stdio): open the file, then 20 edits, each
timed from didChange sent to publishDiagnostics received. Anchor measured in the same run: a
`python -m dynlint check --no-cache` subprocess on the same file.

    python bench/bench_server.py
"""
from __future__ import annotations

import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

EDITS = 20


async def measure(path: Path) -> tuple[float, list[float], int]:
    client = LanguageClient("bench", "1")
    queue: asyncio.Queue = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params):
        queue.put_nowait((time.perf_counter(), params))

    await client.start_io(sys.executable, "-m", "dynlint", "server", cwd=str(path.parent))
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=path.parent.as_uri()))
    client.initialized(types.InitializedParams())
    text = path.read_text()
    uri = path.as_uri()
    start = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    done, params = await queue.get()
    first = done - start
    times = []
    for i in range(EDITS):
        # an edit inside BertSelfAttention.forward: every other edit adds a boolean-mask read,
        # so the diagnostics change and a stale answer would show
        anchor = "        input_shape = hidden_states.shape[:-1]\n"
        assert anchor in text
        line = f"_m{i} = hidden_states[hidden_states > 0]" if i % 2 == 0 else f"_n{i} = {i}"
        edited = text.replace(anchor, anchor + f"        {line}\n", 1)
        start = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=i + 2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)]))
        done, params = await queue.get()
        times.append(done - start)
        flagged = any(d.range.start.line == text[:text.index(anchor)].count("\n") + 1
                      for d in params.diagnostics)
        assert flagged == (i % 2 == 0), (i, params.diagnostics)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return first, times, len(params.diagnostics)


def main() -> None:
    import transformers.models.bert.modeling_bert as bert
    src = Path(bert.__file__)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "modeling_bert.py"
        shutil.copy(src, path)
        lines = len(path.read_text().splitlines())
        first, times, ndiag = asyncio.run(measure(path))
        anchors = []
        for _ in range(5):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "dynlint", "check", "--no-cache", str(path)],
                           capture_output=True, cwd=tmp)
            anchors.append(time.perf_counter() - t)
    print(f"file: transformers {bert.__name__} ({lines} lines), {ndiag} diagnostics")
    print(f"server: first diagnostics after didOpen {first * 1000:.0f} ms (workspace facts included)")
    print(f"server: diagnostics after an edit, median of {EDITS}: {statistics.median(times) * 1000:.1f} ms "
          f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})")
    print(f"anchor: `python -m dynlint check --no-cache` subprocess, median of 5: "
          f"{statistics.median(anchors) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
