"""``mombasa catalogue``: write, check, compare and show component catalogue files, so
that an owner of the printed game can transcribe their own copy (docs/catalogue.md,
"Transcribe your own copy").

    mombasa catalogue init my-copy.json           # the reconstruction, with a note per section
    mombasa catalogue check my-copy.json          # valid? a summary, or the first fault's path
    mombasa catalogue diff default my-copy.json   # every value that differs, by JSON path
    mombasa catalogue show my-copy.json books     # the components as tables

``default`` names the shipped catalogue (engine/data/catalogue.json) wherever a file is
read. Comments are object keys starting with ``//`` (the loader drops them). Exit codes:
``check`` 0 valid / 1 not; ``diff`` 0 equal / 1 different / 2 a file does not load;
``show`` 1 when the file does not load; ``init`` 2 when it would overwrite a file; 2 for a
bad argument.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

import engine

catalogue_app = typer.Typer(
    add_completion=False, no_args_is_help=True,
    help="The component catalogue: write a template, check, compare and show a file.")

# The shipped reconstruction. There is no public engine name for its path (engine's
# ``default_catalogue()`` follows MOMBASA_CATALOGUE), so it is found beside the package.
SHIPPED = Path(engine.__file__).resolve().parent / "data" / "catalogue.json"
DEFAULT_WORD = "default"
COMMENT = "//"  # the loader's comment prefix (see engine.Catalogue.without_comments)
SECTIONS = ("regions", "tracks", "cards", "books", "bonus", "player-tracks")

FileArg = Annotated[str, typer.Argument(
    help="A catalogue JSON file, or 'default' for the shipped one.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


# --------------------------------------------------------------------------- loading


@dataclass
class Problem(Exception):
    """Why a file is not a catalogue: kind is missing, unreadable, not-json or invalid;
    path is the JSON path of the fault (invalid only)."""

    file: str
    kind: str
    message: str
    path: str | None = None
    line: int | None = None
    column: int | None = None
    excerpt: str = ""

    def text(self) -> str:
        if self.kind == "invalid":
            where = f"{self.path}: " if self.path else ""
            return (f"{self.file} is not a valid catalogue; its first fault, by JSON path:\n"
                    f"{where}{self.message}")
        return f"{self.file}: {self.message}" + (f"\n{self.excerpt}" if self.excerpt else "")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "path": self.path, "message": self.message}
        if self.line is not None:
            out.update(line=self.line, column=self.column)
        return out


@dataclass
class Loaded:
    label: str  # the file as named on the command line ("default" shown as such)
    file: Path
    raw: Any  # the parsed file, comments dropped
    cat: engine.Catalogue


def _file_of(spec: str) -> tuple[str, Path]:
    if spec == DEFAULT_WORD:
        return "default (the shipped reconstruction)", SHIPPED
    return spec, Path(spec)


def load(spec: str) -> Loaded:
    """Read, parse and check a catalogue file; a ``Problem`` says why it is not one."""
    label, path = _file_of(spec)
    if not path.exists():
        hint = (f" (write a template with: mombasa catalogue init {spec})"
                if spec != DEFAULT_WORD else "")
        raise Problem(label, "missing", f"no such file{hint}")
    if path.is_dir():
        raise Problem(label, "unreadable", "a directory, not a catalogue file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise Problem(label, "not-json", "not JSON: not a UTF-8 text file") from None
    except OSError as exc:
        raise Problem(label, "unreadable", f"cannot read it: {exc.strerror or exc}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        lines = text.splitlines() or [""]
        shown = lines[min(exc.lineno, len(lines)) - 1]
        excerpt = f"  {exc.lineno} | {shown}\n  {' ' * len(str(exc.lineno))} | " \
                  f"{' ' * (exc.colno - 1)}^"
        raise Problem(label, "not-json",
                      f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                      line=exc.lineno, column=exc.colno, excerpt=excerpt) from None
    try:
        cat = engine.load_catalogue(path)
    except engine.CatalogueError as exc:
        fault, sep, message = str(exc).partition(": ")
        raise Problem(label, "invalid", message if sep else str(exc),
                      path=fault if sep else None) from None
    except Exception as exc:  # a loader bug must still not end in a traceback
        raise Problem(label, "invalid", f"the loader failed: {type(exc).__name__}: {exc}",
                      path=None) from None
    return Loaded(label, path, engine.Catalogue.without_comments(raw), cat)


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=code)


def _emit_json(payload: dict[str, Any]) -> None:
    json.dump(payload, sys.stdout, indent=1)
    sys.stdout.write("\n")


def _load_or_exit(spec: str, code: int) -> Loaded:
    try:
        return load(spec)
    except Problem as problem:
        _fail(problem.text(), code)


# --------------------------------------------------------------------------- init

# Per top-level key: what it is, where to read it on the printed components, and which
# values are the reconstruction's. Written into the template as "// <key>" just before
# the key; the component names are the engine's (docs/catalogue.md).
NOTES: dict[str, tuple[str, str, str]] = {
    "reconstruction": (
        "true while any value below is still the reconstruction's.",
        "not printed anywhere: set it to false, and rewrite the note, once every value "
        "below is your copy's.",
        "the flag itself: true in the shipped file."),
    "companies": (
        "the four trading companies, in this fixed order.",
        "the company colours and the board edge of each base.",
        "nothing: id, colour and edge are fixed (the loader insists on them); the names are "
        "the game's four cities."),
    "base": (
        "each company's base: 3 columns of 5 trading-post spaces; coins = coin icons of "
        "each space, front (nearest the map) to rear.",
        "a company base on the board edge.",
        "the coin icons of the four front spaces (columns, spaces and the rear 2 are fixed)."),
    "regions": (
        "the 24 regions of the map: reward icons (pounds, diamonds, track steps for the "
        "expanding company, bookkeeping), mine icons, enclave_of (the surrounding region "
        "of an enclave, else null). centre and polygon only draw the web board.",
        "the map of the main board, region by region.",
        "all of it: ids, names, rewards, mines and layout (24 regions, 2 enclaves and the "
        "reward-less regions around the enclaves are fixed)."),
    "borders": (
        "every pair of neighbouring regions and the line between them: 1 single, 2 double.",
        "the lines between regions on the map.",
        "all of them."),
    "base_borders": (
        "the regions each base touches, with the line cost (1 or 2).",
        "where each base meets the map.",
        "all of them."),
    "tracks": (
        "the eight company tracks (A1..D2), one entry per space from the start space: "
        "shares (the share-icon count shown), capital (pounds of a capital call), special "
        "(a one-off pounds/diamonds/bookkeeping/remove_post space), bonus (a track bonus "
        "space's reward), extra_marker (B2 only); end_pounds per step beyond the end.",
        "the four double-sided company-track cards: side 1 and side 2 of card A, B, C, D.",
        "every space and end_pounds (the ids, the one extra marker on B2, an empty start "
        "space and never-decreasing share icons are fixed)."),
    "track_cards": (
        "which two track sides share a card.",
        "the two sides of each track card.",
        "nothing to change unless your cards pair the sides differently."),
    "first_game_tracks": (
        "the side each company uses in the first game.",
        "the rulebook's first-game setup.",
        "all four."),
    "cards": (
        "the cards: starting (the 9 every colour starts with, by the engine's code), "
        "seat_expansion (each colour's own expansion-1 card), action (the 44 cards of the "
        "A-E stacks): kind, good, value (units, helmets or bookkeeping points), crate (the "
        "crate value printed on the card), share (the company of a share icon, else null).",
        "the cards themselves; sort the action cards by letter A-E first.",
        "every card's values (the counts A 9, B 16, C 11, D 4, E 4, the five diamond "
        "merchants, the 8 single-share D/E cards and expansion values 1-3 are fixed)."),
    "display": (
        "the price modifiers of the card display, modifiers[column][row], columns L M R.",
        "the card display on the main board.",
        "the twelve modifiers (3 columns x 4 rows is fixed)."),
    "books": (
        "the 72 books (A 24, B 24, C 24): needs (1-2 of coffee, bananas, cotton, "
        "expansion, bookkeeping, each with its amount) and reward.",
        "the books, sorted by letter.",
        "every need and reward (the counts per letter are fixed)."),
    "book_display": (
        "the book display's columns (round numbers), letters and costs.",
        "the book display on the main board.",
        "nothing: every value is fixed by the rules (the loader checks them)."),
    "round_coins": (
        "coins on round-track spaces 2..7 by player count.",
        "the round track.",
        "nothing: fixed by the rules (the loader checks them)."),
    "starting_tiles": (
        "the 10 starting tiles: the 3 starting cards shown (codes as in cards.starting), "
        "the printed book (checked, not used) and the bonus (track steps or diamonds).",
        "the starting tiles.",
        "all ten tiles (10 tiles of 3 cards are fixed)."),
    "first_game_tiles": (
        "the starting-tile id of each seat in the first game.",
        "the rulebook's first-game setup.",
        "all four."),
    "bonus_markers": (
        "bonus markers per colour and how many each player starts with, by player count.",
        "the rulebook's setup.",
        "the start counts (5 per colour is fixed)."),
    "bonus_spaces": (
        "the board's bonus spaces: first player, buy card (cost), remove card "
        "(bonus_pounds), the majorities (each line: minimum, company steps, extra reward) "
        "and the bonus-tile spaces (cost).",
        "the bonus-space area of the main board.",
        "costs, rewards and majority lines (one first/buy/remove space each and "
        "increasing line minimums are fixed)."),
    "bonus_tiles": (
        "the four bonus tiles and their values.",
        "the bonus tiles.",
        "the values."),
    "diamond_track": (
        "the diamond track: pounds at each space from 0, the space that opens slot 4, "
        "pounds per step beyond the end.",
        "the player board.",
        "all values."),
    "bookkeeping_track": (
        "the ink jar's track: pounds at each space, the crossed-out-A spaces, the space "
        "that opens slot 5, pounds per point with the jar at the end.",
        "the player board.",
        "all values (tuned by measurement, see docs/catalogue.md)."),
    "merchants": (
        "the diamond merchants: plain (steps, pounds), company (steps, pounds, mine icons "
        "per extra step).",
        "the rulebook and the merchant cards.",
        "all values."),
    "player": (
        "starting pounds, printed action slots (3) and the most slots (5).",
        "the rulebook's setup and the player board.",
        "start_pounds (the slots are fixed)."),
}

HEADER = [
    "A Mombasa component catalogue (schema mombasa-catalogue/1), written by "
    "'mombasa catalogue init' from the shipped RECONSTRUCTION: the values are not the "
    "printed ones until you replace them.",
    "Comments: any key starting with // is ignored by the loader, at any depth; keep, "
    "edit or delete them.",
    "Each section's // note says what it is, where to read it and which values are the "
    "reconstruction's. Work top to bottom (the loader reports the first fault in this "
    "order) and run 'mombasa catalogue check FILE' after each section; "
    "'mombasa catalogue diff default FILE' lists what you changed.",
    "See docs/catalogue.md, 'Transcribe your own copy'.",
]

CARD_NOTES = {
    "starting": "9 cards, identical for every colour; keep the codes (starting tiles use "
                "them).",
    "seat_expansion": "one per colour, seat 1..4; later seats show a higher crate.",
    "action": "44 cards: name = letter + number, in the order of your stack.",
}


def template(raw: dict[str, Any]) -> dict[str, Any]:
    """The shipped catalogue with a ``//`` note before each section (and each card list)."""
    out: dict[str, Any] = {COMMENT: HEADER}
    for key, value in raw.items():
        if key in NOTES:
            what, where, guessed = NOTES[key]
            out[f"{COMMENT} {key}"] = [f"What: {what}", f"Where: {where}",
                                       f"Reconstructed: {guessed}"]
        if key == "cards" and isinstance(value, dict):
            cards: dict[str, Any] = {}
            for sub, entries in value.items():
                if sub in CARD_NOTES:
                    cards[f"{COMMENT} {sub}"] = CARD_NOTES[sub]
                cards[sub] = entries
            value = cards
        out[key] = value
    return out


