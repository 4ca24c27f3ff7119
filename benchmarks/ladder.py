"""The rating ladder: the playing levels (``level:1`` .. ``level:8``, search.levels) and
the named bots on one Elo scale, with 95% intervals.

``run`` plays a schedule of two-player arena series (:data:`SCHEDULE`: adjacent levels,
a few skips, links to the named bots), each kept in its own journal under ``--out``
(``A__B.jsonl``, the ``mombasa arena --journal`` format), so a stopped run resumes where
it stopped; then it fits and prints the ladder. ``fit`` only fits: the journals of the
given directories plus the two-player journals of ``benchmarks/strength/journals`` (the
time-based searches against greedy, the specialists, random, and 1 s against 0.25 s), so
those expensive bots need few new games.

    .venv/bin/python -m benchmarks.ladder run --out benchmarks/ladder --jobs 1
    .venv/bin/python -m benchmarks.ladder fit benchmarks/ladder --json ladder.json \\
        --write search/data/ladder.json

The fit is Bradley-Terry on the games (a shared win is half a win to each), in Elo
points (400/ln 10 per unit of log-odds: a 200-point gap is a 76% expected score),
anchored at ``greedy:eval=learned`` = 1000, with one virtual draw added to every pair
that met (so a bot that never won, random, still has a finite rating; it pulls every
lopsided pair a little towards 50%). The 95% intervals are profile-likelihood
intervals: the values of a rating (or of the gap between two ratings) where the
log-likelihood, maximised over all the other ratings, has fallen 1.92 below its maximum
(chi-square with one degree of freedom). A rating's interval is relative to the anchor:
it widens with the links between them.

Only games played with the catalogue and value model of this checkout (and no
``MOMBASA_SEARCH`` settings) are fitted; journals of other series are skipped and named.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from search.arena import played_with, read_journal, run_arena, series_fingerprints
from search.bot_specs import parse_spec
from search.levels import LADDER_PATH, LEVELS

ROOT = Path(__file__).resolve().parent.parent
ELO = 400.0 / math.log(10.0)  # Elo points per unit of log-odds
ANCHOR = "greedy:eval=learned"
ANCHOR_RATING = 1000.0
PRIOR_DRAWS = 1.0  # virtual draws added to every pair that met
CHI2_95 = 3.841458820694124  # chi-square, one degree of freedom, 95%
STRENGTH_JOURNALS = "benchmarks/strength/journals/*.jsonl"
COMMAND = ("python -m benchmarks.ladder run --out benchmarks/ladder --jobs 1 "
           "--write search/data/ladder.json")
LEVEL_SPECS = [f"level:{lv.number}" for lv in LEVELS]
GREEDY, BOOK, DIAM, SHARES = ANCHOR, "bookkeeper", "diamonds", "shares"
T025, T1, T4 = "mcts:time=0.25", "mcts:time=1.0", "mcts:time=4"


@dataclass(frozen=True)
class Pair:
    """One series of the schedule: ``games`` games of ``a`` against ``b``, seats
    alternating, seeded by the two names (so a schedule may be reordered)."""

    a: str
    b: str
    games: int

    @property
    def seed(self) -> int:
        return zlib.crc32(f"{self.a}|{self.b}".encode()) % 1_000_000

    @property
    def file(self) -> str:
        return f"{_slug(self.a)}__{_slug(self.b)}.jsonl"


def _slug(spec: str) -> str:
    return "".join(c if c.isalnum() or c in ".-" else "_" for c in spec)


# Adjacent levels get the most games (fewer where a pair is lopsided), a few skips tie
# each level to the next but one, and links tie the levels to the named bots. The named
# time-based searches are mostly in the strength journals (0.25 s against greedy, the
# specialists and random; 1 s against 0.25 s): here only the 4 s search and the links
# to the levels are new. Level 7 and 8 games take about 6 s and 80 s a game.
SCHEDULE: tuple[Pair, ...] = (
    Pair("level:1", "random", 40),
    Pair("level:1", "level:2", 200),
    Pair("level:2", "level:3", 200),
    Pair("level:3", "level:4", 300),
    Pair("level:4", "level:5", 600),
    Pair("level:5", "level:6", 600),
    Pair("level:6", "level:7", 200),
    Pair("level:7", "level:8", 100),
    Pair("level:1", "level:3", 40),
    Pair("level:2", "level:4", 60),
    Pair("level:3", "level:5", 100),
    Pair("level:4", "level:6", 100),
    Pair("level:5", "level:7", 30),
    Pair("level:5", GREEDY, 600),
    Pair("level:4", GREEDY, 400),
    Pair("level:5", BOOK, 60),
    Pair("level:5", DIAM, 60),
    Pair("level:5", SHARES, 60),
    Pair("level:6", T025, 30),
    Pair("level:7", T025, 30),
    Pair("level:8", T1, 8),
    Pair(T4, T1, 6),
)


LEVELS_FILE = "levels.json"  # the level definitions a ladder directory's games were played with


def level_definitions() -> dict[str, Any]:
    """Each level's definition as played (a journal names only ``level:N``)."""
    return {f"level:{lv.number}": {"casual": asdict(lv.casual) if lv.casual else None,
                                   "iterations": lv.iterations} for lv in LEVELS}


