"""What several rules share: the work queue, base columns, company-track steps, the
diamond track and collecting a reward (rulebook: "Take the rewards ...", company tracks,
"capital calls", special spaces)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.catalogue import Reward
from engine.primitives import Item, replace_at
from engine.tables import Tables, tables

if TYPE_CHECKING:
    from engine.state import State

_new = tuple.__new__  # builds a Step without NamedTuple's argument handling (hot path)


def subsets(mask: int) -> list[int]:
    """All non-empty sub-masks of ``mask``."""
    out = []
    sub = mask
    while sub:
        out.append(sub)
        sub = (sub - 1) & mask
    return out


def replace_top(s: State, items: tuple[Item, ...]) -> None:
    s.todo = items + s.todo[1:]


def set_base(s: State, company: int, col: int, code: int) -> None:
    t = tables(s.cat)
    cols = replace_at(s.bases[company], col, code)
    s.bases = replace_at(s.bases, company, cols)
    s.values = replace_at(s.values, company, sum(t.column_value[c] for c in cols))


def take_post(s: State, company: int, col: int) -> None:
    set_base(s, company, col, Tables.after_take(s.bases[company][col]))


def diamond_steps(s: State, player: int, steps: int) -> None:
    if steps <= 0:
        return
    p = s.player_mut(player)
    last = tables(s.cat).dia_last
    for _ in range(steps):
        if p.diamond >= last:
            p.cash += s.cat.diamond_end_pounds
        else:
            p.diamond += 1


def collect_reward(s: State, player: int, r: Reward, company: int) -> tuple[Item, ...]:
    """Pay a reward; returns work items for the parts that need steps or decisions."""
    items: list[Item] = []
    if r.pounds:
        s.player_mut(player).cash += r.pounds
    if r.diamonds:
        diamond_steps(s, player, r.diamonds)
    if r.bookkeeping:
        s.pool += r.bookkeeping
    if r.track_steps:
        c = r.track_company if r.track_company >= 0 else company
        items.append(("track", player, c, r.track_steps))
    items.extend(("rmpost", player) for _ in range(r.remove_posts))
    return tuple(items)


def track_step(s: State, player: int, company: int) -> tuple[Item, ...] | None:
    """Move one step on a company track; None when a capital call blocks the way."""
    track = s.cat.tracks[s.tracks[company]]
    p = s.player_mut(player)
    pos = p.track[company]
    if pos >= track.last:
        p.cash += track.end_pounds
        return ()
    space = track.spaces[pos + 1]
    if space.capital > p.cash:
        return None
    p.cash -= space.capital
    p.track = replace_at(p.track, company, pos + 1)
    if space.extra_marker and p.markers_total < s.cat.markers_per_colour:
        p.markers_total += 1
        p.markers += 1
    if space.special.is_empty():
        return ()
    return collect_reward(s, player, space.special, company)