def dumps(value: Any, indent: int = 0, width: int = 96) -> str:
    """JSON with small objects and lists on one line, like the shipped file."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, dict | list) or not value or indent + len(flat) <= width:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 2, width)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def count_values(value: Any) -> int:
    """Leaf values (numbers, strings, booleans, nulls) of a parsed file."""
    if isinstance(value, dict):
        return sum(count_values(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_values(v) for v in value)
    return 1


@catalogue_app.command("init")
def init(
    file: Annotated[Path, typer.Argument(help="The template to write.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite FILE if it exists.")]
    = False,
) -> None:
    """Write a commented template of the shipped reconstruction.

    Each section gets a // note: what it is, where to read it on the printed components
    and which of its values are reconstructed. The template loads exactly as the shipped
    catalogue. An existing FILE is left alone (exit 2) unless --force is given.
    """
    if file.exists() and not force:
        _fail(f"{file} exists; not overwritten (use --force to replace it)")
    if file.is_dir():
        _fail(f"{file} is a directory")
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))
    try:
        file.write_text(dumps(template(raw)) + "\n", encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {file}: {exc.strerror or exc}")
    loaded = _load_or_exit(str(file), 1)  # the template must load like the shipped file
    typer.echo(f"wrote {file}: the shipped reconstruction ({count_values(loaded.raw)} "
               f"values) with a // note on each section.\n"
               f"next: edit it section by section, then: mombasa catalogue check {file}")


# --------------------------------------------------------------------------- check


def summary(cat: engine.Catalogue) -> dict[str, Any]:
    """Counts of a loaded catalogue's components."""
    common, seats = starting_cards(cat)
    board = [s for s in cat.bonus_spaces[:cat.board_bonus_count]]
    lengths = [len(t.spaces) for t in cat.tracks]
    return {
        "regions": len(cat.regions),
        "enclaves": sum(1 for r in cat.regions if r.enclave_of >= 0),
        "borders": sum(len(n) for n in cat.neighbours) // 2,
        "tracks": len(cat.tracks),
        "track_spaces": [min(lengths), max(lengths)],
        "action_cards": dict(sorted(Counter(cat.cards[i].letter
                                            for i in cat.action_cards).items())),
        "starting_cards": len(common),
        "seat_cards": len(seats),
        "books": dict(sorted(Counter(b.letter for b in cat.books).items())),
        "starting_tiles": len(cat.starting_tiles),
        "bonus_tiles": len(cat.bonus_tiles),
        "bonus_spaces": len(board),
        "track_bonus_spaces": len(cat.bonus_spaces) - len(board),
        "reconstruction": cat.reconstruction,
    }


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items())