def check_levels(out: Path, write: bool = False) -> None:
    """Refuse a ladder directory whose games were played with other level definitions
    (``levels.json``); with ``write``, record this checkout's there."""
    path = out / LEVELS_FILE
    now = level_definitions()
    if path.exists():
        then = json.loads(path.read_text())
        changed = sorted(k for k in set(now) | set(then) if now.get(k) != then.get(k))
        if changed:
            raise ValueError(f"{path}: {', '.join(changed)} played with another definition; "
                             f"delete their journals and {LEVELS_FILE}, or use a new directory")
    elif write:
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(now, indent=1) + "\n")


def run_schedule(out: Path, schedule: Iterable[Pair], jobs: int = 1,
                 only: set[str] | None = None,
                 log: Callable[[str], None] = print) -> None:
    """Play every series of ``schedule`` (those with a player in ``only``, if given)
    into its journal under ``out``; games a journal holds are not played again."""
    check_levels(out, write=True)
    for pair in schedule:
        if only is not None and not {pair.a, pair.b} & only:
            continue
        t0 = time.perf_counter()
        report = run_arena([pair.a, pair.b], pair.games, seed=pair.seed, jobs=jobs,
                           journal=out / pair.file)
        a = report.bots[pair.a]
        log(f"{pair.a} against {pair.b}: {a.wins:g} of {a.games} "
            f"({time.perf_counter() - t0:.0f} s)")


@dataclass(frozen=True)
class Game:
    """One two-player game: ``score`` is ``a``'s (1 a win, 0.5 a shared win, 0)."""

    a: str
    b: str
    score: float


def read_games(paths: Iterable[Path], log: Callable[[str], None] = print) -> list[Game]:
    """The two-player games of these journals between two different bots, played with
    this checkout's catalogue and value model; other journals are skipped and named."""
    expect = series_fingerprints()
    games: list[Game] = []
    for path in sorted(set(paths)):
        header, records = read_journal(path)
        if not isinstance(header, dict):
            log(f"skipped {path}: not an arena journal")
            continue
        players = header.get("players", [])
        plays_with = played_with(header)
        if plays_with != expect:
            log(f"skipped {path}: played with {plays_with}, not {expect}")
            continue
        if len(players) != 2 or players[0] == players[1]:
            continue  # three or four players, or self-play: nothing for a two-player fit
        try:
            other_model = [p for p in players if "model" in parse_spec(p)[1]]
        except ValueError:
            log(f"skipped {path}: its players are not bot specs: {players!r}")
            continue
        if other_model:  # the header's value model is not the one this bot played
            log(f"skipped {path}: {other_model[0]} plays another value model")
            continue
        for rec in records.values():
            a_seat = rec.entrants.index(0)
            won = a_seat in rec.winners
            score = (1.0 / len(rec.winners)) if won else 0.0
            games.append(Game(players[0], players[1], score))
    return games


