"""``mombasa play``: an interactive game in the terminal against AI bots. The AI seats
move with their bot specs; at the human seat the board is shown, the legal steps are
listed and one is read from stdin (a number, a step in notation, or a whole move: steps
joined by '; ', as a suggestion prints them; input can be piped), with '?' for the
suggestions of a short search (numbered s1, s2...: typing 's1' plays one), 'c' for what
the codes shown mean, 'b' for the board and 'q' to quit.

A move of several steps is played step by step while it stays that player's decision:
it stops at new information (after the reveal of the plans; before a card, book or tile
dealt or another player's turn: ``engine.playable_prefix``, the rule the service and
the page play suggested lines by), says what was played and what was not, and asks
again.

``--record FILE`` writes the game's record (``engine.GameRecord``, mombasa-game/1: the
human seat's steps with source ``human``, the AI's ``bot``, chance ``chance``) after
every move; ``--from FILE`` goes on with a record's game from its last position (the
record replayed step by step first: a step that cannot be played stops the command,
naming its index and why, before anything is played)."""

from __future__ import annotations

import json
import os
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

import engine
from advisor_api.cli_analyse import _print_solver_notes, _search, _summary
from advisor_api.cli_bots import split_players
from advisor_api.cli_errors import catalogue_setting, output_file, unusable
from advisor_api.cli_random import _score_table

play_app = typer.Typer()

PLAY_HELP = ("Type the number of a choice, a step in notation (e.g. 'unit CAI') or a "
             "whole move (steps joined by '; ', e.g. a pasted suggestion); '?' suggestions "
             "s1, s2...: type 's1' to play one; 'c' what the codes mean; 'b' the board; "
             "'h' this help; 'q' quit.")
SUGGESTION = re.compile(r"s(\d+)", re.IGNORECASE)


@play_app.command()
def play(
    players: Annotated[int | None, typer.Option(
        min=2, max=4, help="Number of players (default 2; with --from the record's).")]
    = None,
    ai: Annotated[str, typer.Option(help="Bot spec of the AI seats (one for all, or one "
                                         "per AI seat, comma separated); a playing "
                                         "level: level=N (1 beginner .. 8 full search).")]
    = "mcts:time=0.5",
    seed: Annotated[int | None, typer.Option(min=0, help="Game seed (default: random; "
                                                         "with --from the record's).")]
    = None,
    seat: Annotated[int, typer.Option(min=1, max=4, help="Your seat.")] = 1,
    variable: Annotated[bool, typer.Option(help="Variable setup.")] = False,
    hint_time: Annotated[float, typer.Option(min=0.01, help="Seconds of search for '?'.")]
    = 1.0,
    record: Annotated[Path | None, typer.Option(
        help="Write the game's record (mombasa-game/1) to this file after every move.")]
    = None,
    from_record: Annotated[Path | None, typer.Option(
        "--from", help="Go on with the game of this record from its last position "
                       "(its steps replayed and checked).")] = None,
) -> None:
    """Play a game in the terminal against the AI (input can be piped)."""
    catalogue_setting()
    output_file(record, "--record")
    earlier = _read_record(from_record) if from_record is not None else None
    n = earlier.players if earlier is not None else players or 2
    if earlier is not None:
        _check_against_record(earlier, players, variable)
        variable = earlier.variable
        seed = seed if seed is not None else earlier.seed
    if seat > n:
        raise typer.BadParameter(f"seat {seat} in a {n}-player game", param_hint="--seat")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    me = seat - 1
    specs = _ai_specs(ai, n)
    bots = _make_bots(specs, [i for i in range(n) if i != me], seed)
    seats = [engine.Seat("human") if i == me else engine.Seat("bot", bots[i].spec)
             for i in range(n)]
    log = GameLog(record, seats, seed, variable, n, earlier)
    console = Console(highlight=False)
    console.print(f"Mombasa, {n} players, seed {seed}. You are P{seat}; "
                  + ", ".join(f"P{i + 1}: {bots[i].spec}" for i in sorted(bots)) + ".")
    if earlier is not None:
        console.print(f"Going on from {from_record}: {len(earlier.steps)} steps replayed "
                      f"(round {log.state.round}).", markup=False)
    console.print(PLAY_HELP)
    _game(log, me, bots, console, hint_time, seed)


