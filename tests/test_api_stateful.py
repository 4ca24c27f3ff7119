"""Stateful schemathesis run over the games endpoints: sequences of calls where a created
game's id, its seat and its first legal step flow into the next calls (view, steps,
moves, chance, undo, analysis, score, catalogue, delete), with the seat's token as a
client sends it (``tests.test_api_helpers.auth``). Every answer must conform to the
OpenAPI document (status code, content type, body schema) and none may be a 5xx.

The links come from schemathesis's own dependency analysis (the ``id`` of an answer ->
``{game_id}``) and from the explicit OpenAPI links of :data:`LINKS`, added to the test's
copy of the document, which also carry the seat and a legal step into request bodies so
that sequences move games on instead of stopping at 409/422. Only valid requests are
generated (invalid ones are test_api_schema.py's). Bounded: runs of SCENARIOS sequences
of at most STEPS calls until TARGET_CALLS calls or BUDGET seconds (about 30 s)."""

from __future__ import annotations

import copy
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import FlakyStrategyDefinition
from schemathesis import Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from advisor_api.app import create_app
from tests.test_api_helpers import TOKENS, auth, remember, small_settings

_TMP = Path(tempfile.mkdtemp(prefix="mombasa-stateful-"))
# Per-client limits off (one client makes every call), small search caps.
APP = create_app(settings=small_settings(
    _TMP, workers=1, max_time=0.5, default_time=0.1, max_iterations=300, max_bot_time=0.1,
    max_bot_iterations=50, grace=2.0, max_queue=8, client_games_per_minute=0,
    client_ai_games=0, client_analyses=0))

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]

SCENARIOS = 30  # hypothesis examples (call sequences) per run
STEPS = 20  # at most this many calls per sequence
TARGET_CALLS = 900  # runs until this many calls...
BUDGET = 30.0  # ...or this many seconds

BOTS = ["random", "mcts:iterations=20"]
DEFAULT_CATALOGUE = "default (reconstruction)"
GAME = "/v1/games/{game_id}"
# Operations answering a GameView, the status that carries it.
VIEWS = {("post", "/v1/games"): "201", ("get", GAME): "200",
         ("post", GAME + "/steps"): "200", ("post", GAME + "/moves"): "200",
         ("post", GAME + "/chance"): "200", ("post", GAME + "/undo"): "200"}
BODY = "$response.body#/"
LINKS: dict[str, dict[str, Any]] = {
    # the seat of the view plays its first legal step (or reports the first chance
    # outcome, in live mode), as a step or as a one-step move
    "PlayFirstLegal": {"operationId": "post_step_v1_games__game_id__steps_post",
                       "parameters": {"path.game_id": BODY + "id"},
                       "requestBody": {"seat": BODY + "seat", "step": BODY + "legal/0/text"}},
    "MoveFirstLegal": {"operationId": "post_move_v1_games__game_id__moves_post",
                       "parameters": {"path.game_id": BODY + "id"},
                       "requestBody": {"seat": BODY + "seat", "move": BODY + "legal/0/text"}},
    "ReportFirstOutcome": {"operationId": "post_chance_v1_games__game_id__chance_post",
                           "parameters": {"path.game_id": BODY + "id"},
                           "requestBody": {"step": BODY + "legal/0/text",
                                           "seat": BODY + "seat"}},
    "Undo": {"operationId": "post_undo_v1_games__game_id__undo_post",
             "parameters": {"path.game_id": BODY + "id"},
             "requestBody": {"seat": BODY + "seat"}},
    "ViewAsSeat": {"operationId": "get_game_v1_games__game_id__get",
                   "parameters": {"path.game_id": BODY + "id", "query.seat": BODY + "seat"}},
    "AdviseSeat": {"operationId": "game_analysis_v1_games__game_id__analysis_get",
                   "parameters": {"path.game_id": BODY + "id", "query.seat": BODY + "seat"}},
}


def document() -> dict[str, Any]:
    """The app's OpenAPI document with :data:`LINKS` on every GameView answer, and new
    games' bot specs and catalogue drawn from usable ones (random strings there are
    422s, tested by test_api_schema.py; here games should get created and played)."""
    doc = copy.deepcopy(APP.openapi())
    parts = doc["components"]["schemas"]
    parts["SeatIn"] = {"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "human"}}, "required": ["kind"],
         "additionalProperties": False},
        {"type": "object", "properties": {"kind": {"const": "ai"}, "bot": {"enum": BOTS}},
         "required": ["kind", "bot"], "additionalProperties": False}]}
    new_game = parts["CreateGame"]["properties"]
    new_game["catalogue"] = {"enum": [None, DEFAULT_CATALOGUE]}
    new_game.pop("seed", None)  # a chosen seed needs "reproducible": true (else 422)
    for (method, path), status in VIEWS.items():
        response = doc["paths"][path][method]["responses"][status]
        response.setdefault("links", {}).update(copy.deepcopy(LINKS))
    return doc


