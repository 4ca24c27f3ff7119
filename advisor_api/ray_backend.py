"""The search pool on a Ray cluster (``mombasa serve --ray auto|ADDRESS``, or
``MOMBASA_RAY``: the settings' ``ray``): a second :class:`~advisor_api.pool.Backend` of
:class:`~advisor_api.pool.WorkerPool`, chosen by :func:`advisor_api.service.search_backend`.

Only where a slice runs changes. The scheduler (fair share by search-seconds, time
slices, admission, deadlines, crash recovery, recycling) is the pool's, unchanged; its
places are :class:`SearchActor` s, one per CPU of the cluster (``num_cpus=1`` each), each
running the same :class:`~advisor_api.worker.Host` as a local search process: a search
started there stays there, with its tree and its warm evaluator, and is paused and
resumed in slices.

The pool's messages become actor calls: ``("start", ...)`` and ``("resume", ...)`` are
:meth:`SearchActor.run_slice`, which returns when the slice ends with the messages of
the slice (the streamed analysis' progress, then ``paused``, ``done`` or ``error``);
``("stop", job)`` is :meth:`SearchActor.stop`, served at once beside a running slice (a
threaded actor); ``"ping"`` is :meth:`SearchActor.ping` (its process id and node).
Each actor also has a call that never returns (:meth:`SearchActor.watch`): when the
actor dies (killed, crashed, its node gone) that call fails, and the pool fails the
actor's searches and puts a new actor in its place, as for a local process that died.

Capacity. :meth:`RayBackend.capacity` is the cluster's CPUs as Ray counts them
(``ray.cluster_resources()["CPU"]``), read at the start and every
:attr:`RayBackend.refresh_every` seconds: a node that joins adds actors, one that leaves
takes its actors with it and they are not replaced beyond the capacity. Several
services on one cluster (replicas) split its CPUs equally (:func:`share`), each seeing
the others by their actors' names (``mombasa-search-<id>-<n>``, listed by Ray). The
pool's admission (429 ``busy``: ``size + MOMBASA_MAX_QUEUE`` requests in flight), its
Retry-After and an analysis' ``jobs`` cap (422 above) use that figure.

Files. A state played with a stored catalogue names its file
(``<catalogue dir>/<sha256>.json``), which other machines do not have: the file's text
travels with the task and the actor writes it, under the same name, in a folder of its
own machine (:func:`ship_catalogue`, :func:`land_catalogue`). ``MOMBASA_VALUE_MODEL``,
``MOMBASA_SEARCH`` and ``MOMBASA_CATALOGUE`` reach the actors through their runtime
environment (the model and catalogue files must exist at the same path on every node).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from advisor_api.pool import Backend, Worker
from advisor_api.settings import Settings
from advisor_api.worker import Host, rss_bytes

#: Messages that end a slice.
ENDS = ("paused", "done", "error")
#: Calls an actor serves at once: the slice, stops and pings, and the watch.
CONCURRENCY = 8
#: The names of the search actors: this prefix, the pool's own id, the actor's number.
PREFIX = "mombasa-search-"


def share(cpus: int, pools: list[str], mine: str) -> int:
    """The CPUs of ``mine`` among the services ``pools`` (sorted) sharing ``cpus``:
    equal shares, the remainder to the first ones.

    >>> [share(5, ["a", "b"], p) for p in ("a", "b")]
    [3, 2]
    """
    base, extra = divmod(cpus, len(pools))
    return base + (1 if pools.index(mine) < extra else 0)


def _ray() -> Any:
    from search.distributed import _ray as ray_module

    return ray_module()


def _catalogue_path(task: dict[str, Any]) -> str | None:
    """The catalogue file a task's state names (None: the default catalogue)."""
    obs = task.get("observation")
    state = obs.get("state") if isinstance(obs, dict) else None
    path = state.get("catalogue") if isinstance(state, dict) else None
    return path if isinstance(path, str) and path else None


