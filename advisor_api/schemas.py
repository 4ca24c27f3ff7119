"""Request and answer bodies of the HTTP API (pydantic models, shown in ``/docs``).

Requests forbid unknown fields, so a misspelt field is a 422 naming it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field, model_validator

SEED_MAX = (1 << 63) - 1


class _Request(BaseModel):
    # strict: "1" is not 1 and "no" is not false (a float field still takes 1)
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class _Answer(BaseModel):
    model_config = ConfigDict(populate_by_name=True)


# -- errors -------------------------------------------------------------------------------

class ErrorBody(BaseModel):
    """Every error answer: a code, a readable message and the field it is about."""

    error: str = Field(description="invalid, invariant, unauthorized, forbidden, not-found, "
                                   "conflict, too-large, unsupported-media-type, "
                                   "busy, client-limit, search-failed, search-timeout, storage, "
                                   "storage-busy, internal")
    message: str
    field: str | None = Field(None, description="the request field at fault, dotted")
    invariants: list[str] | None = Field(None, description="422 invariant: each broken one")
    errors: list[dict[str, Any]] | None = Field(None, description="422: every field error")


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text} for code, text in {
        401: "no seat token: send 'Authorization: Bearer <token>' (the seat's token from "
             "the game's creation)",
        403: "a token that is not this game's, or another seat's",
        404: "unknown game (or catalogue)",
        409: "the request does not fit the position (nothing changed)",
        413: "request body too large",
        415: "the body is not Content-Type: application/json",
        422: "malformed JSON, a wrong field, or a position that breaks an invariant",
        429: "search queue full (see Retry-After)",
        500: "the search failed",
        503: "the database is busy: nothing changed (see Retry-After)",
        504: "the search exceeded its time",
    }.items()
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The error answers of a route, for the OpenAPI document."""
    return {c: ERRORS[c] for c in codes}


# -- analysis -----------------------------------------------------------------------------

class Limit(_Request):
    """Search budget: iterations and/or seconds (whichever ends first)."""

    iterations: int | None = Field(None, ge=1, description="iterations of the search")
    time: float | None = Field(None, gt=0, description="seconds of search")

    @model_validator(mode="after")
    def _one(self) -> Limit:
        if self.iterations is None and self.time is None:
            raise ValueError("give iterations or time")
        return self


class AnalyseRequest(_Request):
    """A position to analyse: exactly one of ``state`` and ``observation``."""

    state: dict[str, Any] | None = Field(
        None, description="engine state JSON (schema mombasa-state/2; /1 files are read "
                          "too); analysed from the deciding player's observation")
    observation: dict[str, Any] | None = Field(
        None, description="observation JSON (schema mombasa-observation/1) of the deciding "
                          "player")
    limit: Limit | None = Field(None, description="default: the service's default time")
    multipv: int = Field(3, ge=1, description="number of lines")
    seed: int | None = Field(None, ge=0, le=SEED_MAX, description="search seed")
    jobs: int = Field(1, ge=1, description="search processes (root-parallel)")


class StepOut(_Answer):
    text: str = Field(description="step notation, e.g. 'enter KAS 2'")
    json_: dict[str, Any] = Field(alias="json", description="step JSON")


class MoveOut(_Answer):
    player: str
    text: str = Field(description="the steps joined by '; '")
    steps: list[dict[str, Any]]


class Evaluation(_Answer):
    pov: str = Field(description="the searching player: whose point of view")
    win: dict[str, float] = Field(description="win-probability estimate of every player")
    money: dict[str, float] = Field(description="expected final money of every player")


class PvStep(_Answer):
    player: str
    step: str


# What may come after the playable steps of a line (engine.playable_prefix).
STOPS = "reveal, chance, other-seat, over, illegal"


