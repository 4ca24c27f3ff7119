"""The service keeps each rule in one place: error bodies from one helper, of one shape.
(Long functions: tests/test_code_shape.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from advisor_api.errors import (
    InvalidInput,
    UnsupportedMediaType,
    error_body,
    error_response,
)

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(p for p in (ROOT / "advisor_api").rglob("*.py") if "static" not in p.parts)
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_error_bodies_come_from_the_errors_module(path: Path) -> None:
    if path.name == "errors.py" or path.name.startswith("cli"):
        return
    source = path.read_text()
    assert re.findall(r"JSONResponse\(|\{\s*\"error\":\s*\"", source) == []


def test_one_body_shape() -> None:
    assert error_body("busy", "retry", None) == {"error": "busy", "message": "retry",
                                                 "field": None}
    exc = InvalidInput("seat: no", field="seat", errors=[{"field": "seat"}])
    assert exc.body() == {"error": "invalid", "message": "seat: no", "field": "seat",
                          "errors": [{"field": "seat"}]}
    r = UnsupportedMediaType("no form", field="content-type").response()
    assert r.status_code == 415 and r.headers["content-type"] == "application/json"
    assert error_response(403, "cross-origin", "no").body == (
        b'{"error":"cross-origin","message":"no","field":null}')
