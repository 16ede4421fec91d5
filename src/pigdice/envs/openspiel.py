"""The OpenSpiel game ``python_pigdice``: every turn-based pigdice variant, with explicit chance nodes.

Importing this module registers the game::

    import pyspiel
    import pigdice.envs.openspiel  # registers python_pigdice

    game = pyspiel.load_game("python_pigdice", {"variant": "big-pig", "goal": 50, "players": 3})

Parameters (OpenSpiel's own ``pig`` names where they fit):

- ``variant`` ("pig"): a variant name or alias; Swine Herd, where everyone chooses at once, is
  refused (its home is the PettingZoo parallel environment ``pigdice.envs.parallel_env``);
- ``goal`` (0: the variant's own goal); ``winscore``, ``pig``'s name for it, is accepted too;
- ``players`` (2);
- ``endgame``, ``ties``, ``final_turn`` ("": the variant's own rule), e.g. endgame "equal-turns";
- ``horizon`` (1000): after this many player decisions (rolls and holds; chance outcomes do not
  count) the game ends, as in ``pig``: a draw, every return 0, unless it was already won;
- ``hold_at_goal`` (True): in a first-to-goal game a player whose score plus turn total reaches the
  goal may only hold, as in ``pig`` (rolling on could only lose a won game); False offers every
  action the engine allows. The Gymnasium and PettingZoo environments take the same option with the
  same default and meaning (``pigdice.envs.setup.must_hold``);
- the variants' settings (``pigdice.rules.registry.SETTINGS``): ``max_dice`` (0), ``double_ones``,
  ``snake_eyes``, ``bad`` (""), ``oinker`` (0.0); the default leaves the variant's own value.

Actions are the shared encoding (``pigdice.envs.encoding``): ``a < len(variant.choices)`` rolls
``variant.choices[a]`` dice, ``len(variant.choices)`` holds (Pig: 0 roll, 1 hold, as in ``pig``).
A roll makes the state a chance node for that roll: chance outcome ``i`` is the ``i``-th entry of
the roll's exact table merged by effect (``RollSpec.distribution()``), applied through the engine
with ``ScriptedDice``, so OpenSpiel plays the same transition function as everyone else.

Returns are zero-sum, as in ``pig``: a lone winner gets +1 and every other player -1/(n-1); tied
winners with win share s (``pigdice.engine.game.returns``) get (n*s - 1)/(n-1).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Generic, TypeVar

import numpy as np

from pigdice.errors import BadParameterError, IllegalActionError, require_modules

require_modules(("pyspiel",), "rl", "the OpenSpiel game needs")

import pyspiel  # noqa: E402
from open_spiel.python.observation import IIGObserverForPublicInfoGame  # noqa: E402

from pigdice.engine.game import GameState, Hold, Roll, apply, legal_actions, new_game, returns  # noqa: E402
from pigdice.envs.encoding import action_count, hold_action, observation_size, observe, to_action, to_integer  # noqa: E402
from pigdice.envs.setup import must_hold  # noqa: E402
from pigdice.rules.outcomes import Outcome, RollSpec, ScriptedDice, Throw  # noqa: E402
from pigdice.rules.registry import SETTINGS, all_variants, find_variant  # noqa: E402
from pigdice.rules.variant import Variant  # noqa: E402

GAME_NAME = "python_pigdice"
MAX_HORIZON = 2**31 - 1  # OpenSpiel keeps the game length in a C int
MAX_LISTED_THROWS = 4  # a chance outcome's label lists at most this many throws
TABLE_CACHE_SIZE = 1024  # chance tables kept for games loaded again (unpickled, deserialized): Hog has up to 100

_TURN_BASED = [variant for variant in all_variants() if not variant.is_simultaneous]


def _setting_defaults() -> dict[str, Any]:
    """Return each variant setting's "leave the variant's own value" default, typed as OpenSpiel reads it."""
    defaults: dict[str, Any] = {}
    for settings in SETTINGS.values():
        for setting in settings:
            defaults[setting.key] = {"count": 0, "probability": 0.0}.get(setting.kind, "")
    return defaults


SETTING_DEFAULTS = _setting_defaults()
PARAMETERS: dict[str, Any] = {
    "variant": "pig",
    "goal": 0,
    "winscore": 0,
    "players": 2,
    "endgame": "",
    "ties": "",
    "final_turn": "",
    "horizon": 1000,
    "hold_at_goal": True,
    **SETTING_DEFAULTS,
}

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python pigdice (Pig and its variants)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=max(variant.players_max for variant in _TURN_BASED),
    min_num_players=min(variant.players_min for variant in _TURN_BASED),
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)

