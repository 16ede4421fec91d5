"""Piggy Six for large groups: two sets of dice following each other round the table.

The engine keeps one mover at a time: ``state.current`` rolls set ``state.set_number`` with
``state.turn_total``, and ``state.other_set`` says where the other set is. The sets take turns, one
move (a roll or a stop) each, whenever a turn is under way with both; a set whose next player is still
busy with the other set waits for that turn to end. Someone reaching the goal stops their set; the
turn under way with the other set is played out, then the most points win (first-to-goal: the game
ends at once). The rules text is ``pigdice.rules.registry.TWO_SETS_RULES``.
"""

from __future__ import annotations

from pigdice.engine.events import Banked, Busted, Event, FinalRoundStarted, TurnStarted
from pigdice.engine.game import GameState, OtherSet, _best, _evolve, _game_over, _next_in_play, _with_score
from pigdice.rules.variant import Endgame

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


def pass_move(state: GameState) -> GameState:
    """Return ``state`` with the move passed to the other set, if a turn is under way with it."""
    other = state.other_set
    if other is None or other.phase != ROLLING:
        return state
    return _switch(state, _this_set(state))


def end_set_turn(state: GameState, new_score: int, points: int, events: list[Event]) -> tuple[GameState, list[Event]]:
    """End the mover's turn with ``new_score``; pass their set on (or end the game); return state and events."""
    player = state.current
    if points > 0:
        events.append(Banked(player, points, new_score))
    state = _with_score(state, player, new_score)
    played = list(state.turns_played)
    played[player] += 1
    state = _evolve(state, turns_played=tuple(played), turn_total=0, rolls_this_turn=0)
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
    if other.phase == NOT_STARTED and sum(played) >= state.players // 2:  # half the table has played
        state = _start_second_set(state, events)
    return pass_move(state), events


def _start_second_set(state: GameState, events: list[Event]) -> GameState:
    """Start the second set with the first player still in the game (or let it wait for them)."""
    first = _next_in_play(state, state.players - 1)
    if first == state.current:
        return _evolve(state, other_set=OtherSet(2, WAITING, first))
    state = _evolve(state, other_set=OtherSet(2, ROLLING, first), turn=state.turn + 1)
    events.append(TurnStarted(first, state.turn))
    return state


def resign_from_sets(state: GameState, seat: int, events: list[Event]) -> tuple[GameState, list[Event]]:
    """Seat ``seat`` has left a two-set game: end the turn they were playing, or move a set waiting for them on."""
    other = state.other_set
    assert other is not None  # only called in a two-set game
    if seat == state.current:
        if state.turn_total:
            events.append(Busted(seat, state.turn_total))
        return end_set_turn(state, state.scores[seat], 0, events)
    if other.phase == ROLLING and other.player == seat:
        if other.turn_total:
            events.append(Busted(seat, other.turn_total))
        mover = _this_set(state)
        state, events = end_set_turn(_switch(state, mover), state.scores[seat], 0, events)
        return state, events
    if other.phase == WAITING and other.player == seat:
        following = _next_in_play(state, seat)
        if following == state.current:
            return _evolve(state, other_set=OtherSet(other.number, WAITING, following)), events
        state = _evolve(state, other_set=OtherSet(other.number, ROLLING, following), turn=state.turn + 1)
        events.append(TurnStarted(following, state.turn))
    return state, events
