"""The numba step of the batched environment: every game of the batch played at once, as the engine plays it.

A game here is the engine's ``GameState`` spread over arrays (``Games``: one row per game), and
its rules are numbers (``Rules``, ``Dice``, ``Robots``: built by ``pigdice.envs.vector``). What
each move does follows ``pigdice.engine.game`` line by line: a throw is resolved by the solver's
one effect step (``pigdice.solve.step.effect_step``), a turn ends as ``_end_turn`` ends it
(final round, equal turns, both tie rules, the move limit), and the observation and action mask
are ``pigdice.envs.encoding``'s.

The dice are the engine's dice: each game owns a PCG64 generator (numpy's default bit
generator, its 128-bit state kept as four 64-bit words in ``Games.rng``), and a throw draws
``Generator.random()`` doubles in the engine's order (the mishap first where the roll has one,
then one per die, a face by ``bisect_right`` on the die's cumulative chances). So game k of
the batch seeded s throws the very dice ``PigdiceEnv`` seeded s throws.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pigdice.solve.step import WITHOUT_REFCOUNTS, effect_step
from pigdice.solve.tables import KIND_ADD, KIND_BUST, KIND_RESET

# numpy's PCG64 (pcg64.h): a 128-bit LCG with the XSL-RR output, as two 64-bit halves
MULTIPLIER_HIGH = np.uint64(2549297995355413924)
MULTIPLIER_LOW = np.uint64(4865540595714422341)
LOW_32 = np.uint64(0xFFFFFFFF)
DOUBLE_UNIT = 1.0 / 9007199254740992.0  # 2^-53: next_double keeps the top 53 bits

# Rules.decision codes
ROLL_HOLD = 0
DICE_PER_TURN = 1
DICE_PER_ROLL = 2
# Rules.endgame codes
FIRST_TO_GOAL = 0
FINAL_ROUND = 1
EQUAL_TURNS = 2
# Dice.mode codes: how a throw's faces become an effect
DENSE = 0  # a table indexed by every die's face index
SUM_UNLESS_BAD = 1  # Hog's scorer: the sum, unless a bad face shows
# Robots.kind codes
LEARNER = 0
HOLD_AT = 1  # pigdice.players.fixed.HoldAt
DICE_EACH_TURN = 2  # pigdice.players.fixed.DiceEachTurn
TABLE = 3  # a 2-player first-to-goal action table T[i, j, k] (the perfect player)

OBSERVATION_HIGH = 2**31 - 1
HEADER = 4
PER_PLAYER = 4


class Rules(NamedTuple):
    """The variant and the environment's settings as numbers."""

    goal: int
    players: int
    decision: int  # ROLL_HOLD, DICE_PER_TURN or DICE_PER_ROLL
    endgame: int  # FIRST_TO_GOAL, FINAL_ROUND or EQUAL_TURNS
    first_to_reach: bool  # ties go to whoever reached the score first (else shared)
    final_roll: bool  # the final round is one more roll (FINAL_ROUND with FinalTurn.ROLL)
    can_hold: bool
    choices: int  # roll choices (actions 0..choices-1 roll; action `choices` holds where one can)
    seat: int  # the learner's seat
    max_decisions: int  # the learner's decisions before a game is cut off (truncated)
    move_limit: int  # the engine's MOVE_LIMIT: moves after which the best score wins
    robots_draw: bool  # a new game first draws the robots' seed from the dice (PigdiceEnv.reset does; AEC does not)
    hold_at_goal: bool  # at the goal you hold (first to the goal only): envs.setup.must_hold


