"""Component catalogues of the service: checked, saved under a name, exported, and the one
each game plays with.

A catalogue is checked by the engine's own loader (``CatalogueError``: the JSON path of
the first fault, then the message). A saved one is kept in the database
(:mod:`advisor_api.store`: its JSON text by SHA-256, and the name pointing at it) and
written, content-addressed, to ``<catalogue dir>/<sha256>.json``, the file the engine
loads it from (``engine.load_catalogue(path)``): search processes receive a state's
catalogue by that path. The files are a copy of the database's texts, written again
whenever one is missing, so the database alone is enough to move a service.

A game created with a stored catalogue names that text's SHA-256 in its parameters and
replays with exactly it, whatever happens to the name later (replaced, deleted): the
text is kept as long as a game uses it.

The shipped catalogue (``engine.default_catalogue()``) is listed as
``"default (reconstruction)"``; it cannot be replaced or deleted.

>>> name_problem("my copy 2.0"), name_problem("-x"), name_problem("a/b")
(None, 'must begin with a letter or a digit', "only letters, digits, spaces and - _ . (not '/')")
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any

import engine
from advisor_api.cli_catalogue import dumps, summary
from advisor_api.errors import Conflict, InvalidInput, NotFound, StorageError
from advisor_api.store import CatalogueRow, NameTaken, Store

DEFAULT_NAME = "default (reconstruction)"
#: Names of the shipped catalogue (compared case-insensitively); never stored.
DEFAULT_NAMES = frozenset({"default", DEFAULT_NAME})
NAME_MAX = 60
NAME_PUNCTUATION = " -_."


def is_default(name: str | None) -> bool:
    return name is None or name.strip().lower() in DEFAULT_NAMES


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a stored catalogue (None if it can): 1-60 letters,
    digits, spaces and ``- _ .``, beginning with a letter or digit, no final space."""
    if not 1 <= len(name) <= NAME_MAX:
        return f"1 to {NAME_MAX} characters, got {len(name)}"
    bad = next((c for c in name if not (c.isalnum() or c in NAME_PUNCTUATION)), None)
    if bad is not None:
        return f"only letters, digits, spaces and - _ . (not {bad!r})"
    if not name[0].isalnum():
        return "must begin with a letter or a digit"
    if name.endswith(" "):
        return "must not end with a space"
    return None


def check(raw: Any) -> tuple[engine.Catalogue | None, dict[str, str] | None]:
    """The catalogue built from ``raw`` (parsed JSON), or the loader's first fault as
    ``{"path", "message"}`` (path ``$`` for the whole file). Nothing is written."""
    if not isinstance(raw, dict):  # a path is no catalogue here: only parsed JSON
        return None, {"path": "$", "message": f"expected an object, got {type(raw).__name__}"}
    try:
        return engine.load_catalogue(raw), None
    except engine.CatalogueError as exc:
        path, sep, message = str(exc).partition(": ")
        return None, {"path": path, "message": message} if sep else \
            {"path": "$", "message": str(exc)}
    except RecursionError:
        return None, {"path": "$", "message": "nested too deeply"}
    except Exception as exc:  # a loader bug must still answer a readable fault
        return None, {"path": "$", "message": f"the loader failed: {type(exc).__name__}: {exc}"}


def text_of(raw: Any) -> tuple[str, str]:
    """The stored JSON text of a catalogue (the shipped file's layout) and its SHA-256."""
    body = dumps(raw) + "\n"
    return body, hashlib.sha256(body.encode("utf-8")).hexdigest()


