"""Fast simulation (numba) of games between table strategies: first to the goal, final rounds, equal turns.

Each seat plays an action table T[i, j, k] (``pigdice.players.tables``): i is its score, j the
highest opponent score, k the turn total; 0 holds, c + 1 rolls with choice c (Hog reads k = 0).
Throws are sampled from the variant's effect table (``pigdice.solve.tables.effect_table``, the
same numbers the solver and the exact evaluator read) with cumulative 53-bit thresholds and a
lookup table, so a throw costs one random number and one table read.

Randomness: each block of ``CHUNK`` games runs its own splitmix64 stream, seeded by a number
drawn from the caller's numpy ``Generator``; the same seed gives the same games, on one thread
or many. Holding is automatic once score + turn total reaches the goal, as every table strategy
does; first to the goal, that ends the game (as in the solver). Under a final round (one more
turn or one more roll) or equal turns, each player owed a last turn rolls until strictly ahead
of every other score, as the robots that chase do (``chases_in_last_turn``); ties are shared or
go to the first to reach the score. The engine loop (``pigdice.study.simulate``) plays the same
games thousands of times slower, and every other rule and player.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from pigdice.errors import BadParameterError
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant
from pigdice.solve.memory import action_table_bytes, check_memory
from pigdice.solve.step import effect_step
from pigdice.solve.tables import EffectTable, effect_table
from pigdice.solve.two.headtohead import check_table
from pigdice.study.limits import check_games

CHUNK = 1 << 14  # games per random stream
BLOCK = 1 << 20  # games per kernel call (bounds the per-game result arrays)
UNIT = 1 << 53
MAX_TURNS = 100_000  # a game longer than this means the strategies never finish
TOO_LONG = -1
# how reaching the goal ends a game (the kernel's codes)
ENDING_FIRST_TO_GOAL = 0
ENDING_FINAL_ROUND = 1  # everyone else gets one more turn
ENDING_FINAL_ROLL = 2  # everyone else gets one more roll
ENDING_EQUAL_TURNS = 3  # the players after the one who reached it in the round get a last turn

Progress = Callable[[int], None]


# -- the game kernel ------------------------------------------------------------------------------
class Match(NamedTuple):
    """The games to play: each seat's action table and the rules of the ending."""

    tables: np.ndarray  # (distinct tables, goal, goal, goal) int8
    seat_table: np.ndarray  # int64: each seat's table
    goal: int
    per_turn: bool  # one throw per turn (Hog)
    ending: int  # ENDING_*
    shared: bool  # a tie on the best score is shared


class Throws(NamedTuple):
    """The sampling tables as the kernel reads them: the ``Sampler``'s and its effects' (a flat tuple, which
    numba's parallel loop can hand to its workers)."""

    codes: np.ndarray
    thresholds: np.ndarray
    lut: np.ndarray
    bits: int
    kinds: np.ndarray
    amounts: np.ndarray
    keeps: np.ndarray


class Results(NamedTuple):
    """Each game's winners (a bit per winning seat, TOO_LONG if it ran too long) and its length in turns."""

    winners: np.ndarray  # int64
    turns: np.ndarray  # int64


