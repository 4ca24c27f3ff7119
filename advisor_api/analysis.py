"""Analysis of one decision: reading the input, planning the search, shaping the answer.

Shared by the HTTP service and the ``mombasa analyse`` command. The search itself runs
elsewhere (a worker process of :mod:`advisor_api.pool`, or in process for the CLI); this
module turns its :class:`~search.mcts.SearchResult` into MultiPV lines, best first:

* ``step``: the line's first step (notation and JSON), ``move``: that step and the
  continuation of the same player's steps along the principal variation (the rest of
  the move, as far as the search looked);
* ``visits``, ``share`` (of the root visits);
* ``eval``: ``{"pov": "P2", "win": {"P1": .., "P2": ..}, "money": {...}}``, the mean
  utility (a win-probability estimate) and the estimated final money of every player,
  with the point of view (the searching player) named;
* ``playable``: how many of the move's steps may be played now, and ``stop``, what
  follows them (``engine.playable_prefix``: a line stops after the reveal of the plans,
  before a deal or another seat's decision; ``stop`` absent: the seat decides on);
* ``pv``: the principal variation after the step, ``[{"player": "P1", "step": ...}]``;
* ``solver``: for an expansion or bookkeeping step, the exact solver's route or
  purchase, when :mod:`search.solvers` provides one.

The search only ever sees ``observe(state, decider)``: never the true state.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine
from advisor_api.errors import BrokenInvariant, Conflict, InvalidInput
from advisor_api.settings import Settings
from advisor_api.solvers import solver_for_line
from engine import Observation, State, Step, check_invariants
from search.mcts import Line, SearchResult

CHANCE_MESSAGE = "chance event pending: report or sample the outcome"
SEED_LIMIT = (1 << 63) - 1


def player_name(i: int) -> str:
    """0-based seat -> ``"P1"``; chance (-1) -> ``"chance"``."""
    return f"P{i + 1}" if i >= 0 else "chance"


def step_out(step: Step, state: State) -> dict[str, Any]:
    """``{"text": ..., "json": ...}`` of a step."""
    return {"text": step.text(state.cat), "json": step.to_json(state.cat)}


# -- input ------------------------------------------------------------------------------

def _reject_catalogue(obj: Any, field: str) -> None:
    if isinstance(obj, dict) and obj.get("catalogue") not in (None, ""):
        raise InvalidInput(f"{field}.catalogue: the service plays the default catalogue "
                           "only (a catalogue path is not accepted)", field=f"{field}.catalogue")


def _engine_guard(what: str, fn: Callable[[], Any]) -> Any:
    """Run an engine call on user-supplied data; an unexpected failure is a 422."""
    try:
        return fn()
    except engine.StateFormatError:
        raise
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise InvalidInput(f"{what}: the engine cannot read this position "
                           f"({type(exc).__name__}: {exc})", field=what) from None


def read_state(obj: Any, field: str = "state") -> State:
    """A state from its JSON, checked: 422 naming the field, or naming the invariant."""
    _reject_catalogue(obj, field)
    try:
        s: State = _engine_guard(field, lambda: engine.state_from_json(obj, check=False))
    except engine.StateFormatError as exc:
        raise _format_error(field, exc) from None
    _check(s, field)
    return s


def read_observation(obj: Any, field: str = "observation") -> Observation:
    """An observation from its JSON, checked like :func:`read_state`."""
    if isinstance(obj, dict):
        _reject_catalogue(obj.get("state"), f"{field}.state")
    try:
        obs: Observation = _engine_guard(field, lambda: engine.observation_from_json(obj))
    except engine.StateFormatError as exc:  # its paths are the observation's own
        head, _, rest = str(exc).partition(":")
        if head in ("state", "invariant"):  # the state as a whole
            raise _format_error(f"{field}.state", exc) from None
        raise _format_error(field, exc) from None
    _check(obs.state, f"{field}.state")
    return obs


def _format_error(prefix: str, exc: Exception) -> InvalidInput | BrokenInvariant:
    """``StateFormatError("round: ...")`` under ``state`` -> 422 naming ``state.round``."""
    msg = str(exc)
    head, sep, rest = msg.partition(":")
    head = head.strip()
    if not sep or not head or " " in head:
        return InvalidInput(f"{prefix}: {msg}", field=prefix)
    if head == "state":  # the whole object
        return InvalidInput(f"{prefix}:{rest}", field=prefix)
    if head == "invariant":
        return BrokenInvariant(f"{prefix}: the position breaks an invariant:{rest}",
                               field=prefix, invariants=[rest.strip()])
    return InvalidInput(f"{prefix}.{msg}", field=f"{prefix}.{head}")


def _check(s: State, field: str) -> None:
    broken = _engine_guard(field, lambda: check_invariants(s))
    if broken:
        raise BrokenInvariant(f"{field}: the position breaks {len(broken)} invariant(s): "
                              + "; ".join(broken), field=field, invariants=broken)
    _engine_guard(field, lambda: (s.decision, s.legal_steps()))


def searchable(obs: Observation) -> None:
    """409 unless the observation's viewer has the pending decision."""
    s = obs.state
    d = s.decision
    if s.is_over():
        raise Conflict("the game is over: nothing to analyse", field="state")
    if d.kind == "chance":
        raise Conflict(CHANCE_MESSAGE, field="state")
    if d.player != obs.viewer:
        raise Conflict(f"the decision ({d.kind}) is {player_name(d.player)}'s, not the "
                       f"viewer {player_name(obs.viewer)}'s", field="observation.viewer")