class CatalogueLibrary:
    """The stored catalogues of one database, and their files in ``directory``."""

    def __init__(self, store: Store, directory: str | os.PathLike[str] | None) -> None:
        self.store = store
        self._own_dir = directory is None
        self.directory = Path(tempfile.mkdtemp(prefix="mombasa-catalogues-")) \
            if directory is None else Path(directory).expanduser().resolve()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._default_entry: dict[str, Any] | None = None

    def close(self) -> None:
        if self._own_dir:
            shutil.rmtree(self.directory, ignore_errors=True)

    # -- the list ------------------------------------------------------------------------
    def entries(self) -> list[dict[str, Any]]:
        """The shipped catalogue first, then the stored ones by name."""
        return [self.default_entry()] + [entry(r) for r in self.store.catalogues()]

    def default_entry(self) -> dict[str, Any]:
        if self._default_entry is None:
            self._default_entry = {
                "name": DEFAULT_NAME, "default": True, "sha256": None, "created": None,
                "updated": None, "games": None,
                "summary": summary(engine.default_catalogue())}
        return self._default_entry

    def text(self, name: str) -> str:
        """The JSON text of a catalogue by name (404 if there is none)."""
        if is_default(name):
            return Path(engine.default_catalogue().path).read_text(encoding="utf-8")
        row = self.store.catalogue(name)
        body = None if row is None else self.store.catalogue_body(row.sha256)
        if row is None or body is None:
            raise NotFound(f"no catalogue named {name[:80]!r}", field="name")
        return body

    # -- changes -------------------------------------------------------------------------
    def save(self, name: str, raw: Any, replace: bool) -> tuple[dict[str, Any], bool]:
        """Check and store ``raw`` under ``name``: (its entry, created). 422 naming the
        field for a bad name or a catalogue that does not load (the loader's path and
        message), 409 for the shipped catalogue's name or an existing name without
        ``replace``. Nothing is stored on error."""
        if is_default(name):
            raise Conflict(f"name: {name.strip()!r} names the shipped catalogue, which "
                           "cannot be replaced: choose another name", field="name")
        problem = name_problem(name)
        if problem is not None:
            raise InvalidInput(f"name: {problem}", field="name")
        cat, error = check(raw)
        if cat is None:
            assert error is not None
            raise catalogue_error(error)
        body, sha = text_of(raw)
        try:
            created, dropped = self.store.put_catalogue(name, sha, body, summary(cat), replace)
        except NameTaken as exc:
            raise Conflict(f"name: a catalogue named {exc.name!r} exists (replace it with "
                           "\"replace\": true, or choose another name)", field="name") from None
        self._forget(dropped)
        self.file(sha)  # written now, so that a game created next finds it
        row = self.store.catalogue(name)
        assert row is not None
        return entry(row), created

    def delete(self, name: str) -> dict[str, Any]:
        """Forget a name (its text stays while a game uses it). 409 for the shipped one."""
        if is_default(name):
            raise Conflict("the shipped catalogue cannot be deleted", field="name")
        row = self.store.catalogue(name)
        dropped = self.store.delete_catalogue(name)
        if row is None or dropped is None:
            raise NotFound(f"no catalogue named {name[:80]!r}", field="name")
        self._forget(dropped)
        return {"name": row.name, "deleted": True, "games": row.games}

    def _forget(self, shas: list[str]) -> None:
        for sha in shas:
            (self.directory / f"{sha}.json").unlink(missing_ok=True)

    def game_deleted(self, dropped: list[str]) -> None:
        """A game was deleted with the catalogue texts ``dropped`` (used by nothing
        else any more): their files go too."""
        self._forget(dropped)

    # -- games ---------------------------------------------------------------------------
    def for_new_game(self, name: str | None
                     ) -> tuple[engine.Catalogue | None, dict[str, str] | None]:
        """The catalogue named for a new game and the reference its parameters keep
        (``{"name", "sha256"}``); (None, None) for the shipped one. 422 if unknown."""
        if is_default(name):
            return None, None
        assert name is not None
        row = self.store.catalogue(name)
        if row is None:
            raise InvalidInput(f"catalogue: no stored catalogue named {name[:80]!r} (GET "
                               "/v1/catalogues lists them)", field="catalogue")
        try:
            cat = self.load(row.sha256)
        except StorageError as exc:
            raise InvalidInput(f"catalogue: {exc.message}", field="catalogue") from None
        return cat, {"name": row.name, "sha256": row.sha256}

    def for_game(self, params: dict[str, Any]) -> engine.Catalogue | None:
        """The catalogue a stored game plays with (None: the shipped one)."""
        ref = params.get("catalogue")
        if not ref:
            return None
        return self.load(str(ref["sha256"]))

    def load(self, sha: str) -> engine.Catalogue:
        """The catalogue of a stored text, loaded from its file (500 if it is gone or no
        longer loads)."""
        path = self.file(sha)
        try:
            return engine.load_catalogue(path)
        except engine.CatalogueError as exc:
            raise StorageError(f"the stored catalogue {sha[:12]} no longer loads: {exc}") \
                from None

    def file(self, sha: str) -> Path:
        """The file of a stored text, written (again) from the database if missing."""
        path = self.directory / f"{sha}.json"
        try:
            if hashlib.sha256(path.read_bytes()).hexdigest() == sha:
                return path
        except OSError:
            pass
        body = self.store.catalogue_body(sha)
        if body is None:
            raise StorageError(f"the catalogue {sha[:12]} is not in the database")
        tmp = path.with_name(f".{sha}.{secrets.token_hex(4)}.tmp")
        tmp.write_text(body, encoding="utf-8")
        os.replace(tmp, path)
        return path


def entry(row: CatalogueRow) -> dict[str, Any]:
    return {"name": row.name, "default": False, "sha256": row.sha256,
            "created": row.created, "updated": row.updated, "games": row.games,
            "summary": row.summary}


def catalogue_error(error: dict[str, str]) -> InvalidInput:
    """422 for a catalogue that does not load: the field is ``catalogue.<its path>``."""
    path = error["path"]
    field = "catalogue" if path in ("$", "") else f"catalogue.{path}"
    return InvalidInput(f"{field}: {error['message']}", field=field,
                        errors=[{"field": field, "path": path, "message": error["message"],
                                 "type": "catalogue"}])
