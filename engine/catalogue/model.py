"""The catalogue's component records: frozen dataclasses for companies, regions, tracks,
cards, books, tiles and bonus spaces, and the index constants the rules share. They are
plain values with no checks of their own: the section readers of ``engine.catalogue``
build them from the values they checked, and the rules read them through ``Catalogue``."""

from __future__ import annotations

from dataclasses import dataclass

GOODS = ("coffee", "bananas", "cotton")
# Book needs and majority measures: the three goods, helmets, bookkeeping points.
MEASURES = ("coffee", "bananas", "cotton", "expansion", "bookkeeping")
MEASURE_EXPANSION = 3
MEASURE_BOOKKEEPING = 4

KIND_GOODS = "goods"
KIND_EXPANSION = "expansion"
KIND_BOOKKEEPER = "bookkeeper"
KIND_MERCHANT = "merchant"
KIND_SHARE = "share"
KIND_PLUS1 = "plus1_goods"


@dataclass(frozen=True, slots=True)
class Reward:
    """What a region, book, track space, bonus line or tile pays.

    ``track_company`` is -1 when the steps go to the company in context (a region
    pays steps on the track of the company that expanded into it).
    """

    pounds: int = 0
    diamonds: int = 0
    bookkeeping: int = 0
    track_steps: int = 0
    track_company: int = -1
    remove_posts: int = 0

    def is_empty(self) -> bool:
        return not (
            self.pounds or self.diamonds or self.bookkeeping or self.track_steps
            or self.remove_posts
        )


@dataclass(frozen=True, slots=True)
class Company:
    index: int
    id: str
    name: str
    colour: str
    edge: str


@dataclass(frozen=True, slots=True)
class Region:
    index: int
    id: str
    name: str
    reward: Reward
    mines: int
    enclave_of: int  # -1 when not an enclave
    centre: tuple[float, float]
    polygon: tuple[tuple[float, float], ...]


@dataclass(frozen=True, slots=True)
class TrackSpace:
    shares: int
    capital: int
    special: Reward  # paid once on reaching the space; empty when none
    bonus: Reward | None  # a track bonus space's reward, None when not one
    extra_marker: bool


@dataclass(frozen=True, slots=True)
class Track:
    index: int
    id: str
    spaces: tuple[TrackSpace, ...]
    end_pounds: int
    shares_at: tuple[int, ...]  # shares held with the marker on each space

    @property
    def last(self) -> int:
        return len(self.spaces) - 1


@dataclass(frozen=True, slots=True)
class CardType:
    """One physical card (or bonus tile acting as a card)."""

    index: int
    name: str
    letter: str  # A..E for action cards, "S" starting, "T" bonus tile
    kind: str
    good: int  # 0..2 for goods, else -1
    value: int  # units, helmets, bookkeeping points, or merchant base steps
    crate: int
    share: int  # company of the share icon, -1 when none
    company: int  # merchant's / share card's company, -1 when none (plain merchant)
    seat: int  # 0-based owner seat of starting cards, -1 otherwise
    code: str  # starting-card code (shared by all seats), else the name


@dataclass(frozen=True, slots=True)
class Book:
    index: int
    name: str
    letter: str
    needs: tuple[tuple[int, int], ...]  # (measure, amount)
    reward: Reward


@dataclass(frozen=True, slots=True)
class StartingTile:
    id: int
    cards: tuple[str, str, str]  # starting-card codes
    bonus: Reward


@dataclass(frozen=True, slots=True)
class MajorityLine:
    minimum: int
    company: int
    steps: int
    reward: Reward


@dataclass(frozen=True, slots=True)
class BonusSpace:
    """A board bonus space (index < len(board spaces)) or a company-track bonus space."""

    index: int
    id: str
    kind: str  # first_player, buy_card, remove_card, majority, bonus_tile, track
    cost: int
    reward: Reward
    measure: int  # majority: index into MEASURES
    lines: tuple[MajorityLine, ...]
    tile: int  # bonus_tile: the tile's card index
    bonus_pounds: int  # remove_card: pounds on top of the crate value


@dataclass(frozen=True, slots=True)
class BonusTile:
    id: str
    kind: str
    value: int
    card: int  # its card index
