"""Designed games: a rule set becomes a Variant with exact tables; rule files round-trip; bad files are clear errors."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from pigdice.errors import BadParameterError, UnknownVariantError
from pigdice.rules import find_variant
from pigdice.rules.designed import (
    FIELD_NAMES,
    MAX_RULE_FILE_BYTES,
    RuleFile,
    RuleSet,
    parse_rule_file,
    read_rule_file,
    rule_set,
)
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Endgame, TieRule

# the named games the rule space holds exactly: the same merged outcome table, the same ending
NAMED = {
    "pig": RuleSet(dice=1),
    "two-dice-pig": RuleSet(double_bad="reset"),
    "big-pig": RuleSet(double_bad="add", bonus=25, doubles="twice"),
    "big-pig-knizia": RuleSet(double_bad="set", bonus=25, doubles="twice"),
    "big-pig-reset": RuleSet(double_bad="reset", doubles="twice"),
    "big-pig-score-25": RuleSet(double_bad="score", bonus=25, doubles="twice"),
    "big-pig-sevens": RuleSet(single_bad="harmless", double_bad="add", bonus=25, doubles="twice", bust_sum=7),
    "freys-pig": RuleSet(double_bad="bank", bonus=25, doubles="twice", endgame="equal-turns", ties="first-to-reach"),
    "piggy": RuleSet(single_bad="harmless", doubles="bust"),
    "piggy-sevens": RuleSet(single_bad="harmless", bust_sum=7),
    "piggy-six": RuleSet(bad_face=6, double_bad="reset", endgame="equal-turns"),
}


def probabilities(rules: RuleSet) -> dict[EffectKind, Fraction]:
    out: dict[EffectKind, Fraction] = {}
    for effect, p in rules.to_variant().rolls[0].distribution():
        out[effect.kind] = out.get(effect.kind, Fraction(0)) + p
    return out


@pytest.mark.parametrize("name", list(NAMED))
def test_a_rule_set_plays_exactly_as_the_named_game(name: str) -> None:
    named, designed = find_variant(name), NAMED[name].to_variant()
    assert designed.rolls[0].distribution() == named.rolls[0].distribution()
    assert designed.fingerprint() == named.fingerprint()
    assert (designed.endgame, designed.ties, designed.goal) == (named.endgame, named.ties, named.goal)


def test_exact_outcome_probabilities() -> None:
    # Pig: a 1 in 6 busts; Two-Dice Pig: 1-1 (1/36) resets, one 1 (10/36) busts, 25/36 add
    assert probabilities(NAMED["pig"]) == {EffectKind.BUST: Fraction(1, 6), EffectKind.ADD: Fraction(5, 6)}
    assert probabilities(NAMED["two-dice-pig"]) == {
        EffectKind.RESET_SCORE: Fraction(1, 36),
        EffectKind.BUST: Fraction(10, 36),
        EffectKind.ADD: Fraction(25, 36),
    }
    # three four-sided dice, sevens (the commonest total 3 * 5 // 2 = 7: 12 of 64 throws) and no bad face
    sevens = RuleSet(dice=3, sides=4, single_bad="harmless", bust_sum=7)
    assert probabilities(sevens)[EffectKind.BUST] == Fraction(12, 64)
    assert sum(row.probability for row in sevens.to_variant().outcomes()) == 1


def test_the_risk_of_a_roll() -> None:
    assert NAMED["pig"].risk() == Fraction(1, 6)
    assert NAMED["two-dice-pig"].risk() == Fraction(11, 36)
    assert NAMED["big-pig"].risk() == Fraction(10, 36)  # 1-1 adds 25
    assert NAMED["big-pig-score-25"].risk() == Fraction(11, 36)  # 1-1 scores 25 and loses the turn total
    assert RuleSet(single_bad="harmless", double_bad="score", bonus=25).risk() == Fraction(1, 36)


def test_designed_pig_has_the_published_solver_value() -> None:
    from pigdice.solve import solve_uncached

    # Neller & Presser 2004: the first player of 2-player Pig to 100 wins 0.5306 under optimal play
    value = float(solve_uncached(NAMED["pig"].to_variant()).values[0, 0])
    assert value == pytest.approx(0.5306, abs=5e-5)
    two = solve_uncached(NAMED["two-dice-pig"].to_variant().with_goal(50)).values[0, 0]
    assert two == pytest.approx(solve_uncached(find_variant("two-dice-pig", goal=50)).values[0, 0], abs=1e-12)


def test_rule_files_round_trip_and_play_by_name(tmp_path: Path) -> None:
    rules = NAMED["freys-pig"]
    path = tmp_path / "frey.json"
    RuleFile("Frey again", rules, (("fpa", -0.0378),)).write(path)
    back = read_rule_file(path)
    assert back.rules == rules and back.title == "Frey again" and dict(back.figures) == {"fpa": -0.0378}
    with pytest.raises(UnknownVariantError, match="only where you name it yourself"):
        find_variant(f"designed:{path}")  # the web and game records never open a file by a name they were sent
    variant = find_variant(f"designed:{path}", files=True)
    assert variant.title == "Frey again"
    assert variant.fingerprint() == find_variant("freys-pig").fingerprint()
    assert (variant.endgame, variant.ties) == (Endgame.EQUAL_TURNS, TieRule.FIRST_TO_REACH)
    assert find_variant(f"designed:{path}", goal=40, endgame="first-to-goal", files=True).goal == 40
    with pytest.raises(BadParameterError, match="no parameters"):
        find_variant(f"designed:{path}", files=True, max_dice=3)


def test_rules_in_words_speak_a_players_language() -> None:
    text = " ".join(NAMED["big-pig-sevens"].words())
    assert "25" in text and "total of 7" in text and "twice" in text
    for name in NAMED.values():
        words = " ".join(name.words())
        assert not any(field in words for field in FIELD_NAMES if "_" in field), words


def test_identity_is_stable_and_canonical() -> None:
    assert RuleSet(dice=1).ident() == RuleSet(dice=1).ident()
    assert RuleSet(double_bad="bust").canonical() == RuleSet()
    assert RuleSet(endgame="first-to-goal", ties="first-to-reach").canonical().ties == "shared"
    assert RuleSet(double_bad="score").canonical() == RuleSet()  # scoring exactly 0 is losing the turn total


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


GOOD = {"format": "pigdice-rules", "version": 1, "title": "t", "rules": {"dice": 2}}


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"rules": {"goal": 10**100}}, ["goal", "1 to 1000"]),
        ({"rules": {"dice": "2"}}, ["dice", "whole number"]),
        ({"rules": {"dice": True}}, ["dice"]),
        ({"rules": {"dice": 2.0}}, ["dice"]),
        ({"rules": {"sides": 10**6}}, ["sides", "2 to 12"]),
        ({"rules": {"wild": 1}}, ["unknown rule", "'wild'"]),
        ({"rules": {"single_bad": "x" * 10_000}}, ["single_bad", "one of"]),
        ({"rules": {"bust_sum": 13}}, ["bust_sum", "2 to 12"]),
        ({"rules": {"bonus": 25}}, ["bonus"]),
        ({"rules": {"double_bad": "add"}}, ["bonus of 0 changes nothing"]),
        ({"rules": {"single_bad": "harmless"}}, ["jeopardy"]),
        ({"rules": {"single_bad": "harmless", "double_bad": "bank", "bonus": 5}}, ["jeopardy"]),
        ({"rules": {"dice": 1, "doubles": "twice"}}, ["one die"]),
        ({"rules": {"bad_face": 7}}, ["bad_face"]),
        ({"rules": [1, 2]}, ["rules must be an object"]),
        ({"extra": 1}, ["unknown key"]),
        ({"version": 2}, ["version"]),
        ({"format": "nope"}, ["not a rule file"]),
        ({"title": "x" * 1000}, ["title"]),
        ({"figures": {"fpa": "high"}}, ["figures"]),
    ],
)
def test_bad_rule_files_are_clear_errors(tmp_path: Path, change: dict[str, Any], words: list[str]) -> None:
    data = {**GOOD, **change}
    with pytest.raises(BadParameterError) as caught:
        read_rule_file(write(tmp_path, data))
    message = str(caught.value)
    assert "rules.json" in message
    for word in words:
        assert word in message, message
    assert len(message) < 400


def test_unreadable_rule_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(BadParameterError, match="not valid JSON"):
        read_rule_file(write(tmp_path, "{not json"))
    with pytest.raises(BadParameterError, match="not valid JSON"):
        read_rule_file(write(tmp_path, "[" * 100_00 + "]" * 100_00))
    with pytest.raises(BadParameterError, match="bytes; at most"):
        read_rule_file(write(tmp_path, " " * (MAX_RULE_FILE_BYTES + 1)))
    with pytest.raises(BadParameterError, match="cannot read"):
        read_rule_file(tmp_path / "missing.json")
    with pytest.raises(BadParameterError, match="needs the path"):
        find_variant("designed:", files=True)
    with pytest.raises(BadParameterError, match="a JSON object"):
        parse_rule_file([GOOD])
    assert rule_set({}) == RuleSet()
