"""Game review (``search.review``, ``mombasa review``): a bad step put into a bot's game
is flagged; a seat's review reads only what that seat could see; the played step and
the best are measured by one search (``MCTS.search(..., only=...)``), the played step
on its guaranteed share; a review can be stopped; the command's table, JSON and errors.
Small budgets: each test takes seconds."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import engine
from advisor_api.cli import app
from benchmarks.review_quality import play_recorded
from engine import GameRecord, State, Step
from search import review as rv
from search.mcts import MCTS, SearchConfig
from search.pacing import Pacer
from search.review import (
    PLAYED_SHARE,
    ReviewStopped,
    judge,
    review_record,
    seat_observation,
)

GREEDY = "greedy:eval=learned"
runner = CliRunner()


def _end_early(k: int, state: State, step: Step) -> Step:
    """At seat 1's first action of round 2, end the round at once ("end N") instead:
    every action card of the round unused."""
    if state.decision.kind == "action" and state.round == 2:
        ends = [x for x in state.legal_steps() if x.kind == "end"]
        if ends and step.kind != "end":
            return ends[-1]
    return step


def _greedy_game(seed: int, stop: int | None = None) -> GameRecord:
    rec, _, _ = play_recorded([GREEDY, GREEDY], seed)
    return rec if stop is None else replace(rec, steps=rec.steps[:stop], result=None)


@pytest.fixture(scope="module")
def injected() -> tuple[GameRecord, int]:
    """A greedy game whose seat 1 ended round 2 at its first action, cut after it."""
    once: list[int] = []

    def inject(k: int, state: State, step: Step) -> Step:
        return step if once else _end_early(k, state, step)

    def recording(k: int, state: State, step: Step) -> Step:
        out = inject(k, state, step)
        if out != step:
            once.append(k)
        return out

    rec, _, where = play_recorded([GREEDY, GREEDY], 1, recording)
    assert len(where) == 1
    return replace(rec, steps=rec.steps[:where[0] + 1], result=None), where[0]


def test_a_bad_step_put_into_a_bots_game_is_flagged(injected: tuple[GameRecord, int]
                                                     ) -> None:
    rec, index = injected
    review = review_record(rec, seats=[0], iterations=150)
    by_index = {d.index: d for d in review.decisions}
    bad = by_index[index]
    assert bad.played.kind == "end" and bad.best.kind != "end"
    assert bad.classification in ("mistake", "blunder")
    assert bad.loss_money == max(d.loss_money for d in review.decisions)
    others = [d for d in review.decisions if d.index != index]
    assert len(others) >= 10
    assert sum(d.classification in ("mistake", "blunder") for d in others) <= 1


def test_the_played_step_is_judged_by_the_same_search(injected: tuple[GameRecord, int],
                                                      monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    rec, index = injected
    state = rec.replay()[index]
    obs = seat_observation(state, 0)
    played = rec.steps[index].step
    assert played is not None
    calls: list[dict[str, Any]] = []
    search = MCTS.search

    def spy(self: MCTS, o: engine.Observation, *args: Any, **kw: Any) -> Any:
        result = search(self, o, *args, **kw)
        calls.append({"root": kw.get("root"), "only": kw.get("only"), "result": result,
                      "lines": {ln.step: ln for ln in result.lines}})
        return result

    monkeypatch.setattr(MCTS, "search", spy)
    cfg = SearchConfig(iterations=200, seed=3)
    j = judge(obs, played, cfg)
    first, second = calls
    assert played in first["only"] and second["only"] == [played]
    assert second["root"] is first["result"].root  # the same tree, gone on with
    best = first["lines"][j.best]
    assert j.best == first["result"].best and j.win_best == best.win[0]
    assert j.money_best == best.money[0] == second["lines"][j.best].money[0]
    assert j.win_played == second["lines"][played].win[0]
    assert j.visits_played >= math.ceil(PLAYED_SHARE * 200)
    assert j.iterations == 200 + second["result"].iterations
    assert j.loss_win == max(0.0, j.win_best - j.win_played)


def test_a_step_the_search_prefers_loses_nothing() -> None:
    rec = _greedy_game(2, stop=40)
    states = rec.replay()
    i = next(k for k, r in enumerate(rec.steps) if r.player == 0 and len(
        MCTS(SearchConfig(iterations=1)).candidates(seat_observation(states[k], 0))) > 2)
    obs = seat_observation(states[i], 0)
    cfg = SearchConfig(iterations=120, seed=1)
    best = MCTS(cfg).search(obs).best
    j = judge(obs, best, cfg)
    assert j.best == best and j.loss_win == 0 and j.loss_money == 0
    assert (j.win_played, j.money_played) == (j.win_best, j.money_best)


def test_a_step_without_a_first_look_is_still_judged_on_its_share() -> None:
    obs = _first_decision()
    last = MCTS(SearchConfig(iterations=1)).candidates(obs)[-1]
    j = judge(obs, last, SearchConfig(iterations=40, prior_visits=0, seed=1))
    assert j.best != last and j.visits_played >= math.ceil(PLAYED_SHARE * 40)


# -- the search's restricted root --------------------------------------------------------
def _first_decision(seed: int = 4) -> engine.Observation:
    s = engine.new_game(players=2, seed=seed)
    while s.decision.is_chance:
        s = s.apply(s.sample_chance())
    return engine.observe(s, s.decision.player)


def test_only_restricts_the_roots_candidates_and_checks_them() -> None:
    obs = _first_decision()
    mcts = MCTS(SearchConfig(iterations=80, seed=2))
    cands = mcts.candidates(obs)
    assert len(cands) > 3
    usual = mcts.search(obs)
    again = mcts.search(obs, only=cands)  # the usual candidates: the very same search
    assert [(ln.step, ln.visits, ln.win) for ln in usual.lines] == \
        [(ln.step, ln.visits, ln.win) for ln in again.lines]
    two = mcts.search(obs, only=cands[-2:])
    assert {ln.step for ln in two.lines} == set(cands[-2:])
    with pytest.raises(ValueError, match="only: 'ready' is not a legal step here"):
        mcts.search(obs, only=[cands[0], Step("ready")])


def test_only_one_step_on_a_tree_goes_on_with_that_step_alone() -> None:
    obs = _first_decision()
    first = MCTS(SearchConfig(iterations=80, seed=2)).search(obs)
    before = {ln.step: (ln.visits, ln.win) for ln in first.lines}
    last = first.lines[-1].step
    more = MCTS(SearchConfig(iterations=50, seed=3)).search(obs, root=first.root, only=[last])
    after = {ln.step: (ln.visits, ln.win) for ln in more.lines}
    assert after[last][0] == before[last][0] + 50
    assert {s: v for s, v in after.items() if s != last} == \
        {s: v for s, v in before.items() if s != last}


# -- hidden information ------------------------------------------------------------------
def _planning_record(p1_plan: list[str]) -> GameRecord:
    """The first game's setup up to P2's last plan step: both rest, P1 plans ``p1_plan``
    face down, then P2 plans two cards (its ``ready``, the reveal, left out)."""
    s = engine.new_game(players=2, seed=1)
    rec = GameRecord.new(s)
    while s.decision.kind != "plan":
        d = s.decision
        step = s.sample_chance() if d.is_chance else s.legal_steps()[0]
        rec.append(d.player, step, "chance" if d.is_chance else "bot")
        s = s.apply(step)
    for player, texts in ((0, [*p1_plan, "ready"]), (1, ["plan one/2 2", "plan exp1/2 3"])):
        for text in texts:
            step = Step.parse(text, s.cat)
            rec.append(player, step, "bot")
            s = s.apply(step, player)
    assert not s.revealed
    return rec


def test_a_seats_review_does_not_depend_on_the_others_hidden_plan() -> None:
    # The same number of cards in the same slots (what P2 sees), other cards.
    records = [_planning_record(["plan one/1 2", "plan ban2/1 3"]),
               _planning_record(["plan kpr2/1 2", "plan cot1/1 3"])]
    seen = [review_record(r, seats=[1], iterations=60).to_json() for r in records]
    first = len(records[0].steps) - 2  # P2's two plan steps are reviewed
    assert [d["index"] for d in seen[0]["decisions"]][-2:] == [first, first + 1]
    assert seen[0] == seen[1]
    # Handed the whole state, the same search sees P1's plan: the values differ.
    cfg = SearchConfig(iterations=60, seed=5)
    played = records[0].steps[first].step
    assert played is not None
    peek = [judge(seat_observation(r.replay()[first], 1, all_seeing=True), played, cfg)
            for r in records]
    assert (peek[0].win_best, peek[0].money_best) != (peek[1].win_best, peek[1].money_best)
    fair = [judge(seat_observation(r.replay()[first], 1), played, cfg) for r in records]
    assert fair[0] == fair[1]


def test_a_seats_view_is_reviewed_up_to_its_first_hidden_step() -> None:
    full = _planning_record(["plan one/1 2", "plan ban2/1 3"])
    view = full.seen_by(1, full.replay())  # P1's plan hidden from P2 before the reveal
    hidden = next(i for i, r in enumerate(view.steps) if r.step is None)
    review = review_record(view, seats=[0, 1], iterations=30)
    assert review.steps_replayed == hidden
    assert review.decisions and all(d.index < hidden for d in review.decisions)
    cut = review_record(replace(full, steps=full.steps[:hidden]), seats=[0, 1],
                        iterations=30)
    assert cut.to_json() == review.to_json()
    with pytest.raises(ValueError, match="all_seeing"):
        review_record(view, all_seeing=True)


# -- stopping, options -------------------------------------------------------------------
class StopAfter(Pacer):
    """Says stop from its ``n``-th checkpoint on."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.calls = 0

    def checkpoint(self) -> bool:
        self.calls += 1
        return self.calls < self.n


