"""Expansion and ousting (actions.txt, "Use expansion cards", "Entering regions",
"Region rewards", "Ousting trading posts"; rulebook.txt, "2. Use all expansion cards in
your action area"; rules-decisions.md, "Ousted post", "Expansion with one card too weak").

Map facts used (shipped catalogue): the Mombasa base borders OGA, PWA, ZAM (single
lines) and LIM (double line); ZAM-LIM and OGA-NUB are single lines, OGA-DAR double.
Base columns are written as post counts, ``DEAD`` added once the rear space (2 coin
icons) has been emptied; coin icons per space, front to rear: 0, 1, 1, 1, 2.
"""

from __future__ import annotations

import engine
from engine.state import DEAD
from tests.builders import (
    at_action,
    cards,
    company,
    do,
    region,
    set_base,
    set_owner,
    start,
    texts,
    with_area,
)
from tests.random_games import game_states


def _expander(*area_cards: str, **fields: object) -> engine.State:
    """P1 to act with exactly these cards face up."""
    return at_action(with_area(start(), 0, *area_cards, **fields), 0)


def _targets(s: engine.State) -> set[str]:
    """Regions some legal ``enter`` step goes to."""
    return {t.split()[1] for t in texts(s) if t.startswith("enter ")}


def test_single_line_border_costs_1_double_line_costs_2() -> None:
    """actions.txt, Entering regions, 2: "Pay expansion points: 1 to cross a single-line
    border, 2 for a double-line border". With 1 point Mombasa reaches OGA, PWA, ZAM but
    not LIM (double line); with 2 points LIM too."""
    s = do(_expander("exp1/1"), "expand MOM")
    assert (s.decision.kind, s.decision.player) == ("expansion", 0)
    assert _targets(s) == {"OGA", "PWA", "ZAM"}
    s2 = do(_expander("exp2/1"), "expand MOM")
    assert _targets(s2) == {"OGA", "PWA", "ZAM", "LIM"}


def test_region_with_another_company_post_costs_one_more() -> None:
    """actions.txt, Entering regions, 2: "+1 if another company's trading post is
    there"; 1: "it may hold another company's post". PWA with a Cape Town post costs
    Mombasa 1 + 1 = 2."""
    s = set_owner(_expander("exp1/1"), {"PWA": "CAP"})
    assert "PWA" not in _targets(do(s, "expand MOM"))
    s2 = set_owner(_expander("exp2/1"), {"PWA": "CAP"})
    assert "PWA" in _targets(do(s2, "expand MOM"))


def test_cheapest_way_into_a_region_counts() -> None:
    """actions.txt, Entering regions, 1: a region "next to its base, or next to a region
    holding one of its trading posts". LIM is a double line from the Mombasa base but a
    single line from ZAM: with a post in ZAM, 1 point enters LIM."""
    s = set_owner(_expander("exp1/1"), {"ZAM": "MOM"})
    assert "LIM" in _targets(do(s, "expand MOM"))


def test_region_with_own_post_cannot_be_entered() -> None:
    """actions.txt, Entering regions, 1: "It must not already hold one of this company's
    posts"."""
    s = set_owner(_expander("exp2/1"), {"OGA": "MOM"})
    assert "OGA" not in _targets(do(s, "expand MOM"))


def test_any_post_is_a_starting_point() -> None:
    """actions.txt, Entering regions, notes: "A trading post does not need a link back
    to its base: any post of the company is a starting point." A lone Mombasa post in
    KAS (far from the base) lets Mombasa enter LOA (single line) for 1 point."""
    s = set_owner(_expander("exp1/1"), {"KAS": "MOM"})
    assert "LOA" in _targets(do(s, "expand MOM"))


def test_all_expansion_cards_are_used_at_once_on_one_company() -> None:
    """actions.txt, Use expansion cards: "Use all expansion cards in your action area at
    once ... Add up the helmets: that is your total expansion value, all spent on one
    company". exp1 + exp2 = 3 points: OGA (1) then DAR from OGA (double line, 2); both
    cards turn face down; the goods card stays face up."""
    s = _expander("exp1/1", "exp2/1", "cof2/1")
    s = do(s, "expand MOM")
    assert s.players[0].used == cards(s, "exp1/1", "exp2/1")
    s = do(s, "enter OGA 1")
    assert "DAR" in _targets(s)
    s = do(s, "enter DAR 1")
    assert s.owners[region(s, "OGA")] == company(s, "MOM")
    assert s.owners[region(s, "DAR")] == company(s, "MOM")
    assert s.decision == engine.Decision("action", 1)
    assert s.players[0].used == cards(s, "exp1/1", "exp2/1")


