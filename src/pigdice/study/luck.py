"""Exact luck and skill: how every roll and every decision of a game moved each seat's chance to win.

V is the exact chance to win from a position, read from the perfect player's values
(``pigdice.players.optimal``); a finished game's V is its result (1 a win, 0 a loss, the share of a
shared win). Walking the game move by move:

- a **roll**'s luck for each seat is V after the roll minus the V expected before it, the average of
  V over the roll's exact outcomes (the outcome table, ``RollSpec.distribution``): zero on average,
  positive when the dice were kind;
- a **decision**'s error is the mover's best option's value minus the chosen option's value (from the
  policy's own option values), never negative;
- the same decision moves the other seats' chances too: that is their ``others`` (in 2 players the
  other seat gains exactly the mover's error).

Each seat's ``luck`` is everything that moved its chance and was not its own choice: the dice plus the
others' choices. Then for every seat **result = start + luck - error**, where ``start`` is V before
the first move. The identity is not a definition: ``error`` comes from the policy's option values and
``dice`` from sums over the outcome tables, so it holds (to rounding) only because V is the exact value
of the game; the tests check it to 1e-9 on many seeded games.

Which values: with 2 players (turn by turn) the perfect player's exact chances; with 3 or more the
exact equilibrium the n-player solver finds (each player maximises their own chance, ties broken as
``pigdice.solve.positions`` says, a few turns mixing two plans); in 2-player Swine Herd the exact
equilibrium of the simultaneous game, where the other's hidden (possibly mixed) choice counts as
luck. Where the perfect player only approximates (3+ players under some endings, Swine Herd with 3+)
there is no exact V, and no luck and skill are given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pigdice.engine.events import Rolled
from pigdice.engine.game import GameState, Hold, Move, Pass, Resign, Roll, apply, dice_rng, legal_actions, new_game
from pigdice.engine.game import returns as game_returns
from pigdice.engine.simultaneous import choosing_seats, seat_view
from pigdice.players.optimal import Optimal, position_of, seat_chances
from pigdice.rules.outcomes import RollSpec, ScriptedDice, Throw
from pigdice.rules.variant import Variant
from pigdice.solve.positions import Position

if TYPE_CHECKING:
    from pigdice.solve.exact import ExactPolicy

TWO_PLAYER_VALUES = "the perfect player's exact chances to win"
PLAYERS_VALUES = (
    "the exact chances when every player plays the solved equilibrium (each maximises their own chance to win, "
    "ties broken as the solver breaks them)"
)
HERD_VALUES = "the exact equilibrium of 2-player Swine Herd (where it mixes, the other's hidden choice counts as luck)"


@dataclass(frozen=True)
class RollLuck:
    """One roll: who threw, what showed, and how it moved every seat's chance against the average roll."""

    move: int  # the move that threw the dice (numbered from 1)
    seat: int  # who threw (-1: Swine Herd's shared die)
    throw: str  # what the dice showed
    luck: tuple[float, ...]  # each seat's luck, in seat order

    def to_json(self) -> dict[str, Any]:
        """Return the roll as JSON-ready data."""
        return {"move": self.move, "seat": self.seat, "throw": self.throw, "luck": list(self.luck)}


@dataclass(frozen=True)
class ChoiceEffect:
    """One choice: the chance the chooser gave away, and how it moved every other seat's chance."""

    move: int
    seat: int
    error: float  # the best option's value minus the chosen one's, for the chooser
    others: tuple[float, ...]  # the change to each other seat's chance (0 for the chooser)

    def to_json(self) -> dict[str, Any]:
        """Return the choice as JSON-ready data."""
        return {"move": self.move, "seat": self.seat, "error": self.error, "others": list(self.others)}