def summary_text(label: str, s: dict[str, Any]) -> str:
    says = ("It says it is a reconstruction (\"reconstruction\": true), not the printed "
            "values." if s["reconstruction"] else
            "It says it holds the printed values (\"reconstruction\": false).")
    lo, hi = s["track_spaces"]
    text = (f"{label}: a valid catalogue. {s['regions']} regions ({s['enclaves']} enclaves) "
            f"and {s['borders']} borders; {s['tracks']} company tracks of {lo}-{hi} spaces; "
            f"{sum(s['action_cards'].values())} action cards ({_counts(s['action_cards'])}), "
            f"{s['starting_cards']} starting cards and {s['seat_cards']} seat cards; "
            f"{sum(s['books'].values())} books ({_counts(s['books'])}); "
            f"{s['starting_tiles']} starting tiles, {s['bonus_tiles']} bonus tiles, "
            f"{s['bonus_spaces']} board bonus spaces and {s['track_bonus_spaces']} track "
            f"bonus spaces. {says}")
    return textwrap.fill(text, width=88)


@catalogue_app.command("check")
def check(file: FileArg, as_json: JsonOpt = False) -> None:
    """Check a catalogue file: a summary, or its first fault by JSON path.

    Exit 0 when FILE loads, 1 when it does not (missing, not JSON, or invalid: the
    loader's message, JSON path first). --json prints {"ok", "error", "summary"}.
    """
    try:
        loaded = load(file)
    except Problem as problem:
        if as_json:
            _emit_json({"ok": False, "file": problem.file, "error": problem.to_json(),
                        "summary": None})
            raise typer.Exit(code=1) from None
        _fail(problem.text(), 1)
    s = summary(loaded.cat)
    if as_json:
        _emit_json({"ok": True, "file": loaded.label, "error": None, "summary": s})
        return
    typer.echo(summary_text(loaded.label, s))