T = TypeVar("T")


class _Shared(Generic[T]):
    """An immutable value that clones share: OpenSpiel clones a Python state with ``copy.deepcopy``."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared[T]:
        """Return this holder itself (its value never changes)."""
        return self


@dataclass(frozen=True)
class ChanceTable:
    """The chance outcomes of one roll choice: the effects of ``RollSpec.distribution()``, in its order."""

    probabilities: tuple[Fraction, ...]
    labels: tuple[str, ...]
    throws: tuple[Throw, ...]  # what the engine is handed for each outcome

    @property
    def outcomes(self) -> list[tuple[int, float]]:
        """Return the (outcome, probability) pairs OpenSpiel expects."""
        return [(index, float(p)) for index, p in enumerate(self.probabilities)]


@lru_cache(maxsize=TABLE_CACHE_SIZE)
def chance_table(spec: RollSpec) -> ChanceTable:
    """Return the chance outcomes of one roll: each distinct effect, its exact probability, a label and a throw."""
    rows: dict[Any, list[Outcome]] = defaultdict(list)
    for row in spec.outcomes():
        rows[row.effect].append(row)
    probabilities, labels, throws = [], [], []
    for effect, probability in spec.distribution():
        merged = rows[effect]
        shown = [row.label for row in merged]
        if len(shown) > MAX_LISTED_THROWS:
            shown = [*shown[: MAX_LISTED_THROWS - 1], f"... ({len(merged)} throws)"]
        label = f"{' '.join(shown)}: {effect.describe()}"
        single = merged[0] if len(merged) == 1 else None
        if single is not None and single.faces is not None:
            throw = spec.throw_faces(single.faces)
            throw = Throw(throw.faces, throw.labels, label, throw.effect)
        else:
            throw = Throw(None, (), label, effect)
        probabilities.append(probability)
        labels.append(label)
        throws.append(throw)
    return ChanceTable(tuple(probabilities), tuple(labels), tuple(throws))


@dataclass(frozen=True)
class Rules:
    """What a ``python_pigdice`` game plays: the variant, the players, the horizon and the chance tables."""

    variant: Variant
    players: int
    horizon: int
    hold_at_goal: bool
    tables: tuple[ChanceTable, ...]  # one per roll choice, aligned with ``variant.choices``

    def __deepcopy__(self, memo: dict[int, Any]) -> Rules:
        """Return these rules themselves (they never change; every clone of a state shares them)."""
        return self


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise BadParameterError(f"{name} must be a whole number, got {value!r}")
    return int(value)


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise BadParameterError(f"{name} must be a text, got {value!r}")
    return value


def variant_from_params(params: dict[str, Any]) -> Variant:
    """Return the turn-based variant that OpenSpiel parameters describe (defaults filled in from ``PARAMETERS``)."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise BadParameterError(f"{GAME_NAME} has no parameter {unknown[0]!r}; its parameters: {', '.join(PARAMETERS)}")
    values = {**PARAMETERS, **params}
    settings = {key: values[key] for key, default in SETTING_DEFAULTS.items() if values[key] != default}
    variant = find_variant(_text("variant", values["variant"]), files=True, **settings)
    if variant.is_simultaneous:
        raise BadParameterError(
            f"{variant.name} is played by everyone at once on shared rolls, which a sequential OpenSpiel game "
            "cannot express: use the PettingZoo parallel environment pigdice.envs.parallel_env"
        )
    goal, winscore = _whole("goal", values["goal"]), _whole("winscore", values["winscore"])
    if goal and winscore and goal != winscore:
        raise BadParameterError(f"goal and winscore name the same thing; got goal={goal} and winscore={winscore}")
    goal = goal or winscore
    if goal:
        variant = variant.with_goal(goal)
    endgame, ties = _text("endgame", values["endgame"]), _text("ties", values["ties"])
    final_turn = _text("final_turn", values["final_turn"])
    if endgame or ties or final_turn:
        variant = variant.with_endgame(endgame or variant.endgame, ties or None, final_turn or None)
    return variant


