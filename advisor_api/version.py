"""The installed version of the distribution, read from its metadata (pyproject.toml's
``version`` is the one source): what ``mombasa --version`` prints and ``/v1/health``
and the OpenAPI document report.

>>> VERSION == version()
True
"""

from __future__ import annotations

import importlib.metadata

DISTRIBUTION = "mombasa-advisor"


def version() -> str:
    """The version of the installed ``mombasa-advisor`` distribution.

    A source tree that was never installed (no metadata) says so instead of guessing."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown (not installed)"


VERSION = version()
