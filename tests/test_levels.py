"""Playing levels (issue 53, item 3): ``level:N`` builds the documented bot for every N
and refuses anything else naming the setting; a beginner loses measurably more than
the full search at the same positions, and its mixture of mistakes is what the levels
table says; ``mombasa play --ai level=N`` is the spec ``level:N``; the packaged ladder
rates every level in order; the service's AI seats and ``GET /v1/levels``."""

from __future__ import annotations

import json
import math
import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

import engine
from advisor_api.cli import app
from search import levels
from search.arena import run_arena
from search.bot_base import still_mine
from search.bot_specs import make_bot
from search.bots import GreedyBot, MCTSBot
from search.candidates import candidate_steps
from search.levels import LEVELS, CasualBot, make_level
from search.mcts import MCTS, SearchConfig
from search.policy import policy_step
from search.solvers import best_bookkeeping
from tests.browser import Console, artifacts
from tests.service_process import service_fixture
from tests.test_api_helpers import client, new_game


def test_every_level_builds_as_documented() -> None:
    assert [lv.number for lv in LEVELS] == list(range(1, 9))
    casual = [lv.casual for lv in LEVELS if lv.casual is not None]
    # The mistakes decrease with the level, the searches' budgets grow.
    assert [c.slip for c in casual] == sorted((c.slip for c in casual), reverse=True)
    assert [c.careless_plan for c in casual] == sorted((c.careless_plan for c in casual),
                                                       reverse=True)
    budgets = [lv.iterations for lv in LEVELS if lv.iterations is not None]
    assert budgets == sorted(budgets) and budgets[-1] == 3000
    for lv in LEVELS:
        bot = make_bot(f"level:{lv.number}", seed=5)
        assert bot.name == f"level:{lv.number}"
        if lv.casual is not None:
            assert isinstance(bot, CasualBot) and bot.mix == lv.casual
        else:
            assert isinstance(bot, MCTSBot)
            # The shipped search's settings, whatever the installation's: only the
            # budget and the seed are the level's.
            assert bot.config == SearchConfig(iterations=lv.iterations, seed=5)


@pytest.mark.parametrize("spec", ["level:0", "level:9", "level:x", "level", "level:2.0",
                                  "level:-1", "level:level=12"])
def test_a_level_outside_1_to_8_is_refused_naming_the_setting(spec: str) -> None:
    with pytest.raises(ValueError, match=r"level: expected an integer in \[1, 8\]"):
        make_bot(spec)


def test_a_level_takes_no_other_setting() -> None:
    with pytest.raises(ValueError, match="unknown setting 'c'"):
        make_bot("level:3,c=0.5")
    assert make_bot("level:level=3").name == "level:3"


def _positions(count: int) -> list[engine.State]:
    """Action decisions with at least four candidate steps, from a greedy game."""
    s = engine.new_game(players=2, seed=2)
    bots = [GreedyBot(seed=i, evaluator="learned") for i in range(2)]
    out: list[engine.State] = []
    seen = 0
    while not s.is_over() and len(out) < count:
        d = s.decision
        if d.kind == "chance":
            s = s.apply(s.sample_chance())
            continue
        if d.kind == "action" and len(candidate_steps(s, s.legal_steps())) >= 4:
            seen += 1
            if seen % 3 == 0:
                out.append(s)
        s = engine.apply_move(s, bots[d.player].choose(engine.observe(s, d.player)))
    return out


def _regret(s: engine.State, step: engine.Step) -> float:
    """Pounds ``step`` loses against the best legal step by a one-turn look (the rest of
    the turn by the quiet policy with the solvers, the learned evaluator's lead)."""
    me = s.decision.player
    judge = GreedyBot(evaluator="learned")

    def value(first: engine.Step) -> float:
        rng = random.Random(0)
        t = s.apply_unchecked(first)
        while still_mine(t, me):
            t = t.apply_unchecked(policy_step(t, rng, solvers=True))
        return judge._value(t, me)

    values = {st: value(st) for st in s.legal_steps()}
    return max(values.values()) - values[step]


