"""More strategies: ``keep-pace``, ``max-score`` and your own Python function (``python:module:function``).

Every strategy here is a function of (my score, highest opponent score, turn total), so it has
an ``action_table(variant)`` for the exact evaluator (``pigdice compare``) and the fast simulator.

``keep-pace`` -- Neller & Presser 2010 ("Practical Play of the Dice Game Pig", UMAP Journal
31(1)), "keep pace and end race": hold when holding wins; if either score is at least 71, roll
(end race); otherwise hold at 21 + round((opponent - you) / 8) (keep pace). ``round`` rounds
halves up. For a goal G other than 100 both constants scale with the goal: end race from
71 G / 100 on, hold at round(21 G / 100 + (opponent - you) / 8) (the score difference already
scales with G), never below 1, so a turn always starts with a roll. With 3+ players the
opponent is the highest-scoring one. In games where each roll picks a number of dice, it
throws the dice count ``max-score`` would pick; it has no meaning in Hog (one throw per turn).

``max-score`` -- maximises the expected score of the turn, one roll at a time: roll while the
expected gain of one more roll is positive, computed exactly from the variant's outcome table:
gain = sum over outcomes of p * (change), the change being +a for adding a, -k for a bust
(the turn total k is lost), -(score + k) for a reset, +k for doubling, and so on. In Pig the
gain is (20 - k) / 6, so it holds at 20 (Neller & Presser 2004, "Optimal Play of the Dice Game
Pig": hold at 20 maximises the expected points of a turn). Where each roll picks a number of
dice it rolls the count with the largest gain; in Hog it throws the count with the largest
expected score. A turn always starts with a roll; ties (within 1e-9) go to holding, then to
fewer dice.

Your own strategy -- ``python:package.module:function`` or ``py:path/to/file.py:function``
(either word takes either form). The function is called as ``function(score, opponent,
turn_total, variant)``: your score, the highest opponent score, the turn total and the
``Variant`` being played, and returns ``"roll"`` or ``"hold"`` (also ``"r"``/``"h"``,
``"roll:N"``), a number of dice N (0 means hold), True (roll) / False (hold), or a
``pigdice.engine.game.Roll``/``Hold``. Example, in ``mine.py``::

    def cautious(score, opponent, turn_total, variant):
        return "hold" if turn_total >= (15 if score > opponent else 25) else "roll"

    pigdice compare py:mine.py:cautious optimal --variant pig

The function is tabulated over every (score, opponent, turn total) for exact evaluation, so
it should depend on nothing else. Modules are imported from the current directory too. Loading
a plug-in runs its code: servers should call ``disable_python_specs()`` (or set the environment
variable ``PIGDICE_NO_PYTHON_SPECS=1``) so nobody can name one.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from pigdice.engine.game import Action, GameState, Hold, Roll, legal_actions, parse_action
from pigdice.errors import BadStrategyError, PigdiceError
from pigdice.players.base import can_win_by_holding, must_keep_rolling, register_spec
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Variant

TIE = 1e-9  # gains closer than this count as equal (Hog's 5 and 6 dice tie exactly)
PLUGIN_WORDS = ("python", "py")
_PLUGINS_ALLOWED = True


# -- helpers -----------------------------------------------------------------------------------
def _view(state: GameState) -> tuple[int, int, int]:
    """Return (my score, highest opponent score, turn total)."""
    me = state.current
    return state.scores[me], max(s for p, s in enumerate(state.scores) if p != me), state.turn_total


def _may_hold(state: GameState) -> bool:
    """Return True if holding is legal and the final round does not force another roll."""
    return Hold() in legal_actions(state) and not must_keep_rolling(state)


def _roll_with(variant: Variant, choice: int) -> Roll:
    """Return the roll for choice index ``choice`` (0-based)."""
    return Roll(variant.choices[choice]) if variant.chooses_dice else Roll()


# -- max-score --------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _gain_parts(variant: Variant, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Return G[c, k] and R[c]: one more roll with choice c at turn total k gains G[c, k] - R[c] * score."""
    ks = np.arange(top, dtype=np.float64)
    gains = np.zeros((len(variant.choices), top))
    resets = np.zeros(len(variant.choices))
    for c, spec in enumerate(variant.rolls):
        for effect, fraction in spec.distribution():
            p = float(fraction)
            kind, amount = effect.kind, float(effect.amount)
            if kind is EffectKind.ADD:
                delta = np.full(top, amount)
            elif kind is EffectKind.DOUBLE:
                delta = ks.copy()
            elif kind is EffectKind.SUBTRACT:
                delta = -np.minimum(amount, ks)
            elif kind is EffectKind.SET:
                delta = amount - ks
            elif kind is EffectKind.BUST:
                delta = -ks
            elif kind is EffectKind.RESET_SCORE:
                delta = -ks
                resets[c] += p
            else:  # BANK: the turn ends with amount (+ the turn total if kept) instead of k
                delta = np.full(top, amount) if effect.keep_turn_total else amount - ks
            gains[c] += p * delta
    return gains, resets


