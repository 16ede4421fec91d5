"""A policy file without the solver: where policies are cached, and reading a policy's values (no numba).

Reading a cached policy is all a hint needs, and loading the solver's compiled kernels costs more
than the whole hint; so the cache's layout and the checks on a policy file live here, apart.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from pigdice.rules.variant import Variant
from pigdice.solve.memory import values_bytes
from pigdice.solve.policyreader import ArraySpec, Expected, Number, PolicySchema, read_policy_file

FORMAT_VERSION = 1


def solvable(variant: Variant) -> Variant:
    """Return the 2-player first-to-goal form of ``variant`` that the solver computes.

    Seed 003 solves every variant with the first player to reach the goal winning ("for
    symmetry in analysis"); the final-round and equal-turns endings need more state and are
    left open there, so the solver uses first-to-goal and says so.
    """
    return variant.require_turns("the solver").first_to_goal()


def cache_dir() -> Path:
    """Return the policy cache folder (``PIGDICE_CACHE_DIR`` or the user cache dir)."""
    override = os.environ.get("PIGDICE_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("pigdice")) / "policies"


def remove_partial_files(since: float) -> None:
    """Remove the cache's unfinished saves (``storage.save_npz``'s temporary files) begun after ``since``.

    A worker process killed while it saved a policy leaves one behind; the finished files stay.
    """
    try:
        partial = [path for path in cache_dir().glob("*.tmp") if path.stat().st_mtime >= since - 1.0]
    except OSError:
        return
    for path in partial:
        path.unlink(missing_ok=True)


def cache_path(variant: Variant) -> Path:
    """Return where the policy of ``variant`` is cached (the name carries the fingerprint)."""
    variant = solvable(variant)
    return cache_dir() / f"{variant.name}-goal{variant.goal}-{variant.fingerprint()}-v{FORMAT_VERSION}.npz"


def values_schema(variant: Variant) -> PolicySchema:
    """Return what the policy file of 2-player first-to-goal ``variant`` holds: V (goal x goal) and its solve."""
    goal = variant.goal
    elsewhere = f"solved for other parameters than {variant.name} goal {goal}"
    return PolicySchema(
        what=f"the policy of {variant.name}",
        goal=goal,
        arrays={"values": ArraySpec((goal, goal))},
        expected=(
            Expected("format", FORMAT_VERSION, f"policy format {{found}} is not {FORMAT_VERSION}"),
            Expected("fingerprint", variant.fingerprint(), elsewhere),
        ),
        numbers=(Number("iterations"), Number("residual"), Number("seconds")),
        memory=lambda g: 2 * values_bytes(g),
    )


def read_values(path: Path, variant: Variant) -> tuple[np.ndarray, int, float, float]:
    """Return (V, passes, residual, seconds) of the policy file at ``path`` saved for ``variant``.

    Raises BadParameterError if it is not a sound one (``policyreader.read_policy_file``): not a plain
    file, a damaged archive, a missing entry, values that are not finite win probabilities in [0, 1] or that
    differ from the checksum saved with them, or metadata of another variant or format.
    """
    read = read_policy_file(path, values_schema(variant))
    numbers = read.numbers
    return read.arrays["values"], int(numbers["iterations"]), numbers["residual"], numbers["seconds"]
