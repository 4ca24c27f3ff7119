"""Search-bootstrapped value targets (issue 56): self-play records what the mover's
search expected each player to end with, and the fit can be moved toward it; and the
evaluator measure of ``benchmarks/deep_agreement.py`` (agreement with a much deeper
search, and the regret of a choice in that search's values)."""

from __future__ import annotations

import doctest
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import benchmarks.deep_agreement as agreement
import search.dataset
from advisor_api.bot_caps import check_bot
from advisor_api.errors import InvalidInput
from advisor_api.settings import Settings
from search import value_model
from search.bot_specs import make_bot
from search.bots import MCTSBot
from search.dataset import Dataset
from search.features import FEATURES
from search.mcts import MCTS, SearchConfig
from search.selfplay import play_recorded
from search.training import train


def test_the_dataset_docstring_examples_hold() -> None:
    result = doctest.testmod(search.dataset)
    assert result.attempted > 0 and result.failed == 0


def test_selfplay_records_the_searchs_expectation_beside_the_final_money() -> None:
    data = play_recorded(["mcts:iterations=20", "policy"], seed=11, explore=0.0)
    assert data.searched is not None and len(data.searched) == len(data.targets)
    known = np.isfinite(data.searched)
    # the search decides about half of the moves (seat 1's); the policy never searches
    assert 0.2 < known.mean() < 0.8
    # an expectation, not a copy of the final money
    assert np.abs(data.searched[known] - data.targets[known]).mean() > 1.0
    # rows come in (player 0, player 1) pairs of one position: both or neither known
    pairs = known.reshape(-1, 2)
    assert (pairs[:, 0] == pairs[:, 1]).all()


def test_a_dataset_keeps_the_search_column_through_subset_concat_and_files(
        tmp_path: Path) -> None:
    d = Dataset(np.zeros((3, 3), dtype=np.int16), np.ones((3, 2)), np.array([1., 2., 3.]),
                np.array([0, 0, 1]), np.zeros(3), np.array([5., np.nan, 7.]))
    plain = Dataset(np.zeros((1, 3), dtype=np.int16), np.ones((1, 2)), np.array([4.]),
                    np.array([0]), np.zeros(1))
    both = Dataset.concat([d, plain])
    assert both.searched is not None
    assert np.isnan(both.searched[[1, 3]]).all() and both.searched[2] == 7.0
    assert d.subset(d.games == 1).searched.tolist() == [7.0]  # type: ignore[union-attr]
    d.save(str(tmp_path / "d.npz"))
    back = Dataset.load(str(tmp_path / "d.npz"))
    assert np.array_equal(back.searched, d.searched, equal_nan=True)  # type: ignore[arg-type]
    plain.save(str(tmp_path / "p.npz"))
    assert Dataset.load(str(tmp_path / "p.npz")).searched is None


def test_blended_targets_refuse_a_share_outside_zero_to_one() -> None:
    d = Dataset(np.zeros((1, 3)), np.ones((1, 1)), np.array([1.]), np.array([0]),
                np.zeros(1), np.array([2.]))
    with pytest.raises(ValueError, match="toward_search"):
        d.blended_targets(1.5)


