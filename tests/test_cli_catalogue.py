"""``mombasa catalogue init|check|diff|show``: transcribing a catalogue of one's own copy,
and the loader's comment keys (``//``) that the template's notes use."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import engine
from advisor_api.cli import app
from advisor_api.cli_catalogue import SHIPPED
from tests.test_catalogue_validation import BREAKS

Raw = dict[str, Any]
runner = CliRunner()


def _run(*args: str) -> Any:
    return runner.invoke(app, ["catalogue", *args])


def _assert_same_values(a: engine.Catalogue, b: engine.Catalogue) -> None:
    for f in dataclasses.fields(a):
        if f.name != "path":
            assert getattr(a, f.name) == getattr(b, f.name), f.name


@pytest.fixture(scope="module")
def template_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "my-copy.json"
    result = _run("init", str(path))
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture
def template(template_file: Path) -> Raw:
    return json.loads(template_file.read_text())


def _write(path: Path, raw: Raw) -> Path:
    path.write_text(json.dumps(raw, indent=1))
    return path


# --------------------------------------------------------------------------- comments


def test_the_loader_ignores_comment_keys_at_any_depth(tmp_path: Path) -> None:
    raw = json.loads(SHIPPED.read_text())
    raw["//"] = "top"
    raw["regions"][0]["// where"] = ["top left of the map"]
    raw["regions"][0]["reward"]["//"] = {"anything": [1, 2]}
    raw["cards"]["action"][3]["// note"] = None
    cat = engine.load_catalogue(_write(tmp_path / "commented.json", raw))
    _assert_same_values(cat, engine.load_catalogue(SHIPPED))


def test_only_keys_starting_with_two_slashes_are_comments(tmp_path: Path) -> None:
    raw = json.loads(SHIPPED.read_text())
    raw["regions"][0]["reward"]["/ note"] = 1
    with pytest.raises(engine.CatalogueError, match=r"^regions\[0\]\.reward\./ note: unknown"):
        engine.load_catalogue(_write(tmp_path / "slash.json", raw))


# --------------------------------------------------------------------------- init


def test_init_writes_a_commented_template_equal_to_the_default(
        template_file: Path, template: Raw) -> None:
    _assert_same_values(engine.load_catalogue(template_file), engine.load_catalogue(SHIPPED))
    shipped = json.loads(SHIPPED.read_text())
    for key in shipped:
        if key not in ("schema", "note"):
            note = template[f"// {key}"]
            assert [line.split(":")[0] for line in note] == ["What", "Where", "Reconstructed"]
    assert "// action" in template["cards"]
    assert "RECONSTRUCTION" in " ".join(template["//"])


def test_init_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text("my work")
    result = _run("init", str(path))
    assert result.exit_code == 2
    assert "mine.json exists" in result.output and "--force" in result.output
    assert path.read_text() == "my work"
    forced = _run("init", str(path), "--force")
    assert forced.exit_code == 0, forced.output
    _assert_same_values(engine.load_catalogue(path), engine.load_catalogue(SHIPPED))


# --------------------------------------------------------------------------- check


def test_check_passes_the_template(template_file: Path) -> None:
    result = _run("check", str(template_file))
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "a valid catalogue" in text and "24 regions" in text
    assert "44 action cards (A 9, B 16, C 11, D 4, E 4)" in text
    assert "72 books (A 24, B 24, C 24)" in text and "8 company tracks" in text
    assert "It says it is a reconstruction" in text
    data = json.loads(_run("check", "--json", str(template_file)).output)
    assert data["ok"] is True and data["error"] is None
    assert data["summary"]["books"] == {"A": 24, "B": 24, "C": 24}
    assert data["summary"]["reconstruction"] is True


@pytest.mark.parametrize(("breaker", "match"), BREAKS,
                         ids=[breaker.__name__.lstrip("_") for breaker, _ in BREAKS])
def test_check_reports_every_validator_error_by_path(
        tmp_path: Path, template: Raw, breaker: Callable[[Raw], None], match: str) -> None:
    """Each broken catalogue of the validator's tests, broken in the commented template:
    the CLI prints the loader's message, JSON path first, and exits 1."""
    raw = copy.deepcopy(template)
    breaker(raw)
    path = _write(tmp_path / "broken.json", raw)
    result = _run("check", str(path))
    assert result.exit_code == 1
    assert "broken.json is not a valid catalogue" in result.output
    assert re.search(match, result.output, re.MULTILINE), result.output
    assert "Traceback" not in result.output
    data = json.loads(_run("check", "--json", str(path)).stdout)
    assert data["ok"] is False and data["summary"] is None
    error = data["error"]
    assert re.match(match, f"{error['path']}: {error['message']}"), error


