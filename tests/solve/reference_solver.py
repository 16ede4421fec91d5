"""A deliberately simple solver for cross-checking: dict-based value iteration, no numba.

It reads each variant's exact effect distribution and moves through states with
``Effect.resolve`` (the engine's rule), never with the kernels' numeric encoding, and iterates
the optimality equations of Neller & Presser 2005 (seed 003) until nothing changes.
"""

from __future__ import annotations

from pigdice.rules.variant import Decision, Variant


def reference_values(variant: Variant, tolerance: float = 1e-15, max_sweeps: int = 100_000) -> dict:
    """Return {(i, j, k): P} (roll/hold, dice-per-roll) or {(i, j): P} (dice-per-turn), first-to-goal."""
    goal = variant.goal
    dists = [[(effect, float(p)) for effect, p in spec.distribution()] for spec in variant.rolls]
    per_turn = variant.decision is Decision.DICE_PER_TURN
    if per_turn:
        states = [(i, j) for i in range(goal) for j in range(goal)]
    else:
        states = [(i, j, k) for i in range(goal) for j in range(goal) for k in range(goal - i)]
    # high score sums and turn totals first: most dependencies are then already fresh
    states.sort(key=lambda s: -sum(s))
    P = dict.fromkeys(states, 0.5)

    def start(player: int, other: int) -> float:
        """Win probability of the player about to start a turn (1 if already at the goal)."""
        if player >= goal:
            return 1.0
        return P[(player, other)] if per_turn else P[(player, other, 0)]

    def after_turn(i: int, j: int, new_score: int) -> float:
        """My win probability once my turn ends with ``new_score`` and the opponent (j) starts."""
        if new_score >= goal:
            return 1.0
        return 1.0 - start(j, new_score)

    for _ in range(max_sweeps):
        change = 0.0
        for state in states:
            if per_turn:
                i, j = state
                options = []
                for dist in dists:
                    value = 0.0
                    for effect, p in dist:
                        score, total, _ = effect.resolve(i, 0)
                        value += p * after_turn(i, j, score + total)
                    options.append(value)
                best = max(options)
            else:
                i, j, k = state
                best = after_turn(i, j, i + k)  # hold (at k = 0: pass)
                for dist in dists:
                    value = 0.0
                    for effect, p in dist:
                        score, total, ends = effect.resolve(i, k)
                        if ends:
                            value += p * after_turn(i, j, score)
                        elif i + total >= goal:
                            value += p
                        else:
                            value += p * P[(i, j, total)]
                    best = max(best, value)
            change = max(change, abs(best - P[state]))
            P[state] = best
        if change < tolerance:
            return P
    raise AssertionError("the reference solver did not converge")
