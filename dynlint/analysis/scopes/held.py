"""What a class's attributes hold: instances of which classes, read from its methods' text.

`self.matcher = Matcher(...)` holds a `Matcher` (exactly: calling `self.matcher(...)` runs
`Matcher.__call__`). `self.bm = bm` where the method's parameter is declared `bm: BaseBrownian`
(or `Optional[BaseBrownian]`, `BaseBrownian | None`) holds some instance of that class or of any
of its subclasses: calling `self.bm(t0, t1)` may run the `__call__` of each (dynamic dispatch).
The cross-file step reads both from `class_facts`, so a subclass in another file calling what a
base stores is followed too (torchsde's solvers call `self.bm(t0, t1)`; their base stores it).
"""
from __future__ import annotations

import ast
import re

from .naming import HELD_INSTANCE, METHOD_ALIAS

# `self.bm = bm` (a bare name, the whole value).
HELD_NAME = re.compile(r"self\.(\w+)\s*(?::[^=\n]*)?=\s*([A-Za-z_]\w*)\s*(?:#.*)?$", re.M)
# `self.x =` / `self.x: T =`: how every store the patterns above read begins.
_STORE = re.compile(r"self\.\w+\s*(?::[^=\n]*)?=(?!=)")
# Annotation heads that wrap the class without changing what the value is an instance of.
_WRAPPERS = frozenset({"Optional", "Union", "typing.Optional", "typing.Union"})


def held_attributes(cls, lines: list[str], qualname) -> dict:
    """attribute -> {class name as written (`qualname` resolves its first part through the
    imports): True when any subclass's instance may be held (a declared parameter), False
    for exactly that class (a constructor call); or `.m` for a method of the class stored
    there (`self.step = self.additive_step`)}."""
    out: dict = {}
    declared: dict = {}
    for attr, name, how, node in stores(cls, lines):
        if how is None:
            out.setdefault(attr, {}).setdefault(name, False)
        elif how == ".":
            out.setdefault(attr, {})["." + name] = True
        else:
            params = declared.get(id(node))
            if params is None:
                params = declared[id(node)] = _declared_classes(node.args, qualname)
            for c in params.get(name, ()):
                out.setdefault(attr, {})[c] = True
    return out


def stores(cls, lines: list[str]) -> list:
    """(attribute, name, how, method node) for each store the class's methods make, read once
    per class: how None for `self.x = C(...)`, "." for `self.x = self.m` (a method of the
    class), "=" for `self.x = name` (a parameter, maybe declared a class)."""
    found = cls.held_text
    if found is not None:
        return found
    found = []
    for infos in cls.methods.values():
        for m in infos:
            node = m.node
            text = "\n".join(lines[node.lineno - 1:node.end_lineno])
            # (The three patterns below all start as `_STORE` does: most methods store
            # nothing in `self`, and one search tells so.)
            if "self." not in text or _STORE.search(text) is None:
                continue
            found += [(attr, name, None, node) for attr, name in HELD_INSTANCE.findall(text)]
            found += [(attr, name, "=", node) for attr, name in HELD_NAME.findall(text)
                      if name != "self"]
            # `self.step = self.additive_step`: calling `self.step(...)` on this object runs
            # `additive_step` (an override chosen at construction)
            found += [(attr, name, ".", node) for attr, name in METHOD_ALIAS.findall(text)
                      if name in cls.methods and attr != name]
    cls.held_text = found
    return found


def _declared_classes(args: ast.arguments, qualname) -> dict:
    """parameter -> the class names its annotation declares (a name or a dotted name, through
    Optional/Union/`|`); none for a string annotation or a subscripted generic (`List[X]`)."""
    out = {}
    for a in args.posonlyargs + args.args + args.kwonlyargs:
        if a.annotation is not None:
            found = [n for n in (qualname(x) for x in _parts(a.annotation)) if n]
            if found:
                out[a.arg] = found
    return out


def _parts(node) -> list:
    if type(node) is ast.BinOp and type(node.op) is ast.BitOr:
        return _parts(node.left) + _parts(node.right)
    if type(node) is ast.Subscript:
        head = node.value
        name = head.id if type(head) is ast.Name else (
            f"{head.value.id}.{head.attr}" if type(head) is ast.Attribute and
            type(head.value) is ast.Name else None)
        if name in _WRAPPERS:
            inner = node.slice
            items = inner.elts if type(inner) is ast.Tuple else [inner]
            return [p for i in items for p in _parts(i)]
        return []
    if type(node) is ast.Name or type(node) is ast.Attribute:
        return [node]
    return []


def declared_here(cls, lines: list[str], scopes) -> dict:
    """attribute -> the classes of this module whose instances `cls` may hold there from a
    declared parameter (`self.bm = bm`, `bm: BaseBrownian`): the class and its subclasses
    here (dynamic dispatch: calling `self.bm(...)` may run any of their `__call__`)."""
    classes = scopes.classes

    def here(node):
        return node.id if type(node) is ast.Name and node.id in classes else None
    out = {}
    for attr, found in held_attributes(cls, lines, here).items():
        for name, dispatch in found.items():
            if dispatch and name in classes:
                target = classes[name]
                for c in [target, *scopes.subclasses(target)]:
                    if c not in out.setdefault(attr, []):
                        out[attr].append(c)
    return out