class Dice(NamedTuple):
    """Every roll choice's throw: its mishap, its dice (cumulative chances, faces) and how faces score."""

    mishap: np.ndarray  # float64 (choices,): the mishap's chance (0: none)
    mishap_kind: np.ndarray  # int64 (choices,)
    mishap_amount: np.ndarray  # int64 (choices,)
    mishap_keep: np.ndarray  # bool (choices,)
    die_start: np.ndarray  # int64 (choices + 1,): choice c throws dice die_start[c]:die_start[c + 1]
    face_start: np.ndarray  # int64 (dice + 1,): die d's faces are face_start[d]:face_start[d + 1]
    cumulative: np.ndarray  # float64: each die's cumulative chances (Die.cumulative)
    faces: np.ndarray  # int64: each die's faces
    mode: np.ndarray  # int64 (choices,): DENSE or SUM_UNLESS_BAD
    dense_start: np.ndarray  # int64 (choices,): where choice c's dense table starts
    dense_kind: np.ndarray  # int64: the effect of each face-index combination (first die most significant)
    dense_amount: np.ndarray  # int64
    dense_keep: np.ndarray  # bool
    bad_face: np.ndarray  # int64 (choices,): SumUnlessBad.bad_face
    reset_at: np.ndarray  # int64 (choices,): SumUnlessBad.reset_at (0: never resets)


class Robots(NamedTuple):
    """Who sits at each seat: the learner or a robot, with what it needs to choose."""

    kind: np.ndarray  # int64 (players,): LEARNER, HOLD_AT, DICE_EACH_TURN or TABLE
    threshold: np.ndarray  # int64 (players,): HOLD_AT's hold point
    roll: np.ndarray  # int64 (players,): the roll choice the robot throws (HOLD_AT, DICE_EACH_TURN)
    table: np.ndarray  # int8 (goal, goal, goal): TABLE's action table (0 hold, c + 1 roll choice c)


class Games(NamedTuple):
    """The engine's ``GameState`` of every game, one row each, and what the environment keeps beside it."""

    scores: np.ndarray  # int64 (games, players)
    current: np.ndarray  # int64 (games,)
    turn_total: np.ndarray  # int64 (games,)
    rolls: np.ndarray  # int64 (games,): rolls this turn
    final_on: np.ndarray  # bool (games,): the final round (or the rest of the round) is under way
    owed: np.ndarray  # bool (games, players): still owed a last turn
    reached: np.ndarray  # int64 (games, players): the move at which each score last rose (tie-breaks)
    step: np.ndarray  # int64 (games,): moves played
    winners: np.ndarray  # bool (games, players)
    over: np.ndarray  # bool (games,)
    decisions: np.ndarray  # int64 (games,): the learner's decisions this game
    reported: np.ndarray  # bool (games,): the end was reported (the next step starts a new game)
    rng: np.ndarray  # uint64 (games, 4): PCG64 state high, state low, increment high, increment low


def new_games(games: int, players: int) -> Games:
    """Return the rows of ``games`` games of ``players`` players, every field zero (``reset`` starts them)."""
    return Games(
        scores=np.zeros((games, players), dtype=np.int64),
        current=np.zeros(games, dtype=np.int64),
        turn_total=np.zeros(games, dtype=np.int64),
        rolls=np.zeros(games, dtype=np.int64),
        final_on=np.zeros(games, dtype=np.bool_),
        owed=np.zeros((games, players), dtype=np.bool_),
        reached=np.zeros((games, players), dtype=np.int64),
        step=np.zeros(games, dtype=np.int64),
        winners=np.zeros((games, players), dtype=np.bool_),
        over=np.zeros(games, dtype=np.bool_),
        decisions=np.zeros(games, dtype=np.int64),
        reported=np.zeros(games, dtype=np.bool_),
        rng=np.zeros((games, 4), dtype=np.uint64),
    )


class Outputs(NamedTuple):
    """What a step or a reset writes: the batch's observations, rewards, ends and masks."""

    observations: np.ndarray  # int64 (games, observation size)
    rewards: np.ndarray  # float64 (games,)
    terminated: np.ndarray  # bool (games,)
    truncated: np.ndarray  # bool (games,)
    masks: np.ndarray  # int8 (games, actions)
    final_observations: np.ndarray  # int64 (games, observation size): same-step autoreset's last observations
    finished: np.ndarray  # bool (games,): a game ended and a new one began in this step (same-step autoreset)


# -- the dice --------------------------------------------------------------------------------


# Every helper below is inlined (numba IR): a call that passes the bundles' arrays would count their
# references on every move, which cost more than the move itself. Each is inlined at one or two
# places, so the two kernels (``reset_games``, ``step_games``) compile in seconds.
# The kernels are compiled without numba's reference counting (``solve.step.WITHOUT_REFCOUNTS``): they
# allocate nothing, and with it every inlined helper's bundle argument cost an atomic count up and down
# (about 840 calls in the compiled ``step_games``, 90% of its time: 1,150 ns a learner step with them, 107 without).


