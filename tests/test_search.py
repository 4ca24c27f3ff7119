"""Search: ISMCTS honesty about hidden information, max^n statistics, budgets, bots,
arena, root parallelism (short budgets)."""

from __future__ import annotations

import random

import pytest

import engine
from search.arena import play_game, run_arena
from search.bench.positions import mid_game
from search.bot_specs import make_bot, parse_spec
from search.evaluator import win_utilities
from search.mcts import MCTS, SELECTS, Node, SearchConfig, subtree
from search.parallel import ParallelMCTS


def _planning_state(players: int, seed: int) -> engine.State:
    """The first planning decision of round 1 after setup (resting cards by first legal)."""
    s = engine.new_game(players=players, seed=seed)
    while s.decision.kind != "plan":
        s = s.apply(s.sample_chance() if s.decision.kind == "chance" else s.legal_steps()[0])
    return s


def _lines(result) -> list[tuple[str, int]]:  # type: ignore[no-untyped-def]
    return [(ln.step.kind + str(ln.step.args()), ln.visits) for ln in result.lines]


def test_same_seed_same_iterations_same_result() -> None:
    s = mid_game(3, 2, 2)
    obs = engine.observe(s, s.decision.player)
    a = MCTS(SearchConfig(iterations=120, seed=7)).search(obs)
    b = MCTS(SearchConfig(iterations=120, seed=7)).search(obs)
    assert _lines(a) == _lines(b)
    assert a.iterations == 120


def test_search_ignores_other_players_unrevealed_plans() -> None:
    """rules-decisions.md, Hidden information: planned cards are hidden until all reveal.
    Two true states that differ only in P1's face-down plan give P2's search identical
    results."""
    s = _planning_state(2, 11)
    assert s.decision.player == 0
    hand = [st for st in s.legal_steps() if st.kind == "plan"]
    cards = sorted({st.a for st in hand})
    plan_a = [engine.Step("plan", cards[0], 1), engine.Step("ready")]
    plan_b = [engine.Step("plan", cards[3], 1), engine.Step("ready")]
    s1, s2 = s, s
    for st in plan_a:
        s1 = s1.apply(st)
    for st in plan_b:
        s2 = s2.apply(st)
    assert s1.decision.player == 1 and s2.decision.player == 1
    assert s1.players[0].slots[1] == cards[0] and s2.players[0].slots[1] == cards[3]
    o1, o2 = engine.observe(s1, 1), engine.observe(s2, 1)
    # What P2 is given: the slot is taken, the card in it is HIDDEN, and neither planned
    # card is missing from P1's hand in P2's view (so the plan cannot be read off it).
    for o in (o1, o2):
        assert o.state.players[0].slots[1] == engine.HIDDEN
        assert cards[0] not in o.state.players[0].slots
        assert cards[3] not in o.state.players[0].slots
    assert o1 == o2
    # The comparison can tell plans apart: P1's own views of the two plans differ.
    assert engine.observe(s1, 0) != engine.observe(s2, 0)
    r1 = MCTS(SearchConfig(iterations=80, seed=3)).search(o1)
    r2 = MCTS(SearchConfig(iterations=80, seed=3)).search(o2)
    assert _lines(r1) == _lines(r2)


def test_search_ignores_the_true_rng() -> None:
    """The order of the card stack and book supplies (the chance generator) is unknown."""
    s = mid_game(2, 4, 2)
    t = s.clone()
    t.rng = s.rng ^ 0xDEADBEEF
    me = s.decision.player
    # The two games deal differently from here on...
    assert s.rng != t.rng
    # ...but the generator's state is not in what the searcher is given.
    o1, o2 = engine.observe(s, me), engine.observe(t, me)
    assert o1.state.rng == o2.state.rng == 0 and o1 == o2
    r1 = MCTS(SearchConfig(iterations=60, seed=5)).search(o1)
    r2 = MCTS(SearchConfig(iterations=60, seed=5)).search(o2)
    assert _lines(r1) == _lines(r2)


def test_search_refuses_another_players_decision() -> None:
    s = mid_game(2, 4, 2)
    other = 1 - s.decision.player
    with pytest.raises(ValueError, match="not P"):
        MCTS(SearchConfig(iterations=5)).search(engine.observe(s, other))


