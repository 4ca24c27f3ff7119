"""The search tree's bookkeeping beyond selection and backup (``tests/test_search_core``):
node means, the most visited child and the principal variation, the drive sums, the
first look at the root, the settings' messages, tree reuse and the reported shares
(issue 51). Each pins an exact value where a one-line change in ``search/mcts.py``
would show.
"""

from __future__ import annotations

import itertools
import random

import pytest

import engine
from search.bench.positions import mid_game
from search.evaluator import Weights
from search.mcts import (
    MCTS,
    Node,
    SearchConfig,
    SearchResult,
    _add,
    _num,
    principal_variation,
    subtree,
)
from tests.builders import play_setup
from tests.random_games import game_states


def _node(n: int, w: list[float], player: int = -1) -> Node:
    node = Node(len(w))
    node.n, node.avail, node.w = n, n, list(w)
    node.player = player
    return node


def test_mean_utility_is_the_sum_over_the_visits() -> None:
    node = _node(4, [3.0, 1.0])
    assert node.mean_utility(0) == 0.75 and node.mean_utility(1) == 0.25
    assert _node(0, [0.0, 0.0]).mean_utility(0) == 0.0


def test_best_child_is_the_most_visited_then_the_deciders_best() -> None:
    """Visits first; equal visits: the higher mean utility for the deciding player."""
    root = _node(30, [15.0, 15.0], player=1)
    root.children = {"a": _node(10, [6.0, 4.0]), "b": _node(12, [4.0, 8.0]),
                     "c": _node(12, [9.0, 3.0])}
    assert root.best_child() == ("b", root.children["b"])
    root.player = 0
    assert root.best_child() == ("c", root.children["c"])
    root.children["a"].n = 13
    assert root.best_child()[0] == "a"
    assert Node(2).best_child() is None


def test_a_new_node_is_empty_and_nobodys() -> None:
    node = Node(3)
    assert (node.player, node.n, node.avail, node.children, node.d) == (-1, 0, 0, {}, None)
    assert node.w == [0.0] * 3 and node.m == [0.0] * 3


def test_result_lists_the_visited_root_children() -> None:
    """Lines: every root child visited at least once (in visit order, then the higher
    win for the searcher), with its share of the children's visits, means and line."""
    root = _node(13, [6.0, 7.0], player=0)
    root.children = {"z": _node(0, [0.0, 0.0]), "a": _node(5, [3.0, 2.0], player=1),
                     "b": _node(5, [4.0, 1.0], player=1), "d": _node(1, [0.5, 0.5])}
    root.children["b"].children = {"x": _node(3, [2.0, 1.0])}
    for c in root.children.values():
        c.m = [10.0 * c.n, 20.0 * c.n]
    result = MCTS(SearchConfig(iterations=1))._result(0, root, 11, 0.5)
    assert [ln.step for ln in result.lines] == ["b", "a", "d"]
    assert [ln.share for ln in result.lines] == [5 / 11, 5 / 11, 1 / 11]
    assert result.lines[0].win == [0.8, 0.2] and result.lines[0].money == [10.0, 20.0]
    assert result.lines[0].pv == [(1, "x")] and result.lines[1].pv == []
    assert (result.player, result.iterations, result.elapsed, result.determinizations
            ) == (0, 11, 0.5, 11)
    assert result.best == "b" and result.iterations_per_second == 22.0
    single = _node(1, [1.0, 0.0], player=0)
    single.children = {"only": _node(1, [1.0, 0.0])}
    assert MCTS(SearchConfig(iterations=1))._result(0, single, 1, 0.1).lines[0].share == 1.0


def test_principal_variation_follows_the_most_visited_children() -> None:
    root = _node(20, [10.0, 10.0], player=0)
    a, b = _node(12, [7.0, 5.0], player=1), _node(8, [3.0, 5.0], player=1)
    root.children = {"a": a, "b": b}
    a.children = {"x": _node(5, [3.0, 2.0], player=0), "y": _node(6, [3.0, 3.0], player=0)}
    a.children["y"].children = {"z": _node(0, [0.0, 0.0])}  # never visited: not shown
    assert principal_variation(root) == [(0, "a"), (1, "y")]
    assert principal_variation(root, max_len=1) == [(0, "a")]
    assert subtree(root, ["a", "y"]) is a.children["y"]
    assert subtree(root, ["a", "q"]) is None and subtree(root, []) is root


def test_a_long_line_is_cut_at_40_steps() -> None:
    root = node = _node(100, [50.0, 50.0], player=0)
    for k in range(60):
        child = _node(100 - k, [1.0, 1.0], player=k % 2)
        node.children = {f"s{k}": child}
        node = child
    pv = principal_variation(root)
    assert len(pv) == 40 and pv[0] == (0, "s0") and pv[-1] == (0, "s39")


