"""The arena: bots play complete games against each other, seats rotated.

>>> report = run_arena(["random", "policy"], games=2, seed=0)
>>> sorted(report.bots)
['policy', 'random']
>>> sum(b.wins for b in report.bots.values())
2.0
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from engine import (
    GameRecord,
    Seat,
    apply_move,
    default_catalogue,
    new_game,
    observe,
    score,
    winners,
)
from search.bot_specs import SETTINGS_ENV, make_bot, search_settings
from search.value_model import model_fingerprint


@dataclass
class GameResult:
    """One finished game of a series: which spec sat where and how it went (its
    result; the steps themselves make an ``engine.GameRecord``)."""

    index: int
    seed: int
    seats: list[str]  # bot spec per seat
    entrants: list[int]  # index into the series' spec list, per seat
    totals: list[int]
    cash: list[int]
    companies: list[int]
    diamonds: list[int]
    bookkeeping: list[int]
    winners: list[int]
    decisions: list[int]  # moves chosen per seat
    think: list[float]  # seconds spent choosing per seat
    keepers: list[int]  # bookkeeper actions per seat
    merchants: list[int]  # diamond merchant actions per seat


def play_game(specs: list[str], index: int, seed: int, variable: bool = False) -> GameResult:
    """Game ``index`` of a series: seats rotated by ``index`` so that every spec plays
    every seat equally over ``len(specs)`` consecutive games."""
    return _play(specs, index, seed, variable, recorded=False)[0]


def play_recorded(specs: list[str], index: int, seed: int, variable: bool = False
                  ) -> tuple[GameResult, dict[str, Any]]:
    """:func:`play_game` and the game's record (``engine.GameRecord`` JSON: the bots'
    seats, every step with its source, ``bot`` or ``chance``, the seed, the result)."""
    result, record = _play(specs, index, seed, variable, recorded=True)
    assert record is not None
    return result, record


def _play(specs: list[str], index: int, seed: int, variable: bool, recorded: bool
          ) -> tuple[GameResult, dict[str, Any] | None]:
    """One game of a series, and its record's JSON if ``recorded`` (else None: the steps
    are not kept)."""
    n = len(specs)
    entrants = [(seat + index) % n for seat in range(n)]
    seats = [specs[e] for e in entrants]
    game_seed = seed * 1_000_003 + index
    bots = [make_bot(spec, seed=game_seed * 7 + seat) for seat, spec in enumerate(seats)]
    s = new_game(players=n, seed=game_seed, variable=variable)
    names = labels(specs)
    record = GameRecord.new(s, seats=[Seat("bot", specs[e], names[e]) for e in entrants],
                            seed=game_seed, meta={"event": "arena", "game": str(index)}
                            ) if recorded else None
    decisions = [0] * n
    think = [0.0] * n
    keepers = [0] * n
    merchants = [0] * n
    while not s.is_over():
        d = s.decision
        if d.kind == "chance":
            step = s.sample_chance()
            if record is not None:
                record.append(-1, step, "chance")
            s = s.apply(step)
            continue
        t0 = time.perf_counter()
        move = bots[d.player].choose(observe(s, d.player))
        think[d.player] += time.perf_counter() - t0
        decisions[d.player] += 1
        for step in move.steps:
            keepers[d.player] += step.kind == "keeper"
            merchants[d.player] += step.kind == "merchant"
            if record is not None:
                record.append(move.player, step, "bot")
        s = apply_move(s, move)
    scores = score(s)
    return GameResult(
        index=index, seed=game_seed, seats=seats, entrants=entrants,
        totals=[sc.total for sc in scores], cash=[sc.cash for sc in scores],
        companies=[sum(sc.companies) for sc in scores],
        diamonds=[sc.diamonds for sc in scores],
        bookkeeping=[sc.bookkeeping for sc in scores],
        winners=winners(s), decisions=decisions, think=think,
        keepers=keepers, merchants=merchants,
    ), None if record is None else record.to_json(s.cat, final=s)


RECORD_NAME = "game-{index:04d}.json"


def record_path(folder: Path, index: int) -> Path:
    """Where ``mombasa arena --records`` keeps game ``index``'s record."""
    return folder / RECORD_NAME.format(index=index)


