"""The core of the search, tested where a one-line change would show: UCB selection
(the mean lead, the exploration term over availability counts), the availability
counts themselves, and the backup of every leaf's utilities and money.

Each test pins an exact quantity (a count, a sum, the argmax of a reference formula
over many random child statistics), not a tendency, so that a wrong constant, a wrong
counter or a swapped operand fails here in seconds rather than in a strength series
hours later (issue 51). The reference formula is written out independently of
``search.mcts`` from its docstrings: value = mean lead / margin_scale
+ c * sqrt(ln(available) / visits).
"""

from __future__ import annotations

import math
import random

import pytest

import engine
from search.bench.positions import mid_game
from search.mcts import MCTS, Node, SearchConfig

WIN_POUNDS = 7.0  # what MCTS.search sets from the round; fixed here to compare exactly


def _child(rng: random.Random, players: int, drive: bool) -> Node:
    """A node with random but consistent statistics: ``n`` visits out of ``avail``
    availabilities, utility sums summing to ``n``, money sums, maybe a drive."""
    node = Node(players)
    node.n = rng.randint(1, 60)
    node.avail = node.n + rng.randint(0, 400)
    shares = [rng.random() for _ in range(players)]
    node.w = [node.n * x / sum(shares) for x in shares]
    node.m = [node.n * rng.uniform(20, 120) for _ in range(players)]
    if drive:
        node.d = [node.n * rng.uniform(0, 8) for _ in range(players)]
    return node


def _reference(child: Node, player: int, select: str, c: float, scale: float) -> float:
    """UCB of ``child`` for ``player``, from the definitions (SearchConfig.select)."""
    players = range(len(child.w))
    drive = child.d or [0.0] * len(child.w)
    if select == "lead":
        pounds = [child.m[i] + drive[i] for i in players]
    elif select == "win":
        pounds = [WIN_POUNDS * child.w[i] + drive[i] for i in players]
    else:  # mix: half of each
        pounds = [0.5 * WIN_POUNDS * child.w[i] + 0.5 * child.m[i] + drive[i]
                  for i in players]
    lead = pounds[player] - max(pounds[i] for i in players if i != player)
    mean_lead = lead / child.n
    return mean_lead / scale + c * math.sqrt(math.log(child.avail) / child.n)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("select", ["lead", "win", "mix"])
@pytest.mark.parametrize("c", [0.0, 0.3, 2.0])
def test_selection_is_ucb_on_the_mean_lead_over_availability(
        players: int, select: str, c: float) -> None:
    """docs/search.md, selection: the child maximising the deciding player's mean lead
    over its best opponent (in pounds, scaled by ``margin_scale``) plus
    ``c * sqrt(ln(avail) / n)``; children with very different visit and availability
    counts, so that the exploration term, the mean's divisor and the availability
    count each decide some of the 200 cases."""
    rng = random.Random(f"{players}-{select}-{c}")
    search = MCTS(SearchConfig(iterations=1, c_uct=c, select=select, margin_scale=10.0))
    search._win_pounds = WIN_POUNDS
    for case in range(200):
        drive = case % 3 == 0
        known = [(f"step{k}", _child(rng, players, drive)) for k in range(rng.randint(2, 7))]
        player = rng.randrange(players)
        expected = max(known, key=lambda kv: _reference(kv[1], player, select, c, 10.0))
        chosen = search._select(known, player)
        assert chosen[0] == expected[0], f"case {case}"


def test_an_unvisited_child_is_tried_first() -> None:
    """A child available but never visited has no mean: it is taken at once."""
    rng = random.Random(3)
    search = MCTS(SearchConfig(iterations=1))
    search._win_pounds = WIN_POUNDS
    fresh = Node(2)
    fresh.avail = 5
    known = [("a", _child(rng, 2, False)), ("b", fresh), ("c", _child(rng, 2, False))]
    assert search._select(known, 0)[0] == "b"


def _search(players: int, iterations: int, prior: int, **knobs: object
            ) -> tuple[MCTS, engine.State, Node, int]:
    state = mid_game(players=players, seed=11, round_=3)
    cfg = SearchConfig(iterations=iterations, seed=5, prior_visits=prior, **knobs)  # type: ignore[arg-type]
    search = MCTS(cfg)
    result = search.search(engine.observe(state, state.decision.player))
    return search, state, result.root, result.iterations


