"""The catalogue's header (schema, reconstruction flag, note) and its four companies,
checked and read in one walk (messages as in ``engine/catalogue/checks.py``)."""

from __future__ import annotations

from typing import Any

from engine.catalogue.checks import (
    COMPANIES,
    SCHEMA,
    as_dict,
    bool_field,
    exact_field,
    fail,
    join,
    list_field,
    str_field,
)
from engine.catalogue.model import Company


def read_header(root: dict[str, Any]) -> bool:
    """Checks the header; returns the ``reconstruction`` flag."""
    exact_field(root, "schema", "", SCHEMA)
    reconstruction = bool_field(root, "reconstruction", "")
    if "note" in root and not isinstance(root["note"], str):
        fail("note", "expected a string")
    return reconstruction


def read_companies(root: dict[str, Any]) -> tuple[Company, ...]:
    """The four companies, in their fixed order (MOM, CAP, STL, CAI)."""
    entries = list_field(root, "companies", "", len(COMPANIES), "companies")
    out: list[Company] = []
    for i, (entry, (cid, colour, edge)) in enumerate(zip(entries, COMPANIES, strict=True)):
        path = join("companies", i)
        obj = as_dict(entry, path)
        out.append(Company(
            index=i,
            id=exact_field(obj, "id", path, cid),
            name=str_field(obj, "name", path),
            colour=exact_field(obj, "colour", path, colour),
            edge=exact_field(obj, "edge", path, edge),
        ))
    return tuple(out)