def write_record(folder: Path, index: int, record: dict[str, Any]) -> Path:
    """Write game ``index``'s record into ``folder`` (made if needed) whole or not at
    all: a stopped series leaves no half-written file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = record_path(folder, index)
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(record) + "\n", encoding="utf-8")
    os.replace(part, path)
    return path


def wilson_interval(wins: float, games: int) -> tuple[float, float]:
    """95% Wilson interval of a win rate of ``wins`` in ``games`` ((0, 0) for no games).

    >>> [round(x, 3) for x in wilson_interval(5, 10)]
    [0.237, 0.763]
    """
    if not games:
        return 0.0, 0.0
    z = 1.96
    n = games
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class BotStats:
    spec: str
    games: int = 0
    wins: float = 0.0  # shared wins count as fractions
    money: float = 0.0
    cash: float = 0.0
    companies: float = 0.0
    diamonds: float = 0.0
    bookkeeping: float = 0.0
    decisions: int = 0
    think: float = 0.0
    seat_games: dict[int, int] = field(default_factory=dict)
    seat_wins: dict[int, float] = field(default_factory=dict)
    keeper_uses: int = 0  # bookkeeper actions over all games
    keeper_games: int = 0  # games with at least one bookkeeper action
    merchant_uses: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def confidence(self) -> tuple[float, float]:
        """95% Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    def mean(self, total: float) -> float:
        return total / self.games if self.games else 0.0

    def to_json(self) -> dict[str, object]:
        lo, hi = self.confidence()
        return {
            "bot": self.spec, "games": self.games, "wins": self.wins,
            "win_rate": self.win_rate, "ci95": [lo, hi],
            "mean_money": self.mean(self.money),
            "breakdown": {"cash": self.mean(self.cash), "companies": self.mean(self.companies),
                          "diamonds": self.mean(self.diamonds),
                          "bookkeeping": self.mean(self.bookkeeping)},
            "seats": {str(k + 1): {"games": g, "win_rate": self.seat_wins.get(k, 0.0) / g}
                      for k, g in sorted(self.seat_games.items())},
            "seconds_per_decision": self.think / self.decisions if self.decisions else 0.0,
            "routes": {"keeper_actions_per_game": self.mean(self.keeper_uses),
                       "games_with_keeper_action": self.keeper_games,
                       "merchant_actions_per_game": self.mean(self.merchant_uses)},
        }


def series_fingerprints() -> dict[str, str]:
    """The fingerprints of the catalogue and the value model this process plays with, and
    the installation's search settings if any (``MOMBASA_SEARCH``): what, beside the
    players, seed and setup, makes two series the same series."""
    out = {"catalogue": default_catalogue().fingerprint, "value_model": model_fingerprint()}
    settings = os.environ.get(SETTINGS_ENV, "").strip()
    if settings:
        search_settings(settings)  # refused here, before a game, if it does not parse
        out["search"] = settings
    return out


def played_with(header: dict[str, Any]) -> dict[str, str]:
    """What a journal's header says its games were played with, in the shape of
    :func:`series_fingerprints` (so the two compare equal for the same setup)."""
    return {k: header[k] for k in ("catalogue", "value_model", "search")
            if header.get(k) is not None}


@dataclass
class ArenaReport:
    """A series' result. ``played_with`` holds the fingerprints of the catalogue and the
    evaluator the games were played with (as a journal's header does), so a saved
    report says which variant it measured."""

    specs: list[str]
    games: list[GameResult]
    bots: dict[str, BotStats]
    elapsed: float
    played_with: dict[str, str] = field(default_factory=series_fingerprints)

    def to_json(self) -> dict[str, object]:
        return {"bots": [b.to_json() for b in self.bots.values()],
                "games": len(self.games), "elapsed": self.elapsed, **self.played_with}