def test_check_not_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "typo.json"
    path.write_text('{\n  "schema": "mombasa-catalogue/1"\n  "reconstruction": true\n}\n')
    result = _run("check", str(path))
    assert result.exit_code == 1
    assert "typo.json: not JSON: Expecting ',' delimiter at line 3, column 3" in result.output
    data = json.loads(_run("check", "--json", str(path)).stdout)
    assert data["error"]["kind"] == "not-json"
    assert (data["error"]["line"], data["error"]["column"]) == (3, 3)


def test_check_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nothere.json"
    result = _run("check", str(path))
    assert result.exit_code == 1
    assert "nothere.json: no such file" in result.output
    assert "mombasa catalogue init" in result.output
    data = json.loads(_run("check", "--json", str(path)).stdout)
    assert data["ok"] is False and data["error"]["kind"] == "missing"


# --------------------------------------------------------------------------- diff


def test_diff_of_a_file_with_itself_and_the_default_is_empty(template_file: Path) -> None:
    for a, b in ((str(template_file), str(template_file)), ("default", str(template_file))):
        result = _run("diff", a, b)
        assert result.exit_code == 0, result.output
        assert "equal in every value (0 differences)" in result.output


def test_diff_lists_exactly_the_changed_values(tmp_path: Path, template: Raw) -> None:
    raw = copy.deepcopy(template)
    raw["books"][12]["reward"]["pounds"] += 2
    raw["diamond_track"]["values"][5] += 1
    # A key left out is the loader's default, not a difference.
    del raw["regions"][0]["reward"]["diamonds"]
    changed = _write(tmp_path / "changed.json", raw)
    result = _run("diff", "default", str(changed))
    assert result.exit_code == 1
    listed = [line.strip() for line in result.output.splitlines() if line.startswith("  ")]
    book = template["books"][12]["reward"]["pounds"]
    diamond = template["diamond_track"]["values"][5]
    assert listed == [f"books[12].reward.pounds: {book} -> {book + 2}",
                      f"diamond_track.values[5]: {diamond} -> {diamond + 1}"]
    assert "2 differences" in result.output
    assert "\nbooks (1)\n" in result.output and "\ndiamond_track (1)\n" in result.output
    data = json.loads(_run("diff", "--json", "default", str(changed)).stdout)
    assert data["equal"] is False and data["count"] == 2
    assert [(d["path"], d["a"], d["b"]) for d in data["differences"]] == [
        ("books[12].reward.pounds", book, book + 2),
        ("diamond_track.values[5]", diamond, diamond + 1)]


def test_diff_needs_two_loadable_files(tmp_path: Path, template_file: Path) -> None:
    result = _run("diff", str(template_file), str(tmp_path / "gone.json"))
    assert result.exit_code == 2
    assert "gone.json: no such file" in result.output


# --------------------------------------------------------------------------- show

TITLES = {
    "regions": ("Regions", "Companies and bases"),
    "tracks": ("Company tracks",),
    "cards": ("Action cards", "Starting cards", "Card display"),
    "books": ("Books", "Book display"),
    "bonus": ("Bonus spaces", "Bonus tiles", "Starting tiles"),
    "player-tracks": ("Diamond track", "Bookkeeping track", "Merchants and players"),
}


def test_show_prints_every_section(template_file: Path) -> None:
    result = _run("show", str(template_file))
    assert result.exit_code == 0, result.output
    for titles in TITLES.values():
        for title in titles:
            assert title in result.output, title
    assert "Jebel Marra" in result.output and "B2" in result.output


@pytest.mark.parametrize("section", sorted(TITLES))
def test_show_filters_one_section(section: str) -> None:
    result = _run("show", "default", section)
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines()]
    for name, titles in TITLES.items():
        for title in titles:
            shown = any(line.startswith(title) for line in lines)
            assert shown == (name == section), (section, title)


def test_show_errors(tmp_path: Path) -> None:
    unknown = _run("show", "default", "camels")
    assert unknown.exit_code == 2 and "unknown section 'camels'" in unknown.output
    raw = json.loads(SHIPPED.read_text())
    raw["regions"][3]["reward"]["pounds"] = -1
    broken = _run("show", str(_write(tmp_path / "bad.json", raw)))
    assert broken.exit_code == 1
    assert "regions[3].reward.pounds: must be >= 0, got -1" in broken.output
