"""harness.scoring.assignment: scipy's assignment solver loaded without `scipy.optimize`."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from harness.scoring.assignment import linear_sum_assignment


def test_the_loaded_solver_is_the_one_scipy_optimize_exports():
    from scipy.optimize import linear_sum_assignment as public

    assert linear_sum_assignment is public


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (6, 4), (12, 12)])
def test_it_solves_as_the_public_solver_does_ties_included(shape):
    from scipy.optimize import linear_sum_assignment as public

    rng = np.random.default_rng(sum(shape))
    for _ in range(20):
        weights = rng.integers(0, 3, size=shape).astype(float)  # many ties
        for maximize in (True, False):
            ours = linear_sum_assignment(weights, maximize=maximize)
            theirs = public(weights, maximize=maximize)
            assert [a.tolist() for a in ours] == [a.tolist() for a in theirs]


def test_scoring_a_case_loads_no_scipy_optimize_package():
    """Aligning names needs the solver only: `scipy.optimize` (about 50 MB) stays unimported."""
    code = (
        "import json, sys\n"
        "from harness.scoring.align import align\n"
        "from harness.scoring.assignment import linear_sum_assignment\n"
        "print(linear_sum_assignment([[1.0, 0.0], [0.0, 1.0]], maximize=True)[1].tolist())\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('scipy'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == "[0, 1]"
    assert json.loads(lines[1]) == ["scipy.optimize._lsap"]
