"""A real text corpus for input-dynamicity tests, built offline: the docstrings of the installed
Python standard library, tokenised by a WordPiece tokenizer trained here with `tokenizers`.

Nothing is cached on disk; results are memoised per process.  Counts depend on the Python
version, so tests compute expectations from the corpus, never hard-code them.
"""
from __future__ import annotations

import ast
import functools
import os
import sysconfig

SKIP_DIRS = {"test", "tests", "idlelib", "site-packages", "dist-packages", "__pycache__", "lib2to3",
             "turtledemo", "tkinter", "ensurepip"}
SQUAD_KEYS = ("input_ids", "token_type_ids", "attention_mask")


def stdlib_sources(limit: int | None = None) -> list[str]:
    """Paths of stdlib .py files, sorted (deterministic), tests and third-party packages excluded."""
    root = sysconfig.get_paths()["stdlib"]
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        found.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py"))
    found.sort()
    return found[:limit] if limit else found


@functools.lru_cache(maxsize=4)
def stdlib_docstrings(limit: int | None = None) -> tuple[str, ...]:
    """Module, class and function docstrings of the stdlib, in file order."""
    docs = []
    for path in stdlib_sources(limit):
        try:
            with open(path, encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue  # a few stdlib files are deliberately broken or not UTF-8
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc and doc.strip():
                    docs.append(doc)
    return tuple(docs)


@functools.lru_cache(maxsize=4)
def trained_tokenizer(vocab_size: int = 3000, limit: int | None = None):
    """A BERT-style WordPiece tokenizer ([CLS] text [SEP]) trained offline on the docstrings."""
    from tokenizers import (
        Tokenizer,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, show_progress=False,
                                        special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
    tok.train_from_iterator(stdlib_docstrings(limit), trainer=trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tok.token_to_id("[CLS]")),
                                                 ("[SEP]", tok.token_to_id("[SEP]"))])
    return tok


@functools.lru_cache(maxsize=4)
def encoded_corpus(max_len: int = 512, limit: int | None = None) -> tuple[dict, ...]:
    """One item per docstring with the SQuAD keys, as lists of ints (unpadded, truncated)."""
    tok = trained_tokenizer(limit=limit)
    tok.enable_truncation(max_len)
    items = []
    for enc in tok.encode_batch(list(stdlib_docstrings(limit))):
        items.append({"input_ids": list(enc.ids), "token_type_ids": list(enc.type_ids),
                      "attention_mask": list(enc.attention_mask)})
    return tuple(items)


def lengths(items) -> list[int]:
    return [len(item["input_ids"]) for item in items]


def pad_to(batch: list[dict], length: int):
    """Pad every key of a batch of items to `length` with 0, as the guides' collates do."""
    import torch

    return {key: torch.tensor([item[key] + [0] * (length - len(item[key])) for item in batch])
            for key in SQUAD_KEYS}


def pad_to_longest(batch: list[dict]):
    """The guides' per-batch padding: every batch as long as its longest item."""
    return pad_to(batch, max(len(item["input_ids"]) for item in batch))


def text_loader(batch_size: int = 7, collate=pad_to_longest, max_len: int = 512, limit: int | None = None,
                **loader_kwargs):
    from torch.utils.data import DataLoader

    return DataLoader(list(encoded_corpus(max_len, limit)), batch_size=batch_size, collate_fn=collate,
                      **loader_kwargs)


def save_items(path, items) -> None:
    """Write encoded items as JSON, so subprocesses reuse one tokenisation (tokenizers' trainer
    breaks ties in hash-map order, which differs between processes)."""
    import json

    with open(path, "w", encoding="utf-8") as handle:
        json.dump(list(items), handle)


def load_items(path) -> list[dict]:
    import json

    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def loader_from_items(path, batch_size: int = 7, collate=pad_to_longest, **loader_kwargs):
    from torch.utils.data import DataLoader

    return DataLoader(load_items(path), batch_size=batch_size, collate_fn=collate, **loader_kwargs)