def labels(specs: list[str]) -> list[str]:
    """Unique names for the entrants: a spec that appears twice gets #1, #2."""
    out = []
    for i, spec in enumerate(specs):
        out.append(f"{spec}#{specs[:i + 1].count(spec)}" if specs.count(spec) > 1 else spec)
    return out


def summarise(specs: list[str], records: list[GameResult], elapsed: float) -> ArenaReport:
    names = labels(specs)
    bots = {name: BotStats(name) for name in names}
    for rec in sorted(records, key=lambda r: r.index):
        share = 1.0 / len(rec.winners)
        for seat, entrant in enumerate(rec.entrants):
            b = bots[names[entrant]]
            b.games += 1
            won = share if seat in rec.winners else 0.0
            b.wins += won
            b.money += rec.totals[seat]
            b.cash += rec.cash[seat]
            b.companies += rec.companies[seat]
            b.diamonds += rec.diamonds[seat]
            b.bookkeeping += rec.bookkeeping[seat]
            b.decisions += rec.decisions[seat]
            b.think += rec.think[seat]
            b.keeper_uses += rec.keepers[seat]
            b.keeper_games += rec.keepers[seat] > 0
            b.merchant_uses += rec.merchants[seat]
            b.seat_games[seat] = b.seat_games.get(seat, 0) + 1
            b.seat_wins[seat] = b.seat_wins.get(seat, 0.0) + won
    return ArenaReport(specs, sorted(records, key=lambda r: r.index), bots, elapsed)


def play_job(args: tuple[list[str], int, int, bool, bool]
             ) -> tuple[GameResult, dict[str, Any] | None]:
    """A worker's game: ``(specs, index, seed, variable, recorded)`` -> its result and
    (``recorded``) its record's JSON."""
    specs, index, seed, variable, recorded = args
    return _play(specs, index, seed, variable, recorded)


def iter_games(specs: list[str], games: int, seed: int, jobs: int = 1,
               variable: bool = False,
               indices: Iterable[int] | None = None) -> Iterator[GameResult]:
    """Play the games (``indices``, by default all ``games``; in ``jobs`` processes),
    yielding each result as soon as its game finishes (not in index order)."""
    for result, _ in iter_played(specs, games, seed, jobs, variable, indices):
        yield result


def iter_played(specs: list[str], games: int, seed: int, jobs: int = 1,
                variable: bool = False, indices: Iterable[int] | None = None,
                recorded: bool = False
                ) -> Iterator[tuple[GameResult, dict[str, Any] | None]]:
    """:func:`iter_games` with each game's record JSON beside its result (``recorded``;
    else None): the record comes back from the worker process with the result."""
    jobs_args = [(specs, i, seed, variable, recorded)
                 for i in (range(games) if indices is None else indices)]
    if jobs <= 1:
        for a in jobs_args:
            yield play_job(a)
        return
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        futures = [pool.submit(play_job, a) for a in jobs_args]
        for done in as_completed(futures):
            yield done.result()


JOURNAL_FORMAT = "mombasa-arena-journal/1"
_RECORD_FIELDS = tuple(f.name for f in fields(GameResult))


