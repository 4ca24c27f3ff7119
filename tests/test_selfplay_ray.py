"""Self-play data on Ray: the recorded games equal the local pool's (jobs=1 and 2) for
the same seeds, column by column; a Ray cluster that cannot be reached is reported
with the option and the reason."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import ray

from search.dataset import Dataset
from search.selfplay import generate, selfplay_tasks

pytestmark = pytest.mark.ray

# Two games each of 2 and 3 policy players (fast), a fifth of the moves exploring.
SPEC, GAMES, PLAYERS, SEED, EXPLORE = "policy", 2, (2, 3), 4, 0.2


def assert_same(a: Dataset, b: Dataset) -> None:
    for field in dataclasses.fields(Dataset):
        x, y = getattr(a, field.name), getattr(b, field.name)
        if x is None or y is None:  # a column not recorded
            assert x is y, field.name
            continue
        nan = x.dtype.kind == "f"  # the search's expectation is NaN where none searched
        assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=nan), field.name


def test_unreachable_cluster_names_the_option_and_the_reason(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from advisor_api.cli import app

    if ray.is_initialized():  # connect() would keep the running instance
        pytest.skip("a Ray instance already runs in this process")
    out = tmp_path / "model.json"
    result = CliRunner().invoke(app, ["train-value", "--out", str(out), "--bot", "policy",
                                      "--games", "1", "--ray", "127.0.0.1:1"])
    assert result.exit_code == 2
    assert "--ray" in result.output and "cannot reach the Ray cluster" in result.output
    assert not out.exists()


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    from search.distributed import connect

    connect("local", num_cpus=2)
    yield
    ray.shutdown()


def test_selfplay_on_ray_equals_the_local_pool(local_ray: None) -> None:
    from search.distributed import generate_ray

    one = generate(SPEC, GAMES, PLAYERS, SEED, EXPLORE, jobs=1)
    two = generate(SPEC, GAMES, PLAYERS, SEED, EXPLORE, jobs=2)
    remote = generate_ray(SPEC, GAMES, PLAYERS, SEED, EXPLORE, address=None)
    assert len(np.unique(one.games)) == len(selfplay_tasks(SPEC, GAMES, PLAYERS)) == 4
    assert_same(two, one)
    assert_same(remote, one)


def test_cli_train_value_on_ray_saves_the_same_games(local_ray: None,
                                                     tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from advisor_api.cli import app

    data = tmp_path / "games.npz"
    result = CliRunner().invoke(app, [
        "train-value", "--out", str(tmp_path / "model.json"), "--bot", "policy",
        "--games", "5", "--players", "2", "--seed", "1", "--min-rows", "20",
        "--save-data", str(data), "--ray", "local"])
    assert result.exit_code == 0, result.output
    assert_same(Dataset.load(str(data)), generate("policy", 5, players=(2,), seed=1))


def test_ray_workers_load_the_model_file_named_in_the_environment(
        local_ray: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """MOMBASA_VALUE_MODEL set after Ray started (its workers do not see it) still
    reaches the tasks: the learned bot plays the same games as locally."""
    from search.distributed import generate_ray
    from search.value_model import default_model, fit

    model = tmp_path / "model.json"
    fit(generate("policy", 4, players=(2,), seed=9), min_rows=20).save(model)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MOMBASA_VALUE_MODEL", model.name)  # relative to this directory
    default_model.cache_clear()
    try:
        local = generate("greedy:eval=learned", 1, players=(2,), seed=2)
        remote = generate_ray("greedy:eval=learned", 1, players=(2,), seed=2, address=None)
    finally:
        default_model.cache_clear()
    assert_same(remote, local)
