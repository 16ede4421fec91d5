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

import multiprocessing
import os
import queue
import signal
import time
from collections.abc import Callable
from functools import partial
from itertools import product
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer

from pigdice.cli.exitcodes import EXIT_FAILED
from pigdice.cli.output import stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import BadParameterError
from pigdice.rules import all_variants, find_variant
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.threads import usable_cores

if TYPE_CHECKING:
    import numpy as np

TINY_GOAL = 6  # every job plays or solves to this goal: the same kernels as goal 100, in moments
TRACED_HERD_GOAL = 21  # 3-player Swine Herd's smallest goal with a turn start that only the tracing settles
MAX_WORKERS = 16  # parts compiled at once, at most (there are only five parts)
POLL_SECONDS = 0.2  # how often the command looks at its worker processes
Job = tuple[str, Callable[[], object]]
Report = Callable[[str, str], None]  # (part, what happened): a job starting, or the part's last word


def _exact(variant: Variant, players: int) -> None:
    """Solve ``variant`` exactly for ``players`` (no cache) and ask it what the perfect player asks."""
    from pigdice.solve.exact import exact_policy, warm

    policy = exact_policy(variant, players, use_cache=False)
    warm(policy)
    _ = policy.residual  # Swine Herd recomputes its residuals (what ``solve`` reports) in kernels of their own


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


ENDING_GAMES = ("pig", "two-dice-pig", "hog", "pig-dice")  # one game of each kind of turn the endings change


def _endings(endings: list[tuple[str, str]]) -> list[Variant]:
    """Return each game of ENDING_GAMES at the tiny goal under each ending (its endgame and its ties)."""
    return [
        find_variant(name, goal=TINY_GOAL, endgame=endgame, ties=ties)
        for name in ENDING_GAMES
        for endgame, ties in endings
    ]


def _two_players() -> list[Job]:
    """Every variant's 2-player solve, under every ending it has."""
    variants = [v.with_goal(TINY_GOAL) for v in all_variants()]
    endings = _endings(list(product(("final-round", "equal-turns"), ("first-to-reach", "shared"))))
    # a reset game long enough that its solve settles the reset values by spread passes (none at the tiny goal)
    longer = ("Two-Dice Pig to 50, 2 players", partial(_exact, find_variant("two-dice-pig", goal=50), 2))
    return [*_exact_jobs(variants + endings, 2), longer]


def _groups() -> list[Job]:
    """3 and 4 players under every ending, and the other equilibria of 3-player Pig."""
    three = _endings([("first-to-goal", "shared"), ("final-round", "first-to-reach"), ("equal-turns", "shared")])
    ending = "final-round"
    return [
        *_exact_jobs(three, 3),
        # 4 players with a final round compile the last turns' levels between the top and the last player
        *_exact_jobs([find_variant("pig", goal=TINY_GOAL), find_variant("pig", goal=TINY_GOAL, endgame=ending)], 4),
        ("the other equilibria of 3-player Pig", _other_equilibria),
    ]


def _herd() -> list[Job]:
    """Swine Herd's group game: 3 players deciding on the same rolls (kernels of its own)."""
    from pigdice.solve.herd.swineherd_n import solve_swine_herd_n

    return [
        ("Swine Herd, 3 players", partial(solve_swine_herd_n, find_variant("swine-herd", goal=4), 3)),
        ("Swine Herd, 3 players, a turn start settled by tracing, and its exploitability", _traced_herd),
    ]


def _traced_herd() -> None:
    """Solve 3-player Swine Herd to 21, the smallest goal with a turn start only the tracing settles (``n_tracing``),
    and measure its exploitability (the best responses' kernels)."""
    from pigdice.solve.herd.swineherd_n import exploitability_report, solve_swine_herd_n

    exploitability_report(solve_swine_herd_n(find_variant("swine-herd", goal=TRACED_HERD_GOAL), 3))


def _other_equilibria() -> None:
    """Search 3-player Pig's cycles for the equilibria the solver did not choose (``solve --json`` reports them)."""
    from pigdice.solve.exact import exact_policy
    from pigdice.solve.n.equilibria import search_policy

    search_policy(exact_policy(find_variant("pig", goal=TINY_GOAL), 3, use_cache=False))