class LineOut(_Answer):
    rank: int
    step: StepOut
    move: MoveOut
    visits: int
    share: float
    eval: Evaluation
    pv: list[PvStep]
    pv_text: str
    playable: int = Field(description=(
        "how many of move.steps may be played now: up to the first new information (the "
        "reveal of the plans, a deal) or another seat's decision (engine.playable_prefix)"
        "; POST .../moves with partial plays exactly these"))
    stop: str | None = Field(None, description=(
        f"what comes after the playable steps ({STOPS}); absent: the seat decides on"))
    solver: dict[str, Any] | None = Field(
        None, description="expansion / bookkeeping: the exact solver's plan (when available)")


class DecisionOut(_Answer):
    kind: str
    player: str | None = None
    seat: int | None = None
    seats: list[int] | None = Field(
        None, description="a simultaneous decision (Planning, the starting tile): every "
                          "seat still deciding, any of which may go first")


class LimitOut(_Answer):
    iterations: int | None = None
    time: float | None = None


class AnalyseResponse(_Answer):
    pov: str
    decision: DecisionOut
    round: int
    legal_steps: int
    lines: list[LineOut]
    iterations: int
    elapsed: float
    iterations_per_second: float
    determinizations: int
    seed: int
    jobs: int
    limit: LimitOut
    final: bool


# -- games --------------------------------------------------------------------------------

class SeatIn(_Request):
    kind: Literal["human", "ai"]
    bot: str | None = Field(None, max_length=200,
                            description="AI seats: bot spec, e.g. 'mcts:time=0.5' "
                                        "(default mcts:time=0.5)")


class CreateGame(_Request):
    seats: list[SeatIn] | None = Field(
        None, min_length=2, max_length=4, description="2-4 seats (required without a "
        "record; with one, one per player of the record, default the record's: a human "
        "seat stays human, an AI or bot seat is an AI seat with its bot)")
    record: dict[str, Any] | None = Field(
        None, description="a game record (mombasa-game/1, docs/engine.md): the game is "
        "created at its last position with its history, every step replayed and checked "
        "(422 naming the step, e.g. record.steps[17], and why; nothing stored). Its seed "
        "is not used: what follows is dealt as for a new game")
    seed: int | None = Field(
        None, ge=0, le=SEED_MAX, description="the seed the service deals from; play mode: "
        "only with reproducible: true (whoever knows it can predict every card). Default: "
        "a secret of the service, shown once the game is over")
    reproducible: bool = Field(
        False, description="play mode: deal from a public seed (the given one, else a "
        "random one), shown in every view: anyone may predict the cards (tests, replays, "
        "practice)")
    takebacks: bool | None = Field(
        None, description="play mode: whether a seat may take back its own last move "
        "(default: yes with one human seat, no with two or more); live mode always "
        "corrects")
    variable: bool = Field(False, description="the variable setup (with a record: the "
                           "record's)")
    mode: Literal["play", "live"] = "play"
    perspective: int | None = Field(
        None, ge=1, le=4, description="'I am seat N': the seat whose view, suggestions and "
        "page are the default (play mode: a human seat; default the first human seat)")
    catalogue: str | None = Field(
        None, max_length=200, description="the components to play with: the name of a "
        "stored catalogue (GET /v1/catalogues); default the shipped one, 'default "
        "(reconstruction)'. The game keeps that catalogue's content even if the name is "
        "later replaced or deleted")


StepValue = str | dict[str, Any]


class StepRequest(_Request):
    seat: int = Field(ge=1, le=4)
    step: StepValue = Field(description="notation ('unit CAI') or step JSON")


class MoveRequest(_Request):
    seat: int = Field(ge=1, le=4)
    move: str | dict[str, Any] | list[StepValue] = Field(
        description="notation ('goods cof1/1; buy L2; unit CAI'), move JSON "
                    "({player, steps}), or a list of steps")
    partial: bool = Field(False, description=(
        "a suggested line: play its steps up to the first new information (the reveal "
        "of the plans, a card, book or tile dealt) or another seat's decision, and not "
        "the rest; it need not end the turn. Default: a whole move, all or nothing"))


