"""The ``mombasa`` command line."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

import engine
from advisor_api.cli_solve import solve_app
from engine import apply_unchecked, decision, random_step

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Mombasa strategy advisor: engine, search and service.")
app.add_typer(solve_app, name="solve")


def _play_random(players: int, seed: int, variable: bool, stop_at: int | None,
                 catalogue: str | None) -> tuple[engine.State, list[tuple[int, engine.Step]]]:
    cat = engine.load_catalogue(catalogue) if catalogue else None
    s = engine.new_game(players=players, seed=seed, variable=variable, catalogue=cat)
    rng = random.Random(seed)
    history: list[tuple[int, engine.Step]] = []
    while not s.is_over() and (stop_at is None or len(history) < stop_at):
        who = decision(s).player
        step = random_step(s, rng)
        s = apply_unchecked(s, step)
        history.append((who, step))
    return s, history


def _score_json(s: engine.State) -> list[dict[str, Any]]:
    ids = tuple(c.id for c in s.cat.companies)
    return [sc.to_json(ids) for sc in engine.score(s)]


@app.command("random-game")
def random_game(
    players: Annotated[int, typer.Option(min=2, max=4, help="Number of players (2-4).")] = 4,
    seed: Annotated[int, typer.Option(min=0, help="Seed for the game and the players.")] = 0,
    variable: Annotated[bool, typer.Option(help="Variable setup instead of the first game.")]
    = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
    = False,
    stop_at: Annotated[int | None, typer.Option(min=0, help="Stop after this many steps.")]
    = None,
    dump_state: Annotated[Path | None, typer.Option(help="With --stop-at: write the state "
                                                          "reached as JSON to this file.")]
    = None,
    catalogue: Annotated[str | None, typer.Option(help="Component catalogue file.")] = None,
) -> None:
    """Play a uniformly random legal game; print the move log and the score breakdown."""
    if dump_state is not None and stop_at is None:
        raise typer.BadParameter("--dump-state needs --stop-at", param_hint="--dump-state")
    s, history = _play_random(players, seed, variable, stop_at, catalogue)
    moves = engine.group_moves(history)
    if dump_state is not None:
        dump_state.write_text(json.dumps(engine.state_to_json(s), indent=1))
    if as_json:
        out = {
            "players": players,
            "seed": seed,
            "steps": len(history),
            "over": s.is_over(),
            "moves": [{"player": m.player + 1 if m.player >= 0 else "chance",
                       "text": m.text(s.cat)} for m in moves],
            "score": _score_json(s),
            "winners": [w + 1 for w in engine.winners(s)] if s.is_over() else None,
        }
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    console = Console()
    for m in moves:
        who = "chance" if m.player < 0 else f"P{m.player + 1}"
        console.print(f"[dim]{who:>6}[/dim]  {m.text(s.cat)}", highlight=False)
    console.print(_score_table(s))
    if s.is_over():
        console.print("Winner(s): " + ", ".join(f"P{w + 1}" for w in engine.winners(s)))
    else:
        console.print(f"Stopped after {len(history)} steps; decision: {s.decision}")
    if dump_state is not None:
        console.print(f"State written to {dump_state}")


def _score_table(s: engine.State) -> Table:
    cat = s.cat
    final = "final" if s.is_over() else "provisional"
    table = Table(title=f"Score ({final})")
    table.add_column("player")
    table.add_column("cash", justify="right")
    for c in cat.companies:
        table.add_column(c.id, justify="right")
    table.add_column("diamonds", justify="right")
    table.add_column("bookkeeping", justify="right")
    table.add_column("total", justify="right", style="bold")
    for sc in engine.score(s):
        table.add_row(
            f"P{sc.player + 1}", str(sc.cash),
            *(f"{n}x{v}={p}" for n, v, p in zip(sc.shares, sc.share_values, sc.companies,
                                                 strict=True)),
            str(sc.diamonds), str(sc.bookkeeping), str(sc.total),
        )
    return table


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port.")] = 8000,
    db: Annotated[Path | None, typer.Option(help="SQLite file of the games (default: "
                                                "$MOMBASA_DB or ./mombasa.db).")] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Start the advisor service (HTTP API and /docs) with uvicorn."""
    import uvicorn

    from advisor_api.app import create_app
    from advisor_api.settings import Settings

    try:
        settings = Settings.from_env()
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if db is not None:
        settings = settings.with_(db_path=str(db))
    Console(stderr=True).print(
        f"Mombasa advisor on http://{host}:{port} (API docs: /docs); games in "
        f"{settings.db_path}; {settings.workers} search processes", highlight=False)
    uvicorn.run(create_app(settings=settings), host=host, port=port, log_level=log_level)


