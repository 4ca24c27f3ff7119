"""The bots of AI seats within the service's caps (``MOMBASA_MAX_BOT_TIME``,
``MOMBASA_MAX_BOT_ITERATIONS``): the default, a spec checked at a game's creation, and
the time a move may take in the search pool."""

from __future__ import annotations

from advisor_api.errors import InvalidInput
from advisor_api.settings import Settings
from search.bot_specs import make_bot, parse_spec
from search.levels import level


def default_bot(settings: Settings) -> str:
    """``mcts:time=0.5``, or less when the service's cap per move is lower."""
    return f"mcts:time={min(0.5, settings.max_bot_time):g}"


def bot_limit(spec: str, settings: Settings) -> float:
    """Seconds an AI move with this bot is expected to take at most."""
    name, opts = parse_spec(spec)
    if "time" in opts:
        return min(2 * float(opts["time"]) + 1.0, 2 * settings.max_bot_time)
    if name == "mcts" and "iterations" not in opts:
        return 2 * 0.25 + 1.0
    return settings.max_bot_time


def check_bot(spec: str, settings: Settings, field: str) -> str:
    """A usable bot spec within the caps, or 422 naming the field."""
    try:
        name, opts = parse_spec(spec)
        if "model" in opts:  # a file on the server: never named by a client
            raise ValueError("model: not a setting of the service's AI seats")
        make_bot(spec)
        if "time" in opts and float(opts["time"]) > settings.max_bot_time:
            raise ValueError(f"time: at most {settings.max_bot_time:g} s per move "
                             "(MOMBASA_MAX_BOT_TIME)")
        budget = level(int(opts["level"])).iterations if name == "level" else None
        if budget is not None and budget > settings.max_bot_iterations:
            raise ValueError(f"level {opts['level']} searches {budget} iterations: at most "
                             f"{settings.max_bot_iterations} (MOMBASA_MAX_BOT_ITERATIONS)")
        for key in ("iterations", "sims"):
            if key in opts and int(opts[key]) > settings.max_bot_iterations:
                raise ValueError(f"{key}: at most {settings.max_bot_iterations} "
                                 "(MOMBASA_MAX_BOT_ITERATIONS)")
    except Exception as exc:  # a bad spec, or a bot that cannot be built here
        raise InvalidInput(f"{field}: {exc}", field=field) from None
    return spec