@njit(cache=True, inline="always")
def _multiply_high(a, b):  # pragma: no cover - numba
    """Return the high 64 bits of the 128-bit product of two uint64."""
    a_low, a_high = a & LOW_32, a >> np.uint64(32)
    b_low, b_high = b & LOW_32, b >> np.uint64(32)
    low_low = a_low * b_low
    low_high = a_low * b_high
    high_low = a_high * b_low
    middle = (low_low >> np.uint64(32)) + (low_high & LOW_32) + (high_low & LOW_32)
    return a_high * b_high + (low_high >> np.uint64(32)) + (high_low >> np.uint64(32)) + (middle >> np.uint64(32))


@njit(cache=True, inline="always")
def next_uint64(rng, game):  # pragma: no cover - numba
    """Return the next 64 random bits of game ``game``'s PCG64 (numpy's ``pcg64_next64``), advancing it."""
    high, low = rng[game, 0], rng[game, 1]
    new_low = low * MULTIPLIER_LOW
    new_high = high * MULTIPLIER_LOW + low * MULTIPLIER_HIGH + _multiply_high(low, MULTIPLIER_LOW)
    added = new_low + rng[game, 3]
    carry = np.uint64(1) if added < new_low else np.uint64(0)
    new_high = new_high + rng[game, 2] + carry
    rng[game, 0], rng[game, 1] = new_high, added
    value = new_high ^ added
    rotation = new_high >> np.uint64(58)
    return (value >> rotation) | (value << ((np.uint64(64) - rotation) & np.uint64(63)))


@njit(cache=True, inline="always")
def next_double(rng, game):  # pragma: no cover - numba
    """Return the next ``Generator.random()`` of game ``game``."""
    return float(next_uint64(rng, game) >> np.uint64(11)) * DOUBLE_UNIT


@njit(cache=True, inline="always")
def _face_index(dice, die, u):  # pragma: no cover - numba
    """Return the index of the face ``u`` picks on die ``die`` (``bisect_right`` on its cumulative chances)."""
    start, last = dice.face_start[die], dice.face_start[die + 1] - 1
    # guess floor(u * sides), right on a die of equal faces but where rounding shifts an edge, then
    # step to the index i with cumulative[i - 1] <= u < cumulative[i]: that is bisect_right's
    index = min(int(u * (last - start + 1)), last - start)
    while index > 0 and dice.cumulative[start + index - 1] > u:
        index -= 1
    while start + index < last and dice.cumulative[start + index] <= u:
        index += 1
    return index


@njit(cache=True, inline="always")
def _throw(dice, choice, rng, game):  # pragma: no cover - numba
    """Return (kind, amount, keep) of one throw of roll choice ``choice``, drawn as ``RollSpec.throw`` draws."""
    if dice.mishap[choice] > 0.0 and next_double(rng, game) < dice.mishap[choice]:
        return dice.mishap_kind[choice], dice.mishap_amount[choice], dice.mishap_keep[choice]
    if dice.mode[choice] == DENSE:
        row = 0
        for die in range(dice.die_start[choice], dice.die_start[choice + 1]):
            sides = dice.face_start[die + 1] - dice.face_start[die]
            row = row * sides + _face_index(dice, die, next_double(rng, game))
        row += dice.dense_start[choice]
        return dice.dense_kind[row], dice.dense_amount[row], dice.dense_keep[row]
    bad_face, reset_at = dice.bad_face[choice], dice.reset_at[choice]
    bad, total = 0, 0
    for die in range(dice.die_start[choice], dice.die_start[choice + 1]):
        face = dice.faces[dice.face_start[die] + _face_index(dice, die, next_double(rng, game))]
        if face == bad_face:
            bad, total = min(bad + 1, max(reset_at, 1)), 0
        elif bad == 0:
            total += face
    if reset_at > 0 and bad >= reset_at:
        return KIND_RESET, 0, True
    if bad > 0:
        return KIND_BUST, 0, True
    return KIND_ADD, total, True


# -- the rules (pigdice.engine.game) -----------------------------------------------------------


