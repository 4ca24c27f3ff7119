"""Every fenced example of README.md and docs/*.md runs, in document order, and answers
what the docs show.

How (the parsing and the checks are in ``tests/doc_examples.py``):

* Each markdown file runs in a temporary folder of its own (a reader follows one page:
  every file it uses is made by that page's own commands), with the venv's ``bin``
  first on ``PATH``, against one ``mombasa serve`` this module starts on a free port
  (``localhost:8000`` in the docs is replaced by its address). Standard input is empty.
* ``sh`` blocks run in bash (``set -euo pipefail``: a placeholder such as ``$ID`` must
  be set by the docs' own commands). A ``curl`` first on ``PATH`` runs the real one and
  records each request's status and body: each must answer 2xx, or the statuses the
  block's ``<!-- doc-test: expect ... -->`` lists. A ``json`` or ``text`` block marked
  ``<!-- doc-test: answer -->`` is the shape of the answer of the request before it.
* ``<!-- doc-test: synopsis -->`` blocks (``mombasa analyse FILE [--time 2s | ...]``):
  every ``--option`` a line shows must be in that command's ``--help``, and the line
  without its ``[...]`` parts runs unless it has a placeholder (``FILE``, ``N``) or
  alternatives (``a | b``). Checking options against ``--help`` rather than running
  every combination keeps this to a minute while still failing on a renamed option.
* ``console`` blocks are transcripts: each ``$`` command runs, its exit status is 0
  or the ``# exit status N`` its comment gives, and the output shown (if any) is the
  output, blanks aside. ``python`` blocks run in Python; ``>>>`` ones as doctests.
* ``json``, ``jsonc`` and ``text`` blocks are data; a block without a language fails
  (say what it is).
* A command that cannot run inside the suite is in ``ELSEWHERE`` with the reason and
  the test that runs it (which must exist); a long run is shrunk by ``REWRITES``, each
  stated and each used. Any other command in the docs is run: a new example is tested
  the day it is written, or this test fails.

``DOC_TEST_SHOW=1 pytest -s tests/test_docs_examples.py`` prints every script it ran.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests import doc_examples as dx
from tests.service_process import serving

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PAGES = [p.relative_to(ROOT).as_posix() for p in DOCS]

# Commands that cannot run inside the suite: command (comments stripped, a synopsis
# without its [...] parts) -> why, and the test that runs it ("file" or "file::test").
ELSEWHERE: dict[str, tuple[str, str]] = {
    "make run": ("serves until stopped; installs the runtime set",
                 "tests/test_install.py::test_make_run_serves_on_the_given_port"),
    "make test": ("the whole suite, this test included", "tests/test_docs_examples.py"),
    "python3 -m venv ~/.mombasa && ~/.mombasa/bin/pip install .": (
        "a fresh virtual environment from the built package (minutes)",
        "tests/test_install.py::test_no_checkout_no_dev_extras"),
    "~/.mombasa/bin/mombasa --version": (
        "the installed package's script", "tests/test_install.py::test_version"),
    "mombasa serve": ("the service this test runs its requests against (the fixture "
                      "starts it with --port and --db)", "tests/test_docs_examples.py"),
    "mombasa train-value --out model.json": (
        "plays 500 games and fits (fewer games fit nothing: 'no bucket has 200 rows')",
        "tests/test_value_model.py::test_cli_train_value_plays_fits_and_writes_a_loadable_model"),
    "python -m benchmarks.train_recipe --round 1 --out r1.npz": (
        "a training round of the shipped model (hours)",
        "tests/test_train_recipe.py::test_a_small_round_plays_the_same_records_locally_and_in_parallel"),
    "python -m benchmarks.train_recipe --fit m1.json r1.npz": (
        "fits on round 1's records (hours to make)",
        "tests/test_value_model.py::test_fit_and_predict_agree_row_by_row"),
    "MOMBASA_VALUE_MODEL=m1.json python -m benchmarks.train_recipe --round 2 --out r2.npz": (
        "a training round (hours)",
        "tests/test_train_recipe.py::test_a_small_round_plays_the_same_records_locally_and_in_parallel"),
    "python -m benchmarks.train_recipe --fit search/data/value_model.json r1.npz r2.npz": (
        "refits the shipped model on hours of records",
        "tests/test_value_model.py::test_fit_and_predict_agree_row_by_row"),
    "mombasa train-value --bot greedy:eval=learned --games 300 --players 2 --jobs 2 "
    "--save-data more.npz --data r1.npz --data r2.npz --out model.json": (
        "300 games on top of the recipe's rounds",
        "tests/test_value_model.py::test_cli_train_value_plays_fits_and_writes_a_loadable_model"),
    ".venv/bin/pytest benchmarks/test_solver_speed.py --benchmark-enable -o addopts='' "
    "--benchmark-json=out.json": ("the solver benchmarks (make bench)",
                                  "benchmarks/test_solver_speed.py::test_expansion_8_points"),
    ".venv/bin/pytest tests/test_solvers.py -m slow -o addopts='' -s": (
        "the slow run of the solver checks (minutes; pytest -m slow)",
        "tests/test_solvers.py::test_expansion_is_deterministic"),
    "python -m benchmarks.load.fair_share --scenario all --duration 60": (
        "the load test, three scenarios of a minute each against their own service",
        "tests/test_load_harness.py::test_the_long_scenario_reports_the_victims_figures"),
    ".venv/bin/python -m benchmarks.ladder run --out benchmarks/ladder --jobs 1 "
    "--write search/data/ladder.json": (
        "the rating ladder's games (about 90 minutes on two cores)",
        "tests/test_ladder.py::test_the_command_plays_resumes_and_writes_the_ratings"),
    ".venv/bin/python -m benchmarks.ladder fit benchmarks/ladder --json ladder.json": (
        "fits the journals of the checkout's benchmarks/ladder (not in a page's folder)",
        "tests/test_ladder.py::test_the_command_plays_resumes_and_writes_the_ratings"),
    "python -m benchmarks.review_quality thresholds --games 6 --every 2 --iterations 1000 "
    "--json thresholds.json": (
        "the review's loss distributions on six games of a strong search (20 minutes)",
        "tests/test_review.py::test_the_thresholds_measurement_runs_shrunk"),
    "python -m benchmarks.review_quality speed --seed 7 --json speed.json": (
        "a game reviewed at 1,000 and 4,000 iterations a decision (10 minutes)",
        "tests/test_review.py::test_the_speed_measurement_runs_shrunk"),
    "python -m benchmarks.review_quality quality --games 20 --per-game 3 --json quality.json": (
        "twenty games played and reviewed for both seats (an hour)",
        "tests/test_review.py::test_the_quality_measurement_runs_shrunk"),
    "python -m benchmarks.deep_agreement reference --positions 80 --base 1000 --out REF.json": (
        "160 searches of 16,000 iterations (about 40 minutes on two cores)",
        "tests/test_search_targets.py::test_a_tiny_reference_and_measure_run_end_to_end"),
    "python -m benchmarks.deep_agreement measure "
    "benchmarks/strength/agreement/reference_base1000.json --spec mcts:iterations=1000": (
        "80 searches of 1,000 iterations (about a minute)",
        "tests/test_search_targets.py::test_a_tiny_reference_and_measure_run_end_to_end"),
    "python -m benchmarks.strength list": (
        "the checkout's benchmarks package (not in a page's folder)",
        "tests/test_strength_series.py::test_list_prints_every_series_command"),
    "python -m benchmarks.strength check": (
        "reads the checkout's journals and reports (not in a page's folder)",
        "tests/test_strength_series.py::test_every_committed_report_holds_its_journals_games"),
    "MOMBASA_VALUE_MODEL=FILE python -m benchmarks.strength run all --folder DIR": (
        "the whole table with another model (hours)",
        "tests/test_strength_series.py::test_run_plays_into_another_folder"),
    "python -m benchmarks.strength run vs_greedy --jobs 2": (
        "200 games of the search at 0.25 s a decision (about 25 minutes)",
        "tests/test_strength_series.py::test_a_series_plays_resumes_and_is_checked"),
    "scripts/ensure-chromium.sh": ("installs a system package (make test runs it)",
                                   "tests/test_web_layout.py"),
    "scripts/ensure-axe.sh": ("installs axe-core with npm (make test runs it)",
                              "tests/test_web_layout.py"),
    ".venv/bin/pytest -o addopts='' tests/test_web_layout.py tests/test_web.py "
    "tests/test_web_chance_entry.py tests/test_web_catalogue.py "
    "tests/test_web_catalogue_editor.py": ("browser tests, part of the suite",
                                           "tests/test_web.py"),
}

# docs/deploy.md: the set-up of a database machine and of replicas (root, other machines),
# and the one-machine trial (a PostgreSQL cluster and two replicas of its own).
_DEPLOY_TRIAL = ("docs/deploy.md's trial: its own PostgreSQL cluster and two replicas",
                 "tests/test_deploy_doc.py::test_the_one_machine_trial_runs")
ELSEWHERE.update({
    "sudo apt-get install -y postgresql": (
        "installs a system package as root (scripts/ensure-postgres.sh does when missing)",
        "tests/test_deploy_doc.py::test_the_one_machine_trial_runs"),
    "sudo -u postgres createuser --pwprompt mombasa": (
        "a role on the database machine (asks a password)", "tests/test_store_backends.py"),
    "sudo -u postgres createdb --owner mombasa mombasa": (
        "a database on the database machine (the tests make theirs)",
        "tests/test_store_backends.py"),
    "mombasa db migrate --from mombasa.db --to postgresql://mombasa:PASSWORD@10.0.0.10/mombasa": (
        "needs a PostgreSQL server", "tests/test_db_migrate.py"),
    "MOMBASA_DB=postgresql://mombasa:PASSWORD@10.0.0.10/mombasa MOMBASA_TRUSTED_PROXIES=10.0.0.5 "
    "mombasa serve --host 0.0.0.0 --port 8000 --allow-host play.example.org": (
        "a replica on its machine (two on one machine: the test)", "tests/test_replicas.py"),
    **dict.fromkeys((
        "url=$(sh scripts/ensure-postgres.sh)",
        'mombasa serve --port 8001 --db "$url" --log-level warning &',
        'mombasa serve --port 8002 --db "$url" --log-level warning &',
        "until curl -sf localhost:8001/v1/health >/dev/null && curl -sf "
        "localhost:8002/v1/health >/dev/null; do sleep 0.5; done",
        "game=$(curl -s localhost:8001/v1/games -H 'content-type: application/json' -d "
        '\'{"seats": [{"kind": "ai", "bot": "random"}, {"kind": "ai", "bot": "random"}]}\')',
        'id=$(echo "$game" | python3 -c \'import json, sys; print(json.load(sys.stdin)["id"])\')',
        'curl -s "localhost:8002/v1/games/$id?wait=10" | python3 -c \'import json, sys; v = '
        'json.load(sys.stdin); print(v["steps"], "steps, read on the other replica")\'',
        "kill $(jobs -p)"), _DEPLOY_TRIAL),
})

# docs/api.md, "Searches on a Ray cluster": a cluster of two nodes and a service on it
# (tests/test_ray_pool.py starts the same two nodes with ray.cluster_utils.Cluster and
# stops its own processes: `ray stop` would end every Ray process of the machine).
_RAY_POOL = "tests/test_ray_pool.py::test_the_pool_is_the_clusters_actors"
ELSEWHERE.update({
    "ray start --head --port 6390 --num-cpus 1": (
        "a Ray head node left running (the test starts its own)", _RAY_POOL),
    "RAY_AUTH_MODE=token ray start --address 127.0.0.1:6390 --num-cpus 1": (
        "a second Ray node left running (the test starts its own)", _RAY_POOL),
    "RAY_AUTH_MODE=token mombasa serve --ray 127.0.0.1:6390": (
        "serves until stopped, on a cluster (the test's service joins its own)", _RAY_POOL),
    "ray stop": ("ends every Ray process of the machine, others' too", _RAY_POOL),
    "python -m benchmarks.ray_pool --clients 2,4 --duration 30 --json ray_pool.json": (
        "four load runs of 30 s against their own services (five minutes)",
        "tests/test_ray_pool.py::test_the_benchmark_runs_shrunk"),
})

# Rewrites of commands before they run: (page, text, replacement, why). Each must be used.
REWRITES: list[tuple[str, str, str, str]] = [
    ("README.md", "--games 200", "--games 2",
     "a 200-game arena takes an hour: 2 games show it is accepted and reports"),
    ("docs/api.md", '/events -H "$AUTH"', '/events -H "$AUTH" --max-time 2',
     "the stream of a game's changes never ends by itself: read it for 2 s"),
]
# A console session's "$ $EDITOR FILE  # what is changed": the editor is the reader's, so
# the change its comment names is made in Python on the catalogue ``c``. Each must be used.
EDITS = {
    ("docs/catalogue.md", "books[12] pays 3 pounds; a slip: regions[3] pays -1"):
        'c["books"][12]["reward"]["pounds"] = 3; c["regions"][3]["reward"]["pounds"] = -1',
    ("docs/catalogue.md", "regions[3] pays 2 pounds"): 'c["regions"][3]["reward"]["pounds"] = 2',
}
EDITOR = ("python3 -c 'import json, sys; f = sys.argv[1]; c = json.load(open(f)); "
          "exec(sys.argv[2]); json.dump(c, open(f, \"w\"), indent=1)'")
BLOCK_TIMEOUT = 180  # seconds per block (the arena and the AI game are the longest)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    for tool in ("curl", "bash"):
        if shutil.which(tool) is None:
            pytest.fail(f"the docs' examples need {tool} on PATH")
    if not (BIN / "mombasa").exists():
        pytest.fail(f"no mombasa script next to {sys.executable}: install the package "
                    "(pip install -e '.[dev]')")
    tmp = tmp_path_factory.mktemp("docs-service")
    with serving(tmp / "games.db", tmp / "serve.log", {"MOMBASA_WORKERS": "2"}) as (_, base):
        yield base


@dataclass
class Page:
    """One markdown file being run: its folder, environment and the requests so far."""

    name: str
    folder: Path
    base: str
    used: set[str] = field(default_factory=set)
    requests: int = 0
    failures: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)  # every script run (DOC_TEST_SHOW=1)

    @property
    def log(self) -> Path:
        return self.folder / ".requests"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MOMBASA_")}
        fake = self.folder / ".bin"
        env.update(PATH=f"{fake}{os.pathsep}{BIN}{os.pathsep}{env.get('PATH', '')}",
                   DOC_TEST_LOG=str(self.log), DOC_TEST_CURL=str(shutil.which("curl")),
                   COLUMNS="100", NO_COLOR="1")
        return env

    def prepare(self) -> None:
        self.log.mkdir(parents=True)
        fake = self.folder / ".bin"
        fake.mkdir()
        curl = fake / "curl"
        curl.write_text(CURL)
        curl.chmod(0o755)

    def rewrite(self, command: str) -> str:
        for page, old, new, _why in REWRITES:
            if page == self.name and old in command:
                self.used.add(old)
                command = command.replace(old, new)
        return command.replace("localhost:8000", self.base.removeprefix("http://")
                               .replace("127.0.0.1", "localhost"))

    def run(self, script: str) -> subprocess.CompletedProcess[str]:
        self.ran.append(script)
        try:
            return subprocess.run(["bash", "-c", script], cwd=self.folder,
                                   env=self.env(), stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, timeout=BLOCK_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(f"timed out after {BLOCK_TIMEOUT} s: {script}") from exc

    def statuses(self) -> list[tuple[int, str]]:
        """(status, body) of the requests since the last call."""
        count_file = self.log / "count"
        count = int(count_file.read_text()) if count_file.exists() else 0
        out = []
        for n in range(self.requests + 1, count + 1):
            heads = (self.log / f"{n}.headers").read_text(errors="replace")
            codes = re.findall(r"^HTTP/\S+ (\d{3})", heads, re.M)
            body = (self.log / f"{n}.body").read_text(errors="replace")
            out.append((int(codes[-1]) if codes else 0, body))
        self.requests = count
        return out


# The docs' curl: the real one, each request's headers and body kept for the checks.
CURL = """#!/usr/bin/env bash
n=$(( $(cat "$DOC_TEST_LOG/count" 2>/dev/null || echo 0) + 1 ))
echo "$n" > "$DOC_TEST_LOG/count"
"$DOC_TEST_CURL" --max-time 60 -D "$DOC_TEST_LOG/$n.headers" "$@" | tee "$DOC_TEST_LOG/$n.body"
rc=${PIPESTATUS[0]}
# a stream read for a while (--max-time) ends with 28, as Ctrl-C would
if [ "$rc" = 28 ] && grep -qi '^content-type: text/event-stream' "$DOC_TEST_LOG/$n.headers"
then rc=0; fi
exit "$rc"
"""


def _mapped(command: str) -> bool:
    return " ".join(command.split()) in ELSEWHERE or dx.drop_optional(command) in ELSEWHERE


def _run_sh(page: Page, block: dx.Block, last: list[str]) -> None:
    script = ["set -euo pipefail"]
    for command in dx.commands(block.text):
        if not _mapped(command):
            script.append(page.rewrite(command))
    if len(script) == 1:
        return
    done = page.run("\n".join(script))
    answers = page.statuses()
    if done.returncode != 0:
        page.failures.append(f"{block.where}: exit status {done.returncode}\n"
                             f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        return
    want = block.directives.get("expect")
    got = [s for s, _ in answers]
    if want is not None:
        if [str(s) for s in got] != want:
            page.failures.append(f"{block.where}: statuses {got}, the docs say {want}\n"
                                 + "\n".join(b[:300] for _, b in answers))
    else:
        for status, body in answers:
            if not 200 <= status < 300:
                page.failures.append(f"{block.where}: a request answered {status}: "
                                     f"{body[:500]}")
    if answers:
        last[:] = [answers[-1][1]]


def _run_synopsis(page: Page, block: dx.Block, helps: dict[str, str]) -> None:
    for command in dx.commands(block.text):
        words = command.split()
        prefix = _prefix(words, helps)
        if prefix is None:
            page.failures.append(f"{block.where}: {command!r}: not a mombasa or "
                                 "python -m command")
            continue
        text = helps[" ".join(prefix)]
        for opt in dx.options(command):
            if not re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", text):
                page.failures.append(f"{block.where}: {' '.join(prefix)} has no {opt} "
                                     "(not in its --help)")
        core = dx.drop_optional(command)
        if not dx.runnable(core) or _mapped(core):
            continue
        done = page.run(page.rewrite(core))
        if done.returncode != 0:
            page.failures.append(f"{block.where}: {core!r}: exit status {done.returncode}"
                                 f"\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}")


def _prefix(words: list[str], helps: dict[str, str]) -> list[str] | None:
    """The command a synopsis is about (``mombasa solve expansion``), its --help read."""
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # an environment setting
        words = words[1:]
    if not words:
        return None
    if words[:2] == ["python", "-m"] and len(words) > 2:
        prefix = words[:3]
        sub = words[:4] if len(words) > 3 else []
        if sub and re.fullmatch(r"[a-z][a-z-]*", words[3]) and _help(sub, helps).startswith(
                "Usage: " + " ".join(sub) + " "):  # a subcommand (deep_agreement measure)
            prefix = sub
    elif words[0] == "mombasa" and len(words) > 1:
        prefix = words[:2]
        sub = [*prefix, words[2]] if len(words) > 2 else []
        if sub and re.fullmatch(r"[a-z][a-z-]*", words[2]) and _help(sub, helps).startswith(
                "Usage: " + " ".join(sub) + " "):  # a group's command (solve expansion)
            prefix = sub
    else:
        return None
    _help(prefix, helps)
    return prefix


def _help(prefix: list[str], helps: dict[str, str]) -> str:
    key = " ".join(prefix)
    if key not in helps:
        argv = [str(BIN / "mombasa"), *prefix[1:]] if prefix[0] == "mombasa" else \
            [sys.executable, *prefix[1:]]
        done = subprocess.run([*argv, "--help"], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
                              timeout=60)
        words = " ".join(done.stdout.replace("│", " ").split())
        helps[key] = words.replace("usage: ", "Usage: ", 1) if done.returncode == 0 else ""
        if prefix[0] == "python":  # argparse names the script, not the module
            helps[key] = re.sub(r"^Usage: \S+", "Usage: " + key, helps[key])
    return helps[key]


def _run_console(page: Page, block: dx.Block) -> None:
    for command, note, shown in dx.console_session(block.text):
        if "$EDITOR" in command:
            command = _edit(page, command, note, block)
        elif _mapped(command):
            continue
        done = page.run(page.rewrite(command))
        status = re.search(r"exit status (\d+)", note)
        want = int(status.group(1)) if status else 0
        output = done.stdout + done.stderr
        if done.returncode != want:
            page.failures.append(f"{block.where}: {command!r}: exit status "
                                 f"{done.returncode}, the docs say {want}\n{output[-1500:]}")
        if shown and " ".join(output.split()) != " ".join(" ".join(shown).split()):
            page.failures.append(f"{block.where}: {command!r} printed\n{output}\n"
                                 f"the docs show\n" + "\n".join(shown))


def _edit(page: Page, command: str, note: str, block: dx.Block) -> str:
    """``$EDITOR FILE`` of a session: the edits its comment names (``EDITS``)."""
    edits = EDITS.get((page.name, note))
    words = command.split()
    if edits is None or len(words) != 2:
        raise AssertionError(f"{block.where}: no edit for {command!r} # {note!r} in EDITS")
    page.used.add(note)
    return f"{EDITOR} {words[1]} {_quote(edits)}"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _run_python(page: Page, block: dx.Block) -> None:
    source = page.folder / f".block-{block.line}.py"
    source.write_text(block.text + "\n")
    if ">>> " in block.text:
        script = (f"{sys.executable} -c 'import doctest, sys; r = doctest.testfile(sys.argv[1],"
                  " module_relative=False, optionflags=doctest.ELLIPSIS); "
                  f"sys.exit(r.failed or not r.attempted)' {source}")
    else:
        script = f"{sys.executable} {source}"
    done = page.run(script)
    if done.returncode != 0:
        page.failures.append(f"{block.where}: the Python example failed\n"
                             f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def _check_answer(page: Page, block: dx.Block, last: list[str]) -> None:
    if not last:
        page.failures.append(f"{block.where}: an answer, but no request ran before it")
        return
    if block.lang == "text":
        errors = dx.stream_errors(block.text, last[0])
    else:
        try:
            real = json.loads(last[0])
        except json.JSONDecodeError:
            page.failures.append(f"{block.where}: the answer is not JSON: {last[0][:300]}")
            return
        errors = dx.shape_errors(dx.parse_answer(block), real,
                                 block.option("answer", "optional"),
                                 block.option("answer", "loose"))
    for e in errors:
        page.failures.append(f"{block.where}: {e}")


@pytest.mark.parametrize("name", PAGES)
def test_docs_examples(name: str, service: str, tmp_path: Path) -> None:
    """The page's examples run in order and answer what it shows."""
    page = Page(name, tmp_path, service)
    page.prepare()
    helps: dict[str, str] = {}
    last: list[str] = []
    for block in dx.blocks(ROOT / name, ROOT):
        if "synopsis" in block.directives:
            assert block.lang == "sh", f"{block.where}: a synopsis is an sh block"
            _run_synopsis(page, block, helps)
        elif block.lang == "sh":
            _run_sh(page, block, last)
        elif block.lang == "console":
            _run_console(page, block)
        elif block.lang == "python":
            _run_python(page, block)
        elif block.lang in dx.DATA_LANGS:
            if "answer" in block.directives:
                _check_answer(page, block, last)
        else:
            page.failures.append(f"{block.where}: a fenced block needs a language: sh, "
                                 "console, python (run) or json, jsonc, text (data)")
    unused = [old for p, old, _, _ in REWRITES if p == name and old not in page.used]
    unused += [note for p, note in EDITS if p == name and note not in page.used]
    assert not unused, f"rewrites of {name} that no command uses any more: {unused}"
    assert not page.failures, "\n\n".join(page.failures)
    if os.environ.get("DOC_TEST_SHOW"):
        print(f"\n== {name}: {len(page.ran)} runs, {page.requests} requests")
        print("\n--\n".join(page.ran))