class Journal:
    """A series' finished games, one JSON line each after a header line naming the
    series (players, seed, setup, and the fingerprints of the catalogue and the value
    model in play), so a long series survives a stop: run it again with
    the same journal and only the games it lacks are played. Each line is flushed and
    synced as its game ends; a line cut short by a crash (the last one) is dropped.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "series.jsonl"
    >>> first = run_arena(["random", "policy"], games=2, seed=0, journal=path)
    >>> again = run_arena(["random", "policy"], games=3, seed=0, journal=path)
    >>> len(path.read_text().splitlines()), again.games[:2] == first.games
    (4, True)
    """

    def __init__(self, path: Path, specs: list[str], seed: int, variable: bool) -> None:
        self.path = path
        # The catalogue and the value model are part of the series: games played under
        # other values or another evaluator must not be mixed into it on a resume.
        self.header = {"format": JOURNAL_FORMAT, "players": list(specs), "seed": seed,
                       "variable": variable, **series_fingerprints()}

    def load(self) -> dict[int, GameResult]:
        """The games already played, by index (empty for a new journal). Raises
        ``ValueError`` naming the file and line if it belongs to another series or a
        line (other than a cut-off last one) is not a game record."""
        if not self.path.exists():
            return {}
        return read_journal(self.path, expect=self.header)[1]

    def start(self, kept: dict[int, GameResult]) -> None:
        """Rewrite the file as its header and the ``kept`` games (drops a cut-off line)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("w", encoding="utf-8") as fh:
            fh.write(json.dumps(self.header) + "\n")
            for index in sorted(kept):
                fh.write(json.dumps(asdict(kept[index])) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def append(self, rec: GameResult) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(asdict(rec)) + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def read_journal(path: Path, expect: dict[str, object] | None = None
                 ) -> tuple[object, dict[int, GameResult]]:
    """A journal file's header and its games by index (a cut-off last line dropped).
    With ``expect``, a file whose header differs is refused before its games are read.
    Raises ``ValueError`` naming the file and line of a line that is not a game record.
    """
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return None, {}
    try:
        header = json.loads(lines[0])
    except ValueError:
        header = None
    if expect is not None and header != expect:
        raise ValueError(
            f"journal {path}: it holds another series "
            f"({_describe(header)}), not {_describe(expect)}; "
            f"give a new file or the series' own settings")
    out: dict[int, GameResult] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or set(data) != set(_RECORD_FIELDS):
                raise ValueError("not a game record")
            rec = GameResult(**data)
        except (ValueError, TypeError) as exc:
            if number == len(lines):  # the last line, cut short by a stop: replay it
                break
            raise ValueError(f"journal {path}, line {number}: {exc}") from None
        out[rec.index] = rec
    return header, out


def _describe(header: object) -> str:
    if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
        return "not an arena journal"
    setup = "variable" if header.get("variable") else "first-game"
    return f"players {','.join(map(str, header.get('players', [])))}, " \
           f"seed {header.get('seed')}, {setup} setup, " \
           f"catalogue {header.get('catalogue')}, value model {header.get('value_model')}" \
           + (f", search settings {header['search']}" if header.get("search") else "")


def run_arena(specs: list[str], games: int, seed: int = 0, jobs: int = 1,
              variable: bool = False,
              on_game: Callable[[GameResult], None] | None = None,
              journal: Path | None = None, records: Path | None = None) -> ArenaReport:
    """Play ``games`` games between the bot specs (one seat each, 2-4 specs).

    With a ``journal`` (:class:`Journal`) the games it already holds are not played
    again (``on_game`` is called for them first) and each new game is added to it.
    With ``records`` (a folder) each game played is written there as a game record
    (:func:`record_path`), before its journal line: a journaled game has its record."""
    if not 2 <= len(specs) <= 4:
        raise ValueError(f"players: 2 to 4 bot specs, got {len(specs)}")
    if games < 1:
        raise ValueError(f"games: must be >= 1, got {games}")
    for spec in specs:
        make_bot(spec)  # fail early on a bad spec
    book = Journal(journal, specs, seed, variable) if journal is not None else None
    kept: dict[int, GameResult] = {}
    if book is not None:
        kept = book.load()
        book.start(kept)
    t0 = time.perf_counter()
    results = [kept[i] for i in sorted(kept) if i < games]
    if on_game is not None:
        for rec in results:
            on_game(rec)
    missing = [i for i in range(games) if i not in kept]
    for rec, record in iter_played(specs, games, seed, jobs, variable, indices=missing,
                                   recorded=records is not None):
        if records is not None and record is not None:
            write_record(records, rec.index, record)
        if book is not None:
            book.append(rec)
        results.append(rec)
        if on_game is not None:
            on_game(rec)
    return summarise(specs, results, time.perf_counter() - t0)
