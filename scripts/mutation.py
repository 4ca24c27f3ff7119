#!/usr/bin/env python3
"""Mutation testing of the search, the evaluator and the rules with mutmut (docs/testing.md).

    .venv/bin/python scripts/mutation.py MODULE [--tree DIR] [--sample N] [--seed S]

MODULE is one of ``mcts``, ``evaluator``, ``features``, ``observation``, ``rules``. The
run happens in a scratch copy (``--work``, default ``/tmp/mombasa-mutation/<tree>-<module>``)
of the tree's files (``--tree``, default this checkout, uncommitted edits included), so
the working tree is never touched and an older commit can be measured from a
``git worktree``. The copy's ``[tool.mutmut]`` is rewritten for the module: the one file
(or package) mutated and the module's fast test subset (:data:`MODULES`; each pattern is
expanded in the tree, so an older commit runs the test files it had). One worker
(``--children``), niced. At the end: the score (caught / total, where caught is killed
plus timed out: a mutant that hangs the tests fails them), the count of each outcome,
and the survivors (with their diffs in ``<work>/survivors.txt``).

``--sample N`` tests N mutants drawn at random (``--seed``) from all those generated,
for a module too large to test whole on a busy machine (the rules).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# module -> (files mutated, test files run against them). mutmut runs, for each mutant,
# only the tests of the subset that call the mutated function; a surviving mutant costs
# the whole of those, so each subset is the module's own fast tests.
EVALUATOR_TESTS = ["tests/test_features*.py", "tests/test_evaluator*.py",
                   "tests/test_value_model.py"]
MODULES: dict[str, tuple[list[str], list[str]]] = {
    "mcts": (["search/mcts.py"], ["tests/test_search*.py"]),
    "evaluator": (["search/evaluator.py"], EVALUATOR_TESTS),
    "features": (["search/features.py"], EVALUATOR_TESTS),
    "observation": (["engine/observation.py"],
                    ["tests/test_observation.py", "tests/test_determinize*.py",
                     "tests/test_search*.py"]),
    # Not tests/test_properties.py (random whole games: 25 s a surviving mutant).
    "rules": (["engine/rules/*.py"],
              ["tests/test_rules_*.py", "tests/test_observation.py", "tests/test_scenarios.py"]),
}
# Packages and files the tests import or read (copied unmutated beside the mutants).
SOURCES = ["engine", "search", "advisor_api"]
ALSO_COPY = ["benchmarks", "Makefile", "README.md", "docs"]
# Deterministic property tests (the same examples for every mutant) and no cache files.
PYTEST_ARGS = ["--hypothesis-seed=0", "-p", "no:cacheprovider"]
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
          34: "skipped", 36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout",
          255: "timeout", None: "not checked"}


def tree_files(tree: Path) -> list[str]:
    """Files of the tree: tracked and untracked-but-not-ignored (edits included)."""
    out = subprocess.run(["git", "-C", str(tree), "ls-files", "-co", "--exclude-standard"],
                         check=True, capture_output=True, text=True).stdout
    return [f for f in out.splitlines() if (tree / f).is_file()]


def mutmut_section(mutate: list[str], tests: list[str]) -> str:
    def arr(xs: list[str]) -> str:
        return "[" + ", ".join(json.dumps(x) for x in xs) + "]"
    return ("\n[tool.mutmut]\n"
            f"source_paths = {arr(SOURCES)}\n"
            f"only_mutate = {arr(mutate)}\n"
            f"also_copy = {arr(ALSO_COPY)}\n"
            f"pytest_add_cli_args_test_selection = {arr(tests)}\n"
            f"pytest_add_cli_args = {arr(PYTEST_ARGS)}\n"
            "use_git_change_detection = false\n"
            # A mutant looping forever is stopped after 2 x (its tests' time + 5 s) of
            # CPU (mutmut's default, 30 x (time + 1 s), costs minutes per such mutant).
            "timeout_multiplier = 1.0\ntimeout_constant = 5.0\n")


def prepare(tree: Path, work: Path, module: str) -> list[str]:
    """A fresh copy of ``tree`` in ``work`` configured for ``module``; its test files."""
    mutate, patterns = MODULES[module]
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for f in tree_files(tree):
        dest = work / f
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(tree / f, dest)
    tests = sorted({t for p in patterns for t in glob.glob(p, root_dir=work)})
    pyproject = (work / "pyproject.toml").read_text()
    pyproject = re.sub(r"\n\[tool\.mutmut\]\n(?:(?!\n\[)[\s\S])*", "\n", pyproject)
    (work / "pyproject.toml").write_text(pyproject + mutmut_section(mutate, tests))
    return tests


def mutmut(work: Path, args: list[str], log: str = "mutmut.log") -> str:
    """Run ``mutmut ARGS`` in ``work`` (niced); its output goes to ``work/log``."""
    exe = Path(sys.executable).parent / "mutmut"
    env = dict(os.environ, PYTHONPATH="", PYTHONDONTWRITEBYTECODE="1")
    with open(work / log, "w") as out:
        subprocess.run(["nice", "-n", "10", str(exe), *args], cwd=work, env=env,
                       stdout=out, stderr=subprocess.STDOUT)
    return (work / log).read_text()


def all_mutants(work: Path) -> list[str]:
    """Generate the mutants (no test run) and list their names."""
    code = ("import mutmut.__main__ as m\n"
            "from mutmut.utils.file_utils import copy_src_dir, copy_also_copy_files\n"
            "import os; os.makedirs('mutants', exist_ok=True)\n"
            "copy_src_dir(); copy_also_copy_files(); m.create_mutants(1)\n")
    exe = Path(sys.executable).parent / "python"
    subprocess.run([str(exe), "-c", code], cwd=work, check=True, capture_output=True)
    return sorted(name for _, data in metas(work) for name in data)


def metas(work: Path) -> list[tuple[str, dict[str, int | None]]]:
    out = []
    for meta in sorted((work / "mutants").rglob("*.py.meta")):
        data = json.loads(meta.read_text())["exit_code_by_key"]
        if data:
            out.append((str(meta.relative_to(work / "mutants"))[:-5], data))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("module", choices=sorted(MODULES))
    ap.add_argument("--tree", type=Path, default=ROOT, help="checkout to measure")
    ap.add_argument("--work", type=Path, help="scratch directory (recreated)")
    ap.add_argument("--children", type=int, default=1, help="mutmut worker processes")
    ap.add_argument("--sample", type=int, help="test this many mutants drawn at random")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample")
    ap.add_argument("--resume", action="store_true",
                    help="go on with the run in --work (its copy and results kept)")
    ap.add_argument("--report", action="store_true",
                    help="only summarise the last run in --work (no new run)")
    ap.add_argument("--restrict", type=Path,
                    help="with --report: count only the mutants named in this file (e.g. "
                         "another run's sample.txt, to compare on the same mutants)")
    ap.add_argument("--only", nargs="*", default=[],
                    help="mutant name patterns (e.g. 'search.mcts.xǁMCTSǁ_select*')")
    a = ap.parse_args()
    tree = a.tree.resolve()
    work = a.work or Path("/tmp/mombasa-mutation") / f"{tree.name}-{a.module}"
    sample_file = work / "sample.txt"
    if a.resume:
        pyproject = (work / "pyproject.toml").read_text()
        old = re.search(r"\n\[tool\.mutmut\]\n(?:(?!\n\[)[\s\S])*", pyproject)
        assert old is not None
        found = re.search(r"test_selection = (\[.*\])", old.group(0))
        assert found is not None
        tests = json.loads(found.group(1))
        names = sample_file.read_text().split() if sample_file.exists() else list(a.only)
        (work / "pyproject.toml").write_text(
            pyproject.replace(old.group(0), "\n") + mutmut_section(MODULES[a.module][0], tests))
        print(f"resuming {work}: log in {work / 'mutmut.log'}", flush=True)
        mutmut(work, ["run", "--max-children", str(a.children), *names])
    elif not a.report:
        tests = prepare(tree, work, a.module)
        print(f"tree {tree} -> {work}\nmutating {MODULES[a.module][0]}\n"
              f"tests {' '.join(tests)}", flush=True)
        names = list(a.only)
        if a.sample:
            everything = all_mutants(work)
            names = sorted(random.Random(a.seed).sample(everything,
                                                        min(a.sample, len(everything))))
            sample_file.write_text("".join(n + "\n" for n in names))
            print(f"sample: {len(names)} of {len(everything)} mutants (seed {a.seed})",
                  flush=True)
        print(f"mutmut run: log in {work / 'mutmut.log'}", flush=True)
        mutmut(work, ["run", "--max-children", str(a.children), *names])
    sampled = sample_file.read_text().split() if sample_file.exists() else None
    if a.restrict:
        sampled = a.restrict.read_text().split()
    counts: Counter[str] = Counter()
    survivors = []
    chosen = set(sampled) if sampled else None
    for _path, data in metas(work):
        for name, code in data.items():
            if chosen is not None and name not in chosen:
                continue
            if code is None:  # not run (an interrupted run, or outside --only)
                counts["not checked"] += 1
                continue
            status = STATUS.get(code, "suspicious")
            counts[status] += 1
            if status not in ("killed", "timeout"):
                survivors.append(f"{name}: {status}")
    # Each survivor with its diff (``mutmut show``), for triage.
    shown = [mutmut(work, ["show", s.split(":")[0]], "show.log") for s in survivors]
    (work / "survivors.txt").write_text("".join(d + "\n" for d in shown))
    unchecked = counts.pop("not checked", 0)
    total = sum(counts.values())
    caught = counts["killed"] + counts["timeout"]  # a mutant that hangs the tests fails them
    print(f"\n{a.module}: caught {caught} / {total} ({100 * caught / max(1, total):.1f}%): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
          + (f" ({unchecked} not checked)" if unchecked else ""))
    for s in survivors:
        print("  " + s)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
