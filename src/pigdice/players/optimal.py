"""The perfect player and hints: actions and win probabilities read from exact policies.

Wherever an exact solver exists (``pigdice.solve.exact``: 2 to 4 players under every ending, 5+
players first to the goal) the perfect player plays it and its hints are exact. Elsewhere it
approximates and says how: with 5+ players under a final round or equal turns it plays the
2-player first-to-goal policy against the highest opponent score (seed 003's suggestion) and
in its last turn rolls until it leads. Swine Herd with 2 players is played by its exact
equilibrium (``pigdice.solve.herd.swineherd_policy``), mixing where the equilibrium mixes with one draw per
moment of choice; with 3 players by the 3-player equilibrium (``pigdice.solve.herd.swineherd_n_policy``)
wherever it is at hand (goals that solve in a second or two, or one solved before and kept in the cache:
``exact.herd_group_at_hand``), drawing its mixes the same way; otherwise, and with 4 or more players, by the
2-player equilibrium against the opponent with the highest score (standing or seated), as seed 003
suggests for Pig.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from pigdice.engine.game import Action, GameState, Hold, Roll
from pigdice.errors import BadParameterError, BadStrategyError
from pigdice.players.base import Progress, perspective
from pigdice.rules.variant import Decision, Variant
from pigdice.solve.positions import Position

if TYPE_CHECKING:  # the solver loads numba: imported only where a solve is needed
    from pigdice.solve.exact import ExactPolicy
    from pigdice.solve.policy import Policy
    from pigdice.solve.solver import Progress as SolveProgress


def approximation_note(variant: Variant, players: int) -> str | None:
    """Return why the perfect player's advice is approximate here, or None if it is exact."""
    from pigdice.solve.exact import HERD_GROUP, exactness

    if exactness(variant, players) is None:
        return None
    if variant.two_dice_sets:
        return (
            "with two sets of dice two players' turns are under way at once, which no solver models: it plays the "
            "best 2-player strategy for a race to the goal against the highest opponent score, so its chances are "
            "not exact"
        )
    if variant.decision is Decision.SIMULTANEOUS:
        if exactness(variant, 2) is not None:
            return "Swine Herd is played with Pig's optimal policy, sitting down where a Pig player would hold"
        from pigdice.solve.herd.herd_figures import summary

        pair = "it plays the exact 2-player equilibrium against the opponent with the highest score"
        if players == HERD_GROUP:
            return f"{exactness(variant, players)}, so {pair}; {summary(players)}"
        exact = "the perfect player is exact with 2 players, and with 3"
        return f"with {players} players {pair} ({exact}); {summary(players)}"
    return (
        f"with {players} players and the ending '{variant.endgame.label}' it plays the best 2-player strategy "
        "for a race to the goal against the highest opponent score, and in its last turn rolls until it leads"
    )


def in_play(state: GameState) -> list[int]:
    """Return the seats still in the game (not resigned) in turn order, the mover first."""
    me, n = state.current, state.players
    return [(me + r) % n for r in range(n) if (me + r) % n not in state.resigned]


def position_of(state: GameState) -> Position:
    """Return the solvers' view of ``state``: scores from the current player on, seat, and last turns owed.

    Players who resigned are left out: they can no longer win and never move again, so the game that
    remains is the same game among the others (with fewer players).
    """
    order = in_play(state)
    scores = tuple(state.scores[p] for p in order)
    seat = sorted(order).index(state.current)
    final = None
    if state.final_round is not None:
        final = tuple(sorted(order.index(p) for p in state.final_round if p in order and p != state.current))
    standing = tuple(state.standing[p] for p in order) if state.variant.is_simultaneous else None
    return Position(scores, state.turn_total, seat, final, standing)


def herd_view(state: GameState) -> Position:
    """Return a 3+ player Swine Herd state as the 2-player game against the opponent with the highest score
    (standing or not; of equal scores one still standing) that the approximation plays."""
    me = state.current
    others = [p for p in in_play(state) if p != me]
    top = max(others, key=lambda p: (state.scores[p], state.standing[p]))
    return Position((state.scores[me], state.scores[top]), state.turn_total, standing=(True, state.standing[top]))


def herd_pair_position(position: Position) -> Position:
    """Return a 3+ player Swine Herd position (the mover first, standing) as ``herd_view`` reads a state."""
    standing = position.standing or (True,) * position.players
    others = range(1, position.players)
    top = max(others, key=lambda p: (position.scores[p], standing[p]))
    return Position((position.scores[0], position.scores[top]), position.turn_total, standing=(True, standing[top]))