def make_rules(params: dict[str, Any]) -> Rules:
    """Return the rules of a game from its OpenSpiel parameters; raise a pigdice error naming a bad one."""
    variant = variant_from_params(params)
    values = {**PARAMETERS, **params}
    players = _whole("players", values["players"])
    variant.check_players(players)
    horizon = _whole("horizon", values["horizon"])
    if not 1 <= horizon <= MAX_HORIZON:
        raise BadParameterError(f"horizon (player decisions before a draw) must be 1..{MAX_HORIZON}, got {horizon}")
    hold_at_goal = values["hold_at_goal"]
    if not isinstance(hold_at_goal, bool):
        raise BadParameterError(f"hold_at_goal must be True or False, got {hold_at_goal!r}")
    tables = tuple(chance_table(spec) for spec in variant.rolls)
    return Rules(variant, players, horizon, hold_at_goal, tables)


def game_info(rules: Rules) -> pyspiel.GameInfo:
    """Return OpenSpiel's facts about a game: actions, chance outcomes, utilities and length in decisions."""
    return pyspiel.GameInfo(
        num_distinct_actions=action_count(rules.variant),
        max_chance_outcomes=max(len(table.probabilities) for table in rules.tables),
        num_players=rules.players,
        min_utility=-1.0 / (rules.players - 1),
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=rules.horizon,
    )


class PigdiceGame(pyspiel.Game):
    """A pigdice variant as an OpenSpiel game (load it with ``pyspiel.load_game("python_pigdice", params)``)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        values = {**PARAMETERS, **(params or {})}
        rules = make_rules(values)
        super().__init__(GAME_TYPE, game_info(rules), values)
        self._rules = rules

    @property
    def rules(self) -> Rules:
        """Return the rules played (rebuilt from the parameters in an unpickled game, which has only those)."""
        rules: Rules | None = self.__dict__.get("_rules")
        if rules is None:
            rules = self._rules = make_rules(self.get_parameters())
        return rules

    @property
    def variant(self) -> Variant:
        """Return the variant played."""
        return self.rules.variant

    def new_initial_state(self) -> PigdiceState:
        """Return the state at the start of a game."""
        return PigdiceState(self)

    def state_at(self, position: GameState) -> PigdiceState:
        """Return a decision node at ``position`` (its history is empty: the node is built, not played to)."""
        if position.variant != self.rules.variant or position.players != self.rules.players:
            raise BadParameterError(f"the position is not one of this game ({self.rules.variant.name})")
        state = PigdiceState(self)
        state._position = _Shared(position)
        return state

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> Any:
        """Return an observer: the shared observation encoding, or the history for an information state."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return PigdiceObserver(self.rules.players, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


def _zero_sum(shares: tuple[float, ...]) -> list[float]:
    """Return zero-sum returns from win shares: +1 for a lone winner, -1/(n-1) for each other player."""
    players = len(shares)
    return [(players * share - 1.0) / (players - 1) for share in shares]