# --------------------------------------------------------------------------- diff

_ABSENT = object()


@dataclass(frozen=True)
class Difference:
    path: str
    a: Any  # _ABSENT when the key or entry is not in A
    b: Any

    @property
    def section(self) -> str:
        return self.path.split(".", 1)[0].split("[", 1)[0]

    def text(self) -> str:
        return f"{self.path}: {_show(self.a)} -> {_show(self.b)}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "section": self.section}
        if self.a is not _ABSENT:
            out["a"] = self.a
        if self.b is not _ABSENT:
            out["b"] = self.b
        return out


def _show(value: Any) -> str:
    return "(absent)" if value is _ABSENT else json.dumps(value, ensure_ascii=False)


def _join(path: str, key: str | int) -> str:
    """As the loader writes paths: ``books[12].reward.pounds``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _empty(value: Any) -> bool:
    """0, null, false, "", [] or {}: what the loader assumes for a key left out."""
    return value is not _ABSENT and not value


def differences(a: Any, b: Any, path: str = "") -> list[Difference]:
    """Every leaf value that differs, by JSON path, in A's order then B's extra keys. A
    key left out on one side equals an empty value (0, null, false, {}, []) on the other,
    as the loader reads it."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[Difference] = []
        for key in [*a, *(k for k in b if k not in a)]:
            va, vb = a.get(key, _ABSENT), b.get(key, _ABSENT)
            if (va is _ABSENT and _empty(vb)) or (vb is _ABSENT and _empty(va)):
                continue
            out += differences(va, vb, _join(path, key))
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = []
        for i in range(max(len(a), len(b))):
            out += differences(a[i] if i < len(a) else _ABSENT,
                               b[i] if i < len(b) else _ABSENT, _join(path, i))
        return out
    return [] if _same(a, b) else [Difference(path or "$", a, b)]


