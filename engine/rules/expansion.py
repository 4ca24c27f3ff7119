"""Expansion: entering regions with trading posts, their costs, rewards, ousting and
removing posts (rulebook: "Use expansion cards", "Ousting")."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.catalogue import Reward
from engine.decision import Decision
from engine.player_board import face_up
from engine.primitives import ACTIONS, DEAD, SETUP, Item, bits, replace_at
from engine.rules.common import _new, collect_reward, replace_top, set_base, take_post
from engine.rules.pending import DECISION, THEN, Pending
from engine.steps import Step
from engine.tables import Tables, tables

if TYPE_CHECKING:
    from engine.state import State


def entry_costs(s: State, company: int, points: int) -> list[tuple[int, int]]:
    """(region, cost) of every region the company can enter now for at most ``points``."""
    t = tables(s.cat)
    key = (company, s.owners)
    costs = t.entry_cache.get(key)
    if costs is None:
        # The costs depend only on who owns which region: cached per ownership map.
        costs = tuple(_entry_costs(s, company))
        if len(t.entry_cache) > 50_000:
            t.entry_cache.clear()
        t.entry_cache[key] = costs
    return [rc for rc in costs if rc[1] <= points]


def _entry_costs(s: State, company: int) -> list[tuple[int, int]]:
    cat = s.cat
    owners = s.owners
    best: dict[int, int] = {}
    for r, cost in cat.base_neighbours[company]:
        if best.get(r, 99) > cost:
            best[r] = cost
    for q, o in enumerate(owners):
        if o == company:
            for r, cost in cat.neighbours[q]:
                if best.get(r, 99) > cost:
                    best[r] = cost
    out = []
    for r, cost in best.items():
        o = owners[r]
        if o == company:
            continue
        if o >= 0:
            cost += 1
        out.append((r, cost))
    out.sort()
    return out


def _legal_enter(s: State, item: Item) -> list[Step]:
    company, points = item[2], item[3]
    cols = [k for k, code in enumerate(s.bases[company]) if code & 7]
    out = [_new(Step, ("stop", -1, -1, -1))]
    if cols:
        for r, _ in entry_costs(s, company, points):
            for k in cols:
                out.append(_new(Step, ("enter", r, k, -1)))
    return out


def _return_columns(s: State, company: int) -> list[int]:
    full = tables(s.cat).full_column
    out = []
    for k, code in enumerate(s.bases[company]):
        cap = full - 1 if code & DEAD else full
        if (code & 7) < cap:
            out.append(k)
    return out


def _legal_oust(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("return", k, -1, -1)) for k in _return_columns(s, item[2])]


def _legal_rmpost(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("remove-post", c, k, -1)) for c in range(4)
            for k, code in enumerate(s.bases[c]) if code & 7]


def _ap_expand(s: State, item: Item, step: Step) -> None:
    player = item[1]
    p = s.player_mut(player)
    t = tables(s.cat)
    cards = face_up(p) & t.expansion_mask
    points = sum(t.card_value[c] for c in bits(cards))
    p.used |= cards
    replace_top(s, (("enter", player, step.a, points, (), ()), ("finish", player, True)))


def _ap_enter(s: State, item: Item, step: Step) -> None:
    _, player, company, points, entered, ousted = item
    cost = dict(entry_costs(s, company, points))[step.a]
    other = s.owners[step.a]
    take_post(s, company, step.b)
    s.owners = replace_at(s.owners, step.a, company)
    if other >= 0:
        ousted = ousted + (other,)
    replace_top(s, (("enter", player, company, points - cost, entered + (step.a,), ousted),))


def _ap_stop(s: State, item: Item, step: Step) -> None:
    _resolve_expansion(s, item)


def _resolve_expansion(s: State, item: Item) -> None:
    """Rewards of the entered regions, then ousted posts go home.

    Rulebook: the player takes the rewards of the regions entered, in any order. The
    order matters only when the track steps meet a capital call that the regions'
    pounds would pay: then the player chooses (``reward-order pounds|track``, decision
    ``reward-order``); otherwise pounds come first, then diamonds, bookkeeping points
    and the track steps."""
    _, player, company, _points, entered, ousted = item
    regions = s.cat.regions
    total = Reward(
        pounds=sum(regions[r].reward.pounds for r in entered),
        diamonds=sum(regions[r].reward.diamonds for r in entered),
        bookkeeping=sum(regions[r].reward.bookkeeping for r in entered),
        track_steps=sum(regions[r].reward.track_steps for r in entered),
        track_company=company,
    )
    returns = tuple(("oust", player, o) for o in ousted)
    if reward_order_asked(s, player, company, total.pounds, total.track_steps):
        replace_top(s, (("order", player, company, total.pounds, total.diamonds,
                         total.bookkeeping, total.track_steps),) + returns)
        return
    replace_top(s, collect_reward(s, player, total, company) + returns)


def _walk_end(s: State, player: int, company: int, steps: int, cash: int) -> int:
    """Where ``steps`` track steps end with ``cash`` in hand (capital calls paid on the
    way, the marker stopping before one it cannot pay)."""
    track = s.cat.tracks[s.tracks[company]]
    pos = s.players[player].track[company]
    for _ in range(steps):
        if pos >= track.last:
            break
        space = track.spaces[pos + 1]
        if space.capital > cash:
            break
        cash += space.special.pounds - space.capital
        pos += 1
    return pos


def reward_order_asked(s: State, player: int, company: int, pounds: int,
                       track_steps: int) -> bool:
    """Whether collecting an expansion's rewards (``pounds`` and ``track_steps`` on
    ``company``'s track, in total over the regions entered) asks ``player`` for their
    order (``State.reward_order_asked``)."""
    if not (pounds and track_steps):
        return False
    cash = s.players[player].cash
    return (_walk_end(s, player, company, track_steps, cash)
            != _walk_end(s, player, company, track_steps, cash + pounds))


def _legal_order(s: State, item: Item) -> list[Step]:
    return [_new(Step, ("reward-order", 0, -1, -1)), _new(Step, ("reward-order", 1, -1, -1))]


def _ap_reward_order(s: State, item: Item, step: Step) -> None:
    _, player, company, pounds, diamonds, bookkeeping, steps = item
    if step.a == 0:  # pounds first (they can pay the capital call), as by default
        replace_top(s, collect_reward(s, player, Reward(
            pounds=pounds, diamonds=diamonds, bookkeeping=bookkeeping, track_steps=steps,
            track_company=company), company))
    else:  # the track steps first: the marker stops before the call, the pounds are kept
        replace_top(s, (("track", player, company, steps),
                        ("pay", player, pounds, diamonds, bookkeeping)))


def _auto_pay(s: State, item: Item) -> None:
    """The rest of the rewards, after the track steps the player chose to take first."""
    _, player, pounds, diamonds, bookkeeping = item
    replace_top(s, collect_reward(s, player, Reward(pounds=pounds, diamonds=diamonds,
                                                    bookkeeping=bookkeeping), -1))


def _ap_return(s: State, item: Item, step: Step) -> None:
    company = item[2]
    code = s.bases[company][step.a]
    set_base(s, company, step.a, Tables.after_return(code))
    s.todo = s.todo[1:]


def _ap_remove_post(s: State, item: Item, step: Step) -> None:
    take_post(s, step.a, step.b)
    s.removed_posts = replace_at(s.removed_posts, step.a, s.removed_posts[step.a] + 1)
    s.todo = s.todo[1:]


def _skip_enter(s: State, item: Item) -> bool:
    company, points = item[2], item[3]
    if any(code & 7 for code in s.bases[company]) and entry_costs(s, company, points):
        return False
    _resolve_expansion(s, item)  # nothing more can be entered: remaining points forfeit
    return True


def _skip_oust(s: State, item: Item) -> bool:
    if _return_columns(s, item[2]):
        return False
    company = item[2]
    s.removed_posts = replace_at(s.removed_posts, company, s.removed_posts[company] + 1)
    s.todo = s.todo[1:]
    return True


def _skip_rmpost(s: State, item: Item) -> bool:
    if any(code & 7 for base in s.bases for code in base):
        return False
    s.todo = s.todo[1:]
    return True


_ACTIONS = frozenset({ACTIONS})
_REWARDS = ("pounds", "int"), ("diamonds", "int"), ("bookkeeping", "int")

PENDING = (
    Pending("enter", DECISION, "expansion", _ACTIONS,
            (("company", "company"), ("points", "int"), ("entered", "regions"),
             ("ousted", "companies")), posts_home="ousted",
            decision=lambda s, item: Decision("expansion", item[1], company=item[2],
                                              points=item[3], entered=item[4],
                                              ousted=item[5])),
    Pending("order", DECISION, "reward-order", _ACTIONS,
            (("company", "company"), *_REWARDS, ("track_steps", "int")), in_v1=False,
            decision=lambda s, item: Decision("reward-order", item[1], company=item[2],
                                              points=item[3])),
    Pending("pay", THEN, "pay-rewards", _ACTIONS, _REWARDS, in_v1=False),
    Pending("oust", DECISION, "oust-return", _ACTIONS, (("company", "company"),),
            posts_home="company",
            decision=lambda s, item: Decision("oust-return", item[1], company=item[2])),
    # A reward's post removal: the starting bonus's too.
    Pending("rmpost", DECISION, "remove-post", frozenset({SETUP, ACTIONS}),
            decision=lambda s, item: Decision(
                "remove-post", item[1], ousted=tuple(i[2] for i in s.todo if i[0] == "oust"))),
)


LEGAL: dict[str, Callable[[State, Item], list[Step]]] = {
    "enter": _legal_enter,
    "oust": _legal_oust,
    "rmpost": _legal_rmpost,
    "order": _legal_order,
}


APPLY: dict[str, Callable[[State, Item, Step], None]] = {
    "expand": _ap_expand,
    "enter": _ap_enter,
    "stop": _ap_stop,
    "return": _ap_return,
    "remove-post": _ap_remove_post,
    "reward-order": _ap_reward_order,
}


SKIP: dict[str, Callable[[State, Item], bool]] = {
    "enter": _skip_enter,
    "oust": _skip_oust,
    "rmpost": _skip_rmpost,
}


AUTO: dict[str, Callable[[State, Item], None]] = {
    "pay": _auto_pay,
}
