"""docs/deploy.md, "Try it on one machine", run as written (marker ``postgres``): the
throwaway cluster, two replicas on two ports (free ones instead of 8001 and 8002), a
game created on one and read on the other. tests/test_docs_examples.py lists its
commands as run here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.service_process import free_port

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "deploy.md"


def trial_block() -> str:
    """The first ``sh`` block after the heading "Try it on one machine"."""
    text = DOC.read_text()
    after = text.split("## Try it on one machine", 1)[1]
    match = re.search(r"```sh\n(.*?)```", after, re.S)
    assert match, "docs/deploy.md: no sh block under 'Try it on one machine'"
    return match.group(1)


def test_the_one_machine_trial_runs() -> None:
    script = trial_block()
    for port in ("8001", "8002"):
        assert f"localhost:{port}" in script and f"--port {port}" in script
        script = script.replace(port, str(free_port()))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
           "MOMBASA_WORKERS": "1"}
    done = subprocess.run(["bash", "-c", "set -euo pipefail\ntrap 'kill $(jobs -p) "
                           "2>/dev/null || true' EXIT\n" + script], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    steps = re.search(r"^(\d+) steps, read on the other replica$", done.stdout, re.M)
    assert steps and int(steps.group(1)) > 0, done.stdout