def test_points_not_used_are_forfeited() -> None:
    """actions.txt, Entering regions: "Repeat until your expansion value is spent
    (forfeit what you cannot or will not use)". ``stop`` with 2 points left ends the
    action."""
    s = do(_expander("exp2/1", "one/1"), "expand MOM", "enter OGA 1", "stop")
    assert s.decision == engine.Decision("action", 1)
    assert [r.id for r, o in zip(s.cat.regions, s.owners, strict=True) if o >= 0] == ["OGA"]


def test_post_comes_from_the_front_of_the_chosen_column() -> None:
    """actions.txt, Entering regions, 3: "Take a trading post from the company's base.
    Any of its three columns, but within the column always the foremost post". Two posts
    from column 2 uncover its two front spaces (0 + 1 coin icons): share value 1; the
    other columns stay full."""
    s = do(_expander("exp2/1"), "expand MOM", "enter OGA 2", "enter ZAM 2")
    mom = company(s, "MOM")
    assert s.bases[mom] == (5, 3, 5)
    assert s.values[mom] == 1
    s2 = do(_expander("exp2/1"), "expand MOM", "enter OGA 1", "enter ZAM 3")
    assert s2.bases[mom] == (4, 5, 4)
    assert s2.values[mom] == 0


def test_empty_base_cannot_expand() -> None:
    """actions.txt, notes: "An empty base cannot expand until posts come back by
    ousting". rulebook.txt: "If there are no trading posts left in a company base, this
    company cannot be expanded"."""
    s = set_base(_expander("exp2/1"), "MOM", (DEAD, DEAD, DEAD))
    assert "expand MOM" not in texts(s)
    assert {"expand CAP", "expand STL", "expand CAI"} <= texts(s)


def test_base_emptied_during_expansion_loses_the_remaining_points() -> None:
    """actions.txt, notes: "if it empties during your expansion, the rest of your points
    are lost". One post left, 3 points: after OGA the action ends."""
    s = set_base(_expander("exp2/1", "one/1"), "MOM", (1, DEAD, DEAD))
    s = do(s, "expand MOM", "enter OGA 1")
    assert s.decision == engine.Decision("action", 1)
    assert s.bases[company(s, "MOM")] == (DEAD, DEAD, DEAD)


def test_region_rewards_pounds_and_track_steps() -> None:
    """actions.txt, Region rewards: "collect the rewards of every region you entered":
    pounds, and "Track arrow: Move that many spaces up the track of the company you just
    expanded". Saint-Louis enters ATL (2 pounds) and ADR (2 track steps)."""
    s = _expander("exp2/1", cash=1, track=(0, 0, 0, 0))
    assert s.cat.regions[region(s, "ATL")].reward.pounds == 2
    assert s.cat.regions[region(s, "ADR")].reward.track_steps == 2
    s = do(s, "expand STL", "enter ATL 1", "enter ADR 1")
    p = s.players[0]
    assert p.cash == 3
    assert p.track == (0, 0, 2, 0)
    assert s.decision == engine.Decision("action", 1)


def test_region_rewards_diamonds_and_bookkeeping_points() -> None:
    """actions.txt, Region rewards: diamond steps, and "Bookkeeping points - the points
    of all regions entered are added together and spent at once". Cairo enters HOG (1
    diamond), SAH (1 bookkeeping point) and SIW (1 pound, 1 bookkeeping point): one
    bookkeeping decision with 2 points."""
    s = _expander("exp2/1", "one/1", cash=0, diamond=0)
    s = do(s, "expand CAI", "enter HOG 1", "enter SAH 1", "enter SIW 1")
    assert (s.decision.kind, s.decision.player) == ("bookkeeping-points", 0)
    assert s.pool == 2
    assert s.players[0].diamond == 1
    assert s.players[0].cash == 1


def test_ousted_post_returns_to_its_base_column_of_choice() -> None:
    """actions.txt, Ousting trading posts, 1: "Every post of another company in a region
    you entered goes back to its own base. You choose the column; within it, it takes
    the rearmost empty space." Cape Town base (5, 3, DEAD) offers columns 2 (3 posts)
    and 3 (empty, rear space dead); the full column 1 is not offered. The post on the
    rearmost empty space of column 2 covers 1 coin icon."""
    s = set_owner(_expander("exp2/1"), {"OGA": "CAP"})
    s = set_base(s, "CAP", (5, 3, DEAD))
    cap = company(s, "CAP")
    assert s.values[cap] == 0 + 1 + 5
    s = do(s, "expand MOM", "enter OGA 1")
    assert (s.decision.kind, s.decision.player) == ("oust-return", 0)
    assert texts(s) == {"return 2", "return 3"}
    s = do(s, "return 2")
    assert s.bases[cap] == (5, 4, DEAD)
    assert s.values[cap] == 5
    assert s.owners[region(s, "OGA")] == company(s, "MOM")
    assert s.decision == engine.Decision("action", 1)


