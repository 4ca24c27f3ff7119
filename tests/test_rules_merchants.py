"""Diamond merchants (actions.txt, "Use a diamond merchant", "End of the diamond
track"; rulebook.txt, "4. Use 1 diamond merchant card"; rules-decisions.md, "Plain
diamond merchant", "Company diamond merchant", "Diamond merchant tile").

Cards (shipped catalogue): B11 plain merchant, B12 Mombasa merchant, B16 Cape Town
merchant; T-merchant is the merchant bonus tile. Mines: KAT 3, NAM 1, TIB 2, OGA 0.
"""

from __future__ import annotations

import engine
from tests.builders import at_action, cards, do, set_owner, start, texts, with_area


def _merchant(*area_cards: str, **fields: object) -> engine.State:
    fields.setdefault("cash", 0)
    fields.setdefault("diamond", 0)
    return at_action(with_area(start(), 0, *area_cards, **fields), 0)


def test_plain_merchant_gives_1_step_and_2_pounds() -> None:
    """actions.txt, Use a diamond merchant: "The plain merchant: 1 space and 2 pounds.
    Then turn it face down." """
    s = do(_merchant("B11"), "merchant B11")
    p = s.players[0]
    assert (p.diamond, p.cash) == (1, 2)
    assert p.used == cards(s, "B11")
    assert s.decision == engine.Decision("action", 1)


def test_company_merchant_counts_mines_of_its_company() -> None:
    """actions.txt, Use a diamond merchant: "A company's merchant: 2 spaces and 1 pound,
    then 1 more space for every 2 mine icons in the regions that company controls
    (regions holding its trading posts)." Mombasa holds KAT (3), NAM (1) and OGA (0):
    4 mines, 2 more steps; Cape Town's TIB (2 mines) does not count."""
    s = set_owner(_merchant("B12"), {"KAT": "MOM", "NAM": "MOM", "OGA": "MOM", "TIB": "CAP"})
    s = do(s, "merchant B12")
    p = s.players[0]
    assert (p.diamond, p.cash) == (4, 1)


def test_company_merchant_rounds_odd_mines_down() -> None:
    """actions.txt, Use a diamond merchant: "1 more space for every 2 mine icons":
    Mombasa with 3 mines (KAT) gets 1 extra step, not 2."""
    s = set_owner(_merchant("B12"), {"KAT": "MOM"})
    s = do(s, "merchant B12")
    assert s.players[0].diamond == 3


def test_company_merchant_without_posts_gives_2_steps_and_1_pound() -> None:
    """actions.txt, Use a diamond merchant: 2 spaces and 1 pound, no mines no extra."""
    s = do(_merchant("B16"), "merchant B16")
    assert (s.players[0].diamond, s.players[0].cash) == (2, 1)


def test_merchant_tile_counts_other_face_up_merchant_cards() -> None:
    """actions.txt, Bonus tiles (merchant tile): "2 diamond steps, +1 for each other
    face-up merchant card in your action area"; rulebook.txt: "(excluded this diamond
    merchant-card tile)". B11 face up counts, B12 already face down does not; the tile
    pays no pounds."""
    s = _merchant("B11", "B12", tiles=cards(start(), "T-merchant"))
    s = with_area(s, 0, "B11", "B12", used=cards(s, "B12"), cash=0, diamond=0)
    assert "merchant T-merchant" in texts(s)
    s = do(s, "merchant T-merchant")
    p = s.players[0]
    assert (p.diamond, p.cash) == (3, 0)
    assert p.used & cards(s, "T-merchant")


def test_merchant_tile_alone_gives_2_steps() -> None:
    """rules-decisions.md, Diamond merchant tile: "2 steps, +1 per other face-up diamond
    merchant card"; it takes no action slot."""
    s = do(_merchant(tiles=cards(start(), "T-merchant")), "merchant T-merchant")
    assert s.players[0].diamond == 2


def test_only_one_merchant_per_action() -> None:
    """rulebook.txt, General action phase: "4. Use 1 diamond merchant" per turn. After
    B11 the turn passes; B12 stays face up for a later turn."""
    s = do(_merchant("B11", "B12"), "merchant B11")
    assert s.decision == engine.Decision("action", 1)
    assert not s.players[0].used & cards(s, "B12")