@njit(cache=True)
def _play_chunk(first, count, seed, match, throws, results):  # pragma: no cover - numba
    """Play games first .. first + count - 1 of ``match`` (``Match``) into ``results`` (``Results``).

    ``match.ending`` (the ENDING_* codes): first to the goal, or a final round / equal turns in which
    each player owed a last turn rolls until strictly ahead of every other score (one roll only under
    the one-more-roll rule), as the robots that chase do; ties shared or to the first to reach.

    Random numbers: splitmix64 (Steele, Lea & Flood 2014) from ``seed``. A throw reads its top
    ``throws.bits`` bits in ``throws.lut``: v >= 0 when that bucket lies inside one outcome that adds v
    to the turn total (one read per roll), else -(first candidate outcome + 1), settled by the 53-bit
    thresholds (buckets straddling two outcomes), then one ``effect_step`` (every other kind of effect).
    """
    tables, seat_table, goal, per_turn, ending, shared = match
    codes, thresholds, lut, bits, kinds, amounts, keeps = throws
    winners, turns = results
    z = np.uint64(seed)
    golden = np.uint64(0x9E3779B97F4A7C15)
    mix1 = np.uint64(0xBF58476D1CE4E5B9)
    mix2 = np.uint64(0x94D049BB133111EB)
    shift = np.uint64(64 - bits)
    single = lut.shape[0] == 1
    flat = tables.ravel()
    players = seat_table.shape[0]
    scores = np.zeros(players, dtype=np.int64)
    reached = np.zeros(players, dtype=np.int64)  # the turn in which each score last rose (ties to the first)
    owed = np.zeros(players, dtype=np.bool_)  # who still has a last turn
    final_roll = ending == ENDING_FINAL_ROLL
    for g in range(first, first + count):
        for p in range(players):
            scores[p] = 0
            reached[p] = 0
            owed[p] = False
        p = 0
        n_turns = 0
        last_turns = 0  # players still owed a last turn (0: no final round yet, or it is over)
        winner = TOO_LONG
        while n_turns < MAX_TURNS:
            i = scores[p]
            j = 0
            for q in range(players):
                if q != p and scores[q] > j:
                    j = scores[q]
            chase = last_turns > 0  # a last turn: roll until strictly ahead of every other score
            k = 0
            new = i
            if chase:
                limit = -1 if final_roll else j + 1 - i  # one roll ends the turn, or being ahead does
                base = 0
            else:
                limit = 0 if per_turn else goal - i  # one throw per turn (Hog) ends the turn at once
                base = ((seat_table[p] * goal + i) * goal + min(j, goal - 1)) * goal
            while True:
                a = 1 if chase else flat[base + k]
                if a == 0:
                    new = i + k
                    break
                z += golden
                r = (z ^ (z >> np.uint64(30))) * mix1
                r = (r ^ (r >> np.uint64(27))) * mix2
                r ^= r >> np.uint64(31)
                if single:
                    v = lut[0, np.int64(r >> shift)]
                else:
                    v = lut[a - 1, np.int64(r >> shift)]
                if v >= 0:  # the common case: a bucket inside one outcome that adds v
                    k += v
                    if k >= limit:
                        new = i + k
                        break
                    continue
                e = -v - 1
                u = np.int64(r >> np.uint64(11))
                while u >= thresholds[e]:
                    e += 1
                d = codes[e]
                if d >= 0:
                    k += d
                    if k >= limit:
                        new = i + k
                        break
                    continue
                score, k, ends = effect_step(kinds[e], amounts[e], keeps[e], i, k)
                if ends:
                    new = score
                    break
                if k >= limit:
                    new = i + k
                    break
            if new > scores[p]:
                reached[p] = n_turns
            scores[p] = new
            n_turns += 1
            if last_turns > 0:  # p has played its last turn
                owed[p] = False
                last_turns -= 1
                if last_turns == 0:
                    winner = _winners(scores, reached, shared)
                    break
            elif new >= goal:
                if ending == ENDING_FIRST_TO_GOAL:
                    winner = 1 << p
                    break
                for offset in range(1, players):  # a final round: everyone else; equal turns: later seats
                    q = (p + offset) % players
                    if ending != ENDING_EQUAL_TURNS or q > p:
                        owed[q] = True
                        last_turns += 1
                if last_turns == 0:  # equal turns, reached by the last seat: the round is complete
                    winner = _winners(scores, reached, shared)
                    break
            p += 1
            if p == players:
                p = 0
            while last_turns > 0 and not owed[p]:
                p += 1
                if p == players:
                    p = 0
        winners[g] = winner
        turns[g] = n_turns


@njit(cache=True)
def _winners(scores, reached, shared):  # pragma: no cover - numba
    """Return the winners' bits: the best score; tied players share it, or the first to reach it wins."""
    top = scores.max()
    first = -1
    for p in range(scores.shape[0]):
        if scores[p] == top and (first < 0 or reached[p] < reached[first]):
            first = p
    if not shared:
        return 1 << first
    bits = 0
    for p in range(scores.shape[0]):
        if scores[p] == top:
            bits |= 1 << p
    return bits


def _play_all(seeds, match, throws, results):  # pragma: no cover - numba
    """Play every chunk (each chunk owns its random stream, so serial and parallel runs agree)."""
    n = results.winners.shape[0]
    for chunk in prange(seeds.shape[0]):
        first = chunk * CHUNK
        count = min(CHUNK, n - first)
        _play_chunk(first, count, seeds[chunk], match, throws, results)


# one body, two compilations: prange is a plain range in the serial one
_play_serial = njit(cache=True)(_play_all)
_play_parallel = njit(parallel=True)(_play_all)  # not cached: it would share the serial one's cache entry


# -- sampling tables ---------------------------------------------------------------------------
class Sampler(NamedTuple):
    """A variant's effects with cumulative 53-bit thresholds and a lookup table per roll choice."""

    table: EffectTable
    codes: np.ndarray  # int64: the amount for ADD effects, -1 for every other kind
    thresholds: np.ndarray  # int64: outcome e is drawn when u < thresholds[e] (and not an earlier one)
    lut: np.ndarray  # (choices, 2**bits) int32: what a bucket of u adds, or -(first candidate + 1)
    bits: int

    def throws(self) -> Throws:
        """Return the tables as the kernel reads them."""
        table = self.table
        return Throws(self.codes, self.thresholds, self.lut, self.bits, table.kinds, table.amounts, table.keeps)