@pytest.mark.parametrize("players", [3, 4])
def test_each_player_keeps_its_own_statistics(players: int) -> None:
    """max^n: every node holds one utility and one money sum per player; utilities of
    one evaluation sum to 1, so per node they sum to the visit count."""
    s = mid_game(players, 3, 2)
    result = MCTS(SearchConfig(iterations=150, seed=1, tree="round")).search(
        engine.observe(s, s.decision.player))
    stack = [result.root]
    seen_players = set()
    while stack:
        node = stack.pop()
        if node.n:
            assert len(node.w) == players and len(node.m) == players
            assert sum(node.w) == pytest.approx(node.n)
        if node.children:
            seen_players.add(node.player)
        stack.extend(node.children.values())
    assert len(seen_players) >= 2  # the tree holds decisions of several players


@pytest.mark.parametrize("select", ["lead", "win", "mix"])
def test_selection_maximises_the_deciding_players_utility(select: str) -> None:
    """max^n: each player picks the child best for itself, by money, by win chance
    or by half of each."""
    search = MCTS(SearchConfig(iterations=1, c_uct=0.0, select=select))
    search._win_pounds = 10.0  # what search() sets from the root's round
    a, b = Node(3), Node(3)
    for child, m, w in ((a, [90.0, 40.0, 40.0], [0.8, 0.1, 0.1]),
                        (b, [30.0, 80.0, 50.0], [0.1, 0.6, 0.3])):
        child.n = child.avail = 10
        child.m = [x * 10 for x in m]
        child.w = [x * 10 for x in w]
    known = [(engine.Step("stop"), a), (engine.Step("nobuy"), b)]
    assert search._select(known, 0)[1] is a
    assert search._select(known, 1)[1] is b


def test_win_selection_adds_the_drive_to_each_players_pounds() -> None:
    """With three players the drive joins each player's win pounds before the best
    opponent is taken (the maximum of the sums, as for ``select="lead"``)."""
    search = MCTS(SearchConfig(iterations=1, c_uct=0.0, select="win"))
    search._win_pounds = 10.0
    a, b = Node(3), Node(3)
    # a: P1 level with P2 on win chance, P3 behind but driven; b: P1 well ahead, no drive
    for child, w, d in ((a, [0.4, 0.4, 0.2], [20.0, 0.0, 14.0]),
                        (b, [0.8, 0.1, 0.1], [0.0, 0.0, 0.0])):
        child.n = child.avail = 1
        child.w = list(w)
        child.d = list(d)
    known = [(engine.Step("stop"), a), (engine.Step("nobuy"), b)]
    # a: own 4 + 20 = 24, best other max(4 + 0, 2 + 14) = 16: +8; b: 8 - 1 = +7. The
    # sum of the separate leads, (4 - 4) + (20 - 14) = 6, would pick b instead.
    assert search._select(known, 0)[1] is a


def _two_player_child(leads: tuple[float, ...], scale: float) -> Node:
    """A two-player node visited once per lead of P1 over P2 (P2 at 100 pounds), its
    sums holding the money and the win utilities at ``scale``."""
    child = Node(2)
    child.n = child.avail = len(leads)
    for lead in leads:
        money = [100.0 + lead, 100.0]
        for i, u in enumerate(win_utilities(money, scale)):
            child.w[i] += u
            child.m[i] += money[i]
    return child


def test_select_win_counts_a_safe_lead_less_than_a_sure_one() -> None:
    """``select="win"``: UCB exploits the win-chance lead (in pounds near a level game),
    so a line winning by 60 or losing by 10 is worth less than one winning by 12 twice,
    though its mean money lead (25) is larger; ``select="lead"`` prefers it."""
    scale = 5.0  # the last round: win_scale * (1 + 0 rounds left)
    a, b = _two_player_child((60.0, -10.0), scale), _two_player_child((12.0, 12.0), scale)
    known = [(engine.Step("stop"), a), (engine.Step("nobuy"), b)]
    by_lead = MCTS(SearchConfig(iterations=1, c_uct=0.0, select="lead"))
    assert by_lead._select(known, 0)[1] is a
    by_win = MCTS(SearchConfig(iterations=1, c_uct=0.0, select="win"))
    by_win._win_pounds = 2.0 * scale  # what search() sets from the root's round
    assert by_win._select(known, 0)[1] is b
    with pytest.raises(ValueError, match="select"):
        SearchConfig(iterations=1, select="money")