def observation_for_decider(s: State) -> Observation:
    """What the deciding player of ``s`` sees (409 at chance or game over)."""
    if s.is_over():
        raise Conflict("the game is over: nothing to analyse", field="state")
    d = s.decision
    if d.kind == "chance":
        raise Conflict(CHANCE_MESSAGE, field="state")
    return engine.observe(s, d.player)


# -- the plan of a search -----------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    """What to search and how: the observation, the limit, MultiPV, seed and jobs."""

    obs: Observation
    iterations: int | None
    time: float | None
    multipv: int
    seed: int
    jobs: int
    cap: float  # seconds the search may take at most (the time limit, else the cap)

    @property
    def expected(self) -> float:
        """Seconds the search is expected to take."""
        return self.time if self.time is not None else self.cap

    def tasks(self, progress_every: float | None = None) -> list[dict[str, Any]]:
        """One worker task per job (seeds ``seed * 1009 + k`` as in ParallelMCTS)."""
        obs_json = engine.observation_to_json(self.obs)
        out = []
        for k in range(self.jobs):
            out.append({
                "kind": "analyse", "observation": obs_json,
                "iterations": self.iterations,
                "time": self.time if self.time is not None else self.cap,
                "seed": (self.seed * 1009 + k) & SEED_LIMIT if self.jobs > 1 else self.seed,
                "progress_every": progress_every,
                "solve": k == 0,
            })
        return out


def make_plan(obs: Observation, settings: Settings, *, iterations: int | None,
              time: float | None, multipv: int, seed: int | None, jobs: int,
              prefix: str = "limit.", max_jobs: int | None = None) -> Plan:
    """Check the limits against the caps (422 naming the field) and fix the seed.
    ``max_jobs``: the searches that may run at once now (the service's pool: its
    backend's capacity, which follows a Ray cluster's nodes); None: ``settings.workers``."""
    if iterations is None and time is None:
        time = settings.default_time
    if time is not None and time > settings.max_time:
        raise InvalidInput(f"{prefix}time: at most {settings.max_time:g} s per request "
                           f"(MOMBASA_MAX_TIME), got {time:g}", field=f"{prefix}time")
    if iterations is not None and iterations > settings.max_iterations:
        raise InvalidInput(f"{prefix}iterations: at most {settings.max_iterations} per "
                           f"request (MOMBASA_MAX_ITERATIONS), got {iterations}",
                           field=f"{prefix}iterations")
    if multipv > settings.max_multipv:
        raise InvalidInput(f"multipv: at most {settings.max_multipv}, got {multipv}",
                           field="multipv")
    most = settings.workers if max_jobs is None else max_jobs
    if jobs > most:
        raise InvalidInput(f"jobs: at most {most} (the search processes of this service), "
                           f"got {jobs}", field="jobs")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    searchable(obs)
    return Plan(obs, iterations, time, multipv, seed, jobs, settings.max_time)


