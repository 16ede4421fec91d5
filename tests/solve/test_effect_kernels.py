"""Every numba kernel against ``Effect.resolve`` (the engine's rule), for every kind of effect.

The kernels take an effect's step through ``pigdice.solve.step.effect_step`` (the 2-player ones
all do; see the last test). Each test below is parametrised over ``EffectKind`` itself, so a
kind that a kernel forgets (or that is added later without an example here) fails: the
solver's turn sweep and pair solve (rollhold), Hog's throw values (dicechoice), the exact
head-to-head of fixed strategies, the fast simulator, the analysis' turn outcomes and the
max-score robot's expected gains.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import pigdice.solve.two
from pigdice.players.zoo import expected_gains
from pigdice.rules.dice import Die
from pigdice.rules.effects import Effect, EffectKind, add, bank, bust, double, reset_score, set_total, subtract
from pigdice.rules.outcomes import ByFaces, RollSpec
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.solver import solve_uncached
from pigdice.solve.tables import effect_table
from pigdice.solve.two import dicechoice, rollhold
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.analysis import turn_outcomes
from pigdice.study.fastsim import simulate_tables

from .reference_solver import reference_values

# examples of every kind; at turn total 5 the subtraction of 9 is clamped at 0
EXAMPLES: dict[EffectKind, tuple[Effect, ...]] = {
    EffectKind.ADD: (add(3),),
    EffectKind.DOUBLE: (double(),),
    EffectKind.SUBTRACT: (subtract(2), subtract(9)),
    EffectKind.SET: (set_total(2),),
    EffectKind.BUST: (bust(),),
    EffectKind.RESET_SCORE: (reset_score(),),
    EffectKind.BANK: (bank(3), bank(3, keep_turn_total=False)),
}
KINDS = list(EffectKind)


def examples(kind: EffectKind) -> tuple[Effect, ...]:
    """Return the example effects of ``kind`` (a new kind without examples fails here)."""
    assert kind in EXAMPLES, f"add an example of {kind.name} to EXAMPLES"
    return EXAMPLES[kind]


def certain(effect: Effect) -> RollSpec:
    """Return a roll that always has ``effect``."""
    die = Die("one", (1,), ("x",), (Fraction(1),))
    return RollSpec((die,), ByFaces(lambda faces: effect))


def mixed(effect: Effect) -> RollSpec:
    """Return a roll with ``effect`` (1/2), +2 (1/3) or a bust (1/6): every turn ends."""
    die = Die("test", (1, 2, 3), ("e", "a", "b"), (Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)))
    faces = {1: effect, 2: add(2), 3: bust()}
    return RollSpec((die,), ByFaces(lambda f: faces[f[0]]))


def variant_of(rolls: tuple[RollSpec, ...], decision: Decision, goal: int) -> Variant:
    """Return a variant with the given roll choices."""
    return Variant(
        name="kernel-test",
        title="kernel test",
        sources=(),
        summary="",
        rules=(),
        goal=goal,
        decision=decision,
        choices=tuple(range(1, len(rolls) + 1)),
        rolls=rolls,
    )


def one_choice(effect: Effect, goal: int) -> Variant:
    """Return a roll/hold variant whose only roll is ``mixed(effect)``."""
    return variant_of((mixed(effect),), Decision.ROLL_HOLD, goal)


def per_turn(effect: Effect, goal: int) -> Variant:
    """Return a one-throw-per-turn variant: ``mixed(effect)`` or a roll of +1 (2/3) or a bust (1/3)."""
    die = Die("other", (1, 2, 3), ("1", "2", "3"), (Fraction(1, 3),) * 3)
    other = RollSpec((die,), ByFaces(lambda f: bust() if f[0] == 1 else add(1)))
    return variant_of((mixed(effect), other), Decision.DICE_PER_TURN, goal)


def distribution(variant: Variant, choice: int) -> list[tuple[Effect, float]]:
    """Return the effects of one roll choice with float probabilities."""
    return [(effect, float(p)) for effect, p in variant.rolls[choice].distribution()]


# -- the solver ----------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_solver_turn_sweep_takes_one_step_as_resolve(kind: EffectKind) -> None:
    goal = 12
    rng = np.random.default_rng(1)
    V = rng.uniform(0.05, 0.95, (goal, goal))  # any next-mover values: the step must hold for all
    for effect in examples(kind):
        variant = one_choice(effect, goal)
        table = effect_table(variant)
        for i, j in [(0, 3), (4, 2), (9, 0)]:
            fixed = np.where(np.arange(goal) < 5, 1, 0).astype(np.int8)
            for actions in (rollhold.NO_FIXED, fixed):
                win, act, hold, rolls = rollhold.turn_row(V, i, j, goal, table, actions, rollhold.FIRST_TO_GOAL_ENDS, 0)
                for k in range(goal - i):
                    expected = 0.0
                    for e, p in distribution(variant, 0):
                        score, total, ends = e.resolve(i, k)
                        if ends:
                            expected += p * (1.0 if score >= goal else 1.0 - V[j, score])
                        else:
                            expected += p * (1.0 if i + total >= goal else win[total])
                    assert rolls[0, k] == pytest.approx(expected, abs=1e-12), (effect, i, j, k)
                    chosen = hold[k] if act[k] == 0 else rolls[0, k]
                    assert win[k] == pytest.approx(chosen, abs=1e-12)
                    if len(actions):
                        assert act[k] == actions[k]


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_solver_matches_the_reference_solver(kind: EffectKind) -> None:
    for effect in examples(kind):
        for variant in (one_choice(effect, 8), per_turn(effect, 8)):
            reference = reference_values(variant, tolerance=1e-13)
            values = solve_uncached(variant).values
            for i in range(8):
                for j in range(8):
                    key = (i, j) if variant.decision is Decision.DICE_PER_TURN else (i, j, 0)
                    assert values[i, j] == pytest.approx(reference[key], abs=1e-9), (effect, i, j)


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_hog_throw_values_take_one_step_as_resolve(kind: EffectKind) -> None:
    goal = 12
    V = np.random.default_rng(2).uniform(0.05, 0.95, (goal, goal))
    for effect in examples(kind):
        variant = per_turn(effect, goal)
        table = effect_table(variant)
        const = np.empty(2)
        coef = np.empty(2)
        for i, j in [(0, 3), (4, 2), (10, 1)]:
            x = V[j, i]
            dicechoice.throw_values(V, i, j, goal, x, table, const, coef, rollhold.NO_LAST)
            for choice in range(2):
                expected = 0.0
                for e, p in distribution(variant, choice):
                    score, total, _ = e.resolve(i, 0)
                    expected += p * (1.0 if score + total >= goal else 1.0 - V[j, score + total])
                assert const[choice] + coef[choice] * x == pytest.approx(expected, abs=1e-14), (effect, i, j)


# -- exact head-to-head ----------------------------------------------------------------------------
def reference_head_to_head(variant: Variant, tables: tuple[np.ndarray, np.ndarray]) -> float:
    """Return P(A wins | A first) by value iteration over (mover, scores, turn total) with ``resolve``."""
    goal = variant.goal
    one_throw = variant.decision is Decision.DICE_PER_TURN
    dists = [distribution(variant, c) for c in range(len(variant.choices))]
    tops = {i: 1 if one_throw else goal - i for i in range(goal)}
    states = [(m, i, j, k) for m in (0, 1) for i in range(goal) for j in range(goal) for k in range(tops[i])]
    W = dict.fromkeys(states, 0.5)  # P(A wins)

    def ended(m: int, i: int, j: int, score: int) -> float:
        if score >= goal:
            return 1.0 if m == 0 else 0.0
        return W[(1 - m, j, score, 0)]

    for _ in range(20_000):
        change = 0.0
        for state in states:
            m, i, j, k = state
            action = int(tables[m][i, j, k])
            if action == 0:
                value = ended(m, i, j, i + k)
            else:
                value = 0.0
                for e, p in dists[action - 1]:
                    score, total, ends = e.resolve(i, k)
                    if ends or one_throw:
                        value += p * ended(m, i, j, score + (0 if ends else total))
                    elif i + total >= goal:
                        value += p * (1.0 if m == 0 else 0.0)
                    else:
                        value += p * W[(m, i, j, total)]
            change = max(change, abs(value - W[state]))
            W[state] = value
        if change < 1e-14:
            return W[(0, 0, 0, 0)]
    raise AssertionError("the reference evaluation did not converge")


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(k, marks=pytest.mark.slow) if k in (EffectKind.RESET_SCORE, EffectKind.SUBTRACT) else k
        for k in KINDS
    ],
    ids=lambda kind: kind.name,
)
def test_head_to_head_matches_a_reference_evaluation(kind: EffectKind) -> None:
    goal = 8
    i, _, k = np.meshgrid(np.arange(goal), np.arange(goal), np.arange(goal), indexing="ij")
    for effect in examples(kind):
        # roll/hold: A rolls below 4, B below 6 when its score is even, else below 2
        variant = one_choice(effect, goal)
        a = np.where(k < 4, 1, 0).astype(np.int8)
        b = np.where(k < np.where(i % 2 == 0, 6, 2), 1, 0).astype(np.int8)
        result = head_to_head(variant, a, b)
        assert result.a_first == pytest.approx(reference_head_to_head(variant, (a, b)), abs=1e-10), effect
        # one throw per turn: A always throws the test roll, B the other one at odd scores
        variant = per_turn(effect, goal)
        a = np.ones((goal, goal, goal), dtype=np.int8)
        b = np.where(i % 2 == 1, 2, 1).astype(np.int8)
        result = head_to_head(variant, a, b)
        assert result.a_first == pytest.approx(reference_head_to_head(variant, (a, b)), abs=1e-10), effect


# -- the fast simulator ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
@pytest.mark.parametrize("decision", [Decision.DICE_PER_ROLL, Decision.DICE_PER_TURN])
def test_fast_simulator_takes_one_step_as_resolve(kind: EffectKind, decision: Decision) -> None:
    """A scripted game with certain rolls: the length of the game tells the score after the test roll.

    Choices: 1 adds 5, 2 is the effect under test, 3 adds 1, 4 busts. Turn 1: A goes to 5. Turn 2:
    B goes to 1. Turn 3: A at (5, 1) adds 5 then rolls the test (one throw per turn: rolls the test
    at once) and holds whatever turn total is left, reaching some score s. Turn 4: B goes to 2 and
    then busts forever, while A adds 1 a turn: A wins on turn 3 + 2 (goal - s).
    """
    goal = 30
    for effect in examples(kind):
        before = 0 if decision is Decision.DICE_PER_TURN else 5
        score, total, ends = effect.resolve(5, before)
        if not ends and decision is Decision.DICE_PER_ROLL and total in (0, 5):
            continue  # the scripted table would roll the same rolls again at this turn total
        s = score if ends else 5 + total
        rolls = (certain(add(5)), certain(effect), certain(add(1)), certain(bust()))
        variant = variant_of(rolls, decision, goal)
        a = np.zeros((goal, goal, goal), dtype=np.int8)
        a[:, :, 0] = 3
        a[0, 0, 0] = 1
        if decision is Decision.DICE_PER_TURN:
            a[5, 1, 0] = 2
        else:
            a[5, 1, 0] = 1
            a[5, 1, 5] = 2
        b = np.zeros((goal, goal, goal), dtype=np.int8)
        b[:, :, 0] = 4
        b[0:2, :, 0] = 3
        result = simulate_tables(variant, [a, b], 1, seed=0)
        assert result.wins == (1, 0), effect
        assert result.lengths.maximum == 3 + 2 * (goal - s), (effect, s)


# -- exact analysis ------------------------------------------------------------------------------
def reference_turn(variant: Variant, acts: np.ndarray, i: int) -> tuple[dict[int, float], float]:
    """Return ({new score or goal: probability}, expected points banked) of one turn from score i."""
    goal = variant.goal
    one_throw = variant.decision is Decision.DICE_PER_TURN
    outcome: dict[int, float] = defaultdict(float)
    banked = 0.0
    live: dict[int, float] = {0: 1.0}
    for _ in range(10_000):
        after: dict[int, float] = defaultdict(float)
        for k, m in live.items():
            action = int(acts[k])
            if action == 0:
                outcome[i + k] += m
                banked += m * k
                continue
            for e, p in distribution(variant, action - 1):
                score, total, ends = e.resolve(i, k)
                if ends or one_throw or i + total >= goal:
                    new = score if ends else i + total
                    outcome[min(new, goal)] += m * p
                    banked += m * p * max(new - i, 0)
                else:
                    after[total] += m * p
        live = after
        if sum(live.values()) < 1e-17:
            return outcome, banked
    raise AssertionError("the reference turn never ended")


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_turn_outcomes_take_each_step_as_resolve(kind: EffectKind) -> None:
    goal = 12
    k = np.arange(goal)
    for effect in examples(kind):
        for variant in (one_choice(effect, goal), per_turn(effect, goal)):
            acts = np.broadcast_to(np.where(k < 4, 1, 0), (goal, goal, goal)).astype(np.int8)
            if variant.decision is Decision.DICE_PER_TURN:
                acts = np.ones((goal, goal, goal), dtype=np.int8)
            outcomes = turn_outcomes(variant, acts, visits=False)
            for i, j in [(0, 0), (3, 5), (9, 2)]:
                expected, banked = reference_turn(variant, acts[i, j], i)
                row = i * goal + j
                lo, hi = outcomes.indptr[row], outcomes.indptr[row + 1]
                got = dict(zip(outcomes.scores[lo:hi].tolist(), outcomes.probabilities[lo:hi].tolist(), strict=True))
                got[goal] = float(outcomes.win[i, j])
                for score in set(got) | set(expected):
                    assert got.get(score, 0.0) == pytest.approx(expected.get(score, 0.0), abs=1e-12), (effect, i, score)
                assert outcomes.banked[i, j] == pytest.approx(banked, abs=1e-10), (effect, i)


# -- the max-score robot -------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_max_score_gain_is_the_expected_change_of_score_plus_turn_total(kind: EffectKind) -> None:
    ks = np.arange(8)
    for effect in examples(kind):
        variant = one_choice(effect, 20)
        for score in (0, 5):
            gains = expected_gains(variant, score, ks)
            for k in ks:
                expected = 0.0
                for e, p in distribution(variant, 0):
                    new_score, total, _ = e.resolve(score, int(k))
                    expected += p * (new_score + total - score - k)
                assert gains[0, k] == pytest.approx(expected, abs=1e-12), (effect, score, k)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("turn_total", [0, 5])
def test_the_kernels_effect_step_is_the_engines_rule(kind: EffectKind, turn_total: int) -> None:
    from pigdice.solve.step import effect_step, thrown_score

    for effect in examples(kind):
        expected = effect.resolve(40, turn_total)
        assert effect_step(int(effect.kind), effect.amount, effect.keep_turn_total, 40, turn_total) == expected
        score, banked, _ = effect.resolve(40, 0)
        assert thrown_score(int(effect.kind), effect.amount, effect.keep_turn_total, 40) == score + banked


def test_the_two_player_kernels_switch_on_no_effect_kind_of_their_own() -> None:
    for path in sorted(Path(pigdice.solve.two.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        codes = sorted(name for name in names if name.startswith("KIND_"))
        assert not codes, f"{path.name} compares effect kinds itself ({codes}): take pigdice.solve.step's step"
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                assert len(arguments) <= 12, f"{path.name}: {node.name} takes {len(arguments)} parameters"
