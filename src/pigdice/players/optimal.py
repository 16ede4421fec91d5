"""The perfect player and hints: actions and win probabilities read from a solved policy.

The solver computes the 2-player, first-to-goal game. Elsewhere this module approximates and
says so: with 3+ players it treats the opponents as one opponent with the highest score
(seed 003's suggested approximation); under final-round or equal-turns endings it plays the
first-to-goal policy until the final round, then rolls until it leads; Swine Herd is played
with Pig's policy (sit down where a Pig player would hold).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pigdice.engine.game import Action, GameState, Hold, Roll
from pigdice.errors import BadStrategyError
from pigdice.players.base import Progress, perspective
from pigdice.rules.variant import Decision, Endgame, Variant
from pigdice.solve.policy import Policy
from pigdice.solve.solver import Progress as SolveProgress
from pigdice.solve.solver import solve


def approximation_note(variant: Variant, players: int) -> str | None:
    """Return why the perfect player's advice is approximate here, or None if it is exact."""
    notes = []
    if variant.decision is Decision.SIMULTANEOUS:
        notes.append("Swine Herd is played with Pig's optimal policy")
    if players > 2:
        notes.append(f"{players} players: opponents are treated as one with the highest score")
    if variant.endgame is not Endgame.FIRST_TO_GOAL:
        notes.append(f"the policy is optimal for first-to-goal, not for the {variant.endgame} ending")
    return "; ".join(notes) if notes else None


def _view(state: GameState) -> tuple[int, int, int]:
    """Return (my score, strongest opponent's score, turn total), the scores capped below the goal."""
    score, opponent, turn_total = perspective(state)
    goal = state.variant.goal
    return min(score, goal - 1), min(opponent, goal - 1), turn_total


@dataclass(frozen=True)
class Hint:
    """The perfect player's advice for one state."""

    best: str
    values: dict[str, float]
    win_probability: float
    approximate: str | None = None

    def describe(self) -> str:
        """Return one line for people: the best action, your chance, and each option's chance."""
        options = ", ".join(f"{name} {100 * value:.1f}%" for name, value in self.values.items())
        text = f"{self.best} — your chance to win {100 * self.win_probability:.1f}% (if you {options})"
        if len(self.values) > 6:
            text = f"{self.best} — your chance to win {100 * self.win_probability:.1f}%"
        if self.approximate:
            text += f" [approximate: {self.approximate}]"
        return text

    def to_json(self) -> dict[str, object]:
        """Return the hint as JSON-ready data."""
        return {
            "best": self.best,
            "values": self.values,
            "win_probability": self.win_probability,
            "approximate": self.approximate,
        }


def _action_name(variant: Variant, choice: int) -> str:
    if choice == 0:
        return "hold"
    return f"roll:{variant.choices[choice - 1]}" if variant.chooses_dice else "roll"


def hint_from_policy(policy: Policy, score: int, opponent: int, turn_total: int) -> Hint:
    """Return the best action and each action's win probability at (score, opponent, turn_total)."""
    values = policy.action_values(score, opponent, turn_total)
    choice = policy.best_choice(score, opponent, turn_total)
    return Hint(_action_name(policy.variant, choice), values, policy.win_probability(score, opponent, turn_total))


@dataclass
class Optimal:
    """The perfect player: maximises the probability of winning (approximate where noted)."""

    variant: Variant
    progress: SolveProgress | None = None
    name: str = "optimal"
    _policy: Policy | None = field(default=None, repr=False)

    @property
    def policy(self) -> Policy:
        """Return the policy, solving (or loading it from the cache) on first use."""
        if self._policy is None:
            self._policy = solve(self.variant.roll_hold_form(), progress=self.progress)
        return self._policy

    def use_policy(self, policy: Policy) -> None:
        """Use ``policy`` (solved elsewhere, e.g. in a worker process) instead of solving on first use."""
        if policy.variant != self.variant.roll_hold_form():
            raise BadStrategyError(f"that policy solves {policy.variant.name}, not {self.variant.name}")
        self._policy = policy

    @property
    def is_ready(self) -> bool:
        """Return True once the policy is at hand (choosing will not solve)."""
        return self._policy is not None

    def action_table(self, variant: Variant, progress: Progress | None = None) -> np.ndarray:
        """Return the optimal action table of 2-player, first-to-goal ``variant`` (solved on first use)."""
        target = variant.roll_hold_form()
        if self._policy is not None and self._policy.variant == target:
            policy = self._policy
        else:
            policy = solve(target, progress=None if progress is None else lambda f, _label: progress(f))
            if target == self.variant.roll_hold_form():
                self._policy = policy
        return policy.action_table(progress)

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Return the optimal (or best approximate) action for the current player."""
        variant = state.variant
        total = state.scores[state.current] + state.turn_total
        best_other = max(s for p, s in enumerate(state.scores) if p != state.current)
        if state.final_round is not None:
            return self._final_round(state, total > best_other)
        score, opponent, turn_total = _view(state)
        if score + turn_total >= variant.goal and variant.can_hold:
            return Hold()
        choice = self.policy.best_choice(score, opponent, min(turn_total, variant.goal - 1 - score))
        if choice == 0:
            return Hold() if state.turn_total > 0 else self._roll(1)
        return self._roll(choice)

    def _roll(self, choice: int) -> Roll:
        return Roll(self.variant.choices[choice - 1]) if self.variant.chooses_dice else Roll()

    def _final_round(self, state: GameState, leading: bool) -> Action:
        """Last turn: hold once ahead of everyone, otherwise keep rolling."""
        variant = state.variant
        if leading and variant.can_hold and not state.is_final_roll():
            return Hold()
        if not variant.chooses_dice:
            return Roll()
        # one throw to catch up: the dice count the policy would use just short of the goal
        score, opponent, _ = _view(state)
        return self._roll(max(1, self.policy.best_choice(score, opponent, 0)))

    def hint(self, state: GameState) -> Hint:
        """Return the advice for the current player of ``state``."""
        score, opponent, turn_total = _view(state)
        note = approximation_note(state.variant, state.players)
        if state.final_round is not None:
            note = (note + "; " if note else "") + "final round: roll until you lead"
        turn_total = min(turn_total, max(0, state.variant.goal - score))
        if score + turn_total >= state.variant.goal:
            hint = Hint("hold", {"hold": 1.0}, 1.0)
        else:
            hint = hint_from_policy(self.policy, score, opponent, turn_total)
        if state.variant.decision is Decision.SIMULTANEOUS:
            values = {("sit" if k == "hold" else "stand"): v for k, v in hint.values.items()}
            hint = Hint("sit" if hint.best == "hold" else "stand", values, hint.win_probability)
        return Hint(hint.best, hint.values, hint.win_probability, note)


def hint_for_state(state: GameState) -> Hint:
    """Return the perfect player's hint for the current player of ``state``."""
    return Optimal(state.variant).hint(state)


def parse_optimal(spec: str, variant: Variant) -> Optimal:
    """Parse the 'optimal' strategy spec (it takes no arguments)."""
    if spec.strip().lower() != "optimal":
        raise BadStrategyError(f"{spec!r}: 'optimal' takes no arguments; write just optimal")
    return Optimal(variant)
