"""The books of the catalogue, the book display (its columns, letters and costs) and the
round coins by player count, checked and built in one walk."""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.catalogue.checks import (
    MAX_NEEDS,
    PLAYER_COUNTS,
    as_dict,
    as_int,
    as_list,
    choice,
    choice_field,
    dict_field,
    exact,
    exact_field,
    fail,
    field,
    join,
    list_field,
    needs,
    reward_field,
)
from engine.catalogue.model import Book

BOOK_LETTERS: dict[str, int] = {"A": 24, "B": 24, "C": 24}
BOOK_DISPLAY_COLUMNS: list[int] = [2, 3, 4, 5, 6, 7]
BOOK_DISPLAY_ROWS = 2
BOOK_SPACES_PER_LETTER = 4
BOOK_COSTS: dict[str, int] = {"A": 1, "B": 1, "C": 2}
ROUND_COINS: dict[str, list[int]] = {
    "2": [1, 1, 1, 1, 1, 1],
    "3": [2, 1, 2, 1, 2, 1],
    "4": [2, 2, 2, 2, 2, 2],
}


class BookDisplay(NamedTuple):
    columns: tuple[int, ...]
    rows: int
    space_letter: tuple[str, ...]  # by book space (column * rows + row)
    costs: dict[str, int]


def read_books(root: dict[str, Any]) -> tuple[Book, ...]:
    """The books, named by letter and rank within it (``A01``...)."""
    entries = list_field(root, "books", "", sum(BOOK_LETTERS.values()), "books")
    books: list[Book] = []
    per_letter = dict.fromkeys(BOOK_LETTERS, 0)
    for i, entry in enumerate(entries):
        path = join("books", i)
        obj = as_dict(entry, path)
        letter = choice_field(obj, "letter", path, BOOK_LETTERS, "letter")
        per_letter[letter] += 1
        books.append(Book(
            index=i,
            name=f"{letter}{per_letter[letter]:02d}",
            letter=letter,
            needs=needs(field(obj, "needs", path), join(path, "needs"), 1, MAX_NEEDS),
            reward=reward_field(obj, "reward", path, non_empty=True),
        ))
    for letter, expected in BOOK_LETTERS.items():
        if per_letter[letter] != expected:
            got = per_letter[letter]
            fail("books", f"expected {expected} books of letter {letter}, got {got}")
    return tuple(books)


def read_book_display(root: dict[str, Any]) -> BookDisplay:
    path = "book_display"
    display = dict_field(root, path, "")
    columns = exact_field(display, "columns", path, BOOK_DISPLAY_COLUMNS)
    rows = exact_field(display, "rows", path, BOOK_DISPLAY_ROWS)
    letters = dict_field(display, "letters", path)
    if sorted(letters) != sorted(str(c) for c in BOOK_DISPLAY_COLUMNS):
        fail(join(path, "letters"), "expected one letter per column 2..7")
    for column, letter in letters.items():
        choice(letter, join(path, "letters"), BOOK_LETTERS, "letter", column)
    for letter in BOOK_LETTERS:
        spaces = BOOK_DISPLAY_ROWS * list(letters.values()).count(letter)
        if spaces != BOOK_SPACES_PER_LETTER:
            fail(
                join(path, "letters"),
                f"expected {BOOK_SPACES_PER_LETTER} spaces of letter {letter}, got {spaces}",
            )
    costs = exact_field(display, "costs", path, BOOK_COSTS)
    numbers = tuple(int(c) for c in columns)
    return BookDisplay(
        columns=numbers,
        rows=int(rows),
        space_letter=tuple(letters[str(col)] for col in numbers for _ in range(int(rows))),
        # The file's key order is kept (the check compares as a dict).
        costs={k: int(v) for k, v in costs.items()},
    )


def read_round_coins(root: dict[str, Any]) -> dict[int, tuple[int, ...]]:
    """The round coins by player count (fixed stacks), in the file's key order."""
    coins = dict_field(root, "round_coins", "")
    if sorted(coins) != list(PLAYER_COUNTS):
        fail("round_coins", f"expected keys {', '.join(PLAYER_COUNTS)}")
    checked: dict[str, tuple[int, ...]] = {}
    for players, expected in ROUND_COINS.items():
        path = join("round_coins", players)
        stacks = as_list(coins[players], path, len(expected), "entries")
        checked[players] = tuple(
            as_int(stack, path, lo=1, hi=BOOK_DISPLAY_ROWS, key=i) for i, stack in enumerate(stacks)
        )
        exact(stacks, expected, path)
    return {int(players): checked[players] for players in coins}
