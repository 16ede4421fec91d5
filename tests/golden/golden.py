"""Golden figures: what the files in tests/data hold, computed from today's code.

``make.py`` writes these figures to tests/data; the golden tests compute them again and compare,
so a change to the rules, the engine or a solver shows up as a difference a reviewer reads at a
glance (OpenSpiel keeps playthrough files per game, python-chess keeps perft files):

- ``values.json``: exact values per variant x ending x player count, at small goals and the default
  goal: every seat's win chance at the start, the opening, and a fingerprint of the turn-start values;
- ``fingerprints.json``: every registered variant's game parameters and hashes of its rules;
- ``perft/<variant>.txt``: every outcome of one roll of each dice choice, with its exact probability;
- ``records/*.json``: version-1 game records saved once and never rewritten (old records must replay);
- ``playthroughs/<variant>.json``: one seeded robot game per variant, every move and event.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import Any

from pigdice.engine.events import event_to_json
from pigdice.engine.game import GameState, apply, dice_rng, new_game, robot_rng
from pigdice.engine.record import Commitment, SeatEntry, record_game, save_record
from pigdice.engine.simultaneous import choosing_seats, seat_view
from pigdice.players.specs import parse_strategy
from pigdice.rules import Endgame, Variant, all_variants, find_variant
from pigdice.rules.effects import Effect, EffectKind

DATA = Path(__file__).resolve().parent.parent / "data"

# Every ending a turn-based game can be played with: (endgame, ties, final turn).
ENDINGS: tuple[tuple[str, str, str], ...] = (
    ("first-to-goal", "shared", "turn"),
    ("final-round", "shared", "turn"),
    ("final-round", "first-to-reach", "turn"),
    ("final-round", "shared", "roll"),
    ("final-round", "first-to-reach", "roll"),
    ("equal-turns", "shared", "turn"),
    ("equal-turns", "first-to-reach", "turn"),
)
SMALL_GOAL = {2: 20, 3: 10}  # the goals at which every variant is solved under every ending
GRID_POSITIONS = 5000  # at most this many turn-start score tuples enter a fingerprint (a grid at large goals)
SAMPLES = ((0, 0, 0), (1, 0, 0), (0, 1, 2), (2, 1, 3), (3, 3, 3))  # sampled turn starts, in quarters of the goal
VALUE_DIGITS = 12  # the figures stored (the solvers converge to 1e-12)
DIGEST_DIGITS = 4  # the turn-start values enter the digest rounded to this many digits


@dataclass(frozen=True)
class Case:
    """One solved game of the value tables: a variant at a goal, with an ending, for a number of players.

    ``tier`` says where it is checked live: "fast" in `pytest`, "slow" in `pytest -m slow`, and
    "stored" nowhere (the stored figures are checked for consistency; ``make.py --heavy --tier stored``
    re-solves them and bench/heavy_solves.py re-checks the two 3-player games to 100).
    """

    variant: str
    goal: int
    players: int
    ending: tuple[str, str, str] | None  # None: the variant's own ending
    tier: str

    def build(self) -> Variant:
        """Return the variant this case solves."""
        variant = find_variant(self.variant, goal=self.goal)
        if self.ending is not None:
            variant = variant.with_endgame(*self.ending)
        return variant

    @property
    def key(self) -> str:
        """Return the case's name in the data file, e.g. 'pig/goal100/first-to-goal/p2'."""
        variant = self.build()
        return f"{self.variant}/goal{self.goal}/{ending_name(variant)}/p{self.players}"


def ending_name(variant: Variant) -> str:
    """Return the variant's ending as the data files name it: 'first-to-goal', 'final-round-shared-roll', ..."""
    return ending_name_of((str(variant.endgame), str(variant.ties), str(variant.final_turn)))


