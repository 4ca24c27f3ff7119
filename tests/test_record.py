"""Game records (format mombasa-game/1, ``engine.GameRecord``): a game written out
replays to the same end, a record is read field by field, a step illegal where it stands
is refused naming its index and why, and a seat's view hides what the rules hide
(rulebook: plans are placed face down and revealed together; the starting tiles a
player does not choose go back unseen)."""

from __future__ import annotations

import copy
import random

import pytest

import engine
from engine import GameRecord, RecordError, Seat


def _play(seed: int, players: int = 2, variable: bool = False,
          stop: int | None = None) -> tuple[GameRecord, list[engine.State]]:
    s = engine.new_game(players=players, seed=seed, variable=variable)
    rec = GameRecord.new(s, seats=[Seat("bot", "random")] * players, seed=seed,
                         meta={"event": "test"})
    states = [s]
    rng = random.Random(seed)
    while not s.is_over() and (stop is None or len(rec.steps) < stop):
        d = s.decision
        if d.is_chance:
            step, player = s.sample_chance(), -1
        else:
            step, player = s.random_step(rng), d.player
        rec.append(player, step, "chance" if player < 0 else "bot")
        s = s.apply(step, None if player < 0 else player)
        states.append(s)
    return rec, states


@pytest.mark.parametrize(("seed", "players", "variable"),
                         [(1, 2, False), (2, 3, True), (3, 4, False), (4, 2, True)])
def test_a_record_round_trips_to_the_same_score(seed: int, players: int,
                                                variable: bool) -> None:
    rec, states = _play(seed, players, variable)
    data = rec.to_json(final=states[-1])
    again = GameRecord.from_json(data)
    replayed = again.replay()
    assert replayed[-1].is_over()
    assert [sc.total for sc in engine.score(replayed[-1])] == data["result"]["totals"]
    assert again.to_json(final=replayed[-1]) == data


def test_a_step_illegal_where_it_stands_is_refused_naming_its_index() -> None:
    rec, states = _play(5, stop=60)
    data = rec.to_json()
    # "ready" (Planning done) where the first player is to rest cards.
    k = next(i for i, st in enumerate(data["steps"]) if st["player"] is not None)
    data["steps"][k]["step"] = "ready"
    with pytest.raises(RecordError) as err:
        GameRecord.from_json(data).replay()
    assert err.value.index == k and err.value.field == f"steps[{k}]"
    assert f"steps[{k}]: 'ready' is illegal here" in str(err.value)


def test_a_step_given_to_the_wrong_player_is_refused() -> None:
    rec, _ = _play(6, stop=40)
    data = rec.to_json()
    k = next(i for i, st in enumerate(data["steps"]) if st["player"] is not None)
    data["steps"][k]["player"] = 3 - data["steps"][k]["player"]
    with pytest.raises(RecordError, match=rf"steps\[{k}\]: .* P\d has no decision here"):
        GameRecord.from_json(data).replay()
    data["steps"][k]["player"] = None  # a player's step told as chance
    with pytest.raises(RecordError, match=rf"steps\[{k}\]: .*the record says chance"):
        GameRecord.from_json(data).replay()


def test_a_result_that_the_steps_do_not_give_is_refused() -> None:
    rec, states = _play(7)
    data = rec.to_json(final=states[-1])
    data["result"]["totals"][0] += 1
    with pytest.raises(RecordError, match="result: the record says"):
        GameRecord.from_json(data).replay()


def test_steps_after_the_end_are_refused() -> None:
    rec, states = _play(8)
    data = rec.to_json()
    data["steps"].append(dict(data["steps"][-1]))
    with pytest.raises(RecordError, match="the game is already over") as err:
        GameRecord.from_json(data).replay()
    assert err.value.index == len(data["steps"]) - 1


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.update(format="mombasa-game/2"), "format"),
    (lambda d: d.update(players="2"), "players"),
    (lambda d: d.update(players=5), "players"),
    (lambda d: d.update(variable="no"), "variable"),
    (lambda d: d.update(seed=-1), "seed"),
    (lambda d: d.update(extra=1), "extra"),
    (lambda d: d.pop("steps"), "steps"),
    (lambda d: d["seats"].pop(), "seats"),
    (lambda d: d["seats"][1].update(kind="robot"), "seats[1].kind"),
    (lambda d: d["steps"][3].update(player=0), "steps[3].player"),
    (lambda d: d["steps"][3].update(player=True), "steps[3].player"),
    (lambda d: d["steps"][3].update(source="Human!"), "steps[3].source"),
    (lambda d: d["steps"][3].update(step="fly to mars"), "steps[3].step"),
    (lambda d: d["steps"][3].update(step=None), "steps[3].step"),
    (lambda d: d["steps"][3].update(note="x"), "steps[3].note"),
    (lambda d: d.update(meta={"Bad Key": "x"}), "meta"),
    (lambda d: d.update(view=3), "view"),
])
def test_a_malformed_record_names_the_field(change: object, field: str) -> None:
    rec, _ = _play(9, stop=20)
    data = copy.deepcopy(rec.to_json())
    change(data)  # type: ignore[operator]
    with pytest.raises(RecordError) as err:
        GameRecord.from_json(data)
    assert err.value.field == field, str(err.value)
    assert str(err.value).startswith(field)