def _study() -> list[Job]:
    """Simulations, exact comparisons, analyses, the tabular learner and the game designer's measures."""
    import numpy as np

    from pigdice.solve.two.headtohead import head_to_head
    from pigdice.study.analysis.api import analyze, strategy_table
    from pigdice.study.analysis.approximation import approximation_study
    from pigdice.study.analysis.swineherd import analyze_swine_herd
    from pigdice.study.design.measures import measure
    from pigdice.study.fastsim import simulate_tables
    from pigdice.study.learner import learning_curve
    from pigdice.study.pigbench.tabular import tabular_learner

    pig = find_variant("pig", goal=TINY_GOAL)

    def tables(variant: Variant = pig) -> tuple[np.ndarray, np.ndarray]:
        fixed = "dice:3" if variant.decision is Decision.DICE_PER_TURN else "hold:3"
        return strategy_table(variant, "optimal")[0], strategy_table(variant, fixed)[0]

    def every_comparison() -> None:
        for variant in all_variants():
            if not variant.is_simultaneous:
                head_to_head(variant.with_goal(TINY_GOAL), *tables(variant.with_goal(TINY_GOAL)))

    def learners() -> None:
        for name in ("pig", "hog"):
            tabular_learner(find_variant(name, goal=TINY_GOAL), np.random.default_rng(0)).train(500)

    return [
        ("simulated games", lambda: simulate_tables(pig, list(tables()), 20, np.random.default_rng(0))),
        ("exact comparison", lambda: head_to_head(pig, *tables())),
        ("exact comparisons of every game", every_comparison),
        ("exact analysis", lambda: analyze(pig, ["optimal", "hold:3"])),
        ("exact analysis of Swine Herd", lambda: analyze_swine_herd(find_variant("swine-herd", goal=TINY_GOAL))),
        ("the approximation at a table of four", lambda: approximation_study(pig, 4)),
        ("the tabular learners", learners),
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


class Part(NamedTuple):
    """A part of ``prepare``: what it covers, how many jobs it has, and a function building them."""

    covers: str
    job_count: int  # len(jobs()): the progress bar's share, known without building the jobs (a test checks it)
    jobs: Callable[[], list[Job]]


# the parts, in the order they run when one runs at a time
PARTS: dict[str, Part] = {
    "play": Part("two players: play, hints and solves of every variant and ending", 33, _two_players),
    "groups": Part("three and four players, under every ending", 15, _groups),
    "herd": Part("Swine Herd's group game", 2, _herd),
    "study": Part("simulations, comparisons, analyses, learning and the game designer", 9, _study),
    "environments": Part("the batched learning environments", 2, _environments),
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


# the parts' compile times on a new machine (CPU seconds, measured in CI; groups and herd were one part of 248 s,
# split as they measured apart, 115 and 58 s on the development machine): the longest start first when parts
# run at once, so on two cores groups runs beside environments, herd, play and study, and both end together
PART_SECONDS = {"groups": 165.0, "environments": 130.0, "herd": 83.0, "play": 45.0, "study": 22.0}


MAX_ERROR = 300  # characters of a worker's error passed on


class PrepareError(RuntimeError):
    """A part's worker process failed: its error, or how it stopped (a failure, not bad input)."""


def _run_part(name: str, report: Report, jobs_of: Callable[[str], list[Job]]) -> None:
    """Run every job of part ``name``, reporting each label before it runs."""
    for label, run in jobs_of(name):
        report(name, label)
        run()


def part_jobs(name: str) -> list[Job]:
    """Return the jobs of the part named ``name``."""
    return PARTS[name].jobs()


def _part_process(name: str, messages: Any, jobs_of: Callable[[str], list[Job]]) -> None:
    """A worker process's whole life: run part ``name``, sending each job's label, then its last word."""
    try:
        _run_part(name, lambda part, label: messages.put(("job", part, label)), jobs_of)
    except Exception as exc:  # the command names the part and the error; the worker prints nothing
        messages.put(("error", name, f"{type(exc).__name__}: {exc}"[:MAX_ERROR]))
        raise SystemExit(1) from None
    messages.put(("done", name, ""))


def run_apart(names: list[str], workers: int, report: Report, jobs_of: Callable[[str], list[Job]] = part_jobs) -> None:
    """Run the parts ``names``, ``workers`` at a time, each in its own spawned process (the longest first).

    Each part compiles its own kernel families (numba compiles in one thread: one part per core is what
    the cores can share). ``report(part, label)`` hears each job as it starts and ``(part, "")`` when a
    part is done. Any exception here (Ctrl-C's KeyboardInterrupt included) kills the workers at once;
    a worker's failure raises PrepareError naming its part.
    """
    context = multiprocessing.get_context("spawn")  # never forked: numba and the caller may hold threads
    messages = context.Queue()
    waiting = sorted(names, key=lambda name: -PART_SECONDS.get(name, 0.0))
    running: dict[str, BaseProcess] = {}
    try:
        while waiting or running:
            while waiting and len(running) < workers:
                name = waiting.pop(0)
                running[name] = _start(context, name, messages, jobs_of)
            try:
                kind, name, text = messages.get(timeout=POLL_SECONDS)
            except queue.Empty:
                _check_alive(running, messages)
                continue
            if kind == "error":
                raise PrepareError(f"preparing {name} failed: {text}")
            report(name, text)
            if kind == "done":
                running.pop(name).join()
    finally:
        for process in running.values():
            process.kill()
            process.join()
        messages.close()


def _start(context: Any, name: str, messages: Any, jobs_of: Callable[[str], list[Job]]) -> BaseProcess:
    """Start part ``name``'s worker process, deaf to Ctrl-C (the command stops it; it prints no traceback)."""
    process = context.Process(target=_part_process, args=(name, messages, jobs_of), daemon=True)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        process.start()
    finally:
        signal.signal(signal.SIGINT, previous)
    return process


def _check_alive(running: dict[str, BaseProcess], messages: Any) -> None:
    """Raise PrepareError for a worker that stopped without its last word (killed, out of memory)."""
    for name, process in running.items():
        if process.exitcode is not None and messages.empty():
            raise PrepareError(f"preparing {name} stopped (its process ended with code {process.exitcode})")


def default_workers(parts: int) -> int:
    """Return how many parts to compile at once: one per core this process may use, at most ``parts``."""
    return max(1, min(parts, usable_cores(), MAX_WORKERS))


def prepare_command(
    parts: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PART",
            help=f"What to get ready (default: everything): {', '.join(PARTS)}.",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-w",
            min=1,
            max=MAX_WORKERS,
            help="How many parts to compile at once (default: one per core).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Get this machine ready: compile the solver once, so no game, hint or solve waits for it later.

    A new machine compiles pigdice's kernels the first time each is used (a few seconds for a Pig
    solve, minutes for group games of Swine Herd); this does it now, part by part, one part per
    core at once. Run it after installing, for example when building a server image. Ctrl-C stops
    it; what is done stays done.
    """
    names = chosen_parts(parts)
    count = default_workers(len(names)) if workers is None else min(workers, len(names))
    total = sum(PARTS[name].job_count for name in names)
    console = stdout_console()
    started = time.perf_counter()
    part_started: dict[str, float] = {}  # when each part's first job started (parts may wait for a core)
    doing: dict[str, str] = {}
    done_jobs = [0]

    with progress_bar(after=0.0) as bar:  # a job reports nothing while it compiles: the bar shows at once

        def report(name: str, label: str) -> None:
            if doing.get(name):
                done_jobs[0] += 1
            part_started.setdefault(name, time.perf_counter())
            if label:
                doing[name] = label
            else:
                doing.pop(name, None)
                seconds = time.perf_counter() - part_started[name]
                # above the bar on a terminal; a line of the output in a log, which shows no bar
                (bar.bar.console if bar.bar is not None else console).print(f"{name}: ready in {seconds:.0f} s")
            latest = f"{name}: {label}" if label else next((f"{p}: {j}" for p, j in doing.items()), "finishing")
            bar(done_jobs[0] / total, latest)

        if count == 1:
            for name in names:
                _run_part(name, report, part_jobs)
                report(name, "")
        else:
            try:
                run_apart(names, count, report)
            except PrepareError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(EXIT_FAILED) from None
    seconds = time.perf_counter() - started
    folder = os.environ.get("NUMBA_CACHE_DIR", "numba's default folder")
    at_once = f", {count} at once" if count > 1 else ""
    console.print(
        f"ready: {', '.join(names)} ({total} jobs in {seconds:.1f} s{at_once}); the kernels are kept in {folder}"
    )