@dataclass(frozen=True)
class SeatLedger:
    """One seat's game in chances: where it started, what luck and its own play did, where it ended."""

    seat: int
    start: float  # the chance to win before the first move
    dice: float  # the dice's luck, summed over every roll
    others: float  # what the other players' choices did to this seat's chance
    error: float  # the chance this seat's own choices gave away
    now: float  # the chance after the last move: the result once the game is over
    finished: bool

    @property
    def luck(self) -> float:
        """Return everything that moved the chance and was not this seat's choice: the dice and the others."""
        return self.dice + self.others

    @property
    def result(self) -> float | None:
        """Return the result (1 win, 0 loss, a share of a shared win), or None while the game goes on."""
        return self.now if self.finished else None

    @property
    def luck_adjusted(self) -> float | None:
        """Return the result with the dice's luck taken out (GNU Backgammon's luck-adjusted result)."""
        return None if not self.finished else self.now - self.dice

    def to_json(self) -> dict[str, Any]:
        """Return the ledger as JSON-ready data."""
        return {
            "start": self.start,
            "luck": self.luck,
            "dice": self.dice,
            "others": self.others,
            "error": self.error,
            "result": self.result,
            "now": self.now,
            "luck_adjusted": self.luck_adjusted,
        }


@dataclass(frozen=True)
class LuckAndSkill:
    """A game's exact luck and skill: every seat's ledger, every roll's luck, every choice's effect."""

    seats: tuple[SeatLedger, ...]
    rolls: tuple[RollLuck, ...]
    choices: tuple[ChoiceEffect, ...]
    timeline: tuple[tuple[float, ...], ...]  # every seat's chance before the first move and after each move
    values: str  # which values V are

    def luckiest(self, seat: int) -> RollLuck | None:
        """Return the roll that raised ``seat``'s chance the most (None if no roll helped it)."""
        best = max(self.rolls, key=lambda r: r.luck[seat], default=None)
        return best if best is not None and best.luck[seat] > 0 else None

    def unluckiest(self, seat: int) -> RollLuck | None:
        """Return the roll that cost ``seat`` the most chance (None if no roll hurt it)."""
        worst = min(self.rolls, key=lambda r: r.luck[seat], default=None)
        return worst if worst is not None and worst.luck[seat] < 0 else None

    def to_json(self) -> dict[str, Any]:
        """Return the luck and skill as JSON-ready data (per seat, per roll, and the chance after every move)."""
        return {
            "values": self.values,
            "identity": "result = start + luck - error; luck = dice + others",
            "seats": [
                {
                    **ledger.to_json(),
                    "luckiest": _move_of(self.luckiest(ledger.seat)),
                    "unluckiest": _move_of(self.unluckiest(ledger.seat)),
                }
                for ledger in self.seats
            ],
            "rolls": [roll.to_json() for roll in self.rolls],
            "choices": [choice.to_json() for choice in self.choices],
            "timeline": [list(chances) for chances in self.timeline],
        }


def _move_of(roll: RollLuck | None) -> int | None:
    return None if roll is None else roll.move


class NotExact(Exception):
    """The perfect player has no exact values for a position of this game (it approximates there)."""


def values_note(variant: Variant, players: int) -> str:
    """Return which values the luck and skill of a game with ``players`` players are measured in."""
    if variant.is_simultaneous:
        return HERD_VALUES
    return TWO_PLAYER_VALUES if players == 2 else PLAYERS_VALUES


@lru_cache(maxsize=256)
def _outcomes(spec: RollSpec) -> tuple[tuple[Throw, float], ...]:
    """Return every distinct outcome of a roll as a scripted throw, with its probability."""
    return tuple((Throw(None, (), "", effect), float(p)) for effect, p in spec.distribution())


