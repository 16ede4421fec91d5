"""OpenSpiel policies written out as action tables: pigdice's ``python_pigdice`` game and OpenSpiel's own ``pig``.

An ``open_spiel.python.policy.Policy`` is asked for its most probable legal action (ties go to the lower
action number) at every position exact evaluation reads: my score, the other score, the turn total, in
each seat the policy plays. Its OpenSpiel state is built for that position:

- ``python_pigdice``: the node is made at the position itself (``PigdiceGame.state_at``), with "rolls
  this turn" 0 at turn total 0 and 1 after, and an empty history;
- ``pig`` (6 faces, no piglet: pigdice's Pig at goal ``winscore``): the node is played to along one fixed
  history. Where the second player is to move, the first busts at once (rolls a 1); then the player to
  move rolls 2s (one 3 first for an odd score) and holds at their score (a score of 0: a bust), the other
  player likewise, and the player to move rolls 2s (one 3 first for an odd total) up to the turn
  total. A score or turn total of 1 cannot be reached in ``pig``; those positions are read as roll,
  which changes no figure (the game never gets there).

A ``TabularPolicy`` is read from its own states instead (its keys may be histories, which a built node
does not share): each state's position and row. Histories that reach one position must choose alike,
and positions it has no state for are read as roll (a table built over every state of the game lacks
only positions that cannot be reached). A policy that chooses differently as the first and the second
player is refused: an action table is one choice per position, whichever seat moves.

A saved table (``openspiel:PATH``) is OpenSpiel's own text form of a tabular policy,
``pyspiel.TabularPolicy.serialize()`` (from a Python one: ``policy.python_policy_to_pyspiel_policy``),
read as bounded plain text, never unpickled. Its keys must name positions (``pig``'s keys, its
observation text, do; ``python_pigdice``'s are histories unless the table is keyed by ``str(state)``):
a history cannot be replayed without the game, so such a file is refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from pigdice import files
from pigdice.engine.codec import HOLD_FIRST, ROLLS_FIRST, action_count, convert, hold_integer, integer_range
from pigdice.engine.game import new_game
from pigdice.errors import BadStrategyError
from pigdice.players.base import Progress
from pigdice.rules.registry import find_variant
from pigdice.rules.variant import Decision, Variant

PIGDICE_GAME = "python_pigdice"
PIG_GAME = "pig"
PIG_FACES = 6
PIG_ROLL, PIG_STOP = 0, 1  # pig's actions; its chance outcome f - 1 is face f
PIG_POSITION = re.compile(r"Scores: (\d+) (\d+), Turn total: (\d+)\s+Current player: (\d+)")  # pig's text
PIGDICE_POSITION = re.compile(r"Scores: (\d+) (\d+), turn total: (\d+)\s+Player (\d+) to move")
POLICY_PREFIX = "openspiel:"
POLICY_DELIMITER = "<~>"  # OpenSpiel's TabularPolicy.serialize() separator
POLICY_FILE_LIMIT = 256 << 20  # bytes: a goal-100 pig table in OpenSpiel's text is about 60 MB

Position = tuple[int, int, int]  # the mover's score, the other score, the turn total
Asker = Callable[[int, int, int, int], int | None]  # (player, own score, other score, turn total) -> action


def is_openspiel_policy(agent: Any) -> bool:
    """Return True if ``agent`` looks like an OpenSpiel policy (a game and ``action_probabilities``)."""
    return callable(getattr(agent, "action_probabilities", None)) and hasattr(agent, "game")


def policy_variant(game: Any) -> Variant:
    """Return the pigdice variant an OpenSpiel game plays (``python_pigdice`` or ``pig``), 2 players only."""
    try:
        name = game.get_type().short_name
        players = game.num_players()
    except AttributeError:
        raise BadStrategyError(f"the policy's game is a {type(game).__name__}, not an OpenSpiel game") from None
    if players != 2:
        raise BadStrategyError(f"the policy is for {players} players; an OpenSpiel policy is evaluated for 2")
    if name == PIGDICE_GAME:
        variant: Variant = game.variant
        return variant.first_to_goal()
    if name == PIG_GAME:
        params = game.get_parameters()
        if params.get("diceoutcomes") != PIG_FACES or params.get("piglet"):
            raise BadStrategyError(
                f"the policy's pig game has {params.get('diceoutcomes')} faces"
                f"{' and piglet' if params.get('piglet') else ''}; pigdice evaluates pig with 6 faces, no piglet"
            )
        return find_variant("pig").with_goal(int(params["winscore"]))
    raise BadStrategyError(f"the policy is for OpenSpiel's {name!r}; pigdice reads {PIGDICE_GAME} and pig policies")


def openspiel_table(policy: Any, variant: Variant, progress: Progress | None = None) -> np.ndarray:
    """Return the action table of an OpenSpiel policy over 2-player ``variant`` (see the module docstring)."""
    game = policy.game
    played = policy_variant(game)
    if played != variant:
        raise BadStrategyError(
            f"the policy plays {played.name} to {played.goal}; this evaluation is of {variant.name} to {variant.goal}"
        )
    seats = sorted({int(p) for p in getattr(policy, "player_ids", (0, 1))} & {0, 1})
    if not seats:
        raise BadStrategyError("the policy plays neither seat of a 2-player game")
    if _is_tabular(policy):
        choices = _tabular_choices(policy, game)
        return _table(variant, seats, lambda p, i, j, k: choices.get((p, i, j, k)), progress)
    builder = PigNodes() if game.get_type().short_name == PIG_GAME else _pigdice_node
    return _table(variant, seats, lambda p, i, j, k: _ask(policy, builder(game, p, i, j, k), p), progress)


def _is_tabular(policy: Any) -> bool:
    """Return True for a TabularPolicy (its states, lookup and probability array)."""
    return all(hasattr(policy, name) for name in ("states", "state_lookup", "action_probability_array"))


def _table(variant: Variant, seats: list[int], choice: Asker, progress: Progress | None) -> np.ndarray:
    """Return the action table of the choices ``choice`` gives in each seat, refusing seats that differ."""
    goal = variant.goal
    table = np.ones((goal, goal, goal), dtype=np.int8)
    per_turn = variant.decision is Decision.DICE_PER_TURN
    last_total = 1 if per_turn else goal
    for i in range(goal):
        for j in range(goal):
            for k in range(min(goal - i, last_total)):
                found = [choice(p, i, j, k) for p in seats]
                known = [a for a in found if a is not None]
                if not known:
                    continue
                if len(set(known)) > 1:
                    raise BadStrategyError(
                        f"the policy chooses differently as the first and the second player (score {i}, other "
                        f"score {j}, turn total {k}); an action table holds one choice per position"
                    )
                action = known[0]
                if action not in integer_range(variant, ROLLS_FIRST):
                    raise BadStrategyError(f"the policy chose action {action}, not one of the game's")
                table[i, j, k] = convert(variant, action, ROLLS_FIRST, HOLD_FIRST)
        if progress is not None:
            progress((i + 1) / goal)
    if per_turn:
        table[:, :, :] = table[:, :, :1]
    return table


def _most_probable(probabilities: dict[int, float]) -> int | None:
    """Return the most probable action of a legal-action -> probability map (the lower one on a tie; None if empty)."""
    if not probabilities:
        return None
    legal = sorted(probabilities)
    return legal[int(np.argmax([probabilities[a] for a in legal]))]


def _ask(policy: Any, state: Any, player: int) -> int | None:
    """Return the policy's most probable legal action at ``state`` for ``player`` (None without a state)."""
    if state is None:
        return None
    try:
        answer = dict(policy.action_probabilities(state, player))
        probabilities = {int(a): float(answer.get(a, 0.0)) for a in state.legal_actions(player)}
    except Exception as exc:  # the policy's own code failed, or a table has no entry for the state
        raise BadStrategyError(
            f"the policy gave no choice at {str(state).strip()!r}: {type(exc).__name__}: {exc}"
        ) from None
    return _most_probable(probabilities)


