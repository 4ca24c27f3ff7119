"""The strength table's series (``benchmarks/strength.py``): the docs cite every one, the
committed reports hold their journals' games, and a series plays, resumes and is
checked against its report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks import strength
from benchmarks.strength import ROOT, SERIES, Series, check, find, play
from search.value_model import DEFAULT_PATH

DOCS = Path(__file__).resolve().parent.parent / "docs" / "search.md"


def test_the_docs_table_names_every_series_beside_its_report() -> None:
    rows = [ln for ln in DOCS.read_text().splitlines() if ln.startswith("| ")]
    for s in SERIES:
        row = [r for r in rows if f"`{s.key}`" in r]
        assert len(row) == 1, s.key
        link = f"benchmarks/strength/{s.stem}.json"
        shorthand = f"[`..._seed{s.seed}.json`](../{link})"  # a second series in a row
        assert link in row[0] and (f"[`{s.stem}.json`]" in row[0] or shorthand in row[0]), \
            s.key


def test_every_committed_report_holds_its_journals_games() -> None:
    """Fails when a series was played with another value model or catalogue than this
    checkout's (play it again: ``python -m benchmarks.strength run KEY``)."""
    assert [p for p in (check(s) for s in SERIES) if p is not None] == []
    strength.main(["check"])  # the command: exit status 0


def test_a_series_plays_resumes_and_is_checked(tmp_path: Path) -> None:
    tiny = Series("tiny", ("random", "policy"), 3, "tiny_seed3", games=3, folder=tmp_path)
    first = play(tiny)
    assert check(tiny) is None
    assert len(tiny.journal.read_text().splitlines()) == 1 + 3
    again = play(tiny)  # resumed: nothing played again, the same wins
    assert again.to_json()["bots"] == first.to_json()["bots"]
    report = json.loads(tiny.report.read_text())
    report["bots"][0]["wins"] += 1
    tiny.report.write_text(json.dumps(report))
    assert "its journal" in (check(tiny) or "")
    longer = replace(tiny, games=4)
    assert "holds 3 games" in (check(longer) or "")
    assert "of seed 3" in (check(replace(tiny, seed=4)) or "")
    assert "players" in (check(replace(tiny, players=("policy", "random"))) or "")


@pytest.mark.parametrize("key,value", [("value_model", "0000000000000000"),
                                       ("catalogue", "0000000000000000"),
                                       ("search", "drive=0")])
def test_a_series_played_with_another_model_or_settings_fails_the_check(
        tmp_path: Path, key: str, value: str) -> None:
    tiny = Series("tiny", ("random", "policy"), 3, "tiny_seed3", games=2, folder=tmp_path)
    play(tiny)
    lines = tiny.journal.read_text().splitlines()
    header = json.loads(lines[0]) | {key: value}
    tiny.journal.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert f"'{key}': '{value}'" in (check(tiny) or "")


def test_the_tables_folder_takes_only_the_shipped_play(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another model's (or settings') series never land beside the shipped figures."""
    monkeypatch.setattr(strength, "shipped_play", lambda: False)
    with pytest.raises(SystemExit, match="give --folder DIR"):
        play(SERIES[0])


def test_unknown_keys_are_refused_with_the_list() -> None:
    with pytest.raises(SystemExit, match="unknown 'nope'; one of all, vs_greedy"):
        find(["nope"])
    assert find(["all"]) == list(SERIES)
    assert [s.key for s in find(["3p", "vs_random"])] == ["3p", "vs_random"]


def test_list_prints_every_series_command(capsys: pytest.CaptureFixture[str]) -> None:
    strength.main(["list"])
    out = capsys.readouterr().out
    assert out.count("mombasa arena --players") == len(SERIES)
    assert "--seed 41 --jobs 2 --journal benchmarks/strength/journals/" in out


def test_check_reads_another_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``check --folder DIR``: the series played beside the shipped ones (a new model's,
    before the switch) are held to the same rules; a folder without them fails."""
    with pytest.raises(SystemExit) as stop:
        strength.main(["check", "--folder", str(tmp_path)])
    assert stop.value.code == 1
    out = capsys.readouterr().out
    assert out.count("missing") == len(SERIES) and "vs_greedy:" in out


def test_run_plays_into_another_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """``run all --folder DIR`` (the docs' line for a new model's series) writes every
    series' journal and report there, and ``check --folder DIR`` then holds."""
    tiny = Series("tiny", ("random", "policy"), 3, "tiny_seed3", games=2)
    monkeypatch.setattr(strength, "SERIES", (tiny,))
    strength.main(["run", "all", "--folder", str(tmp_path), "--jobs", "1"])
    assert "tiny: random" in capsys.readouterr().out
    assert (tmp_path / "journals" / "tiny_seed3.jsonl").exists()
    assert (tmp_path / "tiny_seed3.json").exists()
    strength.main(["check", "--folder", str(tmp_path)])
    assert "1 series: every report holds" in capsys.readouterr().out


@pytest.mark.parametrize("env,shipped", [({}, True), ({"MOMBASA_SEARCH": "drive=0"}, False),
                                         ({"MOMBASA_VALUE_MODEL": "MODEL_COPY"}, False)])
def test_shipped_play_reads_the_processs_settings(tmp_path: Path, env: dict[str, str],
                                                  shipped: bool) -> None:
    copy = tmp_path / "model.json"
    raw = json.loads(DEFAULT_PATH.read_text())
    raw["meta"] = {**raw.get("meta", {}), "note": "a copy with other bytes"}
    copy.write_text(json.dumps(raw))
    clean = {k: v for k, v in os.environ.items()
             if k not in ("MOMBASA_SEARCH", "MOMBASA_VALUE_MODEL", "MOMBASA_CATALOGUE")}
    given = {k: (str(copy) if v == "MODEL_COPY" else v) for k, v in env.items()}
    done = subprocess.run(
        [sys.executable, "-c", "from benchmarks.strength import shipped_play; "
                               "print(shipped_play())"],
        env=clean | given, capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == str(shipped)