def test_select_mix_takes_half_of_each_lead() -> None:
    """``select="mix"``: half the win-chance lead in pounds, half the money lead. A line
    that neither reading alone prefers (c) is the blend's choice: the money lead picks
    the risky a, the win lead the safe but small b."""
    scale = 5.0
    # mean money lead / win lead in pounds / half of each: a 25 / 1.2 / 13.1,
    # b 16 / 9.2 / 12.6, c 21 / 7.7 / 14.3
    a, b, c = (_two_player_child(leads, scale)
               for leads in ((60.0, -10.0), (16.0, 16.0), (36.0, 6.0)))
    known = [(engine.Step("stop"), a), (engine.Step("nobuy"), b), (engine.Step("pass"), c)]
    chosen = {}
    for select in SELECTS:
        search = MCTS(SearchConfig(iterations=1, c_uct=0.0, select=select))
        search._win_pounds = 2.0 * scale
        chosen[select] = search._select(known, 0)[1]
    assert chosen == {"lead": a, "win": b, "mix": c}


@pytest.mark.parametrize("drive", [None, [3.0, 7.5]])
def test_two_player_mixed_lead_is_half_of_each_plus_the_drive(
        drive: list[float] | None) -> None:
    """The two-player shortcut of ``select="mix"`` (no list per child) gives each
    player's half win pounds, half money and drive, and the lead of one over the other."""
    search = MCTS(SearchConfig(iterations=1, select="mix"))
    search._win_pounds = 10.0
    child = Node(2)
    child.n = child.avail = 4
    child.w, child.m, child.d = [2.5, 1.5], [480.0, 430.0], drive
    d = drive or [0.0, 0.0]
    pounds = [5.0 * child.w[i] + 0.5 * child.m[i] + d[i] for i in range(2)]
    assert search._mixed_lead(child, 0, True) == pytest.approx(pounds[0] - pounds[1])
    assert search._mixed_lead(child, 1, True) == pytest.approx(pounds[1] - pounds[0])


def test_anytime_callback_stops_and_reports() -> None:
    s = mid_game(2, 6, 2)
    seen = []

    def cb(interim) -> bool:  # type: ignore[no-untyped-def]
        seen.append(interim.iterations)
        return len(seen) < 2

    cfg = SearchConfig(iterations=10_000, seed=1, report_every=16)
    result = MCTS(cfg).search(engine.observe(s, s.decision.player), callback=cb)
    assert seen == [16, 32]
    assert result.iterations == 32


def test_tree_reuse_keeps_the_subtree() -> None:
    """After the searcher's step, its next decision (here: the next card of its plan)
    starts from the kept subtree, whose visits it adds to."""
    s = _planning_state(2, 11)
    me = s.decision.player
    result = MCTS(SearchConfig(iterations=100, seed=2)).search(engine.observe(s, me))
    best = result.best
    assert best.kind == "plan"
    node = subtree(result.root, [best])
    assert node is not None and node.n == result.lines[0].visits
    nxt = s.apply_unchecked(best)
    assert nxt.decision.kind == "plan" and nxt.decision.player == me  # the branch is taken
    before = node.n
    r2 = MCTS(SearchConfig(iterations=10, seed=2)).search(engine.observe(nxt, me), root=node)
    assert r2.root is node
    assert r2.root.n >= before + 10
    assert sum(ln.visits for ln in r2.lines) >= before


def test_reused_subtree_gets_a_first_look_at_the_candidates_it_never_tried() -> None:
    """A subtree kept from the previous step may know only some of the root's
    candidates; the others get their prior visits too, not just the known ones."""
    from search.candidates import candidate_steps

    s = mid_game(2, 6, 2)
    me = s.decision.player
    candidates = candidate_steps(s, s.legal_steps())
    assert len(candidates) >= 3
    root = Node(2)
    known = Node(2)
    known.n = known.avail = 1
    root.children[candidates[-1]] = known
    root.n = 1
    cfg = SearchConfig(iterations=1, seed=3, prior_visits=2)
    result = MCTS(cfg).search(engine.observe(s, me), root=root)
    assert set(result.root.children) == set(candidates)
    fresh = [ch for st, ch in result.root.children.items() if st != candidates[-1]]
    assert all(ch.n >= 2 for ch in fresh)


