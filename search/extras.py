"""Optional dependencies, imported only when a feature that needs them is used.

The runtime install (``pip install mombasa-advisor``) serves, analyses, plays and runs
arenas without them; a feature that needs one says which extra to install, in one line:

>>> require("json", "peers", "a test").__name__
'json'
>>> try:
...     require("no_such_module", "peers", "the peer comparison")
... except MissingExtra as exc:
...     print(exc)
the peer comparison needs no_such_module, which is not installed: pip install \
'mombasa-advisor[peers]'
"""

from __future__ import annotations

import importlib
from types import ModuleType

DISTRIBUTION = "mombasa-advisor"


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


def install_hint(extra: str) -> str:
    """The pip command that installs ``extra``.

    >>> install_hint("distributed")
    "pip install 'mombasa-advisor[distributed]'"
    """
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def require(module: str, extra: str, purpose: str, package: str | None = None) -> ModuleType:
    """Import ``module``, or raise :class:`MissingExtra` saying that ``purpose`` needs
    ``package`` (the name pip knows; default the module's) and how to install ``extra``."""
    top = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] != top:
            raise  # the module is there but something it imports is broken: show that
        raise MissingExtra(f"{purpose} needs {package or top}, which is not installed: "
                           f"{install_hint(extra)}") from exc
