"""What the service shows of a game: one seat's view (or the spectator's), the event a
game-event stream sends at a change, the history with others' hidden steps hidden, and
the words of decisions and scores."""

from __future__ import annotations

from typing import Any

import engine
from advisor_api import access
from advisor_api.analysis import player_name, step_out
from advisor_api.errors import InvalidInput
from advisor_api.game_model import Game
from engine import State, Step

PHASES = ("setup", "planning", "actions", "over")


def view(game: Game, seat: int | None) -> dict[str, Any]:
    """The game from one seat's point of view (its observation; hidden steps hidden);
    ``seat`` None: the spectator's (no seat's private things)."""
    if seat is not None and not 1 <= seat <= game.players:
        raise InvalidInput(f"seat: this game has seats 1-{game.players}, got {seat}",
                           field="seat")
    me = seat - 1 if seat is not None else -1
    s = game.state
    d = s.decision
    mine = seat is not None and not s.is_over() and me in d.deciders
    seats = d.seats  # in turn order, as the state lists them
    if mine and d.player != me:
        d = s.decide_as(me).decision  # a simultaneous decision, seen as this seat's
    over = s.is_over()
    # The seed deals the cards: secret in play mode until the end (for replay),
    # unless the game was created reproducible (then everyone may know it).
    shown = game.reproducible or over or game.mode == "live"
    return {
        "id": game.id,
        "mode": game.mode,
        "players": game.players,
        "seed": game.seed if shown else None,
        "reproducible": game.reproducible,
        "takebacks": game.takebacks,
        "can_undo": access.can_undo(game, seat),
        "variable": game.variable,
        "seats": [{"seat": i + 1, "player": player_name(i), "kind": st["kind"],
                   "bot": st["bot"]} for i, st in enumerate(game.seats)],
        "seat": seat,
        "perspective": game.perspective,
        "round": s.round,
        "phase": PHASES[s.phase],
        "decision": {"kind": d.kind, "player": player_name(d.player) if d.player >= 0
                     else None, "seat": d.player + 1 if d.player >= 0 else None,
                     "seats": [k + 1 for k in seats] if seats is not None else None},
        "your_turn": mine,
        "legal": _legal(game, seat, mine),
        "observation": (engine.observation_to_json(engine.observe(s, me))
                        if seat is not None else access.spectator_observation(s)),
        "history": history(game, me),
        "score": score_json(s),
        "over": over,
        "winners": [w + 1 for w in engine.winners(s)] if over else None,
        "ai": {"thinking": game.ai_task is not None, "error": game.ai_error},
        "stopped": game.stopped,
        "steps": len(game.history),
    }


def _legal(game: Game, seat: int | None, mine: bool) -> list[dict[str, Any]]:
    """The steps a view offers: the seat's own when it decides (``mine``), or in live
    mode the outcomes of a pending chance event (any seat reports them)."""
    s = game.state
    if mine:
        assert seat is not None
        return [step_out(st, s) for st in s.legal_steps(player=seat - 1)]
    if (seat is not None and not s.is_over() and s.decision.kind == "chance"
            and game.mode == "live"):
        return [step_out(st, s) for st in s.legal_steps()]
    return []


def event(game: Game) -> dict[str, Any]:
    """What a game-event stream sends at a change: only what every view shows (the
    page re-reads its own view): never a step, a card or a hand."""
    s = game.state
    d = s.decision
    over = s.is_over()
    return {"id": game.id, "version": game.version, "steps": len(game.history),
            "round": s.round, "phase": PHASES[s.phase],
            "decision": {"kind": None if over else d.kind,
                         "seats": [] if over else [k + 1 for k in d.deciders]},
            "over": over, "ai_thinking": game.ai_task is not None}


def history(game: Game, me: int) -> list[dict[str, Any]]:
    """Every step; another player's plan / tile steps read ``null`` until the reveal
    that made them public, and the starting tiles dealt to others stay ``null``
    (``engine.hidden_steps``)."""
    cat = game.state.cat
    hidden = engine.hidden_steps([(rec.player, rec.step) for rec in game.history],
                                 game.states, me)
    return [{"index": i, "player": player_name(rec.player),
             "step": None if h else rec.step.text(cat), "source": rec.source,
             "round": game.states[i].round,
             "context": None if h else step_context(rec.step, game.states[i])}
            for i, (rec, h) in enumerate(zip(game.history, hidden, strict=True))]


def game_record(game: Game) -> engine.GameRecord:
    """The whole game as a record (``engine.GameRecord``): its seats, every step with its
    source. The seed only of a game whose seed every view shows from the start
    (``reproducible``): a service's secret seed would predict its deals (a seat's view
    of an unfinished game gives none either, ``GameRecord.seen_by``)."""
    rec = engine.GameRecord.new(
        game.states[0], seats=[engine.Seat(st["kind"], st.get("bot")) for st in game.seats],
        seed=game.seed if game.reproducible else None, meta={"event": game.mode})
    for r in game.history:
        rec.append(r.player, r.step, r.source)
    return rec


def record(game: Game, seat: int | None) -> dict[str, Any]:
    """The game's record JSON as ``seat`` (1-based; None: the spectator) may see it: a
    finished game whole (with its result); an unfinished one as the views show its
    history (``engine.hidden_steps``): others' plans and starting tiles before their
    reveal and the tiles dealt to others read ``"step": null``, ``view`` the seat (0 for
    the spectator, who sees no seat's)."""
    rec = game_record(game)
    s = game.state
    if not s.is_over():
        rec = rec.seen_by(seat - 1 if seat is not None else -1, game.states)
    return rec.to_json(s.cat, final=s)


def step_context(step: Step, before: State) -> dict[str, str] | None:
    """The public facts of the position before ``step`` that its words depend on, so that
    a history entry reads as it did when it was taken (the board has changed since):
    ``card``, the display card a ``buy`` / ``buy-card`` took; ``book``, the book a
    ``take`` took; ``company``, the company an ``enter`` expanded or a ``return``'s
    ousted post belongs to. None when the step's words need nothing."""
    cat = before.cat
    if step.kind in ("buy", "buy-card") and 0 <= step.a < len(before.display):
        c = before.display[step.a]
        return {"card": cat.cards[c].name} if c >= 0 else None
    if step.kind == "take" and 0 <= step.a < len(before.book_display):
        b = before.book_display[step.a]
        return {"book": cat.books[b].name} if b >= 0 else None
    if step.kind in ("enter", "return"):
        company = before.decision.company
        return {"company": cat.companies[company].id} if company is not None else None
    return None


def deciders_text(d: engine.Decision) -> str:
    """Whose decision it is, in words: "P2's", or "P1's, P3's" when simultaneous."""
    return ", ".join(f"{player_name(p)}'s" for p in d.deciders) or "chance's"


def score_json(s: State) -> list[dict[str, Any]]:
    """The score breakdown of every player (provisional before the end)."""
    ids = tuple(c.id for c in s.cat.companies)
    return [sc.to_json(ids) for sc in engine.score(s)]