schema = schemathesis.openapi.from_dict(document()).include(
    path_regex=r"^/v1/games")
schema.app = APP
# Valid requests only: the invalid ones are test_api_schema.py's; here they would end
# most sequences at their first call.
schema.config.generation.update(modes=[GenerationMode.POSITIVE])

CALLS: Counter[tuple[str, int]] = Counter()  # (operation, status) -> calls
FAILURES: list[str] = []  # check failures, also when Hypothesis cannot replay them


class Workflow(schema.as_state_machine()):  # type: ignore[misc]
    """The state machine, with the checks above, a count of the calls and a record of
    every failed check."""

    def call(self, case: Case, **kwargs: Any) -> Any:
        try:
            return super().call(case, **kwargs)
        except Exception as exc:  # the app raised (in-process transport): a 5xx
            CALLS[(f"{case.method.upper()} {case.path}", 500)] += 1
            FAILURES.append(f"{case.method.upper()} {case.formatted_path} raised "
                            f"{type(exc).__name__}: {exc}")
            raise

    def before_call(self, case: Case) -> None:
        """The seat's token, as a client would send it (``tests.test_api_helpers.auth``),
        for a game this run created."""
        super().before_call(case)
        gid = (case.path_parameters or {}).get("game_id")
        if gid in TOKENS:  # instead of a generated one (random tokens: test_api_schema.py)
            headers = {k: v for k, v in (case.headers or {}).items()
                       if k.lower() != "authorization"}
            body = case.body if isinstance(case.body, dict) else {}
            seat = body.get("seat") or (case.query or {}).get("seat")
            case.headers = {**headers, **auth(gid, seat if isinstance(seat, int) else None)}

    def after_call(self, response: Any, case: Case) -> None:
        super().after_call(response, case)
        CALLS[(f"{case.method.upper()} {case.path}", response.status_code)] += 1
        if case.method.upper() == "POST" and case.path == "/v1/games" \
                and response.status_code == 201:
            remember(response.json())

    def validate_response(self, response: Any, case: Case,
                          additional_checks: Any = None, **kwargs: Any) -> None:
        try:
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs or None,
                                   recorder=self.recorder)
        except Exception as exc:
            FAILURES.append(f"{case.method.upper()} {case.formatted_path} -> "
                            f"{response.status_code}: {exc}")
            raise


def test_links_reach_every_game_operation() -> None:
    """The transitions cover the games' operations (a created id flows everywhere)."""
    targets = {link.target.label
               for entry in Workflow._transitions.operations.values()
               for link in entry.outgoing}
    for label in ("GET /v1/games/{game_id}", "POST /v1/games/{game_id}/steps",
                  "POST /v1/games/{game_id}/moves", "POST /v1/games/{game_id}/chance",
                  "POST /v1/games/{game_id}/undo", "GET /v1/games/{game_id}/analysis",
                  "GET /v1/games/{game_id}/score", "GET /v1/games/{game_id}/catalogue"):
        assert label in targets, label


def _inconsistent(exc: BaseException) -> bool:
    """Hypothesis could not replay a sequence the same way: the service answered it
    differently the second time (AI seats move in the background, games persist across
    sequences). Not a failure of the service (a failed check is recorded
    in FAILURES first); schemathesis's own runner treats it the same way."""
    if isinstance(exc, FlakyStrategyDefinition):
        return True
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return isinstance(exc, AssertionError) and tb is not None and \
        tb.tb_frame.f_globals.get("__name__") == "hypothesis.internal.conjecture.datatree"


def test_stateful_sequences_conform_and_never_fail() -> None:
    """Runs of SCENARIOS sequences until TARGET_CALLS calls (or BUDGET seconds)."""
    CALLS.clear()
    FAILURES.clear()
    runs = cut_short = 0
    deadline = time.monotonic() + BUDGET
    while sum(CALLS.values()) < TARGET_CALLS and time.monotonic() < deadline:
        runs += 1
        try:
            Workflow.run(settings=settings(
                max_examples=SCENARIOS, stateful_step_count=STEPS, deadline=None,
                database=None, suppress_health_check=list(HealthCheck),
                phases=[Phase.generate]))
        except Exception as exc:
            if not _inconsistent(exc) or FAILURES:
                raise
            cut_short += 1
    total = sum(CALLS.values())
    by_op: Counter[str] = Counter()
    for (op, _), n in CALLS.items():
        by_op[op] += n
    print(f"\nstateful: {total} calls over {len(by_op)} operations in {runs} runs "
          f"({cut_short} cut short by an inconsistent replay)")
    for (op, status), n in sorted(CALLS.items()):
        print(f"  {n:4d}  {status}  {op}")
    assert not FAILURES, FAILURES
    assert not [k for k in CALLS if k[1] >= 500]
    # the sequences went somewhere: games created, then used by their id
    assert CALLS[("POST /v1/games", 201)] > 0
    used = {op for (op, status) in CALLS if status == 200 and "{game_id}" in op}
    assert len(used) >= 4, used
