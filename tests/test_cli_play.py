"""``mombasa play``: whole moves (a pasted suggestion) played step by step up to new
information, suggestions numbered s1, s2... like the choices, the codes explained; and
the players named P1-P4 wherever a person reads them."""

from __future__ import annotations

import re

from typer.testing import CliRunner

import engine
from advisor_api.cli import app

runner = CliRunner()
# The first game's setup is fixed: seat 1 rests cof1/1, ban1/1 and exp2/1, then plans.
REST = "rest cof1/1 exp2/1 ban1/1"
PLAN = "plan one/1 2; plan ban2/1 3; plan exp1/1 4; ready"


def _play(lines: list[str], *args: str) -> str:
    r = runner.invoke(app, ["play", "--ai", "random", "--seed", "1", *args],
                      input="\n".join(lines) + "\nq\n")
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    return r.output


def test_a_pasted_move_is_played_step_by_step() -> None:
    out = _play([REST, PLAN])
    assert f"played: {PLAN}" in out
    assert "not played" not in out
    assert "slots 1:- 2:one/1 3:ban2/1 4:exp1/1 5:-" in out
    assert "Your decision (action):" in out


def test_a_move_stops_where_another_player_decides() -> None:
    out = _play([f"{REST}; plan one/1 2"])
    assert (f"played: {REST} - not played: plan one/1 2 (it is P2's decision; decide "
            "again)") in " ".join(out.split())
    assert "Your decision (plan):" in out  # asked again after P2's move


def test_a_move_stops_at_its_first_illegal_step() -> None:
    out = _play([REST, "plan one/1 2; plan one/1 3; ready"])
    text = " ".join(out.split())
    assert "played: plan one/1 2 - not played: plan one/1 3; ready ('plan one/1 3' is not " \
           "legal now" in text
    assert "slots 1:- 2:one/1 3:- 4:- 5:-" not in out  # the board is not shown again
    out = _play(["fly away; ready"])
    assert "not accepted: unknown step kind 'fly'" in out and "played:" not in out


def test_a_move_stops_at_new_information() -> None:
    """Planning: "As soon as all players are finished placing their cards in their
    action area, turn all cards face up" (rulebook, I. Planning Phase): P2 plans last,
    its ``ready`` reveals P1's plan, and the pasted move stops there (the rule:
    ``engine.playable_prefix``, tests/test_play_line_rule.py)."""
    out = _play(["rest cot1/2 cof1/2 ban2/2", "ready; goods cof1/2"], "--seat", "2")
    assert ("played: ready - not played: goods cof1/2 (the plans are revealed first (new "
            "information); decide again)") in " ".join(out.split())


def test_suggestions_are_numbered_and_played_by_number() -> None:
    r = runner.invoke(app, ["play", "--ai", "random", "--seed", "1", "--hint-time", "0.2"],
                      input="s1\n?\ns4\ns1\nq\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "no suggestions yet: type '?' first" in out
    first = out[:out.index("Suggestions:")]  # the choices the suggestions are for
    listed = re.findall(r"^ +(\d+)\. (.+)$", first, re.MULTILINE)
    choices = {int(k): text for k, text in listed}
    suggestions = re.findall(r"^  s(\d)\. (.+?)   \(choice (\d+), win", out, re.MULTILINE)
    assert [k for k, _, _ in suggestions] == ["1", "2", "3"]
    for _, move, choice in suggestions:  # each names the choice of its first step
        assert choices[int(choice)] == move.split(";")[0]
    assert "choose s1-s3" in out
    assert f"played: {suggestions[0][1]}" in out
    assert "Type s1-s3 to play one (or paste its line)." in out


def test_codes_are_explained_from_the_players_own_view() -> None:
    out = _play(["c"])
    codes = out[out.index("> c"):]
    assert "kpr2/1  bookkeeper card: 2 bookkeeping points, 2 crates (P1's starting card)" \
        in codes
    assert "cof1/1  coffee goods card: 1 unit (P1's starting card)" in codes
    assert "/2 " not in codes  # P2's cards are not this player's to look up
    assert "company Mombasa" in codes


def test_help_names_the_commands() -> None:
    out = _play(["h"])
    text = " ".join(out.split())
    assert "type 's1' to play one; 'c' what the codes mean" in text


def test_reprs_name_players_from_one() -> None:
    s = engine.new_game(players=3, seed=2)
    while s.decision.is_chance:
        s = s.apply(s.sample_chance())
    who = s.decision.player + 1
    assert repr(s.decision) == f"Decision('resting-cards', P{who})"
    assert f"decision=resting-cards P{who}>" in repr(s)
    assert repr(engine.observe(s, 2)).startswith("Observation(viewer=P3, ")
    assert repr(engine.score(s)[2]).startswith("Score(P3, cash=")
    move = engine.Move(2, (engine.Step("ready"),))
    assert repr(move).startswith("Move(P3, steps=")
    assert "player=" not in repr(s.decision) + repr(s) + repr(move)


def test_random_game_names_players_from_one() -> None:
    r = runner.invoke(app, ["random-game", "--players", "3", "--seed", "2", "--stop-at",
                            "60"])
    assert r.exit_code == 0, r.output
    stopped = [line for line in r.output.splitlines() if line.startswith("Stopped")]
    assert stopped and re.search(r"Decision\('[a-z-]+', P[1-3]", stopped[0])
    r = runner.invoke(app, ["random-game", "--players", "3", "--seed", "2"])
    assert re.search(r"Winner\(s\): P[1-3]", r.output)
