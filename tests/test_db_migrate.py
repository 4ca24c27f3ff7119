"""``mombasa db migrate`` (marker ``postgres``): a SQLite database of a service that
played games (one with a stored catalogue, one with an AI seat) copied into a fresh
PostgreSQL database, verified row by row; the service on PostgreSQL shows the same games
and catalogues, and plays on; a second run is harmless, a non-empty target refused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

import engine
from tests import pg
from tests.service_process import command, serving
from tests.test_api_helpers import auth, client, remember

pytestmark = pytest.mark.postgres

SHIPPED: dict[str, Any] = json.loads(Path(engine.default_catalogue().path).read_text())


def _migrate(source: Path | str, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(), "db", "migrate", "--from", str(source), "--to",
                           target], capture_output=True, text=True, timeout=120)


def _played(tmp: Path) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Games played on a SQLite service in ``tmp``: each game's seat-1 view, and the
    stored catalogues."""
    views = {}
    with client(tmp) as api:
        r = api.post("/v1/catalogues", json={"name": "Club copy", "catalogue": SHIPPED})
        assert r.status_code == 201, r.text
        for body in ({"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 3,
                      "reproducible": True, "catalogue": "club copy"},
                     {"seats": [{"kind": "human"}, {"kind": "ai", "bot": "random"}],
                      "seed": 4, "reproducible": True}):
            r = api.post("/v1/games", json=body)
            assert r.status_code == 201, r.text
            gid = remember(r.json())["id"]
            for _ in range(6):
                v = api.get(f"/v1/games/{gid}", params={"wait": 10},
                            headers=auth(gid, 1)).json()
                if not v["your_turn"]:
                    break
                r = api.post(f"/v1/games/{gid}/steps", headers=auth(gid, 1),
                             json={"seat": 1, "step": v["legal"][0]["json"]})
                assert r.status_code == 200, r.text
            views[gid] = api.get(f"/v1/games/{gid}", params={"wait": 10},
                                 headers=auth(gid, 1)).json()
        catalogues = api.get("/v1/catalogues").json()["catalogues"]
    return views, catalogues


def test_a_sqlite_database_moves_to_postgresql(tmp_path: Path) -> None:
    views, catalogues = _played(tmp_path)
    source = tmp_path / "games.db"
    with pg.fresh_database() as url:
        done = _migrate(source, url)
        assert done.returncode == 0, done.stderr
        assert "games 2" in done.stdout and "verified" in done.stdout, done.stdout
        again = _migrate(source, url)  # harmless
        assert again.returncode == 0 and "already copied" in again.stdout, again
        with serving(url, tmp_path / "serve.log", {"MOMBASA_WORKERS": "1"}) as (_, base):
            for gid, before in views.items():
                r = httpx.get(f"{base}/v1/games/{gid}", headers=auth(gid, 1), timeout=30)
                assert r.status_code == 200, r.text
                assert r.json()["history"] == before["history"]
                assert r.json()["legal"] == before["legal"]
            listed = httpx.get(f"{base}/v1/catalogues").json()["catalogues"]
            assert [(c["name"], c["sha256"], c["games"]) for c in listed] == [
                (c["name"], c["sha256"], c["games"]) for c in catalogues]
            gid, v = next((g, v) for g, v in views.items() if v["legal"])
            r = httpx.post(f"{base}/v1/games/{gid}/steps", headers=auth(gid, 1), timeout=30,
                           json={"seat": 1, "step": v["legal"][0]["json"]})
            assert r.status_code == 200, r.text  # plays on from PostgreSQL
        refused = _migrate(source, url)  # the target has moved on: not the source's rows
        assert refused.returncode == 1 and "not empty" in refused.stderr, refused
    missing = _migrate(tmp_path / "nope.db", "postgresql://nobody@127.0.0.1:1/x")
    assert missing.returncode == 2 and "no such file" in missing.stderr
