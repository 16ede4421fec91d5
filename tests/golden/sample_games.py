"""Render the seeded robot games of tests/data/playthroughs as a Markdown page (docs/play/sample-games.md).

Run from the project folder: python tests/golden/sample_games.py [--out docs/play/sample-games.md]
The page is generated: change the playthroughs (tests/golden/make.py --write --only playthroughs), then
run this again. A summary table, then the first turns of each game told in a player's words.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import golden
from pigdice.players.defaults import describe_robot, robot_name
from pigdice.rules import all_variants

OUT = Path("docs/play/sample-games.md")
FIRST_TURNS = 4  # the turns each game's account tells
VARIANTS = {variant.name: variant for variant in all_variants()}  # in the registry's order: the page's order


def read_games() -> list[dict[str, Any]]:
    """Return the stored playthroughs in the registry's order of their games."""
    folder = golden.DATA / "playthroughs"
    return [json.loads((folder / f"{name}.json").read_text()) for name in VARIANTS]


def joined(words: list[str]) -> str:
    """Return 'a', 'a and b' or 'a, b and c'."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def names_of(game: dict[str, Any]) -> list[str]:
    """Return the robots' names at the table, as the app names them."""
    return [robot_name(seat) for seat in range(len(game["robots"]))]


def turns(game: dict[str, Any]) -> list[tuple[int, list[tuple[str, dict[str, Any]]]]]:
    """Return the game's turns: whose turn (-1: everyone's, in Swine Herd) and its (move's action, event) pairs."""
    first = -1 if VARIANTS[game["variant"]].is_simultaneous else game["moves"][0]["seat"]
    found: list[tuple[int, list[tuple[str, dict[str, Any]]]]] = [(first, [])]
    for move in game["moves"]:
        if not move["events"] or move["events"][0]["type"] == "TurnStarted":  # a hold with nothing to bank
            found[-1][1].append((move["action"], {"type": "Passed", "player": move["seat"]}))
        for event in move["events"]:
            if event["type"] == "TurnStarted":
                found.append((event["player"], []))
            else:
                found[-1][1].append((move["action"], event))
    return found


def rolls_words(rolls: list[dict[str, Any]], chooses_dice: bool) -> str:
    """Return a run of throws: 'rolled 5, 4-2 (turn total 11)', with the dice thrown where the player chose them."""

    def throw(roll: dict[str, Any]) -> str:
        kind = roll["effect"]["kind"]
        special = {
            "add": "",
            "bust": "",
            "reset-score": "",
            "bank": "",
            "subtract": f" (minus {roll['effect']['amount']})",
        }
        return roll["text"] + special.get(kind, f" ({roll['effect']['text']})")

    counts = {roll["dice"] for roll in rolls}
    if chooses_dice and len(counts) == 1:
        dice = rolls[0]["dice"]
        text = f"rolled {dice} {'die' if dice == 1 else 'dice'}: {', '.join(throw(roll) for roll in rolls)}"
    elif chooses_dice:
        text = "rolled " + ", ".join(f"{throw(r)} ({r['dice']} {'die' if r['dice'] == 1 else 'dice'})" for r in rolls)
    else:
        text = "rolled " + ", ".join(throw(roll) for roll in rolls)
    last = rolls[-1]
    if last["effect"]["kind"] not in ("bust", "reset-score", "bank"):
        text += f" (turn total {last['turn_total']})"
    return text