def ending_name_of(ending: tuple[str, str, str]) -> str:
    """Return an (endgame, ties, final turn) ending as the data files name it (only what changes the game)."""
    endgame, ties, final_turn = ending
    if endgame == Endgame.FIRST_TO_GOAL:
        return "first-to-goal"
    if endgame == Endgame.EQUAL_TURNS:
        return f"equal-turns-{ties}"
    return f"final-round-{ties}-{final_turn}"


# The tiers follow the CPU time of each solve (measured by make.py): "fast" below about half a second,
# "slow" below a minute, "stored" beyond, or where a live case already runs the same code path at the
# same cost (never solved in a test).
HEAVY: tuple[Case, ...] = (
    Case("pig", 100, 3, None, "slow"),  # about 5 s
    Case("piggy-six", 100, 3, None, "stored"),  # about 5 minutes
)
SLOW_AT_THE_GOAL = {"pig-dice", "piggy-six", "piggy-six-3dice"}  # 2 players, their own ending, to 100: 2-4 s
SLOW_OWN_ENDING = {("pig-dice", 3)}  # 3 players in a final round where turn totals double: 20 s at goal 10
# 3-player Pig Dice to 10 costs about 25 s under every ending that plays a whole last turn (its last-turn
# tables reach 512 totals past the goal, doubled, whatever the goal). Two of the four are solved live: its
# own ending (final round, first to reach) and equal turns with shared ties, so the doubling last turns run
# under both endings and both tie rules; the other two combinations are solved live for every other variant.
PIG_DICE_STORED = {"final-round-shared-turn", "equal-turns-first-to-reach"}


def cases() -> list[Case]:
    """Return every case of the value tables, in the order the data file keeps them."""
    found: list[Case] = []
    for variant in all_variants():
        name = variant.name
        if variant.is_simultaneous:
            found.append(Case(name, SMALL_GOAL[2], 2, None, "fast"))
            found.append(Case(name, 8, 3, None, "fast"))
            found.append(Case(name, variant.goal, 2, None, "fast"))
            continue
        found.append(Case(name, variant.goal, 2, None, "slow" if name in SLOW_AT_THE_GOAL else "fast"))
        if variant.endgame is not Endgame.FIRST_TO_GOAL:  # seed 003 solves these first-to-goal ("for symmetry")
            found.append(Case(name, variant.goal, 2, ENDINGS[0], "fast"))
        for players, goal in SMALL_GOAL.items():
            for ending in ENDINGS:
                own = ending == own_ending(variant)
                # every ending is cheap for 2 players; for 3 players the other endings take up to 25 s each
                fast = (own and (name, players) not in SLOW_OWN_ENDING) or (not own and players == 2)
                stored = name == "pig-dice" and players == 3 and ending_name_of(ending) in PIG_DICE_STORED
                found.append(Case(name, goal, players, ending, "fast" if fast else "stored" if stored else "slow"))
    return found + list(HEAVY)


def own_ending(variant: Variant) -> tuple[str, str, str]:
    """Return the variant's own ending as one of ``ENDINGS``."""
    final_turn = str(variant.final_turn) if variant.endgame is Endgame.FINAL_ROUND else "turn"
    ties = "shared" if variant.endgame is Endgame.FIRST_TO_GOAL else str(variant.ties)
    return (str(variant.endgame), ties, final_turn)


@dataclass(frozen=True)
class Published:
    """A figure of the value tables that a paper states, with the paper's words."""

    key: str
    figure: str  # "first player wins" (seats[0], to the paper's 4 digits) or "opening" (exact)
    value: float
    source: str


