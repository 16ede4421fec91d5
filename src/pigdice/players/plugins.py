"""Your own strategy as a Python function: ``python:module:function`` or ``py:file.py:function``.

``python:package.module:function`` or ``py:path/to/file.py:function``
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
from pathlib import Path
from typing import Any

import numpy as np

from pigdice.engine.game import Action, GameState, Hold, Roll, legal_actions, parse_action
from pigdice.errors import BadStrategyError, PigdiceError
from pigdice.players.base import Progress, perspective, roll_choice
from pigdice.rules.variant import Decision, Variant

WORDS = ("python", "py")
_PLUGINS_ALLOWED = True

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
    return found


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
        score, opponent, turn_total = perspective(state)
        code = self.code(variant, score, opponent, turn_total)
        if code == 0 and Hold() in legal_actions(state):
            return Hold()
        return roll_choice(variant, max(code, 1))

    def action_table(self, variant: Variant, progress: Progress | None = None) -> np.ndarray:
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
                if progress is not None:
                    progress((i + 1) / goal)
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
