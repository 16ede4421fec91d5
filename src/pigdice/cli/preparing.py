"""``pigdice prepare``: compile the solver's kernels now, so no game, hint, solve or study waits for them later.

pigdice's solvers, simulators and learning environments are numba kernels compiled on first use and
kept on disk (``pigdice.kernelcache``). On a new machine that first use costs from seconds (a Pig
solve) to minutes (3-player Swine Herd, the batched learning environments). ``prepare`` pays it at
once, part by part, with a progress bar: for a server image, a classroom's machines before the
lesson, or a test run that should time tests and not the compiler. Each job is a small real
workload (a tiny goal), so it compiles exactly what the full-size work runs; on a prepared machine
the whole command takes seconds. Ctrl-C stops it; what was compiled stays compiled.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Annotated

import typer

from pigdice.cli.output import stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import BadParameterError
from pigdice.rules import all_variants, find_variant
from pigdice.rules.variant import Variant

if TYPE_CHECKING:
    import numpy as np

TINY_GOAL = 6  # every job plays or solves to this goal: the same kernels as goal 100, in moments
Job = tuple[str, Callable[[], object]]


def _exact(variant: Variant, players: int) -> None:
    """Solve ``variant`` exactly for ``players`` (no cache) and ask it what the perfect player asks."""
    from pigdice.solve.exact import exact_policy, warm

    warm(exact_policy(variant, players, use_cache=False))


def _exact_jobs(variants: list[Variant], players: int) -> list[Job]:
    """Return one job per variant: its exact solve for ``players``."""
    jobs = {_job_label(v, players): v for v in variants}  # a variant's own ending may be listed twice
    return [(label, partial(_exact, v, players)) for label, v in jobs.items()]


def _job_label(variant: Variant, players: int) -> str:
    """Return a job's label: the game, its ending if it has one, and the players."""
    ending = ""
    if variant.endgame.value != "first-to-goal":
        ties = "ties shared" if variant.ties.value == "shared" else "ties to the first to reach the goal"
        ending = f", {variant.endgame.value.replace('-', ' ')}, {ties}"
    return f"{variant.title}{ending}, {players} players"


def _two_players() -> list[Job]:
    """Every variant's 2-player solve, under every ending it has."""
    variants = [v.with_goal(TINY_GOAL) for v in all_variants()]
    endings = [
        find_variant(name, goal=TINY_GOAL, endgame=endgame, ties=ties)
        for name in ("pig", "two-dice-pig", "hog", "pig-dice")
        for endgame in ("final-round", "equal-turns")
        for ties in ("first-to-reach", "shared")
    ]
    return _exact_jobs(variants + endings, 2)


def _groups() -> list[Job]:
    """3 and 4 players under every ending, Swine Herd's group game, and Piggy Six's two sets of dice."""
    three = [
        find_variant(name, goal=TINY_GOAL, endgame=endgame, ties=ties)
        for name in ("pig", "two-dice-pig", "hog", "pig-dice")
        for endgame, ties in (("first-to-goal", "shared"), ("final-round", "first-to-reach"), ("equal-turns", "shared"))
    ]
    from pigdice.solve.herd.swineherd_n import solve_swine_herd_n

    herd = find_variant("swine-herd", goal=4)
    ending = "final-round"
    return [
        *_exact_jobs(three, 3),
        # 4 players with a final round compile the last turns' levels between the top and the last player
        *_exact_jobs([find_variant("pig", goal=TINY_GOAL), find_variant("pig", goal=TINY_GOAL, endgame=ending)], 4),
        ("Swine Herd, 3 players", lambda: solve_swine_herd_n(herd, 3)),
    ]


def _study() -> list[Job]:
    """Simulations, exact comparisons, analyses, the tabular learner and the game designer's measures."""
    import numpy as np

    from pigdice.solve.two.headtohead import head_to_head
    from pigdice.study.analysis.api import analyze, strategy_table
    from pigdice.study.design.measures import measure
    from pigdice.study.fastsim import simulate_tables
    from pigdice.study.learner import learning_curve

    pig = find_variant("pig", goal=TINY_GOAL)

    def tables() -> tuple[np.ndarray, np.ndarray]:
        return strategy_table(pig, "optimal")[0], strategy_table(pig, "hold:3")[0]

    return [
        ("simulated games", lambda: simulate_tables(pig, list(tables()), 20, np.random.default_rng(0))),
        ("exact comparison", lambda: head_to_head(pig, *tables())),
        ("exact analysis", lambda: analyze(pig, ["optimal", "hold:3"])),
        ("learning curve", lambda: learning_curve(pig, [0, 50], np.random.default_rng(0))),
        ("the game designer's measures", lambda: [measure(v) for v in (pig, pig.with_endgame("final-round"))]),
    ]


def _environments() -> list[Job]:
    """The batched learning environments (one seat, and every seat)."""
    import numpy as np

    from pigdice.envs.vector import PigdiceVectorEnv
    from pigdice.envs.vector_seats import PigdiceSeatsBatch

    def one_seat() -> None:
        env = PigdiceVectorEnv(2, "pig", "hold:3", goal=TINY_GOAL)
        env.reset(seed=0)
        env.step(np.zeros(2, dtype=np.int64))

    def every_seat() -> None:
        batch = PigdiceSeatsBatch(2, "pig", players=3, goal=TINY_GOAL)
        batch.reset(seed=0)
        batch.step(np.zeros(2, dtype=np.int64))

    return [("learning environment, one seat", one_seat), ("learning environment, every seat", every_seat)]


# the parts, in the order they run: name -> (what it covers, its jobs)
PARTS: dict[str, tuple[str, Callable[[], list[Job]]]] = {
    "play": ("two players: play, hints and solves of every variant and ending", _two_players),
    "groups": ("three and four players, and Swine Herd's group game", _groups),
    "study": ("simulations, comparisons, analyses, learning and the game designer", _study),
    "environments": ("the batched learning environments", _environments),
}


def chosen_parts(names: list[str] | None) -> list[str]:
    """Return the parts to prepare, in running order (all when none are named); refuse unknown names."""
    if not names:
        return list(PARTS)
    unknown = [name for name in names if name.strip().lower() not in PARTS]
    if unknown:
        raise BadParameterError(f"no part named {unknown[0][:40]!r}; the parts are {', '.join(PARTS)}")
    wanted = {name.strip().lower() for name in names}
    return [name for name in PARTS if name in wanted]


def prepare_command(
    parts: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PART",
            help=f"What to get ready (default: everything): {', '.join(PARTS)}.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Get this machine ready: compile the solver once, so no game, hint or solve waits for it later.

    A new machine compiles pigdice's kernels the first time each is used (a few seconds for a Pig
    solve, minutes for group games of Swine Herd); this does it now, part by part. Run it after
    installing, for example when building a server image. Ctrl-C stops it; what is done stays done.
    """
    names = chosen_parts(parts)
    jobs = [(f"{name}: {label}", run) for name in names for label, run in PARTS[name][1]()]
    console = stdout_console()
    started = time.perf_counter()
    with progress_bar(after=0.0) as bar:  # a job reports nothing while it compiles: the bar shows at once
        for done, (label, run) in enumerate(jobs):
            bar(done / len(jobs), label)
            run()
    seconds = time.perf_counter() - started
    folder = os.environ.get("NUMBA_CACHE_DIR", "numba's default folder")
    console.print(f"ready: {', '.join(names)} ({len(jobs)} jobs in {seconds:.1f} s); the kernels are kept in {folder}")
