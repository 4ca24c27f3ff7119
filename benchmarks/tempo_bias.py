"""Tempo bias of an evaluator: is the player about to act under- or over-rated?

Two greedy bots play each other; at every action decision the evaluator's money lead of
player 1 over player 2 is compared with the final lead. If the evaluator priced the
tempo right, the mean error would not depend on who is about to act. The report gives
the mean error of player 1's lead with player 1 to act and with player 2 to act, per
round, and the difference (positive: the player about to act is underrated).

    .venv/bin/python -m benchmarks.tempo_bias --games 30 --bot greedy:eval=learned

``MOMBASA_VALUE_MODEL=FILE`` measures another model file.
"""

from __future__ import annotations

import argparse
import statistics

from engine import apply_move, new_game, observe, score
from search.bot_specs import make_bot
from search.evaluator import money_estimate


def lead_errors(games: int, bot: str, evaluator: str, seed: int = 1000
                ) -> dict[int, list[tuple[int, float]]]:
    """Per player about to act (0 or 1): (round, final lead - estimated lead of P1)."""
    out: dict[int, list[tuple[int, float]]] = {0: [], 1: []}
    for g in range(games):
        s = new_game(players=2, seed=seed + g)
        bots = [make_bot(bot, seed=2 * g + i) for i in range(2)]
        seen: list[tuple[int, int, float]] = []
        while not s.is_over():
            d = s.decision
            if d.kind == "chance":
                s = s.apply(s.sample_chance())
                continue
            if d.kind == "action":
                m = money_estimate(s, evaluator=evaluator)
                seen.append((d.player, s.round, m[0] - m[1]))
            s = apply_move(s, bots[d.player].choose(observe(s, d.player)))
        totals = [sc.total for sc in score(s)]
        for who, rnd, lead in seen:
            out[who].append((rnd, totals[0] - totals[1] - lead))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--bot", default="greedy:eval=learned")
    ap.add_argument("--eval", default="learned", choices=("learned", "hand"))
    args = ap.parse_args()
    errors = lead_errors(args.games, args.bot, args.eval)
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


if __name__ == "__main__":
    main()
