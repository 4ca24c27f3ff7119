"""The whole deployment of issue 55 in one test (markers ``postgres`` and ``ray``): a
throwaway PostgreSQL database, a local Ray cluster of two nodes of one CPU each, and two
replicas ``mombasa serve --db postgresql://... --ray ADDRESS`` on two ports.

The replicas split the cluster's CPUs (one search actor each, one on each node, none in
the replicas' own processes); analyses posted to either run as calls of its actor; a
game created on one replica is played with steps posted to both in turn, its events
read on the other; the replica driving the AI seat is killed (SIGKILL) in the middle of
an AI move and the other finishes the move on its own actor; every acknowledged step is
stored exactly once, in order. About a minute (most of it Ray starting)."""

from __future__ import annotations

import os
import random
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.service_process import command, serving
from tests.test_ray_pool import _analyse, _health, _ready, _tasks, cluster
from tests.test_replicas import (
    ENV,
    SLOW,
    Stream,
    _lease_holder,
    _new_game,
    _same_history,
    _step,
    _stored,
    _until,
    _view,
    db_url,
)

pytestmark = [pytest.mark.postgres, pytest.mark.ray]

__all__ = ["cluster", "db_url"]  # fixtures of the two modules, used here


def _replica(db: str, address: str, log: Path) -> Any:
    """``mombasa serve --db DB ... --ray ADDRESS`` (a shell adds ``--ray`` after the
    arguments :func:`serving` gives)."""
    wrapped = ["sh", "-c", f'exec "$0" "$@" --ray {address}', *command()]
    return serving(db, log, {**ENV, "MOMBASA_RAY": ""}, mombasa=wrapped)


def test_replicas_on_postgres_and_a_ray_cluster(cluster: Any, db_url: str,
                                                tmp_path: Path) -> None:
    rng = random.Random(3)
    t0 = time.monotonic()
    with ExitStack() as stack:
        pa, a = stack.enter_context(_replica(db_url, cluster.address, tmp_path / "a.log"))
        pb, b = stack.enter_context(_replica(db_url, cluster.address, tmp_path / "b.log"))
        procs = {pa.pid: (pa, a, b), pb.pid: (pb, b, a)}

        # the two replicas share the cluster: one actor each, one on each node
        _until(lambda: all(_health(x)["workers"] == _ready(x) == 1
                           and _health(x)["backend"]["services"] == 2 for x in (a, b)),
               40, "the two replicas split the cluster's CPUs")
        health = {x: _health(x) for x in (a, b)}
        assert all(h["backend"]["kind"] == "ray" and h["backend"]["nodes"] == 2
                   for h in health.values())
        nodes = [p["node"] for h in health.values() for p in h["processes"]]
        assert sorted(nodes) == sorted(n.node_id for n in cluster.list_all_nodes())
        actors = {p["pid"] for h in health.values() for p in h["processes"]}
        assert len(actors) == 2 and not actors & {os.getpid(), pa.pid, pb.pid}

        # analyses on either replica run as calls of its actor on the cluster
        for x in (a, b):
            counts = _tasks(x)
            r = _analyse(x, 0.3)
            assert r.status_code == 200, r.text
            assert r.json()["lines"]
            assert _tasks(x) == {pid: n + 1 for pid, n in counts.items()}

        # a game created on A, played on both, its events read on B (and on A)
        gid, token = _new_game(a, SLOW, 5)
        streams = {x: Stream(stack, x, gid, token) for x in (b, a)}
        acked = [_step(b, gid, token, rng)]
        while not _view(a, gid, token)["ai"]["thinking"]:
            _until(lambda: _view(b, gid, token)["your_turn"], 60, "seat 1's turn")
            here, there = (a, b) if len(acked) % 2 else (b, a)
            acked.append(_step(here, gid, token, rng))
            assert _view(there, gid, token)["steps"] >= acked[-1]["steps"]  # never stale
        streams[b].wait_for(lambda n, d: n == "change" and d["steps"] >= acked[-1]["steps"],
                            10, "the last acknowledged step on B's stream")

        # kill the replica driving the AI seat in the middle of its move
        holder = _until(lambda: _lease_holder(db_url, gid), 10, "an AI lease")
        pid = int(holder.split(":")[1])
        dead, _, alive = procs[pid]
        before = _view(alive, gid, token)
        assert before["ai"]["thinking"], before["ai"]
        searched = _health(alive)["stats"]["tasks"]
        dead.kill()
        dead.wait()
        after = _until(lambda: (v := _view(alive, gid, token)) and v["your_turn"] and v,
                       30, "the AI's move finished by the other replica")
        assert after["steps"] > before["steps"] and not after["ai"]["error"]
        assert after["history"][before["steps"]]["source"] == "ai"
        assert _health(alive)["stats"]["tasks"] > searched  # the move was a Ray call
        holder2 = _lease_holder(db_url, gid)
        assert holder2 is None or int(holder2.split(":")[1]) != pid
        streams[alive].wait_for(lambda n, d: n == "change" and d["steps"] == after["steps"],
                                10, "the finished move on the surviving replica's stream")

        # every step stored once, in order, and every acknowledged one among them
        stored = [(r[0], r[3]) for r in _stored(db_url, gid)]
        assert stored == [(i, h["source"]) for i, h in enumerate(after["history"])]
        for answer in acked:
            _same_history(answer, after)
    print(f"the whole scenario took {time.monotonic() - t0:.1f} s")