def journal_paths(dirs: Sequence[Path], ingest: Sequence[str]) -> list[Path]:
    """The journals of the ladder's directories (their levels checked) and of the
    ``ingest`` patterns."""
    for d in dirs:
        check_levels(Path(d))
    paths = [p for d in dirs for p in Path(d).glob("*.jsonl")]
    for pattern in ingest:
        paths += [Path(p) for p in glob.glob(str(ROOT / pattern)
                                             if not Path(pattern).is_absolute() else pattern)]
    return paths


class Ladder:
    """A Bradley-Terry fit of ``games`` in Elo points, ``anchor`` held at
    ``anchor_rating``, ``prior`` virtual draws added to every pair that met.

    >>> games = [Game("a", "b", 1.0)] * 3 + [Game("a", "b", 0.0)]
    >>> ladder = Ladder(games, anchor="b", anchor_rating=0.0, prior=0.0)
    >>> round(ladder.rating("a"))  # 3 of 4: log(3) in log-odds
    191
    """

    def __init__(self, games: Sequence[Game], anchor: str = ANCHOR,
                 anchor_rating: float = ANCHOR_RATING, prior: float = PRIOR_DRAWS) -> None:
        self.players = sorted({g.a for g in games} | {g.b for g in games})
        if anchor not in self.players:
            raise ValueError(f"anchor {anchor!r}: not among the players "
                             f"({', '.join(self.players)})")
        index = {p: i for i, p in enumerate(self.players)}
        n = len(self.players)
        self.index = index
        self.wins = np.zeros((n, n))  # wins[i, j]: i's score against j
        self.games = np.zeros((n, n))
        for g in games:
            i, j = index[g.a], index[g.b]
            self.wins[i, j] += g.score
            self.wins[j, i] += 1.0 - g.score
            self.games[i, j] += 1
            self.games[j, i] += 1
        met = self.games > 0
        self._w = self.wins + 0.5 * prior * met
        self._n = self.games + prior * met
        self.anchor = anchor
        self.anchor_rating = anchor_rating
        _check_connected(self.players, met, index[anchor])
        self._anchor_row = np.eye(n)[index[anchor]]
        self.ratings, self.loglik = self._fit([(self._anchor_row, anchor_rating)])

    def rating(self, player: str) -> float:
        return float(self.ratings[self.index[player]])

    # -- the likelihood -------------------------------------------------------------
    def _loglik(self, r: np.ndarray) -> float:
        x = (r[:, None] - r[None, :]) / ELO
        return float(np.sum(self._w * -np.logaddexp(0.0, -x)))

    def _fit(self, constraints: list[tuple[np.ndarray, float]],
             start: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """The ratings of greatest likelihood under linear ``constraints`` (row, value):
        Newton's method on the free directions (the likelihood is concave)."""
        c = np.array([row for row, _ in constraints])
        v = np.array([value for _, value in constraints])
        base = np.linalg.lstsq(c, v, rcond=None)[0]
        _, _, vt = np.linalg.svd(c)
        free = vt[len(constraints):].T  # orthonormal basis of the constraints' null space
        if start is None:  # everyone level with the anchor
            start = np.full(len(self.players), self.anchor_rating)
        z = free.T @ (start - base)
        r = base + free @ z
        ll = self._loglik(r)
        for _ in range(100 if free.shape[1] else 0):  # nothing free: r is determined
            x = (r[:, None] - r[None, :]) / ELO
            p = 1.0 / (1.0 + np.exp(-x))
            grad = (self._w - self._n * p).sum(axis=1) / ELO
            m = self._n * p * p.T / ELO**2
            neg_hess = np.diag(m.sum(axis=1)) - m
            step = np.linalg.solve(free.T @ neg_hess @ free, free.T @ grad)
            scale = 1.0
            while True:
                trial = r + free @ (scale * step)
                trial_ll = self._loglik(trial)
                if trial_ll >= ll - 1e-12 or scale < 1e-6:
                    break
                scale /= 2
            r, gain, ll = trial, trial_ll - ll, trial_ll
            if np.max(np.abs(scale * step)) < 1e-7 or abs(gain) < 1e-12:
                break
        return r, ll

    # -- intervals -----------------------------------------------------------------
    def interval(self, row: np.ndarray, level: float = CHI2_95) -> tuple[float, float]:
        """The profile-likelihood interval of the contrast ``row @ ratings``."""
        best = float(row @ self.ratings)

        def drop(value: float) -> float:
            _, ll = self._fit([(self._anchor_row, self.anchor_rating), (row, value)],
                              start=self.ratings)
            return 2.0 * (self.loglik - ll) - level

        bounds = []
        for sign in (-1.0, 1.0):
            near, far = best, best + sign * 50.0
            while drop(far) < 0:
                near, far = far, far + (far - best)
                if abs(far - best) > 1e5:
                    raise ValueError("interval: the likelihood does not fall (no games?)")
            for _ in range(40):
                mid = 0.5 * (near + far)
                near, far = (mid, far) if drop(mid) < 0 else (near, mid)
            bounds.append(0.5 * (near + far))
        return bounds[0], bounds[1]

    def rating_interval(self, player: str) -> tuple[float, float]:
        if player == self.anchor:
            return self.anchor_rating, self.anchor_rating
        return self.interval(np.eye(len(self.players))[self.index[player]])

    def gap_interval(self, low: str, high: str) -> tuple[float, float]:
        """The interval of ``rating(high) - rating(low)``."""
        eye = np.eye(len(self.players))
        return self.interval(eye[self.index[high]] - eye[self.index[low]])

    def record(self, player: str) -> tuple[int, float]:
        """``player``'s games and score (wins, a shared win a half) in the fitted games."""
        i = self.index[player]
        return int(self.games[i].sum()), float(self.wins[i].sum())


def _check_connected(players: list[str], met: np.ndarray, start: int) -> None:
    seen = {start}
    todo = [start]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(met[i]):
            if int(j) not in seen:
                seen.add(int(j))
                todo.append(int(j))
    apart = [p for k, p in enumerate(players) if k not in seen]
    if apart:
        raise ValueError(f"no games link {', '.join(apart)} to the anchor {players[start]}")


def report(ladder: Ladder) -> dict[str, Any]:
    """The ladder as JSON: ratings with intervals and records, every pair's score, the
    gaps between adjacent levels (``separated``: at least 50 points, the two ratings'
    intervals apart)."""
    ratings: dict[str, Any] = {}
    for p in sorted(ladder.players, key=ladder.rating, reverse=True):
        lo, hi = ladder.rating_interval(p)
        games, score = ladder.record(p)
        ratings[p] = {"rating": round(ladder.rating(p), 1), "ci95": [round(lo, 1), round(hi, 1)],
                      "games": games, "score": round(score, 1)}
    pairs = []
    for i, a in enumerate(ladder.players):
        for j in range(i + 1, len(ladder.players)):
            if ladder.games[i, j]:
                pairs.append({"a": a, "b": ladder.players[j], "games": int(ladder.games[i, j]),
                              "score_a": float(ladder.wins[i, j])})
    levels = [s for s in LEVEL_SPECS if s in ladder.index]
    gaps = []
    for low, high in zip(levels, levels[1:], strict=False):
        glo, ghi = ladder.gap_interval(low, high)
        gap = ladder.rating(high) - ladder.rating(low)
        apart = ratings[high]["ci95"][0] > ratings[low]["ci95"][1]
        gaps.append({"low": low, "high": high, "gap": round(gap, 1),
                     "ci95": [round(glo, 1), round(ghi, 1)], "separated": gap >= 50 and apart})
    return {"format": "mombasa-ladder/1", "scale": "Elo (400/ln 10 per unit of log-odds)",
            "anchor": {"player": ladder.anchor, "rating": ladder.anchor_rating},
            "prior_draws": PRIOR_DRAWS, "interval": "95% profile likelihood",
            "ratings": ratings, "pairs": pairs, "adjacent_levels": gaps}


def table(data: dict[str, Any]) -> str:
    """The ladder as a Markdown table, then the adjacent levels' gaps."""
    lines = ["| player | rating | 95% CI | games | score |", "| --- | ---: | ---: | ---: | ---: |"]
    for p, r in data["ratings"].items():
        lo, hi = r["ci95"]
        share = r["score"] / r["games"] if r["games"] else 0.0
        lines.append(f"| `{p}` | {r['rating']:.0f} | {lo:.0f} to {hi:.0f} | {r['games']} | "
                     f"{share:.1%} |")
    lines += ["", "| levels | gap | 95% CI of the gap | separated |", "| --- | ---: | ---: | --- |"]
    for g in data["adjacent_levels"]:
        lo, hi = g["ci95"]
        lines.append(f"| {g['low']} to {g['high']} | {g['gap']:.0f} | {lo:.0f} to {hi:.0f} | "
                     f"{'yes' if g['separated'] else '**no**'} |")
    return "\n".join(lines)


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def packaged(data: dict[str, Any], command: str = COMMAND) -> dict[str, Any]:
    """What the package ships (``search/data/ladder.json``): the ratings, the adjacent
    levels' gaps, the anchor, the command and the commit."""
    return {"format": data["format"], "scale": data["scale"], "anchor": data["anchor"],
            "interval": data["interval"], "command": command, "commit": _commit(),
            **series_fingerprints(), "ratings": data["ratings"],
            "adjacent_levels": data["adjacent_levels"]}


def _schedule_file(path: Path) -> tuple[Pair, ...]:
    """A schedule from JSON: ``[["level:1", "random", 40], ...]``."""
    rows = json.loads(path.read_text())
    return tuple(Pair(str(a), str(b), int(n)) for a, b, n in rows)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="play the schedule's missing games, then fit")
    run.add_argument("--out", type=Path, default=Path("benchmarks/ladder"))
    run.add_argument("--jobs", type=int, default=1, help="games in parallel per series")
    run.add_argument("--schedule", type=Path, help="JSON [[a, b, games], ...] instead")
    run.add_argument("--only", help="comma separated: only the series with one of these")
    fit = sub.add_parser("fit", help="fit the journals of these directories")
    fit.add_argument("dirs", type=Path, nargs="*", default=[Path("benchmarks/ladder")])
    for p in (run, fit):
        p.add_argument("--no-ingest", action="store_true",
                       help=f"leave out {STRENGTH_JOURNALS}")
        p.add_argument("--anchor", default=f"{ANCHOR}={ANCHOR_RATING:g}",
                       help="PLAYER=RATING held fixed")
        p.add_argument("--json", type=Path, help="write the ladder here as JSON")
        p.add_argument("--write", type=Path,
                       help=f"write the packaged ratings ({LADDER_PATH.name}) here")
    args = ap.parse_args(argv)
    log = lambda text: print(text, file=sys.stderr)  # noqa: E731
    dirs = args.dirs if args.command == "fit" else [args.out]
    if args.command == "run":
        schedule = _schedule_file(args.schedule) if args.schedule else SCHEDULE
        only = set(args.only.split(",")) if args.only else None
        run_schedule(args.out, schedule, args.jobs, only, log)
    ingest = [] if args.no_ingest else [STRENGTH_JOURNALS]
    games = read_games(journal_paths(dirs, ingest), log)
    anchor, _, value = args.anchor.rpartition("=")
    data = report(Ladder(games, anchor=anchor, anchor_rating=float(value)))
    print(table(data))
    if args.json:
        args.json.write_text(json.dumps(data, indent=1) + "\n")
    if args.write:
        args.write.write_text(json.dumps(packaged(data), indent=1) + "\n")


if __name__ == "__main__":
    main()
