"""Property-based run of schemathesis against the OpenAPI schema: no 5xx, answers that
match the documented schemas and status codes. Bounded: a few examples per operation,
small search caps."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import Case
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from advisor_api.app import create_app
from tests.test_api_helpers import small_settings

_TMP = Path(tempfile.mkdtemp(prefix="mombasa-schema-"))
APP = create_app(settings=small_settings(
    _TMP, max_time=0.5, default_time=0.1, max_iterations=300, max_bot_time=0.1,
    max_bot_iterations=50, grace=2.0, max_queue=8))
# The document from the app itself (no request at import: the service, with its search
# processes, starts with the first generated request and stops after the run).
schema = schemathesis.openapi.from_dict(APP.openapi())
schema.app = APP

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


@schema.parametrize()
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_api_conforms_and_never_fails(case: Case) -> None:
    case.call_and_validate(checks=CHECKS)


def test_every_operation_is_covered() -> None:
    """Nothing is left out of the run above."""
    ops = set()
    for result in schema.get_all_operations():
        op = result.ok()  # type: ignore[union-attr]  # an Err here fails the test
        ops.add((op.method.upper(), op.path))
    assert ops == {
        ("GET", "/v1/health"), ("POST", "/v1/analyse"), ("POST", "/v1/analyse/stream"),
        ("POST", "/v1/games"), ("GET", "/v1/games/{game_id}"),
        ("POST", "/v1/games/{game_id}/steps"), ("POST", "/v1/games/{game_id}/moves"),
        ("POST", "/v1/games/{game_id}/chance"), ("POST", "/v1/games/{game_id}/undo"),
        ("GET", "/v1/games/{game_id}/analysis"), ("GET", "/v1/games/{game_id}/score"),
        ("GET", "/v1/games/{game_id}/catalogue"), ("GET", "/v1/games/{game_id}/events"),
        ("DELETE", "/v1/games/{game_id}"), ("POST", "/v1/games/{game_id}/stop"),
        ("POST", "/v1/games/{game_id}/resume"),
        ("POST", "/v1/catalogues/check"), ("POST", "/v1/catalogues"), ("GET", "/v1/catalogues"),
        ("GET", "/v1/catalogues/{name}"), ("DELETE", "/v1/catalogues/{name}"),
        ("GET", "/v1/levels"), ("GET", "/v1/games/{game_id}/record"),
        ("POST", "/v1/games/{game_id}/review"), ("GET", "/v1/games/{game_id}/review"),
        ("GET", "/v1/games/{game_id}/review/{job_id}"),
        ("DELETE", "/v1/games/{game_id}/review/{job_id}"),
        ("GET", "/v1/games/{game_id}/review/{job_id}/events"),
        ("GET", "/v1/games/{game_id}/review/{job_id}/positions/{index}"),
    }