def parse_seconds(text: str) -> float:
    """``"2s"``, ``"1.5"``, ``"500ms"``, ``"1m"`` -> seconds.

    >>> parse_seconds("500ms"), parse_seconds("2s"), parse_seconds("1m")
    (0.5, 2.0, 60.0)
    """
    raw = text.strip().lower()
    scale = 1.0
    for suffix, factor in (("ms", 0.001), ("s", 1.0), ("m", 60.0)):
        if raw.endswith(suffix):
            raw, scale = raw[: -len(suffix)], factor
            break
    try:
        value = float(raw) * scale
    except ValueError:
        raise typer.BadParameter(f"expected a duration like 2s or 500ms, got {text!r}",
                                 param_hint="--time") from None
    if not value > 0 or value == float("inf"):
        raise typer.BadParameter(f"must be > 0, got {text!r}", param_hint="--time")
    return value


def _search(obs: engine.Observation, iterations: int | None, seconds: float | None,
            seed: int, jobs: int, console: Console, label: str) -> Any:
    """Run the search in this process (progress on ``console``); a SearchResult."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from advisor_api.worker import advisor_config
    from search.mcts import MCTS, SearchResult
    from search.parallel import ParallelMCTS

    cfg = advisor_config(iterations, seconds, seed)
    if jobs > 1:
        with console.status(f"{label}: searching with {jobs} processes"), \
                ParallelMCTS(cfg, jobs=jobs) as par:
            return par.search(obs)
    total = iterations if iterations is not None else None
    with Progress(TextColumn(f"[bold]{label}"), BarColumn(), TextColumn("{task.fields[it]} "
                  "iterations"), TimeElapsedColumn(), console=console,
                  transient=True) as bar:
        task = bar.add_task("search", total=total or (seconds or 1.0), it=0)

        def report(interim: SearchResult) -> None:
            done = interim.iterations if total is not None else interim.elapsed
            bar.update(task, completed=done, it=interim.iterations)

        return MCTS(cfg).search(obs, report)


def _lines_table(answer: dict[str, Any], title: str) -> Table:
    """The MultiPV lines of an analysis answer as a table."""
    pov = answer["pov"]
    table = Table(title=title, title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("move")
    table.add_column("visits", justify="right")
    table.add_column("share", justify="right")
    table.add_column(f"win {pov}", justify="right", style="bold")
    players = list(answer["lines"][0]["eval"]["money"]) if answer["lines"] else []
    for p in players:
        table.add_column(f"money {p}", justify="right")
    table.add_column("then")
    for line in answer["lines"]:
        ev = line["eval"]
        table.add_row(str(line["rank"]), line["move"]["text"], str(line["visits"]),
                      f"{line['share']:.0%}", f"{ev['win'][pov]:.0%}",
                      *(f"{ev['money'][p]:.1f}" for p in players),
                      line["pv_text"][:80])
    return table


def _summary(answer: dict[str, Any]) -> str:
    d = answer["decision"]
    return (f"{answer['pov']} to decide ({d['kind']}), round {answer['round']}: "
            f"{answer['iterations']} iterations in {answer['elapsed']:.2f} s "
            f"({answer['iterations_per_second']:.0f}/s), {answer['legal_steps']} legal steps")


@app.command()
def analyse(
    state_file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True,
                                               help="A state or observation JSON file "
                                                    "(e.g. from random-game --dump-state).")],
    multipv: Annotated[int, typer.Option(min=1, help="Number of lines.")] = 3,
    time: Annotated[str | None, typer.Option(help="Search time: 2s, 500ms...")] = None,
    iterations: Annotated[int | None, typer.Option(min=1, help="Search iterations.")]
    = None,
    seed: Annotated[int, typer.Option(min=0, help="Search seed.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Search processes.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON answer.")]
    = False,
) -> None:
    """Ranked suggestions for the deciding player of a position (searched on that
    player's observation only)."""
    from advisor_api import analysis
    from advisor_api.errors import ApiError
    from advisor_api.settings import Settings
    from advisor_api.solvers import solve_decision

    err = Console(stderr=True, soft_wrap=True)
    seconds = parse_seconds(time) if time is not None else None
    if seconds is None and iterations is None:
        seconds = 2.0
    try:
        obj = json.loads(state_file.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        err.print(f"error: {state_file}: not a JSON file ({exc})", highlight=False)
        raise typer.Exit(code=2) from None
    try:
        if isinstance(obj, dict) and obj.get("schema") == "mombasa-observation/1":
            obs = analysis.read_observation(obj)
        else:
            obs = analysis.observation_for_decider(analysis.read_state(obj))
        settings = Settings(max_time=max(seconds or 1.0, 1.0), workers=jobs,
                            max_iterations=max(iterations or 1, 1), max_multipv=multipv)
        plan = analysis.make_plan(obs, settings, iterations=iterations, time=seconds,
                                  multipv=multipv, seed=seed, jobs=jobs)
    except ApiError as exc:
        err.print(f"error: {exc.message}", highlight=False)
        raise typer.Exit(code=2) from None
    result = _search(obs, iterations, seconds, seed, jobs, err, "analysing")
    answer = analysis.build_response(plan, result, result.elapsed,
                                     solved=solve_decision(obs.state))
    if as_json:
        json.dump(answer, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    out = Console()
    out.print(_lines_table(answer, _summary(answer)))
    _print_solver_notes(answer, out)


def _print_solver_notes(answer: dict[str, Any], console: Console) -> None:
    for line in answer["lines"]:
        plan = line.get("solver")
        if plan:
            verdict = "agrees" if plan["agrees"] else "differs"
            console.print(f"  #{line['rank']}: exact {plan['kind']} solver: "
                          f"{'; '.join(plan['steps'])} ({verdict})", highlight=False)


PLAY_HELP = ("Type the number of a choice, or a step in notation (e.g. 'unit CAI'); "
             "'?' suggestions, 'b' the board, 'q' quit.")


@app.command()
def play(
    players: Annotated[int, typer.Option(min=2, max=4, help="Number of players.")] = 2,
    ai: Annotated[str, typer.Option(help="Bot spec of the AI seats (one for all, or one "
                                         "per AI seat, comma separated).")]
    = "mcts:time=0.5",
    seed: Annotated[int | None, typer.Option(min=0, help="Game seed (default: random).")]
    = None,
    seat: Annotated[int, typer.Option(min=1, max=4, help="Your seat.")] = 1,
    variable: Annotated[bool, typer.Option(help="Variable setup.")] = False,
    hint_time: Annotated[float, typer.Option(min=0.01, help="Seconds of search for '?'.")]
    = 1.0,
) -> None:
    """Play a game in the terminal against the AI (input can be piped)."""
    from search.bot_specs import make_bot

    if seat > players:
        raise typer.BadParameter(f"seat {seat} in a {players}-player game",
                                 param_hint="--seat")
    specs = split_players(ai)
    n_ai = players - 1
    if len(specs) == 1:
        specs = specs * n_ai
    if len(specs) != n_ai:
        raise typer.BadParameter(f"give 1 or {n_ai} bot specs, got {len(specs)}",
                                 param_hint="--ai")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    me = seat - 1
    bots: dict[int, Any] = {}
    others = [i for i in range(players) if i != me]
    try:
        for k, i in enumerate(others):
            bots[i] = make_bot(specs[k], seed=seed * 31 + i)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--ai") from None
    console = Console(highlight=False)
    console.print(f"Mombasa, {players} players, seed {seed}. You are P{seat}; "
                  + ", ".join(f"P{i + 1}: {specs[k]}" for k, i in enumerate(others)) + ".")
    console.print(PLAY_HELP)
    s = engine.new_game(players=players, seed=seed, variable=variable)
    dealt = 0
    last_player = -2
    while not s.is_over():
        d = s.decision
        if d.kind == "chance":
            s = s.apply(s.sample_chance())
            dealt += 1
            continue
        if dealt:
            console.print(f"[dim]({dealt} card(s)/book(s) dealt)[/dim]")
            dealt = 0
        if d.player != me:
            s = _ai_move(s, d.player, bots[d.player], console)
            last_player = d.player
            continue
        if last_player != me:
            _show_board(s, me, console)
        last_player = me
        nxt = _human_step(s, me, console, hint_time, seed)
        if nxt is None:
            console.print("Game abandoned.")
            console.print(_score_table(s))
            return
        s = nxt
    console.print(_score_table(s))
    console.print("Winner(s): " + ", ".join(f"P{w + 1}" for w in engine.winners(s)))


def _show_board(s: engine.State, me: int, console: Console) -> None:
    from advisor_api.board import board_text

    console.print(board_text(engine.observe(s, me).state, me), markup=False)


def _ai_move(s: engine.State, player: int, bot: Any, console: Console) -> engine.State:
    with console.status(f"P{player + 1} ({bot.name}) is thinking..."):
        move = bot.choose(engine.observe(s, player))
    text = move.text(s.cat)
    if move.steps and move.steps[0].kind in ("plan", "ready", "tile"):
        planned = sum(1 for st in move.steps if st.kind == "plan")
        text = (f"planned {planned} card(s), hidden until the reveal"
                if move.steps[0].kind != "tile" else "chose a starting tile (hidden)")
    console.print(f"P{player + 1}: {text}")
    return engine.apply_move(s, move, complete=False)


def _read_line(console: Console) -> str | None:
    line = sys.stdin.readline()
    if line == "":
        console.print()
        return None
    if not sys.stdin.isatty():  # piped input: show it, so the transcript reads well
        console.print(line.rstrip("\n"), markup=False)
    return line.strip()


def _human_step(s: engine.State, me: int, console: Console, hint_time: float,
                seed: int) -> engine.State | None:
    """Ask for one step until a legal one is given; None to quit."""
    legal = s.legal_steps()
    d = s.decision
    console.print(f"Your decision ({d.kind}):")
    width = max(len(str(len(legal))), 1)
    for k, step in enumerate(legal, start=1):
        console.print(f"  {k:>{width}}. {step.text(s.cat)}", markup=False)
    while True:
        console.print("> ", end="")
        line = _read_line(console)
        if line is None or line.lower() in ("q", "quit", "exit"):
            return None
        if not line:
            continue
        if line == "?":
            _suggest(s, me, console, hint_time, seed)
            continue
        if line.lower() in ("b", "board"):
            _show_board(s, me, console)
            continue
        if line.lower() in ("h", "help"):
            console.print(PLAY_HELP)
            continue
        if line.isdigit():
            k = int(line)
            if 1 <= k <= len(legal):
                return s.apply(legal[k - 1])
            console.print(f"choose 1-{len(legal)}")
            continue
        try:
            return s.apply(engine.Step.parse(line, s.cat))
        except (engine.NotationError, engine.IllegalStep) as exc:
            console.print(f"not accepted: {exc}", markup=False)


def _suggest(s: engine.State, me: int, console: Console, seconds: float, seed: int) -> None:
    from advisor_api import analysis
    from advisor_api.settings import Settings
    from advisor_api.solvers import solve_decision

    obs = engine.observe(s, me)
    settings = Settings(max_time=max(seconds, 1.0))
    plan = analysis.make_plan(obs, settings, iterations=None, time=seconds, multipv=3,
                              seed=seed, jobs=1)
    result = _search(obs, None, seconds, seed, 1, console, "thinking")
    answer = analysis.build_response(plan, result, result.elapsed,
                                     solved=solve_decision(obs.state))
    console.print(_lines_table(answer, "Suggestions: " + _summary(answer)))
    _print_solver_notes(answer, console)


def main() -> None:  # pragma: no cover - console entry
    app()


def split_players(text: str) -> list[str]:
    """``"mcts:time=0.25,c=0.5,greedy"`` -> ``["mcts:time=0.25,c=0.5", "greedy"]``: a
    ``key=value`` part without a bot name belongs to the bot before it."""
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part and specs:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


def _connect_ray(address: str) -> None:
    """Join (or start) the Ray cluster of a ``--ray`` option, or stop with what went
    wrong."""
    from search.distributed import RayUnavailable, connect

    try:
        connect(address)
    except RayUnavailable as exc:
        raise typer.BadParameter(str(exc), param_hint="--ray") from None


@app.command("train-value")
def train_value(
    out: Annotated[Path, typer.Option(help="Write the fitted model here (JSON).")],
    bot: Annotated[str, typer.Option(help="Bot spec playing the self-play games.")]
    = "greedy:eval=learned",
    games: Annotated[int, typer.Option(min=0, help="Games per player count (0: fit only "
                                                   "the --data given).")] = 500,
    players: Annotated[str, typer.Option(help="Player counts, comma separated.")] = "2,3,4",
    seed: Annotated[int, typer.Option(min=0, help="Seed of the series.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Games played in parallel.")] = 1,
    explore: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of moves played "
                                                                  "by the quick policy.")]
    = 0.1,
    ridge: Annotated[float, typer.Option(min=0.0, help="L2 penalty of the fit.")] = 1.0,
    min_rows: Annotated[int, typer.Option(min=1, help="Rows a (players, round, phase) "
                                                      "bucket needs to be fitted.")] = 200,
    data: Annotated[list[Path] | None, typer.Option(help="Recorded games (.npz) to add; "
                                                         "repeatable.")] = None,
    save_data: Annotated[Path | None, typer.Option(help="Also save the games played "
                                                        "(.npz).")] = None,
    ray_address: Annotated[str | None, typer.Option(
        "--ray", help="Play the self-play games on a Ray cluster: 'auto' (the running "
                      "one), an address, or 'local' (start one here).")] = None,
    hidden: Annotated[int, typer.Option(min=0, max=512, help="Hidden units of the "
                                        "residual network on top of the linear fit "
                                        "(0: linear only).")] = 0,
) -> None:
    """Fit the learned evaluator on recorded self-play games; report held-out errors."""
    from search.dataset import Dataset
    from search.selfplay import generate
    from search.training import train

    try:
        counts = tuple(int(x) for x in players.split(","))
    except ValueError:
        raise typer.BadParameter(f"expected numbers like 2,3,4, got {players!r}",
                                 param_hint="--players") from None
    if not counts or any(not 2 <= n <= 4 for n in counts):
        raise typer.BadParameter(f"player counts must be 2-4, got {players!r}",
                                 param_hint="--players")
    try:
        from search.bot_specs import make_bot

        make_bot(bot)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bot") from None
    parts = []
    for path in data or []:
        try:
            parts.append(Dataset.load(str(path)))
        except (OSError, ValueError) as exc:
            raise typer.BadParameter(str(exc), param_hint="--data") from None
    if games == 0 and not parts:
        raise typer.BadParameter("nothing to fit: give --games above 0 or --data",
                                 param_hint="--games")
    if games:
        Console(stderr=True).print(f"self-play: {games} games x {len(counts)} player "
                                   f"counts of {bot}"
                                   + (" on Ray" if ray_address is not None else ""))
        if ray_address is not None:
            from search.distributed import generate_ray

            _connect_ray(ray_address)
            played = generate_ray(bot, games, players=counts, seed=seed, explore=explore,
                                  address=ray_address)
        else:
            played = generate(bot, games, players=counts, seed=seed, explore=explore,
                              jobs=jobs)
        if save_data is not None:
            played.save(str(save_data))
        parts.append(played)
    meta: dict[str, object] = {
        "bot": bot if games else None, "games_per_count": games, "explore": explore,
        "seed": seed, "players": list(counts), "extra_data": [p.name for p in data or []],
    }
    try:
        model, report = train(Dataset.concat(parts), ridge=ridge, min_rows=min_rows,
                              meta=meta, hidden=hidden)
    except ValueError as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(1) from None
    model.save(out)
    for line in report.lines():
        typer.echo(line)
    typer.echo(f"model written to {out}")


@app.command()
def arena(
    players: Annotated[str, typer.Option(help="Bot specs, one per seat, comma separated: "
                                              "random, policy, greedy, mcts:time=0.25, "
                                              "mcts:iterations=400,c=0.05, openspiel-mcts:"
                                              "sims=50, openspiel-ismcts:time=0.25")],
    games: Annotated[int, typer.Option(min=1, help="Number of games.")] = 20,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the series.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Games played in parallel.")] = 1,
    variable: Annotated[bool, typer.Option(help="Variable setup.")] = False,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the report here.")]
    = None,
    csv_out: Annotated[Path | None, typer.Option("--csv", help="Write one row per game.")]
    = None,
    ray_address: Annotated[str | None, typer.Option(
        "--ray", help="Spread the games over a Ray cluster: 'auto' (the running one), "
                      "an address, or 'local' (start one here).")] = None,
) -> None:
    """Play bots against each other (seats rotated) and report wins and money."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    from search.arena import run_arena

    specs = split_players(players)
    try:
        from search.bot_specs import make_bot

        for spec in specs:
            make_bot(spec)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--players") from None
    if not 2 <= len(specs) <= 4:
        raise typer.BadParameter(f"2 to 4 bots, got {len(specs)}", param_hint="--players")
    if ray_address is not None:
        _connect_ray(ray_address)
    console = Console(stderr=True)
    with Progress(TextColumn("[bold]arena"), BarColumn(), TextColumn("{task.completed}/"
                  "{task.total} games"), TimeRemainingColumn(), console=console) as bar:
        task = bar.add_task("games", total=games)
        if ray_address is not None:
            from search.distributed import run_arena_ray

            report = run_arena_ray(specs, games, seed, variable, address=ray_address,
                                   on_game=lambda rec: bar.advance(task))
        else:
            report = run_arena(specs, games, seed, jobs, variable,
                               on_game=lambda rec: bar.advance(task))
    out = Console()
    table = Table(title=f"{games} games, seed {seed}, {report.elapsed:.1f} s")
    for col in ("bot", "wins", "win rate", "95% CI", "money", "cash", "companies",
                "diamonds", "bookkeeping", "keeper games", "s/decision"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for b in report.bots.values():
        lo, hi = b.confidence()
        table.add_row(b.spec, f"{b.wins:g}", f"{b.win_rate:.1%}", f"{lo:.0%}-{hi:.0%}",
                      f"{b.mean(b.money):.1f}", f"{b.mean(b.cash):.1f}",
                      f"{b.mean(b.companies):.1f}", f"{b.mean(b.diamonds):.1f}",
                      f"{b.mean(b.bookkeeping):.1f}", f"{b.keeper_games}/{b.games}",
                      f"{b.think / b.decisions if b.decisions else 0:.3f}")
    out.print(table)
    seats = Table(title="win rate by seat")
    seats.add_column("bot")
    for k in range(len(specs)):
        seats.add_column(f"seat {k + 1}", justify="right")
    for b in report.bots.values():
        seats.add_row(b.spec, *(f"{b.seat_wins.get(k, 0) / g:.1%} ({g})"
                                for k, g in sorted(b.seat_games.items())))
    out.print(seats)
    if json_out is not None:
        json_out.write_text(json.dumps(report.to_json(), indent=1))
    if csv_out is not None:
        import csv

        with csv_out.open("w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["game", "seed", "seat", "bot", "total", "cash", "companies",
                             "diamonds", "bookkeeping", "won"])
            for rec in report.games:
                for seat, spec in enumerate(rec.seats):
                    won = 1 / len(rec.winners) if seat in rec.winners else 0
                    writer.writerow([rec.index, rec.seed, seat + 1, spec, rec.totals[seat],
                                     rec.cash[seat], rec.companies[seat], rec.diamonds[seat],
                                     rec.bookkeeping[seat], won])