def test_every_command_run_elsewhere_is_in_the_docs_and_its_test_exists() -> None:
    shown: set[str] = set()
    for path in DOCS:
        for block in dx.blocks(path, ROOT):
            if block.lang == "sh":
                for command in dx.commands(block.text):
                    shown.add(" ".join(command.split()))
                    shown.add(dx.drop_optional(command))
    assert not set(ELSEWHERE) - shown, f"not in the docs any more: {set(ELSEWHERE) - shown}"
    for command, (_why, test) in ELSEWHERE.items():
        file, _, name = test.partition("::")
        assert (ROOT / file).is_file(), f"{command!r}: no {file}"
        if name:
            tree = ast.parse((ROOT / file).read_text())
            names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
            assert name in names, f"{command!r}: no test {name} in {file}"


def test_random_game_stops_at_a_player_decision(tmp_path: Path) -> None:
    """The docs dump positions with ``random-game --stop-at K``: it stops at the first
    player decision at or after step K (step 80 of this game is a chance event)."""
    import random

    import engine

    s = engine.new_game(players=2, seed=3)
    rng = random.Random(3)
    for _ in range(80):
        s = s.apply_unchecked(s.random_step(rng))
    assert s.decision.is_chance  # so the stop below is not at step 80
    done = subprocess.run([str(BIN / "mombasa"), "random-game", "--players", "2", "--seed",
                           "3", "--stop-at", "80", "--dump-state", "pos.json", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["steps"] > 80
    dumped = engine.state_from_json(json.loads((tmp_path / "pos.json").read_text()))
    assert not dumped.decision.is_chance and not dumped.is_over()


def test_blocks_commands_and_directives_are_read_as_written(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("text\n<!-- doc-test: expect 201 409 -->\n```sh\ncurl a \\\n  -d 'x # y'"
                    "  # z\n# only a comment\n\nls\n```\n```\nplain\n```\n")
    first, second = dx.blocks(page, tmp_path)
    assert (first.lang, first.line, first.directives) == ("sh", 3, {"expect": ["201", "409"]})
    assert dx.commands(first.text) == ["curl a -d 'x # y'", "ls"]
    assert (second.lang, second.directives) == ("", {})
    page.write_text("<!-- doc-test: answer -->\n\n```json\n{}\n```\n")
    with pytest.raises(ValueError, match="right above a fence"):
        dx.blocks(page, tmp_path)


def test_the_checks_fail_on_a_wrong_answer() -> None:
    """The shape and stream checks report what differs (so the docs test can fail)."""
    doc = {"id": "x", "lines": [{"rank": 1, "solver": {}}, "..."], "n": 1, "more": None}
    assert dx.shape_errors(doc, {"id": "y", "lines": [{"rank": 2, "solver": {}}], "n": 3,
                                 "more": [1]}) == []
    assert dx.shape_errors(doc, {"id": 1, "lines": [{"rank": 2}], "n": 1, "more": 1}) == [
        "id: the docs show string, the answer has number",
        "lines[].solver: missing from the answer"]
    assert dx.shape_errors(doc, {"id": "", "lines": [{"rank": 2}], "n": 1, "more": 0},
                           optional=frozenset({"lines[].solver"})) == []
    assert dx.shape_errors(doc, {"id": "", "lines": [], "n": 1}) == [
        "lines: empty, the docs show items", "more: missing from the answer"]
    assert dx.stream_errors("event: lines\ndata: {...}\nevent: done",
                            "event: lines\ndata: {}\n\nevent: done\ndata: {}") == []
    assert dx.stream_errors("event: lines\nevent: done", "event: done\nevent: lines") != []
    assert dx.runnable("mombasa solve expansion position.json --company CAI")
    assert not dx.runnable("mombasa analyse STATE.json")
    assert dx.drop_optional("mombasa a [--x N [--y]] --z") == "mombasa a --z"
