"""The game engine: immutable states and ``apply(state, action, rng) -> (state, events)``.

One engine serves every variant, from 2 to 10 players (Swine Herd: any group), under every
endgame rule. Chance is explicit: the caller passes a seeded ``numpy.random.Generator`` (or
``ScriptedDice`` for tests), so the same seed and actions always replay the same game.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pigdice.engine.events import (
    Banked,
    Busted,
    Event,
    FinalRoundStarted,
    GameOver,
    GameStopped,
    Resigned,
    Rolled,
    ScoreReset,
    StayedStanding,
    TimedOut,
    TurnStarted,
)
from pigdice.errors import IllegalActionError
from pigdice.rules.effects import EffectKind
from pigdice.rules.outcomes import ScriptedDice
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant

if TYPE_CHECKING:  # numpy loads with the first game's dice: the command line starts without it
    import numpy as np


@dataclass(frozen=True)
class Roll:
    """Roll the dice (``dice``: how many, where the variant lets the player choose)."""

    dice: int | None = None

    def __str__(self) -> str:
        return "roll" if self.dice is None else f"roll:{self.dice}"


@dataclass(frozen=True)
class Hold:
    """Hold: bank the turn total (in Swine Herd: sit down)."""

    def __str__(self) -> str:
        return "hold"


Action = Roll | Hold


@dataclass(frozen=True)
class Resign:
    """A player leaves the game, at any moment (not only on their turn): they can no longer win, their turns
    are skipped, and once one player is left that player wins. Only front ends play it, for a person."""

    seat: int

    def __str__(self) -> str:
        return f"resign:{self.seat}"


@dataclass(frozen=True)
class Pass:
    """The player to move ran out of time (an online room's turn timer): the turn ends, its total lost.

    Never among ``legal_actions``: only the server plays it, for a person who did not answer.
    """

    def __str__(self) -> str:
        return "pass"


Move = Action | Resign | Pass  # everything a game's log can hold: the players' actions and the server's


def parse_move(text: str) -> Move:
    """Parse a logged move: an action, 'resign:N' (seat N resigns) or 'pass' (the turn timer ran out)."""
    word = text.strip().lower()
    if word == "pass":
        return Pass()
    if word.startswith("resign:") and word[7:].isdecimal() and len(word) <= 10:
        return Resign(int(word[7:]))
    return parse_action(text)


def parse_action(text: str) -> Action:
    """Parse 'roll', 'hold', 'roll:3' or a bare number of dice into an action."""
    word = text.strip().lower()
    if word in ("h", "hold", "sit", "s"):
        return Hold()
    if word in ("r", "roll", "stand"):
        return Roll()
    if word.startswith("roll:"):
        word = word[5:]
    if word.isdecimal():
        return Roll(int(word))
    raise IllegalActionError(f"cannot read action {text!r}; use roll, hold, or roll:N / N for N dice")


@dataclass(frozen=True)
class OtherSet:
    """Piggy Six for large groups: the set of dice that is not rolling this move, and where it is.

    ``phase`` is 'not started' (it starts once half the table has had a turn with the first set), 'rolling'
    (``player``'s turn is under way with ``turn_total``), 'waiting' (for ``player``, still busy with the
    set now rolling) or 'finished' (someone reached the goal with it: no more turns with it). How the two
    sets move is at the end of this module.
    """

    number: int  # 1 or 2: which set it is, as the players call them
    phase: str
    player: int
    turn_total: int = 0
    rolls: int = 0

    def to_json(self) -> dict[str, Any]:
        """Return the set as JSON-ready data."""
        return {
            "set": self.number,
            "phase": self.phase,
            "player": self.player,
            "turn_total": self.turn_total,
            "rolls": self.rolls,
        }


@dataclass(frozen=True)
class GameState:
    """Everything about a game in progress; never changed in place."""

    variant: Variant
    scores: tuple[int, ...]
    current: int = 0
    turn_total: int = 0
    rolls_this_turn: int = 0
    turn: int = 0  # turns started, minus one: the index of the turn in progress
    turns_played: tuple[int, ...] = ()
    final_round: tuple[int, ...] | None = None  # players still owed a last turn, in order
    reached: tuple[int, ...] = ()  # step at which each player's score last rose (tie-breaks)
    standing: tuple[bool, ...] = ()  # Swine Herd: who is still standing this turn
    resigned: tuple[int, ...] = ()  # players who left the game, in the order they resigned
    step: int = 0
    winners: tuple[int, ...] | None = None
    other_set: OtherSet | None = None  # Piggy Six with two sets of dice: the set not moving now
    set_number: int = 1  # with two sets: the set the current player rolls (1 or 2)

    @property
    def players(self) -> int:
        """Return the number of players."""
        return len(self.scores)

    @property
    def turns_taken(self) -> int:
        """Return the turns played so far (a Swine Herd turn is everyone's, so it counts once)."""
        if self.variant.is_simultaneous:
            return self.turns_played[0] if self.turns_played else 0
        return sum(self.turns_played)

    def is_terminal(self) -> bool:
        """Return True if the game is over."""
        return self.winners is not None

    def is_final_roll(self) -> bool:
        """Return True if the current player has only one roll left (final-round 'roll' rule)."""
        return (
            self.final_round is not None
            and self.variant.final_turn is FinalTurn.ROLL
            and self.variant.endgame is Endgame.FINAL_ROUND
            and self.variant.decision is not Decision.SIMULTANEOUS
        )

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready snapshot of the state."""
        return {
            "variant": self.variant.name,
            "goal": self.variant.goal,
            "scores": list(self.scores),
            "current": self.current,
            "turn_total": self.turn_total,
            "rolls_this_turn": self.rolls_this_turn,
            "turn": self.turn,
            "turns_played": list(self.turns_played),
            "final_round": None if self.final_round is None else list(self.final_round),
            "standing": list(self.standing),
            "winners": None if self.winners is None else list(self.winners),
            "resigned": list(self.resigned),
            "legal_actions": [str(a) for a in legal_actions(self)],
            **({} if self.other_set is None else {"set": self.set_number, "other_set": self.other_set.to_json()}),
        }


def _evolve(state: GameState, **changes: Any) -> GameState:
    """Return a copy of ``state`` with some fields changed (``dataclasses.replace`` without its
    per-call introspection, which dominated the engine loop's time)."""
    new = object.__new__(GameState)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def new_game(variant: Variant, players: int = 2) -> GameState:
    """Return the starting state of a game of ``variant`` for ``players`` players."""
    variant.check_players(players)
    standing = (True,) * players if variant.decision is Decision.SIMULTANEOUS else ()
    return GameState(
        variant=variant,
        scores=(0,) * players,
        turns_played=(0,) * players,
        reached=(0,) * players,
        standing=standing,
        other_set=OtherSet(2, "not started", 0) if variant.two_dice_sets else None,
    )


ROLL = Roll()
HOLD = Hold()


@lru_cache(maxsize=256)
def _dice_rolls(choices: tuple[int, ...]) -> tuple[Action, ...]:
    return tuple(Roll(n) for n in choices)


def legal_actions(state: GameState) -> list[Action]:
    """Return the actions the current player may take (empty once the game is over)."""
    if state.winners is not None:
        return []
    variant = state.variant
    decision = variant.decision
    if decision is Decision.DICE_PER_TURN:
        return list(_dice_rolls(variant.choices))
    if decision is Decision.DICE_PER_ROLL:
        rolls = _dice_rolls(variant.choices)
        return list(rolls) if state.is_final_roll() else [*rolls, HOLD]
    if state.final_round is not None and state.is_final_roll():
        return [ROLL]
    if decision is Decision.SIMULTANEOUS and state.turn_total == 0:
        return [ROLL]  # Swine Herd: nothing to bank before the first roll, so everyone stands for it
    return [ROLL, HOLD]


def _normalize(state: GameState, action: Action) -> Action:
    variant = state.variant
    if isinstance(action, Roll) and not variant.chooses_dice and action.dice in (None, variant.choices[0]):
        return ROLL
    if isinstance(action, Roll) and variant.chooses_dice and action.dice is None:
        raise IllegalActionError(
            f"{variant.name}: say how many dice to roll ({variant.choices[0]}..{variant.choices[-1]}), e.g. roll:2"
        )
    return action


# A game stops after this many moves (a stated rule of every variant, on the rules pages): players who never bank
# (holding at 0, or rolling until they bust) could otherwise play for ever. The highest score then wins (ties as
# the variant breaks them); the turn in progress is not banked. A game record holds at most this many moves.
MOVE_LIMIT = 100_000


def apply(state: GameState, action: Move, rng: np.random.Generator | ScriptedDice) -> tuple[GameState, list[Event]]:
    """Apply ``action`` for the current player (a resignation: for its seat); return the new state and events."""
    state, events = _apply(state, action, rng)
    if state.step >= MOVE_LIMIT and state.winners is None:
        events.append(GameStopped(state.step))
        return _game_over(state, _best(state), events)
    return state, events


def _apply(state: GameState, action: Move, rng: np.random.Generator | ScriptedDice) -> tuple[GameState, list[Event]]:
    """Apply ``action`` by the rules (``apply`` adds the move limit)."""
    if state.is_terminal():
        raise IllegalActionError("the game is over; no more actions")
    if isinstance(action, Resign):
        return _resign(_evolve(state, step=state.step + 1), action.seat, rng)
    if isinstance(action, Pass):
        return _time_out(_evolve(state, step=state.step + 1), rng)
    action = _normalize(state, action)
    legal = legal_actions(state)
    if action not in legal:
        allowed = _describe_legal(legal)
        raise IllegalActionError(f"{action} is not allowed now; allowed: {allowed}")
    state = _evolve(state, step=state.step + 1)
    if state.variant.decision is Decision.SIMULTANEOUS:
        return _apply_simultaneous(state, action, rng)
    events: list[Event] = []
    player = state.current
    end_turn = _end_turn if state.other_set is None else _end_set_turn
    if isinstance(action, Hold):
        return end_turn(state, state.scores[player] + state.turn_total, state.turn_total, events)
    dice = action.dice if action.dice is not None else state.variant.choices[0]
    throw = state.variant.roll_spec(dice).throw(rng)
    score, turn_total, ends = throw.effect.resolve(state.scores[player], state.turn_total)
    events.append(Rolled(player, dice, throw.faces, throw.labels, throw.text, throw.effect, turn_total))
    state = _evolve(state, rolls_this_turn=state.rolls_this_turn + 1)
    if ends:
        kind = throw.effect.kind
        if kind is EffectKind.BUST:
            events.append(Busted(player, state.turn_total))
        elif kind is EffectKind.RESET_SCORE:
            events.append(ScoreReset(player, state.scores[player], state.turn_total))
        return end_turn(state, score, score - state.scores[player], events)
    if state.variant.decision is Decision.DICE_PER_TURN or state.is_final_roll():
        return end_turn(state, score + turn_total, turn_total, events)
    state = _evolve(state, turn_total=turn_total)
    if state.other_set is not None:
        state = _pass_move(state)
    return state, events


def _describe_legal(legal: list[Action]) -> str:
    rolls = [a.dice for a in legal if isinstance(a, Roll) and a.dice is not None]
    words = [str(a) for a in legal if not (isinstance(a, Roll) and a.dice is not None)]
    if rolls:
        listed = ", ".join(f"roll:{n}" for n in rolls)
        words.insert(0, f"roll:{rolls[0]}..roll:{rolls[-1]}" if len(rolls) > 3 else listed)
    return ", ".join(words)


def _with_score(state: GameState, player: int, score: int) -> GameState:
    scores = list(state.scores)
    reached = list(state.reached)
    if score > scores[player]:
        reached[player] = state.step
    scores[player] = score
    return _evolve(state, scores=tuple(scores), reached=tuple(reached))


def _bank(state: GameState, new_score: int, points: int, events: list[Event]) -> GameState:
    """Give the mover ``new_score`` (noting the points banked, if any) and count their turn played."""
    player = state.current
    if points > 0:
        events.append(Banked(player, points, new_score))
    state = _with_score(state, player, new_score)
    played = list(state.turns_played)
    played[player] += 1
    return _evolve(state, turns_played=tuple(played), turn_total=0, rolls_this_turn=0)


def _end_turn(state: GameState, new_score: int, points: int, events: list[Event]) -> tuple[GameState, list[Event]]:
    variant = state.variant
    player = state.current
    state = _bank(state, new_score, points, events)
    final = state.final_round
    if final is not None:
        final = tuple(p for p in final if p != player)
    elif new_score >= variant.goal:
        if variant.endgame is Endgame.FIRST_TO_GOAL:
            return _game_over(state, (player,), events)
        if variant.endgame is Endgame.FINAL_ROUND:
            final = tuple((player + offset) % state.players for offset in range(1, state.players))
        else:
            final = tuple(range(player + 1, state.players))
        final = tuple(p for p in final if p not in state.resigned)
        events.append(FinalRoundStarted(player, final))
    if final is not None and not final:
        return _game_over(state, _best(state), events)
    next_player = final[0] if final else _next_in_play(state, player)
    state = _evolve(state, final_round=final, current=next_player, turn=state.turn + 1)
    events.append(TurnStarted(next_player, state.turn))
    return state, events


def _next_in_play(state: GameState, player: int) -> int:
    """Return the player after ``player`` in turn order who has not resigned."""
    for offset in range(1, state.players + 1):
        following = (player + offset) % state.players
        if following not in state.resigned:
            return following
    raise IllegalActionError("nobody is left in the game")  # unreachable: the last one left has won


def _best(state: GameState) -> tuple[int, ...]:
    top = max(s for p, s in enumerate(state.scores) if p not in state.resigned)
    tied = tuple(p for p, s in enumerate(state.scores) if s == top and p not in state.resigned)
    if len(tied) > 1 and state.variant.ties is TieRule.FIRST_TO_REACH:
        first = min(state.reached[p] for p in tied)
        return tuple(p for p in tied if state.reached[p] == first)
    return tied


def _resign(state: GameState, seat: int, rng: np.random.Generator | ScriptedDice) -> tuple[GameState, list[Event]]:
    """Seat ``seat`` leaves: the last one left wins; a resigning mover's turn ends with its total lost."""
    if not 0 <= seat < state.players:
        raise IllegalActionError(f"seat {seat} is not one of the {state.players}")
    if seat in state.resigned:
        raise IllegalActionError(f"seat {seat} has already resigned")
    events: list[Event] = [Resigned(seat)]
    state = _evolve(state, resigned=(*state.resigned, seat))
    left = [p for p in range(state.players) if p not in state.resigned]
    if len(left) == 1:
        return _game_over(state, (left[0],), events)
    if state.other_set is not None:
        return _resign_from_sets(state, seat, events)
    if state.variant.decision is Decision.SIMULTANEOUS:
        standing = list(state.standing)
        standing[seat] = False
        state = _evolve(state, standing=tuple(standing))
        if seat != state.current:
            return state, events
        return _after_choice(state, seat, events, rng)
    if seat == state.current:
        if state.turn_total:
            events.append(Busted(seat, state.turn_total))
        return _end_turn(state, state.scores[seat], 0, events)
    if state.final_round is not None and seat in state.final_round:
        final = tuple(p for p in state.final_round if p != seat)
        if not final:
            return _game_over(state, _best(state), events)
        state = _evolve(state, final_round=final)
    return state, events


def _time_out(state: GameState, rng: np.random.Generator | ScriptedDice) -> tuple[GameState, list[Event]]:
    """The mover ran out of time: the turn ends with nothing banked (in Swine Herd: they sit down empty-handed)."""
    player = state.current
    events: list[Event] = [TimedOut(player, state.turn_total)]
    if state.variant.decision is Decision.SIMULTANEOUS:
        standing = list(state.standing)
        standing[player] = False
        return _after_choice(_evolve(state, standing=tuple(standing)), player, events, rng)
    if state.other_set is not None:
        return _end_set_turn(state, state.scores[player], 0, events)
    return _end_turn(state, state.scores[player], 0, events)


def _game_over(state: GameState, winners: tuple[int, ...], events: list[Event]) -> tuple[GameState, list[Event]]:
    events.append(GameOver(winners, state.scores))
    return _evolve(state, winners=winners), events


def _apply_simultaneous(
    state: GameState, action: Action, rng: np.random.Generator | ScriptedDice
) -> tuple[GameState, list[Event]]:
    """Swine Herd: each standing player in seat order sits (holds) or stays; then one shared roll."""
    events: list[Event] = []
    player = state.current
    standing = list(state.standing)
    if isinstance(action, Hold):
        standing[player] = False
        if state.turn_total > 0:
            events.append(Banked(player, state.turn_total, state.scores[player] + state.turn_total))
        state = _with_score(state, player, state.scores[player] + state.turn_total)
    else:
        events.append(StayedStanding(player))
    state = _evolve(state, standing=tuple(standing))
    return _after_choice(state, player, events, rng)


def _after_choice(
    state: GameState, player: int, events: list[Event], rng: np.random.Generator | ScriptedDice
) -> tuple[GameState, list[Event]]:
    """Swine Herd, once ``player`` has chosen: the next standing player chooses, or the shared die is rolled."""
    standing = list(state.standing)
    later = [p for p in range(player + 1, state.players) if standing[p]]
    if later:
        return _evolve(state, current=later[0]), events
    if any(standing):
        # the house rule holds after a round of choices too: with 3+ players, those left standing when others sat
        # may all be at the goal already (they sit at this total, as ``solve.herd.swineherd_n`` reads the rule)
        home = state.turn_total > 0 and _everyone_home(state, standing, state.turn_total)
        turn_total, ends = state.turn_total, False
        if not home:
            throw = state.variant.roll_spec().throw(rng)
            _, turn_total, ends = throw.effect.resolve(0, state.turn_total)
            events.append(Rolled(-1, 1, throw.faces, throw.labels, throw.text, throw.effect, turn_total))
            state = _evolve(state, rolls_this_turn=state.rolls_this_turn + 1)
        if not home and not ends and not _everyone_home(state, standing, turn_total):
            first = standing.index(True)
            return _evolve(state, turn_total=turn_total, current=first), events
        for p in range(state.players):
            if not standing[p]:
                continue
            if ends:
                events.append(Busted(p, state.turn_total))
            else:  # the house rule: everyone standing has reached the goal, so they all sit down
                events.append(Banked(p, turn_total, state.scores[p] + turn_total))
                state = _with_score(state, p, state.scores[p] + turn_total)
    # the turn is over for everyone
    played = tuple(n + 1 for n in state.turns_played)
    state = _evolve(state, turns_played=played, turn_total=0, rolls_this_turn=0)
    if max(state.scores) >= state.variant.goal:
        return _game_over(state, _best(state), events)
    standing = [p not in state.resigned for p in range(state.players)]
    state = _evolve(state, standing=tuple(standing), current=standing.index(True), turn=state.turn + 1)
    events.append(TurnStarted(-1, state.turn))
    return state, events


def _everyone_home(state: GameState, standing: list[bool], turn_total: int) -> bool:
    """Return True if Swine Herd's house rule seats everyone now: two or more stand and the shared total takes
    each of them to the goal (``Variant.sits_at_goal``)."""
    if not state.variant.sits_at_goal or sum(standing) < 2:
        return False
    goal = state.variant.goal
    return all(state.scores[p] + turn_total >= goal for p in range(state.players) if standing[p])


def returns(state: GameState) -> tuple[float, ...]:
    """Return each player's share of the win: 1/len(winners) for a winner, 0 otherwise."""
    if state.winners is None:
        return (0.0,) * state.players
    share = 1.0 / len(state.winners)
    return tuple(share if p in state.winners else 0.0 for p in range(state.players))


MAX_SEED = 2**63 - 1  # the largest seed a game takes (and a game record stores)


def dice_rng(seed: int | None) -> np.random.Generator:
    """Return the dice generator of a game with ``seed`` (the one ``replay`` rolls with)."""
    import numpy as np

    return np.random.default_rng(seed)


def robot_rng(seed: int | None) -> np.random.Generator:
    """Return the robots' own generator of a game with ``seed``, apart from the dice.

    It is the first child of the seed's ``SeedSequence`` (what ``dice_rng(seed).spawn(1)[0]``
    gives, as ``study.simulate.play_game`` does), so robots that randomise never move the dice
    and a game replays from its seed and actions alone.
    """
    import numpy as np

    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


def replay(
    variant: Variant, players: int, seed: int | None, actions: Iterable[Move], dice: ScriptedDice | None = None
) -> tuple[GameState, list[Event]]:
    """Replay a game from its seed (or scripted dice) and its action list; return final state and all events."""
    rng: np.random.Generator | ScriptedDice = dice if dice is not None else dice_rng(seed)
    state = new_game(variant, players)
    events: list[Event] = []
    for action in actions:
        state, new_events = apply(state, action, rng)
        events.extend(new_events)
    return state, events


# -- two sets of dice (Piggy Six for large groups) -------------------------------------------------
# One mover at a time: ``state.current`` rolls set ``state.set_number`` with ``state.turn_total``, and
# ``state.other_set`` says where the other set is. The sets take turns, one move (a roll or a stop) each,
# whenever a turn is under way with both; a set whose next player is still busy with the other set waits
# for that turn to end. Someone reaching the goal stops their set; the turn under way with the other set
# is played out, then the most points win (first-to-goal: the game ends at once). The rules text is
# ``pigdice.rules.registry.TWO_SETS_RULES``.
ROLLING, WAITING, NOT_STARTED, FINISHED = "rolling", "waiting", "not started", "finished"


def _this_set(state: GameState, phase: str = ROLLING, player: int | None = None) -> OtherSet:
    """Return the set now moving as it will look once the move goes to the other set."""
    who = state.current if player is None else player
    return OtherSet(state.set_number, phase, who, state.turn_total, state.rolls_this_turn)


def _switch(state: GameState, mine: OtherSet) -> GameState:
    """Return ``state`` with the other set moving and this set left as ``mine``."""
    other = state.other_set
    assert other is not None  # only called in a two-set game
    return _evolve(
        state,
        current=other.player,
        turn_total=other.turn_total,
        rolls_this_turn=other.rolls,
        set_number=other.number,
        other_set=mine,
    )


def _pass_move(state: GameState) -> GameState:
    """Return ``state`` with the move passed to the other set, if a turn is under way with it."""
    other = state.other_set
    if other is None or other.phase != ROLLING:
        return state
    return _switch(state, _this_set(state))


def _end_set_turn(state: GameState, new_score: int, points: int, events: list[Event]) -> tuple[GameState, list[Event]]:
    """End the mover's turn with ``new_score``; pass their set on (or end the game); return state and events."""
    player = state.current
    state = _bank(state, new_score, points, events)
    other = state.other_set
    assert other is not None  # only called in a two-set game
    if other.phase == FINISHED:  # the turn played out after someone reached the goal: the game is over
        return _game_over(state, _best(state), events)
    if new_score >= state.variant.goal:
        if state.variant.endgame is Endgame.FIRST_TO_GOAL:
            return _game_over(state, (player,), events)
        if other.phase != ROLLING:
            return _game_over(state, _best(state), events)
        events.append(FinalRoundStarted(player, (other.player,)))
        return _switch(state, OtherSet(state.set_number, FINISHED, player)), events
    if other.phase == WAITING and other.player == player:  # the other set waited for this player: it starts now
        other = OtherSet(other.number, ROLLING, player)
        state = _evolve(state, other_set=other, turn=state.turn + 1)
        events.append(TurnStarted(player, state.turn))
    following = _next_in_play(state, player)
    if other.phase == ROLLING and other.player == following:  # never overtake: wait for that turn to end
        return _switch(state, OtherSet(state.set_number, WAITING, following)), events
    state = _evolve(state, current=following, turn=state.turn + 1)
    events.append(TurnStarted(following, state.turn))
    if other.phase == NOT_STARTED and sum(state.turns_played) >= state.players // 2:  # half the table has played
        state = _start_second_set(state, events)
    return _pass_move(state), events


def _start_second_set(state: GameState, events: list[Event]) -> GameState:
    """Start the second set with the first player still in the game (or let it wait for them)."""
    first = _next_in_play(state, state.players - 1)
    if first == state.current:
        return _evolve(state, other_set=OtherSet(2, WAITING, first))
    state = _evolve(state, other_set=OtherSet(2, ROLLING, first), turn=state.turn + 1)
    events.append(TurnStarted(first, state.turn))
    return state


def _resign_from_sets(state: GameState, seat: int, events: list[Event]) -> tuple[GameState, list[Event]]:
    """Seat ``seat`` has left a two-set game: end the turn they were playing, or move a set waiting for them on."""
    other = state.other_set
    assert other is not None  # only called in a two-set game
    if seat == state.current:
        if state.turn_total:
            events.append(Busted(seat, state.turn_total))
        return _end_set_turn(state, state.scores[seat], 0, events)
    if other.phase == ROLLING and other.player == seat:
        if other.turn_total:
            events.append(Busted(seat, other.turn_total))
        mover = _this_set(state)
        state, events = _end_set_turn(_switch(state, mover), state.scores[seat], 0, events)
        return state, events
    if other.phase == WAITING and other.player == seat:
        following = _next_in_play(state, seat)
        if following == state.current:
            return _evolve(state, other_set=OtherSet(other.number, WAITING, following)), events
        state = _evolve(state, other_set=OtherSet(other.number, ROLLING, following), turn=state.turn + 1)
        events.append(TurnStarted(following, state.turn))
    return state, events