class PigdiceState(pyspiel.State):
    """A node of a ``python_pigdice`` game: a pigdice GameState, plus the roll awaiting its chance outcome."""

    def __init__(self, game: PigdiceGame) -> None:
        super().__init__(game)
        self._rules = game.rules
        self._position: _Shared[GameState] = _Shared(new_game(game.rules.variant, game.rules.players))
        self._rolling: int | None = None  # the roll choice awaiting its chance outcome
        self._decisions = 0

    @property
    def position(self) -> GameState:
        """Return the pigdice game state (before the pending roll, at a chance node)."""
        return self._position.value

    @property
    def decisions(self) -> int:
        """Return the player decisions made so far (what the horizon counts)."""
        return self._decisions

    @property
    def rolling(self) -> int | None:
        """Return the roll choice (an action) awaiting its chance outcome, or None at a decision or terminal node."""
        return self._rolling

    def current_player(self) -> int:
        """Return the player to move, or OpenSpiel's chance or terminal player id."""
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self._rolling is not None:
            return int(pyspiel.PlayerId.CHANCE)
        return self.position.current

    def _legal_actions(self, player: int) -> list[int]:
        """Return the player's legal actions, ascending (with ``hold_at_goal``: only hold once a hold wins)."""
        if self.is_terminal() or self._rolling is not None or player != self.position.current:
            return []
        state, variant = self.position, self._rules.variant
        hold = hold_action(variant)
        actions = sorted(to_integer(variant, action) for action in legal_actions(state))
        if self._rules.hold_at_goal and hold in actions and must_hold(state):
            return [hold]
        return actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Return the pending roll's outcomes with their probabilities (the roll's distribution, in order)."""
        if self._rolling is None or self.is_terminal():
            raise IllegalActionError("chance outcomes exist only at a chance node (after a roll)")
        return self._rules.tables[self._rolling].outcomes

    def _apply_action(self, action: int) -> None:
        """Apply a player's action, or the chance outcome of the pending roll through the engine."""
        if self.is_terminal():
            raise IllegalActionError("the game is over; no more actions")
        variant = self._rules.variant
        if self._rolling is not None:
            table = self._rules.tables[self._rolling]
            if not 0 <= action < len(table.throws):
                raise IllegalActionError(f"chance outcome {action} is out of range 0..{len(table.throws) - 1}")
            roll = to_action(variant, self._rolling)
            chosen: list[tuple[int, ...] | Throw | None] = [table.throws[action]]
            state, _ = apply(self.position, roll, ScriptedDice(chosen))
            self._position = _Shared(state)
            self._rolling = None
            return
        legal = self._legal_actions(self.position.current)
        if action not in legal:
            allowed = ", ".join(f"{a} ({self._action_to_string(self.position.current, a)})" for a in legal)
            raise IllegalActionError(f"action {action} is not legal now; legal: {allowed}")
        self._decisions += 1
        move = to_action(variant, int(action))
        if isinstance(move, Roll):
            self._rolling = int(action)
        else:
            state, _ = apply(self.position, move, ScriptedDice([]))
            self._position = _Shared(state)

    def _action_to_string(self, player: int, action: int) -> str:
        """Return 'roll', 'roll 3 dice', 'hold', or a chance outcome's label (its throws and effect)."""
        variant, tables = self._rules.variant, self._rules.tables
        if player == pyspiel.PlayerId.CHANCE:
            choice = self._rolling if self._rolling is not None else (0 if len(tables) == 1 else None)
            if choice is not None and 0 <= action < len(tables[choice].labels):
                return tables[choice].labels[action]
            return f"chance outcome {action}"
        if 0 <= action < action_count(variant):
            move = to_action(variant, int(action))
            if isinstance(move, Hold):
                return "hold"
            if move.dice is not None:
                return f"roll {move.dice} {'die' if move.dice == 1 else 'dice'}"
            return "roll"
        return f"action {action}"

    def is_terminal(self) -> bool:
        """Return True once the game is won or the horizon of player decisions is reached."""
        return self.position.is_terminal() or self._decisions >= self._rules.horizon

    def returns(self) -> list[float]:
        """Return the zero-sum returns: 0 for everyone until the game is won (and at the horizon)."""
        if not self.position.is_terminal():
            return [0.0] * self._rules.players
        return _zero_sum(returns(self.position))

    def __str__(self) -> str:
        """Return the scores, the turn total and who is to move (or how the game ended)."""
        state = self.position
        line = f"Scores: {' '.join(str(s) for s in state.scores)}, turn total: {state.turn_total}"
        if state.is_terminal():
            winners = state.winners or ()
            if len(winners) == 1:
                return f"{line}\nGame over: player {winners[0]} wins"
            return f"{line}\nGame over: players {' and '.join(str(p) for p in winners)} share the win"
        if self._decisions >= self._rules.horizon:
            return f"{line}\nGame over: a draw at the horizon of {self._rules.horizon} decisions"
        mover = f"Player {state.current} to move"
        if self._rolling is not None:
            move = self._action_to_string(state.current, self._rolling)
            mover = f"Player {state.current} {move.replace('roll', 'rolling', 1)}"
        if state.final_round is not None:
            mover += f"; final round, still to play: {' '.join(str(p) for p in state.final_round)}"
        return f"{line}\n{mover}"


class PigdiceObserver:
    """Observer (OpenSpiel's PyObserver interface): the shared encoding from the observer's seat, and the text."""

    def __init__(self, players: int, params: dict[str, Any] | None) -> None:
        if params:
            raise BadParameterError(f"the {GAME_NAME} observer takes no parameters, got {params}")
        self.tensor = np.zeros(observation_size(players), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: PigdiceState, player: int) -> None:
        """Fill ``tensor`` with ``encoding.observe`` of the state seen from ``player``."""
        self.tensor[:] = observe(state.position, player)

    def string_from(self, state: PigdiceState, player: int) -> str:
        """Return the state's text (the game has perfect information, so every player sees all of it)."""
        return str(state)


pyspiel.register_game(GAME_TYPE, PigdiceGame)