def sampler(variant: Variant) -> Sampler:
    """Return the sampling tables of ``variant``'s roll choices."""
    table = effect_table(variant)
    choices = len(table.offsets) - 1
    bits = 12  # 4096 buckets: 16 KB per choice, so the lookup stays in the L1 cache
    thresholds = np.empty(len(table.kinds), dtype=np.int64)
    lut = np.empty((choices, 1 << bits), dtype=np.int32)
    starts = np.arange(1 << bits, dtype=np.int64) << (53 - bits)
    ends = starts + (1 << (53 - bits)) - 1
    codes = np.where(table.kinds == int(EffectKind.ADD), table.amounts, -1).astype(np.int64)
    for c in range(choices):
        lo, hi = int(table.offsets[c]), int(table.offsets[c + 1])
        cumulative = np.cumsum(table.probabilities[lo:hi])
        cumulative /= cumulative[-1]
        cut = np.minimum(np.round(cumulative * UNIT), UNIT).astype(np.int64)
        cut[-1] = UNIT
        thresholds[lo:hi] = cut
        first = lo + np.searchsorted(cut, starts, side="right")
        last = lo + np.searchsorted(cut, ends, side="right")
        inside_add = (first == last) & (codes[np.minimum(first, hi - 1)] >= 0)
        lut[c] = np.where(inside_add, codes[np.minimum(first, hi - 1)], -(first + 1))
    return Sampler(table, codes, thresholds, lut, bits)