def ship_catalogue(task: dict[str, Any]) -> dict[str, Any]:
    """The task with its catalogue file's text beside it (``catalogue_text``), when its
    state names one, so that an actor on another machine can write it."""
    path = _catalogue_path(task)
    if path is None or not os.path.isfile(path):
        return task
    return {**task, "catalogue_text": Path(path).read_text(encoding="utf-8")}


def land_catalogue(task: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The task as this machine runs it: a shipped catalogue written in ``folder`` (same
    file name: it is the content's hash) and the state pointed at it; a task whose file
    exists here is left as it is."""
    text = task.pop("catalogue_text", None)
    path = _catalogue_path(task)
    if text is None or path is None or os.path.isfile(path):
        return task
    folder.mkdir(parents=True, exist_ok=True)
    local = folder / Path(path).name
    if not local.exists():
        partial = local.with_suffix(f".{os.getpid()}.part")
        partial.write_text(text, encoding="utf-8")
        partial.replace(local)
    obs = dict(task["observation"])
    obs["state"] = {**obs["state"], "catalogue": str(local)}
    return {**task, "observation": obs}


class SearchActor:
    """A search process of the cluster: a :class:`~advisor_api.worker.Host` whose
    answers are collected per search and returned by the call that ran the slice."""

    def __init__(self, extra_tasks: str | None = None) -> None:
        self._cond = threading.Condition()
        self._mail: dict[int, list[tuple[Any, ...]]] = {}
        self._stops: set[int] = set()  # stops that came before their search's start
        self._host = Host(self._post, extra_tasks)
        self._never = threading.Event()
        self._folder = Path(tempfile.gettempdir()) / "mombasa-catalogues"

    def _post(self, message: tuple[Any, ...]) -> None:
        with self._cond:
            self._mail.setdefault(message[1], []).append(message)
            self._cond.notify_all()

    def ping(self) -> tuple[Any, ...]:
        ray = _ray()
        where = {"pid": os.getpid(), "node": ray.get_runtime_context().get_node_id()}
        return ("pong", 0, where, rss_bytes())

    def run_slice(self, message: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """Start or resume a search for one slice; its messages until the slice ends."""
        kind, job = message[0], message[1]
        if kind == "start":
            message = (kind, job, land_catalogue(dict(message[2]), self._folder),
                       *message[3:])
        with self._cond:
            self._host.handle(message)
            if job in self._stops:
                self._stops.discard(job)
                self._host.handle(("stop", job))
            while not any(m[0] in ENDS for m in self._mail.get(job, ())):
                self._cond.wait()
            return self._mail.pop(job)

    def stop(self, job: int) -> None:
        """Ask a search to stop (a running one at its next checkpoint)."""
        with self._cond:
            if job in self._host.sessions:
                self._host.handle(("stop", job))
            else:
                self._stops.add(job)

    def watch(self) -> None:
        """Never returns: the call fails when the actor dies."""
        self._never.wait()


class RayWorker(Worker):
    """The pool's end of a :class:`SearchActor`."""

    def __init__(self, ident: int, actor: Any) -> None:
        super().__init__(ident)
        self.actor = actor
        self.pid: int | None = None
        self.node: str | None = None
        self._deliver: Callable[[Worker, Any], None] | None = None
        self._died: Callable[[Worker], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def listen(self, deliver: Callable[[Worker, Any], None],
               died: Callable[[Worker], None]) -> None:
        self._loop = asyncio.get_running_loop()
        self._deliver, self._died = deliver, died
        self._follow(self.actor.watch.remote())

    def unlisten(self) -> None:
        self._deliver = self._died = None

    def send(self, message: Any) -> bool:
        try:
            if message == "ping":
                ref = self.actor.ping.remote()
            elif message[0] == "stop":
                ref = self.actor.stop.remote(message[1])
            elif message[0] == "start":
                ref = self.actor.run_slice.remote(
                    (message[0], message[1], ship_catalogue(message[2]), *message[3:]))
            else:
                ref = self.actor.run_slice.remote(message)
        except Exception:  # Ray is shut down, the actor handle is gone
            return False
        self._follow(ref)
        return True

    def _follow(self, ref: Any) -> None:
        assert self._loop is not None
        future = asyncio.wrap_future(ref.future(), loop=self._loop)
        future.add_done_callback(self._answered)

    def _answered(self, future: asyncio.Future[Any]) -> None:
        if future.cancelled():
            return
        failed = future.exception() is not None  # retrieved, whoever listens
        if self._deliver is None or self._died is None:
            return
        if failed:  # the actor died (or the call failed)
            self._died(self)
            return
        answer = future.result()
        for message in answer if isinstance(answer, list) else [answer] if answer else []:
            if message[0] == "pong":
                self.pid, self.node = message[2]["pid"], message[2]["node"]
            if self._deliver is not None:
                self._deliver(self, message)

    def kill(self) -> None:
        try:
            _ray().kill(self.actor, no_restart=True)
        except Exception:  # gone already
            return

    def info(self) -> dict[str, Any]:
        return {"id": self.ident, "pid": self.pid, "node": self.node, **super().info()}


class RayBackend(Backend):
    """Search actors on the Ray cluster at ``address`` ("auto": the running one;
    "local": start one in this process), one per CPU of the cluster."""

    kind = "ray"
    refresh_every = 2.0

    def __init__(self, address: str, extra_tasks: str | None = None) -> None:
        self.address = address
        self.extra_tasks = extra_tasks
        self.prefix = f"{PREFIX}{uuid.uuid4().hex[:8]}"  # this pool's actors
        self._cls: Any = None
        self._options: dict[str, Any] = {}
        self.figures: dict[str, Any] = {}

    def connect(self) -> int:
        from search.distributed import _task_options, connect

        connect(self.address)
        options = _task_options()
        catalogue = os.environ.get("MOMBASA_CATALOGUE")
        if catalogue:
            env = options.setdefault("runtime_env", {}).setdefault("env_vars", {})
            env["MOMBASA_CATALOGUE"] = str(Path(catalogue).resolve())
        self._options = {"num_cpus": 1, "max_concurrency": CONCURRENCY, "max_restarts": 0,
                         **options}
        self._cls = _ray().remote(SearchActor)
        return self.capacity()

    def capacity(self) -> int:
        """This service's share of the cluster's CPUs now: all of them, or with several
        services on the cluster (replicas) an equal share (:func:`share`); and, for the
        health endpoint, the CPUs, those free, the nodes alive and the services."""
        ray = _ray()
        total = int(ray.cluster_resources().get("CPU", 0.0))
        free = ray.available_resources().get("CPU", 0.0)
        nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        named = ray.util.list_named_actors(all_namespaces=True)
        pools = {str(a["name"]).rsplit("-", 1)[0] for a in named
                 if str(a["name"]).startswith(PREFIX)} | {self.prefix}
        mine = share(total, sorted(pools), self.prefix)
        self.figures = {"cpus": total, "free_cpus": int(free), "nodes": nodes,
                        "services": len(pools), "share": mine}
        return mine

    def new_worker(self, ident: int) -> Worker:
        actor = self._cls.options(name=f"{self.prefix}-{ident}",
                                  **self._options).remote(self.extra_tasks)
        return RayWorker(ident, actor)

    def info(self) -> dict[str, Any]:
        return {"kind": self.kind, "address": self.address, "actors": self.prefix,
                **self.figures}


def cluster_cpus(address: str) -> int:
    """Join the cluster at ``address`` and read its CPUs."""
    from search.distributed import connect

    connect(address)
    return max(1, int(_ray().cluster_resources().get("CPU", 1)))


def serve_on_ray(settings: Settings, address: str) -> Settings:
    """``mombasa serve --ray ADDRESS``: join the cluster now (ValueError saying why not)
    and put the search pool on it (the settings' ``ray``, read by
    :func:`~advisor_api.service.search_backend`); ``workers`` is the cluster's CPUs (the
    pool's size until it has read its share; then the pool's current capacity caps an
    analysis' ``jobs``)."""
    from search.distributed import RayUnavailable

    try:
        cpus = cluster_cpus(address)
    except RayUnavailable as exc:
        raise ValueError(f"--ray {address}: {exc}") from None
    return settings.with_(ray=address, workers=cpus)
