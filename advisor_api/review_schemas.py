"""Request and answer bodies of a game's review jobs (``/v1/games/{id}/review``, see
:mod:`advisor_api.review_jobs`), shown in ``/docs``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from advisor_api.schemas import SEED_MAX


class _Strict(BaseModel):
    # as every request of the API: unknown fields and coerced types are 422s
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class ReviewBudget(_Strict):
    """The search of each reviewed decision: ``iterations`` or ``seconds`` (one of them),
    within the service's limits of one search (``MOMBASA_MAX_ITERATIONS``,
    ``MOMBASA_MAX_TIME``)."""

    iterations: int | None = Field(None, ge=1, description="iterations a decision")
    seconds: float | None = Field(None, gt=0, description="seconds a decision")

    @model_validator(mode="after")
    def _one(self) -> ReviewBudget:
        if (self.iterations is None) == (self.seconds is None):
            raise ValueError("give exactly one of iterations and seconds")
        return self


class ReviewRequest(_Strict):
    """What to review: the seats (1-based; default the token's seat, or every seat of a
    finished game), the budget of each decision (default: the review's own), the
    all-seeing view (a finished game only) and the seed of the searches."""

    seats: list[int] | None = Field(None, min_length=1, max_length=4,
                                    description="seats to review, 1-based")
    budget: ReviewBudget | None = None
    all_seeing: bool = Field(False, description=(
        "search every position with all its cards known (a finished game only); "
        "the review says so"))
    seed: int | None = Field(None, ge=0, le=SEED_MAX)


class ReviewProgress(BaseModel):
    done: int = Field(description="decisions reviewed so far")
    total: int | None = Field(description="decisions to review (null until known)")


class ReviewJobOut(BaseModel):
    """A review job: its state, progress and, once done, the review
    (``mombasa-review/1``)."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(description="the game")
    job: str
    status: Literal["queued", "running", "done", "cancelled", "failed"]
    seats: list[int]
    budget: dict[str, Any]
    all_seeing: bool
    steps: int = Field(description="the game's steps when the review began (it reviews "
                                   "those)")
    over: bool = Field(description="whether the game was over then")
    progress: ReviewProgress
    created: float
    error: dict[str, Any] | None = None
    review: dict[str, Any] | None = Field(None, description="mombasa-review/1, once done")


class ReviewList(BaseModel):
    id: str
    reviews: list[ReviewJobOut] = Field(description="oldest first, without their reviews")


class ReviewDeleted(BaseModel):
    id: str
    job: str
    status: str
    deleted: bool = Field(description="a finished review forgotten (else: cancelled)")


class ReviewPosition(BaseModel):
    """The position before a step of the game, as the caller may see it."""

    model_config = ConfigDict(extra="allow")

    id: str
    index: int
    round: int
    phase: str
    decision: dict[str, Any]
    seat: int | None = Field(description="whose observation this is (null: the "
                                         "spectator's)")
    observation: dict[str, Any]
    score: list[dict[str, Any]]
    step: str | None = Field(description="the step taken there, as the caller may see it")
