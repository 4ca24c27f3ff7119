"""The fenced examples of README.md and docs/*.md, as ``tests/test_docs_examples.py``
runs them: parsed into blocks with their test directives, split into commands, and the
helpers that check what they answer.

A directive is an HTML comment (invisible when rendered) on the line just before a fence:

* ``<!-- doc-test: expect 201 200 409 -->``: the HTTP statuses of the block's requests,
  in order (without it every request must answer 2xx);
* ``<!-- doc-test: answer [optional=PATH,...] [loose=PATH,...] -->`` before a ``json``
  or ``text`` block: it shows the answer of the request run last; the real answer must
  have its keys and value types (``optional``: keys that only some answers have;
  ``loose``: values whose keys vary, compared by type only; ``a[].b`` is the key ``b`` of
  every item of the list ``a``); a ``text`` answer is a stream whose events and comment
  lines must come in that order;
* ``<!-- doc-test: synopsis -->`` before an ``sh`` block: each line is a synopsis (see
  ``tests/test_docs_examples.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FENCE = re.compile(r"^```(\S*)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->$")
COMMAND_LANGS = frozenset({"sh", "console", "python"})
DATA_LANGS = frozenset({"json", "jsonc", "text"})
DIRECTIVES = frozenset({"expect", "answer", "synopsis"})


@dataclass
class Block:
    """One fenced block: its file, the line of its opening fence, language, text and
    directives (name -> arguments)."""

    path: str
    line: int
    lang: str
    text: str
    directives: dict[str, list[str]] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def option(self, directive: str, key: str) -> frozenset[str]:
        """The comma-separated values of ``key=...`` in a directive's arguments."""
        for arg in self.directives.get(directive, []):
            if arg.startswith(key + "="):
                return frozenset(v for v in arg[len(key) + 1:].split(",") if v)
        return frozenset()


def blocks(path: Path, root: Path) -> list[Block]:
    """Every fenced block of a markdown file, in order; a directive that is unknown or
    not right above a fence raises ``ValueError``."""
    out: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    rel = path.relative_to(root).as_posix()
    pending: dict[str, list[str]] = {}
    i = 0
    while i < len(lines):
        text = lines[i].strip()
        d = DIRECTIVE.match(text)
        if d:
            name, *args = d.group(1).split()
            if name not in DIRECTIVES:
                raise ValueError(f"{rel}:{i + 1}: unknown doc-test directive {name!r}")
            pending[name] = args
            i += 1
            continue
        m = FENCE.match(text)
        if m:
            start, body = i, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            out.append(Block(rel, start + 1, m.group(1), "\n".join(body), pending))
        elif pending:
            raise ValueError(f"{rel}:{i + 1}: a doc-test directive must be on the line "
                             "right above a fence")
        pending = {}
        i += 1
    return out


def strip_comment(line: str) -> str:
    """A shell line without its trailing ``# comment`` (a ``#`` outside quotes, after a
    blank or at the start)."""
    quote = ""
    for k, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (k == 0 or line[k - 1] in " \t"):
            return line[:k].rstrip()
    return line.rstrip()


def comment(line: str) -> str:
    """The trailing comment of a shell line ("" if none)."""
    return line[len(strip_comment(line)):].strip().lstrip("#").strip()


def commands(text: str) -> list[str]:
    """The logical commands of a shell block (continuation lines joined, comments, blank
    and comment-only lines dropped)."""
    out: list[str] = []
    cur: list[str] = []
    for raw in text.splitlines():
        line = strip_comment(raw)
        if line.endswith("\\"):
            cur.append(line[:-1].rstrip())
            continue
        cur.append(line)
        joined = " ".join(p.strip() for p in cur if p.strip())
        if joined:
            out.append(joined)
        cur = []
    return out


def console_session(text: str) -> list[tuple[str, str, list[str]]]:
    """A ``console`` transcript as (command, its comment, the output lines shown)."""
    out: list[tuple[str, str, list[str]]] = []
    for raw in text.splitlines():
        if raw.startswith("$ "):
            out.append((strip_comment(raw[2:]), comment(raw[2:]), []))
        elif out:
            out[-1][2].append(raw)
        elif raw.strip():
            raise ValueError(f"output before the first command: {raw!r}")
    return out


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def shape_errors(doc: Any, real: Any, optional: frozenset[str] = frozenset(),
                 loose: frozenset[str] = frozenset(), path: str = "") -> list[str]:
    """Where ``real`` differs from the documented ``doc``: a key missing, or a value of
    another JSON type. ``null`` and ``"..."`` in the docs stand for any value; a list's
    first documented item is the shape of every real item."""
    where = path or "$"
    if doc is None or doc == "...":
        return []
    if path in loose or not isinstance(doc, dict | list):
        return [] if _kind(doc) == _kind(real) else [
            f"{where}: the docs show {_kind(doc)}, the answer has {_kind(real)}"]
    if isinstance(doc, dict):
        if not isinstance(real, dict):
            return [f"{where}: the docs show an object, the answer has {_kind(real)}"]
        errors: list[str] = []
        for key, value in doc.items():
            sub = f"{path}.{key}" if path else key
            if key == "...":
                continue
            if key not in real:
                if sub not in optional:
                    errors.append(f"{sub}: missing from the answer")
                continue
            errors += shape_errors(value, real[key], optional, loose, sub)
        return errors
    if not isinstance(real, list):
        return [f"{where}: the docs show an array, the answer has {_kind(real)}"]
    items = [x for x in doc if x != "..."]
    if not items:
        return []
    if not real:
        return [f"{where}: empty, the docs show items"]
    errors = []
    for item in real:
        errors += [e for e in shape_errors(items[0], item, optional, loose, path + "[]")
                   if e not in errors]
    return errors


def stream_errors(doc: str, real: str) -> list[str]:
    """A documented event stream against a real one: its ``event:`` and comment lines
    must come in that order (data lines are shown abridged)."""
    wanted = [ln.strip() for ln in doc.splitlines()
              if ln.startswith("event:") or ln.startswith(":")]
    got = [ln.strip() for ln in real.splitlines()]
    k = 0
    for line in got:
        if k < len(wanted) and line == wanted[k]:
            k += 1
    return [] if k == len(wanted) else [
        f"the stream lacks {wanted[k]!r} (in the documented order)"]


def parse_answer(block: Block) -> Any:
    """A documented JSON answer."""
    return json.loads(block.text)


PLACEHOLDER = re.compile(r"^(?:[A-Z]|FILE|PATH|NAME|SECTION|ADDRESS|[A-Z]+\.\w+)$")


def drop_optional(synopsis: str) -> str:
    """A synopsis without its ``[...]`` groups (nested ones included)."""
    out, depth = [], 0
    for ch in synopsis:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return " ".join("".join(out).split())


def runnable(core: str) -> bool:
    """Whether a synopsis without its optional parts is a command to run: no
    alternatives (``a | b``) and no placeholder (``FILE``, ``N``, ``STATE.json``...)."""
    return "|" not in core.split() and not any(PLACEHOLDER.match(w) for w in core.split())


def options(synopsis: str) -> list[str]:
    """Every ``--option`` a synopsis shows."""
    return re.findall(r"(?<![\w-])--[a-z][\w-]*", synopsis)