@catalogue_app.command("diff")
def diff(
    a: Annotated[str, typer.Argument(help="A catalogue file, or 'default'.")],
    b: Annotated[str, typer.Argument(help="A catalogue file, or 'default'.")],
    as_json: JsonOpt = False,
) -> None:
    """Compare two catalogues value by value, by JSON path.

    Both must load. Each difference is shown with its JSON path and both values, grouped
    by section, then counted. Exit 0 when equal, 1 when different, 2 when a file does not
    load.
    """
    first, second = _load_or_exit(a, 2), _load_or_exit(b, 2)
    found = differences(first.raw, second.raw)
    sections = Counter(d.section for d in found)
    if as_json:
        _emit_json({"equal": not found, "a": first.label, "b": second.label,
                    "count": len(found), "sections": dict(sections),
                    "differences": [d.to_json() for d in found]})
    elif not found:
        typer.echo(f"{first.label} and {second.label}: equal in every value "
                   "(0 differences).")
    else:
        noun = "difference" if len(found) == 1 else "differences"
        typer.echo(f"{first.label} -> {second.label}: {len(found)} {noun}")
        for section in sections:
            typer.echo(f"\n{section} ({sections[section]})")
            for d in found:
                if d.section == section:
                    typer.echo(f"  {d.text()}")
    if found:
        raise typer.Exit(code=1)