# -- results ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameLengths:
    """Statistics of game length in turns (every player's turns counted)."""

    games: int
    mean: float
    std: float
    minimum: int
    maximum: int
    median: float
    histogram: np.ndarray  # histogram[t] = games that lasted t turns

    @classmethod
    def from_histogram(cls, histogram: np.ndarray) -> GameLengths:
        """Return the statistics of a turns histogram."""
        games = int(histogram.sum())
        if games == 0:
            return cls(0, 0.0, 0.0, 0, 0, 0.0, histogram)
        t = np.arange(len(histogram), dtype=np.float64)
        mean = float((t * histogram).sum() / games)
        var = float(((t - mean) ** 2 * histogram).sum() / games)
        present = np.nonzero(histogram)[0]
        cumulative = np.cumsum(histogram)
        lower = int(np.searchsorted(cumulative, (games + 1) // 2))
        upper = int(np.searchsorted(cumulative, games // 2 + 1))
        return cls(games, mean, var**0.5, int(present[0]), int(present[-1]), (lower + upper) / 2, histogram)

    def to_json(self) -> dict[str, float | int]:
        """Return the summary (without the histogram) as JSON-ready data."""
        return {
            "mean": self.mean,
            "std": self.std,
            "min": self.minimum,
            "max": self.maximum,
            "median": self.median,
        }


@dataclass(frozen=True)
class FastResult:
    """Wins per seat over ``games`` games with seat 0 moving first (a shared victory split), and their lengths.

    ``outright`` and ``shared`` count, per seat, the games won alone and those shared with tied players.
    """

    games: int
    wins: tuple[float, ...]
    lengths: GameLengths
    outright: tuple[int, ...] = ()
    shared: tuple[int, ...] = ()
    ties: int = 0  # games whose victory was shared

    @property
    def mean_turns(self) -> float:
        """Return the mean number of turns per game."""
        return self.lengths.mean


def ending_code(variant: Variant) -> int:
    """Return the kernel's code of how ``variant``'s games end; raise BadParameterError where it cannot play them.

    Endings other than first-to-goal are played for roll/hold games, the robots in a last turn
    rolling until strictly ahead (``pigdice.players.base.chases_in_last_turn`` says which do).
    """
    variant.require_turns("the fast simulator")
    if variant.endgame is Endgame.FIRST_TO_GOAL:
        return ENDING_FIRST_TO_GOAL
    if variant.decision is not Decision.ROLL_HOLD:
        raise BadParameterError(
            f"the fast simulator plays {variant.endgame.label} only in roll-or-hold games; {variant.name} "
            "chooses its dice (use pigdice.study.simulate, or variant.with_endgame('first-to-goal'))"
        )
    if variant.endgame is Endgame.EQUAL_TURNS:
        return ENDING_EQUAL_TURNS
    return ENDING_FINAL_ROLL if variant.final_turn is FinalTurn.ROLL else ENDING_FINAL_ROUND


def simulate_tables(
    variant: Variant,
    tables: Sequence[np.ndarray],
    games: int,
    seed: int | np.random.Generator | None = None,
    parallel: bool = False,
    progress: Progress | None = None,
) -> FastResult:
    """Play ``games`` games, seat s playing ``tables[s]`` and seat 0 moving first.

    With 3+ seats each table reads the highest opponent score as j (like ``optimal``). Under a
    final round or equal turns, a player's last turn rolls until strictly ahead (see
    ``ending_code``). The same seed gives the same result with or without ``parallel``.
    """
    ending = ending_code(variant)
    shared = variant.ties is TieRule.SHARED
    games = check_games(games)
    variant.check_players(len(tables))
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    # one copy per distinct table
    distinct: list[np.ndarray] = []
    seat_table = np.empty(len(tables), dtype=np.int64)
    for seat, table in enumerate(tables):
        checked = check_table(variant, table)
        for n, known in enumerate(distinct):
            if known is table or np.array_equal(known, checked):
                seat_table[seat] = n
                break
        else:
            seat_table[seat] = len(distinct)
            distinct.append(checked)
    if len(distinct) == 1:
        stack = distinct[0][np.newaxis]  # a view: self-play copies nothing
    else:
        count = len(distinct)
        check_memory(f"the fast simulator's {count} tables", variant.goal, lambda g: action_table_bytes(g, count))
        stack = np.stack(distinct)
    throws = sampler(variant).throws()
    per_turn = variant.decision is Decision.DICE_PER_TURN
    match = Match(stack, seat_table, variant.goal, per_turn, ending, shared)
    seats = len(tables)
    wins = np.zeros(seats)
    outright = np.zeros(seats, dtype=np.int64)
    tied = np.zeros(seats, dtype=np.int64)
    tied_games = 0
    histogram = np.zeros(64, dtype=np.int64)
    run = _play_parallel if parallel else _play_serial
    done = 0
    while done < games:
        block = min(BLOCK, games - done)
        chunks = -(-block // CHUNK)
        seeds = rng.integers(0, 2**63, size=chunks, dtype=np.int64)
        winners = np.empty(block, dtype=np.int64)
        turns = np.empty(block, dtype=np.int64)
        run(seeds, match, throws, Results(winners, turns))
        if np.any(winners == TOO_LONG):
            raise BadParameterError(f"a game ran past {MAX_TURNS} turns: do these strategies ever hold or score?")
        counts_by_mask = np.bincount(winners)  # games by the set of winners (a bit per seat)
        for mask in np.flatnonzero(counts_by_mask):
            members = [seat for seat in range(seats) if mask >> seat & 1]
            games_won = int(counts_by_mask[mask])
            tied_games += games_won if len(members) > 1 else 0
            for seat in members:
                wins[seat] += games_won / len(members)
                if len(members) == 1:
                    outright[seat] += games_won
                else:
                    tied[seat] += games_won
        counts = np.bincount(turns)
        if len(counts) > len(histogram):
            histogram = np.pad(histogram, (0, len(counts) - len(histogram)))
        histogram[: len(counts)] += counts
        done += block
        if progress is not None:
            progress(done)
    return FastResult(
        games,
        tuple(float(w) for w in wins),
        GameLengths.from_histogram(histogram),
        tuple(int(n) for n in outright),
        tuple(int(n) for n in tied),
        tied_games,
    )


@dataclass(frozen=True)
class FastHeadToHead:
    """A against B, each starting half the games: A's wins and the game lengths."""

    a_first_games: int
    a_first_wins: float
    b_first_games: int
    b_first_wins: float  # games A won when B moved first (a shared victory split)
    lengths: GameLengths

    @property
    def games(self) -> int:
        """Return the number of games played."""
        return self.a_first_games + self.b_first_games

    @property
    def wins(self) -> float:
        """Return A's wins over all games."""
        return self.a_first_wins + self.b_first_wins


def head_to_head_sim(
    variant: Variant,
    table_a: np.ndarray,
    table_b: np.ndarray,
    games: int,
    seed: int | np.random.Generator | None = None,
    parallel: bool = False,
) -> FastHeadToHead:
    """Play ``games`` games of A against B, A moving first in the first half (rounded up)."""
    games = check_games(games, 2, "a head-to-head's games", " (one each way)")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    first = (games + 1) // 2
    one = simulate_tables(variant, [table_a, table_b], first, rng, parallel)
    two = simulate_tables(variant, [table_b, table_a], games - first, rng, parallel)
    h1, h2 = one.lengths.histogram, two.lengths.histogram
    size = max(len(h1), len(h2))
    histogram = np.pad(h1, (0, size - len(h1))) + np.pad(h2, (0, size - len(h2)))
    return FastHeadToHead(first, one.wins[0], games - first, two.wins[1], GameLengths.from_histogram(histogram))