def _ai_specs(ai: str, n: int) -> list[str]:
    """The bot spec of each AI seat (one for all, or one each); 2: a wrong count."""
    specs = split_players(level_alias(ai))
    if len(specs) == 1:
        specs = specs * (n - 1)
    if len(specs) != n - 1:
        raise typer.BadParameter(f"give 1 or {n - 1} bot specs, got {len(specs)}",
                                 param_hint="--ai")
    return specs


@dataclass(frozen=True)
class _Bot:
    """An AI seat: its bot and the spec it was made from."""

    bot: Any
    spec: str


def _make_bots(specs: list[str], seats: list[int], seed: int) -> dict[int, _Bot]:
    from search.bot_specs import make_bot

    try:
        return {i: _Bot(make_bot(specs[k], seed=seed * 31 + i), specs[k])
                for k, i in enumerate(seats)}
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--ai") from None


def _read_record(path: Path) -> engine.GameRecord:
    """The record of ``--from``, read and replayed (checked step by step); a record that
    cannot be read or replayed stops the command naming the step and why."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        unusable("--from", path, exc.strerror or str(exc))
    except ValueError as exc:
        unusable("--from", path, f"not JSON: {exc}")
    try:
        rec = engine.GameRecord.from_json(data)
        rec.replay()
    except engine.RecordError as exc:
        unusable("--from", path, str(exc))
    return rec


def _check_against_record(rec: engine.GameRecord, players: int | None,
                          variable: bool) -> None:
    """``--players`` and ``--variable`` must not contradict the record of ``--from``."""
    if players is not None and players != rec.players:
        raise typer.BadParameter(f"the record is a {rec.players}-player game",
                                 param_hint="--players")
    if variable and not rec.variable:
        raise typer.BadParameter("the record's game has the first-game setup",
                                 param_hint="--variable")


class GameLog:
    """The game being played: its state and its record (kept whole; written to the
    ``--record`` file after every move, so a stopped game leaves its record)."""

    def __init__(self, path: Path | None, seats: list[engine.Seat], seed: int,
                 variable: bool, n: int, earlier: engine.GameRecord | None) -> None:
        self.path = path
        start = engine.new_game(players=n, seed=seed, variable=variable)
        self.record = engine.GameRecord.new(start, seats=seats, seed=seed,
                                            meta={"event": "play"})
        self.state = start
        for rec in earlier.steps if earlier is not None else []:
            assert rec.step is not None  # a replayed record hides nothing
            self.add(rec.player, [rec.step], rec.source)

    def add(self, player: int, steps: list[engine.Step], source: str) -> None:
        """Play and record ``steps`` of ``player`` (-1: chance)."""
        for step in steps:
            self.state = self.state.apply(step, player if player >= 0 else None)
            self.record.append(player, step, source)

    def save(self) -> None:
        """Write the record so far (whole, or not at all)."""
        if self.path is None:
            return
        part = self.path.with_name(self.path.name + ".part")
        part.write_text(json.dumps(self.record.to_json(self.state.cat, final=self.state))
                        + "\n", encoding="utf-8")
        os.replace(part, self.path)


def _game(log: GameLog, me: int, bots: dict[int, _Bot], console: Console,
          hint_time: float, seed: int) -> None:
    """Play from ``log``'s state to the end (or until the human quits)."""
    dealt = 0
    last_player = -2
    log.save()
    while not log.state.is_over():
        s = log.state
        d = s.decision
        if d.kind == "chance":
            log.add(-1, [s.sample_chance()], "chance")
            dealt += 1
            continue
        if dealt:
            console.print(f"[dim]({dealt} card(s)/book(s) dealt)[/dim]")
            dealt = 0
        if d.player != me:
            log.add(d.player, _ai_move(s, d.player, bots[d.player].bot, console), "bot")
            log.save()
            last_player = d.player
            continue
        if last_player != me:
            _show_board(s, me, console)
        last_player = me
        steps = _human_step(s, me, console, hint_time, seed)
        if steps is None:
            log.save()
            console.print("Game abandoned.")
            console.print(_score_table(s))
            return
        log.add(me, steps, "human")
        log.save()
    log.save()
    console.print(_score_table(log.state))
    console.print("Winner(s): " + ", ".join(f"P{w + 1}" for w in engine.winners(log.state)))