def test_a_review_told_to_stop_raises_and_reports_what_it_did() -> None:
    rec = _greedy_game(3, stop=40)
    seen: list[tuple[int, int]] = []
    with pytest.raises(ReviewStopped):
        review_record(rec, iterations=30, pacer=StopAfter(100),
                      progress=lambda done, total: seen.append((done, total)))
    assert seen[0][0] == 0 and 0 < len(seen) < seen[0][1] + 1
    with pytest.raises(ReviewStopped):
        review_record(rec, iterations=30, pacer=StopAfter(1))


def test_seats_and_all_seeing_are_checked() -> None:
    rec = _greedy_game(3, stop=40)
    with pytest.raises(ValueError, match="no seat 2"):
        review_record(rec, seats=[2])
    with pytest.raises(ValueError, match="all_seeing: only a finished record"):
        review_record(rec, all_seeing=True)


def test_the_curves_follow_each_seats_reviewed_decisions() -> None:
    rec = _greedy_game(3, stop=60)
    answer = review_record(rec, iterations=20).to_json()
    assert answer["format"] == "mombasa-review/1" and answer["seats"] == [1, 2]
    for seat in ("1", "2"):
        mine = [d for d in answer["decisions"] if str(d["player"]) == seat]
        assert [(p["index"], p["win"], p["money"]) for p in answer["curves"][seat]] == \
            [(d["index"], d["win_played"], d["money_played"]) for d in mine]
    for d in answer["decisions"]:
        assert d["loss_win"] == pytest.approx(max(0.0, d["win_best"] - d["win_played"]),
                                              abs=2e-4)
        assert d["class"] == rv.THRESHOLDS.classify(d["loss_win"], d["loss_money"])


