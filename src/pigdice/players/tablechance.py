"""Every player's chance at a table of three or more, estimated from the 2-player game's head-to-head chances.

Where no exact solver covers a game with 3+ players in play, the perfect player plays a 2-player
policy against one opponent, and the chance that policy reports is the 2-player game's: at an even
table of three it says 50% where an even share is 33%. Here every pair at the table is looked at
instead: each player's chance to finish ahead of each other player, read from the 2-player game, is
multiplied over the others, and the products are scaled to add up to one. With two players in play
this is the 2-player chance itself; at an even table it is the even share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pigdice.engine.game import GameState
from pigdice.errors import PigdiceError
from pigdice.players.optimal import Optimal, in_play
from pigdice.rules.variant import Variant
from pigdice.solve.positions import Position

if TYPE_CHECKING:
    from pigdice.solve.exact import ExactPolicy

TABLE_NOTE = (
    "the chance shown is an estimate for a table of {players}: each player's 2-player chances against the "
    "others, multiplied and scaled to add up to 100%"
)
# its size, measured against the exact 3-player solution at every turn start (bench/web_table_chances.py)
MEASURED_HERD = "against exact play with 3 players to 20 it is off by 11 points on average, up to 45"
MEASURED_RACE = "against exact play with 3 players to 30 it is off by 6 points on average, up to 16"


def table_note(variant: Variant, players: int) -> str:
    """Return, in words, how the chance of a table of ``players`` is estimated and how far off it was measured."""
    measured = MEASURED_HERD if variant.is_simultaneous else MEASURED_RACE
    return f"{TABLE_NOTE.format(players=players)} ({measured})"


PairChance = Callable[[int, int], float]  # (seat a, seat b) -> a's chance to finish ahead of b


def combine(seats: Sequence[int], ahead: PairChance, players: int) -> tuple[float, ...]:
    """Return every seat's chance (seat order, 0 for seats not in ``seats``) from the pair chances ``ahead``."""
    products = {}
    for a in seats:
        product = 1.0
        for b in seats:
            if b != a:
                product *= ahead(a, b)
        products[a] = product
    total = sum(products.values())
    chances = [0.0] * players
    for seat, product in products.items():
        chances[seat] = product / total if total > 0 else 1.0 / len(seats)
    return tuple(chances)


def table_chances(state: GameState, advisor: Optimal) -> tuple[float, ...] | None:
    """Return every seat's estimated chance to be the winner of ``state`` (seat order), read from the 2-player
    policy ``advisor`` holds; None where that policy cannot say (a last round past the goal)."""
    seats = in_play(state)
    if state.is_terminal() or len(seats) < 2 or state.variant.two_dice_sets:
        return None  # two sets of dice: two turns under way, which no estimate here has been measured against
    try:
        if state.variant.is_simultaneous:
            pair = advisor.exact(2)
            if pair is None:
                return None
            return combine(seats, lambda a, b: _herd_ahead(state, pair, a, b), state.players)
        if any(state.scores[seat] >= state.variant.goal for seat in seats):
            return None  # a last round: someone is past the goal, which a race to the goal never sees
        return combine(seats, lambda a, b: _race_ahead(state, advisor, a, b), state.players)
    except PigdiceError:  # a position the 2-player policy does not cover
        return None


def _herd_ahead(state: GameState, pair: ExactPolicy, a: int, b: int) -> float:
    """Return the 2-player Swine Herd chance that seat ``a`` finishes ahead of seat ``b`` from this moment."""
    win_vector = pair.win_vector
    scores, standing, total = state.scores, state.standing, state.turn_total
    if standing[a]:
        return float(win_vector(Position((scores[a], scores[b]), total, standing=(True, standing[b])))[0])
    if standing[b]:
        return 1.0 - float(win_vector(Position((scores[b], scores[a]), total, standing=(True, False)))[0])
    goal = state.variant.goal  # both sat down: their turn is over
    if max(scores[a], scores[b]) >= goal:
        return 1.0 if scores[a] > scores[b] else 0.0 if scores[a] < scores[b] else 0.5
    return float(win_vector(Position((scores[a], scores[b]), 0, standing=(True, True)))[0])


def _race_ahead(state: GameState, advisor: Optimal, a: int, b: int) -> float:
    """Return the 2-player race-to-the-goal chance that seat ``a`` beats seat ``b``: the mover from its turn
    total, two others from the start of the turn of whichever of them plays first."""
    policy, goal, mover = advisor.policy, state.variant.goal, state.current
    scores, total = state.scores, state.turn_total
    if a == mover or b == mover:
        other = b if a == mover else a
        if scores[mover] + total >= goal:
            chance = 1.0  # holding now wins
        else:
            chance = policy.win_probability(scores[mover], scores[other], total)
        return chance if a == mover else 1.0 - chance
    n = state.players
    a_first = (a - mover) % n < (b - mover) % n
    if a_first:
        return policy.win_probability(scores[a], scores[b], 0)
    return 1.0 - policy.win_probability(scores[b], scores[a], 0)
