"""OpenSpiel's MCTS bot plays a pigdice variant against the perfect player, its result beside exact figures.

The game is pigdice's OpenSpiel game ``python_pigdice`` (explicit chance nodes with the exact
outcome tables). OpenSpiel's ``MCTSBot`` (UCT with random rollouts) plays the perfect player for a
number of games, each side starting half of them; its simulated win rate is shown with a 95%
interval. Beside it stand exact figures that no simulation can give: the perfect player's own
chance in the bot's place (``pigdice.evaluate``: 0.5 averaged over the seats) and holding at
``--hold`` points. The holding robot also plays the same number of games through the same
OpenSpiel loop, so its simulated rate can be checked against its exact one: the loop is fair.

Run (needs the ``rl`` extra: open_spiel)::

    python examples/openspiel_mcts.py                                          # CI size: a minute
    python examples/openspiel_mcts.py --goal 50 --games 200 --simulations 400  # about an hour on one core
"""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

import numpy as np

SIZE_ENV = "PIGDICE_EXAMPLE_SIZE"  # "small" (the tests) plays a handful of short games


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Play the matches, print the simulated and exact win chances, and return them."""
    small = os.environ.get(SIZE_ENV) == "small"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="two-dice-pig", help="a turn-based pigdice variant with roll and hold")
    parser.add_argument("--goal", type=int, default=15 if small else 25, help="points to win (big: 50)")
    parser.add_argument("--games", type=int, default=4 if small else 20, help="games per player (big: 200)")
    parser.add_argument("--simulations", type=int, default=8 if small else 50, help="MCTS simulations a move")
    parser.add_argument("--hold", type=int, default=10, help="the holding robot's threshold")
    parser.add_argument("--seed", type=int, default=0, help="seed of the numpy Generator behind every draw")
    args = parser.parse_args(argv)

    import pyspiel
    from open_spiel.python.algorithms import mcts

    import pigdice
    import pigdice.envs.openspiel  # registers python_pigdice
    from pigdice.rules import find_variant
    from pigdice.study.agent_tables import agent_table

    rng = np.random.default_rng(args.seed)
    variant = find_variant(args.variant, goal=args.goal)
    game = pyspiel.load_game("python_pigdice", {"variant": args.variant, "goal": args.goal})
    perfect = agent_table("optimal", variant).table  # 1 rolls, 0 holds, at [my score, other score, turn total]
    holding = agent_table(f"hold:{args.hold}", variant).table
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(_seed(rng)))
    bot = mcts.MCTSBot(
        game, uct_c=2.0, max_simulations=args.simulations, evaluator=evaluator,
        random_state=np.random.RandomState(_seed(rng)),
    )  # fmt: skip

    def mcts_move(state: Any) -> int:
        return int(bot.step(state))

    def table_move(table: np.ndarray) -> Any:
        return lambda state: _table_action(table, state)

    mcts_wins = _match(game, mcts_move, table_move(perfect), args.games, rng)
    hold_wins = _match(game, table_move(holding), table_move(perfect), args.games, rng)
    exact_perfect = pigdice.evaluate("optimal", variant=variant).average
    exact_hold = pigdice.evaluate(f"hold:{args.hold}", variant=variant).average

    title = f"{variant.title} to {args.goal}, {args.games} games each against the perfect player"
    print(title)
    print(f"  MCTS ({args.simulations} simulations a move): simulated {_interval(mcts_wins, args.games)}")
    print(f"  hold at {args.hold}: simulated {_interval(hold_wins, args.games)}; exact {exact_hold:.4f}")
    print(f"  the perfect player in the same seats: exact {exact_perfect:.4f}")
    return {"mcts": mcts_wins / args.games, "hold": hold_wins / args.games, "hold_exact": exact_hold}


def _seed(rng: np.random.Generator) -> int:
    """Return a seed for a library that wants its own random state, drawn from the one Generator."""
    return int(rng.integers(2**31))


def _table_action(table: np.ndarray, state: Any) -> int:
    """Return the action of an action table at the OpenSpiel state (0 rolls, 1 holds in roll/hold games)."""
    position = state.position
    mine = position.scores[position.current]
    other = max(s for seat, s in enumerate(position.scores) if seat != position.current)
    goal = table.shape[0]
    rolls = mine + position.turn_total < goal and table[mine, other, position.turn_total] == 1
    legal = state.legal_actions()
    wanted = 0 if rolls else 1
    return wanted if wanted in legal else legal[0]


def _match(game: Any, agent: Any, perfect: Any, games: int, rng: np.random.Generator) -> float:
    """Return the agent's wins (a tie's share counted) in ``games`` games, moving first in half of them."""
    wins = 0.0
    for number in range(games):
        seat = number % 2
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=np.array(chances) / sum(chances))))
            elif state.current_player() == seat:
                state.apply_action(agent(state))
            else:
                state.apply_action(perfect(state))
        share = state.returns()[seat]
        wins += 1.0 if share > 0 else (0.5 if share == 0 else 0.0)
    return wins


def _interval(wins: float, games: int) -> str:
    """Return a win rate with its 95% interval (Wilson's, fine for a handful of games)."""
    p, z = wins / games, 1.96
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return f"{p:.3f} (95%: {max(0.0, centre - half):.3f} to {min(1.0, centre + half):.3f})"


if __name__ == "__main__":
    main()