def expected_gains(variant: Variant, score: int, turn_totals: np.ndarray | int) -> np.ndarray:
    """Return the expected gain of one more roll with each choice: shape (choices, len(turn_totals))."""
    ks = np.atleast_1d(np.asarray(turn_totals, dtype=np.int64))
    top = max(variant.goal, int(ks.max()) + 1)
    gains, resets = _gain_parts(variant, top)
    return gains[:, ks] - resets[:, None] * score


def _best(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (index of the best row per column, fewest dice on ties; the best value)."""
    best = values.max(axis=0)
    index = np.argmax(values >= best - TIE, axis=0)
    return index, best


@dataclass(frozen=True)
class MaxScore:
    """Maximise the expected score of the turn: roll while one more roll gains points on average."""

    name: str = "max-score"

    def decide(self, variant: Variant, score: int, turn_total: int) -> int:
        """Return 0 to hold or c + 1 to roll with choice c (table code) at (score, turn_total)."""
        index, best = _best(expected_gains(variant, score, turn_total))
        if variant.decision is not Decision.DICE_PER_TURN and turn_total > 0 and best[0] <= TIE:
            return 0
        return int(index[0]) + 1

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Hold when holding wins or one more roll loses points on average; else roll the best dice."""
        variant = state.variant
        score, _, turn_total = _view(state)
        if variant.decision is Decision.DICE_PER_TURN:
            return _roll_with(variant, self.decide(variant, score, 0) - 1)
        code = self.decide(variant, score, turn_total)
        if _may_hold(state) and turn_total > 0 and (code == 0 or can_win_by_holding(state)):
            return Hold()
        if code == 0:  # forced to roll (final round): the best dice anyway
            code = int(_best(expected_gains(variant, score, turn_total))[0][0]) + 1
        return _roll_with(variant, code - 1)

    def action_table(self, variant: Variant) -> np.ndarray:
        """Return the (goal, goal, goal) action table, computed in one vectorised pass."""
        goal = variant.goal
        ks = np.arange(goal)
        gains, resets = _gain_parts(variant, goal)
        scores = np.arange(goal, dtype=np.float64)
        values = gains[:, None, :] - resets[:, None, None] * scores[None, :, None]  # (c, i, k)
        best = values.max(axis=0)
        index = np.argmax(values >= best - TIE, axis=0)
        if variant.decision is Decision.DICE_PER_TURN:
            codes = np.broadcast_to((index[:, :1] + 1), (goal, goal))
        else:
            codes = np.where((best > TIE) | (ks[None, :] == 0), index + 1, 0)
        return np.ascontiguousarray(np.broadcast_to(codes[:, None, :], (goal, goal, goal)), dtype=np.int8)


def parse_max_score(spec: str, variant: Variant) -> MaxScore:
    """Parse the 'max-score' spec."""
    _no_argument(spec, "max-score")
    return MaxScore()


# -- keep-pace ----------------------------------------------------------------------------------
def keep_pace_threshold(goal: int, score: int, opponent: int) -> int:
    """Return keep-pace's hold threshold: round(21 * goal / 100 + (opponent - score) / 8), at least 1."""
    # exact integer form of floor(21 g / 100 + (j - i) / 8 + 1/2)
    return max(1, (168 * goal + 100 * (opponent - score) + 400) // 800)


def is_end_race(goal: int, score: int, opponent: int) -> bool:
    """Return True once either score is at least 71% of the goal (71 of 100): then keep-pace races."""
    return 100 * max(score, opponent) >= 71 * goal


@dataclass(frozen=True)
class KeepPace:
    """Neller & Presser's 'keep pace and end race' (2010), scaled to the goal."""

    name: str = "keep-pace"

    def wants_roll(self, goal: int, score: int, opponent: int, turn_total: int) -> bool:
        """Return True if keep-pace rolls at this state (before the can-win check)."""
        if is_end_race(goal, score, opponent):
            return True
        return turn_total < keep_pace_threshold(goal, score, opponent)

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Hold when holding wins or the turn total reaches the threshold; race once a score is high."""
        variant = state.variant
        score, opponent, turn_total = _view(state)
        if _may_hold(state) and turn_total > 0:
            if can_win_by_holding(state) or not self.wants_roll(variant.goal, score, opponent, turn_total):
                return Hold()
        if not variant.chooses_dice:
            return Roll()
        return _roll_with(variant, int(_best(expected_gains(variant, score, turn_total))[0][0]))

    def action_table(self, variant: Variant) -> np.ndarray:
        """Return the (goal, goal, goal) action table, computed in one vectorised pass."""
        goal = variant.goal
        i = np.arange(goal)[:, None, None]
        j = np.arange(goal)[None, :, None]
        k = np.arange(goal)[None, None, :]
        threshold = np.maximum(1, (168 * goal + 100 * (j - i) + 400) // 800)
        race = 100 * np.maximum(i, j) >= 71 * goal
        hold = ~race & (k >= threshold)
        if variant.chooses_dice:
            gains, resets = _gain_parts(variant, goal)
            values = gains[:, None, :] - resets[:, None, None] * np.arange(goal)[None, :, None]
            best = values.max(axis=0)
            roll = (np.argmax(values >= best - TIE, axis=0) + 1)[:, None, :]  # (i, 1, k)
        else:
            roll = np.ones((1, 1, 1), dtype=np.int64)
        return np.ascontiguousarray(np.where(hold, 0, roll), dtype=np.int8)


def parse_keep_pace(spec: str, variant: Variant) -> KeepPace:
    """Parse the 'keep-pace' spec."""
    _no_argument(spec, "keep-pace")
    if variant.decision is Decision.DICE_PER_TURN:
        raise BadStrategyError(f"keep-pace decides when to hold; {variant.name} has one throw per turn (use dice:N)")
    return KeepPace()


def _no_argument(spec: str, word: str) -> None:
    if spec.strip().lower() != word:
        raise BadStrategyError(f"{spec!r}: {word} takes no arguments")


# -- your own Python function -----------------------------------------------------------------
PluginFunction = Callable[[int, int, int, Variant], Any]


def disable_python_specs() -> None:
    """Refuse ``python:``/``py:`` specs from now on (servers: strangers must not load code)."""
    global _PLUGINS_ALLOWED
    _PLUGINS_ALLOWED = False


def python_specs_allowed() -> bool:
    """Return True unless plug-ins were disabled by ``disable_python_specs`` or PIGDICE_NO_PYTHON_SPECS."""
    return _PLUGINS_ALLOWED and os.environ.get("PIGDICE_NO_PYTHON_SPECS", "") in ("", "0")


@contextlib.contextmanager
def _current_directory_on_path() -> Iterator[None]:
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        yield
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def load_function(target: str, function: str) -> PluginFunction:
    """Import ``function`` from a module name or a ``.py`` file path."""
    try:
        if target.endswith(".py") or os.sep in target or "/" in target:
            path = Path(target).expanduser()
            if not path.is_file():
                raise BadStrategyError(f"no Python file {target!r}")
            spec = importlib.util.spec_from_file_location(f"pigdice_plugin_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise BadStrategyError(f"cannot load {target!r} as Python")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            with _current_directory_on_path():
                module = importlib.import_module(target)
    except PigdiceError:
        raise
    except ImportError as exc:
        raise BadStrategyError(f"cannot import {target!r}: {exc}") from exc
    except Exception as exc:  # the plug-in's own code failed while loading
        raise BadStrategyError(f"loading {target!r} failed: {type(exc).__name__}: {exc}") from exc
    found = getattr(module, function, None)
    if found is None:
        raise BadStrategyError(f"{target!r} has no function {function!r}")
    if not callable(found):
        raise BadStrategyError(f"{target}:{function} is not a function")
    try:
        inspect.signature(found).bind(0, 0, 0, None)
    except TypeError as exc:
        raise BadStrategyError(f"{target}:{function} must take (score, opponent, turn_total, variant): {exc}") from exc
    except ValueError:
        pass  # builtins without a signature: find out when called
    return found  # type: ignore[no-any-return]


@dataclass
class PythonStrategy:
    """Your function ``f(score, opponent, turn_total, variant) -> 'roll' | 'hold' | dice`` as a strategy."""

    name: str
    function: PluginFunction
    _tables: dict[Variant, np.ndarray] = field(default_factory=dict, repr=False)

    def code(self, variant: Variant, score: int, opponent: int, turn_total: int) -> int:
        """Return the function's answer as a table code: 0 hold, c + 1 roll with choice c."""
        try:
            answer = self.function(score, opponent, turn_total, variant)
        except Exception as exc:
            raise BadStrategyError(
                f"{self.name} failed at score {score}, opponent {opponent}, turn total {turn_total}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return self._to_code(variant, answer)

    def _to_code(self, variant: Variant, answer: Any) -> int:
        if isinstance(answer, bool):
            answer = Roll() if answer else Hold()
        elif isinstance(answer, (int, np.integer)):
            answer = Hold() if int(answer) == 0 else Roll(int(answer))
        elif isinstance(answer, str):
            try:
                answer = parse_action(answer)
            except PigdiceError as exc:
                raise BadStrategyError(f"{self.name} returned {answer!r}; return 'roll', 'hold' or dice") from exc
        if isinstance(answer, Hold):
            if not variant.can_hold:
                raise BadStrategyError(f"{self.name} returned hold, but {variant.name} needs a number of dice")
            return 0
        if not isinstance(answer, Roll):
            raise BadStrategyError(f"{self.name} returned {answer!r}; return 'roll', 'hold' or a number of dice")
        if not variant.chooses_dice:
            if answer.dice is not None and answer.dice < 1:
                raise BadStrategyError(f"{self.name} returned {answer.dice} dice")
            return 1
        if answer.dice is None:
            raise BadStrategyError(
                f"{self.name} returned 'roll', but {variant.name} needs a number of dice "
                f"({variant.choices[0]}..{variant.choices[-1]})"
            )
        if answer.dice not in variant.choices:
            raise BadStrategyError(
                f"{self.name} returned {answer.dice} dice; {variant.name} allows "
                f"{variant.choices[0]}..{variant.choices[-1]}"
            )
        return variant.choices.index(answer.dice) + 1

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Ask the function; a hold it may not make (final roll) becomes a roll of the smallest dice."""
        variant = state.variant
        score, opponent, turn_total = _view(state)
        code = self.code(variant, score, opponent, turn_total)
        if code == 0 and Hold() in legal_actions(state):
            return Hold()
        return _roll_with(variant, max(code, 1) - 1)

    def action_table(self, variant: Variant) -> np.ndarray:
        """Return the action table, asking the function once per state (cached per variant)."""
        if variant not in self._tables:
            goal = variant.goal
            table = np.zeros((goal, goal, goal), dtype=np.int8)
            per_turn = variant.decision is Decision.DICE_PER_TURN
            for i in range(goal):
                for j in range(goal):
                    if per_turn:
                        table[i, j, :] = self.code(variant, i, j, 0)
                        continue
                    row = table[i, j]
                    for k in range(goal - i):
                        row[k] = self.code(variant, i, j, k)
            self._tables[variant] = table
        return self._tables[variant]


def parse_python(spec: str, variant: Variant) -> PythonStrategy:
    """Parse 'python:module:function' or 'py:path/to/file.py:function'."""
    text = spec.strip()
    if not python_specs_allowed():
        raise BadStrategyError(f"{text!r}: Python plug-in strategies are disabled here")
    _, _, rest = text.partition(":")
    target, sep, function = rest.rpartition(":")
    if not sep or not target.strip() or not function.strip():
        raise BadStrategyError(f"{text!r}: use python:module:function or py:path/to/file.py:function")
    return PythonStrategy(text, load_function(target.strip(), function.strip()))


register_spec("keep-pace", parse_keep_pace, "Neller & Presser's keep pace and end race (hold at 21 + (opp - you)/8)")
register_spec("max-score", parse_max_score, "roll while one more roll gains points on average (Pig: hold at 20)")
register_spec("python", parse_python, "your function f(score, opponent, turn_total, variant): python:module:function")
register_spec("py", parse_python, "the same, from a file: py:path/to/file.py:function")
