"""The numba simulator: seeded, exact sampling, and the same games as the engine loop and the exact evaluator."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.players.fixed import HoldAt
from pigdice.players.specs import parse_strategy
from pigdice.players.tables import action_table
from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.two.headtohead import head_to_head
from pigdice.study.fastsim import (
    MAX_TURNS,
    UNIT,
    GameLengths,
    head_to_head_sim,
    sampler,
    simulate_tables,
)
from pigdice.study.simulate import simulate

Z999 = 3.2905  # two-sided 99.9%: fixed seeds make these checks deterministic; the margin keeps them robust


def tables(variant: Variant, *specs: str) -> list[np.ndarray]:
    """Return the action tables of the given specs."""
    return [action_table(parse_strategy(spec, variant), variant) for spec in specs]


def test_same_seed_same_games_and_another_seed_differs() -> None:
    pig = find_variant("pig", goal=50)
    ta, tb = tables(pig, "hold:20", "hold:15")
    first = simulate_tables(pig, [ta, tb], 50_000, seed=7)
    again = simulate_tables(pig, [ta, tb], 50_000, seed=7)
    other = simulate_tables(pig, [ta, tb], 50_000, seed=8)
    assert first.wins == again.wins
    assert np.array_equal(first.lengths.histogram, again.lengths.histogram)
    assert first.wins != other.wins
    assert sum(first.wins) == 50_000
    generator = simulate_tables(pig, [ta, tb], 1000, seed=np.random.default_rng(7))
    assert generator.wins == simulate_tables(pig, [ta, tb], 1000, seed=7).wins


@pytest.mark.slow
def test_parallel_run_gives_the_serial_result() -> None:
    pig = find_variant("pig", goal=40)
    ta, tb = tables(pig, "hold:20", "keep-pace")
    serial = simulate_tables(pig, [ta, tb], 40_000, seed=3)
    parallel = simulate_tables(pig, [ta, tb], 40_000, seed=3, parallel=True)
    assert serial.wins == parallel.wins
    assert np.array_equal(serial.lengths.histogram, parallel.lengths.histogram)


@pytest.mark.parametrize("name", ["pig", "pass-the-pigs", "hog", "pig-dice"])
def test_sampler_lookup_draws_each_outcome_with_its_exact_probability(name: str) -> None:
    variant = find_variant(name, goal=30)
    sample = sampler(variant)
    rng = np.random.default_rng(0)
    r = rng.integers(0, 2**63, size=200_000, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)
    u = (r >> np.uint64(11)).astype(np.int64)
    buckets = (r >> np.uint64(64 - sample.bits)).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum([len(spec.distribution()) for spec in variant.rolls])])
    for c in range(min(3, len(variant.choices))):
        lo, hi = int(offsets[c]), int(offsets[c + 1])
        expected = lo + np.searchsorted(sample.thresholds[lo:hi], u, side="right")
        looked = sample.lut[c, buckets].astype(np.int64)
        direct = looked >= 0  # the bucket lies inside one outcome that adds looked[...] points
        assert np.all(sample.table.kinds[expected[direct]] == 0)
        assert np.array_equal(sample.table.amounts[expected[direct]], looked[direct])
        assert direct.mean() > 0.5 or name == "hog"
        settled = -looked[~direct] - 1  # the first candidate, advanced as the kernel does
        while np.any(step := u[~direct] >= sample.thresholds[settled]):
            settled += step
        assert np.array_equal(settled, expected[~direct])
        # thresholds are the cumulative exact probabilities to 53 bits
        probabilities = [float(p) for _, p in variant.rolls[c].distribution()]
        assert np.allclose(np.diff(np.concatenate([[0], sample.thresholds[lo:hi]])) / UNIT, probabilities, atol=1e-15)


def _engine_rate(variant: Variant, specs: str, games: int, seed: int) -> tuple[list[float], float]:
    robots = [parse_strategy(s, variant) for s in specs.split(",")]
    result = simulate(variant, robots, games, seed)
    return [w / games for w in result.wins], result.mean_turns


def test_fast_simulator_matches_the_engine_loop_two_players() -> None:
    pig = find_variant("pig", goal=20)
    games = 2000
    engine_rates, engine_turns = _engine_rate(pig, "hold:20,hold:10", games, seed=1)
    fast = simulate_tables(pig, tables(pig, "hold:20", "hold:10"), 200_000, seed=1)
    rate = fast.wins[0] / fast.games
    se = math.sqrt(rate * (1 - rate) / games)
    assert abs(engine_rates[0] - rate) < Z999 * se
    assert abs(engine_turns - fast.mean_turns) < Z999 * fast.lengths.std / math.sqrt(games)


def test_fast_simulator_matches_the_engine_loop_three_players() -> None:
    # with 3+ players every table reads the highest opponent score, exactly as the robots do
    pig = find_variant("pig", goal=20)
    games = 1500
    specs = "hold:10,keep-pace,hold:20"
    engine_rates, engine_turns = _engine_rate(pig, specs, games, seed=2)
    fast = simulate_tables(pig, tables(pig, *specs.split(",")), 200_000, seed=2)
    for seat in range(3):
        rate = fast.wins[seat] / fast.games
        assert abs(engine_rates[seat] - rate) < Z999 * math.sqrt(rate * (1 - rate) / games), seat
    assert abs(engine_turns - fast.mean_turns) < Z999 * fast.lengths.std / math.sqrt(games)


@pytest.mark.parametrize(
    ("name", "a", "b"),
    [
        ("pig", "hold:20", "hold:25"),
        ("two-dice-pig", "max-score", "hold:20"),  # resets
        ("pig-dice", "max-score", "hold:25"),  # double, subtract
        ("big-pig-knizia", "keep-pace", "hold:20"),  # set to 25
        ("freys-pig", "hold:15", "max-score"),  # bank
        ("hog", "dice:5", "dice:3"),  # one throw per turn
        ("hog-reroll", "max-score", "hold:20+dice:3"),  # dice per roll
    ],
)
def test_fast_simulator_agrees_with_exact_head_to_head(name: str, a: str, b: str) -> None:
    variant = find_variant(name, goal=30).with_endgame("first-to-goal")
    ta, tb = tables(variant, a, b)
    exact = head_to_head(variant, ta, tb)
    sim = head_to_head_sim(variant, ta, tb, 100_000, seed=11)
    for wins, games, value in [
        (sim.a_first_wins, sim.a_first_games, exact.a_first),
        (sim.b_first_wins, sim.b_first_games, exact.b_first),
    ]:
        se = math.sqrt(value * (1 - value) / games)
        assert abs(wins / games - value) < Z999 * se, (wins / games, value)


def test_game_length_statistics() -> None:
    lengths = GameLengths.from_histogram(np.array([0, 0, 2, 1, 0, 1]))  # 2, 2, 3, 5 turns
    assert lengths.games == 4
    assert lengths.mean == pytest.approx(3.0)
    assert lengths.std == pytest.approx(math.sqrt((1 + 1 + 0 + 4) / 4))
    assert (lengths.minimum, lengths.maximum, lengths.median) == (2, 5, 2.5)
    assert set(lengths.to_json()) == {"mean", "std", "min", "max", "median"}
    # Pig, hold at 20 against itself: the engine loop and the simulator both count about 19.9 turns
    pig = find_variant("pig")
    table = action_table(HoldAt(20), pig)
    result = simulate_tables(pig, [table, table], 100_000, seed=5)
    assert 19.5 < result.mean_turns < 20.3
    assert result.lengths.minimum >= 8  # 100 points take at least 4 turns of at most 25 (+ the other's)


ENDINGS = [
    # (variant, robots): a last turn rolls until strictly ahead; ties shared or to the first to reach
    (find_variant("pig", goal=20).with_endgame("final-round", "shared", "roll"), "hold:8,hold:12"),  # ties happen
    (find_variant("pig", goal=20).with_endgame("final-round", "first-to-reach", "roll"), "hold:8,hold:12,hold:5"),
    (find_variant("pig-dice", goal=20), "keep-pace,hold:10"),  # double, subtract; one more turn
    (find_variant("freys-pig", goal=20), "hold:10,max-score,hold:6"),  # equal turns, bank
    (find_variant("piggy-six", goal=20), "hold:10,hold:15"),  # equal turns, resets, ties shared
]


@pytest.mark.parametrize(("variant", "specs"), ENDINGS, ids=lambda x: getattr(x, "name", x))
def test_fast_simulator_plays_final_rounds_and_equal_turns_as_the_engine_loop(variant: Variant, specs: str) -> None:
    games = 3000
    robots = [parse_strategy(s, variant) for s in specs.split(",")]
    engine = simulate(variant, robots, games, 4)
    fast = simulate_tables(variant, tables(variant, *specs.split(",")), 300_000, seed=4)
    for seat in range(len(robots)):
        rate = fast.wins[seat] / fast.games
        se = math.sqrt(max(rate * (1 - rate), 1e-4) / games)
        assert abs(engine.wins[seat] / games - rate) < Z999 * se, (seat, engine.wins, fast.wins)
    tie_rate = fast.ties / fast.games
    assert abs(engine.ties / games - tie_rate) < Z999 * math.sqrt(max(tie_rate * (1 - tie_rate), 1e-4) / games)
    assert abs(engine.mean_turns - fast.mean_turns) < Z999 * fast.lengths.std / math.sqrt(games)
    assert sum(fast.outright) + fast.ties == fast.games
    assert sum(fast.wins) == pytest.approx(fast.games)


def test_a_shared_victory_is_split_and_counted_for_both() -> None:
    variant, specs = ENDINGS[0]
    result = simulate_tables(variant, tables(variant, *specs.split(",")), 100_000, seed=1)
    assert result.ties > 1000  # one roll to catch up often lands exactly on the leader's score
    assert result.shared == (result.ties, result.ties)
    assert result.wins[0] == pytest.approx(result.outright[0] + result.ties / 2)
    first = variant.with_endgame("final-round", "first-to-reach", "roll")
    assert simulate_tables(first, tables(first, *specs.split(",")), 100_000, seed=1).ties == 0


def test_fast_simulator_refuses_what_it_cannot_play() -> None:
    pig = find_variant("pig", goal=20)
    table = action_table(HoldAt(10), pig)
    hog = find_variant("hog", goal=20).with_endgame("final-round")
    dice = action_table(parse_strategy("dice:3", hog), hog)
    with pytest.raises(BadParameterError, match="roll-or-hold games"):
        simulate_tables(hog, [dice, dice], 10)
    with pytest.raises(BadParameterError, match="at least 1"):
        simulate_tables(pig, [table, table], 0)
    with pytest.raises(BadParameterError, match="shape"):
        simulate_tables(pig, [table, np.zeros((5, 5, 5), dtype=np.int8)], 10)
    with pytest.raises(BadParameterError, match="everyone at once"):
        simulate_tables(find_variant("swine-herd", goal=20), [table, table], 10)
    with pytest.raises(BadParameterError, match="2 to 10 players"):
        simulate_tables(pig, [table], 10)


def test_strategies_that_never_score_are_stopped() -> None:
    pig = find_variant("pig", goal=20)
    passing = np.zeros((20, 20, 20), dtype=np.int8)  # hold at turn total 0: pass forever
    with pytest.raises(BadParameterError, match=f"past {MAX_TURNS} turns"):
        simulate_tables(pig, [passing, passing], 3, seed=0)