PIGTAIL = "Neller & Presser, Pigtail: A Pig Addendum (The UMAP Journal 26.4, 2005)"
PUBLISHED = (
    # Neller & Presser 2004: the first player of Pig to 100 wins 0.5306 under optimal play
    Published(
        "pig/goal100/first-to-goal/p2",
        "first player wins",
        0.5306,
        "Neller & Presser, Optimal Play of the Dice Game Pig (The UMAP Journal 25.1, 2004)",
    ),
    # Pigtail (seed 003), Hog: "the starting player will win with a probability of approximately 0.5299 ...
    # On the first turn, the player should roll 6 dice."
    Published("hog/goal100/first-to-goal/p2", "first player wins", 0.5299, PIGTAIL),
    Published("hog/goal100/first-to-goal/p2", "opening", 6, PIGTAIL),
    # Pigtail, Pass the Pigs: "the starting player will win with a probability of approximately 0.5310",
    # holding at 21 on the first turn (with a double razorback scoring 20, the game's rule)
    Published("pass-the-pigs/goal100/first-to-goal/p2", "first player wins", 0.5310, PIGTAIL),
    Published("pass-the-pigs/goal100/first-to-goal/p2", "opening", 21, PIGTAIL),
    # Pigtail, Parker Brothers Pig Dice (solved first-to-goal): "If both players have no points, it is
    # optimal to hold at 46."
    Published("pig-dice/goal100/first-to-goal/p2", "opening", 46, PIGTAIL),
    # Pigtail, Frey's Pig (solved first-to-goal): "At the beginning of the game, one holds at 28 rather than 21."
    Published("freys-pig/goal100/first-to-goal/p2", "opening", 28, PIGTAIL),
)


# -- values --------------------------------------------------------------------------------------


SOLVERS = {
    "first-to-goal": "pigdice.solve.solver.solve (2 players, first to the goal)",
    "endgame": "pigdice.solve.two.endgame.solve_endgame (2 players, final round or equal turns)",
    "players": "pigdice.solve.n.nplayer.solve_players (3+ players)",
    "swine-herd": "pigdice.solve.herd.swineherd_policy.swine_herd_exact (Swine Herd, 2 players)",
    "swine-herd-n": "pigdice.solve.herd.swineherd_n.solve_swine_herd_n (Swine Herd, 3 players)",
}


class Solved:
    """A solved case seen the same way for every solver: the mover's share at a turn start, and the seats."""

    def __init__(self, variant: Variant, players: int) -> None:
        from pigdice.solve.exact import exact_policy, solver_kind, start_action

        self.variant, self.players = variant, players
        if variant.is_simultaneous and players > 2:
            from pigdice.solve.herd.swineherd_n import solve_swine_herd_n

            self.kind = "swine-herd-n"
            self._herd = solve_swine_herd_n(variant, players)
            self.seats = list(self._herd.value((0,) * players))
            self.opening: int | str | None = None
            self.states: int | None = None
        else:
            self.kind = solver_kind(variant, players)
            self._policy = exact_policy(variant, players)
            self.seats = list(self._policy.win_probability_by_seat())
            self.opening = start_action(self._policy)
            self.states = int(self._policy.states)

    def mover_share(self, scores: tuple[int, ...], seat: int) -> float:
        """Return the share of the win of the player to move at a turn start (scores in turn order, mover first)."""
        from pigdice.solve.positions import Position

        if self.kind == "swine-herd-n":
            return self._herd.value(scores)[0]
        standing = (True,) * self.players if self.variant.is_simultaneous else None
        return float(self._policy.win_vector(Position(scores, seat=seat, standing=standing))[0])


def grid_step(goal: int, players: int) -> int:
    """Return the step of the score grid whose turn starts enter a fingerprint (1: every score)."""
    per_player = max(1, math.floor(GRID_POSITIONS ** (1 / players)))
    return max(1, math.ceil(goal / per_player))


def turn_starts(variant: Variant, players: int) -> Iterator[tuple[tuple[int, ...], int]]:
    """Yield the turn starts of a fingerprint: (scores, the mover's seat), seats only where they matter."""
    step = grid_step(variant.goal, players)
    seats = range(players) if variant.endgame is Endgame.EQUAL_TURNS and not variant.is_simultaneous else (0,)
    for scores in product(range(0, variant.goal, step), repeat=players):
        for seat in seats:
            yield scores, seat


