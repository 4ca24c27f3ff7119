"""The map of the catalogue, checked and built in one walk: the company bases, the 24
regions (indexed by their place in the file), their borders and the borders of each
base. The regions are read first; the enclaves, the borders and the reach from every
base are checked after them, since those rules need the whole map."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any, NamedTuple

from engine.catalogue.checks import (
    COMPANY_IDS,
    as_dict,
    as_int,
    as_list,
    as_str,
    dict_field,
    exact_field,
    fail,
    field,
    int_field,
    join,
    list_field,
    point,
    reward_field,
    str_field,
    unique,
)
from engine.catalogue.model import Region, Reward

REGION_REWARD_KEYS: tuple[str, ...] = ("pounds", "diamonds", "track", "bookkeeping")
REGION_COUNT = 24
ENCLAVE_COUNT = 2
BASE_COLUMNS = 3
BASE_SPACES = 5
REAR_COINS = 2

Point = tuple[float, float]


class Base(NamedTuple):
    columns: int
    spaces: int
    coins: tuple[int, ...]  # front to rear


class Map(NamedTuple):
    regions: tuple[Region, ...]
    neighbours: tuple[tuple[tuple[int, int], ...], ...]  # region -> ((region, cost), ...)
    base_neighbours: tuple[tuple[tuple[int, int], ...], ...]  # company -> ((region, cost),)


class _RegionFace(NamedTuple):
    """A checked region before the enclaves are known."""

    id: str
    name: str
    reward: Reward
    mines: int
    enclave_of: str | None
    centre: Point
    polygon: tuple[Point, ...]


def read_base(root: dict[str, Any]) -> Base:
    base = dict_field(root, "base", "")
    columns = exact_field(base, "columns", "base", BASE_COLUMNS)
    spaces = exact_field(base, "spaces", "base", BASE_SPACES)
    raw_coins = list_field(base, "coins", "base", BASE_SPACES, "coin counts")
    coins = tuple(as_int(coin, "base.coins", lo=0, key=i) for i, coin in enumerate(raw_coins))
    if coins[-1] != REAR_COINS:
        fail(
            join("base.coins", BASE_SPACES - 1),
            f"the rear space must show {REAR_COINS} coin icons, got {coins[-1]}",
        )
    return Base(int(columns), int(spaces), coins)


def read_map(root: dict[str, Any]) -> Map:
    """Regions, then borders, then base borders (each check needs the ones before)."""
    faces, index = _read_regions(root)
    enclaves = _check_enclaves(faces, index)
    regions = tuple(
        Region(
            index=i,
            id=f.id,
            name=f.name,
            reward=f.reward,
            mines=f.mines,
            enclave_of=index[f.enclave_of] if f.enclave_of else -1,
            centre=f.centre,
            polygon=f.polygon,
        )
        for i, f in enumerate(faces)
    )
    neighbours, linked = _read_borders(root, index, enclaves)
    base_neighbours = _read_base_borders(root, index, enclaves, linked)
    return Map(regions, neighbours, base_neighbours)


def _read_region(obj: dict[str, Any], path: str) -> _RegionFace:
    rid = str_field(obj, "id", path)
    if rid in COMPANY_IDS:
        fail(join(path, "id"), f"region id {rid!r} clashes with a company id")
    name = str_field(obj, "name", path)
    paid = reward_field(obj, "reward", path, REGION_REWARD_KEYS, integer_track=True)
    mines = int_field(obj, "mines", path, lo=0)
    enclave_of = field(obj, "enclave_of", path)
    if enclave_of is not None:
        as_str(enclave_of, path, "enclave_of")
    centre = point(field(obj, "centre", path), path, "centre")
    outline = list_field(obj, "polygon", path)
    if len(outline) < 3:
        fail(join(path, "polygon"), f"expected at least 3 points, got {len(outline)}")
    poly_path = join(path, "polygon")
    polygon = tuple(point(p, poly_path, i) for i, p in enumerate(outline))
    return _RegionFace(rid, name, paid, mines, enclave_of, centre, polygon)


def _read_regions(root: dict[str, Any]) -> tuple[list[_RegionFace], dict[str, int]]:
    """The checked regions and the region index by id."""
    entries = list_field(root, "regions", "", REGION_COUNT, "regions")
    faces: list[_RegionFace] = []
    index: dict[str, int] = {}
    for i, entry in enumerate(entries):
        path = join("regions", i)
        face = _read_region(as_dict(entry, path), path)
        if face.id in index:
            fail(join(path, "id"), f"duplicate region id {face.id!r}")
        index[face.id] = i
        faces.append(face)
    return faces, index


def _check_enclaves(faces: list[_RegionFace], index: dict[str, int]) -> dict[str, str]:
    """The surrounding region by enclave id; checks enclave shapes and region rewards."""
    enclaves: dict[str, str] = {}
    for i, face in enumerate(faces):
        surrounding = face.enclave_of
        if surrounding is None:
            continue
        path = join(join("regions", i), "enclave_of")
        if surrounding not in index:
            fail(path, f"unknown region {surrounding!r}")
        if surrounding == face.id:
            fail(path, "a region cannot be its own enclave")
        if faces[index[surrounding]].enclave_of is not None:
            fail(path, f"surrounding region {surrounding!r} is itself an enclave")
        if surrounding in enclaves.values():
            fail(path, f"region {surrounding!r} already surrounds another enclave")
        enclaves[face.id] = surrounding
    if len(enclaves) != ENCLAVE_COUNT:
        fail("regions", f"expected {ENCLAVE_COUNT} enclaves, got {len(enclaves)}")
    for enclave, surrounding in enclaves.items():
        outline = faces[index[surrounding]].polygon
        for j, vertex in enumerate(faces[index[enclave]].polygon):
            if not _inside(vertex, outline):
                path = join(join(join("regions", index[enclave]), "polygon"), j)
                fail(path, f"enclave vertex lies outside its surrounding region {surrounding!r}")
    around = set(enclaves.values())
    for i, face in enumerate(faces):
        path = join(join("regions", i), "reward")
        empty = face.reward.is_empty()
        if face.id in around and not empty:
            fail(path, "a region surrounding an enclave must have no reward")
        if face.id not in around and empty:
            fail(path, "only the 2 regions surrounding an enclave may have no reward")
    return enclaves


def _read_borders(
    root: dict[str, Any], index: dict[str, int], enclaves: dict[str, str]
) -> tuple[tuple[tuple[tuple[int, int], ...], ...], list[set[int]]]:
    """Neighbours with costs by region, and the plain neighbour sets (for reach checks)."""
    borders = list_field(root, "borders", "")
    adjacency: list[list[tuple[int, int]]] = [[] for _ in index]
    linked: list[set[int]] = [set() for _ in index]
    seen: dict[frozenset[str], int] = {}
    for i, entry in enumerate(borders):
        path = join("borders", i)
        triple = as_list(entry, path, 3, "items ([region, region, cost])")
        for k in (0, 1):
            if triple[k] not in index:
                fail(path, f"unknown region {triple[k]!r}")
        a, b = triple[0], triple[1]
        if a == b:
            fail(path, f"region {a!r} cannot border itself")
        cost = as_int(triple[2], path, lo=1, hi=2, key=2)
        pair = frozenset((a, b))
        if pair in seen:
            fail(path, f"duplicate border {a}-{b} (already borders[{seen[pair]}])")
        seen[pair] = i
        for x, y in ((a, b), (b, a)):
            if x in enclaves and enclaves[x] != y:
                fail(
                    path,
                    f"enclave {x!r} may border only its surrounding region "
                    f"{enclaves[x]!r}, not {y!r}",
                )
        ia, ib = index[a], index[b]
        adjacency[ia].append((ib, cost))
        adjacency[ib].append((ia, cost))
        linked[ia].add(ib)
        linked[ib].add(ia)
    for enclave, surrounding in enclaves.items():
        if index[surrounding] not in linked[index[enclave]]:
            fail(
                join("regions", index[enclave]),
                f"enclave {enclave!r} has no border with its surrounding region {surrounding!r}",
            )
    reached = _reach([0], linked)
    for rid, i in index.items():
        if i not in reached:
            fail(join("regions", i), f"region {rid!r} is not connected to the rest of the map")
    return tuple(tuple(sorted(a)) for a in adjacency), linked


def _read_base_borders(
    root: dict[str, Any],
    index: dict[str, int],
    enclaves: dict[str, str],
    linked: list[set[int]],
) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The regions (with costs) each company's base borders, in company order."""
    bases = dict_field(root, "base_borders", "")
    for key in bases:
        if key not in COMPANY_IDS:
            fail(join("base_borders", key), "unknown company")
    out: list[tuple[tuple[int, int], ...]] = []
    for company in COMPANY_IDS:
        path = join("base_borders", company)
        entries = list_field(bases, company, "base_borders")
        if not entries:
            fail(path, "a base must border at least one region")
        touched: list[str] = []
        edges: list[tuple[int, int]] = []
        for i, entry in enumerate(entries):
            sub = join(path, i)
            region, cost = as_list(entry, sub, 2, "items ([region, cost])")
            if region not in index:
                fail(sub, f"unknown region {region!r}")
            if region in enclaves:
                fail(sub, f"a base cannot border the enclave {region!r}")
            edges.append((index[region], as_int(cost, sub, lo=1, hi=2, key=1)))
            touched.append(region)
        unique(touched, path, "region")
        reached = _reach([i for i, _cost in edges], linked)
        missing = [rid for rid, i in index.items() if i not in reached]
        if missing:
            fail(path, f"region {missing[0]!r} cannot be reached from this base")
        out.append(tuple(edges))
    return tuple(out)


def _inside(point: Point, polygon: tuple[Point, ...]) -> bool:
    """Ray-casting point-in-polygon test (points on the outline count as outside-ish)."""
    x, y = point
    result = False
    count = len(polygon)
    for i in range(count):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % count]
        if (y1 > y) != (y2 > y):
            x_cross = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < x_cross:
                result = not result
    return result


def _reach(start: Iterable[int], linked: list[set[int]]) -> set[int]:
    """Every region reachable over borders from the ``start`` regions."""
    seen = set(start)
    queue = deque(seen)
    while queue:
        node = queue.popleft()
        for other in linked[node]:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return seen