def test_a_beginner_loses_more_than_the_full_search_at_the_same_positions() -> None:
    positions = _positions(4)
    assert len(positions) == 4
    beginner = [_regret(s, make_level(1, seed=k).choose(engine.observe(s, s.decision.player))
                        .steps[0])
                for k in range(6) for s in positions]
    full = []
    for s in positions:  # level 8's first step: its move's first search (60% of its budget)
        bot = make_level(8)
        assert isinstance(bot, MCTSBot)
        config = replace(bot.config, iterations=int(0.6 * (bot.config.iterations or 0)))
        obs = engine.observe(s, s.decision.player)
        full.append(_regret(s, MCTS(config).search(obs).best))
    mean_beginner = sum(beginner) / len(beginner)
    mean_full = sum(full) / len(full)
    assert mean_beginner > 1.5 and mean_beginner > 3 * mean_full, (beginner, full)
    # Mistakes of a pound or more: most of the beginner's decisions, few of the search's.
    assert sum(r >= 1 for r in beginner) / len(beginner) > sum(r >= 1 for r in full) / len(full)


def _game(bot: CasualBot, seed: int = 9) -> set[str]:
    """A game of ``bot`` (seat 1) against level 5; the kinds of the steps it took."""
    other = make_level(5, seed=4)
    s = engine.new_game(players=2, seed=seed)
    kinds: set[str] = set()
    while not s.is_over():
        d = s.decision
        if d.kind == "chance":
            s = s.apply(s.sample_chance())
            continue
        move = (bot if d.player == 0 else other).choose(engine.observe(s, d.player))
        if d.player == 0:
            kinds |= {st.kind for st in move.steps}
        s = engine.apply_move(s, move)
    return kinds


def test_the_beginners_mixture_is_as_documented() -> None:
    """Over a game each casual level slips about as often as its table says (within a
    wide binomial margin) and plans carelessly; level 5 makes no mistake at all; a
    short-sighted player's own choices (its slips aside) never take the bookkeeper
    action nor a book, while a player who sees the route does."""
    tallies = {}
    for number in (1, 2, 5):
        bot = make_level(number, seed=3)
        assert isinstance(bot, CasualBot)
        _game(bot)
        tallies[number] = bot.tally
        decided = sum(bot.tally.values()) - bot.tally["careless-plan"]
        expected = bot.mix.slip * decided
        assert abs(bot.tally["slip"] - expected) <= 3 * (expected + 1) ** 0.5 + 1, bot.tally
    assert tallies[1]["slip"] > tallies[2]["slip"] > 0
    assert tallies[1]["careless-plan"] > tallies[2]["careless-plan"] > 0
    assert tallies[5]["slip"] == tallies[5]["careless-plan"] == 0
    beginner = levels.level(1).casual
    assert beginner is not None and beginner.short_sighted
    assert not _game(CasualBot(replace(beginner, slip=0.0), seed=3)) & levels.LONG_PLAN_KINDS
    sighted = replace(beginner, slip=0.0, short_sighted=False)
    assert _game(CasualBot(sighted, seed=3)) & levels.LONG_PLAN_KINDS


def test_levels_play_in_the_arena_and_a_series_replays() -> None:
    first = run_arena(["level:1", "level:6"], games=2, seed=3)
    again = run_arena(["level:1", "level:6"], games=2, seed=3)
    assert [g.totals for g in first.games] == [g.totals for g in again.games]
    assert sorted(first.bots) == ["level:1", "level:6"]


def test_the_cli_accepts_level_equals_n() -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["play", "--ai", "level=2", "--seed", "1"], input="q\n")
    assert r.exit_code == 0, r.output
    assert "P2: level:2" in r.output
    r = runner.invoke(app, ["play", "--ai", "level=9", "--seed", "1"], input="q\n")
    assert r.exit_code != 0
    assert "level: expected an integer in [1, 8], got 9" in " ".join(r.output.split())
    r = runner.invoke(app, ["arena", "--players", "level:1,level:2", "--games", "2"])
    assert r.exit_code == 0, r.output
    assert "level:1" in r.output and "level:2" in r.output