# -- the answer ---------------------------------------------------------------------------

def _still_mine(s: State, me: int) -> bool:
    return not s.is_over() and s.decision.player == me


def continuation(start: State, line: Line, me: int) -> list[Step]:
    """The line's step and the same player's following steps of its PV (the move)."""
    steps = [line.step]
    s = start.apply_unchecked(line.step)
    for player, step in line.pv:
        if player != me or not _still_mine(s, me) or step not in s.legal_steps():
            break
        steps.append(step)
        s = s.apply_unchecked(step)
    return steps


def format_lines(obs: Observation, result: SearchResult, multipv: int, seed: int,
                 solved: dict[str, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The best ``multipv`` lines of ``result`` as JSON objects (ranks from 1);
    ``solved``: :func:`advisor_api.solvers.solve_decision` of the position."""
    st = obs.state
    cat = st.cat
    me = obs.viewer
    names = [player_name(i) for i in range(st.n)]
    base = engine.determinize(obs, random.Random(seed))
    legal = set(base.legal_steps())
    out: list[dict[str, Any]] = []
    for rank, line in enumerate(result.lines[:multipv], start=1):
        steps = continuation(base, line, me) if line.step in legal else [line.step]
        playable, stop = engine.playable_prefix(base, me, steps)
        entry: dict[str, Any] = {
            "rank": rank,
            "step": step_out(line.step, st),
            "move": {"player": names[me], "text": "; ".join(s.text(cat) for s in steps),
                     "steps": [s.to_json(cat) for s in steps]},
            "visits": line.visits,
            "share": round(line.share, 4),
            "eval": {"pov": names[me],
                     "win": {names[i]: round(w, 4) for i, w in enumerate(line.win)},
                     "money": {names[i]: round(m, 2) for i, m in enumerate(line.money)}},
            "pv": [{"player": player_name(p), "step": s.text(cat)} for p, s in line.pv],
            "pv_text": " | ".join(f"{player_name(p)} {s.text(cat)}" for p, s in line.pv),
            "playable": playable,
            "stop": stop,
        }
        plan = solver_for_line(solved or {}, line.step, [s.text(cat) for s in steps], st)
        if plan is not None:
            entry["solver"] = plan
        out.append(entry)
    return out


def build_response(plan: Plan, result: SearchResult, elapsed: float, final: bool = True,
                   solved: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The whole answer of an analysis (``final=False``: an interim streamed answer);
    ``solved``: the solver plans of the decision (see :mod:`advisor_api.solvers`)."""
    obs = plan.obs
    st = obs.state
    d = st.decision
    return {
        "pov": player_name(obs.viewer),
        "decision": {"kind": d.kind, "player": player_name(d.player), "seat": d.player + 1},
        "round": st.round,
        "legal_steps": len(st.legal_steps()),
        "lines": format_lines(obs, result, plan.multipv, plan.seed, solved),
        "iterations": result.iterations,
        "elapsed": round(elapsed, 4),
        "iterations_per_second": round(result.iterations / elapsed, 1) if elapsed > 0 else 0.0,
        "determinizations": result.determinizations,
        "seed": plan.seed,
        "jobs": plan.jobs,
        "limit": {"iterations": plan.iterations, "time": plan.time},
        "final": final,
    }