def _planted(n: int = 3000) -> Dataset:
    """Rows whose final money is cash plus noise, and whose search expectation is
    twice the cash: a fit toward the search must find weight 2, one on the final
    money weight 1."""
    rng = np.random.default_rng(4)
    x = np.zeros((n, len(FEATURES)))
    x[:, 0] = 1.0
    cash = rng.uniform(0, 20, n)
    x[:, FEATURES.index("cash")] = cash
    z = cash + rng.normal(0, 5, n)
    return Dataset(np.tile(np.array([2, 3, 1], dtype=np.int16), (n, 1)), x, z,
                   np.arange(n) // 10, np.zeros(n), 2 * cash)


@pytest.mark.parametrize(("share", "weight"), [(0.0, 1.0), (1.0, 2.0), (0.5, 1.5)])
def test_the_fit_moves_toward_the_search_by_the_share_given(share: float,
                                                            weight: float) -> None:
    model, report = train(_planted(), toward_search=share, min_rows=50)
    assert model.weights[(2, 3, 1)][FEATURES.index("cash")] == pytest.approx(weight, abs=0.05)
    assert report.rows > 0
    assert model.meta.get("toward_search", 0.0) == share


def _reference(picks: dict[str, dict[str, float]], pick: str) -> dict[str, object]:
    return {"positions": [{"pick": pick, "seed_picks": [pick, pick],
                           "candidates": picks}]}


def test_agreement_and_regret_are_read_in_the_deep_searchs_values() -> None:
    ref = _reference({"a": {"win": 0.6, "lead": 10.0, "visits": 900},
                      "b": {"win": 0.5, "lead": 12.0, "visits": 90}}, "a")
    same = agreement.judge_picks(ref, ["a"])
    assert same["agreement"] == 1.0 and same["regret_win"] == 0.0
    other = agreement.judge_picks(ref, ["b"])
    assert other["agreement"] == 0.0
    assert other["regret_win"] == pytest.approx(0.1)
    assert other["regret_lead"] == 0.0  # a better lead is no regret: clipped at 0
    assert agreement.judge_picks(ref, ["c"])["uncovered"] == 1


def test_a_tiny_reference_and_measure_run_end_to_end(tmp_path: Path) -> None:
    ref = agreement.build_reference(positions=2, base=6, factor=2, seeds=2, cover=4,
                                    jobs=1)
    assert ref["format"] == agreement.FORMAT and len(ref["positions"]) == 2
    for row in ref["positions"]:
        assert row["pick"] in row["candidates"] and len(row["seed_picks"]) == 2
        assert all(c["visits"] >= 4 for c in row["candidates"].values())
    path = tmp_path / "ref.json"
    path.write_text(json.dumps(ref))
    out = tmp_path / "m.json"
    agreement.main(["measure", str(path), "--spec", "mcts:iterations=6", "--jobs", "1",
                    "--json", str(out)])
    report = json.loads(out.read_text())[0]
    assert report["positions"] == 2 and report["uncovered"] == 0
    assert 0.0 <= report["agreement"] <= 1.0
    assert "self_agreement" not in report and 0.0 < report["top_share"] <= 1.0


def test_an_even_reference_searches_every_candidate_alone_to_the_same_depth() -> None:
    ref = agreement.build_reference(positions=1, base=5, factor=2, seeds=2, cover=1,
                                    jobs=1, even=7, kind="plan")
    assert ref["even"] == 7 and ref["kind"] == "plan"
    (row,) = ref["positions"]
    assert row["kind"] == "plan"
    obs = agreement.observation_from_json(row["observation"])
    steps = MCTS(SearchConfig(iterations=1)).candidates(obs)
    cands = row["candidates"]
    # every candidate, each with the same iterations on each seed, and nothing else
    assert set(cands) == {st.text() for st in steps}
    assert {c["visits"] for c in cands.values()} == {14}
    # the pick is the best win chance (not the most visits: all are equal)
    assert cands[row["pick"]]["win"] == max(c["win"] for c in cands.values())
    assert len(row["seed_picks"]) == 2 and set(row["seed_picks"]) <= set(cands)


def test_measure_with_seeds_reports_whether_the_search_settles() -> None:
    """``--seeds 2``: every position searched twice; ``self_agreement`` is how often the
    two picks are the same, the first seed's picks are judged; ``--kind`` keeps one kind
    of decision."""
    ref = agreement.build_reference(positions=3, base=5, factor=2, seeds=1, cover=1, jobs=1)
    kinds = [row["kind"] for row in ref["positions"]]
    one = agreement.measure(ref, "mcts:iterations=8", 1)
    two = agreement.measure(ref, "mcts:iterations=8", 1, seeds=2)
    assert two["picks"] == one["picks"] and 0.0 <= two["self_agreement"] <= 1.0
    assert two["seeds"] == 2 and "self_agreement" not in one
    same = [a == b for a, b in two["seed_picks"]]
    assert two["self_agreement"] == sum(same) / len(same)
    assert [p[0] for p in two["seed_picks"]] == two["picks"]
    kind = kinds[0]
    only = agreement.measure(ref, "mcts:iterations=8", 1, kind=kind)
    assert only["positions"] == kinds.count(kind) and only["kind"] == kind
    with pytest.raises(SystemExit, match="no reference position of kind 'nothing'"):
        agreement.measure(ref, "mcts:iterations=8", 1, kind="nothing")



def test_a_file_of_another_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"format": "other"}')
    with pytest.raises(SystemExit, match="format"):
        agreement.main(["measure", str(path), "--spec", "mcts:iterations=6"])