def test_drive_sums_add_up() -> None:
    node = Node(3)
    assert node.d is None
    _add(node, [1.0, 2.0, 3.0])
    assert node.d == [1.0, 2.0, 3.0]
    _add(node, [0.5, 0.0, -1.0])
    assert node.d == [1.5, 2.0, 2.0]


def test_every_node_holds_its_visits_times_a_constant_drive(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A constant drive per leaf: every node's drive sums are its visits times it (the
    first looks' pseudo-visits included), player by player."""
    drive = [1.0, 2.0, 4.0]
    monkeypatch.setattr("search.mcts.bookkeeping_drive", lambda *args: list(drive))
    state = mid_game(players=3, seed=11, round_=3)
    result = MCTS(SearchConfig(iterations=60, seed=5, prior_visits=2)).search(
        engine.observe(state, state.decision.player))
    stack = [result.root]
    seen = 0
    while stack:
        node = stack.pop()
        stack.extend(node.children.values())
        if node.n:
            assert node.d == pytest.approx([node.n * x for x in drive]), node.n
            seen += 1
    assert seen > 20


def _one_candidate() -> engine.Observation:
    """P1's Planning when 'ready' is its only candidate (seed 0, step 27)."""
    s = next(itertools.islice(game_states(2, 0, False), 27, None))
    assert s.decision.kind == "plan" and s.decision.player == 0
    return engine.observe(s, 0)


@pytest.mark.parametrize(("prior", "visits"), [(0, 1), (1, 1), (3, 3)])
def test_first_look_gives_every_candidate_its_visits(prior: int, visits: int) -> None:
    """The root before any iteration: a child per candidate step, each with
    ``max(1, prior_visits)`` visits and as many availabilities; the root's sums are
    the children's."""
    state = mid_game(players=2, seed=11, round_=3)
    obs = engine.observe(state, state.decision.player)
    root = MCTS(SearchConfig(iterations=1, prior_visits=prior)).first_look(obs)
    searched = MCTS(SearchConfig(iterations=1, prior_visits=2)).search(obs).root
    assert set(root.children) == set(searched.children) and len(root.children) >= 2
    for child in root.children.values():
        assert child.n == child.avail == visits
        assert sum(child.w) == pytest.approx(visits)
    assert root.n == visits * len(root.children)
    assert root.player == state.decision.player
    for i in range(2):
        assert root.w[i] == pytest.approx(sum(c.w[i] for c in root.children.values()))
        assert root.m[i] == pytest.approx(sum(c.m[i] for c in root.children.values()))


def test_first_look_at_a_single_candidate() -> None:
    """With one candidate the search gives it no first look (nothing to choose), but
    ``first_look`` does."""
    obs = _one_candidate()
    root = MCTS(SearchConfig(iterations=1, prior_visits=2)).first_look(obs)
    assert list(root.children) == [engine.Step("ready")]
    assert root.children[engine.Step("ready")].n == 2
    searched = MCTS(SearchConfig(iterations=3, prior_visits=2)).search(obs)
    assert searched.root.children[engine.Step("ready")].n == 3  # the iterations only


@pytest.mark.parametrize(("knob", "value", "message"), [
    ("iterations", 0, "iterations: expected an integer in [1, 10000000], got 0"),
    ("time", 0, "time: expected a finite number in (0, 3600], got 0"),
    ("widen_alpha", 1.5, "widen_alpha: expected a finite number in [0, 1], got 1.5"),
    ("prior_visits", 2.5, "prior_visits: expected an integer in [0, 10000], got 2.5"),
])
def test_a_setting_out_of_range_says_what_is_expected(knob: str, value: float,
                                                      message: str) -> None:
    knobs = {"iterations": 5, knob: value}
    with pytest.raises(ValueError) as err:
        SearchConfig(**knobs)  # type: ignore[arg-type]
    assert str(err.value) == message


def test_bounds_print_whole_numbers_whole() -> None:
    assert _num(10**7) == "10000000" and _num(3600.0) == "3600"
    assert _num(0.5) == "0.5" and _num(-2.25) == "-2.25"


def test_lines_share_the_root_children_visits() -> None:
    """A line's share is its visits over all the root children's visits."""
    state = mid_game(players=2, seed=11, round_=3)
    result = MCTS(SearchConfig(iterations=50, seed=5)).search(
        engine.observe(state, state.decision.player))
    total = sum(c.n for c in result.root.children.values())
    assert sum(ln.share for ln in result.lines) == pytest.approx(1.0)
    for line in result.lines:
        assert line.share == pytest.approx(line.visits / total)


def _state_at(step: int) -> engine.State:
    return next(itertools.islice(game_states(2, 0, False), step, None))


def test_two_candidates_both_get_their_first_look() -> None:
    """Two candidates are enough for first looks (seed 0, step 55: two expansions):
    each is available at every iteration after its prior visits."""
    s = _state_at(55)
    obs = engine.observe(s, s.decision.player)
    result = MCTS(SearchConfig(iterations=7, seed=1, prior_visits=2)).search(obs)
    assert len(result.root.children) == 2
    for child in result.root.children.values():
        assert child.avail == 2 + 7


def _mid() -> engine.Observation:
    state = mid_game(players=2, seed=11, round_=3)
    return engine.observe(state, state.decision.player)


def test_one_prior_visit_is_a_first_look() -> None:
    result = MCTS(SearchConfig(iterations=20, seed=1, prior_visits=1)).search(_mid())
    assert len(result.root.children) >= 2
    for child in result.root.children.values():
        assert child.avail == 1 + 20


def test_without_priors_candidates_join_one_per_iteration() -> None:
    """No first looks: each iteration adds one untried root candidate (the root is never
    widened), available from then on: the availabilities are N, N-1, ..."""
    obs = _mid()
    n_candidates = len(MCTS(SearchConfig(iterations=1)).first_look(obs).children)
    iterations = n_candidates + 5
    result = MCTS(SearchConfig(iterations=iterations, seed=1, prior_visits=0)).search(obs)
    avails = sorted((c.avail for c in result.root.children.values()), reverse=True)
    assert avails == list(range(iterations, iterations - n_candidates, -1))


def _leaves(monkeypatch: pytest.MonkeyPatch, **knobs: object
            ) -> tuple[list[engine.State], list[float], engine.Observation]:
    """The states the first looks evaluate, and the tempo they were given."""
    import search.mcts as mcts

    leaves: list[engine.State] = []
    tempos: list[float] = []
    real = mcts.evaluate

    def spy(s: engine.State, w: object, evaluator: str, tempo: float = 0.0,
            model: object = None) -> object:
        leaves.append(s)
        tempos.append(tempo)
        return real(s, w, evaluator, tempo, model)  # type: ignore[arg-type]

    monkeypatch.setattr(mcts, "evaluate", spy)
    obs = _mid()
    MCTS(SearchConfig(iterations=1, **knobs)).first_look(obs)  # type: ignore[arg-type]
    assert leaves
    return leaves, tempos, obs


def test_the_rollout_horizons_end_where_they_say(monkeypatch: pytest.MonkeyPatch) -> None:
    """SearchConfig.horizon: "turn" ends where a turn begins (an action decision),
    chance or someone else decides; "move" where someone else or chance decides;
    "cycle" where the searcher's next turn begins (or the round ends); "round" after the
    round; "game" at the end of the game."""
    leaves, _, obs = _leaves(monkeypatch, horizon="turn")
    me, round_ = obs.viewer, obs.state.round
    for s in leaves:
        d = s.decision
        assert d.kind in ("action", "chance") or d.player != me or s.round > round_
    leaves, _, _ = _leaves(monkeypatch, horizon="move")
    assert all(s.decision.player != me or s.round > round_ for s in leaves)
    assert any(s.decision.kind == "action" for s in leaves)  # the next player's turn
    leaves, _, _ = _leaves(monkeypatch, horizon="cycle")
    assert all((s.decision.kind, s.decision.player) == ("action", me) or s.round > round_
               for s in leaves)
    leaves, _, _ = _leaves(monkeypatch, horizon="round")
    assert all(s.round == round_ + 1 and s.phase_name == "planning" for s in leaves)
    leaves, _, _ = _leaves(monkeypatch, horizon="game")
    assert all(s.is_over() for s in leaves)


def test_in_round_one_the_round_horizon_is_round_one(monkeypatch: pytest.MonkeyPatch
                                                    ) -> None:
    import search.mcts as mcts

    rounds: list[int] = []
    real = mcts.evaluate
    monkeypatch.setattr(mcts, "evaluate", lambda s, *a: (rounds.append(s.round), real(s, *a))[1])
    from tests.builders import start

    s = start(2, 0)
    MCTS(SearchConfig(iterations=3, horizon="round")).search(engine.observe(s, 0))
    assert rounds and all(r == 2 for r in rounds)


def test_first_looks_carry_the_tempo_and_the_drive(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first looks are evaluated as the iterations' leaves are: with the tempo, and
    with the bookkeeping drive (k visits of it)."""
    _, tempos, _ = _leaves(monkeypatch, tempo=2.5)
    assert set(tempos) == {2.5}
    root = MCTS(SearchConfig(iterations=1, prior_visits=3, book_drive=0.5)).first_look(_mid())
    for child in root.children.values():
        assert child.d is not None and len(child.d) == 2
    assert root.d == pytest.approx([sum(c.d[i] for c in root.children.values())  # type: ignore[index]
                                    for i in range(2)])
    drive = [1.5, 4.0]
    monkeypatch.setattr("search.mcts.bookkeeping_drive", lambda *args: list(drive))
    root = MCTS(SearchConfig(iterations=1, prior_visits=3)).first_look(_mid())
    for child in root.children.values():
        assert child.d == [3 * x for x in drive]


def _walk(node: Node, depth: int = 0) -> list[tuple[Node, int]]:
    out = [(node, depth)]
    for child in node.children.values():
        out.extend(_walk(child, depth + 1))
    return out


def test_the_round_tree_holds_both_players_moves_past_chance() -> None:
    """tree="round": the other player's public moves are tree nodes too, and chance
    events on the way (cards and books drawn) are sampled, never nodes: every node that
    has children is a player's (seat 0 or 1), and the tree reaches several levels."""
    result = MCTS(SearchConfig(iterations=300, seed=5)).search(_mid())
    nodes = _walk(result.root)
    deciders = {n.player for n, _ in nodes if n.children}
    assert deciders == {0, 1}
    assert max(d for _, d in nodes) >= 4


def test_the_move_tree_holds_the_searchers_own_steps_only() -> None:
    """tree="move": the descent stops at another player's decision; every iteration is
    still backed up (the root's visits are the first looks plus the iterations)."""
    obs = _mid()
    result = MCTS(SearchConfig(iterations=200, seed=5, tree="move", prior_visits=2)
                  ).search(obs)
    nodes = _walk(result.root)
    assert {n.player for n, _ in nodes if n.children} == {obs.viewer}
    assert max(d for _, d in nodes) >= 2
    assert result.root.n == 2 * len(result.root.children) + 200


def test_others_hidden_plans_are_rolled_out_not_searched() -> None:
    """Searching P1's Planning: P1's own plan steps are tree nodes (below the root too);
    P2's face-down planning is played by the rollout policy, never a node; the tree goes
    on past it into the action phase."""
    s = play_setup(2, 3)
    obs = engine.observe(s, 0)
    result = MCTS(SearchConfig(iterations=300, seed=5)).search(obs)
    steps = [(n.player, st.kind, d) for n, d in _walk(result.root) for st in n.children]
    assert not any(p == 1 and k in ("plan", "ready") for p, k, _ in steps)
    assert any(p == 0 and k == "plan" and d >= 1 for p, k, d in steps)
    assert any(k not in ("plan", "ready") for _, k, _ in steps)


def test_node_priors_give_new_nodes_their_first_looks() -> None:
    """node_priors: a node below the root met with several candidates gets a child per
    candidate at once, each with ``prior_visits`` pseudo-visits."""
    result = MCTS(SearchConfig(iterations=120, seed=5, node_priors=True, prior_visits=3)
                  ).search(_mid())
    below = [n for n, d in _walk(result.root) if d >= 1 and len(n.children) >= 2]
    assert below
    for node in below:
        assert all(c.n >= 3 and c.avail >= 3 for c in node.children.values())
    assert any(len(n.children) == 2 for n in below)


def test_four_candidates_are_never_widened(monkeypatch: pytest.MonkeyPatch) -> None:
    """With 4 candidates or fewer a node may try every one (candidates cut to the first
    4 here; widen_c 0.5 and widen_alpha 0 would allow 2): some node whose candidate
    lists all had 4 steps has more than 2 children."""
    result, lists = _search_seeing_candidates(
        monkeypatch, SearchConfig(iterations=300, seed=5, widen_c=0.5, widen_alpha=0.0), 4)
    wide = 0
    for node, depth in _walk(result.root):
        kids = set(node.children)
        containing = [len(c) for c in lists if kids and kids <= c]
        if depth >= 1 and containing and min(containing) == 4 and len(kids) > 2:
            wide += 1
    assert wide >= 1


@pytest.mark.parametrize("cut", [None, 5])
def test_progressive_widening_below_the_root(monkeypatch: pytest.MonkeyPatch,
                                            cut: int | None) -> None:
    """Below the root, a node with more than 4 candidates has at most
    max(2, int(widen_c * (n + 1) ** widen_alpha)) children: 2 with widen_c 2.5 and
    widen_alpha 0. A node is held to it when every candidate list met by the search
    that holds its children is longer than 4 (cut to 5 in the second case)."""
    result, lists = _search_seeing_candidates(
        monkeypatch, SearchConfig(iterations=300, seed=5, widen_c=2.5, widen_alpha=0.0), cut)
    held = 0
    for node, depth in _walk(result.root):
        if depth == 0 or not node.children:
            continue
        kids = set(node.children)
        containing = [len(c) for c in lists if kids <= c]
        if containing and min(containing) > 4:
            held += 1
            assert len(node.children) <= 2
    assert held >= 5


def test_the_root_is_never_widened() -> None:
    """Without first looks and with a small widen_c, the root still takes a new
    candidate at every iteration until all are tried."""
    obs = _mid()
    n_candidates = len(MCTS(SearchConfig(iterations=1)).first_look(obs).children)
    assert n_candidates > 4
    result = MCTS(SearchConfig(iterations=n_candidates, seed=1, prior_visits=0,
                               widen_c=0.5)).search(obs)
    assert len(result.root.children) == n_candidates


def test_the_descent_goes_on_past_a_chance_event() -> None:
    """Seed 0, step 34: every candidate (placing a book) is followed by a chance event
    (a book drawn): the tree still grows below the root's children."""
    s = _state_at(34)
    assert s.decision.kind == "place-book"
    assert all(s.apply(x).decision.kind == "chance" for x in s.legal_steps())
    result = MCTS(SearchConfig(iterations=120, seed=5)).search(
        engine.observe(s, s.decision.player))
    assert max(d for _, d in _walk(result.root)) >= 2


def _rollout_calls(monkeypatch: pytest.MonkeyPatch, obs: engine.Observation,
                   **knobs: object) -> list[list[object]]:
    """Per first look, the noise of each ``rollout_step`` its rollout made."""
    import search.mcts as mcts

    calls: list[list[object]] = [[]]
    real_step, real_eval = mcts.rollout_step, mcts.evaluate

    def step(s: engine.State, rng: object, legal: object = None,
             noise: object = "default") -> engine.Step:
        calls[-1].append(noise)
        return real_step(s, rng, legal) if noise == "default" else \
            real_step(s, rng, legal, noise=noise)  # type: ignore[arg-type]

    def evaluate(*args: object) -> object:
        calls.append([])
        return real_eval(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(mcts, "rollout_step", step)
    monkeypatch.setattr(mcts, "evaluate", evaluate)
    MCTS(SearchConfig(iterations=1, **knobs)).first_look(obs)  # type: ignore[arg-type]
    return calls[:-1]


@pytest.mark.parametrize("horizon", ["turn", "move", "cycle"])
def test_rollouts_play_with_the_configured_noise(monkeypatch: pytest.MonkeyPatch,
                                                 horizon: str) -> None:
    calls = _rollout_calls(monkeypatch, _mid(), horizon=horizon, rollout_noise=0.7)
    noises = [x for c in calls for x in c]
    assert noises and set(noises) == {0.7}


@pytest.mark.parametrize(("horizon", "limit"), [("game", 3), ("cycle", 2), ("move", 2),
                                                ("turn", 1)])
def test_rollouts_stop_at_max_rollout_steps(monkeypatch: pytest.MonkeyPatch, horizon: str,
                                            limit: int) -> None:
    """At most ``max_rollout_steps`` steps per rollout; a game-long one makes exactly
    that many (the game does not end in 3 steps)."""
    calls = _rollout_calls(monkeypatch, _mid(), horizon=horizon, max_rollout_steps=limit)
    counts = [len(c) for c in calls]
    assert max(counts) <= limit
    if horizon in ("game", "cycle"):
        assert max(counts) == limit
    if horizon == "game":
        assert set(counts) == {limit}


def test_the_cycle_horizon_for_the_first_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 0 searching: its rollouts end where its next turn begins (some before the
    round ends)."""
    import search.mcts as mcts
    from tests.builders import start

    leaves: list[engine.State] = []
    real = mcts.evaluate
    monkeypatch.setattr(mcts, "evaluate",
                        lambda s, *a: (leaves.append(s), real(s, *a))[1])
    s = start(2, 0)
    MCTS(SearchConfig(iterations=1, horizon="cycle")).first_look(engine.observe(s, 0))
    assert leaves
    assert all((x.decision.kind, x.decision.player) == ("action", 0) or x.round > 1
               for x in leaves)
    assert any(x.round == 1 for x in leaves)


def test_bound_messages_show_what_was_given() -> None:
    from search.mcts import Bound

    with pytest.raises(ValueError) as err:
        Bound(0, 1).check("x", 5)
    assert str(err.value) == "x: expected a finite number in [0, 1], got 5"
    with pytest.raises(ValueError) as err:
        Bound(0, 1, open_lo=True, integer=True).check("x", 0, shown="zero")
    assert str(err.value) == "x: expected an integer in (0, 1], got 'zero'"


def test_search_config_needs_a_budget_and_an_integer_seed() -> None:
    with pytest.raises(ValueError) as err:
        SearchConfig()
    assert str(err.value) == "SearchConfig: give iterations or time"
    assert SearchConfig(time=1.0).iterations is None
    for seed in (True, "1", 1.0):
        with pytest.raises(ValueError) as err:
            SearchConfig(iterations=1, seed=seed)  # type: ignore[arg-type]
        assert str(err.value) == f"seed: expected an integer, got {seed!r}"


def test_search_refusals_say_why() -> None:
    state = mid_game(players=2, seed=11, round_=3)
    other = 1 - state.decision.player
    with pytest.raises(ValueError) as err:
        MCTS(SearchConfig(iterations=1)).search(engine.observe(state, other))
    assert str(err.value) == (f"it is not P{other + 1}'s decision "
                              f"(decision: {state.decision})")
    s = start_game_over()
    with pytest.raises(ValueError) as err:
        MCTS(SearchConfig(iterations=1)).search(engine.observe(s, 0))
    assert str(err.value) == "the game is over: nothing to search"


def start_game_over() -> engine.State:
    import random

    from tests.builders import start

    s, rng = start(2, 0), random.Random(1)
    while not s.is_over():
        s = s.apply_unchecked(s.random_step(rng))
    return s


def test_a_time_budget_stops_the_search() -> None:
    """``time`` alone: the search runs until the deadline (at least one iteration),
    reports the elapsed time, and the win pounds follow the rounds left."""
    import time as clock

    from search.evaluator import rounds_left

    state = mid_game(players=2, seed=11, round_=3)
    search = MCTS(SearchConfig(time=0.3, seed=1))
    t0 = clock.perf_counter()
    result = search.search(engine.observe(state, state.decision.player))
    wall = clock.perf_counter() - t0
    assert result.iterations >= 1 and 0.3 <= result.elapsed <= wall
    assert search._win_pounds == 2.0 * search.config.weights.win_scale * (
        1.0 + rounds_left(state))
    reports: list[float] = []
    MCTS(SearchConfig(iterations=8, report_every=4)).search(
        engine.observe(state, state.decision.player),
        callback=lambda r: reports.append(r.elapsed))
    assert len(reports) == 2 and all(0 <= x <= wall + 60 for x in reports)


def test_iteration_leaves_follow_the_horizon_and_get_the_tempo(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The iterations' leaves (not only the first looks) end as the horizon says and
    are evaluated with the configured tempo."""
    import search.mcts as mcts

    leaves: list[tuple[engine.State, float]] = []
    real = mcts.evaluate

    def spy(s: engine.State, w: object, evaluator: str, tempo: float = 0.0,
            model: object = None) -> object:
        leaves.append((s, tempo))
        return real(s, w, evaluator, tempo, model)  # type: ignore[arg-type]

    monkeypatch.setattr(mcts, "evaluate", spy)
    obs = _mid()
    me, round_ = obs.viewer, obs.state.round
    MCTS(SearchConfig(iterations=40, seed=3, prior_visits=0, horizon="move",
                      tempo=1.25)).search(obs)
    assert len(leaves) == 40 and {t for _, t in leaves} == {1.25}
    # "move": the mover's move is finished: no leaf is inside a move (a sub-decision).
    assert all(s.decision.kind in ("action", "chance", "plan", "over") or s.round > round_
               for s, _ in leaves)
    leaves.clear()
    MCTS(SearchConfig(iterations=30, seed=3, horizon="cycle")).search(obs)
    assert all((s.decision.kind, s.decision.player) == ("action", me) or s.round > round_
               for s, _ in leaves)
    # A node's first looks (node_priors) end at the cycle of that node's decider.
    leaves.clear()
    MCTS(SearchConfig(iterations=30, seed=3, horizon="cycle", node_priors=True)
         ).search(obs)
    assert all(s.decision.kind == "action" or s.round > round_ for s, _ in leaves)


def _search_seeing_candidates(monkeypatch: pytest.MonkeyPatch, config: SearchConfig,
                              cut: int | None = None
                              ) -> tuple[SearchResult, list[frozenset[engine.Step]]]:
    """A search of the mid-game position, and every candidate list it met (each cut to
    its first ``cut`` steps)."""
    import search.mcts as mcts

    real = mcts.candidate_steps
    lists: list[frozenset[engine.Step]] = []

    def spy(s: engine.State, legal: list[engine.Step]) -> list[engine.Step]:
        out = real(s, legal)[:cut]
        lists.append(frozenset(out))
        return out

    monkeypatch.setattr(mcts, "candidate_steps", spy)
    return MCTS(config).search(_mid()), lists


def test_widening_grows_with_the_visits(monkeypatch: pytest.MonkeyPatch) -> None:
    """widen_c 1, widen_alpha 0.5: a node with more than 4 candidates holds at most
    max(2, int(sqrt(n))) children after n visits, and more than 2 once it has been
    visited often enough."""
    result, lists = _search_seeing_candidates(
        monkeypatch, SearchConfig(iterations=400, seed=5, widen_c=1.0, widen_alpha=0.5))
    wide = 0
    for node, depth in _walk(result.root):
        kids = set(node.children)
        containing = [len(c) for c in lists if kids and kids <= c]
        if depth >= 1 and containing and min(containing) > 4:
            assert len(kids) <= max(2, int(node.n ** 0.5))
            wide += len(kids) > 2
    assert wide >= 1


def test_a_new_child_is_a_best_scoring_untried_step() -> None:
    """Expansion takes the untried step with the best policy score plus a noise below 1:
    with no first looks, the root's first child scores within 1 of the best candidate,
    whatever the seed."""
    import random

    from search.policy import step_score

    obs = _mid()
    first = engine.determinize(obs, random.Random(0))
    cands = list(MCTS(SearchConfig(iterations=1)).first_look(obs).children)
    score = {x: step_score(first, x) for x in cands}
    best = max(score.values())
    assert min(score.values()) < best - 1
    for seed in range(8):
        result = MCTS(SearchConfig(iterations=1, seed=seed, prior_visits=0)).search(obs)
        (child,) = result.root.children
        assert score[child] > best - 1


def test_bounds_admit_exactly_their_range() -> None:
    from search.mcts import Bound

    b = Bound(0, 10)
    assert b.admits(0) and b.admits(10) and b.admits(2.5)
    assert not b.admits(10.5) and not b.admits(-1)
    assert not b.admits(True) and not b.admits("3") and not b.admits(None)
    assert not b.admits(float("nan")) and not b.admits(float("inf"))
    assert not Bound(0, 10, open_lo=True).admits(0)
    assert not Bound(0, 10, integer=True).admits(2.5)


@pytest.mark.parametrize(("knobs", "message"), [
    ({"node_priors": 1}, "node_priors: expected true or false, got 1"),
    ({"weights": None}, "weights: expected evaluator Weights, got None"),
    ({"weights": Weights(win_scale=float("nan"))},
     "weights.win_scale: expected a finite number in (0, 1000000], got nan"),
    ({"tree": "forest"}, "tree: one of move, round, got 'forest'"),
])
def test_other_settings_say_what_is_expected(knobs: dict[str, object], message: str
                                             ) -> None:
    with pytest.raises(ValueError) as err:
        SearchConfig(iterations=1, **knobs)  # type: ignore[arg-type]
    assert str(err.value) == message


def test_a_rollout_follows_the_solvers_whole_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """At a solved decision (bookkeeping points here, after "keeper") the rollout plays
    the solvers' best plan step by step to its end, as the plan says (horizon "turn")."""
    from search.candidates import best_plan
    from search.policy import SOLVED_KINDS

    leaves, _, obs = _leaves(monkeypatch, horizon="turn")
    cands = list(MCTS(SearchConfig(iterations=1)).first_look(obs).children)
    keeper = next(i for i, x in enumerate(cands) if x.kind == "keeper")
    s = obs.state.apply_unchecked(cands[keeper])
    mover = s.decision.player
    assert s.decision.kind in SOLVED_KINDS
    plan = best_plan(s, s.legal_steps())
    assert len(plan) >= 2
    for x in plan:
        s = s.apply(x)
    assert s.decision.player != mover or s.decision.kind in ("action", "chance")
    leaf = leaves[keeper].clone()
    leaf.rng = s.rng = 0
    assert leaf == s


def test_widening_follows_its_schedule_visit_by_visit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The widening schedule exactly, not only its bound: a node below the root chooses
    at each visit after the one that created it; at a choosing visit with ``n`` visits
    so far it may hold max(2, int(widen_c * (n + 1) ** widen_alpha)) children and adds
    one when it holds fewer. Where every candidate list met there is one and the same
    list, of more than 4 steps, the children it ends with follow from its visits alone
    (widen_c 1.5, widen_alpha 0.5: 2 children at the first two choosing visits, 3 at
    the third...)."""
    result, lists = _search_seeing_candidates(
        monkeypatch, SearchConfig(iterations=600, seed=5, widen_c=1.5, widen_alpha=0.5))
    checked = grown = 0
    for node, depth in _walk(result.root):
        kids = set(node.children)
        met = {c for c in lists if kids and kids <= c}
        if depth < 1 or len(met) != 1:
            continue
        (only,) = met
        if len(only) <= 4:
            continue
        held = 0
        for n in range(1, node.n):  # the choosing visits, n visits before each
            if held < min(len(only), max(2, int(1.5 * (n + 1) ** 0.5))):
                held += 1
        assert len(kids) == held, (node.n, len(only))
        checked += 1
        grown += held > 2
    assert checked >= 5 and grown >= 1


def _rollout_played(monkeypatch: pytest.MonkeyPatch, state: engine.State, horizon: str,
                    limit: int = 10_000) -> list[tuple[str, engine.Step]]:
    """The (decision kind, step) pairs ``MCTS._rollout`` plays from ``state`` (its
    decider moving) with this horizon and step limit."""
    real = engine.State.apply_unchecked
    played: list[tuple[str, engine.Step]] = []

    def recorded(s: engine.State, step: engine.Step) -> engine.State:
        played.append((s.decision.kind, step))
        return real(s, step)

    monkeypatch.setattr(engine.State, "apply_unchecked", recorded)
    search = MCTS(SearchConfig(iterations=1, horizon=horizon, max_rollout_steps=limit))
    player = state.decision.player
    search._rollout(state, state.round, random.Random(1), player, player)
    monkeypatch.setattr(engine.State, "apply_unchecked", real)
    return played


@pytest.mark.parametrize("horizon", ["turn", "move"])
def test_turn_and_move_rollouts_stop_exactly_at_the_step_limit(
        monkeypatch: pytest.MonkeyPatch, horizon: str) -> None:
    """A "turn" or "move" rollout plays min(limit, the steps it needs) steps: the limit
    counted one a step, from 0 (positions inside a turn with at least 3 steps left)."""
    checked = 0
    for seed in range(30):
        s = mid_game(players=2, seed=seed, round_=2 + seed % 5)
        if horizon == "turn":  # a turn's sub-decisions: step into the action first
            inside = [t for t in map(s.apply_unchecked, s.legal_steps())
                      if not t.decision.is_chance and t.decision.kind != "action"]
            if not inside:
                continue
            s = max(inside, key=lambda t: len(_rollout_played(monkeypatch, t, horizon)))
        free = len(_rollout_played(monkeypatch, s, horizon))
        if free < 3:
            continue
        for limit in range(1, free + 2):
            assert len(_rollout_played(monkeypatch, s, horizon, limit)) == min(limit, free)
        checked += 1
    assert checked >= 3


def test_rollouts_take_the_solvers_step_at_small_solved_decisions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """At an expansion, bookkeeping-points or ink-jar decision a rollout plays the
    solvers' best plan: a forced step as it is, and with two legal steps the plan's
    first (not simply the first listed), at decisions met in seeded random games."""
    from search.candidates import best_plan
    from search.policy import SOLVED_KINDS

    forced = chosen = 0
    for seed in range(120):
        if forced >= 5 and chosen >= 3:
            break
        s = engine.new_game(players=2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        while not s.is_over() and not (forced >= 5 and chosen >= 3):
            d = s.decision
            legal = s.legal_steps()
            if d.kind in SOLVED_KINDS and len(legal) <= 2:
                step = _rollout_played(monkeypatch, s, "move")[0][1]
                if len(legal) == 1:
                    assert step == legal[0]
                    forced += 1
                else:
                    assert step == best_plan(s, legal)[0]
                    chosen += step != legal[0]
            s = s.apply_unchecked(s.random_step(rng))
    assert forced >= 5 and chosen >= 3


def test_a_turn_rollout_stops_at_the_movers_next_action(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """horizon "turn" finishes the sub-choices of the turn in progress and stops at the
    next action decision, even the same player's: once the others have ended their
    action phase a player takes turn after turn, and the rollout still ends with the
    turn (positions inside such turns, from seeded random games)."""
    met = 0
    for seed in range(200):
        if met >= 5:
            break
        s = engine.new_game(players=2, seed=seed)
        rng = random.Random(seed)
        while not s.is_over() and met < 5:
            d = s.decision
            alone = d.player >= 0 and all(
                p.ended for i, p in enumerate(s.players) if i != d.player)
            if alone and not d.is_chance and d.kind not in ("action", "plan"):
                assert "action" not in [kind for kind, _ in _rollout_played(monkeypatch, s, "turn")]
                met += 1
            s = s.apply_unchecked(s.random_step(rng))
    assert met >= 5