def test_a_record_of_other_components_is_refused() -> None:
    rec, _ = _play(10, stop=10)
    data = rec.to_json()
    data["catalogue"] = "0000000000000000"
    with pytest.raises(RecordError, match="catalogue: the record was played with"):
        GameRecord.from_json(data).replay()


def _planning_in_progress(seed: int) -> tuple[GameRecord, list[engine.State]]:
    """A record stopped while both seats are planning (one plan step each taken)."""
    for stop in range(20, 400):
        rec, states = _play(seed, stop=stop)
        plans = {r.player for r in rec.steps if r.step is not None and r.step.kind == "plan"}
        if plans == {0, 1} and not states[-1].revealed and states[-1].decision.kind == "plan":
            return rec, states
    raise AssertionError("no Planning reached")


def test_a_seat_never_sees_another_seats_plan_before_the_reveal() -> None:
    """Rulebook, Planning: cards go face down into the slots; all are revealed together."""
    rec, states = _planning_in_progress(11)
    mine = rec.seen_by(0, states)
    assert mine.viewer == 0 and mine.seed is None
    for r, seen in zip(rec.steps, mine.steps, strict=True):
        if r.step is not None and r.step.kind == "plan":
            assert (seen.step is None) == (r.player == 1)
    data = mine.to_json()
    assert data["view"] == 1 and data["seed"] is None
    back = GameRecord.from_json(data)
    with pytest.raises(RecordError, match="hidden"):
        back.replay()


def test_after_the_reveal_every_plan_is_seen() -> None:
    rec, states = _play(12)
    for seat in (0, 1):
        view = rec.seen_by(seat, states)
        plan_hidden = [s for r, s in zip(rec.steps, view.steps, strict=True)
                       if r.step is not None and r.step.kind == "plan" and s.step is None]
        assert plan_hidden == []


def test_starting_tiles_dealt_to_others_stay_hidden() -> None:
    """Variable setup: each player is dealt two tiles and keeps one; the other goes back
    unseen."""
    rec, states = _play(13, variable=True)
    view = rec.seen_by(0, states)
    for r, s in zip(rec.steps, view.steps, strict=True):
        assert r.step is not None
        if r.step.kind == "deal-tile":
            assert (s.step is None) == (r.step.a != 0)


def test_a_seats_view_gives_the_result_of_a_finished_game_only() -> None:
    """A record read with its result: a seat's view of the whole game keeps the result;
    a view of its first 60 steps (the states up to there: the game not over) gives
    none, whatever the record claims."""
    rec, states = _play(12)
    data = rec.to_json(final=states[-1])
    whole = GameRecord.from_json(data)
    assert whole.result is not None
    assert whole.seen_by(0, states).result == whole.result == data["result"]
    cut = GameRecord.from_json({**data, "steps": data["steps"][:60]})
    assert cut.result == data["result"]  # read, not replayed
    assert cut.seen_by(0, states[:61]).result is None


def test_a_spectators_record_reads_back_with_view_zero() -> None:
    """A spectator (no seat) sees no seat's hidden plan before the reveal; its record
    says ``view: 0`` and reads back as that view."""
    rec, states = _planning_in_progress(11)
    public = rec.seen_by(-1, states)
    data = public.to_json()
    assert data["view"] == 0
    back = GameRecord.from_json(data)
    assert back.viewer == -1
    hidden = [r.step is None for r in back.steps]
    assert hidden == [s.step is None for s in public.steps] and any(hidden)
