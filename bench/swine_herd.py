"""2-player Swine Herd, solved exactly as a simultaneous zero-sum game: the investigation, printed.

Run: python bench/swine_herd.py [--goal 100] [--repeat 3]
Prints: solve times at goals 12, 50, 100 under the house rule (both still standing sit once the total
takes both to the goal; warm, best of --repeat; the ratio of each to the goal-100 solve without the
house rule, the draw rule, in this run); at --goal: the values at chosen states with their kind
(unique / endless: the turn never ends and the value is the rule's / boundary: the value ends an
interval of solutions), the share of stage games that mix and how often a game meets one (exact
forward pass from (0, 0)), the chance that optimal play never ends, the equilibrium against itself
and against hold:20 and hold:25 (exact), and the sensitivity table: the values under the other rules
for a game that would never end.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from pigdice.rules import find_variant
from pigdice.solve.herd.swineherd import (
    BOUNDARY,
    ENDLESS,
    SIT_MARGIN,
    UNIQUE,
    SwineHerdPolicy,
    solve_swine_herd,
    truncated_values,
)
from pigdice.study.analysis.swineherd import equilibrium_table, evaluate_pair, hold_at_table, mixing

CHOSEN = ((0, 0), (50, 0), (90, 80), (0, 90), (60, 60), (80, 60), (95, 90), (98, 96), (98, 90))
KIND_NAMES = {UNIQUE: "unique", ENDLESS: "endless", BOUNDARY: "boundary"}


def timed(goal: int, repeat: int, **rule: float) -> tuple[float, SwineHerdPolicy]:
    """Return the best solve time of ``repeat`` warm runs and the last policy."""
    variant = find_variant("swine-herd").with_goal(goal)
    solve_swine_herd(variant.with_goal(4), **rule)  # compile / load the kernels
    best = float("inf")
    policy = None
    for _ in range(repeat):
        started = time.perf_counter()
        policy = solve_swine_herd(variant, **rule)
        best = min(best, time.perf_counter() - started)
    assert policy is not None
    return best, policy


@njit(cache=True)
def _lone(seat, s, o, mass, t, goal, die, V, L, nxt):  # pragma: no cover - numba
    """Spread ``mass`` of a lone roller (seat 0: A, 1: B; score s, total t, the other banked o < goal)
    over the next turn starts in nxt (A's score, B's score); return the mass whose game ends."""
    amounts, probs, pbust = die.amounts, die.probabilities, die.bust
    ended = 0.0
    top = goal - s
    walk = np.zeros(max(t, top) + amounts.max() + 1)
    walk[t] = mass
    for u in range(t, top):
        m = walk[u]
        if m == 0.0:
            continue
        if seat == 0:  # the roller's bust: back to its score s
            nxt[s, o] += m * pbust
        else:
            nxt[o, s] += m * pbust
        for k in range(amounts.shape[0]):
            u2 = u + amounts[k]
            m2 = m * probs[k]
            if s + u2 >= goal:  # past the goal against o < goal: holds and wins
                ended += m2
                continue
            if seat == 0:
                hold, roll = V[s + u2, o], L[s, o, u2]
                if hold >= roll:
                    nxt[s + u2, o] += m2
                    continue
            else:
                hold, roll = V[o, s + u2], L[s, o, u2]
                if hold <= roll:
                    nxt[o, s + u2] += m2
                    continue
            walk[u2] += m2
    for u in range(top, walk.shape[0]):  # a start at or past the goal: one roll, then hold
        if walk[u] > 0.0:
            if seat == 0:
                nxt[s, o] += walk[u] * pbust
            else:
                nxt[o, s] += walk[u] * pbust
            ended += walk[u] * (1.0 - pbust)
    return ended


@njit(cache=True)
def _forward(a0, b0, goal, die, V, kinds, SP, SQ, LA, LB, margin):  # pragma: no cover - numba
    """Play optimal play forward from (a0, b0) exactly; return (P(the game ends), P(it never ends),
    expected mixed stage games met, expected turns, expected both-standing stage games met), the
    expectations counted until the game ends or reaches an endless turn start."""
    amounts, probs, pbust = die.amounts, die.probabilities, die.bust
    arrive = np.zeros((goal, goal))
    arrive[a0, b0] = 1.0
    nf = amounts.shape[0]
    ended = 0.0
    endless = 0.0
    mixed_met = 0.0
    turns = 0.0
    stages_met = 0.0
    nxt = np.zeros((goal, goal))
    for n in range(a0 + b0, 2 * goal - 1):
        for a in range(max(0, n - goal + 1), min(n, goal - 1) + 1):
            b = n - a
            m = arrive[a, b]
            if m == 0.0:
                continue
            if kinds[a, b] == ENDLESS:
                endless += m
                continue
            nxt[:, :] = 0.0
            top = goal - min(a, b)
            pi = np.zeros(top + 1)
            for k in range(nf):
                pi[min(amounts[k], top)] += probs[k]
            ends = 0.0
            back = pbust  # the first roll busts: the same turn again
            mixed = 0.0
            visits = 0.0
            for t in range(1, top + 1):
                if pi[t] == 0.0:
                    continue
                p, q = SP[a, b, t], SQ[a, b, t]
                r = (1.0 - p) * (1.0 - q)
                w = pi[t]
                if t == top:  # the stationary stage: geometric visits
                    w = pi[t] / (1.0 - r * (1.0 - pbust))
                visits += w
                if margin < p < 1.0 - margin or margin < q < 1.0 - margin:
                    mixed += w
                x1, y1 = a + t, b + t
                if x1 >= goal or y1 >= goal:
                    ends += w * p * q
                else:
                    nxt[x1, y1] += w * p * q
                if w * p * (1.0 - q) > 0.0:  # A sits, B rolls on alone
                    if x1 >= goal:
                        ends += w * p * (1.0 - q)
                    else:
                        ends += _lone(1, b, x1, w * p * (1.0 - q), t, goal, die, V, LB, nxt)
                if w * (1.0 - p) * q > 0.0:
                    if y1 >= goal:
                        ends += w * (1.0 - p) * q
                    else:
                        ends += _lone(0, a, y1, w * (1.0 - p) * q, t, goal, die, V, LA, nxt)
                back += w * r * pbust
                if t < top:
                    for k in range(nf):
                        pi[min(t + amounts[k], top)] += w * r * probs[k]
            e = 1.0 - back  # the chance a turn here ends with a banked score
            ended += m * ends / e
            mixed_met += m * mixed / e
            stages_met += m * visits / e
            turns += m / e
            for x in range(goal):
                for y in range(goal):
                    if nxt[x, y] > 0.0:
                        arrive[x, y] += m * nxt[x, y] / e
    return ended, endless, mixed_met, turns, stages_met


def row(label: str, values: list[float], width: int = 9) -> str:
    """Return a table row: a label and numbers."""
    return f"  {label:<22}" + "".join(f"{v:>{width}.6f}" for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goal", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    goal = args.goal
    variant = find_variant("swine-herd").with_goal(goal)

    print("Solve times (warm, best of", args.repeat, "runs; the house rule)")
    base, _ = timed(100, args.repeat, sit_at_goal=False)
    for g in (12, 50, 100):
        seconds, policy = timed(g, args.repeat)
        residual = policy.residual()
        kinds = np.bincount(policy.kinds.ravel(), minlength=3)
        print(
            f"  goal {g:>3}: {seconds:7.3f} s ({seconds / base:5.2f} x the draw-rule solve at 100, {base:.3f} s); "
            f"{policy.evaluations} turn sweeps; turn starts unique/endless/boundary {kinds[0]}/{kinds[1]}/{kinds[2]}; "
            f"residual |F(V)-V| {residual.turn:.1e}, strategies {residual.play:.1e}"
        )

    policy = solve_swine_herd(variant)
    chosen = [(a * goal // 100, b * goal // 100) for a, b in CHOSEN]
    print(f"\nValues at goal {goal} (chance to win of the player with the first score; the house rule)")
    for a, b in chosen:
        kind = KIND_NAMES[int(policy.kinds[a, b])]
        print(f"  V({a:>3},{b:>3}) = {policy.value(a, b):.9f}  {kind}")

    found = mixing(policy)
    stages, mixed, starts = found.stages, found.mixed, found.turn_starts
    print("\nMixing (choices with both standing, at reachable totals; the house rule's seating is no choice)")
    print(f"  {mixed} of {stages} stage games mix ({mixed / stages:.2%}); {starts} of {goal**2} turn starts have one")
    print("  optimal play forward (exact; expectations until the game ends or reaches an endless turn start):")
    print(f"  {'from':<10}{'ends':>12}{'never ends':>12}{'mixed met':>11}{'stages met':>12}{'turns':>8}")
    for a0, b0 in ((0, 0), (goal // 10, 0), (goal * 3 // 10, goal // 5), (0, goal // 2)):
        ended, endless, mixed_met, turns, stages_met = _forward(
            a0,
            b0,
            goal,
            policy.die,
            policy.V,
            policy.kinds,
            policy.sit_a,
            policy.sit_b,
            policy.lone_a,
            policy.lone_b,
            SIT_MARGIN,
        )
        print(f"  {f'({a0},{b0})':<10}{ended:>12.9f}{endless:>12.9f}{mixed_met:>11.4f}{stages_met:>12.2f}{turns:>8.2f}")

    print("\nThe equilibrium played out exactly (pigdice.study.analysis.swineherd.evaluate_pair)")
    mine = equilibrium_table(policy, 0)
    for name, other in (
        ("itself", equilibrium_table(policy, 1)),
        ("hold:20", hold_at_table(variant, 20)),
        ("hold:25", hold_at_table(variant, 25)),
    ):
        e = evaluate_pair(variant, mine, other)
        print(
            f"  against {name:<8} chance {e.chance_a:.6f} (wins {e.win_a:.6f}, shared {e.shared:.6f}); "
            f"{e.turns:.2f} turns, {e.rolls:.1f} rolls; sit together {e.together:.1%}; {e.seconds * 1000:.0f} ms"
        )

    house = policy.V
    print(f"\nSensitivity to the rule for a game that would never end (goal {goal})")
    header = "".join(f"{f'({a},{b})':>9}" for a, b in chosen)
    print(f"  {'rule':<22}{header}{'max |dV|':>11}{'mean |dV|':>11}")
    rules: list[tuple[str, np.ndarray]] = [("house rule (chosen)", house)]
    rules.append(("no house rule: draw", solve_swine_herd(variant, sit_at_goal=False).V))
    for stop in (1e-3, 1e-6):
        rules.append((f"stop {stop:g}/roll, draw", solve_swine_herd(variant, sit_at_goal=False, stop=stop).V))
    rules.append(("endless lost by A", solve_swine_herd(variant, sit_at_goal=False, endless=0.0).V))
    rules.append(("endless won by A", solve_swine_herd(variant, sit_at_goal=False, endless=1.0).V))
    for cut in (48, 84, 144, 600):  # past ~1000 the exits left weigh ~1e-24 and doubles fail
        rules.append((f"cut: all sit at {cut}", truncated_values(variant, cut)))
    for label, V in rules:
        gap = np.abs(V - house)
        print(row(label, [V[a, b] for a, b in chosen]) + f"{gap.max():>11.2e}{gap.mean():>11.2e}")


if __name__ == "__main__":
    main()