@njit(cache=True, inline="always")
def _is_final_roll(rules, games, game):  # pragma: no cover - numba
    """Return True if the mover has one banked roll left (``GameState.is_final_roll`` once the round is on)."""
    return rules.final_roll and games.final_on[game]


@njit(cache=True, inline="always")
def _game_over_best(rules, games, game):  # pragma: no cover - numba
    """End the game: the best score wins, ties shared or to whoever reached it first (``_best``)."""
    players = rules.players
    top = games.scores[game, 0]
    for p in range(1, players):
        top = max(top, games.scores[game, p])
    first = np.iinfo(np.int64).max
    tied = 0
    for p in range(players):
        if games.scores[game, p] == top:
            first = min(first, games.reached[game, p])
            tied += 1
    for p in range(players):
        wins = games.scores[game, p] == top
        if wins and tied > 1 and rules.first_to_reach:
            wins = games.reached[game, p] == first
        games.winners[game, p] = wins
    games.over[game] = True


@njit(cache=True, inline="always")
def _end_turn(rules, games, game, new_score):  # pragma: no cover - numba
    """End the mover's turn with ``new_score`` banked (``_end_turn``); return True if the game is over then."""
    player = games.current[game]
    if new_score > games.scores[game, player]:
        games.reached[game, player] = games.step[game]
    games.scores[game, player] = new_score
    games.turn_total[game] = 0
    games.rolls[game] = 0
    if not games.final_on[game] and new_score >= rules.goal:
        if rules.endgame == FIRST_TO_GOAL:
            for p in range(rules.players):
                games.winners[game, p] = p == player
            games.over[game] = True
            return True
        if rules.endgame == EQUAL_TURNS and player == rules.players - 1:
            return True  # the round is complete: nobody is owed a turn, the best score wins
        games.final_on[game] = True
        for p in range(rules.players):
            games.owed[game, p] = p != player if rules.endgame == FINAL_ROUND else p > player
    if games.final_on[game]:
        # the engine's state at the end keeps the last player among those owed a turn
        for offset in range(1, rules.players):
            following = (player + offset) % rules.players
            if games.owed[game, following]:
                games.owed[game, player] = False
                games.current[game] = following
                return False
        return True
    games.current[game] = (player + 1) % rules.players
    return False


@njit(cache=True, inline="always")
def _apply(rules, dice, games, game, action):  # pragma: no cover - numba
    """Play integer ``action`` (the encoding's) for the mover of game ``game``, as ``engine.game.apply`` does."""
    games.step[game] += 1
    player = games.current[game]
    new_score = games.scores[game, player] + games.turn_total[game]  # hold
    ends = True
    if action != rules.choices:
        kind, amount, keep = _throw(dice, action, games.rng, game)
        score, turn_total, ends = effect_step(kind, amount, keep, games.scores[game, player], games.turn_total[game])
        games.rolls[game] += 1
        new_score = score
        if not ends and (rules.decision == DICE_PER_TURN or _is_final_roll(rules, games, game)):
            new_score, ends = score + turn_total, True
        elif not ends:
            games.turn_total[game] = turn_total
    decided = False  # the game ends on the best score (not by reaching the goal first)
    if ends:
        decided = _end_turn(rules, games, game, new_score) and not games.over[game]
    if decided or (games.step[game] >= rules.move_limit and not games.over[game]):
        _game_over_best(rules, games, game)


@njit(cache=True, inline="always")
def _robot_action(rules, robots, games, game):  # pragma: no cover - numba
    """Return the integer action the robot to move in game ``game`` plays (its ``choose``)."""
    player = games.current[game]
    kind = robots.kind[player]
    turn_total = games.turn_total[game]
    score = games.scores[game, player]
    if kind == TABLE:
        if score + turn_total >= rules.goal:
            return rules.choices if rules.can_hold else rules.choices - 1
        code = robots.table[score, games.scores[game, 1 - player], turn_total]
        return rules.choices if code == 0 else code - 1
    if kind == HOLD_AT and rules.can_hold and not _is_final_roll(rules, games, game):
        total = score + turn_total
        wins = total >= rules.goal  # can_win_by_holding
        if games.final_on[game]:
            wins = True
            for p in range(rules.players):
                if p != player and games.scores[game, p] >= total:
                    wins = False
        if not (games.final_on[game] and not wins):  # may_hold: a final round forces a roll while behind
            if turn_total >= robots.threshold[player] or (turn_total > 0 and wins):
                return rules.choices
    return robots.roll[player]


