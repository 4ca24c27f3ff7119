"""Service settings: caps and sizes, each overridable by an environment variable.

>>> s = Settings.from_env({"MOMBASA_MAX_TIME": "4", "MOMBASA_WORKERS": "1"})
>>> s.max_time, s.workers
(4.0, 1)
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from advisor_api.store_sql import is_url

#: Environment variable -> settings field (see ``docs/api.md``).
ENV_VARS: dict[str, str] = {
    "MOMBASA_DB": "db_path",
    "MOMBASA_DB_BUSY_MS": "db_busy_ms",
    "MOMBASA_CATALOGUE_DIR": "catalogue_dir",
    "MOMBASA_MAX_TIME": "max_time",
    "MOMBASA_MAX_ITERATIONS": "max_iterations",
    "MOMBASA_MAX_BODY": "max_body",
    "MOMBASA_WORKERS": "workers",
    "MOMBASA_MAX_QUEUE": "max_queue",
    "MOMBASA_GRACE": "grace",
    "MOMBASA_DEFAULT_TIME": "default_time",
    "MOMBASA_MAX_MULTIPV": "max_multipv",
    "MOMBASA_STREAM_INTERVAL": "stream_interval",
    "MOMBASA_EVENTS_HEARTBEAT": "events_heartbeat",
    "MOMBASA_MAX_BOT_TIME": "max_bot_time",
    "MOMBASA_MAX_BOT_ITERATIONS": "max_bot_iterations",
    "MOMBASA_CLIENT_ANALYSES": "client_analyses",
    "MOMBASA_CLIENT_GAMES_PER_MINUTE": "client_games_per_minute",
    "MOMBASA_CLIENT_AI_GAMES": "client_ai_games",
    "MOMBASA_CLIENT_STREAMS": "client_streams",
    "MOMBASA_WORKER_MAX_TASKS": "worker_max_tasks",
    "MOMBASA_WORKER_MAX_RSS_MB": "worker_max_rss_mb",
    "MOMBASA_GAME_TTL_HOURS": "game_ttl_hours",
    "MOMBASA_ALLOWED_HOSTS": "allowed_hosts",
    "MOMBASA_CORS_ORIGINS": "cors_origins",
    "MOMBASA_TRUSTED_PROXIES": "trusted_proxies",
    "MOMBASA_AI_LEASE": "ai_lease",
    "MOMBASA_RAY": "ray",
}

#: The hosts a request may name (``Host`` header) by default: this machine only.
LOCAL_HOSTS: tuple[str, ...] = ("localhost", "127.0.0.1", "::1")


_ORIGIN = re.compile(r"https?://(\[[0-9A-Fa-f:.]+\]|[^/:\[\]\s]+)(:[0-9]{1,5})?")


def _ipv6(host: str) -> bool:
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def _network(text: str) -> str:
    """A trusted proxy: an address or a network, written the standard way."""
    try:
        net = ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(f"trusted_proxies (MOMBASA_TRUSTED_PROXIES): {text!r} is not an IP "
                         "address or network (e.g. 10.0.0.5, 10.0.0.0/24, fd00::/8)") from None
    return str(net.network_address) if net.num_addresses == 1 else str(net)


def _split(raw: str) -> tuple[str, ...]:
    """A comma list (``MOMBASA_ALLOWED_HOSTS``, ``MOMBASA_CORS_ORIGINS``)."""
    return tuple(part.strip() for part in raw.split(",") if part.strip())


def _default_workers() -> int:
    return max(1, min(os.cpu_count() or 2, 8))


@dataclass(frozen=True)
class Settings:
    """Limits of the service. ``from_env`` reads the ``MOMBASA_*`` variables."""

    # The games' database: a SQLite file, or a postgresql:// URL (several replicas).
    db_path: str = "./mombasa.db"
    # Milliseconds a write waits for the database locked by another connection (503 above).
    db_busy_ms: int = 3000
    # Files of the stored catalogues ("": a folder "catalogues" beside the database).
    catalogue_dir: str = ""
    max_time: float = 10.0  # seconds of search per request
    max_iterations: int = 1_000_000  # iterations per request
    max_body: int = 1_000_000  # bytes of a request body (413 above)
    workers: int = 2  # search processes (searches running at once)
    max_queue: int = 16  # searches waiting for a process (429 above)
    grace: float = 5.0  # seconds past its limit before a search is killed (504)
    default_time: float = 1.0  # limit of a request that gives none
    max_multipv: int = 64  # lines per answer
    stream_interval: float = 0.3  # seconds between Server-Sent Events
    events_heartbeat: float = 15.0  # seconds between heartbeats of a game-event stream
    max_bot_time: float = 10.0  # seconds per move of an AI seat
    max_bot_iterations: int = 200_000  # iterations per search of an AI seat
    # Per client (remote address, the direct peer; 0: no limit), 429 above:
    client_analyses: int = 4  # analyses at once (plain, streamed, a game's)
    client_games_per_minute: int = 30  # games created in any 60 s
    client_ai_games: int = 4  # games whose AI seats are playing at once
    client_streams: int = 16  # game-event streams open at once (GET .../events)
    # A search process is replaced by a fresh one between tasks (0: never)...
    worker_max_tasks: int = 200  # ...after this many tasks
    worker_max_rss_mb: float = 512.0  # ...when its memory after a task is above this
    # A game nobody touched for this many hours is deleted (on access, or by the sweep
    # every few minutes); 0: games never expire.
    game_ttl_hours: float = 72.0
    # Names a request's Host header may give (400 otherwise; "*": any, unsafe: DNS
    # rebinding); "*.example.org" matches its subdomains.
    allowed_hosts: tuple[str, ...] = LOCAL_HOSTS
    # Other web origins ("https://host[:port]") whose pages may call the API (CORS) and
    # change things (POST, DELETE); default none ("*": any, unsafe).
    cors_origins: tuple[str, ...] = ()
    # Reverse proxies (addresses or networks) whose X-Forwarded-For names the client of
    # the per-client limits and the fair share; default none (the direct peer is the
    # client).
    trusted_proxies: tuple[str, ...] = ()
    # Replicas on one PostgreSQL database: seconds a replica holds a game's AI seats
    # without renewing its lease (renewed every third of it); another takes over then.
    ai_lease: float = 10.0
    # Where the searches run: a Ray cluster ("auto": the running one, its address, or
    # "local": one started in the service; ``mombasa serve --ray``), one search actor
    # per CPU of the cluster; "": ``workers`` search processes of this machine.
    ray: str = ""

    def __post_init__(self) -> None:
        for name in ("max_time", "grace", "default_time", "stream_interval", "max_bot_time",
                     "events_heartbeat", "ai_lease"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name}: must be > 0, got {getattr(self, name)}")
        for name in ("max_iterations", "max_body", "workers", "max_multipv",
                     "max_bot_iterations"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: must be >= 1, got {getattr(self, name)}")
        for name in ("db_busy_ms", "max_queue", "client_analyses", "client_games_per_minute",
                     "client_ai_games", "client_streams", "worker_max_tasks", "worker_max_rss_mb",
                     "game_ttl_hours"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: must be >= 0, got {getattr(self, name)}")
        # Lower case, IPv6 without brackets, origins without a trailing "/".
        hosts = tuple(h.strip().lower().removeprefix("[").removesuffix("]")
                      for h in self.allowed_hosts)
        origins = tuple(o.strip().lower().removesuffix("/") for o in self.cors_origins)
        object.__setattr__(self, "allowed_hosts", hosts)
        object.__setattr__(self, "ray", self.ray.strip())
        object.__setattr__(self, "cors_origins", origins)
        for host in hosts:
            if not host or (any(c in host for c in "/:@ \t") and not _ipv6(host)):
                raise ValueError(f"allowed_hosts (MOMBASA_ALLOWED_HOSTS): {host!r} is not a "
                                 "host name or address (no scheme, port or path)")
        for origin in origins:
            if origin != "*" and not _ORIGIN.fullmatch(origin):
                raise ValueError(f"cors_origins (MOMBASA_CORS_ORIGINS): {origin!r} is not an "
                                 "origin (http[s]://host[:port], no path)")
        object.__setattr__(self, "trusted_proxies",
                           tuple(_network(p) for p in self.trusted_proxies))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then ``MOMBASA_*`` variables of ``env`` (``os.environ``), then
        ``overrides``. A variable that does not parse raises ``ValueError`` naming it."""
        env = os.environ if env is None else env
        types = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {"workers": _default_workers()}
        for var, name in ENV_VARS.items():
            raw = env.get(var)
            if raw is None or raw == "":
                continue
            typ = types[name]
            try:
                values[name] = (float(raw) if typ == "float" else int(raw) if typ == "int"
                                else _split(raw) if typ.startswith("tuple") else raw)
            except ValueError:
                raise ValueError(f"{var}: cannot read {raw!r} as a {typ}") from None
        values.update(overrides)
        return cls(**values)

    def catalogue_folder(self) -> str | None:
        """Where the stored catalogues' files go (None: a temporary folder, for a
        database in memory or on a PostgreSQL server)."""
        if self.catalogue_dir:
            return self.catalogue_dir
        if self.db_path == ":memory:" or is_url(self.db_path):
            return None  # (a PostgreSQL database: each replica writes its own copies)
        return os.path.join(os.path.dirname(os.path.abspath(os.path.expanduser(
            self.db_path))), "catalogues")

    def with_(self, **changes: Any) -> Settings:
        """A copy with some fields changed."""
        return replace(self, **changes)
