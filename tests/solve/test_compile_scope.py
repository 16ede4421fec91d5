"""A Pig solve compiles only the die sweep, its hint the plain sweep (issue 31: compile what a command uses)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

SOLVE_PIG = """
from pigdice.rules.registry import find_variant
from pigdice.solve.solver import solve_uncached
from pigdice.solve.two import diesweep, rollhold

policy = solve_uncached(find_variant("pig", goal=30))
policy.turn(3, 20)  # a hint's row: the same plain sweep, recording
compiled = {
    name: len(getattr(rollhold, name).signatures)
    for name in ("_levels", "_plain_sweep", "_turn_sweep", "_chain_sweep", "sweep_rows", "_general_turn_row")
}
compiled["_die_levels"] = len(diesweep._die_levels.signatures)
print(compiled)
"""


def test_a_pig_solve_and_hint_compile_only_the_die_and_plain_sweeps(tmp_path: Path) -> None:
    # an empty kernel cache: kernels loaded from a cache list no signatures for the ones they call
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", SOLVE_PIG], capture_output=True, text=True, check=True, env=env)
    compiled = ast.literal_eval(result.stdout.strip().splitlines()[-1])
    assert compiled["_die_levels"] == 1, "Pig's levels are the die sweep's"
    assert compiled["_levels"] == 0, "the other sweeps' level loop was compiled for Pig"
    assert compiled["_plain_sweep"] == 1, "the hint's recording sweep is the solve's own (one signature)"
    assert compiled["_general_turn_row"] == 0, "the general sweep was compiled for Pig's hint"
    assert compiled["_turn_sweep"] == 0, "the general sweep was compiled for Pig"
    assert compiled["_chain_sweep"] == 0, "the chain sweep was compiled for Pig"
    assert compiled["sweep_rows"] == 0, "the compiled row allocation was used for Pig's solve"