def level_alias(text: str) -> str:
    """``--ai level=N`` is the bot spec ``level:N`` (a playing level, search.levels).

    >>> level_alias("level=3"), level_alias("mcts:time=1,level=8")
    ('level:3', 'mcts:time=1,level:8')
    """
    return re.sub(r"(^|,)\s*level\s*=", r"\1level:", text)


def _show_board(s: engine.State, me: int, console: Console) -> None:
    from advisor_api.board import board_text

    console.print(board_text(engine.observe(s, me).state, me), markup=False)


def _ai_move(s: engine.State, player: int, bot: Any, console: Console
             ) -> list[engine.Step]:
    """The AI seat's move, said (its hidden steps as a count); its steps."""
    with console.status(f"P{player + 1} ({bot.name}) is thinking..."):
        move = bot.choose(engine.observe(s, player))
    text = move.text(s.cat)
    if move.steps and move.steps[0].kind in ("plan", "ready", "tile"):
        planned = sum(1 for st in move.steps if st.kind == "plan")
        text = (f"planned {planned} card(s), hidden until the reveal"
                if move.steps[0].kind != "tile" else "chose a starting tile (hidden)")
    console.print(f"P{player + 1}: {text}")
    engine.apply_move(s, move, complete=False)  # IllegalStep here, before any is kept
    return list(move.steps)


def _read_line(console: Console) -> str | None:
    line = sys.stdin.readline()
    if line == "":
        console.print()
        return None
    if not sys.stdin.isatty():  # piped input: show it, so the transcript reads well
        console.print(line.rstrip("\n"), markup=False)
    return line.strip()


def _human_step(s: engine.State, me: int, console: Console, hint_time: float,
                seed: int) -> list[engine.Step] | None:
    """Ask for one step (or a move) until a legal one is given: the steps played; None
    to quit."""
    legal = s.legal_steps()
    d = s.decision
    console.print(f"Your decision ({d.kind}):")
    width = max(len(str(len(legal))), 1)
    for k, step in enumerate(legal, start=1):
        console.print(f"  {k:>{width}}. {step.text(s.cat)}", markup=False)
    suggested: list[str] = []  # the moves of the last '?', for 's1', 's2'...
    while True:
        console.print("> ", end="")
        line = _read_line(console)
        if line is None or line.lower() in ("q", "quit", "exit"):
            return None
        if not line:
            continue
        if line == "?":
            suggested = _suggest(s, me, console, hint_time, seed, legal)
            continue
        if line.lower() in ("c", "codes"):
            _show_codes(s, me, legal, console)
            continue
        pick = SUGGESTION.fullmatch(line)
        if pick is not None:
            k = int(pick.group(1))
            if not 1 <= k <= len(suggested):
                console.print(f"choose s1-s{len(suggested)}" if suggested
                              else "no suggestions yet: type '?' first")
                continue
            line = suggested[k - 1]
        if line.lower() in ("b", "board"):
            _show_board(s, me, console)
            continue
        if line.lower() in ("h", "help"):
            console.print(PLAY_HELP)
            continue
        if line.isdigit():
            k = int(line)
            if 1 <= k <= len(legal):
                return [legal[k - 1]]
            console.print(f"choose 1-{len(legal)}")
            continue
        nxt = _play_move(s, me, line, console, echo=pick is not None)
        if nxt is not None:
            return nxt


# Why a pasted move stops (engine.playable_prefix's reasons), in words.
STOP_WORDS = {
    "reveal": "the plans are revealed first (new information)",
    "chance": "a card, book or tile is dealt first (new information)",
    "over": "the game is over",
}


def _stop_words(why: str | None, after: engine.State, rest: str, error: str) -> str:
    """Why a move stopped where it did (``after``: the state reached; ``rest``: the first
    step not played; ``error``: why that step is not legal, for ``illegal``)."""
    if why == "other-seat":
        return f"it is P{after.decision.player + 1}'s decision"
    if why in STOP_WORDS:
        return STOP_WORDS[why]
    return f"{rest!r} is not legal now: {error}"