def test_solver_notes_stand_at_the_start_of_routes() -> None:
    rec = _greedy_game(5, stop=120)
    review = review_record(rec, seats=[0, 1], iterations=10)
    notes = [d for d in review.decisions if d.solver is not None]
    assert notes and {d.kind for d in notes} <= {"expansion", "bookkeeping-points"}
    for d in notes:
        n = d.solver
        assert n is not None and n.played[0] == d.played
        assert n.played_rank != 1 or n.played_value == n.exact_value
        data = n.to_json(review.cat)
        assert data["kind"] in ("expansion", "books") and data["exact"]["steps"]


# -- the command -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("review") / "game.json"
    path.write_text(json.dumps(_greedy_game(6, stop=45).to_json()))
    return path


def test_the_command_prints_a_table(record_file: Path) -> None:
    r = runner.invoke(app, ["review", str(record_file), "--seats", "1", "--iterations", "20"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "Review of P1:" in text and "loss win" in text and "P2 " not in text
    assert "P1: " in text and "decisions," in text


def test_the_command_prints_json(record_file: Path) -> None:
    r = runner.invoke(app, ["review", str(record_file), "--iterations", "20", "--json"])
    assert r.exit_code == 0, r.output
    answer = json.loads(r.stdout)
    assert answer["format"] == "mombasa-review/1" and answer["all_seeing"] is False
    assert answer["budget"]["iterations"] == 20 and set(answer["curves"]) == {"1", "2"}
    rec = GameRecord.from_json(json.loads(record_file.read_text()))
    for d in answer["decisions"]:
        assert rec.steps[d["index"]].player + 1 == d["player"]
        assert rec.steps[d["index"]].step.text(engine.default_catalogue()) == d["played"]


def _ready_at_the_first_rest(data: dict[str, Any]) -> None:
    k = next(i for i, st in enumerate(data["steps"]) if st["player"] is not None)
    assert k == 24  # the message below names it
    data["steps"][k]["step"] = "ready"


def test_an_all_seeing_review_of_a_finished_game_says_so(tmp_path: Path) -> None:
    rec, final, _ = play_recorded([GREEDY, GREEDY], 8)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec.to_json(final=final)))
    r = runner.invoke(app, ["review", str(path), "--seats", "2", "--iterations", "5",
                            "--all-seeing"])
    assert r.exit_code == 0, r.output
    assert "(all-seeing: every hidden card shown)" in " ".join(r.output.split())
    r = runner.invoke(app, ["review", str(path), "--seats", "2", "--iterations", "5",
                            "--all-seeing", "--json"])
    answer = json.loads(r.stdout)
    assert answer["all_seeing"] is True and answer["seats"] == [2]
    assert answer["steps_replayed"] == len(rec.steps)