class _Walk:
    """The state of one walk through a game: the values read so far and every seat's sums."""

    def __init__(self, variant: Variant, players: int, optimal: Optimal) -> None:
        self.variant = variant
        self.players = players
        self.optimal = optimal
        self.dice = [0.0] * players
        self.others = [0.0] * players
        self.error = [0.0] * players
        self.rolls: list[RollLuck] = []
        self.choices: list[ChoiceEffect] = []
        self.timeline: list[tuple[float, ...]] = []
        self._seen: tuple[GameState, Position] | None = None

    def chances(self, state: GameState) -> tuple[float, ...]:
        """Return every seat's exact chance to win at ``state`` (its result once it is over)."""
        if state.winners is not None:
            return game_returns(state)
        position = self.position(state)
        return seat_chances(state, self._exact(state).win_vector(position))

    def position(self, state: GameState) -> Position:
        """Return the solvers' view of ``state`` (kept for the state last asked about)."""
        if self._seen is None or self._seen[0] is not state:
            self._seen = (state, position_of(state))
        return self._seen[1]

    def _exact(self, state: GameState) -> ExactPolicy:
        """Return the exact policy for the players still in the game, or raise NotExact."""
        exact = self.optimal.exact(state.players - len(state.resigned))
        if exact is None:
            raise NotExact
        return exact

    def option_values(self, seen: GameState) -> dict[str, float]:
        """Return the mover's chance after each option at ``seen`` (the exact policy's own values)."""
        return self._exact(seen).action_values(self.position(seen))

    def expected(self, state: GameState, action: Roll | Hold | Pass) -> tuple[float, ...]:
        """Return every seat's chance after ``action`` at ``state``, averaged over the roll's exact outcomes."""
        spec = self.thrown(state, action)
        if spec is None:
            return self.chances(apply(state, action, ScriptedDice([]))[0])
        total = [0.0] * self.players
        for throw, p in _outcomes(spec):
            script: list[tuple[int, ...] | Throw | None] = [throw]
            after = self.chances(apply(state, action, ScriptedDice(script))[0])
            for seat in range(self.players):
                total[seat] += p * after[seat]
        return tuple(total)

    def thrown(self, state: GameState, action: Roll | Hold | Pass) -> RollSpec | None:
        """Return the dice ``action`` throws at ``state`` (None if it throws none)."""
        variant = state.variant
        if variant.is_simultaneous:
            standing = list(state.standing)
            standing[state.current] = isinstance(action, Roll)
            later = any(standing[p] for p in range(state.current + 1, state.players))
            return None if later or not any(standing) else variant.roll_spec()
        if not isinstance(action, Roll):
            return None
        return variant.roll_spec(action.dice if action.dice is not None else variant.choices[0])

    def roll(
        self, move: int, seat: int, events: Sequence[object], before: Sequence[float], after: Sequence[float]
    ) -> None:
        """Count a roll's luck: the chance after it against the chance expected before it."""
        luck = tuple(a - b for a, b in zip(after, before, strict=True))
        for s, amount in enumerate(luck):
            self.dice[s] += amount
        text = next((e.text for e in events if isinstance(e, Rolled)), "")
        self.rolls.append(RollLuck(move, seat, text, luck))

    def shift(self, move: int, chooser: int, before: Sequence[float], after: Sequence[float]) -> None:
        """Count a move that was all one seat's doing (a resignation, a timeout): its change is that seat's error."""
        changes = [a - b for a, b in zip(after, before, strict=True)]
        self.error[chooser] -= changes[chooser]
        moved = tuple(0.0 if s == chooser else c for s, c in enumerate(changes))
        for s, amount in enumerate(moved):
            self.others[s] += amount
        self.choices.append(ChoiceEffect(move, chooser, -changes[chooser], moved))


def luck_and_skill(
    variant: Variant, players: int, seed: int, actions: Sequence[Move], optimal: Optimal | None = None
) -> LuckAndSkill | None:
    """Return the exact luck and skill of the game of ``variant`` played with ``seed`` and ``actions``.

    None where the perfect player has no exact values for some position of the game (it approximates).
    """
    walk = _Walk(variant, players, optimal or Optimal(variant))
    try:
        start = _simultaneous(walk, seed, actions) if variant.is_simultaneous else _turns(walk, seed, actions)
    except NotExact:
        return None
    finished, now = start[1], walk.timeline[-1]
    seats = tuple(
        SeatLedger(s, start[0][s], walk.dice[s], walk.others[s], walk.error[s], now[s], finished)
        for s in range(players)
    )
    values = values_note(variant, players)
    return LuckAndSkill(seats, tuple(walk.rolls), tuple(walk.choices), tuple(walk.timeline), values)