def seat_chances(state: GameState, vector: Sequence[float]) -> tuple[float, ...]:
    """Return every seat's chance, in seat order, from a win vector of ``position_of(state)`` (0 if resigned)."""
    chances = [0.0] * state.players
    for offset, seat in enumerate(in_play(state)):
        chances[seat] = vector[offset]
    return tuple(chances)


def _view(state: GameState) -> tuple[int, int, int]:
    """Return (my score, strongest opponent's score, turn total), the scores capped below the goal."""
    score, opponent, turn_total = perspective(state)
    goal = state.variant.goal
    return min(score, goal - 1), min(opponent, goal - 1), turn_total


_OPTION_WORDS = {"sit": "sit down", "stand": "stay standing"}


def _dice_count(name: str) -> int | None:
    """Return N for an option named 'roll:N' (a number of dice), else None."""
    head, _, count = name.partition(":")
    return int(count) if head == "roll" and count.isdecimal() else None


def _option_words(name: str) -> str:
    """Return an option's name in words: 'roll:6' is 'roll 6 dice', 'sit' is 'sit down'."""
    count = _dice_count(name)
    if count is not None:
        return f"roll {count} {'die' if count == 1 else 'dice'}"
    return _OPTION_WORDS.get(name, name)


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


@dataclass(frozen=True)
class Hint:
    """The perfect player's advice for one state."""

    best: str
    values: dict[str, float]
    win_probability: float
    approximate: str | None = None
    mix: dict[str, float] | None = None  # where the equilibrium mixes (Swine Herd): each option's chance

    def describe(self) -> str:
        """Return one line for people: the best choice in words and your chance to win.

        Where every option is a number of dice for the one throw of the turn (Hog) it names the
        best count alone, "roll 6 dice: 53.0% (your chance to win)"; elsewhere it adds what holding
        (or sitting down) and rolling are worth, naming only the best number of dice to roll.
        """
        chance = _percent(self.win_probability)
        if self.values and all(_dice_count(name) is not None for name in self.values):
            text = f"{_option_words(self.best)}: {chance} (your chance to win)"
        else:
            shown = self._options_shown()
            options = ", ".join(f"{_option_words(name)} {_percent(value)}" for name, value in shown.items())
            text = f"{_option_words(self.best)} — your chance to win {chance}"
            if options:
                text += f" (if you {options})"
        if self.mix:
            chances = ", ".join(f"{_option_words(name)} {_percent(chance)}" for name, chance in self.mix.items())
            text += f"; the perfect player mixes here ({chances}) so nobody can read it"
        if self.approximate:
            text += f" [approximate: {self.approximate}]"
        return text

    def _options_shown(self) -> dict[str, float]:
        """Return the options a one-line hint lists: hold (or sit, stand) and the best number of dice to roll."""
        rolls = {name: value for name, value in self.values.items() if _dice_count(name) is not None}
        shown = {name: value for name, value in self.values.items() if name not in rolls}
        if rolls:
            best_roll = self.best if self.best in rolls else max(rolls, key=lambda name: rolls[name])
            shown[best_roll] = rolls[best_roll]
        return shown

    def to_json(self) -> dict[str, object]:
        """Return the hint as JSON-ready data."""
        return {
            "best": self.best,
            "values": self.values,
            "win_probability": self.win_probability,
            "approximate": self.approximate,
            "mix": self.mix,
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


def _action(variant: Variant, name: str) -> Action:
    """Return the engine action of an option name ('hold', 'roll', 'roll:N')."""
    if name == "hold":
        return Hold()
    return Roll(int(name.split(":")[1])) if ":" in name else Roll()


BULK_ROWS = 2000  # turn rows worked out in plain Python before the perfect player turns to the compiled solver


@dataclass
class Optimal:
    """The perfect player: exact where a solver exists for the game in play, else approximate (and says so).

    It solves (or loads) what it needs on first use, per number of players. A policy handed over
    with ``use_policy`` (solved elsewhere, e.g. in a web server's worker) is used as it is: the
    player then never solves by itself, and without an exact policy for the game it approximates.
    """

    variant: Variant
    progress: SolveProgress | None = None
    name: str = "optimal"
    # front ends set these: solve in a worker process that Ctrl-C, or ``check()`` raising, stops at once
    in_worker: bool = False
    check: Callable[[], None] | None = field(default=None, repr=False)
    _policy: Policy | None = field(default=None, repr=False)
    _exact: dict[int, ExactPolicy] = field(default_factory=dict, repr=False)
    _supplied: bool = field(default=False, repr=False)
    # (turn, seat, Swine Herd's total), the draw of the turn (of the moment in Swine Herd)
    _draw: tuple[tuple[int, int, int], float] | None = field(default=None, repr=False)

    @property
    def policy(self) -> Policy:
        """Return the 2-player first-to-goal policy (action tables, approximations), solving on first use."""
        if self._policy is None:
            if self.in_worker:
                from pigdice.solve.exact import exact_policy_in_worker, plain_policy

                solved = exact_policy_in_worker(self.variant.roll_hold_form(), 2, self.progress, self.check)
                self._policy = plain_policy(solved)
            else:
                from pigdice.solve.solver import solve

                self._policy = solve(self.variant.roll_hold_form(), progress=self.progress)
        return self._policy

    def exact(self, players: int) -> ExactPolicy | None:
        """Return the exact policy for ``players`` players, or None where none exists.

        From the values shipped with the package where they hold this game (no solve, no compiled
        code: ``pigdice.solve.shipped``), else solved (or loaded from the cache) on first use.
        """
        kept = self._exact.get(players)
        if kept is not None and not self._supplied and getattr(kept, "rows_made", 0) > BULK_ROWS:
            del self._exact[players]  # played in bulk (a simulation, a learner): the kernels answer faster now
            return self._solved(players)
        if kept is not None:
            return kept
        from pigdice.solve.exact import FirstToGoalPolicy, exactness
        from pigdice.solve.shipped import shipped_policy

        if self._supplied:  # a supplied 2-player first-to-goal policy is the exact one for that game
            simple = players == 2 and self.variant.roll_hold_form() == self.variant
            if simple and self._policy is not None:
                self._exact[players] = FirstToGoalPolicy(self._policy)
            return self._exact.get(players)

        if exactness(self.variant, players) is not None:
            return None
        policy = shipped_policy(self.variant, players)
        if policy is None:
            try:
                return self._solved(players)
            except BadParameterError:
                if not self.variant.is_simultaneous:
                    raise
                return None  # a damaged cached 3-player equilibrium, now removed: the approximation plays
        self._exact[players] = policy
        return policy

    def _solved(self, players: int) -> ExactPolicy:
        """Return the exact policy from the solver (memory, the disk cache or a solve), and keep it."""
        from pigdice.solve.exact import exact_policy, exact_policy_in_worker

        if self.in_worker:
            policy = exact_policy_in_worker(self.variant, players, self.progress, self.check)
        else:
            policy = exact_policy(self.variant, players, progress=self.progress)
        self._exact[players] = policy
        return policy

    def prepare(self, players: int) -> None:
        """Solve (or load) what playing with ``players`` players needs, now."""
        if self.exact(players) is None:
            _ = self.policy

    def use_policy(self, policy: Policy | ExactPolicy) -> None:
        """Use ``policy`` (solved elsewhere) from now on; the player no longer solves by itself."""
        from pigdice.solve.policy import Policy

        if isinstance(policy, Policy):
            if policy.variant != self.variant.roll_hold_form():
                raise BadStrategyError(f"that policy solves {policy.variant.name}, not {self.variant.name}")
            self._policy = policy
        else:
            from pigdice.solve.exact import exact_key

            if exact_key(policy.variant, policy.players) != exact_key(self.variant, policy.players):
                raise BadStrategyError(f"that policy solves another game than {self.variant.name}")
            self._exact[policy.players] = policy
        self._supplied = True

    @property
    def is_ready(self) -> bool:
        """Return True once a policy is at hand (choosing will not solve)."""
        return self._policy is not None or bool(self._exact)

    def is_ready_for(self, players: int) -> bool:
        """Return True if choosing with ``players`` players will not solve."""
        if players in self._exact or (self._supplied and self._policy is not None):
            return True
        return self.variant.is_simultaneous and self._supplied and 2 in self._exact  # 3+ read the 2-player game

    def action_table(self, variant: Variant, progress: Progress | None = None) -> np.ndarray:
        """Return the optimal action table of 2-player, first-to-goal ``variant`` (solved on first use)."""
        target = variant.roll_hold_form()
        if self._policy is not None and self._policy.variant == target:
            policy = self._policy
        else:
            from pigdice.solve.solver import solve

            policy = solve(target, progress=None if progress is None else lambda f, _label: progress(f))
            if target == self.variant.roll_hold_form():
                self._policy = policy
        return policy.action_table(progress)

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Return the optimal action (exact where a solver exists, else the best approximate one)."""
        exact = self.exact(len(in_play(state)))
        if exact is not None:
            return _action(state.variant, exact.play(position_of(state), lambda: self._turn_draw(state, rng)))
        pair = self._herd_pair(state)
        if pair is not None:
            return _action(state.variant, pair.play(herd_view(state), lambda: self._turn_draw(state, rng)))
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

    def _turn_draw(self, state: GameState, rng: np.random.Generator) -> float:
        """Return this turn's draw for a mixed equilibrium: made from ``rng`` the first time the turn asks.

        In Swine Herd every moment of choice (a new shared total) is a stage game of its own: one draw each.
        """
        key = (state.turn, state.current, state.turn_total if state.variant.is_simultaneous else 0)
        if self._draw is None or self._draw[0] != key:
            self._draw = (key, float(rng.random()))
        return self._draw[1]

    def _roll(self, choice: int) -> Roll:
        return Roll(self.variant.choices[choice - 1]) if self.variant.chooses_dice else Roll()

    def _final_round(self, state: GameState, leading: bool) -> Action:
        """Last turn (approximate): hold once ahead of everyone, otherwise keep rolling."""
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
        exact = self.exact(len(in_play(state)))
        if exact is not None:
            position = position_of(state)
            values = exact.action_values(position)
            best = exact.best(position)
            if state.variant.is_simultaneous:  # the stage game's value, which a mix is worth whichever it draws
                mix = exact.strategy(position)
                hint = Hint(best, values, exact.win_vector(position)[0], mix=mix if len(mix) > 1 else None)
            else:
                hint = Hint(best, values, values[best])
        else:
            hint = self._approximate_hint(state)
        if state.variant.decision is Decision.SIMULTANEOUS:
            words = {"hold": "sit", "roll": "stand"}
            values = {words.get(k, k): v for k, v in hint.values.items()}
            chances = None if hint.mix is None else {words.get(k, k): v for k, v in hint.mix.items()}
            hint = Hint(words.get(hint.best, hint.best), values, hint.win_probability, hint.approximate, chances)
        return hint

    def _herd_pair(self, state: GameState) -> ExactPolicy | None:
        """Return the 2-player Swine Herd equilibrium that 3+ players' approximation reads, or None."""
        if not state.variant.is_simultaneous or len(in_play(state)) < 3:
            return None
        from pigdice.solve.exact import exactness

        if not self._supplied and exactness(self.variant, 2) is not None:
            return None
        return self.exact(2)

    def _approximate_hint(self, state: GameState) -> Hint:
        """Return the 2-player first-to-goal policy's advice at (my score, highest opponent score, turn total)."""
        pair = self._herd_pair(state)
        if pair is not None:
            view = herd_view(state)
            values = pair.action_values(view)
            mix = pair.strategy(view)
            note = approximation_note(state.variant, len(in_play(state)))
            return Hint(pair.best(view), values, pair.win_vector(view)[0], note, mix if len(mix) > 1 else None)
        score, opponent, turn_total = _view(state)
        game = f"{state.players} players" if state.players > 2 else f"the ending '{state.variant.endgame.label}'"
        note = approximation_note(state.variant, state.players) or (
            f"with {game} it plays the best 2-player strategy for a race to the goal against the highest "
            "opponent score (the exact strategy of this game is not at hand here)"
        )
        if state.final_round is not None:
            note += "; final round: roll until you lead"
        turn_total = min(turn_total, max(0, state.variant.goal - score))
        if score + turn_total >= state.variant.goal:
            hint = Hint("hold", {"hold": 1.0}, 1.0)
        else:
            hint = hint_from_policy(self.policy, score, opponent, turn_total)
        return Hint(hint.best, hint.values, hint.win_probability, note)


def hint_for_state(state: GameState) -> Hint:
    """Return the perfect player's hint for the current player of ``state``."""
    return Optimal(state.variant).hint(state)


def parse_optimal(spec: str, variant: Variant) -> Optimal:
    """Parse the 'optimal' strategy spec (it takes no arguments)."""
    if spec.strip().lower() != "optimal":
        raise BadStrategyError(f"{spec!r}: 'optimal' takes no arguments; write just optimal")
    return Optimal(variant)