def test_ousted_post_without_a_valid_space_leaves_the_game() -> None:
    """actions.txt, Ousting trading posts, 1: "If there is no valid space, the post
    leaves the game." Cape Town base (5, 5, 4 + DEAD): no space can take it."""
    s = set_owner(_expander("exp2/1"), {"OGA": "CAP"})
    s = set_base(s, "CAP", (5, 5, 4 | DEAD))
    cap = company(s, "CAP")
    removed = s.removed_posts[cap]
    s = do(s, "expand MOM", "enter OGA 1")
    assert s.decision == engine.Decision("action", 1)
    assert s.bases[cap] == (5, 5, 4 | DEAD)
    assert s.removed_posts[cap] == removed + 1


def test_company_bases_are_not_regions() -> None:
    """actions.txt, notes: "Company bases are not regions." No enter step names a base,
    and every target is one of the 24 map regions."""
    s = do(_expander("exp2/1", "one/1"), "expand MOM")
    ids = {r.id for r in s.cat.regions}
    assert _targets(s) <= ids
    assert not _targets(s) & {c.id for c in s.cat.companies}


def test_entry_costs_cache_matches_a_fresh_computation() -> None:
    """Rules: entering a region costs its distance (1 or 2 helmets) plus 1 when another
    company holds it. The cached answer per ownership map equals a fresh one."""
    import random as _random

    from engine.rules import apply_unchecked, entry_costs, legal_steps
    from engine.rules.expansion import _entry_costs

    s = engine.new_game(players=3, seed=11)
    rng = _random.Random(11)
    checked = 0
    while not s.is_over():
        for c in range(4):
            for points in (0, 1, 2, 3, 5):
                fresh = [rc for rc in _entry_costs(s, c) if rc[1] <= points]
                assert entry_costs(s, c, points) == fresh
                checked += 1
        s = apply_unchecked(s, s.sample_chance() if s.decision.kind == "chance"
                            else rng.choice(legal_steps(s)))
    assert checked > 1000


def _reward_order_decision() -> engine.State:
    """The first reward-order decision met in seeded random games (they are rare: the
    regions' track steps must meet a capital call only their pounds can pay)."""
    for seed in range(200):
        for s in game_states(2, seed, variable=False, biased=True):
            if s.decision.kind == "reward-order":
                return s
    raise AssertionError("no reward-order decision in 200 games")


def test_reward_order_is_the_players_choice_where_it_matters() -> None:
    """Rulebook, "Use expansion cards": the rewards of the regions entered are taken in
    any order. With pounds first they pay a capital call on the way; with the track
    steps first the marker stops before a call the player cannot pay and the pounds are
    kept."""
    s = _reward_order_decision()
    d = s.decision
    assert d.company is not None and d.points is not None  # points: the regions' pounds
    assert [st.text(s.cat) for st in s.legal_steps()] == ["reward-order pounds",
                                                          "reward-order track"]
    me, c = d.player, d.company
    track = s.cat.tracks[s.tracks[c]]
    before = s.players[me]

    def settled(first: str) -> engine.State:
        t = s.apply(engine.Step.parse(f"reward-order {first}", s.cat))
        while t.decision.kind == "oust-return" and t.decision.player == me:
            t = t.apply(t.legal_steps()[0])
        return t

    pounds_first, track_first = settled("pounds"), settled("track")
    far, near = pounds_first.players[me].track[c], track_first.players[me].track[c]
    assert far > near >= before.track[c]  # pounds first walks past the call
    blocked = track.spaces[near + 1]
    assert blocked.capital > before.cash  # the call the player could not pay alone
    # Track first keeps the pounds the call would have cost.
    assert track_first.players[me].cash > pounds_first.players[me].cash


def test_reward_order_is_asked_only_where_the_order_changes_the_track() -> None:
    """Every reward-order decision met in 60 random games (2-4 players) is one where the
    two orders end the marker on different spaces; the decision stays rare."""
    asked = expansions = 0
    for seed in range(60):
        for s in game_states(2 + seed % 3, seed, variable=False, biased=True):
            d = s.decision
            expansions += d.kind == "expansion"
            if d.kind == "reward-order":
                asked += 1
                assert d.company is not None
                ends = {s.apply(engine.Step("reward-order", k)).players[d.player].track[
                    d.company] for k in (0, 1)}
                assert len(ends) == 2
    assert asked > 0 and expansions > 20 * asked