def _parse_line(parts: list[str], cat: engine.Catalogue) -> tuple[list[engine.Step], str]:
    """The steps of ``parts`` up to the first that does not parse, and why it does not
    ('' when all do)."""
    steps: list[engine.Step] = []
    for part in parts:
        try:
            steps.append(engine.Step.parse(part, cat))
        except engine.NotationError as exc:
            return steps, str(exc)
    return steps, ""


def _play_move(s: engine.State, me: int, text: str, console: Console,
               echo: bool = False) -> list[engine.Step] | None:
    """Play the steps of ``text`` (one step, or a move: steps joined by '; ') in order up
    to what this player has not seen (``engine.playable_prefix``: the reveal of the
    plans, a deal, another player's decision) or an illegal step; None if its first step
    is not accepted (nothing is played). What was played is said for a move (or with
    ``echo``, for a suggestion picked by its number)."""
    parts = [p.strip() for p in text.split(";") if p.strip()]
    steps, error = _parse_line(parts, s.cat)
    played, why = engine.playable_prefix(s, me, steps)
    cur = s
    for step in steps[:played]:
        cur = cur.apply(step, me)
    if why == "illegal":
        try:
            cur.apply(steps[played], me)
        except engine.IllegalStep as exc:
            error = str(exc)
    elif played == len(steps) and played < len(parts):
        why = "illegal"  # a step that does not parse
    if not played:
        console.print(f"not accepted: {error}", markup=False)
        return None
    if len(parts) > 1 or echo:
        rest = parts[played:]
        note = f"played: {'; '.join(parts[:played])}"
        if rest:
            note += (f" - not played: {'; '.join(rest)} "
                     f"({_stop_words(why, cur, rest[0], error)}; decide again)")
        console.print(note, markup=False)
    return steps[:played]


def _show_codes(s: engine.State, me: int, legal: list[engine.Step],
                console: Console) -> None:
    """Explain the codes of the choices and of this player's own cards (hand, slots,
    resting decks; the display or the books too when a choice takes from them)."""
    from advisor_api.board import board_text
    from advisor_api.cli_codes import explain_codes

    lines = board_text(engine.observe(s, me).state, me).splitlines()
    mine = f"P{me + 1} (you)"
    start = next(k for k, line in enumerate(lines) if line.startswith(mine))
    own = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith(" "):
            break
        own.append(line)
    kinds = {st.kind for st in legal}
    shown = [line for line in lines
             if (line.startswith("Display:") and kinds & {"buy", "buy-card"})
             or (line.startswith("Books:") and "take" in kinds)]
    codes = explain_codes(s.cat, [st.text(s.cat) for st in legal] + shown + own)
    width = max((len(code) for code, _ in codes), default=0)
    for code, meaning in codes:
        console.print(f"  {code:<{width}}  {meaning}", markup=False)


def _suggest(s: engine.State, me: int, console: Console, seconds: float, seed: int,
             legal: list[engine.Step]) -> list[str]:
    """Print the suggestions of a short search, numbered s1, s2... with the number of
    their first step among the choices; their moves' texts."""
    from advisor_api import analysis
    from advisor_api.settings import Settings
    from advisor_api.solvers import solve_decision

    obs = engine.observe(s, me)
    settings = Settings(max_time=max(seconds, 1.0))
    plan = analysis.make_plan(obs, settings, iterations=None, time=seconds, multipv=3,
                              seed=seed, jobs=1)
    result = _search(obs, None, seconds, seed, 1, console, "thinking")
    answer = analysis.build_response(plan, result, result.elapsed,
                                     solved=solve_decision(obs.state))
    choices = {st.text(s.cat): k for k, st in enumerate(legal, start=1)}
    pov = answer["pov"]
    console.print("Suggestions: " + _summary(answer), highlight=False)
    moves = []
    for k, line in enumerate(answer["lines"], start=1):
        move = line["move"]["text"]
        choice = choices.get(move.split(";")[0].strip())
        first = f"choice {choice}, " if choice is not None else ""
        console.print(f"  s{k}. {move}   ({first}win {line['eval']['win'][pov]:.0%}, "
                      f"{line['share']:.0%} of the search)", markup=False)
        moves.append(move)
    _print_solver_notes(answer, console, label="s")
    if moves:
        console.print(f"Type s1-s{len(moves)} to play one (or paste its line).")
    return moves
