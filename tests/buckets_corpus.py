"""A real text corpus without downloads: the docstrings of the installed Python standard
library (collected with `ast`), tokenised by a BPE tokenizer trained here, offline, with the
`tokenizers` package. Lengths vary the way natural text does (heavy tail), and they are
computed, never hard-coded, since the stdlib differs between Python versions."""
from __future__ import annotations

import ast
import functools
import sysconfig
from pathlib import Path

MAX_TOKENS = 512


def stdlib_docstrings(full: bool = False) -> list[str]:
    """Docstrings of stdlib modules, classes and functions. `full` walks packages too
    (slower); the default reads the top-level modules only, enough for tests."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(root.rglob("*.py") if full else root.glob("*.py"))
    docs = []
    for path in files:
        if "test" in path.relative_to(root).parts[:1] or "site-packages" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc and doc.strip():
                    docs.append(doc)
    return docs


@functools.lru_cache(maxsize=2)
def tokenized(full: bool = False) -> tuple[tuple[int, ...], ...]:
    """Token ids of every docstring (truncated to MAX_TOKENS), from a BPE tokenizer trained
    on the same docstrings."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    docs = stdlib_docstrings(full)
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=2000, special_tokens=["[PAD]", "[UNK]"],
                                  show_progress=False)
    tok.train_from_iterator(docs, trainer=trainer)
    return tuple(tuple(e.ids[:MAX_TOKENS]) for e in tok.encode_batch(docs) if e.ids)


def lengths(full: bool = False) -> list[int]:
    return [len(ids) for ids in tokenized(full)]


class DocstringDataset:
    """A map-style dataset of HF-style items: input_ids, token_type_ids, attention_mask."""

    def __init__(self, full: bool = False):
        self.rows = tokenized(full)

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids = list(self.rows[i])
        return {"input_ids": ids, "token_type_ids": [0] * len(ids), "attention_mask": [1] * len(ids)}
