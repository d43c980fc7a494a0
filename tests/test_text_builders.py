"""Text output built up in a list (session 31, hand-read set f's token pretty-printer): a
function declared `-> List[str]` that starts a list empty and only appends text to it (a `str`
method of a parameter declared `str`, a concatenation with a constant, a conditional of two
strings, a call of a function of the module that itself returns text it builds) turns what it
reads into words for a person: soft cold like a statistic (`reporting.returns_text`), through
the real CLI. A decoding loop declared `-> List[str]` that appends `tokenizer.decode(ids)`
stays reported, and so does a list that also receives something that is no text.
"""
import json

# captum 0.9.0 (BSD-3) `attr/_core/llm_attr.py`: `_clean_up_pretty_token`,
# `_convert_ids_to_pretty_tokens` and its fallback, excerpted; a decoding loop beside them.
SOURCE = '''\
import warnings
from typing import List

import torch
from torch import Tensor


def _clean_up_pretty_token(token: str) -> str:
    return token.replace("\\\\n", "\\\\\\\\n").strip()


def _pretty_fallback(ids: Tensor, tokenizer) -> List[str]:
    pretty_tokens = []
    idx = 0
    while idx < len(ids):
        decoded = tokenizer.decode(ids[idx])
        decoded_pretty = _clean_up_pretty_token(decoded)
        if decoded.strip() == "?" and tokenizer.encode(decoded) != [ids[idx]]:
            pretty_tokens.append(decoded_pretty)
            pretty_tokens.append(decoded_pretty + " [OVERLAP]")
            idx += 2
        else:
            idx += 1
            pretty_tokens.append(decoded_pretty)
    return pretty_tokens


def _pretty(ids: Tensor, tokenizer) -> List[str]:
    txt = tokenizer.decode(ids)
    pretty_tokens = []
    idx = 0
    for i, (start, end) in enumerate(tokenizer.offsets(txt)):
        if tokenizer.encode(txt)[i] != ids[idx]:
            continue
        pretty_tokens.append(_clean_up_pretty_token(txt[start:end]) + (" [OVERLAP]" if i else ""))
        idx += 1
    if len(pretty_tokens) != len(ids):
        return _pretty_fallback(ids, tokenizer)
    return pretty_tokens


def _decode(model, ids: Tensor, tokenizer) -> List[str]:
    texts = []
    while ids[-1] != 0:
        ids = torch.cat([ids, model(ids).argmax(-1)[-1:]])
        texts.append(tokenizer.decode(ids))
    return texts


def _tagged(ids: Tensor, tokenizer) -> List[str]:
    out = []
    for i in range(len(ids)):
        if ids[i] != 0:
            out.append(tokenizer.decode(ids[i]))
        out.append("<sep>")
    return out
'''


def _line(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_text_built_up_in_a_list(dynlint, write):
    path = write("llm_attr.py", SOURCE)
    proc = dynlint("check", "--format", "json", "--no-cache", "--exit-zero", path)
    assert proc.returncode == 0, proc.stderr
    found = {(f["line"], f["code"]) for f in json.loads(proc.stdout)}
    lines = {line for line, _ in found}
    # the pretty-printers: text they build, whatever they compare on the way
    assert _line(SOURCE, "tokenizer.encode(decoded) != [ids[idx]]") not in lines, found
    assert _line(SOURCE, "tokenizer.encode(txt)[i] != ids[idx]") not in lines, found
    # a decoding loop appending `tokenizer.decode(...)`, a list given something else: stay
    assert (_line(SOURCE, "while ids[-1] != 0:"), "DYN204") in found, found
    assert (_line(SOURCE, "if ids[i] != 0:"), "DYN204") in found, found


def test_explain_says_text(dynlint, write):
    path = write("llm_attr.py", SOURCE)
    proc = dynlint("check", "--no-cache", "--exit-zero", path, "--explain",
                   f"{path}:{_line(SOURCE, 'tokenizer.encode(decoded) != [ids[idx]]')}")
    assert "returns text" in proc.stdout or "declared to return text" in proc.stdout, proc.stdout
