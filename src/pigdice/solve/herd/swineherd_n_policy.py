"""The 3-player Swine Herd equilibrium seen through ``ExactPolicy``: the mover's options and chances, and its quality.

``pigdice.solve.herd.swineherd_n`` solves the game in seat order; a ``Position`` lists the scores (and
who stands) with the mover first, which is a seat order too, so the mover is seat 0 of the tables. At a
turn start (turn total 0) the only option is to stand ("roll"). After a roll, with others standing, the
mover is in a stage game whose equilibrium may mix: each option is worth what it brings against the
others' equilibrium chances (``action_values``), and ``play`` draws one number per moment of choice.
Alone, the mover rolls on or holds as in Pig.

The answer is certified by its exploitability (``swineherd_n.exploitability_report``): each seat's exact
best response against the others' strategies, over every turn start; it is computed with the solve.

A solved equilibrium is kept in the policy cache (``save``, ``load``): its tables, the solve's counts and the
exploitability, checked on reading against ``herd_group_schema`` (``pigdice.solve.policyreader``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pigdice.errors import BadParameterError
from pigdice.rules.variant import Variant
from pigdice.solve.herd.n_bundles import Statistics
from pigdice.solve.herd.swineherd import read_die
from pigdice.solve.herd.swineherd_n import (
    Exploitability,
    Stage,
    SwineHerdNPolicy,
    Tables,
    exploitability_report,
    solve_swine_herd_n,
)
from pigdice.solve.policyreader import ArraySpec, Expected, Number, PolicySchema, read_policy_file
from pigdice.solve.positions import Position
from pigdice.solve.solved import StagePlay
from pigdice.solve.storage import save_npz

if TYPE_CHECKING:
    from pigdice.solve.solver import Progress

FORMAT_VERSION = 1  # of the cached policy file (``SwineHerdNExact.save``)
KIND = "swine-herd-group"
EXACT_GAIN = 1e-9  # an equilibrium no seat can gain more than this against (rounding) counts as exact
SELECTION_RULE = (
    "Turn starts are solved from the highest score sum down. In every stage game (the moment after a roll when "
    "the standing players choose at once) the equilibria are listed and one is selected: a pure one before a "
    "mixed one; among pure ones the one with the most players sitting, then the one where the higher scores "
    "sit; among mixed ones the one with the largest total chance of sitting; players with equal scores play "
    "alike. A turn start's value is then the fixed point of its turn. Where the selected equilibria keep "
    "changing with that value, each stage keeps the equilibrium it played last while it is still one; failing "
    "that, the players whose choices keep flipping mix so that each is indifferent; failing that, the turn's "
    "logit equilibria are followed as the players' noise shrinks and the equilibrium they approach is solved "
    "exactly."
)


@dataclass
class SwineHerdNExact(StagePlay):
    """The 3-player equilibrium of a simultaneous variant with its exploitability, answering at ``Position`` s."""

    solved: SwineHerdNPolicy
    variant: Variant
    gains: Exploitability
    from_cache: bool = False
    players: int = 3

    @property
    def seconds(self) -> float:
        """Return how long the solve took (the equilibrium and the best responses that measure it)."""
        return self.solved.seconds + self.gains.seconds

    @property
    def nbytes(self) -> int:
        """Return the bytes of the solution's arrays."""
        return self.solved.nbytes

    @property
    def states(self) -> int:
        """Return the number of turn starts (every order of the scores)."""
        return int(self.solved.goal**self.players)

    @property
    def iterations(self) -> int:
        """Return the turn evaluations (sweeps over the turn total) the fixed points took."""
        return int(self.solved.statistics.root_steps)

    @property
    def residual(self) -> float:
        """Return the exploitability: the most any seat gains at any turn start by a best response."""
        return self.gains.overall

    @property
    def regret(self) -> float:  # type: ignore[override]
        """Return the most any seat gains at any turn start by a best response (the worst exploitability)."""
        return self.gains.overall

    @property
    def is_exact(self) -> bool:
        """Return True if every turn start settled on an equilibrium that no seat can exploit beyond rounding."""
        return self.solved.statistics.unsettled == 0 and self.gains.overall <= EXACT_GAIN

    def _stage(self, position: Position) -> Stage | None:
        """Return the mover's stage game at ``position`` (None at a turn start, before the first roll)."""
        if position.players != self.players:
            raise BadParameterError(f"this equilibrium is for {self.players} players, not {position.players}")
        if position.scores[0] >= self.goal:
            raise BadParameterError(f"a standing player's banked score is below the goal {self.goal}, got {position}")
        if position.turn_total == 0:
            if max(position.scores) >= self.goal:
                raise BadParameterError(f"turn-start scores are below the goal {self.goal}, got {position.scores}")
            return None
        standing = position.standing if position.standing is not None else (True,) * self.players
        return self.solved.stage(position.scores, position.turn_total, standing)

    def _options(self, stage: Stage) -> tuple[np.ndarray, np.ndarray]:
        """Return everyone's chances (mover first) if the mover sits and if it stays, the others at their mixes."""
        if len(stage.seats) == 1:  # the lone roller: profiles roll on (0), hold (1)
            return np.array(stage.payoffs[1]), np.array(stage.payoffs[0])
        sit, stay = np.zeros(self.players), np.zeros(self.players)
        others = [(bit, chance) for bit, (seat, chance) in enumerate(zip(stage.seats, stage.sit, strict=True)) if seat]
        for profile in range(1 << len(stage.seats)):
            if profile & 1:
                continue  # the mover (seat 0, bit 0) is added below
            weight = 1.0
            for bit, chance in others:
                weight *= chance if profile >> bit & 1 else 1.0 - chance
            sit += weight * np.array(stage.payoffs[profile | 1])
            stay += weight * np.array(stage.payoffs[profile])
        return sit, stay

    def action_values(self, position: Position) -> dict[str, float]:
        """Return the mover's win chance if it sits ('hold') and if it stays standing ('roll').

        With others standing each is worth what it brings against their equilibrium chances.
        """
        stage = self._stage(position)
        if stage is None:
            return {"roll": float(self.solved.value(position.scores)[0])}
        sit, stay = self._options(stage)
        return {"hold": float(sit[0]), "roll": float(stay[0])}

    def strategy(self, position: Position) -> dict[str, float]:
        """Return the equilibrium's chance of each option (sitting is 'hold')."""
        stage = self._stage(position)
        if stage is None:
            return {"roll": 1.0}
        sit = stage.sit[0]
        return {name: chance for name, chance in (("hold", sit), ("roll", 1.0 - sit)) if chance > 0.0}

    def win_vector(self, position: Position) -> tuple[float, ...]:
        """Return every player's expected share of the win at ``position``, the mover first: after a roll, what
        the stage game is worth with every standing player mixing as the equilibrium does."""
        stage = self._stage(position)
        if stage is None:
            return self.solved.value(position.scores)
        shares = np.zeros(self.players)
        for profile, payoff in enumerate(stage.payoffs):  # bit j of profile: stage.seats[j] sits
            weight = 1.0
            for bit, chance in enumerate(stage.sit):
                weight *= chance if profile >> bit & 1 else 1.0 - chance
            shares += weight * np.array(payoff)
        return tuple(float(v) for v in shares)

    def win_probability_by_seat(self) -> list[float]:
        """Return each seat's expected share of the win at the start (a shared win split evenly)."""
        return list(self.solved.value((0,) * self.players))

    def equilibrium_json(self) -> dict[str, Any]:
        """Return how the equilibrium was selected and settled, as the ``equilibria`` object of ``solve --json``."""
        stats = self.solved.statistics
        settled = stats.turn_starts - stats.sticky - stats.forced - stats.traced - stats.unsettled
        return {
            "selection_rule": SELECTION_RULE,
            "turn_starts": stats.turn_starts,  # up to the order of the scores
            "settled_on_selected": settled,
            "settled_on_kept_equilibria": stats.sticky,
            "settled_by_mixing": stats.forced,
            "settled_by_tracing": stats.traced,
            "unsettled": stats.unsettled,
            "stage_games": stats.stages3 + stats.stages2,
            "mixed_stage_games": stats.mixed3 + stats.mixed2,
            "start_by_seat": self.win_probability_by_seat(),
            "search": None,  # no search for Swine Herd's other equilibria: bounds over them are not known
        }

    def save(self, path: Path) -> None:
        """Save the tables, the solve's counts and the exploitability to ``path`` (.npz, atomically, with checksums)."""
        gains = self.gains
        meta = {
            "format": FORMAT_VERSION,
            "kind": KIND,
            "players": self.players,
            "fingerprint": rules_key(self.variant),
            "variant": self.variant.describe(),
            "seconds": self.solved.seconds,
            "statistics": self.solved.statistics._asdict(),
            "exploitability": {"at_start": list(gains.at_start), "worst": list(gains.worst), "seconds": gains.seconds},
            "saved": time.time(),
        }
        save_npz(Path(path), meta, **self.solved.tables._asdict())

    @classmethod
    def load(cls, path: Path, variant: Variant, players: int = 3) -> SwineHerdNExact:
        """Load an equilibrium saved for ``variant`` and ``players``; raise BadParameterError if the file is not a
        sound one (``herd_group_schema``, checksums, the solve's counts and exploitability)."""
        read = read_policy_file(path, herd_group_schema(variant, players))
        meta = read.meta
        try:
            statistics = Statistics(**{name: int(meta["statistics"][name]) for name in Statistics._fields})
            saved = meta["exploitability"]
            at_start = tuple(float(g) for g in saved["at_start"])
            worst = tuple(float(g) for g in saved["worst"])
            gains = Exploitability(at_start, worst, float(saved["seconds"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise BadParameterError(f"{path}: damaged policy metadata ({type(exc).__name__}: {exc})") from None
        if len(at_start) != players or len(worst) != players:
            raise BadParameterError(f"{path}: damaged policy metadata (an exploitability per seat)")
        tables = Tables(**read.arrays)
        seconds = read.numbers["seconds"]
        solved = SwineHerdNPolicy(variant.name, variant.goal, players, read_die(variant), tables, seconds, statistics)
        solved._exploitability.append(gains)
        return cls(solved, variant, gains, from_cache=True, players=players)


def rules_key(variant: Variant) -> str:
    """Return what identifies the rules a 3-player equilibrium solves: the fingerprint and the rule at the goal."""
    return f"{variant.fingerprint()}-{'sit' if variant.sits_at_goal else 'roll-on'}"


def herd_group_schema(variant: Variant, players: int = 3) -> PolicySchema:
    """Return what a cached 3-player Swine Herd equilibrium holds: the solve's tables (``swineherd_n.Tables``)."""
    goal = variant.goal
    pairs = goal * (goal + 1) // 2
    rows = goal**players
    elsewhere = f"solved for other parameters than {variant.name} goal {goal}"
    return PolicySchema(
        what=f"the {players}-player equilibrium of {variant.name}",
        goal=goal,
        arrays={
            "V": ArraySpec((goal, goal, goal, players)),
            "R": ArraySpec((pairs, max(1, goal * (goal - 1) // 2), players)),
            "W": ArraySpec((pairs, goal, goal, players)),
            "PR": ArraySpec((2, 4 * goal + 1, 2)),
            "PI": ArraySpec((goal, goal, goal, 2), "int64", 0, rows),
            "PT": ArraySpec((rows,), "int64", 0, None),
            "PS": ArraySpec((rows, players)),
        },
        expected=(
            Expected("kind", KIND, "policy kind {found} is not " + repr(KIND)),
            Expected("format", FORMAT_VERSION, "policy format {found} is not " + str(FORMAT_VERSION)),
            Expected("players", players, f"solved for {{found}} players, not {players}"),
            Expected("fingerprint", rules_key(variant), elsewhere),
        ),
        numbers=(Number("seconds"),),
    )


def swine_herd_n_exact(variant: Variant, players: int = 3, progress: Progress | None = None) -> SwineHerdNExact:
    """Solve ``variant`` (simultaneous, one shared die) for ``players`` (3) players, measure its exploitability and
    return it as an ``ExactPolicy``."""
    solved = solve_swine_herd_n(variant, players, progress)
    return SwineHerdNExact(solved, variant, exploitability_report(solved, progress))
