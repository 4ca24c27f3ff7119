"""Information-set Monte Carlo tree search with one value per player (max^n).

Every iteration starts from a fresh :func:`engine.determinize` of the searching player's
observation, so the search never reads what that player cannot know. The tree is
*open loop*: it is keyed by the steps players take, not by chance outcomes, and a node's
statistics are those of every determinization that reached it; a child's UCB uses the
number of times it was available (ISMCTS availability counts).

Simultaneous Planning without peeking: other players' planning steps (and starting-tile
choices) are hidden from the searcher, so they are never tree nodes; they come from the
rollout policy in each determinization, and a plan already made (face down) is sampled
by the determinization. The searcher's own plan steps are tree nodes: its plan never
depends on the others' unrevealed plans, and the others' never on its own.

Each node keeps, per player, the sum of utilities (a win-probability estimate) and of
estimated final money; at a node the deciding player picks the child that is best for
itself (max^n), so 3 and 4 players are handled correctly.

>>> import engine
>>> s = engine.new_game(players=2, seed=1)
>>> while s.decision.kind == "chance":
...     s = s.apply(s.sample_chance())
>>> result = MCTS(SearchConfig(iterations=20, seed=1)).search(engine.observe(s, 0))
>>> result.iterations, len(result.lines) > 0
(20, True)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields

from engine import (
    ROUNDS,
    Observation,
    State,
    Step,
    determinize,
)
from search.candidates import best_plan, candidate_steps, leftmost_plan_steps
from search.collector import collector_paused
from search.evaluator import DEFAULT_WEIGHTS, EVALUATORS, TEMPO, Weights, evaluate, rounds_left
from search.pacing import REAL_TIME, Pacer
from search.policy import SOLVED_KINDS, rollout_step, step_score
from search.routes import bookkeeping_drive
from search.value_model import ValueModelError, model_file

HORIZONS = ("turn", "move", "cycle", "round", "game")
TREES = ("move", "round")
SELECTS = ("lead", "win", "mix")  # what UCB exploits: see SearchConfig.select
PLAN_SLOTS = ("all", "late", "leftmost")  # the own plan steps searched: SearchConfig.plan
# From this round on a card planned never comes back from its resting deck before the
# end (a deck is taken back at the end of a later round's actions, for the round after).
LATE_ROUND = ROUNDS - 1
MAX_SECONDS = 3600.0  # a search budget beyond an hour is a typo or an attack
MAX_ITERATIONS = 10**7


@dataclass(frozen=True)
class Bound:
    """The values a numeric setting may take: ``lo``..``hi`` (``lo`` excluded when
    ``open_lo``), an integer when ``integer``. Not a number (nan), the infinities and
    booleans are never allowed."""

    lo: float
    hi: float
    open_lo: bool = False
    integer: bool = False

    def describe(self) -> str:
        left = "(" if self.open_lo else "["
        kind = "an integer" if self.integer else "a finite number"
        return f"{kind} in {left}{_num(self.lo)}, {_num(self.hi)}]"

    def admits(self, v: object) -> bool:
        if isinstance(v, bool) or not isinstance(v, int | float):
            return False
        if self.integer and not isinstance(v, int):
            return False
        if not math.isfinite(v):
            return False
        return (self.lo < v if self.open_lo else self.lo <= v) and v <= self.hi

    def check(self, name: str, v: object, shown: str | None = None) -> None:
        """Raise ``ValueError("name: expected ..., got ...")`` unless ``v`` is admitted."""
        if not self.admits(v):
            raise ValueError(f"{name}: expected {self.describe()}, "
                             f"got {shown if shown is not None else v!r}")


def _num(x: float) -> str:
    """10**7 -> ``10000000``, 0.5 -> ``0.5`` (bounds in messages)."""
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


# The range of every numeric knob of SearchConfig (by field name). Each is what the knob
# means, not a tuning range: a budget of 1 iteration .. 10 million or up to an hour;
# UCB's exploration constant c (0: pure exploitation) up to 10, far above any useful
# value (0.3); widening, noise, priors and scales likewise bounded well past any setting
# measured, so a value outside is a typo (or hostile), never an experiment.
BOUNDS: dict[str, Bound] = {
    "iterations": Bound(1, MAX_ITERATIONS, integer=True),
    "time": Bound(0, MAX_SECONDS, open_lo=True),
    "c_uct": Bound(0, 10),
    "plan_c": Bound(0, 10),  # None: c_uct
    "plan_halving": Bound(0, MAX_ITERATIONS, integer=True),
    "max_rollout_steps": Bound(1, 10**6, integer=True),
    "widen_c": Bound(0, 100, open_lo=True),
    "widen_alpha": Bound(0, 1),
    "report_every": Bound(1, MAX_ITERATIONS, integer=True),
    "margin_scale": Bound(0, 10**6, open_lo=True),  # a divisor
    "rollout_noise": Bound(0, 100),
    "prior_visits": Bound(0, 10**4, integer=True),
    "tempo": Bound(-100, 100),  # pounds
    "book_drive": Bound(0, 10),  # times the bookkeeping route's bonus
}
# Evaluator weights: pounds per unit and shares, finite; ``win_scale`` is a divisor.
WEIGHT_BOUNDS: dict[str, Bound] = {
    f.name: Bound(0, 10**6, open_lo=True) if f.name == "win_scale" else Bound(-10**6, 10**6)
    for f in fields(Weights)
}


@dataclass(frozen=True)
class SearchConfig:
    """Budget and knobs. Give ``iterations`` or ``time`` (seconds), or both.

    The field defaults are THE search settings (the measured ones): the ``mcts`` bot of
    the AI seats and the arena (:func:`search.bots.make_bot`) and the advisor's analysis
    take every knob they are not told from here, so there is one configuration.

    Every setting is checked (:data:`BOUNDS`): a ``ValueError`` names the field.

    >>> SearchConfig(iterations=10, c_uct=float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: c_uct: expected a finite number in [0, 10], got nan
    """

    iterations: int | None = None
    time: float | None = None
    seed: int = 0
    c_uct: float = 0.3
    horizon: str = "turn"  # rollouts end with the leaf's turn ("turn"), round, or "game"
    max_rollout_steps: int = 600
    widen_c: float = 3.0  # progressive widening: at most widen_c * n^widen_alpha children
    widen_alpha: float = 0.5
    report_every: int = 64  # iterations between interim reports to the callback
    margin_scale: float = 10.0  # pounds of lead over the best opponent worth 1.0 in UCB
    rollout_noise: float = 0.3  # randomness of the policy finishing a turn
    prior_visits: int = 2  # root candidates start with this many visits of a greedy look
    tree: str = "round"  # "round": every public move of the round; "move": only the own
    node_priors: bool = False  # every new tree node gets the greedy first look too
    weights: Weights = DEFAULT_WEIGHTS
    evaluator: str = "learned"  # leaf evaluator: "learned" value model or "hand" formula
    # the learned evaluator's model file ("": the process's, MOMBASA_VALUE_MODEL or the
    # shipped one); for comparing models in one arena, never taken from a client
    value_model: str = ""
    tempo: float = TEMPO  # pounds added at a leaf to the player about to act (see TEMPO)
    book_drive: float = 0.5  # share of the bookkeeping route's bonus steering selection
    # What UCB exploits: "mix" (half of each of the two below: a safe lead still counts
    # for something, a level game is read as "win"; the measured default, docs/search.md),
    # "lead" (the mean money lead over the best opponent) or "win" (the mean
    # win-probability estimate's lead, in pounds near a level game, so a lead already
    # safe or already lost counts less).
    select: str = "mix"
    # Which of its own plan steps the search considers. With the same cards planned, a
    # card's slot (and the order they were planned in) decides only which resting deck
    # each joins, which the evaluator does not see: such plans are near-ties to it.
    # "all": every legal plan step; "late": in rounds 6 and 7, where a resting deck
    # never comes back before the end and the slot changes nothing (rounds-and-
    # planning), the leftmost free slot and the cards in card order, so each set of
    # cards is planned one way; "leftmost": the same in every round.
    plan: str = "all"
    # UCB's exploration constant at the searcher's own Planning decisions (None: c_uct).
    # A plan step's first look finishes the plan with random cards, so its value is
    # noisy, and at c_uct a Planning root can settle on whichever step looked best first
    # (two deep searches of one Planning position each put nearly all their visits on
    # a different step: journal, 2026-12-07).
    plan_c: float | None = None
    # Sequential halving at the searcher's own Planning roots when the budget gives at
    # least this many iterations (0: never). A plan step's first look, and any step
    # searched little, reads below a step searched deeply (0.04 of win chance on
    # average at Planning: journal, 2026-12-07), so UCB keeps to the first step it
    # searched, at any budget; halving searches the steps still in to the same
    # depth. After the first tenth of the budget (by UCB) the search knows how many
    # iterations the budget gives; below this many it goes on by UCB (halving's even
    # split is worse when every step gets only a few dozen).
    plan_halving: int = 0

    def __post_init__(self) -> None:
        if self.iterations is None and self.time is None:
            raise ValueError("SearchConfig: give iterations or time")
        for name, bound in BOUNDS.items():
            value = getattr(self, name)
            if value is not None or name not in ("iterations", "time", "plan_c"):
                bound.check(name, value)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ValueError(f"seed: expected an integer, got {self.seed!r}")
        if not isinstance(self.node_priors, bool):
            raise ValueError(f"node_priors: expected true or false, got {self.node_priors!r}")
        if not isinstance(self.weights, Weights):
            raise ValueError(f"weights: expected evaluator Weights, got {self.weights!r}")
        for name, bound in WEIGHT_BOUNDS.items():
            bound.check(f"weights.{name}", getattr(self.weights, name))
        if not isinstance(self.value_model, str):
            raise ValueError(f"value_model: expected a file name, got {self.value_model!r}")
        if self.value_model:
            try:
                model_file(self.value_model)
            except ValueModelError as exc:
                raise ValueError(f"value_model: {exc}") from None
        for name, choices in (("tree", TREES), ("evaluator", EVALUATORS),
                              ("select", SELECTS), ("horizon", HORIZONS),
                              ("plan", PLAN_SLOTS)):
            value = getattr(self, name)
            if value not in choices:
                raise ValueError(f"{name}: one of {', '.join(choices)}, got {value!r}")


def _add(node: Node, drive: list[float]) -> None:
    """Add one or more leaves' drive to ``node``'s sums."""
    if node.d is None:
        node.d = list(drive)
    else:
        d = node.d
        for i, x in enumerate(drive):
            d[i] += x


class Node:
    """Statistics of one step sequence (from the searcher's point of view)."""

    __slots__ = ("player", "children", "n", "avail", "w", "m", "d")

    def __init__(self, players: int) -> None:
        self.player = -1  # who decides at this node
        self.children: dict[Step, Node] = {}
        self.n = 0
        self.avail = 0
        self.w = [0.0] * players  # utility sums per player
        self.m = [0.0] * players  # estimated-money sums per player
        # Sums of the drive per player (``book_drive``; None while every leaf had none).
        # Selection adds it to the money; reports never show it.
        self.d: list[float] | None = None

    def mean_utility(self, player: int) -> float:
        return self.w[player] / self.n if self.n else 0.0

    def best_child(self) -> tuple[Step, Node] | None:
        """The most visited child (ties: higher utility for the decider, then notation)."""
        if not self.children:
            return None
        me = self.player
        return max(self.children.items(),
                   key=lambda kv: (kv[1].n, kv[1].mean_utility(me) if me >= 0 else 0.0))


@dataclass
class Line:
    """One candidate at the root: its step, statistics and principal variation."""

    step: Step
    visits: int
    share: float  # visits / root visits
    win: list[float]  # mean utility (win-probability estimate) per player
    money: list[float]  # mean estimated final money per player
    pv: list[tuple[int, Step]]  # (player, step) pairs following this step


@dataclass
class SearchResult:
    player: int
    lines: list[Line]
    iterations: int
    elapsed: float
    determinizations: int
    root: Node = field(repr=False)

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def best(self) -> Step:
        return self.lines[0].step


Callback = Callable[[SearchResult], bool | None]


@dataclass
class _Run:
    """One search's fixed inputs and its count of iterations so far."""

    obs: Observation
    root: Node
    me: int
    horizon: int
    rng: random.Random
    callback: Callback | None
    start: float
    done: int = 0


class MCTS:
    """ISMCTS searcher. ``search`` is anytime: a callback may stop it early."""

    def __init__(self, config: SearchConfig, pacer: Pacer = REAL_TIME) -> None:
        self.config = config
        # The clock of ``config.time`` and where the search may be paused or stopped
        # (a shared search process pauses it between slices: search.pacing).
        self.pacer = pacer
        self._win_pounds = 0.0
        self._model = model_file(config.value_model) if config.value_model else None

    def search(self, obs: Observation, callback: Callback | None = None,
               root: Node | None = None, only: Sequence[Step] | None = None
               ) -> SearchResult:
        """Search the decision of ``obs``'s viewer; ``callback`` gets interim results
        (False: stop); ``root``: a tree to go on with (a :func:`subtree` of an earlier
        search, or an earlier result's ``root`` from the same position).

        ``only`` (like chess engines' *searchmoves*): the root's candidates are these
        legal steps instead of :meth:`candidates`: a search restricted to some steps,
        or, given the candidates plus a step, one that is sure to try that step. With
        ``root`` from an earlier search of the same position, ``only=[step]`` spends the
        iterations on ``step`` alone, every other line kept as it was. A step that is not
        legal here is a ``ValueError``."""
        cfg = self.config
        st = obs.state
        if st.is_over():
            raise ValueError("the game is over: nothing to search")
        me = obs.viewer
        if st.decision.player != me:
            raise ValueError(f"it is not P{me + 1}'s decision (decision: {st.decision})")
        rng = random.Random(cfg.seed)
        if root is None:
            root = Node(st.n)
        clock = self.pacer.clock
        start = clock()
        deadline = start + cfg.time if cfg.time is not None else math.inf
        limit = cfg.iterations if cfg.iterations is not None else 1 << 62
        root_legal, horizon = self._prepare_root(obs, root, cfg.prior_visits, only=only)
        # Near a level game a win-chance lead of x is worth x * 2 * scale pounds.
        self._win_pounds = 2.0 * cfg.weights.win_scale * (1.0 + rounds_left(st))
        run = _Run(obs, root, me, horizon, rng, callback, start)
        ranking: list[Step] | None = None
        with collector_paused():  # the tree is not garbage: no need to scan it again and again
            if not (cfg.plan_halving and only is None and st.decision.kind == "plan"
                    and len(root_legal) > 2):
                self._ucb(run, root_legal, limit, deadline)
            # A Planning root: the first tenth of the budget by UCB, which also tells
            # how many iterations the whole budget will give; halving if enough.
            elif not self._ucb(run, root_legal, max(1, limit // 10),
                               start + (deadline - start) / 10):
                rate = run.done / max(clock() - start, 1e-9)
                expected = min(limit, rate * cfg.time if cfg.time is not None else math.inf)
                if expected >= cfg.plan_halving:
                    ranking = self._halve(run, root_legal, limit, deadline)
                else:
                    self._ucb(run, root_legal, limit, deadline)
        return self._result(me, root, run.done, clock() - start, ranking)

    def _ucb(self, run: _Run, legal: list[Step], limit: int, deadline: float) -> bool:
        """Iterate with UCB over ``legal`` at the root until ``run.done`` reaches
        ``limit`` or the clock ``deadline``; True if stopped (the callback or the pacer),
        so the search ends here."""
        clock, checkpoint = self.pacer.clock, self.pacer.checkpoint
        timed = deadline != math.inf
        while run.done < limit:
            if not checkpoint():
                return True
            if timed and clock() >= deadline:
                return False
            if self._iterate_once(run, legal):
                return True
        return False

    def _iterate_once(self, run: _Run, legal: list[Step]) -> bool:
        """One iteration with ``legal`` at the root, and the interim report if due;
        True if the callback says stop."""
        self._iterate(run.obs, run.root, run.me, run.horizon, run.rng, legal)
        run.done += 1
        if run.callback is not None and run.done % self.config.report_every == 0:
            interim = self._result(run.me, run.root, run.done, self.pacer.clock() - run.start)
            return run.callback(interim) is False
        return False

    def _halve(self, run: _Run, candidates: list[Step], limit: int,
               deadline: float) -> list[Step]:
        """Sequential halving over the root's ``candidates`` with the rest of the budget:
        in each round every candidate still in gets the same iterations (each searched
        to the same depth, which no first look is: SearchConfig.plan_halving), and the
        better half by the mover's mean lead goes on, down to two. The root's steps
        ranked: the last round's by their lead, then those dropped later first."""
        clock, checkpoint = self.pacer.clock, self.pacer.checkpoint
        active = list(candidates)
        rounds = max(1, math.ceil(math.log2(len(active))))
        dropped: list[list[Step]] = []
        for r in range(rounds):
            left = rounds - r
            round_limit = run.done + (limit - run.done) // left
            now = clock()
            round_deadline = now + (deadline - now) / left if deadline != math.inf else deadline
            count = dict.fromkeys(active, 0)
            while run.done < round_limit and clock() < round_deadline:
                step = min(active, key=count.__getitem__)
                count[step] += 1
                if not checkpoint() or self._iterate_once(run, [step]):
                    rounds = r + 1  # stopped: rank what there is
                    break
            ranked = sorted(active, key=lambda st: -self._mean_lead(
                run.root.children.get(st, Node(len(run.root.m))), run.me))
            if r == rounds - 1:
                active = ranked
                break
            keep = max(2, (len(ranked) + 1) // 2)
            active = ranked[:keep]
            dropped.append(ranked[keep:])
        return active + [st for out in reversed(dropped) for st in out]

    def first_look(self, obs: Observation) -> Node:
        """The root before any iteration: a child per candidate step, each holding the
        first look ``search`` starts from (the step, the rest of the move by the quiet
        policy, the evaluator, on the search's first determinization), with at least
        one visit even when ``prior_visits`` is 0, and also when there is only one
        candidate (``search`` gives none then: there is nothing to choose).

        >>> from engine import new_game, observe
        >>> state = new_game(players=2, seed=1)
        >>> while state.decision.kind == "chance":
        ...     state = state.apply(state.sample_chance())
        >>> obs = observe(state, state.decision.player)
        >>> root = MCTS(SearchConfig(iterations=1)).first_look(obs)
        >>> all(child.n == 2 for child in root.children.values())
        True
        """
        root = Node(obs.state.n)
        self._prepare_root(obs, root, max(1, self.config.prior_visits), min_candidates=1)
        return root

    def candidates(self, obs: Observation) -> list[Step]:
        """The root's candidate steps of a search of ``obs`` (without ``only``): every
        legal step, or at a solved decision the first steps of the solvers' best plans
        (:func:`search.candidates.candidate_steps`), and at a Planning step the plan
        steps ``SearchConfig.plan`` keeps."""
        first = self._first(obs)
        return self._candidates(first, first.legal_steps())

    def _candidates(self, state: State, legal: list[Step]) -> list[Step]:
        """The steps a node of the searcher's (or a replying player's) decision holds:
        :func:`search.candidates.candidate_steps`, and at a Planning step the plan
        steps ``SearchConfig.plan`` keeps (its own plan only: the others' are hidden,
        made inside each determinization)."""
        out = candidate_steps(state, legal)
        plan = self.config.plan
        if plan == "all":  # the default: nothing more to look at on the hot path
            return out
        d = state.decision
        if d.kind == "plan" and (plan == "leftmost" or state.round >= LATE_ROUND):
            last = d.slot  # the slot filled last this Planning, -1 before the first card
            after = state.players[d.player].slots[last] if last is not None and last >= 0 \
                else -1
            out = leftmost_plan_steps(out, after)
        return out

    def _first(self, obs: Observation) -> State:
        """The determinization the root's steps and first looks are taken from."""
        return determinize(obs, random.Random(self.config.seed ^ 0x5EED))

    def _prepare_root(self, obs: Observation, root: Node, prior_visits: int,
                      min_candidates: int = 2, only: Sequence[Step] | None = None
                      ) -> tuple[list[Step], int]:
        """The root's candidate steps (``only``, if given, checked legal) and the
        rollouts' horizon; if there are at least ``min_candidates``, those the root
        does not hold yet get their first look (``prior_visits`` visits each)."""
        cfg = self.config
        st = obs.state
        horizon = 99 if cfg.horizon == "game" else max(st.round, 1)
        # The root decision is the searcher's own: its legal steps follow from what it
        # sees, so they are the same in every determinization and are listed once.
        first = self._first(obs)
        legal = first.legal_steps()
        if only is None:
            root_legal = self._candidates(first, legal)
        else:
            root_legal = _checked_only(only, legal, st)
        if prior_visits > 0 and len(root_legal) >= min_candidates:
            # A reused subtree lacks the candidates its earlier search never tried.
            fresh = [s for s in root_legal if s not in root.children]
            if fresh:
                self._give_priors(first, root, obs.viewer, fresh, horizon, prior_visits)
        return root_legal, horizon

    def _give_priors(self, state: State, node: Node, player: int, legal: list[Step],
                     horizon: int, k: int) -> None:
        """Create a child per step (none of them a child yet), each with ``k`` visits
        of the value of: the step, the rest of that move by the quiet policy, the
        evaluator."""
        cfg = self.config
        node.player = player
        for step in legal:
            after = self._rollout(state.apply_unchecked(step), horizon, random.Random(1),
                                  player, player)
            util, money = evaluate(after, cfg.weights, cfg.evaluator, cfg.tempo, self._model)
            drive = bookkeeping_drive(after, cfg.book_drive)
            child = Node(state.n)
            child.n = child.avail = k
            child.w = [u * k for u in util]
            child.m = [x * k for x in money]
            node.children[step] = child
            node.n += k
            for i in range(state.n):
                node.w[i] += child.w[i]
                node.m[i] += child.m[i]
            if drive is not None:
                child.d = [x * k for x in drive]
                _add(node, child.d)

    # -- one iteration -----------------------------------------------------------------
    def _iterate(self, obs: Observation, root: Node, me: int, horizon: int,
                 rng: random.Random, root_legal: list[Step]) -> None:
        cfg = self.config
        state = determinize(obs, rng)
        node = root
        path = [root]
        mover = me
        while not _past_horizon(state, horizon):
            d = state.decision
            if d.kind == "chance":
                state = state.apply_unchecked(state.sample_chance())
                continue
            player = d.player
            if node is root:
                legal = root_legal
            else:
                legal = state.legal_steps()
                if d.hidden and player != me:
                    state = state.apply_unchecked(rollout_step(state, rng, legal))
                    continue
                if player != me and cfg.tree == "move":
                    break
                legal = self._candidates(state, legal)
            if cfg.node_priors and not node.children and node is not root and len(legal) > 1:
                self._give_priors(state, node, player, legal, horizon, cfg.prior_visits)
            node.player = player
            children = node.children
            known = []
            untried = []
            for s in legal:
                child = children.get(s)
                if child is None:
                    untried.append(s)
                else:
                    child.avail += 1
                    known.append((s, child))
            allowed = len(legal)
            if allowed > 4 and node is not root:  # every root candidate gets a first look
                allowed = max(2, int(cfg.widen_c * (node.n + 1) ** cfg.widen_alpha))
            if untried and len(known) < allowed:
                step = max(untried, key=lambda x: step_score(state, x) + rng.random())
                child = Node(state.n)
                child.avail = 1
                children[step] = child
                mover = player
                state = state.apply_unchecked(step)
                path.append(child)
                break
            if not known:
                break
            step, node = self._select(known, player, d.kind == "plan")
            mover = player
            state = state.apply_unchecked(step)
            path.append(node)
        state = self._rollout(state, horizon, rng, me, mover)
        util, money = evaluate(state, cfg.weights, cfg.evaluator, cfg.tempo, self._model)
        drive = bookkeeping_drive(state, cfg.book_drive)
        for nd in path:
            nd.n += 1
            w, m = nd.w, nd.m
            for i in range(len(w)):
                w[i] += util[i]
                m[i] += money[i]
            if drive is not None:
                _add(nd, drive)

    def _select(self, known: list[tuple[Step, Node]], player: int,
                planning: bool = False) -> tuple[Step, Node]:
        """UCB on the deciding player's mean lead over its best opponent.

        The lead is in the money sums (``select="lead"``), in the win-utility sums
        counted in pounds near a level game (``select="win"``), or half of each
        (``select="mix"``), plus the drive, if any. At a Planning decision
        (``planning``) the exploration constant is ``plan_c`` when it is set.
        """
        c = self.config.c_uct
        if planning and self.config.plan_c is not None:
            c = self.config.plan_c
        scale = self.config.margin_scale
        log, sqrt = math.log, math.sqrt
        two = len(known[0][1].m) == 2  # the common case: the only opponent is the other
        select = self.config.select
        mix = select == "mix"
        win = select == "win"
        k = self._win_pounds if win else 1.0
        best = known[0]
        best_value = -math.inf
        for step, child in known:
            n = child.n
            if n == 0:
                return step, child
            lead = (self._mixed_lead(child, player, two) if mix
                    else self._plain_lead(child, player, two, win, k))
            value = lead / (n * scale) + c * sqrt(log(child.avail) / n)
            if value > best_value:
                best, best_value = (step, child), value
        return best

    @staticmethod
    def _plain_lead(child: Node, player: int, two: bool, win: bool, k: float) -> float:
        """``select="lead"`` or ``"win"`` (the win sums times ``k``): the lead in the
        sums, plus the drive, over the best opponent."""
        v, d = (child.w if win else child.m), child.d
        if d is None:
            own = k * v[player]
            other = k * (v[1 - player] if two
                         else max(x for i, x in enumerate(v) if i != player))
        else:
            own = k * v[player] + d[player]
            other = (k * v[1 - player] + d[1 - player] if two
                     else max(k * x + d[i] for i, x in enumerate(v) if i != player))
        return own - other

    def _mean_lead(self, child: Node, player: int) -> float:
        """What selection exploits at ``child`` for ``player``: its mean lead, in
        pounds (no exploration term)."""
        if child.n == 0:
            return -math.inf
        two = len(child.m) == 2
        select = self.config.select
        lead = (self._mixed_lead(child, player, two) if select == "mix"
                else self._plain_lead(child, player, two, select == "win",
                                      self._win_pounds if select == "win" else 1.0))
        return lead / child.n

    def _mixed_lead(self, child: Node, player: int, two: bool) -> float:
        """``select="mix"``: each player's pounds are half its win utility in pounds,
        half its money, plus its drive; the lead is over the best opponent by those."""
        k = 0.5 * self._win_pounds
        w, m, d = child.w, child.m, child.d
        if two:  # no list: this runs for every child visited (same sums, same order)
            o = 1 - player
            if d is None:
                return (k * w[player] + 0.5 * m[player]) - (k * w[o] + 0.5 * m[o])
            return ((k * w[player] + 0.5 * m[player] + d[player])
                    - (k * w[o] + 0.5 * m[o] + d[o]))
        if d is None:
            pounds = [k * w[i] + 0.5 * m[i] for i in range(len(w))]
        else:
            pounds = [k * w[i] + 0.5 * m[i] + d[i] for i in range(len(w))]
        return pounds[player] - max(x for i, x in enumerate(pounds) if i != player)

    def _rollout(self, state: State, horizon: int, rng: random.Random,
                 me: int = -1, mover: int = -1) -> State:
        """Play on from ``state`` by the policy; ``mover`` made the last step."""
        steps = 0
        limit = self.config.max_rollout_steps
        if self.config.horizon == "cycle" and me >= 0:
            # Play on until the searcher's next turn begins: every leaf is evaluated
            # at the same point of the turn order.
            noise = self.config.rollout_noise
            while not _past_horizon(state, horizon) and steps < limit:
                d = state.decision
                if d.kind == "action" and d.player == me and steps:
                    break
                state = state.apply_unchecked(rollout_step(state, rng, noise=noise))
                steps += 1
            return state
        if self.config.horizon in ("turn", "move"):
            # Finish the turn in progress (its remaining sub-choices), or the whole move
            # (every step until someone else or chance decides), then evaluate.
            turn = self.config.horizon == "turn"
            if turn:  # "turn" finishes the sub-choices of whoever decides next
                mover = state.decision.player  # -1 at chance and at the end
            stop = horizon if turn else 99
            noise = self.config.rollout_noise
            # At expansion, bookkeeping and ink-jar decisions the solvers' best plan is
            # followed step by step: solving again after each step of it would be a
            # cache miss every time (a new state), for the same answer as a rule.
            plan: tuple[Step, ...] = ()
            while not _past_horizon(state, stop) and steps < limit:
                d = state.decision
                if d.kind == "chance" or d.player != mover or (turn and d.kind == "action"):
                    break
                if d.kind in SOLVED_KINDS:
                    legal = state.legal_steps()
                    if plan and plan[0] in legal:
                        step, plan = plan[0], plan[1:]
                    elif len(legal) == 1:
                        step, plan = legal[0], ()
                    else:
                        plan = best_plan(state, legal)
                        step, plan = plan[0], plan[1:]
                else:
                    plan = ()
                    step = rollout_step(state, rng, noise=noise)
                state = state.apply_unchecked(step)
                steps += 1
            return state
        while not _past_horizon(state, horizon) and steps < limit:
            state = state.apply_unchecked(rollout_step(state, rng))
            steps += 1
        return state

    # -- results -------------------------------------------------------------------
    def _result(self, me: int, root: Node, iterations: int, elapsed: float,
                ranking: list[Step] | None = None) -> SearchResult:
        """The root's lines, most visited first, or in ``ranking``'s order (a halving's:
        the step it chose first)."""
        total = max(1, sum(ch.n for ch in root.children.values()))
        lines = []
        for step, child in root.children.items():
            if child.n == 0:
                continue
            lines.append(Line(
                step=step,
                visits=child.n,
                share=child.n / total,
                win=[x / child.n for x in child.w],
                money=[x / child.n for x in child.m],
                pv=principal_variation(child),
            ))
        lines.sort(key=lambda ln: (-ln.visits, -ln.win[me], ln.step))
        if ranking:
            place = {st: i for i, st in enumerate(ranking)}
            lines.sort(key=lambda ln: place.get(ln.step, len(place)))  # stable: visits next
        return SearchResult(me, lines, iterations, elapsed, iterations, root)


def _checked_only(only: Sequence[Step], legal: list[Step], state: State) -> list[Step]:
    """``only`` without repeats, each step legal at the root, else a ``ValueError``."""
    allowed = set(legal)
    for step in only:
        if step not in allowed:
            raise ValueError(f"only: {step.text(state.cat)!r} is not a legal step here")
    out = list(dict.fromkeys(only))
    if not out:
        raise ValueError("only: no step given")
    return out


def _past_horizon(state: State, horizon: int) -> bool:
    return state.phase == 3 or state.round > horizon


def principal_variation(node: Node, max_len: int = 40) -> list[tuple[int, Step]]:
    """Most-visited path below ``node``: (player, step) pairs."""
    out: list[tuple[int, Step]] = []
    while len(out) < max_len:
        best = node.best_child()
        if best is None or best[1].n == 0:
            break
        out.append((node.player, best[0]))
        node = best[1]
    return out


def subtree(root: Node, steps: list[Step]) -> Node | None:
    """The node reached from ``root`` by ``steps`` (for tree reuse), None if unknown."""
    node = root
    for s in steps:
        child = node.children.get(s)
        if child is None:
            return None
        node = child
    return node