class ChanceRequest(_Request):
    step: StepValue = Field(description="the observed outcome, e.g. 'deal-card B7 L1'")
    seat: int | None = Field(None, ge=1, le=4, description="seat whose view to answer with")


class UndoRequest(_Request):
    seat: int | None = Field(None, ge=1, le=4, description="seat whose view to answer with "
                             "(default: the token's seat)")


#: The query parameter ``seat`` of a game's view and its event stream.
OptionalSeatQuery = Annotated[int | None, Query(ge=1, le=4, description=(
    "the seat whose view (1-4; default the game's perspective seat)"))]


class SeatOut(_Answer):
    seat: int
    player: str
    kind: str
    bot: str | None = None


class HistoryEntry(_Answer):
    index: int
    player: str
    step: str | None = Field(description="notation; null while hidden from this seat")
    source: str = Field(description="human, ai, chance (dealt by the service), report, or "
                        "unseen (a starting tile dealt face down to another seat, live)")
    round: int = Field(0, description="the round the step was taken in (0: setup)")
    context: dict[str, str] | None = Field(
        None, description="public facts of the position before the step that its words "
        "depend on: card (the display card a buy / buy-card took), book (the book a take "
        "took), company (the company an enter expanded, or whose ousted post a return "
        "sent home); null when none")


class AiStatus(_Answer):
    thinking: bool
    error: str | None = None


class GameView(_Answer):
    id: str
    mode: str
    players: int
    seed: int | None = Field(description="the seed of the deals: null while a play-mode "
                             "game runs, unless it is reproducible")
    reproducible: bool = Field(description="the deals follow the public seed: anyone can "
                               "predict them")
    takebacks: bool = Field(description="a seat may take back its own last move (play "
                            "mode); live mode: always (corrections)")
    can_undo: bool = Field(description="this seat's POST .../undo would be accepted now")
    variable: bool
    seats: list[SeatOut]
    seat: int | None = Field(description="the seat whose view this is; null: the "
                             "spectator's view (no token)")
    perspective: int = Field(description="the game's own seat ('I am seat N')")
    round: int
    phase: str
    decision: DecisionOut
    your_turn: bool
    legal: list[StepOut] = Field(description="legal steps when the decision is this "
                                             "seat's (live mode at chance: the outcomes)")
    observation: dict[str, Any]
    history: list[HistoryEntry]
    score: list[dict[str, Any]]
    over: bool
    winners: list[int] | None
    ai: AiStatus
    stopped: bool = Field(description="the AI seats are stopped (POST .../stop): they do "
                          "not move, not even after a restart, until POST .../resume")
    steps: int


class MovePlayed(GameView):
    played: int = Field(description="the steps of the move played (partial: up to the "
                        "first new information; else all of them)")
    stop: str | None = Field(description=(
        f"what came after the steps played ({STOPS}): why a line stopped there; null: "
        "the seat decides on"))


class CreatedGame(GameView):
    tokens: dict[str, str] = Field(description="seat (\"1\"...) -> its secret token, for "
                                   "'Authorization: Bearer <token>'; every human seat "
                                   "(live mode: every seat). Only in this answer")
    links: dict[str, str] = Field(description="the web page for each seat of tokens "
                                  "(its token in the link) and for \"spectator\"")
    owner_token: str | None = Field(
        None, description="a play-mode game with no human seat (null for the others): "
        "the secret token that stops, resumes and deletes it ('Authorization: Bearer "
        "<token>'). Only in this answer")


class RecordSeat(_Answer):
    kind: str = Field(description="human, ai (the service's AI seat) or bot (an arena bot)")
    bot: str | None = None
    name: str | None = None


class RecordStep(_Answer):
    """``player`` 1-based (null: chance); ``step`` notation (null: hidden from this view);
    ``source`` human, ai, bot, chance, report or unseen."""

    player: int | None
    step: str | None
    source: str


