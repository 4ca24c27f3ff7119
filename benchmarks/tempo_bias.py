"""Tempo bias of an evaluator: is the player about to act under- or over-rated?

Two greedy bots play each other; at every action decision the evaluator's money lead of
player 1 over player 2 is compared with the final lead. If the evaluator priced the
tempo right, the mean error would not depend on who is about to act. The report gives
the mean error of player 1's lead with player 1 to act and with player 2 to act, per
round, and the difference (positive: the player about to act is underrated).

    .venv/bin/python -m benchmarks.tempo_bias --games 30 --bot greedy:eval=learned

The first table (any number of players, ``--players``) compares by role: at each action
decision that follows another player's, how much better off than estimated the player to
act ends, and the others, relative to the player who just moved. That difference is
the correction a search would add at a leaf (``search.evaluator.TEMPO``).

``--progress`` adds a third report (two players): the mean error of player 1's lead by
how many more action cards player 1 has used this round than player 2, and the least
squares slope over that difference (with who is to act as a second term). A negative
slope means the player further through the round is overrated by that many pounds per
card (``benchmarks/strength/search-journal.md``, 2026-12-02,
"Where the gain stops": a leaf correction by this slope was
tried and played worse).

``MOMBASA_VALUE_MODEL=FILE`` measures another model file.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Iterable, Iterator

import numpy as np

from engine import apply_move, new_game, observe, score
from search.bot_specs import make_bot
from search.evaluator import money_estimate

# to act, previous actor, round, estimate, action cards used this round per player
Seen = tuple[int, int | None, int, list[float], list[int]]
Game = tuple[list[Seen], list[int]]  # action decisions, final money


def played_games(games: int, players: int, bot: str, evaluator: str, seed: int = 1000
                 ) -> Iterator[Game]:
    """Self-play of ``bot``: per game, every action decision (who is to act, who made the
    previous action decision, the round, the evaluator's estimate) and the final money."""
    for g in range(games):
        s = new_game(players=players, seed=seed + g)
        bots = [make_bot(bot, seed=players * g + i) for i in range(players)]
        seen: list[Seen] = []
        last: int | None = None
        while not s.is_over():
            d = s.decision
            if d.kind == "chance":
                s = s.apply(s.sample_chance())
                continue
            if d.kind == "action":
                seen.append((d.player, last, s.round, money_estimate(s, evaluator=evaluator),
                             [p.used.bit_count() for p in s.players]))
                last = d.player
            s = apply_move(s, bots[d.player].choose(observe(s, d.player)))
        yield seen, [sc.total for sc in score(s)]


def lead_errors(games: int, bot: str, evaluator: str, seed: int = 1000
                ) -> dict[int, list[tuple[int, float]]]:
    """Per player about to act (0 or 1): (round, final lead - estimated lead of P1)."""
    return leads_of(played_games(games, 2, bot, evaluator, seed))


def leads_of(played: Iterable[Game]) -> dict[int, list[tuple[int, float]]]:
    """:func:`lead_errors` of two-player games already played."""
    out: dict[int, list[tuple[int, float]]] = {0: [], 1: []}
    for seen, totals in played:
        for who, _, rnd, est, _used in seen:
            out[who].append((rnd, _lead_error(totals, est)))
    return out


def _lead_error(totals: list[int], est: list[float]) -> float:
    """Final lead of player 1 over player 2 minus its estimate."""
    return totals[0] - totals[1] - (est[0] - est[1])


def role_errors(games: int, players: int, bot: str, evaluator: str, seed: int = 1000
                ) -> list[tuple[int, float, float, float | None]]:
    """Per action decision that follows another player's: (round, error of the player to
    act, of the player who made the previous action decision, mean error of the others
    or None with two players).

    An error is final money minus the evaluator's estimate. If the estimate leans toward
    whoever just moved (the optimizer's curse), the mover's error is below the others'.
    """
    return roles_of(played_games(games, players, bot, evaluator, seed))


def roles_of(played: Iterable[Game]) -> list[tuple[int, float, float, float | None]]:
    """:func:`role_errors` of games already played."""
    out: list[tuple[int, float, float, float | None]] = []
    for seen, totals in played:
        players = len(totals)
        for actor, mover, rnd, est, _used in seen:
            if mover is None or mover == actor:
                continue
            err = [totals[i] - est[i] for i in range(players)]
            rest = [err[i] for i in range(players) if i not in (actor, mover)]
            out.append((rnd, err[actor], err[mover],
                        statistics.mean(rest) if rest else None))
    return out


def progress_errors(played: Iterable[Game]) -> list[tuple[int, int, float]]:
    """Two players: per action decision (cards player 1 has used this round minus player
    2's, who is to act, final lead of player 1 minus its estimated lead)."""
    out = []
    for seen, totals in played:
        for who, _, _rnd, est, used in seen:
            out.append((used[0] - used[1], who, _lead_error(totals, est)))
    return out


def progress_slope(rows: list[tuple[int, int, float]]) -> tuple[float, float, float]:
    """Least squares ``error ~ a + b * used difference + c * [player 1 to act]``:
    (a, b, c)."""
    x = np.array([[1.0, diff, 1.0 if who == 0 else 0.0] for diff, who, _ in rows])
    y = np.array([err for _, _, err in rows])
    a, b, c = np.linalg.lstsq(x, y, rcond=None)[0]
    return float(a), float(b), float(c)


def report_progress(rows: list[tuple[int, int, float]]) -> None:
    print("cards used, P1 - P2  mean error of P1's lead  decisions")
    for diff in range(-3, 4):
        sel = [e for d, _, e in rows if max(-3, min(3, d)) == diff]
        if sel:
            print(f"{diff:>19}  {statistics.mean(sel):23.2f}  {len(sel):9}")
    a, b, c = progress_slope(rows)
    print(f"slope: {b:.2f} pounds per card (intercept {a:.2f}, P1 to act {c:.2f})")


def report_roles(rows: list[tuple[int, float, float, float | None]]) -> None:
    """Print, per round, how much better than estimated the player to act and the others
    end, relative to the player who just moved (the correction a search would add)."""
    print("round  to act - mover  others - mover  decisions")
    for rnd in [*range(1, 8), 0]:
        sel = [r for r in rows if rnd in (0, r[0])]
        if not sel:
            continue
        act = statistics.mean(a - m for _, a, m, _o in sel)
        others = [o - m for _, _a, m, o in sel if o is not None]
        oth = f"{statistics.mean(others):14.2f}" if others else f"{'-':>14}"
        print(f"{'all' if rnd == 0 else rnd:>5}  {act:14.2f}  {oth}  {len(sel):9}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--bot", default="greedy:eval=learned")
    ap.add_argument("--eval", default="learned", choices=("learned", "hand"))
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4),
                    help="with 3 or 4 players only the by-role report is printed")
    ap.add_argument("--progress", action="store_true",
                    help="also the error by cards used this round (two players)")
    ap.add_argument("--seed", type=int, default=1000)
    args = ap.parse_args()
    played = list(played_games(args.games, args.players, args.bot, args.eval, args.seed))
    report_roles(roles_of(played))
    if args.players != 2:
        return
    errors = leads_of(played)  # the same games: each is played once
    print("round  P1 to act  P2 to act  difference")
    for rnd in range(1, 8):
        a = [e for r, e in errors[0] if r == rnd]
        b = [e for r, e in errors[1] if r == rnd]
        if a and b:
            ma, mb = statistics.mean(a), statistics.mean(b)
            print(f"{rnd:5}  {ma:9.2f}  {mb:9.2f}  {ma - mb:10.2f}")
    a = [e for _, e in errors[0]]
    b = [e for _, e in errors[1]]
    print(f"  all  {statistics.mean(a):9.2f}  {statistics.mean(b):9.2f}  "
          f"{statistics.mean(a) - statistics.mean(b):10.2f}   ({len(a)} + {len(b)} decisions)")
    if args.progress:
        report_progress(progress_errors(played))


if __name__ == "__main__":
    main()
