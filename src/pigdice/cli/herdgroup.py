"""Swine Herd at tables no equilibrium covers (4 or more players, 3 at a goal not solved): ``solve`` and ``hint``
answer with the group approximation, labelled as such, with its measured exploitability
(``pigdice.solve.herd.herd_figures``)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from rich.table import Table

from pigdice.cli.output import emit_json, stdout_console
from pigdice.rules.variant import Variant
from pigdice.solve.positions import Position

if TYPE_CHECKING:
    from pigdice.solve.exact import ExactPolicy

WORDS = {"hold": "sit down", "roll": "stay standing"}


def is_approximate(variant: Variant, players: int, solving: bool = False) -> bool:
    """Return True if Swine Herd with ``players`` players is answered by the group approximation: no equilibrium
    of the whole table here (for a solve: 4 or more players, as 3 are solved), the 2-player equilibrium it reads is
    exact, and the house rule its figures were measured under holds."""
    from pigdice.solve.exact import HERD_GROUP, exactness

    if not variant.is_simultaneous or players < HERD_GROUP or not variant.sits_at_goal:
        return False
    if exactness(variant, 2) is not None:
        return False
    return players > HERD_GROUP if solving else exactness(variant, players) is not None


def _note(variant: Variant, players: int) -> str:
    """Return the approximation's label, naming the solve that makes a table of 3 exact where there is one."""
    from pigdice.players.optimal import approximation_note
    from pigdice.solve.exact import HERD_GROUP, herd_group_refusal

    note = approximation_note(variant, players) or ""
    if players == HERD_GROUP and herd_group_refusal(variant, players) is None:
        note += (
            f"; to make it exact, solve it once with `pigdice solve {variant.name} --players {players} "
            f"--goal {variant.goal}` (minutes)"
        )
    return note


def solve_answer(variant: Variant, pair: ExactPolicy, players: int, json_out: bool) -> None:
    """Print what ``pigdice solve`` says at a table the approximation plays (``pair``: the 2-player equilibrium it
    reads): how it plays, each seat's chance at the start (the seats are alike: an even share) and its measured
    exploitability."""
    from pigdice.solve.exact import start_action
    from pigdice.solve.herd.herd_figures import to_json

    figures = to_json(players)
    note = _note(variant, players)
    start = int(start_action(pair))  # Swine Herd's: a turn total
    summary = {
        "variant": variant.name,
        "goal": variant.goal,
        "endgame": str(variant.endgame),
        "ties": str(variant.ties),
        "players": players,
        "exact": False,
        "approximate": note,
        # every seat plays the same rule from equal scores: each has an even share at the start
        "win_probability_by_seat": [1.0 / players] * players,
        "win_probability_first_player": 1.0 / players,
        "start_action": start,  # the 2-player equilibrium's, against an opponent at 0
        "approximation": figures,
        "exploitability": max((row["worst"] for row in figures["by_goal"]), default=None),
        "exploitability_at_start": max((row["at_start"] for row in figures["by_goal"]), default=None),
    }
    if json_out:
        emit_json(summary)
        return
    table = Table(title=f"{variant.title}, goal {variant.goal}, {players} players: approximate", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("answer", f"approximate: {note}")
    for seat in range(players):
        table.add_row(f"player {seat + 1} wins", f"{1.0 / players:.6f} (the players are alike)")
    start_text = f"sits down at {start}" if start < variant.goal else "stays standing until everyone reaches the goal"
    table.add_row("at the start it", start_text)
    table.add_row("how it was measured", figures["how"])
    for row in figures["by_goal"]:
        table.add_row(
            f"goal {row['goal']}",
            f"most a player gains by playing otherwise: {row['at_start']:.3f} from the start, {row['worst']:.3f} "
            f"from the worst scores {tuple(row['worst_at'])}",
        )
    stdout_console().print(table)


def hint_answer(variant: Variant, pair: ExactPolicy, position: Position, json_out: bool) -> None:
    """Print the approximation's hint at ``position`` (you first, standing): its choice as the 2-player equilibrium
    ``pair`` makes it against the highest score, and your chance at the whole table as estimated, both labelled."""
    from pigdice.engine.game import new_game
    from pigdice.players.optimal import Optimal, herd_pair_position
    from pigdice.players.tablechance import table_chances, table_note
    from pigdice.solve.herd.herd_figures import to_json

    players = position.players
    view = herd_pair_position(position)
    values = pair.action_values(view)
    best = pair.best(view)
    strategy = pair.strategy(view)
    advisor = Optimal(variant)
    advisor.use_policy(pair)
    state = dataclasses.replace(
        new_game(variant, players),
        scores=position.scores,
        standing=position.standing or (True,) * players,
        turn_total=position.turn_total,
    )
    chances = table_chances(state, advisor)
    note = _note(variant, players)
    if json_out:
        emit_json(
            {
                "variant": variant.name,
                "goal": variant.goal,
                "endgame": str(variant.endgame),
                "players": players,
                "score": position.scores[0],
                "opponent": max(position.scores[1:]),
                "opponents": list(position.scores[1:]),
                "turn_total": position.turn_total,
                "seat": 1,
                "best": best,
                "values": values,  # against the opponent with the highest score, as the 2-player game
                "values_against": view.scores[1],
                "win_probability": None if chances is None else chances[0],
                "win_probability_by_player": None if chances is None else list(chances),
                "win_probability_note": table_note(variant, players),
                "play": strategy,
                "exact": False,
                "approximate": note,
                "approximation": to_json(players),
            }
        )
        return
    scores = position.scores
    title = f"{variant.title}: you {scores[0]}, opponents {', '.join(map(str, scores[1:]))}, turn total "
    table = Table(title=title + str(position.turn_total))
    table.add_column("choice")
    table.add_column(f"chance to beat the leader ({view.scores[1]}) alone", justify="right")
    for name, value in sorted(values.items(), key=lambda item: -item[1]):
        marker = "  ← best" if name == best else ""
        table.add_row(WORDS.get(name, name), f"{100 * value:.2f}%{marker}")
    console = stdout_console()
    console.print(table)
    if len(strategy) > 1:
        mixed = " and ".join(f"{WORDS[name]} {100 * p:.0f}% of the time" for name, p in strategy.items())
        console.print(
            f"Against the leader alone both are worth the same; the approximation chooses at random: {mixed}."
        )
    if chances is not None:
        estimate = table_note(variant, players)
        console.print(f"Your chance to be the winner of {players}: about {100 * chances[0]:.1f}% ({estimate}).")
    console.print(f"Approximate: {note}.")
