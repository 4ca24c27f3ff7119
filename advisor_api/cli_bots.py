"""What the commands that run bots share: ``split_players``, which splits a comma
separated list of bot specs (``--ai``, ``--players``), and ``_connect_ray``, which joins
the Ray cluster of a ``--ray`` option (``arena``, ``train-value``)."""

from __future__ import annotations

import typer


def split_players(text: str) -> list[str]:
    """``"mcts:time=0.25,c=0.5,greedy"`` -> ``["mcts:time=0.25,c=0.5", "greedy"]``: a
    ``key=value`` part without a bot name belongs to the bot before it."""
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


def _connect_ray(address: str) -> None:
    """Join (or start) the Ray cluster of a ``--ray`` option, or stop with what went
    wrong."""
    from search.distributed import RayUnavailable, connect

    try:
        connect(address)
    except RayUnavailable as exc:
        raise typer.BadParameter(str(exc), param_hint="--ray") from None
