"""Ray backend: a small tournament and a root-parallel search on a local Ray instance
(2 CPUs) give exactly the local results for the same seeds (iteration budgets)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import ray

import engine
from search.arena import run_arena
from search.bench.positions import mid_game
from search.mcts import SearchConfig
from search.parallel import ParallelMCTS

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    from search.distributed import connect

    connect("local", num_cpus=2)
    yield
    ray.shutdown()


def test_tournament_on_ray_equals_local(local_ray: None) -> None:
    from search.distributed import run_arena_ray

    specs = ["mcts:iterations=8", "greedy"]
    local = run_arena(specs, games=4, seed=3)
    remote = run_arena_ray(specs, games=4, seed=3, address=None)
    assert [(r.index, r.seats, r.totals) for r in remote.games] == \
        [(r.index, r.seats, r.totals) for r in local.games]
    assert {k: b.wins for k, b in remote.bots.items()} == \
        {k: b.wins for k, b in local.bots.items()}


def test_parallel_search_on_ray_equals_local(local_ray: None) -> None:
    from search.distributed import RayParallelMCTS

    s = mid_game(2, 5, 3)
    obs = engine.observe(s, s.decision.player)
    cfg = SearchConfig(iterations=40, seed=2)
    with ParallelMCTS(cfg, jobs=2) as search:
        local = search.search(obs)
    with RayParallelMCTS(cfg, jobs=2, address=None) as search:
        remote = search.search(obs)
    assert remote.iterations == local.iterations == 80
    assert [(ln.step, ln.visits, ln.win) for ln in remote.lines] == \
        [(ln.step, ln.visits, ln.win) for ln in local.lines]
