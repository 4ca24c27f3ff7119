"""The old home of the catalogue checks, kept for its names: ``validate(raw)`` checks a
raw (parsed JSON) catalogue, schema ``mombasa-catalogue/1``, and raises
``CatalogueError`` whose message starts with the JSON path of the first fault, for
example ``regions[3].reward.pounds: must be >= 0, got -1``.

The checks now run where the catalogue is read (``engine/catalogue/``, one walk that
checks each value and builds the records from it); this module re-exports them.
"""

from __future__ import annotations

from engine.catalogue import SCHEMA, CatalogueError, validate

__all__ = ["CatalogueError", "validate", "SCHEMA"]