# --------------------------------------------------------------------------- show


def reward_text(cat: engine.Catalogue, r: engine.Reward, expander: str = "expander") -> str:
    """``2 £, 1 diamond, MOM +2``: a reward's amounts, or ``-``."""
    parts = []
    if r.pounds:
        parts.append(f"{r.pounds} £")
    if r.diamonds:
        parts.append(f"{r.diamonds} diamond{'s' if r.diamonds > 1 else ''}")
    if r.bookkeeping:
        parts.append(f"{r.bookkeeping} bookkeeping")
    if r.track_steps:
        who = cat.companies[r.track_company].id if r.track_company >= 0 else expander
        parts.append(f"{who} +{r.track_steps}")
    if r.remove_posts:
        parts.append(f"remove {r.remove_posts} post{'s' if r.remove_posts > 1 else ''}")
    return ", ".join(parts) or "-"


def _table(title: str, *columns: str, caption: str | None = None) -> Table:
    table = Table(title=title, caption=caption, title_justify="left",
                  caption_justify="left")
    for name in columns:
        table.add_column(name, justify="right" if name in _NUMERIC else "left")
    return table


_NUMERIC = {"#", "mines", "value", "crate", "cost", "end £", "spaces", "seat"}


def starting_cards(cat: engine.Catalogue) -> tuple[list[Any], list[Any]]:
    """The starting cards common to every seat (seat 1's copies) and each seat's own."""
    def face(card: Any) -> tuple[Any, ...]:
        return card.code, card.kind, card.good, card.value, card.crate, card.share

    faces = [{face(cat.cards[i]) for i in seat} for seat in cat.seat_cards]
    shared = set.intersection(*faces) if faces else set()
    common = [cat.cards[i] for i in cat.seat_cards[0] if face(cat.cards[i]) in shared] \
        if cat.seat_cards else []
    own = [cat.cards[i] for seat in cat.seat_cards for i in seat
           if face(cat.cards[i]) not in shared]
    return common, own


def _company(cat: engine.Catalogue, index: int) -> str:
    return cat.companies[index].id if index >= 0 else "-"


def show_regions(cat: engine.Catalogue) -> list[Table]:
    regions = _table("Regions", "#", "id", "name", "reward", "mines", "enclave of",
                     "borders (cost)",
                     caption="reward track steps go to the expanding company; cost 2 is "
                             "a double line")
    for r in cat.regions:
        regions.add_row(str(r.index), r.id, r.name, reward_text(cat, r.reward),
                        str(r.mines), cat.regions[r.enclave_of].id if r.enclave_of >= 0
                        else "-",
                        ", ".join(f"{cat.regions[n].id} {c}" for n, c in cat.neighbours[r.index]))
    coins = " ".join(str(c) for c in cat.base_coins)
    bases = _table("Companies and bases", "id", "name", "colour", "edge", "borders (cost)",
                   caption=f"each base: {cat.base_columns} columns x {cat.base_spaces} "
                           f"spaces, coin icons front to rear: {coins}")
    for c in cat.companies:
        bases.add_row(c.id, c.name, c.colour, c.edge,
                      ", ".join(f"{cat.regions[n].id} {k}" for n, k in
                                cat.base_neighbours[c.index]))
    return [regions, bases]


def show_tracks(cat: engine.Catalogue) -> list[Table]:
    card_of = {t: f"{chr(65 + i)} side {side + 1}" for i, pair in enumerate(cat.track_cards)
               for side, t in enumerate(pair)}
    first = ", ".join(f"{cat.companies[c].id} {cat.tracks[t].id}"
                      for c, t in enumerate(cat.first_game_tracks))
    table = _table("Company tracks", "id", "card", "spaces", "share icons (space:count)",
                   "capital calls", "specials", "bonus spaces", "extra marker", "end £",
                   caption=f"space 0 is the start; first game: {first}")
    for t in cat.tracks:
        s = t.spaces
        table.add_row(
            t.id, card_of.get(t.index, "-"), str(len(s)),
            " ".join(f"{i}:{x.shares}" for i, x in enumerate(s) if x.shares) or "-",
            " ".join(f"{i}:{x.capital} £" for i, x in enumerate(s) if x.capital) or "-",
            "; ".join(f"{i}: {reward_text(cat, x.special)}" for i, x in enumerate(s)
                      if not x.special.is_empty()) or "-",
            "; ".join(f"{i}: {reward_text(cat, x.bonus)}" for i, x in enumerate(s)
                      if x.bonus is not None) or "-",
            " ".join(str(i) for i, x in enumerate(s) if x.extra_marker) or "-",
            str(t.end_pounds))
    return [table]


