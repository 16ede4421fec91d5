"""The terminal game speaks to a person (issue 12, item 5): grammar with "You", key hints that match
the decision and list only legal keys, a confirmation before holding with nothing to bank, and the
perfect player's hint in words.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import re

import numpy as np
import pytest
from rich.console import Console

from pigdice.engine import events as ev
from pigdice.engine.game import Action, GameState, Hold, Roll, legal_actions, new_game
from pigdice.errors import BadParameterError
from pigdice.players.fixed import HoldAt
from pigdice.players.specs import parse_players
from pigdice.rules import Decision, Variant, find_variant, variant_names
from pigdice.terminal.game import TerminalGame, show_hint

CONFIRM = "Hold with nothing to bank?"
# a verb in the third person after "You" (You holds, You rolls, You wins, You stays, You reaches...)
THIRD_PERSON = re.compile(r"\bYou (\w+(?<!s)s|has|is|was)\b")
# "You" inside a sentence, where it should be "you" (a list of who stands, the last chance, shared wins)
CAPITAL_INSIDE = re.compile(r"(chance for|standing:|, | and) [^.\n]*\bYou\b")


def scripted(
    variant: Variant, players: str, seed: int, keys: list[str], limit: int = 500
) -> tuple[TerminalGame, str, list[str]]:
    """Play a terminal game with keys read in a cycle (up to ``limit`` reads); return it, its text and the prompts."""
    cycle = itertools.cycle(keys)
    prompts: list[str] = []

    def read(prompt: object) -> str:
        prompts.append(str(prompt))
        if not keys or len(prompts) > limit:
            raise EOFError
        return next(cycle)

    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None)
    game = TerminalGame(variant, parse_players(players, variant), seed, console=console, read=read, pause=0)
    assert game.run() == 0
    return game, out.getvalue(), prompts


def quiet(variant: Variant, players: str = "", names: list[str] | None = None) -> TerminalGame:
    """Return a terminal game printing into a string, for calling its parts directly."""
    players = players or ("you,dice:4" if variant.decision is Decision.DICE_PER_TURN else "you,hold:20")
    console = Console(file=io.StringIO(), width=200, color_system=None)
    return TerminalGame(variant, parse_players(players, variant), 1, console=console, read=_no_reads, names=names)


def _no_reads(prompt: object) -> str:
    raise AssertionError("nobody should be asked")


def printed(game: TerminalGame) -> str:
    return game.console.file.getvalue()  # type: ignore[attr-defined]


# -- holding with nothing to bank -----------------------------------------------------------------
def test_holding_at_turn_total_0_asks_first() -> None:
    _, text, prompts = scripted(find_variant("pig"), "you,hold:20", 1, ["h", "n", "r"], limit=3)
    assert CONFIRM in prompts[1] and "[y]es / [n]o" in prompts[1]
    assert "Not held: still your move." in text and "with nothing to bank" not in text.replace(CONFIRM, "")
    assert "You roll" in text  # the 'r' after 'n' was the move


def test_a_confirmed_hold_at_0_passes_the_turn() -> None:
    game, text, prompts = scripted(find_variant("pig"), "you,hold:20", 1, ["h", "y"], limit=2)
    assert game.actions[0] == Hold() and CONFIRM in prompts[1]
    assert "You hold with nothing to bank" in text


def test_quit_at_the_confirmation_quits() -> None:
    game, text, _ = scripted(find_variant("pig"), "you,hold:20", 1, ["h", "q"], limit=2)
    assert game.actions == [] and "Game abandoned." in text


def test_holding_something_is_not_asked() -> None:
    game, text, prompts = scripted(find_variant("pig"), "you,hold:20", 2, ["r", "h"], limit=2)  # seed 2 rolls a 2
    assert game.actions[:2] == [Roll(), Hold()] and "You hold and bank 2" in text
    assert not any(CONFIRM in prompt for prompt in prompts)


def test_hog_rerolls_ask_too_but_swine_herd_never_sits_at_0() -> None:
    _, _, prompts = scripted(find_variant("hog-reroll"), "you,hold:20", 1, ["h", "n"], limit=2)
    assert CONFIRM in prompts[1]
    state = new_game(find_variant("swine-herd"), 2)
    assert Hold() not in legal_actions(state)  # nothing to bank: the rules have everyone stand


class HoldsAlways:
    """A robot that always holds, also with nothing to bank."""

    name = "holds-always"

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        return Hold()


def test_a_robot_is_never_asked() -> None:
    out = io.StringIO()
    game = TerminalGame(
        find_variant("pig", goal=20), [HoldsAlways(), HoldAt(10)], 4,
        console=Console(file=out, width=200, color_system=None), read=_no_reads, pause=0,
    )  # fmt: skip
    assert game.run() == 0 and game.state.is_terminal()
    assert Hold() in game.actions and CONFIRM not in out.getvalue()


# -- grammar with "You" ---------------------------------------------------------------------------
def every_game() -> list[tuple[Variant, str]]:
    """Return every variant under each ending it allows, with a robot that fits it."""
    games = []
    for name in variant_names():
        for endgame in ("first-to-goal", "final-round", "equal-turns"):
            try:
                variant = find_variant(name, goal=25, endgame=endgame)
            except BadParameterError:
                continue
            robot = "dice:4" if variant.decision is Decision.DICE_PER_TURN else "hold:8"
            games.append((variant, robot))
    return games


@pytest.mark.parametrize(("variant", "robot"), every_game(), ids=lambda x: getattr(x, "name", x))
def test_you_is_second_person_in_every_line(variant: Variant, robot: str) -> None:
    text = ""
    for seed, keys in enumerate((["r", "2", "h", "y", "s", "1"], ["4", "r", "r", "h", "y", "s", "3", "12"])):
        text += scripted(variant, f"you,{robot}", seed, keys, limit=300)[1]
        text += scripted(variant, f"{robot},you", seed + 7, keys, limit=300)[1]
    assert "You " in text
    assert not THIRD_PERSON.findall(text), THIRD_PERSON.findall(text)
    assert not CAPITAL_INSIDE.findall(text), CAPITAL_INSIDE.findall(text)


def test_every_event_line_speaks_to_you() -> None:
    pig = quiet(find_variant("pig"))
    for event in (
        ev.Banked(0, 10, 10),
        ev.Busted(0, 5),
        ev.ScoreReset(0, 30, 4),
        ev.FinalRoundStarted(0, (1,)),
        ev.FinalRoundStarted(1, (0,)),
        ev.Resigned(0),
        ev.TimedOut(0, 6),
    ):
        pig.show_event(event, Hold())
    herd = quiet(find_variant("swine-herd"))
    herd.show_event(ev.Banked(0, 7, 7), Hold())
    text = printed(pig) + printed(herd)
    for line in (
        "You hold and bank 10 → score 10",
        "You lose the turn total of 5",
        "You lose the whole score of 30!",
        "You reach the goal! Last chance for Wilbur.",
        "Wilbur reaches the goal! Last chance for you.",
        "You resign.",
        "You run out of time: the turn passes, 6 points lost",
        "You sit down and bank 7 → score 7",
    ):
        assert line in text, line
    assert not THIRD_PERSON.findall(text)


@pytest.mark.parametrize(
    ("winners", "message"),
    [((0,), "You win!"), ((1,), "Wilbur wins."), ((0, 1), "You and Wilbur share the victory.")],
)
def test_the_result_speaks_to_you(winners: tuple[int, ...], message: str) -> None:
    game = quiet(find_variant("pig"))
    game.show_result(ev.GameOver(winners, (30, 30)))
    assert f"  {message}" in printed(game)


def test_a_shared_victory_names_you_inside_the_sentence() -> None:
    game = quiet(find_variant("pig"), "hold:10,you,hold:12", names=["Wilbur", "You", "Babe"])
    game.show_result(ev.GameOver((0, 1, 2), (30, 30, 30)))
    assert "Wilbur, you and Babe share the victory." in printed(game)


# -- key hints --------------------------------------------------------------------------------------
def prompt_at(variant: Variant, **fields: object) -> tuple[TerminalGame, str]:
    """Return a game at its first state with ``fields`` changed, and its prompt as plain text."""
    game = quiet(variant)
    game.state = dataclasses.replace(game.state, **fields)
    return game, game.prompt().plain


@pytest.mark.parametrize(
    ("name", "fields", "shown", "hidden"),
    [
        ("pig", {}, ["[r]oll", "[h]old"], ["dice", "[s]"]),
        ("pig-dice", {"final_round": (0,)}, ["[r]oll (last roll)"], ["[h]old"]),
        ("hog", {}, ["[1-26] dice to throw (Enter ends the number)"], ["[h]old", "[r]", "roll"]),
        ("hog-reroll", {}, ["[1-10] dice to roll (Enter ends the number)", "[h]old"], ["[r]"]),
        ("piggy-six-3dice", {}, ["[1-3] dice to roll", "[h]old"], ["Enter", "[r]"]),
        ("swine-herd", {"turn_total": 5}, ["[s]it down (bank 5)", "[r] stay standing"], ["[h]old", "dice"]),
    ],
)
def test_the_prompt_names_the_keys_of_the_decision(name, fields, shown, hidden) -> None:
    variant = find_variant(name)
    if fields.get("final_round") is not None:
        variant = find_variant(name, endgame="final-round", final_turn="roll")
    _, text = prompt_at(variant, **fields)
    for words in [*shown, "[?] hint", "[i] rules", "[q]uit"]:
        assert words in text, (words, text)
    for words in hidden:
        assert words not in text, (words, text)


def listed_moves(game: TerminalGame, text: str) -> list[Action]:
    """Return the moves a prompt lists as keys (a range of dice counts gives each count)."""
    moves: list[Action] = []
    for key in re.findall(r"\[([^\]]+)\]", text):
        if key in ("?", "i", "q"):
            continue
        counts = re.fullmatch(r"(\d+)-(\d+)", key)
        if counts:
            moves += [Roll(n) for n in range(int(counts.group(1)), int(counts.group(2)) + 1)]
        else:
            moves.append(Hold() if key in ("h", "s") else Roll())
    return moves


@pytest.mark.parametrize("name", variant_names())
@pytest.mark.parametrize("turn_total", [0, 6])
def test_the_prompt_lists_only_legal_keys(name: str, turn_total: int) -> None:
    variant = find_variant(name)
    game, text = prompt_at(variant, turn_total=turn_total if variant.can_hold else 0)
    legal = game._legal_normalized()
    moves = listed_moves(game, text)
    assert moves and all(move in legal for move in moves), (text, legal)
    assert {type(move) for move in moves} == {type(move) for move in legal}  # and every kind of legal move


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("pig", "Keys: r roll · h hold · ? hint · i rules · q quit"),
        ("hog", "Keys: 1-26 dice to throw (Enter ends the number) · ? hint · i rules · q quit"),
        ("piggy-six-3dice", "Keys: 1-3 dice to roll · h hold · ? hint"),
        ("swine-herd", "Keys: s sit down and bank · r stay standing · ? hint"),
    ],
)
def test_the_header_names_the_keys_of_the_game(name: str, keys: str) -> None:
    game = quiet(find_variant(name))
    assert game.keys_line().plain.startswith(keys)
    game.keys = object()  # type: ignore[assignment]  # on a terminal: single keys
    assert game.keys_line().plain.startswith("Press a key, no Enter: ")


def test_what_may_be_typed_is_said_in_words() -> None:
    game = quiet(find_variant("hog"))
    assert game.allowed_text().startswith("a number of dice from 1 to 26, ? (hint)")
    assert "roll:" not in game.allowed_text()
    herd = quiet(find_variant("swine-herd"))
    assert herd.allowed_text().startswith("s (sit down), r (stay standing)")


# -- the hint --------------------------------------------------------------------------------------
def test_the_hog_hint_is_one_line_naming_the_best_number_of_dice() -> None:
    out = io.StringIO()
    show_hint(new_game(find_variant("hog", goal=30), 2), Console(file=out, color_system=None, width=200))
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert len(lines) == 1
    assert re.fullmatch(r"  hint: roll \d+ di(e|ce): \d+\.\d% \(your chance to win\)", lines[0]), lines
    assert "roll:" not in lines[0]


def test_a_roll_or_hold_hint_lists_both_in_words() -> None:
    out = io.StringIO()
    state = dataclasses.replace(new_game(find_variant("hog-reroll", goal=30), 2), turn_total=12)
    show_hint(state, Console(file=out, color_system=None, width=300))
    text = out.getvalue()
    assert re.search(r"your chance to win \d+\.\d% \(if you hold \d+\.\d%, roll \d+ di(e|ce) \d+\.\d%\)", text), text
    assert "roll:" not in text