class RecordResult(_Answer):
    totals: list[int]
    winners: list[int] = Field(description="1-based seats")


class GameRecordOut(_Answer):
    """A game record, format mombasa-game/1 (docs/engine.md, "Game records"): ``catalogue``
    the fingerprint of the components played; ``seed`` null unless the game is over and
    reproducible (a service's secret seed is never given); ``view`` null: every step (a
    finished game), a seat: what that seat may see of an unfinished game, 0: the
    spectator's (no seat's hidden steps); ``result`` a finished game's totals and
    winners (1-based)."""

    format: str
    players: int
    variable: bool
    catalogue: str
    seed: int | None
    seats: list[RecordSeat]
    view: int | None
    meta: dict[str, str]
    steps: list[RecordStep]
    result: RecordResult | None = None


class StopRequest(_Request):
    """The body of POST .../stop and .../resume: optional, and if given empty."""


class GameDeleted(_Answer):
    id: str
    deleted: bool


class ScoreView(_Answer):
    id: str
    over: bool
    final: bool
    score: list[dict[str, Any]]
    winners: list[int] | None


# -- catalogues ---------------------------------------------------------------------------

class CatalogueCheckRequest(_Request):
    catalogue: dict[str, Any] = Field(
        description="a component catalogue (schema mombasa-catalogue/1, docs/catalogue.md)")
    page: bool = Field(False, description="also answer the catalogue as the web page draws "
                                          "it (as GET /v1/catalogue), when it is valid")


class CatalogueFault(_Answer):
    path: str = Field(description="JSON path of the first fault, e.g. "
                                  "'books[12].reward.pounds' ('$': the whole file)")
    message: str = Field(description="what is wrong there, e.g. 'must be >= 0, got -1'")


class CatalogueCheck(_Answer):
    ok: bool
    error: CatalogueFault | None = Field(description="the loader's first fault, or null")
    summary: dict[str, Any] | None = Field(
        description="counts of the components (as `mombasa catalogue check --json`)")
    page: dict[str, Any] | None = Field(
        None, description="the catalogue as the page draws it (asked with page: true)")


class SaveCatalogue(_Request):
    name: str = Field(min_length=1, max_length=60, description=(
        "1-60 letters, digits, spaces and - _ . (beginning with a letter or a digit); "
        "names compare case-insensitively"))
    catalogue: dict[str, Any] = Field(description="the catalogue (schema mombasa-catalogue/1)")
    replace: bool = Field(False, description="replace a stored catalogue of that name "
                                             "(games already created keep theirs)")


class CatalogueEntry(_Answer):
    name: str
    default: bool = Field(description="the shipped catalogue (cannot be replaced or deleted)")
    sha256: str | None = Field(description="SHA-256 of the stored JSON text (null: shipped)")
    created: float | None = Field(description="epoch seconds (null: shipped)")
    updated: float | None
    games: int | None = Field(description="games that play with this content")
    summary: dict[str, Any]


class CatalogueList(_Answer):
    catalogues: list[CatalogueEntry]


class CatalogueDeleted(_Answer):
    name: str
    deleted: bool
    games: int = Field(description="games that still play with its content (kept for them)")


# -- playing levels -----------------------------------------------------------------------

class LevelOut(_Answer):
    level: int = Field(description="1 (beginner) to 8 (the full search)")
    spec: str = Field(description="the bot spec of an AI seat at this level, 'level:N'")
    name: str
    summary: str = Field(description="how it plays: its mistakes, or its search budget")
    rating: float | None = Field(description="measured rating (Elo points; greedy:eval="
                                 "learned = 1000), null if not measured")
    ci95: list[float] | None = Field(description="95% interval of the rating")


class LevelList(_Answer):
    levels: list[LevelOut]
    anchor: dict[str, Any] = Field(description="the player whose rating is fixed, and at what")
    command: str = Field(description="the command that measured the ratings (docs/levels.md)")
    commit: str | None = Field(description="the commit they were measured at")
