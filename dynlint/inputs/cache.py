"""A JSON cache of optimal boundaries, keyed by a hash of the histogram and the solve
parameters. Never pickle; never the working directory by default (a user cache directory,
like platformdirs' user_cache_dir). Writes are atomic (temp file + os.replace), so a crashed
or concurrent run leaves either the old file or the new one."""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

FORMAT = 1


def default_dir() -> Path:
    if os.environ.get("DYNLINT_CACHE_DIR"):
        return Path(os.environ["DYNLINT_CACHE_DIR"]) / "buckets"
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "dynlint" / "Cache" / "buckets"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "dynlint" / "buckets"
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "dynlint" / "buckets"


class BucketCache:
    def __init__(self, directory=None):
        self.dir = Path(directory) if directory is not None else default_dir()
        self.hits = 0
        self.warnings: list[str] = []

    def _path(self, hist, params) -> Path:
        return self.dir / f"{hist.key(format=FORMAT, **params)}.json"

    def get(self, hist, params):
        path = self._path(hist, params)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            self.warnings.append(f"{path}: ignoring unreadable cache entry ({exc})")
            return None
        result = doc.get("result") if isinstance(doc, dict) else None
        if doc.get("format") != FORMAT or not _valid(result, hist, params.get("k_max")):
            self.warnings.append(f"{path}: ignoring a cache entry in an unexpected shape")
            return None
        self.hits += 1
        return result

    def put(self, hist, params, result) -> None:
        path = self._path(hist, params)
        doc = {"format": FORMAT, "params": params, "histogram": hist.to_dict(), "result": result}
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".tmp-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(doc, fh)
            os.replace(tmp, path)
        except OSError as exc:
            # A read-only or full disk must not fail the run: the result is still printed.
            self.warnings.append(f"{self.dir}: cannot write the bucket cache ({exc})")


def _valid(result, hist, k_max) -> bool:
    """A cached entry is used only when it is a list of boundary lists of the right length,
    each ending at the longest length: a corrupt file falls back to solving."""
    return (isinstance(result, list) and len(result) == k_max
            and all(isinstance(b, list) and b and all(isinstance(x, int) for x in b)
                    and b[-1] == hist.longest and b == sorted(b) for b in result))