@pytest.mark.parametrize("spec", ["random", "policy", "greedy", "mcts:iterations=12"])
def test_every_bot_plays_a_complete_legal_game(spec: str) -> None:
    rec = play_game([spec, "policy"], index=0, seed=1)
    assert len(rec.totals) == 2 and rec.winners
    assert all(d > 0 for d in rec.decisions)


def test_bot_moves_are_whole_turns() -> None:
    s = mid_game(2, 8, 2)
    me = s.decision.player
    move = make_bot("greedy").choose(engine.observe(s, me))
    after = engine.apply_move(s, move)
    assert after.is_over() or after.decision.player != me


def test_bad_bot_specs_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("alphazero")
    with pytest.raises(ValueError, match="unknown setting 'depth'"):
        make_bot("mcts:depth=3")
    with pytest.raises(ValueError, match="key=value"):
        parse_spec("mcts:time")


def test_arena_rotates_seats_and_is_reproducible() -> None:
    specs = ["policy", "random", "greedy"]
    a = run_arena(specs, games=3, seed=4)
    b = run_arena(specs, games=3, seed=4)
    assert [r.totals for r in a.games] == [r.totals for r in b.games]
    for stats in a.bots.values():
        assert stats.games == 3
        assert sorted(stats.seat_games) == [0, 1, 2]
    assert sum(st.wins for st in a.bots.values()) == pytest.approx(3)
    lo, hi = a.bots["policy"].confidence()
    assert 0.0 <= lo <= a.bots["policy"].win_rate <= hi <= 1.0


def test_root_parallel_adds_up_the_workers() -> None:
    s = mid_game(2, 9, 2)
    obs = engine.observe(s, s.decision.player)
    with ParallelMCTS(SearchConfig(iterations=24, seed=1, prior_visits=0), jobs=2) as search:
        result = search.search(obs)
    assert result.iterations == 48
    assert sum(ln.visits for ln in result.lines) <= 48
    assert [ln.visits for ln in result.lines] == sorted(
        (ln.visits for ln in result.lines), reverse=True)
    legal = set(s.legal_steps())
    assert all(ln.step in legal for ln in result.lines)


def test_determinization_never_uses_the_true_plan() -> None:
    s = _planning_state(2, 5)
    s = s.apply(engine.Step("plan", sorted({st.a for st in s.legal_steps()
                                             if st.kind == "plan"})[0], 1))
    s = s.apply(engine.Step("ready"))
    true_card = s.players[0].slots[1]
    obs = engine.observe(s, 1)
    worlds = [engine.determinize(obs, random.Random(k)) for k in range(30)]
    cards = [w.players[0].slots[1] for w in worlds]
    # Every world has a card in the planned slot, drawn from what P1 could have planned,
    # and the worlds disagree on which: the true card is one guess among several.
    assert all(c >= 0 for c in cards)
    assert len(set(cards)) > 2
    assert cards.count(true_card) < len(cards) / 2


def test_best_plan_is_the_whole_plan_behind_the_first_candidate() -> None:
    """At an expansion decision the rollout follows the solver's best route step by
    step: ``best_plan`` starts with the first candidate and is that route."""
    from search.candidates import best_plan, candidate_steps
    from search.solvers import best_expansions

    s = engine.new_game(players=2, seed=3)
    rng = random.Random(3)
    seen = 0
    while not s.is_over() and seen < 3:
        if s.decision.kind == "expansion" and len(s.legal_steps()) > 2:
            legal = s.legal_steps()
            plan = best_plan(s, legal)
            assert plan[0] == candidate_steps(s, legal)[0]
            company = s.todo[0][2]
            assert plan == best_expansions(s, company, k=3)[0].steps
            seen += 1
        s = s.apply_unchecked(s.sample_chance() if s.decision.kind == "chance"
                            else rng.choice(s.legal_steps()))
    assert seen == 3
