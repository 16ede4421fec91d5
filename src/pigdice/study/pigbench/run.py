"""Run Pig-Bench: train and evaluate each baseline on each variant, exactly, and gather the leaderboard.

The baselines (``BASELINES``): the best hold at N, found by evaluating every N exactly (in Hog,
where a turn is one throw, the best fixed number of dice); Neller & Presser's keep pace and end
race; the tabular Q-learner (``pigbench.tabular``); MaskablePPO and DQN (``pigbench.neural``).
Every final agent is written out as an action table and evaluated by ``pigdice.evaluate`` against
the perfect player in both seats; the learners' curves are exact head-to-heads at log-spaced steps.
Endings other than first to the goal (Pig Dice's final round) are learned and evaluated in their
first-to-goal form, the one exact evaluation computes, and the board says so.
"""

from __future__ import annotations

import datetime
import functools
import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from pigdice.errors import BadParameterError, PigdiceError, require_modules
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules.registry import find_variant
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.solver import solve
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.agent_evaluation import evaluate
from pigdice.study.learner import checkpoints
from pigdice.study.pigbench.board import CurvePoint, Entry, Leaderboard, VariantBoard
from pigdice.study.pigbench.positions import MAX_DECISIONS, ROLLS_THIS_TURN
from pigdice.study.pigbench.tabular import tabular_learner

VARIANTS = ("pig", "two-dice-pig", "hog", "pig-dice")
BASELINES = ("hold", "keep-pace", "tabular", "ppo", "dqn")
NEURAL = ("ppo", "dqn")
TABULAR_CHUNK = 10_000_000  # steps between progress reports (and chances to stop) of the tabular learner
MAX_TABULAR_STEPS = 10**11
MAX_NEURAL_STEPS = 10**8
LEARN_MODULES = ("gymnasium", "torch", "stable_baselines3", "sb3_contrib")
Progress = Callable[[float, str], None]  # fraction done, what is running


