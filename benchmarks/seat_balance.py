"""Seat balance in self-play: does the first seat win more than half, and why?

The same bot plays both seats of two-player games, so a seat that wins more than half
is favoured by the rules, the reconstructed components or by how the bot plays each
seat. The probe separates them:

* ``--setup first-game``: tracks A1 B1 C1 D1 and the fixed starting tiles;
* ``--setup variable``: the track cards and two starting tiles per seat dealt at random;
* ``--setup variable-first-game``: the variable setup's steps (tracks dealt, two tiles
  dealt per seat, each seat choosing one), but every deal and choice forced to the
  first-game components: what the dealing itself changes;
* ``--setup variable-tiles`` / ``variable-tracks``: only the tiles / only the tracks
  dealt at random, the other forced to the first game's;
* ``--setup swapped-tiles``: as ``variable-first-game`` but seats 1 and 2 get each
  other's first-game tile: whether the tiles or the turn order favour a seat.

With random tiles the report also gives the win rate by the tile kept, per seat (a tile
that favours its holder shows in both seats); with random tracks, seat 1's win rate by
each track in play. Whatever the setup it gives the
first-player actions each seat took, the rounds each seat started as first player and
its action turns. A bot-dependent sign (one bot favouring seat 1, another seat 2, on
the same setup) points at the bots, not the rules.

    .venv/bin/python -m benchmarks.seat_balance --bot greedy:eval=learned --games 200
    .venv/bin/python -m benchmarks.seat_balance --bot mcts:iterations=300 --games 100

``--journal FILE...`` plays nothing: it reads two-player ``mombasa arena --journal``
files and gives each one's seat split (wins and mean pounds of every category, and the
bookkeeper actions, by seat), whatever bots held the seats.

    .venv/bin/python -m benchmarks.seat_balance --journal \
        benchmarks/strength/journals/mcts_time025_planmodel_selfplay_seed48.jsonl
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from engine import State, Step, apply_move, new_game, observe, score, winners
from search.arena import read_journal, wilson_interval
from search.bot_specs import make_bot

SETUPS = ("first-game", "variable", "variable-first-game", "variable-tiles",
          "variable-tracks", "swapped-tiles")
# Which components each variable setup forces to the first game's.
_FORCED_TRACKS = frozenset({"variable-first-game", "variable-tiles", "swapped-tiles"})
_FORCED_TILES = frozenset({"variable-first-game", "variable-tracks", "swapped-tiles"})


def wanted_tile(first_game_tiles: tuple[int, ...], seat: int, setup: str) -> int:
    """The starting tile ``setup`` forces on ``seat``: its first-game tile, or with
    ``swapped-tiles`` the other one of seats 1 and 2.

    >>> wanted_tile((0, 1, 2, 3), 0, "swapped-tiles"), wanted_tile((0, 1, 2, 3), 2, "swapped-tiles")
    (1, 2)
    """
    if setup == "swapped-tiles" and seat < 2:
        seat = 1 - seat
    return first_game_tiles[seat]


@dataclass
class SeatGame:
    won: list[float]  # per seat: 1, 1/k for a shared win, 0
    totals: list[int]
    tiles: list[int]  # starting tile kept per seat
    tracks: tuple[int, ...]  # the track card at each company's edge
    first_actions: list[int]  # first-player actions taken per seat
    rounds_started: list[int]  # rounds begun as first player, per seat
    action_turns: list[int]
    bookkeeping: list[int]  # the bookkeeping category of the final score, per seat
    keepers: list[int]  # bookkeeper actions, per seat


def _forced_chance(s: State, step: Step, setup: str) -> Step:
    """The first-game component for a dealt track or tile, where ``setup`` forces it."""
    cat = s.cat
    legal = s.legal_steps()
    if step.kind == "deal-track" and setup in _FORCED_TRACKS:
        return next(x for x in legal if x.b == cat.first_game_tracks[x.a])
    if step.kind == "deal-tile" and setup in _FORCED_TILES:
        seat = step.a
        want = wanted_tile(cat.first_game_tiles, seat, setup)
        if want not in s.players[seat].tile_options:
            return next((x for x in legal if x.b == want), step)
        others = set(cat.first_game_tiles[:s.n])  # the second tile: nobody's first-game one
        return next((x for x in legal if x.b not in others), step)
    return step


def advance(s: State, setup: str) -> State:
    """Play the chance events (a dealt track or tile forced to the first game's where
    ``setup`` says so) and the forced starting-tile choices, up to the next decision a
    bot makes (or the end)."""
    forced_tiles = setup in _FORCED_TILES
    while not s.is_over():
        d = s.decision
        if d.kind == "chance":
            s = s.apply(_forced_chance(s, s.sample_chance(), setup))
        elif forced_tiles and d.kind == "starting-tile":
            want = wanted_tile(s.cat.first_game_tiles, d.player, setup)
            s = s.apply(next(x for x in s.legal_steps() if x.a == want))
        else:
            break
    return s


def play(args: tuple[str, str, int]) -> SeatGame:
    """One self-play game of ``bot`` with ``setup`` and game seed ``seed``."""
    bot, setup, seed = args
    s = new_game(players=2, seed=seed, variable=setup != "first-game")
    bots = [make_bot(bot, seed=seed * 7 + k) for k in range(2)]
    firsts, started, turns, keepers = [0, 0], [0, 0], [0, 0], [0, 0]
    round_seen = 0
    while not (s := advance(s, setup)).is_over():
        d = s.decision
        if s.round != round_seen:
            round_seen = s.round
            started[s.first] += 1
        move = bots[d.player].choose(observe(s, d.player))
        firsts[d.player] += sum(step.kind == "first" for step in move.steps)
        keepers[d.player] += sum(step.kind == "keeper" for step in move.steps)
        turns[d.player] += d.kind == "action"
        s = apply_move(s, move)
    best = winners(s)
    final = score(s)
    return SeatGame(won=[1 / len(best) if k in best else 0.0 for k in range(2)],
                    totals=[sc.total for sc in final],
                    tiles=[p.tile for p in s.players], tracks=tuple(s.tracks),
                    first_actions=firsts,
                    rounds_started=started, action_turns=turns,
                    bookkeeping=[sc.bookkeeping for sc in final], keepers=keepers)


def run(bot: str, setup: str, games: int, seed: int, jobs: int) -> list[SeatGame]:
    if setup not in SETUPS:
        raise ValueError(f"setup: one of {', '.join(SETUPS)}, got {setup!r}")
    make_bot(bot)  # a bad spec fails here, not in a worker
    rng = random.Random(seed)
    tasks = [(bot, setup, rng.randrange(1 << 30)) for _ in range(games)]
    if jobs <= 1:
        return [play(t) for t in tasks]
    with get_context("fork").Pool(jobs) as pool:
        return pool.map(play, tasks)


def report(bot: str, setup: str, rows: list[SeatGame]) -> str:
    n = len(rows)
    wins = sum(r.won[0] for r in rows)
    lo, hi = wilson_interval(wins, n)

    def mean(values: list[float]) -> str:
        return f"{sum(values) / n:.2f}"

    lines = [
        f"{bot}, {setup} setup, {n} games: seat 1 wins {wins:g} ({wins / n:.1%}, "
        f"95% CI {lo:.0%}-{hi:.0%})",
        "                    seat 1   seat 2",
    ]
    for label, pick in (("final money", lambda r, k: r.totals[k]),
                        ("first-player takes", lambda r, k: r.first_actions[k]),
                        ("rounds started", lambda r, k: r.rounds_started[k]),
                        ("action turns", lambda r, k: r.action_turns[k]),
                        ("bookkeeping money", lambda r, k: r.bookkeeping[k]),
                        ("bookkeeper actions", lambda r, k: r.keepers[k])):
        a = mean([pick(r, 0) for r in rows])
        b = mean([pick(r, 1) for r in rows])
        lines.append(f"{label:<20}{a:>7}  {b:>7}")
    if setup in ("variable", "variable-tiles"):
        by_tile: dict[tuple[int, int], list[float]] = defaultdict(list)
        for r in rows:
            for k in range(2):
                by_tile[(r.tiles[k], k)].append(r.won[k])
        lines.append("win rate by tile kept: tile (seat 1 | seat 2)")
        for tile in sorted({t for t, _ in by_tile}):
            cells = []
            for k in range(2):
                got = by_tile.get((tile, k), [])
                cells.append(f"{sum(got) / len(got):.0%} of {len(got)}" if got else "-")
            lines.append(f"  tile {tile + 1}: {cells[0]} | {cells[1]}")
    if setup in ("variable", "variable-tracks"):
        by_track: dict[int, list[float]] = defaultdict(list)
        for r in rows:
            for track in r.tracks:
                by_track[track].append(r.won[0])
        lines.append("seat 1's win rate by track in play")
        for track in sorted(by_track):
            got = by_track[track]
            lines.append(f"  track {track}: {sum(got) / len(got):.0%} of {len(got)}")
    return "\n".join(lines)


JOURNAL_CATEGORIES = ("totals", "companies", "diamonds", "bookkeeping", "cash", "keepers")


def journal_seats(path: str) -> str:
    """The seat split of a two-player arena journal (read by
    :func:`search.arena.read_journal`): seat 2's wins (ties shared) and the mean of each
    of :data:`JOURNAL_CATEGORIES` by seat."""
    games = list(read_journal(Path(path))[1].values())
    if not games:
        raise ValueError(f"{path}: no games in the journal")
    if any(len(g.seats) != 2 for g in games):
        raise ValueError(f"{path}: not a two-player journal")
    n = len(games)
    seat2 = sum((1 in g.winners) / len(g.winners) for g in games)
    lo, hi = wilson_interval(seat2, n)
    lines = [f"{Path(path).name}: {n} games, seat 2 wins {seat2:g} "
             f"({seat2 / n:.1%}, 95% CI {lo:.0%}-{hi:.0%})",
             "                    seat 1   seat 2"]
    for name in JOURNAL_CATEGORIES:
        a, b = (sum(getattr(g, name)[k] for g in games) / n for k in range(2))
        lines.append(f"{name:<20}{a:>7.1f}  {b:>7.1f}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bot", default="greedy:eval=learned")
    ap.add_argument("--setup", default="first-game", choices=SETUPS)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--journal", nargs="+", metavar="FILE",
                    help="summarise two-player arena journals by seat instead of playing")
    args = ap.parse_args()
    if args.journal:
        for path in args.journal:
            try:
                print(journal_seats(path))
            except (OSError, ValueError) as exc:
                ap.error(f"--journal: {exc}")
        return
    if args.games < 1:
        ap.error("--games: at least 1")
    rows = run(args.bot, args.setup, args.games, args.seed, args.jobs)
    print(report(args.bot, args.setup, rows))


if __name__ == "__main__":
    main()