@pytest.mark.parametrize(("change", "args", "message"), [
    (_ready_at_the_first_rest, [],
     "not a usable game record: steps[24]: 'ready' is illegal here"),
    (lambda d: d.__setitem__("players", 7), [],
     "not a usable game record: players: expected an integer in [2, 4]"),
    (lambda d: None, ["--seats", "3"], "expected seat numbers 1 to 2"),
    (lambda d: None, ["--seats", "one"], "expected seat numbers 1 to 2"),
    (lambda d: None, ["--all-seeing"], "all_seeing: only a finished record"),
    (lambda d: None, ["--time", "1s", "--iterations", "5"], "not both"),
])
def test_the_command_refuses_bad_input(record_file: Path, tmp_path: Path, change: Any,
                                       args: list[str], message: str) -> None:
    data = json.loads(record_file.read_text())
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    r = runner.invoke(app, ["review", str(path), "--iterations", "5", *args]
                      if "--iterations" not in args else ["review", str(path), *args])
    assert r.exit_code == 2, r.output
    assert message in " ".join(r.output.split())
    assert "Traceback" not in r.output


def test_the_command_refuses_what_is_not_a_record(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps(engine.state_to_json(engine.new_game(players=2, seed=1))))
    r = runner.invoke(app, ["review", str(state)])
    assert r.exit_code == 2 and "a state file, not a game record" in r.output
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = runner.invoke(app, ["review", str(bad)])
    assert r.exit_code == 2 and "not JSON" in r.output


# -- the measurements of docs/review.md, shrunk ------------------------------------------
SMALL = ["--iterations", "10", "--strong", "mcts:iterations=20"]


def test_the_thresholds_measurement_runs_shrunk(tmp_path: Path) -> None:
    from benchmarks import review_quality as rq

    out = tmp_path / "t.json"
    report = rq.main(["thresholds", "--games", "1", "--every", "12", *SMALL,
                      "--json", str(out)])
    assert json.loads(out.read_text()) == json.loads(json.dumps(report))
    own, rand = report["losses"]["own"], report["losses"]["random"]
    assert len(own) == len(rand) == report["distributions"]["own"]["positions"] > 3
    assert report["drawn"] == rq.drawn_thresholds([tuple(x) for x in own]).to_json()
    assert all(0 <= v <= 1 for v in report["rates"]["shipped"].values())


def test_the_quality_measurement_runs_shrunk() -> None:
    from benchmarks import review_quality as rq

    report = rq.main(["quality", "--games", "2", "--per-game", "2", *SMALL])
    assert report["replaced"]["steps"] == 4 == sum(report["replaced_classes"].values())
    for side in ("strong_steps", "weak_steps"):
        assert report[side]["decisions"] > 20
        assert report[side]["serious"] <= report[side]["flagged"] <= report[side]["decisions"]


def test_the_speed_measurement_runs_shrunk() -> None:
    from benchmarks import review_quality as rq

    report = rq.main(["speed", "--factor", "2", *SMALL])
    assert report["decisions"] > 50 and 0 <= report["same_best"] <= report["decisions"]
    assert report["seconds"] > 0 and report["seconds_factor"] > 0
