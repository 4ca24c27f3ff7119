"""One configuration: the ``SearchConfig`` field defaults are the search settings.

The ``mcts`` bot (AI seats, arena, every strength figure) and the advisor (``/v1/analyse``,
a game's analysis, ``mombasa analyse``) take every knob they are not told from those
defaults; none of them keeps a literal of its own.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, fields, replace
from typing import Any

import pytest
from rich.console import Console

import engine
import search.bot_specs
import search.mcts
from advisor_api import cli, worker
from search import value_model
from search.bot_specs import SETTINGS_ENV, make_bot
from search.bots import MCTSBot
from search.evaluator import DEFAULT_WEIGHTS, Weights
from search.mcts import MCTS, SearchConfig
from search.pacing import REAL_TIME, Pacer

BUDGET = {"iterations", "time", "seed"}
# Not a search knob: how often an analysis looks for "stop" and progress requests.
REPORTING = {"report_every"}


def knobs(cfg: SearchConfig, skip: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    """Every field of ``cfg`` except the budget, the seed and ``skip``."""
    return {f.name: getattr(cfg, f.name) for f in fields(cfg)
            if f.name not in BUDGET and f.name not in skip}


def bot_config(spec: str, seed: int = 0) -> SearchConfig:
    bot = make_bot(spec, seed=seed)
    assert isinstance(bot, MCTSBot)
    return bot.config


@dataclass(frozen=True)
class Shifted(SearchConfig):
    """SearchConfig with every knob's default moved: whoever follows the defaults follows
    these; whoever keeps a literal of its own does not."""

    c_uct: float = 0.123
    horizon: str = "game"
    max_rollout_steps: int = 321
    widen_c: float = 1.75
    widen_alpha: float = 0.4
    report_every: int = 17
    margin_scale: float = 7.5
    rollout_noise: float = 0.05
    prior_visits: int = 5
    tree: str = "move"
    node_priors: bool = True
    weights: Weights = replace(DEFAULT_WEIGHTS, round_unit=1.23)
    evaluator: str = "hand"
    tempo: float = 0.42
    book_drive: float = 0.77
    select: str = "win"
    value_model: str = str(value_model.DEFAULT_PATH)
    plan: str = "leftmost"
    plan_c: float | None = 0.9
    plan_halving: int = 1234


def test_shifted_moves_every_knob() -> None:
    """A knob added to SearchConfig must be added to Shifted (so the tests below see it)."""
    moved = knobs(Shifted(iterations=1))
    base = knobs(SearchConfig(iterations=1))
    assert set(moved) == set(base)
    assert [k for k in base if moved[k] == base[k]] == []


def test_measured_exploration_constant() -> None:
    assert SearchConfig(iterations=1).c_uct == 0.3


@pytest.mark.parametrize("spec,budget", [
    ("mcts:time=0.5", {"time": 0.5}),
    ("mcts:iterations=400", {"iterations": 400}),
    ("mcts:time=1,iterations=50", {"time": 1.0, "iterations": 50}),
    ("mcts", {"time": 0.25}),  # the bot's own budget when the spec gives none
])
def test_mcts_bot_is_search_config_defaults(spec: str, budget: dict[str, Any]) -> None:
    assert bot_config(spec, seed=7) == SearchConfig(seed=7, **budget)
    assert knobs(bot_config(spec)) == knobs(SearchConfig(**budget))


def test_mcts_bot_has_no_literal_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """make_bot must read every default from SearchConfig: move them all, and it follows."""
    monkeypatch.setattr(search.bot_specs, "SearchConfig", Shifted)
    cfg = bot_config("mcts:time=0.5", seed=3)
    assert knobs(cfg) == knobs(Shifted(time=0.5))
    # a weight override starts from the default weights, not from a literal copy
    cfg = bot_config("mcts:iterations=4,book_run=0.2")
    assert cfg.weights == replace(Shifted.weights, book_run=0.2)
    assert knobs(cfg, {"weights"}) == knobs(Shifted(iterations=4), {"weights"})


def test_mcts_spec_overrides_reach_their_fields() -> None:
    cfg = bot_config("mcts:iterations=9,c=0.7,horizon=game,widen=2.5,prior=0,tree=move,"
                     "node_priors=1,eval=hand,noise=0.1,tempo=0,win_scale=4,drive=1.5,"
                     "select=win,plan=late,plan_c=0.8,halve=3000",
                     seed=5)
    assert cfg == SearchConfig(iterations=9, seed=5, c_uct=0.7, horizon="game",
                               widen_c=2.5, prior_visits=0, tree="move", node_priors=True,
                               evaluator="hand", rollout_noise=0.1, tempo=0.0,
                               book_drive=1.5, select="win", plan="late", plan_c=0.8,
                               plan_halving=3000,
                               weights=replace(DEFAULT_WEIGHTS, win_scale=4.0))
    assert bot_config("mcts:iterations=9,node_priors=0").node_priors is False


@pytest.mark.parametrize("iterations,seconds", [(300, None), (None, 2.0), (100, 1.5)])
def test_advisor_config_is_search_config_defaults(iterations: int | None,
                                                  seconds: float | None) -> None:
    cfg = worker.advisor_config(iterations, seconds, seed=11)
    assert cfg == SearchConfig(iterations=iterations, time=seconds, seed=11)
    assert knobs(cfg) == knobs(SearchConfig(iterations=iterations, time=seconds))


def test_advisor_config_has_no_literal_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search.bot_specs, "SearchConfig", Shifted)
    assert knobs(worker.advisor_config(None, 2.0, seed=1)) == knobs(Shifted(time=2.0))


def test_advisor_and_ai_seats_search_alike() -> None:
    """The advisor's analysis and the AI seats' mcts bot: one configuration."""
    assert knobs(worker.advisor_config(200, None)) == knobs(bot_config("mcts:iterations=200"))


# -- the installation's settings (MOMBASA_SEARCH) ----------------------------------------

@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.setenv(SETTINGS_ENV, "drive=0,c=0.45,tempo=2,round_unit=1.5")
    return monkeypatch


def test_installation_settings_reach_advisor_and_ai_seats(installed: pytest.MonkeyPatch) -> None:
    """An owner's MOMBASA_SEARCH (e.g. the drive off for a printed catalogue) changes the
    advisor and the AI seats alike: still one configuration."""
    expected = SearchConfig(iterations=200, book_drive=0.0, c_uct=0.45, tempo=2.0,
                            weights=replace(DEFAULT_WEIGHTS, round_unit=1.5))
    assert worker.advisor_config(200, None) == expected
    assert bot_config("mcts:iterations=200") == expected
    assert knobs(worker.advisor_config(200, None)) == knobs(bot_config("mcts:iterations=200"))


def test_a_spec_setting_wins_over_the_installation(installed: pytest.MonkeyPatch) -> None:
    cfg = bot_config("mcts:iterations=9,drive=0.5,win_scale=4")
    assert cfg.book_drive == 0.5 and cfg.c_uct == 0.45
    assert cfg.weights == replace(DEFAULT_WEIGHTS, round_unit=1.5, win_scale=4.0)


@pytest.mark.parametrize("text,message", [
    ("drive=-1", "MOMBASA_SEARCH: drive: expected a finite number in [0, 10], got -1"),
    ("drive=11", "MOMBASA_SEARCH: drive: expected a finite number in [0, 10], got 11"),
    ("c=abc", "MOMBASA_SEARCH: c: expected a finite number in [0, 10], got 'abc'"),
    ("time=2", "MOMBASA_SEARCH: time: the budget is given per search, not here"),
    ("depth=3", "MOMBASA_SEARCH: unknown setting 'depth'"),
    ("drive", "MOMBASA_SEARCH: expected key=value settings separated by commas"),
    ("drive=0,drive=1", "MOMBASA_SEARCH: expected key=value settings"),
    ("horizon=far", "MOMBASA_SEARCH: horizon: one of turn"),
])
def test_bad_installation_settings_are_named(monkeypatch: pytest.MonkeyPatch, text: str,
                                             message: str) -> None:
    monkeypatch.setenv(SETTINGS_ENV, text)
    with pytest.raises(ValueError) as err:
        worker.advisor_config(100, None)
    assert str(err.value).startswith(message)
    with pytest.raises(ValueError, match="MOMBASA_SEARCH"):
        make_bot("mcts:iterations=10")


def _observation() -> engine.Observation:
    s = engine.new_game(players=2, seed=4)
    while s.decision.kind == "chance":
        s = s.apply(s.sample_chance())
    return engine.observe(s, s.decision.player)


class Recording(MCTS):
    configs: list[SearchConfig] = []

    def __init__(self, config: SearchConfig, pacer: Pacer = REAL_TIME) -> None:
        Recording.configs.append(config)
        super().__init__(config, pacer)


@pytest.fixture
def recording() -> list[SearchConfig]:
    Recording.configs = []
    return Recording.configs


def test_worker_analysis_uses_the_defaults(monkeypatch: pytest.MonkeyPatch,
                                           recording: list[SearchConfig]) -> None:
    """The config run_analysis (/v1/analyse, a game's analysis) actually searches with."""
    monkeypatch.setattr(worker, "MCTS", Recording)
    task = {"kind": "analyse", "observation": engine.observation_to_json(_observation()),
            "iterations": 3, "time": 5.0, "seed": 9, "solve": False}
    out = worker.run_analysis(task)
    assert out["stats"].iterations == 3
    [cfg] = recording
    assert (cfg.iterations, cfg.time, cfg.seed) == (3, 5.0, 9)
    assert knobs(cfg, REPORTING) == knobs(SearchConfig(iterations=3, time=5.0), REPORTING)


def test_cli_analyse_uses_the_defaults(monkeypatch: pytest.MonkeyPatch,
                                       recording: list[SearchConfig]) -> None:
    """The config ``mombasa analyse`` searches with (in this process)."""
    monkeypatch.setattr(search.mcts, "MCTS", Recording)
    result = cli._search(_observation(), 3, None, 6, 1,
                         Console(file=io.StringIO()), "test")
    assert result.iterations == 3
    assert recording == [SearchConfig(iterations=3, seed=6)]


def test_installation_settings_name_an_arena_series(tmp_path: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Games played under other search settings are another series: a journal written
    under MOMBASA_SEARCH is not resumed without it (and the header says which)."""
    from search.arena import run_arena

    path = tmp_path / "series.jsonl"
    monkeypatch.setenv(SETTINGS_ENV, "drive=0")
    run_arena(["random", "policy"], games=1, seed=0, journal=path)
    assert '"search": "drive=0"' in path.read_text().splitlines()[0]
    monkeypatch.delenv(SETTINGS_ENV)
    with pytest.raises(ValueError, match="search settings drive=0"):
        run_arena(["random", "policy"], games=2, seed=0, journal=path)
    monkeypatch.setenv(SETTINGS_ENV, "drive=0")
    assert len(run_arena(["random", "policy"], games=2, seed=0, journal=path).games) == 2


def test_ray_tasks_receive_the_installation_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from search.distributed import _task_options

    monkeypatch.delenv("MOMBASA_VALUE_MODEL", raising=False)
    monkeypatch.delenv(SETTINGS_ENV, raising=False)
    assert _task_options() == {}
    monkeypatch.setenv(SETTINGS_ENV, " drive=0 ")
    assert _task_options() == {"runtime_env": {"env_vars": {SETTINGS_ENV: "drive=0"}}}