def test_the_packaged_ladder_rates_every_level_in_order() -> None:
    rated = levels.ratings()
    assert sorted(rated) == list(range(1, 9))
    values = [rated[n]["rating"] for n in range(1, 9)]
    assert values == sorted(values)
    for r in rated.values():
        lo, hi = r["ci95"]
        assert lo <= r["rating"] <= hi and r["games"] > 0
    data = levels.ladder()
    assert data["command"].startswith("python -m benchmarks.ladder")
    assert data["anchor"]["player"] in data["ratings"]


def test_ai_seats_take_a_level_and_the_service_lists_the_levels(tmp_path: Path) -> None:
    with client(tmp_path) as c:
        g = new_game(c, [{"kind": "human"}, {"kind": "ai", "bot": "level:1"}])
        assert g["seats"][1]["bot"] == "level:1"
        r = c.post("/v1/games", json={"seats": [{"kind": "human"},
                                                {"kind": "ai", "bot": "level:9"}]})
        assert r.status_code == 422 and "level: expected an integer" in r.text
        # The tests' service allows 2,000 iterations a search: level 8 searches 3,000.
        r = c.post("/v1/games", json={"seats": [{"kind": "human"},
                                                {"kind": "ai", "bot": "level:8"}]})
        assert r.status_code == 422 and "MOMBASA_MAX_BOT_ITERATIONS" in r.text
        body = c.get("/v1/levels").json()
    assert [lv["spec"] for lv in body["levels"]] == [f"level:{n}" for n in range(1, 9)]
    assert body["levels"][0]["name"] == "beginner"
    assert all(lv["rating"] is not None for lv in body["levels"])
    assert body["command"].startswith("python -m benchmarks.ladder")


def test_a_purchase_no_arrangement_can_hold_is_no_plan_not_a_crash() -> None:
    """A level-3 game of the ladder reached a book purchase where no arrangement of the
    books places them all (a book of the turn still waiting): the exact method followed
    the choices of an infeasible answer and crashed; it answers no plan, as CP-SAT does,
    and the candidates are every legal step."""
    path = Path(__file__).parent / "data" / "bookkeeping_no_arrangement.json"
    s = engine.state_from_json(json.loads(path.read_text()))
    assert s.decision.kind == "bookkeeping-points"
    assert best_bookkeeping(s, k=3) == [] == best_bookkeeping(s, k=3, method="cpsat")
    assert candidate_steps(s, s.legal_steps()) == s.legal_steps()


service = service_fixture("levels", {"MOMBASA_WORKERS": "1"})


def test_the_new_game_form_offers_the_levels_with_their_ratings(service: str,
                                                                  browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    console = Console(page)
    page.goto(service + "/")
    page.wait_for_selector("dialog#new-game[open]")
    page.select_option("#ng-players", "2")
    page.select_option("tr[data-seat='2'] .ng-kind", "ai")
    seat2 = "tr[data-seat='2'] .ng-bot"
    page.wait_for_selector(f"{seat2} optgroup[label=Levels]", state="attached")
    options = page.eval_on_selector_all(f"{seat2} optgroup option",
                                        "els => els.map(e => [e.value, e.textContent])")
    rated = levels.ratings()
    assert [v for v, _ in options] == [f"level:{n}" for n in range(1, 9)]
    for n, (_, label) in enumerate(options, start=1):
        assert label == (f"Level {n}: {levels.level(n).name} "
                         f"(rating {math.floor(rated[n]['rating'] + 0.5)})")  # Math.round
    assert page.eval_on_selector(seat2, "el => el.value") == "mcts:time=0.5"  # unchanged
    page.select_option(seat2, "level:1")
    page.select_option("#ng-players", "3")  # the rows are rebuilt: the choice is kept
    assert page.eval_on_selector(seat2, "el => el.value") == "level:1"
    page.select_option("#ng-players", "2")
    page.locator("dialog#new-game").screenshot(path=str(artifacts() / "levels-new-game.png"))
    page.click("#ng-start")
    page.wait_for_function("() => /game=/.test(location.hash)")
    gid = re.search(r"game=([0-9a-f]+)", page.url)
    assert gid is not None
    seats = httpx.get(f"{service}/v1/games/{gid.group(1)}").json()["seats"]
    assert seats[1]["bot"] == "level:1"
    assert console.errors == []
    page.close()