def _card_row(cat: engine.Catalogue, card: Any, name: str) -> tuple[str, ...]:
    good = engine.MEASURES[card.good] if card.good >= 0 else "-"
    return (name, card.letter, card.kind, good, str(card.value), str(card.crate),
            _company(cat, card.share), _company(cat, card.company))


def show_cards(cat: engine.Catalogue) -> list[Table]:
    columns = ("card", "letter", "kind", "good", "value", "crate", "share icon", "company")
    action = _table("Action cards", *columns,
                    caption="value: units, helmets or bookkeeping points; a merchant's "
                            "steps come from the merchants rule")
    letter = ""
    for i in cat.action_cards:
        card = cat.cards[i]
        if letter and card.letter != letter:
            action.add_section()
        letter = card.letter
        action.add_row(*_card_row(cat, card, card.name))
    common, own = starting_cards(cat)
    starting = _table("Starting cards", *columns, "seat")
    for card in common:
        starting.add_row(*_card_row(cat, card, card.code), "all")
    starting.add_section()
    for card in own:
        starting.add_row(*_card_row(cat, card, card.code), str(card.seat + 1))
    display = _table("Card display (price modifiers)", "row",
                     *cat.display_columns,
                     caption="cards enter on the left and age to the right")
    for row in range(cat.display_rows):
        display.add_row(str(row + 1), *(
            f"{cat.display_modifiers[c * cat.display_rows + row]:+d}"
            for c in range(len(cat.display_columns))))
    return [action, starting, display]


def _needs_text(needs: tuple[tuple[int, int], ...]) -> str:
    return " + ".join(f"{engine.MEASURES[m]} {n}" for m, n in needs) or "-"


def show_books(cat: engine.Catalogue) -> list[Table]:
    books = _table("Books", "book", "letter", "needs", "reward")
    letter = ""
    for b in cat.books:
        if letter and b.letter != letter:
            books.add_section()
        letter = b.letter
        books.add_row(b.name, b.letter, _needs_text(b.needs), reward_text(cat, b.reward))
    costs = ", ".join(f"{k} {v}" for k, v in cat.book_costs.items())
    display = _table("Book display", "column", *(str(c) for c in cat.book_columns),
                     caption=f"bookkeeping points per book: {costs}")
    display.add_row("letter", *(cat.book_space_letter[c * cat.book_rows]
                                for c in range(len(cat.book_columns))))
    for players, coins in cat.round_coins.items():
        display.add_row(f"round coins, {players} players", *(str(c) for c in coins))
    return [books, display]


def _space_detail(cat: engine.Catalogue, s: Any) -> str:
    if s.kind == "majority":
        lines = "; ".join(
            f"{line.minimum}+: {cat.companies[line.company].id} +{line.steps}"
            + ("" if line.reward.is_empty() else f", {reward_text(cat, line.reward)}")
            for line in s.lines)
        return f"{engine.MEASURES[s.measure]}: {lines}"
    if s.kind == "bonus_tile":
        return f"tile {cat.cards[s.tile].code}"
    if s.kind == "remove_card":
        return f"crate + {s.bonus_pounds} £"
    return reward_text(cat, s.reward) if not s.reward.is_empty() else "-"