def turn_words(turn: list[tuple[str, dict[str, Any]]], names: list[str], player: int, chooses_dice: bool) -> str:
    """Return what happened in one turn, clause by clause; the turn's own player is the clauses' subject."""

    def who(seat: int) -> str:
        return "" if seat == player else f"{names[seat]} "

    clauses: list[str] = []
    rolls: list[dict[str, Any]] = []
    busted: dict[int, list[str]] = {}  # what was lost -> who lost it (Swine Herd: everyone standing at once)
    for action, event in turn:
        kind = event["type"]
        if kind not in ("Rolled", "StayedStanding") and rolls:  # standing up again says nothing a roll does not
            clauses.append(rolls_words(rolls, chooses_dice))
            rolls = []
        if kind != "Busted" and busted:
            clauses += [lost_words(lost, seats, player) for lost, seats in busted.items()]
            busted = {}
        if kind == "Rolled":
            rolls.append(event)
        elif kind == "Busted":
            busted.setdefault(event["lost"], []).append(names[event["player"]] if event["player"] != player else "")
        elif kind == "ScoreReset":
            clauses.append(f"{who(event['player'])}lost the whole score of {event['lost_score']}")
        elif kind == "Banked":
            verb = {"hold": "held", "roll": "banked"}.get(action, "banked")
            if player < 0:  # Swine Herd: a hold is sitting down
                verb = "sat down with" if action == "hold" else "banked"
            clauses.append(f"{who(event['player'])}{verb} {event['points']}: score {event['score']}")
        elif kind == "FinalRoundStarted":
            last = joined([names[seat] for seat in event["players"]]) if event["players"] else "nobody"
            clauses.append(f"{who(event['by'])}reached the goal: a last chance for {last}")
        elif kind == "GameOver":
            winners = [names[seat] for seat in event["winners"]]
            clauses.append(f"{joined(winners)} {'wins' if len(winners) == 1 else 'share the victory'}")
        elif kind == "Passed":
            clauses.append(f"{who(event['player'])}held without rolling")
        elif kind != "StayedStanding":
            raise ValueError(f"a robot game has no {kind} event")
    if rolls:
        clauses.append(rolls_words(rolls, chooses_dice))
    clauses += [lost_words(lost, seats, player) for lost, seats in busted.items()]
    return "; ".join(clauses)


def lost_words(lost: int, seats: list[str], player: int) -> str:
    """Return who lost a turn total ('' is the turn's own player)."""
    subject = "" if seats == [""] else f"{joined(seats)} "
    if lost == 0:
        return f"{subject}scored nothing"
    each = " each" if len(seats) > 1 else ""
    return f"{subject}lost the turn total of {lost}{each}"


def turn_lines(game: dict[str, Any]) -> list[str]:
    """Return the first turns of a game as a numbered list, with the scores after each."""
    names = names_of(game)
    variant = VARIANTS[game["variant"]]
    scores = [0] * len(names)
    lines = []
    for number, (player, turn) in enumerate(turns(game)[:FIRST_TURNS], start=1):
        for _, event in turn:
            if event["type"] == "Banked":
                scores[event["player"]] = event["score"]
            elif event["type"] == "ScoreReset":
                scores[event["player"]] = 0
        mover = "Everyone" if player < 0 else names[player]
        words = turn_words(turn, names, player, variant.chooses_dice)
        standing = ", ".join(f"{name} {score}" for name, score in zip(names, scores, strict=True))
        lines.append(f"{number}. **{mover}** {words}. *Scores: {standing}.*")
    return lines


def summary_row(game: dict[str, Any]) -> list[str]:
    """Return a game's row of the summary table."""
    names = names_of(game)
    rolls = sum(event["type"] == "Rolled" for move in game["moves"] for event in move["events"])
    winners = [names[seat] for seat in game["winners"]]
    return [
        f"{VARIANTS[game['variant']].title}, to {game['goal']}",
        str(len(turns(game))),
        str(rolls),
        ", ".join(str(score) for score in game["scores"]),
        joined(winners),
        "; ".join(f"{name} {describe_robot(spec)}" for name, spec in zip(names, game["robots"], strict=True)),
    ]


def render(games: list[dict[str, Any]]) -> str:
    """Return the sample games page."""
    lines = [
        "# Sample games",
        "",
        "One game of robots for every game pigdice plays, each to its usual goal: who played, how long it",
        "took and who won, then the first turns as they happened. These are the games pigdice's tests play",
        "again after every change, move for move; this page is generated from them.",
        "",
        "| Game | Turns | Rolls | Final scores | Winner | Robots |",
        "|---|--:|--:|---|---|---|",
    ]
    lines += ["| " + " | ".join(summary_row(game)) + " |" for game in games]
    for game in games:
        variant = VARIANTS[game["variant"]]
        names = names_of(game)
        robots = "; ".join(f"{name} {describe_robot(spec)}" for name, spec in zip(names, game["robots"], strict=True))
        lines += ["", f"## {variant.title}", "", f"To {game['goal']}. {robots}.", ""]
        if variant.is_simultaneous:
            lines += ["Everyone rolls together; a player who sits down banks the turn total.", ""]
        lines += turn_lines(game)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the sample games page."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the page")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(read_games()))
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