@dataclass(frozen=True)
class BenchSettings:
    """What to run: the variants (names, 'designed:FILE' too), the baselines, the training steps and the seed."""

    variants: tuple[str, ...] = VARIANTS
    baselines: tuple[str, ...] = BASELINES
    tabular_steps: int = 100_000_000
    neural_steps: int = 100_000
    points: int = 8  # curve points per learner, log-spaced
    seed: int = 0
    goal: int | None = None  # None: each variant's own goal

    def checked(self) -> BenchSettings:
        """Return the settings after checking every value (raises a PigdiceError on bad input)."""
        unknown = [b for b in self.baselines if b not in BASELINES]
        if unknown or not self.baselines:
            raise BadParameterError(
                f"unknown baseline {', '.join(repr(b) for b in unknown) or '(none given)'}; "
                f"the baselines are {', '.join(BASELINES)}"
            )
        if not self.variants:
            raise BadParameterError(f"name at least one variant, e.g. {', '.join(VARIANTS)}")
        limits = (
            ("tabular steps", self.tabular_steps, MAX_TABULAR_STEPS),
            ("neural steps", self.neural_steps, MAX_NEURAL_STEPS),
            ("points", self.points, 100),
        )
        for what, value, high in limits:
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
                raise BadParameterError(f"the {what} must be a whole number from 1 to {high:,}, got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 2**63:
            raise BadParameterError(f"the seed must be a whole number from 0, got {self.seed!r}")
        for name in self.variants:
            bench_variant(name, self.goal)
        if any(b in NEURAL for b in self.baselines):
            require_modules(LEARN_MODULES, "learn", "Pig-Bench's neural baselines (ppo, dqn) need")
        return self


def bench_variant(name: str, goal: int | None = None) -> Variant:
    """Return the 2-player first-to-goal form of the named variant that Pig-Bench plays (raises if it cannot)."""
    variant = find_variant(name, goal=goal, files=True)
    return variant.require_turns("Pig-Bench").first_to_goal()


def machine() -> dict[str, Any]:
    """Return what the run was measured on: processor, cores, Python and the learning libraries' versions."""
    versions: dict[str, str | None] = {}
    for package in ("numpy", "numba", "torch", "stable-baselines3", "sb3-contrib", "gymnasium"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    processor = platform.processor() or platform.machine()
    cores = os.cpu_count()
    return {
        "summary": f"{platform.system()} {platform.machine()}, {cores} cores, Python {platform.python_version()}",
        "processor": processor,
        "cores": cores,
        "python": platform.python_version(),
        "versions": versions,
    }


class Runner:
    """Runs the baselines on one variant, reporting progress as a share of the whole bench."""

    def __init__(self, settings: BenchSettings, progress: Progress) -> None:
        self.settings = settings
        self.progress = progress
        self.done = 0.0
        self.total = float(len(settings.variants) * sum(self.weight(b) for b in settings.baselines))

    def weight(self, baseline: str) -> float:
        """Return a baseline's share of the work, roughly its seconds (neural: ~1000 steps/s; tabular: ~2e7)."""
        steps = {"tabular": self.settings.tabular_steps / 2e7, "ppo": self.settings.neural_steps / 1000,
                 "dqn": self.settings.neural_steps / 700}  # fmt: skip
        return 5.0 + steps.get(baseline, 0.0)

    def report(self, baseline: str, fraction: float, *, label: str) -> None:
        """Report ``fraction`` of ``baseline``'s work done."""
        share = self.weight(baseline) * min(max(fraction, 0.0), 1.0)
        self.progress(min((self.done + share) / self.total, 1.0), label)

    def variant_board(self, name: str) -> VariantBoard:
        """Run every chosen baseline on variant ``name``; return its board."""
        original = find_variant(name, goal=self.settings.goal, files=True)
        form = bench_variant(name, self.settings.goal)
        self.progress(self.done / self.total, f"{form.name}: the perfect player")
        optimal = solve(form).action_table()
        entries = []
        for baseline in self.settings.baselines:
            label = f"{form.name}: {baseline}"
            self.report(baseline, 0.0, label=label)
            entries.append(self.entry(baseline, form, optimal, functools.partial(self.report, baseline, label=label)))
            self.done += self.weight(baseline)
        notes = []
        if original.endgame is not Endgame.FIRST_TO_GOAL:
            notes.append(
                f"{original.title} ends with {original.endgame}; every agent here learns and is evaluated in its "
                "first-to-goal form, the game exact evaluation computes"
            )
        return VariantBoard(form.name, original.title, form.goal, tuple(notes), tuple(entries))

    def entry(self, baseline: str, form: Variant, optimal: np.ndarray, report: Callable[[float], None]) -> Entry:
        """Return one baseline's entry (or why it does not apply)."""
        seed = self.settings.seed
        try:
            if baseline == "hold":
                return best_fixed(form, optimal, report)
            if baseline == "keep-pace":
                return exact_entry(baseline, "keep-pace", form, "keep-pace")
            if baseline == "tabular":
                return tabular_entry(form, optimal, self.settings, report)
            return neural_entry(baseline, form, optimal, self.settings, seed, report)
        except PigdiceError as exc:
            if baseline in NEURAL and not isinstance(exc, BadParameterError):
                raise
            return Entry(baseline, "", note=str(exc))


def exact_entry(baseline: str, agent: Any, form: Variant, shown: str, **extra: Any) -> Entry:
    """Return ``agent``'s entry: its exact win chances against the perfect player (``pigdice.evaluate``)."""
    result = evaluate(agent, form, top=0)
    return Entry(baseline, shown, result.seats, result.perfect_seats, **extra)


def best_fixed(form: Variant, optimal: np.ndarray, report: Callable[[float], None]) -> Entry:
    """Return the best hold at N (Hog: the best fixed number of dice), every N evaluated exactly."""
    started = time.perf_counter()
    if form.decision is Decision.DICE_PER_TURN:
        specs = [f"dice:{d}" for d in form.choices]
    elif form.decision is Decision.ROLL_HOLD:
        specs = [f"hold:{n}" for n in range(1, form.goal + 1)]
    else:
        raise BadParameterError(f"{form.name} chooses dice on every roll: a hold point alone does not play it")
    best_spec, best = specs[0], -1.0
    for number, spec in enumerate(specs):
        chance = head_to_head(form, action_table(parse_strategy(spec, form), form), optimal).average
        if chance > best:
            best_spec, best = spec, chance
        report(0.9 * (number + 1) / len(specs))
    seconds = time.perf_counter() - started
    searched = f"searched {specs[0]} to {specs[-1]}"
    return exact_entry("hold", best_spec, form, best_spec, seconds=seconds, note=searched)


def learner_marks(total: int, points: int) -> list[int]:
    """Return the curve's step counts: log-spaced from 1,000 (or fewer) to ``total``."""
    return checkpoints(total, points, first=min(1000, total))


def tabular_entry(
    form: Variant, optimal: np.ndarray, settings: BenchSettings, report: Callable[[float], None]
) -> Entry:
    """Train the tabular learner through its curve's marks; evaluate its final greedy table exactly."""
    learner = tabular_learner(form, np.random.default_rng(settings.seed))
    marks = learner_marks(settings.tabular_steps, settings.points)
    curve = []
    for mark in marks:
        while learner.steps < mark:
            learner.train(min(TABULAR_CHUNK, mark - learner.steps))
            report(0.95 * learner.steps / marks[-1])
        curve.append(curve_point(form, learner.steps, learner.seconds, learner.action_table(), optimal))
    table = learner.action_table()
    shown = f"its greedy table after {learner.steps:,} steps"
    return exact_entry(
        "tabular", table, form, shown, steps=learner.steps, seconds=learner.seconds, games=learner.games,
        curve=tuple(curve), table=table,
    )  # fmt: skip


def curve_point(form: Variant, steps: int, seconds: float, table: np.ndarray, optimal: np.ndarray) -> CurvePoint:
    """Return a curve point: the table's exact average against the perfect player (whose own is 0.5)."""
    return CurvePoint(steps, seconds, head_to_head(form, table, optimal).average, 0.5)


def neural_entry(
    kind: str, form: Variant, optimal: np.ndarray, settings: BenchSettings, seed: int, report: Callable[[float], None]
) -> Entry:
    """Train a network (MaskablePPO or DQN) through its curve's marks; evaluate its final table exactly."""
    marks = learner_marks(settings.neural_steps, settings.points)
    curve: list[CurvePoint] = []
    tables: list[np.ndarray] = []
    seconds: list[float] = []

    def checkpoint(steps: int, trained: float, table: np.ndarray) -> None:
        curve.append(curve_point(form, steps, trained, table, optimal))
        tables.append(table)
        seconds.append(trained)

    from pigdice.study.pigbench.neural import train_network  # torch and the learning libraries: only when asked

    train_network(kind, form, optimal, marks, seed, checkpoint, lambda f: report(0.95 * f))
    return exact_entry(kind, tables[-1], form, f"its greedy table after {marks[-1]:,} steps",
                       steps=marks[-1], seconds=seconds[-1], curve=tuple(curve), table=tables[-1])  # fmt: skip


def settings_notes(settings: BenchSettings) -> tuple[str, ...]:
    """Return the run's settings in words, for the board."""
    return (
        f"Tabular Q-learning: {settings.tabular_steps:,} self-play steps (decisions) per variant; epsilon 0.1, "
        "learning rate 1/visits^0.8, initial values 0.5 (`pigdice.study.learner`; in Hog one decision a turn).",
        f"MaskablePPO and DQN: {settings.neural_steps:,} steps each per variant with the libraries' default "
        "settings (a 64x64 network), on one CPU thread, against the perfect player, in a seat drawn at random "
        "each game; the reward is 1 for a win.",
        f'The networks see the research environments\' observation with "rolls this turn" fixed at '
        f"{ROLLS_THIS_TURN} (a position does not say how many rolls made its turn total), scores and turn total "
        "divided by the goal; where holding wins at once the environment holds for them; DQN's choice of an "
        f"illegal action is replaced by the first legal one; games are cut off after {MAX_DECISIONS:,} decisions.",
        "A trained network is evaluated by asking it once, greedily, at every position exact evaluation reads, "
        "and playing the resulting action table exactly.",
        f"The learning curves evaluate each learner at {settings.points} log-spaced step counts; seconds are "
        "wall-clock training time only (exact evaluation excluded; the machine may be shared with other work); "
        "the hold baselines' seconds are the exact search.",
    )


def run_bench(settings: BenchSettings, progress: Progress | None = None) -> Leaderboard:
    """Run Pig-Bench with ``settings``; return the leaderboard (nothing is written)."""
    settings = settings.checked()
    runner = Runner(settings, progress or (lambda _fraction, _label: None))
    boards = tuple(runner.variant_board(name) for name in settings.variants)
    runner.progress(1.0, "done")
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    as_json = {
        "variants": list(settings.variants),
        "baselines": list(settings.baselines),
        "tabular_steps": settings.tabular_steps,
        "neural_steps": settings.neural_steps,
        "points": settings.points,
        "goal": settings.goal,
    }
    return Leaderboard(settings.seed, date, machine(), as_json, boards, settings_notes(settings))


def run_names(text: str | Sequence[str]) -> tuple[str, ...]:
    """Return the comma-separated names of ``text`` (blank items dropped), lower-cased where not a file."""
    items = text.split(",") if isinstance(text, str) else list(text)
    return tuple(item.strip() for item in items if item.strip())