def _tabular_choices(policy: Any, game: Any) -> dict[tuple[int, int, int, int], int]:
    """Return a TabularPolicy's most probable action at every position its states reach, by (player, i, j, k)."""
    read = _pig_position if game.get_type().short_name == PIG_GAME else _pigdice_position
    probabilities = np.asarray(policy.action_probability_array, dtype=float)
    choices: dict[tuple[int, int, int, int], int] = {}
    for index, state in enumerate(policy.states):
        if state.is_chance_node() or state.is_terminal():
            continue
        player = int(state.current_player())
        row = probabilities[index]
        action = _most_probable({int(a): float(row[a]) for a in state.legal_actions(player)})
        if action is None:
            continue
        key = (player, *read(state, player))
        if choices.setdefault(key, action) != action:
            raise BadStrategyError(
                f"the table chooses differently at two histories reaching one position ({str(state).strip()!r}); "
                "exact evaluation reads one choice per position"
            )
    return choices


def _pigdice_position(state: Any, player: int) -> Position:
    """Return a python_pigdice node's position from ``player``'s seat."""
    position = state.position
    return position.scores[player], position.scores[1 - player], position.turn_total


def _pig_position(state: Any, player: int) -> Position:
    """Return a pig node's position from ``player``'s seat, read off its observation text."""
    found = PIG_POSITION.search(str(state))
    if found is None:
        raise BadStrategyError(f"cannot read a position off the pig state {str(state)!r}")
    scores = (int(found[1]), int(found[2]))
    return scores[player], scores[1 - player], int(found[3])


