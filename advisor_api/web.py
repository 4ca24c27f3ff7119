"""The web page: the static files of ``advisor_api/static/`` and the table's layout.

``install(app)`` adds to the service:

* ``GET /``: the page (``static/index.html``), a board you can play on against the AI,
  mirror a live game with, and ask for suggestions (see ``docs/web.md``);
* ``GET /static/...``: its scripts, styles and icons (nothing is fetched from elsewhere);
* ``GET /v1/catalogue``: the read-only component catalogue as the page draws it: the map
  (regions with polygons and centres in a 1000 x 1000 box, borders, where each company's
  base sits), the company tracks, every card, book, display space, book-display space,
  bonus space and tile by the names the notation uses.

Each of these answers carries a strong ``ETag`` (from the SHA-256 of its content) and
``Cache-Control: no-cache``: a browser keeps them and asks again with
``If-None-Match``, answered ``304 Not Modified`` while the content is the same (after an
upgrade the page never runs a stale module). Bodies of 1 KB and more go out gzip'ed to
a client that accepts it, compressed once and kept (:func:`validated`); their ETag then
ends in ``-gz`` (another representation of the same content).

>>> body = catalogue_json(engine.default_catalogue())
>>> body["schema"], len(body["regions"]), sorted(body["base_layout"])
('mombasa-web-catalogue/1', 24, ['CAI', 'CAP', 'MOM', 'STL'])
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import mimetypes
import os
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

import engine
from engine import MEASURES, Catalogue, Reward

STATIC = Path(__file__).with_name("static")
SCHEMA = "mombasa-web-catalogue/1"

# A company base in map units: columns side by side, spaces along the column, plus the
# company's name above or below it.
BASE_SPACE = 30.0
BASE_GAP = 6.0
BASE_LABEL = 44.0
# The box (in map units) where bases may sit around the 1000 x 1000 map.
FRAME = (-20.0, -170.0, 1020.0, 1000.0)

router = APIRouter()


def check_files() -> None:
    """Raise ``FileNotFoundError`` naming the page's folder when its files are missing
    (an incomplete installation): the service must not start without its page."""
    index = STATIC / "index.html"
    if not index.is_file():
        raise FileNotFoundError(f"the web page's files are missing ({index}): reinstall "
                                "mombasa-advisor")


def install(app: FastAPI) -> None:
    """Serve the page at ``/``, its files at ``/static`` and ``GET /v1/catalogue``."""
    app.include_router(router)
    app.mount("/static", PageFiles(directory=STATIC), name="static")


# -- validators and compression -------------------------------------------------------------

GZIP_MIN = 1024  # smaller bodies go out as they are (the gzip header would eat the gain)
CACHE_CONTROL = "no-cache"  # kept by the browser, always revalidated (If-None-Match)
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html",
               ".svg": "image/svg+xml", ".json": "application/json"}


@dataclass(frozen=True)
class Body:
    """A body served with a validator: its bytes, gzip'ed bytes (None: not worth it),
    strong ETag (quoted) and media type."""

    data: bytes
    gz: bytes | None
    etag: str
    media_type: str


def body(data: bytes, media_type: str) -> Body:
    """``data`` with its ETag (SHA-256 of the content) and, from :data:`GZIP_MIN`
    bytes, its gzip'ed form (when smaller)."""
    tag = hashlib.sha256(data).hexdigest()[:32]
    gz = gzip.compress(data, compresslevel=9, mtime=0) if len(data) >= GZIP_MIN else None
    return Body(data, gz if gz is not None and len(gz) < len(data) else None, f'"{tag}"',
                media_type)


def json_body(obj: Any) -> Body:
    """A JSON answer as Starlette's JSONResponse would write it, with its validator."""
    data = json.dumps(obj, ensure_ascii=False, allow_nan=False, indent=None,
                      separators=(",", ":")).encode("utf-8")
    return body(data, "application/json")


