"""Issue 53, done means: "``mombasa review`` and the API job work on a record from
``mombasa arena --records``". One record written by the arena command is reviewed by
the command (JSON) and, imported into the service (``POST /v1/games`` with the
record), by a review job; both review the same decisions of the same game."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import engine
from advisor_api.cli import app
from tests.test_api_helpers import client
from tests.test_api_review import follow

runner = CliRunner()


def _arena_record(tmp: Path) -> Path:
    out = tmp / "records"
    r = runner.invoke(app, ["arena", "--players", "random,random", "--games", "1",
                            "--seed", "5", "--records", str(out)])
    assert r.exit_code == 0, r.output
    files = sorted(out.glob("game-*.json"))
    assert len(files) == 1, files
    return files[0]


def test_an_arena_record_is_reviewed_by_the_command_and_by_the_service(tmp_path: Path
                                                                        ) -> None:
    path = _arena_record(tmp_path)
    record = json.loads(path.read_text())
    final = engine.GameRecord.from_json(record).final_state()
    assert final.is_over()

    r = runner.invoke(app, ["review", str(path), "--seats", "1", "--iterations", "6",
                            "--json"])
    assert r.exit_code == 0, r.output
    by_command = json.loads(r.stdout)
    assert by_command["seats"] == [1] and by_command["decisions"]
    assert all(d["player"] == 1 for d in by_command["decisions"])

    with client(tmp_path / "service") as api:
        made = api.post("/v1/games", json={"record": record})
        assert made.status_code == 201, made.text
        gid = made.json()["id"]
        assert api.get(f"/v1/games/{gid}").json()["over"]
        job = api.post(f"/v1/games/{gid}/review",
                       json={"seats": [1], "budget": {"iterations": 6}, "seed": 1})
        assert job.status_code == 202, job.text
        body, _ = follow(api, gid, job.json()["job"])
        assert body["status"] == "done", body
        by_service = body["review"]
    # the same decisions of the same game, whoever reviewed them
    assert ([(d["index"], d["played"]) for d in by_service["decisions"]]
            == [(d["index"], d["played"]) for d in by_command["decisions"]])