@njit(cache=True, inline="always")
def _must_hold(rules, games, game):  # pragma: no cover - numba
    """Return True if the mover of game ``game`` has reached the goal and holds there (``envs.setup.must_hold``)."""
    player = games.current[game]
    return rules.hold_at_goal and games.scores[game, player] + games.turn_total[game] >= rules.goal


@njit(cache=True, inline="always")
def _play(rules, dice, robots, games, game, action):  # pragma: no cover - numba
    """Play the learner's ``action`` (none if negative), then the robots until the learner's move or the end.

    As ``PigdiceEnv._advance``: whoever reaches the goal holds at once when ``rules.hold_at_goal``.
    """
    if action >= 0:
        _apply(rules, dice, games, game, action)
        games.decisions[game] += 1
    while not games.over[game]:
        if _must_hold(rules, games, game):
            _apply(rules, dice, games, game, rules.choices)
        elif games.current[game] == rules.seat:
            return
        else:
            _apply(rules, dice, games, game, _robot_action(rules, robots, games, game))


@njit(cache=True, inline="always")
def _new_game(rules, games, game):  # pragma: no cover - numba
    """Start a new game in row ``game`` as ``PigdiceEnv.reset`` does (the robots then play up to the learner)."""
    if rules.robots_draw:
        next_uint64(games.rng, game)  # reset's integers(2**63) for the robots' generator: one 64-bit draw
    for p in range(rules.players):
        games.scores[game, p] = 0
        games.owed[game, p] = False
        games.reached[game, p] = 0
        games.winners[game, p] = False
    games.current[game] = 0
    games.turn_total[game] = 0
    games.rolls[game] = 0
    games.final_on[game] = False
    games.step[game] = 0
    games.over[game] = False
    games.decisions[game] = 0
    games.reported[game] = False


@njit(cache=True, inline="always")
def _observe(rules, games, game, seat, out, row):  # pragma: no cover - numba
    """Write game ``game`` seen from ``seat`` into ``out[row]`` (``encoding.observe``)."""
    players = rules.players
    final_on = games.final_on[game]
    out[row, 0] = min(rules.goal, OBSERVATION_HIGH)
    out[row, 1] = min(games.turn_total[game], OBSERVATION_HIGH)
    out[row, 2] = min(games.rolls[game], OBSERVATION_HIGH)
    out[row, 3] = final_on
    for offset in range(players):
        player = (seat + offset) % players
        base = HEADER + PER_PLAYER * offset
        out[row, base] = min(games.scores[game, player], OBSERVATION_HIGH)
        out[row, base + 1] = not games.over[game] and player == games.current[game]
        out[row, base + 2] = final_on and games.owed[game, player]
        out[row, base + 3] = 1


@njit(cache=True, inline="always")
def _mask(rules, games, game, seat, out):  # pragma: no cover - numba
    """Write the legal actions of ``seat`` in game ``game`` into ``out[game]`` (``encoding.action_mask``)."""
    playing = not games.over[game] and games.current[game] == seat
    rolls = playing and not _must_hold(rules, games, game)  # at the goal only hold is offered
    for a in range(rules.choices):
        out[game, a] = rolls
    if rules.can_hold:
        out[game, rules.choices] = playing and not _is_final_roll(rules, games, game)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def reset_games(rules, dice, robots, games, which, outputs):  # pragma: no cover - numba
    """Start a new game in every row where ``which`` is True; write their observations and masks."""
    for game in range(which.shape[0]):
        if which[game]:
            _new_game(rules, games, game)
            _play(rules, dice, robots, games, game, -1)
            _observe(rules, games, game, rules.seat, outputs.observations, game)
            _mask(rules, games, game, rules.seat, outputs.masks)
            outputs.finished[game] = False