def _pigdice_node(game: Any, player: int, score: int, other: int, total: int) -> Any:
    """Return the python_pigdice decision node at a position (built there: "rolls this turn" 1 once it is > 0)."""
    scores = (score, other) if player == 0 else (other, score)
    start = new_game(game.variant, 2)
    position = replace(start, scores=scores, current=player, turn_total=total, rolls_this_turn=int(total > 0))
    return game.state_at(position)


def _faces(total: int) -> list[int] | None:
    """Return pig's faces that make ``total`` (2s, one 3 first when odd), None for 1, which no roll makes."""
    if total == 1:
        return None
    return ([3] if total % 2 else []) + [2] * ((total - 3 * (total % 2)) // 2)


def _rolled(state: Any, faces: list[int]) -> None:
    """Roll ``faces`` in order on a pig state (in place)."""
    for face in faces:
        state.apply_action(PIG_ROLL)
        state.apply_action(face - 1)


def _pig_node(game: Any, player: int, score: int, other: int, total: int) -> Any:
    """Return the pig decision node at a position, played to along the fixed history (None if unreachable)."""
    faces = [_faces(score), _faces(other)]  # the player to move sets their score first
    rolls = _faces(total)
    if any(f is None for f in faces) or rolls is None:
        return None
    state = game.new_initial_state()
    if player == 1:
        _rolled(state, [1])  # the first player busts: the second is the one to move last
    for turn_faces in faces:
        if turn_faces:
            _rolled(state, turn_faces)
            state.apply_action(PIG_STOP)
        else:
            _rolled(state, [1])
    _rolled(state, rolls)
    return _checked(state, player)


def _checked(state: Any, player: int) -> Any:
    """Return ``state`` if ``player`` is to move in it (a short horizon may have ended the game first)."""
    if state.is_terminal() or state.current_player() != player:
        raise BadStrategyError(
            "the pig game ends (its horizon) before every position can be reached: load it with a larger horizon"
        )
    return state


class PigNodes:
    """pig decision nodes along the fixed history, each turn total from 4 on grown from the one 2 below."""

    def __init__(self) -> None:
        self.scores: tuple[int, int] | None = None
        self.built: dict[tuple[int, int], Any] = {}  # (player, turn total) -> node, for the current scores

    def __call__(self, game: Any, player: int, score: int, other: int, total: int) -> Any:
        """Return the node at a position (None if pig cannot reach it), as ``_pig_node`` plays to it."""
        if self.scores != (score, other):
            self.scores, self.built = (score, other), {}
        key = (player, total)
        if key not in self.built:
            if total < 4:
                node = _pig_node(game, player, score, other, total)
            else:
                below = self(game, player, score, other, total - 2)
                node = None if below is None else below.clone()
                if node is not None:
                    _rolled(node, [2])
                    _checked(node, player)
            self.built[key] = node
        return self.built[key]


def is_policy_file_spec(agent: Any) -> bool:
    """Return True if ``agent`` names a saved OpenSpiel tabular policy: ``openspiel:PATH``."""
    return isinstance(agent, str) and agent.strip().lower().startswith(POLICY_PREFIX)


def read_policy_file(agent: str, variant: Variant) -> tuple[str, np.ndarray]:
    """Return the name and action table of a serialized OpenSpiel TabularPolicy (``openspiel:PATH``) in ``variant``.

    The file is OpenSpiel's text form (``pyspiel.TabularPolicy.serialize()``, "TabularPolicy:" then keys and
    "action=probability" lists separated by "<~>"), read as plain text of bounded size; its keys must be
    positions (``pig``'s or ``python_pigdice``'s observation text), not histories.
    """
    path = agent.strip()[len(POLICY_PREFIX) :]
    if not path:
        raise BadStrategyError("name the policy file after openspiel:, e.g. openspiel:pig_policy.txt")
    shown = Path(path).name or path
    try:
        text = files.read_text(path, POLICY_FILE_LIMIT, "an OpenSpiel policy")
    except files.UnsafeFileError as exc:
        raise BadStrategyError(str(exc)) from None
    except FileNotFoundError:
        raise BadStrategyError(f"no policy file {shown}") from None
    except UnicodeDecodeError:
        raise BadStrategyError(f"{shown} is not an OpenSpiel policy (not text)") from None
    except OSError as exc:
        raise BadStrategyError(f"cannot read {shown}: {exc.strerror or exc}") from None
    choices = _serialized_choices(text, variant, shown)
    return f"OpenSpiel policy {shown}", _table(variant, [0, 1], lambda p, i, j, k: choices.get((p, i, j, k)), None)


def _serialized_choices(text: str, variant: Variant, shown: str) -> dict[tuple[int, int, int, int], int]:
    """Return the most probable action at every position a serialized TabularPolicy names, by (player, i, j, k)."""
    head, _, body = text.partition(":")
    if head != "TabularPolicy" or not body:
        raise BadStrategyError(f"{shown} is not an OpenSpiel TabularPolicy (its text starts 'TabularPolicy:')")
    parts = body.split(POLICY_DELIMITER)
    if len(parts) % 2:
        raise BadStrategyError(f"{shown} is not an OpenSpiel TabularPolicy (a key without its probabilities)")
    actions = action_count(variant)
    goal = variant.goal
    choices: dict[tuple[int, int, int, int], int] = {}
    hold = hold_integer(variant, ROLLS_FIRST)
    only_hold = None if hold is None else {hold}
    for key, listed in zip(parts[::2], parts[1::2], strict=True):
        found = PIG_POSITION.fullmatch(key.strip()) or PIGDICE_POSITION.fullmatch(key.strip())
        if found is None:
            raise BadStrategyError(
                f"{shown}: the key {key[:60]!r} is not a position (pig's or python_pigdice's observation text); "
                "a table keyed by histories is evaluated from the TabularPolicy object itself (pigdice.evaluate)"
            )
        scores, total, player = (int(found[1]), int(found[2])), int(found[3]), int(found[4])
        if player not in (0, 1) or max(scores) >= goal:
            raise BadStrategyError(f"{shown} holds the position {key.strip()!r}, outside {variant.name} to {goal}")
        probabilities = _probabilities(listed, actions, shown)
        i, j = scores[player], scores[1 - player]
        if i + total >= goal:
            continue
        if set(probabilities) == only_hold:  # the game allows only a hold: its goal is reached there
            raise BadStrategyError(
                f"{shown} may only hold at {key.strip()!r}, which is short of {goal}: a policy of a smaller goal?"
            )
        action = _most_probable(probabilities)
        if action is not None and choices.setdefault((player, i, j, total), action) != action:
            raise BadStrategyError(f"{shown} names the position {key.strip()!r} twice with different choices")
    return choices


def _probabilities(listed: str, actions: int, shown: str) -> dict[int, float]:
    """Return the "action=probability" list of one key (decimal or OpenSpiel's hexadecimal numbers)."""
    found: dict[int, float] = {}
    for item in filter(None, listed.split(",")):
        action_text, equals, number = item.partition("=")
        try:
            action = int(action_text)
            value = float.fromhex(number) if number.strip().lower().startswith(("0x", "-0x")) else float(number)
        except ValueError:
            raise BadStrategyError(f"{shown}: {item[:40]!r} is not action=probability") from None
        if not equals or not 0 <= action < actions:
            raise BadStrategyError(f"{shown} names action {action_text[:20]!r}; {actions} actions here (another game?)")
        if not 0.0 <= value <= 1.0:
            raise BadStrategyError(f"{shown} gives action {action} the probability {number[:20]!r}, not 0 to 1")
        found[action] = value
    return found