def _turns(walk: _Walk, seed: int, actions: Sequence[Move]) -> tuple[tuple[float, ...], bool]:
    """Walk a turn-by-turn game; return every seat's chance at the start and whether the game is over."""
    state = new_game(walk.variant, walk.players)
    rng = dice_rng(seed)
    chances = walk.chances(state)
    start = chances
    walk.timeline.append(chances)
    for number, action in enumerate(actions, start=1):
        if isinstance(action, Resign | Pass):
            chooser = action.seat if isinstance(action, Resign) else state.current
            state, _ = apply(state, action, rng)
            after = walk.chances(state)
            walk.shift(number, chooser, chances, after)
        else:
            mover = state.current
            values = walk.option_values(state) if len(legal_actions(state)) > 1 else None
            if values is not None and state.players - len(state.resigned) == 2:
                # two players: the chosen option's value is the mover's expected chance, the other's is the rest
                value = values[_option(state, action)]
                expected = seat_chances(state, (value, 1.0 - value))
            else:
                expected = walk.expected(state, action)
            if values is not None:
                error = max(values.values()) - values[_option(state, action)]
                walk.error[mover] += error
                moved = tuple(0.0 if s == mover else expected[s] - chances[s] for s in range(walk.players))
                for s, amount in enumerate(moved):
                    walk.others[s] += amount
                walk.choices.append(ChoiceEffect(number, mover, error, moved))
            state, events = apply(state, action, rng)
            after = walk.chances(state)
            if isinstance(action, Roll):
                walk.roll(number, mover, events, expected, after)
        chances = after
        walk.timeline.append(chances)
    return start, state.is_terminal()


def _simultaneous(walk: _Walk, seed: int, actions: Sequence[Move]) -> tuple[tuple[float, ...], bool]:
    """Walk a Swine Herd game moment by moment; return every seat's chance at the start and whether it is over.

    Every standing seat chooses on the same moment, none seeing another's choice: a chooser's error is
    its best option's value minus its chosen one's against the others' equilibrium play (the policy's
    option values), and what the others' actual choices then did to it is its ``others``. A seat whose
    time ran out is charged with the moment's whole change; a resignation ends the moment at once.
    """
    state = new_game(walk.variant, walk.players)
    rng = dice_rng(seed)
    chances = walk.chances(state)
    start = chances
    walk.timeline.append(chances)
    moment, key = state, (-1, -1)
    chosen: dict[int, tuple[int, float]] = {}  # seat -> (move, its chosen option's value) in this moment
    timed_out: list[int] = []
    for number, action in enumerate(actions, start=1):
        if (state.turn, state.rolls_this_turn) != key:
            moment, key, chosen, timed_out = state, (state.turn, state.rolls_this_turn), {}, []
            chances = walk.chances(state)
        if isinstance(action, Resign):
            state, _ = apply(state, action, rng)
            after = walk.chances(state)
            walk.shift(number, action.seat, chances, after)
            chances, key = after, (-1, -1)
            walk.timeline.append(chances)
            continue
        seat = state.current
        seen = seat_view(moment, seat) if seat in choosing_seats(moment) else state
        if isinstance(action, Pass):
            timed_out.append(seat)
        elif len(legal_actions(seen)) > 1:
            values = walk.option_values(seen)
            value = values[_option(seen, action)]
            error = max(values.values()) - value
            walk.error[seat] += error
            chosen[seat] = (number, value)
            walk.choices.append(ChoiceEffect(number, seat, error, (0.0,) * walk.players))
        if any(state.standing[p] for p in range(seat + 1, state.players)):  # a later seat still chooses
            state, _ = apply(state, action, rng)
            walk.timeline.append(chances)
            continue
        throws = walk.thrown(state, action) is not None
        expected = walk.expected(state, action)
        state, events = apply(state, action, rng)
        after = walk.chances(state)
        if chosen or timed_out:
            for s in range(walk.players):
                if s in chosen:
                    walk.others[s] += expected[s] - chosen[s][1]
                elif s in timed_out:
                    walk.error[s] += chances[s] - expected[s]
                else:
                    walk.others[s] += expected[s] - chances[s]
        if throws:
            walk.roll(number, -1, events, expected, after)
        chances = after
        walk.timeline.append(chances)
    return start, state.is_terminal()


def _option(state: GameState, action: Roll | Hold) -> str:
    """Return the exact policy's name of ``action``: 'hold', 'roll' or 'roll:N'."""
    if isinstance(action, Hold):
        return "hold"
    variant = state.variant
    if variant.chooses_dice:
        return f"roll:{action.dice if action.dice is not None else variant.choices[0]}"
    return "roll"