def show_bonus(cat: engine.Catalogue) -> list[Table]:
    spaces = _table("Bonus spaces", "#", "id", "kind", "cost", "detail")
    for s in cat.bonus_spaces[:cat.board_bonus_count]:
        spaces.add_row(str(s.index), s.id, s.kind, str(s.cost) if s.cost else "-",
                       _space_detail(cat, s))
    spaces.add_section()
    for track, position, index in cat.track_bonus_at:
        s = cat.bonus_spaces[index]
        spaces.add_row(str(index), s.id, f"track {cat.tracks[track].id} space {position}",
                       "-", reward_text(cat, s.reward))
    tiles = _table("Bonus tiles", "id", "kind", "value")
    for t in cat.bonus_tiles:
        tiles.add_row(t.id, t.kind, str(t.value))
    first = {tile: seat for seat, tile in enumerate(cat.first_game_tiles)}
    markers = ", ".join(f"{k} players {v}" for k, v in cat.markers_start.items())
    starting = _table("Starting tiles", "id", "cards", "bonus", "first game",
                      caption=f"bonus markers: {cat.markers_per_colour} per colour; each "
                              f"player starts with: {markers}")
    for i, tile in enumerate(cat.starting_tiles):
        starting.add_row(str(tile.id), " ".join(tile.cards), reward_text(cat, tile.bonus),
                         f"seat {first[i] + 1}" if i in first else "-")
    return [spaces, tiles, starting]


def show_player_tracks(cat: engine.Catalogue) -> list[Table]:
    def track(title: str, values: tuple[int, ...], slot: int, end: int,
              crossed: frozenset[int] = frozenset()) -> Table:
        table = _table(title, "space", *(str(i) for i in range(len(values))),
                       caption=f"space {slot} opens a slot; {end} £ per step (or point) "
                               "beyond the end" + ("; x: crossed-out A" if crossed else ""))
        table.add_row("£", *(str(v) for v in values))
        if crossed:
            table.add_row("", *("x" if i in crossed else "" for i in range(len(values))))
        return table

    steps, pounds = cat.plain_merchant
    c_steps, c_pounds, mines = cat.company_merchant
    player = _table("Merchants and players", "rule", "effect")
    player.add_row("plain diamond merchant", f"{_steps(steps)}, {pounds} £")
    player.add_row("company diamond merchant",
                   f"{_steps(c_steps)}, {c_pounds} £, +1 step per {mines} mine icons")
    player.add_row("starting pounds", str(cat.start_pounds))
    player.add_row("action slots", f"{cat.base_slots} printed, up to {cat.max_slots}")
    return [track("Diamond track", cat.diamond_values, cat.diamond_slot,
                  cat.diamond_end_pounds),
            track("Bookkeeping track", cat.bookkeeping_values, cat.bookkeeping_slot,
                  cat.bookkeeping_end_pounds, cat.crossed_a),
            player]


def _steps(n: int) -> str:
    return f"{n} step{'' if n == 1 else 's'}"


SHOWS: dict[str, Callable[[engine.Catalogue], list[Table]]] = {
    "regions": show_regions, "tracks": show_tracks, "cards": show_cards,
    "books": show_books, "bonus": show_bonus, "player-tracks": show_player_tracks,
}


@catalogue_app.command("show")
def show(
    file: FileArg,
    section: Annotated[str | None, typer.Argument(
        help=f"Only one of: {', '.join(SECTIONS)}.")] = None,
) -> None:
    """Show the components of a catalogue as tables.

    SECTION is one of regions, tracks, cards, books, bonus, player-tracks (default: all).
    """
    if section is not None and section not in SHOWS:
        _fail(f"unknown section {section!r} (expected one of {', '.join(SECTIONS)})")
    loaded = _load_or_exit(file, 1)
    console = Console()
    flag = "a reconstruction" if loaded.cat.reconstruction else "printed values"
    console.print(f"[bold]{loaded.label}[/bold] ({flag})", highlight=False)
    for name in SECTIONS:
        if section in (None, name):
            for table in SHOWS[name](loaded.cat):
                console.print(table)