def sample_scores(goal: int, players: int) -> list[tuple[int, ...]]:
    """Return the sampled turn starts of a goal: quarters of the goal, below it."""
    return [tuple(min(goal - 1, goal * q // 4) for q in quarters[:players]) for quarters in SAMPLES]


def value_figures(case: Case) -> dict[str, Any]:
    """Solve ``case`` and return its figures: seats, opening, states and the turn-start fingerprint."""
    variant = case.build()
    solved = Solved(variant, case.players)
    shares = [solved.mover_share(scores, seat) for scores, seat in turn_starts(variant, case.players)]
    rounded = ",".join(f"{max(share, 0.0):.{DIGEST_DIGITS}f}" for share in shares)
    figures: dict[str, Any] = {
        "key": case.key,
        "variant": case.variant,
        "goal": case.goal,
        "players": case.players,
        "ending": ending_name(variant),
        "solver": SOLVERS[solved.kind],
        "seats": [round(p, VALUE_DIGITS) for p in solved.seats],
        "opening": solved.opening,
        "states": solved.states,
        "turn_starts": {
            "grid_step": grid_step(variant.goal, case.players),
            "count": len(shares),
            "sum": round(math.fsum(shares), VALUE_DIGITS - 2),
            "moment": round(math.fsum(s * (k + 1) for k, s in enumerate(shares)) / len(shares), VALUE_DIGITS - 2),
            "digest": hashlib.sha256(rounded.encode()).hexdigest()[:16],
        },
        "samples": {
            "-".join(map(str, scores)): round(solved.mover_share(scores, 0), VALUE_DIGITS)
            for scores in sample_scores(variant.goal, case.players)
        },
    }
    return figures


# -- variant fingerprints and perft tables ---------------------------------------------------------


def game_parameters(variant: Variant) -> dict[str, Any]:
    """Return what defines the game (not its wording): goal, choices, ending, players and house rules."""
    described = variant.describe()
    keep = ("goal", "decision", "dice_choices", "endgame", "ties", "final_turn", "players_min", "players_max")
    return {key: described[key] for key in keep} | {"parameters": described["parameters"]}


def effect_text(effect: Effect) -> str:
    """Return an effect as a perft line names it: 'add 5', 'bust', 'bank 25 +turn', 'set 25', ..."""
    name = effect.kind.name.lower().replace("_", "-")
    if effect.kind is EffectKind.BANK:
        return f"{name} {effect.amount} {'+turn' if effect.keep_turn_total else '-turn'}"
    if effect.kind in (EffectKind.ADD, EffectKind.SUBTRACT, EffectKind.SET):
        return f"{name} {effect.amount}"
    return name


def perft_text(variant: Variant) -> str:
    """Return the variant's perft file: for each dice choice every outcome, its exact probability and effect."""
    lines = [
        f"# {variant.title} ({variant.name}): every outcome of one roll, its exact probability and what it does.",
        "# Written by tests/golden/make.py from pigdice.rules (RollSpec.outcomes); each roll's rows sum to 1.",
        "# faces (- where the table keeps a total, not the faces) | label | probability | effect",
    ]
    for dice in variant.choices:
        lines.append(f"roll {dice}")
        for row in variant.outcomes(dice if variant.chooses_dice else None):
            faces = "-".join(map(str, row.faces)) if row.faces is not None else "-"
            probability = f"{row.probability.numerator}/{row.probability.denominator}"
            lines.append(f"  {faces} | {row.label} | {probability} | {effect_text(row.effect)}")
    return "\n".join(lines) + "\n"


def fingerprint_figures(variant: Variant) -> dict[str, Any]:
    """Return a variant's game parameters, the solver's fingerprint and hashes of its parameters and table."""
    parameters = game_parameters(variant)
    return {
        "parameters": parameters,
        "parameters_sha256": hashlib.sha256(json.dumps(parameters, sort_keys=True).encode()).hexdigest()[:16],
        "outcomes_sha256": hashlib.sha256(perft_text(variant).encode()).hexdigest()[:16],
        "solver_fingerprint": variant.fingerprint(),
    }


# -- playthroughs and records ---------------------------------------------------------------------

PLAYTHROUGH_SEED = 2029


def playthrough_specs(variant: Variant) -> list[str]:
    """Return the robots of a variant's seeded playthrough (one randomising robot, so its draws are covered)."""
    if variant.is_simultaneous:
        return ["hold:20", "max-score", "random"]
    if not variant.can_hold:
        return ["dice:6", "random"]
    if variant.chooses_dice:
        return ["hold:20+dice:2", "random"]
    return ["keep-pace", "random"]


def play_moves(variant: Variant, specs: Sequence[str], seed: int) -> tuple[GameState, list[dict[str, Any]]]:
    """Play the robots ``specs`` from ``seed`` to the end; return the final state and every move with its events.

    The dice come from the game's seed and the robots draw from its robot generator, as a saved
    game does; Swine Herd's standing robots choose on the same state, then the choices apply in seat order.
    """
    strategies = [parse_strategy(spec, variant) for spec in specs]
    dice, draws = dice_rng(seed), robot_rng(seed)
    state = new_game(variant, len(strategies))
    moves: list[dict[str, Any]] = []
    while not state.is_terminal():
        seats = choosing_seats(state)
        choices = {seat: strategies[seat].choose(seat_view(state, seat), draws) for seat in seats}
        for seat in seats:
            state, events = apply(state, choices[seat], dice)
            moves.append({"seat": seat, "action": str(choices[seat]), "events": [event_to_json(e) for e in events]})
    return state, moves


def playthrough_figures(variant: Variant) -> dict[str, Any]:
    """Return a variant's seeded playthrough: who played, the seed, every move and event, and the result."""
    specs = playthrough_specs(variant)
    state, moves = play_moves(variant, specs, PLAYTHROUGH_SEED)
    return {
        "variant": variant.name,
        "goal": variant.goal,
        "seed": PLAYTHROUGH_SEED,
        "robots": specs,
        "winners": list(state.winners or ()),
        "scores": list(state.scores),
        "moves": moves,
    }


@dataclass(frozen=True)
class FrozenGame:
    """A game saved once as a version-1 record: one for each kind of game the engine plays."""

    file: str
    variant: str
    goal: int
    specs: tuple[str, ...]
    seed: int
    ending: tuple[str, str, str] | None = None
    committed: bool = False  # played as the web plays: the dice promised by a commitment, revealed at the end


FROZEN_GAMES = (
    FrozenGame("pig-roll-hold.json", "pig", 100, ("hold:20", "keep-pace"), 11, committed=True),
    FrozenGame("hog-dice-per-turn.json", "hog", 100, ("dice:6", "dice:4"), 12),
    FrozenGame("pig-dice-final-round.json", "pig-dice", 60, ("hold:20", "hold:25"), 13),
    FrozenGame("pig-equal-turns-3-players.json", "pig", 60, ("hold:15", "keep-pace", "hold:25"), 14, ENDINGS[6]),
    FrozenGame("swine-herd-3-players.json", "swine-herd", 50, ("hold:15", "hold:20", "max-score"), 15),
)


def frozen_record(game: FrozenGame, path: Path) -> None:
    """Play a frozen game now and save its version-1 record to ``path`` as a player's save does."""
    variant = find_variant(game.variant, goal=game.goal)
    if game.ending is not None:
        variant = variant.with_endgame(*game.ending)
    _, moves = play_moves(variant, game.specs, game.seed)
    seats = [SeatEntry(f"{spec} robot", spec, "robot") for spec in game.specs]
    salt = hashlib.sha256(game.file.encode()).hexdigest()[:32]
    record = record_game(
        variant,
        seats,
        game.seed,
        [move["action"] for move in moves],
        commitment=Commitment.make(game.seed, salt) if game.committed else None,
        origin="web" if game.committed else "terminal",
    )
    save_record(record, path)