@pytest.mark.parametrize("players", [2, 3])
def test_every_root_candidate_is_available_at_every_iteration(players: int) -> None:
    """ISMCTS availability at the root: the searcher's own legal steps are the same in
    every determinization, so each candidate (given its first look of ``prior`` visits)
    is available once per iteration: avail = prior + iterations, exactly."""
    _, _, root, iterations = _search(players, 120, prior=2)
    assert len(root.children) >= 2
    for child in root.children.values():
        assert child.avail == 2 + iterations
    assert root.n == sum(ch.n for ch in root.children.values()) == \
        2 * len(root.children) + iterations


def _walk(node: Node) -> list[tuple[Node, Node]]:
    out = []
    for child in node.children.values():
        out.append((node, child))
        out.extend(_walk(child))
    return out


def test_availability_counts_below_the_root() -> None:
    """Below the root a child is available at most once per visit of its parent and
    visited at most once per availability: n <= avail <= parent's n, and a node's
    children's visits never exceed its own. (With ``node_priors`` a node's first looks
    are pseudo-visits of its own that its ancestors do not count: not checked here.)"""
    _, _, root, _ = _search(2, 300, prior=2)
    pairs = [(p, ch) for p, ch in _walk(root) if p is not root]
    assert len(pairs) > 50  # the tree grew below the root
    for parent, child in pairs:
        assert child.n <= child.avail <= parent.n
        assert sum(ch.n for ch in parent.children.values()) <= parent.n
    # Some child below the root was passed over when available: otherwise avail could
    # be n everywhere and the bound above would not see an availability counted twice.
    assert any(child.avail > child.n for _, child in pairs)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_backup_adds_each_leafs_utilities_to_every_node_on_its_path(players: int) -> None:
    """The evaluator's utilities of every leaf sum to 1 over the players (a share of
    the win), and each leaf is added once to every node on its path: so at every
    node the utility sums add up to its visits, and a node holds at least what its
    children hold."""
    _, _, root, _ = _search(players, 150, prior=2)
    for node in [root, *(ch for _, ch in _walk(root))]:
        assert sum(node.w) == pytest.approx(node.n)
        kids = list(node.children.values())
        if kids:
            for i in range(players):
                assert node.m[i] >= sum(ch.m[i] for ch in kids) - 1e-6
                assert node.w[i] >= sum(ch.w[i] for ch in kids) - 1e-6
    # At the root every iteration goes through a child: the sums are the children's.
    for i in range(players):
        assert root.w[i] == pytest.approx(sum(ch.w[i] for ch in root.children.values()))
        assert root.m[i] == pytest.approx(sum(ch.m[i] for ch in root.children.values()))


def test_lines_report_the_means_of_their_child() -> None:
    """A line's win and money are its child's sums over its visits, for every player."""
    state = mid_game(players=3, seed=11, round_=3)
    result = MCTS(SearchConfig(iterations=100, seed=5)).search(
        engine.observe(state, state.decision.player))
    for line in result.lines:
        child = result.root.children[line.step]
        assert line.visits == child.n
        assert line.win == pytest.approx([w / child.n for w in child.w])
        assert line.money == pytest.approx([m / child.n for m in child.m])
    assert [ln.visits for ln in result.lines] == sorted(
        (ln.visits for ln in result.lines), reverse=True)


def test_backup_keeps_each_players_money_and_utility_apart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With an evaluator that gives each player its own constant utility and money, every
    node's sums are exactly its visits times those constants, player by player: a leaf
    value added to the wrong player, or money added as utility, shows at once."""
    util, money = (0.1, 0.2, 0.7), (11.0, 23.0, 47.0)
    monkeypatch.setattr("search.mcts.evaluate", lambda *args: (list(util), list(money)))
    monkeypatch.setattr("search.mcts.bookkeeping_drive", lambda *args: None)
    _, _, root, _ = _search(3, 80, prior=2)
    for node in [root, *(ch for _, ch in _walk(root))]:
        assert node.w == pytest.approx([node.n * u for u in util])
        assert node.m == pytest.approx([node.n * x for x in money])