@njit(cache=True, **WITHOUT_REFCOUNTS)
def step_games(rules, dice, robots, games, actions, same_step, outputs):  # pragma: no cover - numba
    """Play every game's learner action, then its robots; write observations, rewards, ends and masks.

    A game whose end was reported starts again (next-step autoreset: its action is unused, reward 0);
    with ``same_step`` a game that ends starts again at once, its last observation kept in
    ``outputs.final_observations``. A game the robots finished before the learner's first move
    reports its end now, its action unused (as ``PigdiceEnv.step`` does).
    """
    for game in range(actions.shape[0]):
        outputs.finished[game] = False
        outputs.rewards[game] = 0.0
        outputs.terminated[game] = False
        outputs.truncated[game] = False
        fresh = games.reported[game]
        action = -1 if fresh or games.over[game] else actions[game]
        for _ in range(2):  # once, or twice when a same-step autoreset starts the next game
            if fresh:
                _new_game(rules, games, game)
            _play(rules, dice, robots, games, game, action)
            if fresh:
                break
            over = games.over[game]
            reward = 0.0
            if over:
                winners = 0
                for p in range(rules.players):
                    if games.winners[game, p]:
                        winners += 1
                if games.winners[game, rules.seat]:
                    reward = 1.0 / winners
            outputs.rewards[game] = reward
            outputs.terminated[game] = over
            outputs.truncated[game] = not over and games.decisions[game] >= rules.max_decisions
            games.reported[game] = over or outputs.truncated[game]
            if not (same_step and games.reported[game]):
                break
            _observe(rules, games, game, rules.seat, outputs.final_observations, game)
            outputs.finished[game] = True
            fresh, action = True, -1
        _observe(rules, games, game, rules.seat, outputs.observations, game)
        _mask(rules, games, game, rules.seat, outputs.masks)


class SeatOutputs(NamedTuple):
    """What the every-seat batch writes: each seat's observation, the mover and its mask, rewards and ends."""

    observations: np.ndarray  # int64 (games, players, observation size): every seat's view
    movers: np.ndarray  # int64 (games,): the seat to move (the last mover once the game is over)
    masks: np.ndarray  # int8 (games, actions): the mover's legal actions (none once the game is over)
    rewards: np.ndarray  # float64 (games, players): each seat's share of the win when the game ends
    terminated: np.ndarray  # bool (games,)
    truncated: np.ndarray  # bool (games,)


@njit(cache=True, inline="always")
def _write_seats(rules, games, game, outputs):  # pragma: no cover - numba
    """Write every seat's observation of game ``game``, its mover and the mover's mask."""
    views = outputs.observations[game]
    for seat in range(rules.players):
        _observe(rules, games, game, seat, views, seat)
    outputs.movers[game] = games.current[game]
    _mask(rules, games, game, games.current[game], outputs.masks)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def reset_seats(rules, games, which, outputs):  # pragma: no cover - numba
    """Start a new game in every row where ``which`` is True (every seat a player); write what each seat sees."""
    for game in range(which.shape[0]):
        if which[game]:
            _new_game(rules, games, game)
            _write_seats(rules, games, game, outputs)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def step_seats(rules, dice, games, actions, outputs):  # pragma: no cover - numba
    """Play every game's mover's action (a game whose end was reported starts again, its action unused)."""
    for game in range(actions.shape[0]):
        for p in range(rules.players):
            outputs.rewards[game, p] = 0.0
        outputs.terminated[game] = False
        outputs.truncated[game] = False
        if games.reported[game]:
            _new_game(rules, games, game)
        else:
            _apply(rules, dice, games, game, actions[game])
            games.decisions[game] += 1
            over = games.over[game]
            if over:
                winners = 0
                for p in range(rules.players):
                    if games.winners[game, p]:
                        winners += 1
                for p in range(rules.players):
                    if games.winners[game, p]:
                        outputs.rewards[game, p] = 1.0 / winners
            outputs.terminated[game] = over
            outputs.truncated[game] = not over and games.decisions[game] >= rules.max_decisions
            games.reported[game] = over or outputs.truncated[game]
        _write_seats(rules, games, game, outputs)


@njit(cache=True, **WITHOUT_REFCOUNTS)
def draw_doubles(rng, game, count, out):  # pragma: no cover - numba
    """Write the next ``count`` ``Generator.random()`` doubles of game ``game`` into ``out`` (for tests)."""
    for i in range(count):
        out[i] = next_double(rng, game)