def _model_copy(tmp_path: Path, scale: float) -> Path:
    raw = json.loads(Path(value_model.DEFAULT_PATH).read_text())
    raw["buckets"] = {k: [x * scale for x in w] for k, w in raw["buckets"].items()}
    path = tmp_path / f"model_{scale}.json"
    path.write_text(json.dumps(raw))
    return path


def test_a_search_can_name_its_own_model_file(tmp_path: Path) -> None:
    """``model=FILE`` (SearchConfig.value_model): two models in one arena."""
    obs = agreement.sample_positions(1)[0]

    def money(spec: str) -> list[float]:
        bot = make_bot(spec)
        assert isinstance(bot, MCTSBot)
        return MCTS(bot.config).search(obs).lines[0].money

    same = money(f"mcts:iterations=40,model={_model_copy(tmp_path, 1.0)}")
    assert same == money("mcts:iterations=40")
    halved = money(f"mcts:iterations=40,model={_model_copy(tmp_path, 0.5)}")
    assert halved != same
    with pytest.raises(ValueError, match="value_model: .*No such file"):
        make_bot(f"mcts:iterations=40,model={tmp_path / 'model_1.0.json'}x")


def test_the_service_never_lets_a_client_name_a_model_file() -> None:
    with pytest.raises(InvalidInput, match="ai: model: not a setting"):
        check_bot("mcts:iterations=40,model=/etc/passwd", Settings(), "ai")


def test_a_reference_can_be_built_with_another_model_on_the_same_positions(
        tmp_path: Path) -> None:
    """``reference --model FILE``: the deep searches judge with that model; the positions
    are those of the shipped model's reference."""
    halved = _model_copy(tmp_path, 0.5)
    out = tmp_path / "ref.json"
    agreement.main(["reference", "--positions", "1", "--base", "5", "--factor", "2",
                    "--seeds", "1", "--cover", "1", "--jobs", "1", "--model", str(halved),
                    "--out", str(out)])
    ref = json.loads(out.read_text())
    shipped = agreement.build_reference(positions=1, base=5, factor=2, seeds=1, cover=1,
                                        jobs=1)
    assert ref["model"] == str(halved) and shipped["model"] == "shipped"
    assert ref["positions"][0]["observation"] == shipped["positions"][0]["observation"]
    assert ref["positions"][0]["candidates"] != shipped["positions"][0]["candidates"]



def test_measure_model_sets_the_searches_model_file(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    """``measure --model FILE``: every measured search reads that file (a spec's own
    ``model=`` wins); the report names the file as given, and a model other than the
    reference's is noted."""
    _model_copy(tmp_path, 1.0)
    monkeypatch.chdir(tmp_path)
    seen: list[str] = []
    real = agreement._measure_task

    def spy(task: tuple[SearchConfig, int, dict[str, Any]]) -> dict[str, Any]:
        seen.append(task[0].value_model)
        return real(task)

    monkeypatch.setattr(agreement, "_measure_task", spy)
    ref = agreement.build_reference(positions=1, base=5, factor=2, seeds=1, cover=1, jobs=1)
    Path("ref.json").write_text(json.dumps(ref))
    agreement.main(["measure", "ref.json", "--spec", "mcts:iterations=6", "--jobs", "1",
                    "--model", "model_1.0.json", "--json", "out.json"])
    report = json.loads(Path("out.json").read_text())[0]
    assert seen == [str(tmp_path / "model_1.0.json")]
    assert report["model"] == "model_1.0.json" and report["reference_model"] == "shipped"
    assert "judged with model_1.0.json against a reference searched with shipped" in (
        capsys.readouterr().err)
    other = _model_copy(tmp_path, 0.5)
    report = agreement.measure(ref, f"mcts:iterations=6,model={other}", 1, "model_1.0.json")
    assert seen[-1] == str(other) and report["model"] == str(other)
    agreement.main(["measure", "ref.json", "--spec", "mcts:iterations=6", "--jobs", "1"])
    assert "note:" not in capsys.readouterr().err  # the shipped model on its reference


def test_a_reference_and_a_report_name_the_model_their_process_plays(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOMBASA_VALUE_MODEL", raising=False)
    assert agreement.model_name(None) == "shipped"
    monkeypatch.setenv("MOMBASA_VALUE_MODEL", "/x/other.json")
    assert agreement.model_name(None) == "/x/other.json"
    assert agreement.model_name("given.json") == "given.json"