def _matches(if_none_match: str, etag: str) -> bool:
    """Whether ``If-None-Match`` names ``etag`` (either representation: the tags of the
    identity and the gzip'ed body are the same content)."""
    tags = {t.strip().removeprefix("W/").replace('-gz"', '"') for t in if_none_match.split(",")}
    return "*" in tags or etag in tags


def validated(headers: Headers, b: Body, cache_control: str = CACHE_CONTROL) -> Response:
    """``b`` as the request with ``headers`` should get it: 304 when its
    ``If-None-Match`` names the ETag, else the body, gzip'ed if accepted and worth it."""
    zipped = b.gz is not None and "gzip" in headers.get("accept-encoding", "")
    etag = b.etag[:-1] + '-gz"' if zipped else b.etag
    out = {"ETag": etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    if _matches(headers.get("if-none-match", ""), b.etag):
        return Response(status_code=304, headers=out)
    if zipped:
        assert b.gz is not None
        return Response(b.gz, media_type=b.media_type,
                        headers={**out, "Content-Encoding": "gzip"})
    return Response(b.data, media_type=b.media_type, headers=out)


class Compression:
    """Every answer of :data:`GZIP_MIN` bytes and more gzip'ed for a client that accepts
    it (Starlette's GZipMiddleware), never a Server-Sent Events stream: a request that
    accepts ``text/event-stream`` goes by (the compressor would hold the events back),
    as does, in Starlette's own middleware, any answer of that type."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=GZIP_MIN, compresslevel=6)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and \
                "text/event-stream" in Headers(scope=scope).get("accept", ""):
            await self.app(scope, receive, send)
        else:
            await self.gzip(scope, receive, send)


@lru_cache(maxsize=256)
def _file_body(path: str, mtime_ns: int, size: int) -> Body:
    """A page file's body, kept while its modification time and size stay the same."""
    media = MEDIA_TYPES.get(os.path.splitext(path)[1]) or \
        mimetypes.guess_type(path)[0] or "application/octet-stream"
    return body(Path(path).read_bytes(), media)


def file_body(path: Path) -> Body:
    st = path.stat()
    return _file_body(str(path), st.st_mtime_ns, st.st_size)


class PageFiles(StaticFiles):
    """The page's files (``/static``) with a content-hash ETag, revalidated on every use
    (``no-cache``) and gzip'ed: :func:`validated`."""

    def file_response(self, full_path: Any, stat_result: os.stat_result, scope: Scope,
                      status_code: int = 200) -> Response:
        b = _file_body(str(full_path), stat_result.st_mtime_ns, stat_result.st_size)
        return validated(Headers(scope=scope), b)


@router.get("/", include_in_schema=False)
async def index(request: Request) -> Response:
    """The web page."""
    return validated(request.headers, file_body(STATIC / "index.html"))


# Not in the OpenAPI document (the page's own route; docs/web.md describes it), so the
# schema tests' list of operations stays that of docs/api.md.
@router.get("/v1/catalogue", tags=["web"], include_in_schema=False)
async def catalogue(request: Request) -> Response:
    """The component catalogue the service plays with, as the web page draws it: map
    layout (regions, borders, bases), company tracks, cards, books, the display, the book
    display, bonus spaces and tiles, the diamond and bookkeeping tracks. Read-only; an
    ETag from its content (``If-None-Match``: 304)."""
    return validated(request.headers, catalogue_body(engine.default_catalogue()))


@cache
def catalogue_body(cat: Catalogue) -> Body:
    """:func:`catalogue_json` as a body with its validator (computed once)."""
    return json_body(catalogue_json(cat))


# -- the catalogue as JSON ---------------------------------------------------------------

def reward_json(r: Reward, cat: Catalogue) -> dict[str, Any]:
    """The non-zero parts of a reward; ``track_company`` is null for "the company in
    context" (a region pays steps on the expanding company's track)."""
    out: dict[str, Any] = {}
    for key, value in (("pounds", r.pounds), ("diamonds", r.diamonds),
                       ("bookkeeping", r.bookkeeping), ("track", r.track_steps),
                       ("remove_post", r.remove_posts)):
        if value:
            out[key] = value
    if r.track_steps:
        out["track_company"] = cat.companies[r.track_company].id if r.track_company >= 0 \
            else None
    return out


def _company_id(cat: Catalogue, index: int) -> str | None:
    return cat.companies[index].id if index >= 0 else None


def _cards(cat: Catalogue) -> dict[str, dict[str, Any]]:
    out = {}
    for c in cat.cards:
        out[c.name] = {
            "name": c.name, "letter": c.letter, "kind": c.kind,
            "good": MEASURES[c.good] if c.good >= 0 else None,
            "value": c.value, "crate": c.crate,
            "share": _company_id(cat, c.share), "company": _company_id(cat, c.company),
            "seat": c.seat + 1 if c.seat >= 0 else None, "code": c.code,
        }
    return out


def _bonus_spaces(cat: Catalogue) -> list[dict[str, Any]]:
    track_at = {b: (cat.tracks[t].id, pos) for t, pos, b in cat.track_bonus_at}
    out = []
    for sp in cat.bonus_spaces:
        entry: dict[str, Any] = {"id": sp.id, "kind": sp.kind, "cost": sp.cost,
                                 "reward": reward_json(sp.reward, cat),
                                 "board": sp.index < cat.board_bonus_count}
        if sp.kind == "majority":
            entry["measure"] = MEASURES[sp.measure]
            entry["lines"] = [{"min": ln.minimum, "company": cat.companies[ln.company].id,
                               "steps": ln.steps, "reward": reward_json(ln.reward, cat)}
                              for ln in sp.lines]
        if sp.kind == "bonus_tile":
            entry["tile"] = cat.cards[sp.tile].name
        if sp.kind == "remove_card":
            entry["bonus_pounds"] = sp.bonus_pounds
        if sp.index in track_at:
            entry["track"], entry["position"] = track_at[sp.index]
        out.append(entry)
    return out


@cache
def _catalogue_json(cat: Catalogue) -> dict[str, Any]:
    return build_catalogue_json(cat)


def build_catalogue_json(cat: Catalogue) -> dict[str, Any]:
    """The catalogue as the page draws it, computed afresh (for a catalogue being edited,
    which is not kept: :func:`catalogue_json` keeps what it computes)."""
    companies = [{"id": c.id, "name": c.name, "colour": c.colour, "edge": c.edge}
                 for c in cat.companies]
    borders = sorted({(min(a, b), max(a, b), cost)
                      for a, near in enumerate(cat.neighbours) for b, cost in near})
    regions, tracks = _regions(cat), _tracks(cat)
    display, book_spaces = _display_spaces(cat), _book_spaces(cat)
    return {
        "schema": SCHEMA,
        "reconstruction": cat.reconstruction,
        "companies": companies,
        "goods": list(MEASURES[:3]),
        "measures": list(MEASURES),
        "regions": regions,
        "borders": [[cat.regions[a].id, cat.regions[b].id, cost] for a, b, cost in borders],
        "base": {"columns": cat.base_columns, "spaces": cat.base_spaces,
                 "coins": list(cat.base_coins)},
        "base_borders": {c.id: [[cat.regions[r].id, cost] for r, cost in near]
                         for c, near in zip(cat.companies, cat.base_neighbours, strict=True)},
        "base_layout": base_layout(cat),
        "tracks": tracks,
        "track_cards": [[cat.tracks[a].id, cat.tracks[b].id] for a, b in cat.track_cards],
        "first_game_tracks": {c.id: cat.tracks[t].id
                              for c, t in zip(cat.companies, cat.first_game_tracks,
                                              strict=True)},
        "cards": _cards(cat),
        "action_cards": [cat.cards[c].name for c in cat.action_cards],
        "card_letters": list(cat.letters),
        "tile_cards": [cat.cards[c].name for c in cat.tile_cards],
        "books": {b.name: {"name": b.name, "letter": b.letter,
                           "needs": [[MEASURES[m], n] for m, n in b.needs],
                           "reward": reward_json(b.reward, cat)} for b in cat.books},
        "display": {"columns": list(cat.display_columns), "rows": cat.display_rows,
                    "spaces": display},
        "book_display": {"columns": list(cat.book_columns), "rows": cat.book_rows,
                         "spaces": book_spaces, "costs": dict(cat.book_costs)},
        "round_coins": {str(n): list(v) for n, v in cat.round_coins.items()},
        "starting_tiles": [{"id": t.id, "cards": list(t.cards),
                            "bonus": reward_json(t.bonus, cat)} for t in cat.starting_tiles],
        "bonus_markers": {"per_colour": cat.markers_per_colour,
                          "start": {str(n): v for n, v in cat.markers_start.items()}},
        "bonus_spaces": _bonus_spaces(cat),
        "bonus_tiles": [{"id": t.id, "kind": t.kind, "value": t.value,
                         "card": cat.cards[t.card].name} for t in cat.bonus_tiles],
        "diamond_track": {"values": list(cat.diamond_values), "slot_unlock": cat.diamond_slot,
                          "end_pounds": cat.diamond_end_pounds},
        "bookkeeping_track": {"values": list(cat.bookkeeping_values),
                              "crossed_a": sorted(cat.crossed_a),
                              "slot_unlock": cat.bookkeeping_slot,
                              "end_pounds": cat.bookkeeping_end_pounds},
        "merchants": {"plain": {"steps": cat.plain_merchant[0],
                                "pounds": cat.plain_merchant[1]},
                      "company": {"steps": cat.company_merchant[0],
                                  "pounds": cat.company_merchant[1],
                                  "mines_per_step": cat.company_merchant[2]}},
        "player": {"start_pounds": cat.start_pounds, "slots": cat.base_slots,
                   "max_slots": cat.max_slots},
    }


def _regions(cat: Catalogue) -> list[dict[str, Any]]:
    return [{"id": r.id, "name": r.name, "reward": reward_json(r.reward, cat),
             "mines": r.mines,
             "enclave_of": cat.regions[r.enclave_of].id if r.enclave_of >= 0 else None,
             "centre": list(r.centre), "polygon": [list(p) for p in r.polygon]}
            for r in cat.regions]


def _tracks(cat: Catalogue) -> dict[str, dict[str, Any]]:
    tracks = {}
    for t in cat.tracks:
        tracks[t.id] = {
            "id": t.id, "end_pounds": t.end_pounds, "shares_at": list(t.shares_at),
            "spaces": [{"shares": sp.shares, "capital": sp.capital,
                        "special": reward_json(sp.special, cat),
                        "bonus": reward_json(sp.bonus, cat) if sp.bonus is not None else None,
                        "extra_marker": sp.extra_marker} for sp in t.spaces],
        }
    return tracks


def _display_spaces(cat: Catalogue) -> list[dict[str, Any]]:
    # Each space's price of every card that can lie there (the engine's one definition).
    prices = engine.tables(cat).display_price
    return [{"name": cat.display_space_name(i), "column": i // cat.display_rows,
             "row": i % cat.display_rows, "modifier": m,
             "prices": {cat.cards[c].name: prices[i][c] for c in cat.action_cards}}
            for i, m in enumerate(cat.display_modifiers)]


def _book_spaces(cat: Catalogue) -> list[dict[str, Any]]:
    return [{"name": cat.book_space_name(i), "column": i // cat.book_rows,
             "row": i % cat.book_rows, "number": cat.book_columns[i // cat.book_rows],
             "letter": letter, "cost": cat.book_costs[letter]}
            for i, letter in enumerate(cat.book_space_letter)]


def catalogue_json(cat: Catalogue) -> dict[str, Any]:
    """The catalogue as the page uses it (computed once per catalogue)."""
    return _catalogue_json(cat)


# -- where the bases go ---------------------------------------------------------------------

Point = tuple[float, float]
Rect = tuple[float, float, float, float]  # x, y, width, height


def _inside(p: Point, poly: tuple[Point, ...]) -> bool:
    x, y = p
    hit = False
    j = len(poly) - 1
    for i in range(len(poly)):
        xi, yi = poly[i]
        xj, yj = poly[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            hit = not hit
        j = i
    return hit


def _overlaps(rect: Rect, polys: list[tuple[Point, ...]], margin: float) -> bool:
    x, y, w, h = rect
    x, y, w, h = x - margin, y - margin, w + 2 * margin, h + 2 * margin
    for poly in polys:
        if any(x <= px <= x + w and y <= py <= y + h for px, py in poly):
            return True
    steps = 6
    for i in range(steps + 1):
        for j in range(steps + 1):
            p = (x + w * i / steps, y + h * j / steps)
            if any(_inside(p, poly) for poly in polys):
                return True
    return False


def _apart(a: Rect, b: Rect, margin: float) -> bool:
    return (a[0] + a[2] + margin <= b[0] or b[0] + b[2] + margin <= a[0]
            or a[1] + a[3] + margin <= b[1] or b[1] + b[3] + margin <= a[1])


def _steps(lo: float, hi: float, step: float) -> list[float]:
    return [lo + step * i for i in range(int((hi - lo) // step) + 1)]


def base_layout(cat: Catalogue) -> dict[str, dict[str, Any]]:
    """Where each company's base is drawn, in the map's units: a free spot (off every
    region) as near as possible to the regions it borders. ``front`` says which side of
    the rectangle holds the front spaces (the ones nearest the map): ``top``/``bottom``.

    The rectangle holds the columns side by side with the company's name on the side
    away from the map."""
    layout = _base_layout(cat.base_columns, cat.base_spaces,
                          tuple((r.centre, r.polygon) for r in cat.regions),
                          cat.base_neighbours, tuple(c.id for c in cat.companies))
    return {c: {**b, "towards": list(b["towards"])} for c, b in layout.items()}


# Keyed by what the layout depends on: a catalogue being edited (a new one at every
# check) keeps its map's layout as long as the map is unchanged.
@lru_cache(maxsize=32)
def _base_layout(cols: int, spaces: int,
                 regions: tuple[tuple[tuple[float, float], tuple[tuple[float, float], ...]],
                                ...],
                 base_neighbours: tuple[tuple[tuple[int, int], ...], ...],
                 company_ids: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    width = cols * BASE_SPACE + (cols - 1) * BASE_GAP
    height = spaces * BASE_SPACE + BASE_LABEL
    polys = [poly for _, poly in regions]
    placed: dict[str, Rect] = {}
    out: dict[str, dict[str, Any]] = {}
    # Companies with the fewest bordering regions first (they are the hardest to place).
    order = sorted(range(len(company_ids)), key=lambda c: len(base_neighbours[c]))
    for c in order:
        company = company_ids[c]
        near = [regions[r][0] for r, _ in base_neighbours[c]] or [(500.0, 500.0)]
        mx = sum(p[0] for p in near) / len(near)
        my = sum(p[1] for p in near) / len(near)
        candidates: list[tuple[float, Rect]] = []
        x0, y0, x1, y1 = FRAME
        for y in _steps(y0, y1 - height, 10):
            for x in _steps(x0, x1 - width, 10):
                cx, cy = x + width / 2, y + height / 2
                cost = sum(math.hypot(cx - px, cy - py) for px, py in near) / len(near)
                candidates.append((cost, (x, y, width, height)))
        candidates.sort()
        rect = next((r for _, r in candidates
                     if all(_apart(r, o, 16) for o in placed.values())
                     and not _overlaps(r, polys, 8)),
                    (x0 + (width + 20) * c, y0, width, height))  # nowhere free: the top edge
        placed[company] = rect
        front = "bottom" if rect[1] + rect[3] / 2 < my else "top"
        out[company] = {"x": rect[0], "y": rect[1], "width": rect[2], "height": rect[3],
                        "space": BASE_SPACE, "gap": BASE_GAP, "label": BASE_LABEL,
                        "front": front, "towards": [round(mx, 1), round(my, 1)]}
    return {c: out[c] for c in company_ids}
