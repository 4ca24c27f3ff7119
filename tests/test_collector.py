"""The search pauses Python's cyclic garbage collector (``search/collector.py``).

That is only safe if an iteration leaves no reference cycles behind: with the
collector paused they would pile up for the whole search. The bookkeeping solver's
recursive closures did (each held itself, its memo and its tuples); they now free
themselves.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine
from benchmarks.positions import mid_game
from search.collector import collector_paused
from search.mcts import MCTS, SearchConfig


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.fixture
def collector_off() -> Iterator[None]:
    was = gc.isenabled()
    gc.disable()
    yield
    if was:
        gc.enable()


# Run in a fresh interpreter: in the suite, threads left by earlier tests (service
# event loops, executors) may free their own cycles while the search runs, and the
# count would then blame the search for them (CI saw 72 such objects once).
_COUNT_CYCLES = """
import gc, json, sys
sys.path.insert(0, sys.argv[1])
import engine
from benchmarks.positions import mid_game
from search.mcts import MCTS, SearchConfig

players, seed, round_ = (int(a) for a in sys.argv[2:5])
gc.disable()
state = mid_game(players, seed, round_)
obs = engine.observe(state, state.decision.player)
found = []
for again in range(2):  # cold caches, then warm ones as in a long-running service
    gc.collect()
    MCTS(SearchConfig(iterations=300, seed=seed + again)).search(obs)
    found.append(gc.collect())
print(json.dumps(found))
"""


@pytest.mark.parametrize("players,seed,round_", [(2, 3, 2), (2, 5, 4), (3, 7, 3), (2, 11, 6)])
def test_a_search_leaves_no_cycles_for_the_collector(players: int, seed: int, round_: int) -> None:
    root = Path(__file__).resolve().parent.parent
    run = subprocess.run([sys.executable, "-c", _COUNT_CYCLES, str(root), str(players), str(seed),
                          str(round_)], capture_output=True, text=True, timeout=120, cwd=root)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [0, 0]


def test_the_collector_is_paused_for_the_search_and_back_on_after(collector_on: None) -> None:
    seen = []
    state = mid_game(2, 3, 2)
    obs = engine.observe(state, state.decision.player)

    def callback(_: object) -> bool:
        seen.append(gc.isenabled())
        return len(seen) < 2

    MCTS(SearchConfig(iterations=1000, report_every=8)).search(obs, callback)
    assert seen == [False, False]
    assert gc.isenabled()


def test_overlapping_pauses_end_with_the_last(collector_on: None) -> None:
    """Two searches in two threads: the first to end must not switch it back on."""
    first_in, second_out = threading.Event(), threading.Event()
    during: list[bool] = []

    def first() -> None:
        with collector_paused():
            first_in.set()
            second_out.wait(5)
            during.append(gc.isenabled())

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with collector_paused():
        during.append(gc.isenabled())
    second_out.set()
    thread.join(5)
    assert during == [False, False]
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off(collector_off: None) -> None:
    with collector_paused():
        pass
    assert not gc.isenabled()
