"""`dynlint server` without importing pygls until it is needed (it is an optional extra)."""
from __future__ import annotations

import sys


def main(argv) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print("usage: dynlint server\n\nSpeak the Language Server Protocol over stdio "
              "(diagnostics, fixes, noqa, hover). See docs/editors.md.")
        return 0
    try:
        from .server import main as serve
    except ImportError as exc:
        if exc.name not in ("pygls", "lsprotocol") and not str(exc.name or "").startswith(("pygls.", "lsprotocol.")):
            raise
        print("dynlint server needs pygls: pip install 'dynlint[server]'", file=sys.stderr)
        return 2
    return serve(argv)
