"""``mombasa train-value``: fit the learned evaluator on self-play games (played here,
in parallel processes or on a Ray cluster) and on recorded games, write the model as
JSON and report its held-out errors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from advisor_api.cli_bots import _connect_ray
from advisor_api.cli_errors import catalogue_setting, output_file, unusable

if TYPE_CHECKING:
    from search.dataset import Dataset

train_app = typer.Typer()


@train_app.command("train-value")
def train_value(
    out: Annotated[Path, typer.Option(help="Write the fitted model here (JSON).")],
    bot: Annotated[str, typer.Option(help="Bot spec playing the self-play games.")]
    = "greedy:eval=learned",
    games: Annotated[int, typer.Option(min=0, help="Games per player count (0: fit only "
                                                   "the --data given).")] = 500,
    players: Annotated[str, typer.Option(help="Player counts, comma separated.")] = "2,3,4",
    seed: Annotated[int, typer.Option(min=0, help="Seed of the series.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Games played in parallel.")] = 1,
    explore: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of moves played "
                                                                  "by the quick policy.")]
    = 0.1,
    ridge: Annotated[float, typer.Option(min=0.0, help="L2 penalty of the fit.")] = 1.0,
    min_rows: Annotated[int, typer.Option(min=1, help="Rows a (players, round, phase) "
                                                      "bucket needs to be fitted.")] = 200,
    data: Annotated[list[Path] | None, typer.Option(help="Recorded games (.npz) to add; "
                                                         "repeatable.")] = None,
    save_data: Annotated[Path | None, typer.Option(help="Also save the games played "
                                                        "(.npz).")] = None,
    ray_address: Annotated[str | None, typer.Option(
        "--ray", help="Play the self-play games on a Ray cluster: 'auto' (the running "
                      "one), an address, or 'local' (start one here).")] = None,
    hidden: Annotated[int, typer.Option(min=0, max=512, help="Hidden units of the "
                                        "residual network on top of the linear fit "
                                        "(0: linear only).")] = 0,
) -> None:
    """Fit the learned evaluator on recorded self-play games; report held-out errors."""
    from search.dataset import Dataset
    from search.training import train

    catalogue_setting()
    output_file(out, "--out")
    output_file(save_data, "--save-data")
    counts = _player_counts(players)
    try:
        from search.bot_specs import make_bot

        make_bot(bot)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bot") from None
    parts = []
    for path in data or []:
        try:
            parts.append(Dataset.load(str(path)))
        except (OSError, ValueError) as exc:
            unusable("--data", path, str(getattr(exc, "strerror", None) or exc))
    if games == 0 and not parts:
        raise typer.BadParameter("nothing to fit: give --games above 0 or --data",
                                 param_hint="--games")
    if games:
        played = _self_play(bot, games, counts, seed, explore, jobs, ray_address)
        if save_data is not None:
            played.save(str(save_data))
        parts.append(played)
    meta: dict[str, object] = {
        "bot": bot if games else None, "games_per_count": games, "explore": explore,
        "seed": seed, "players": list(counts), "extra_data": [p.name for p in data or []],
    }
    try:
        model, report = train(Dataset.concat(parts), ridge=ridge, min_rows=min_rows,
                              meta=meta, hidden=hidden)
    except ValueError as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(1) from None
    model.save(out)
    for line in report.lines():
        typer.echo(line)
    typer.echo(f"model written to {out}")


def _player_counts(players: str) -> tuple[int, ...]:
    """``--players``: counts of 2 to 4, comma separated."""
    try:
        counts = tuple(int(x) for x in players.split(","))
    except ValueError:
        raise typer.BadParameter(f"expected numbers like 2,3,4, got {players!r}",
                                 param_hint="--players") from None
    if not counts or any(not 2 <= n <= 4 for n in counts):
        raise typer.BadParameter(f"player counts must be 2-4, got {players!r}",
                                 param_hint="--players")
    return counts


def _self_play(bot: str, games: int, counts: tuple[int, ...], seed: int, explore: float,
               jobs: int, ray_address: str | None) -> Dataset:
    """The self-play games, here or on a Ray cluster."""
    from search.selfplay import generate

    Console(stderr=True).print(f"self-play: {games} games x {len(counts)} player "
                               f"counts of {bot}"
                               + (" on Ray" if ray_address is not None else ""))
    if ray_address is not None:
        from search.distributed import generate_ray

        _connect_ray(ray_address)
        return generate_ray(bot, games, players=counts, seed=seed, explore=explore,
                            address=ray_address)
    return generate(bot, games, players=counts, seed=seed, explore=explore, jobs=jobs)
