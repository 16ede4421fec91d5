"""The perfect player's hint as people read it: one line, options in words (never 'roll:6')."""

from __future__ import annotations

from pigdice.players.optimal import Hint


def test_a_dice_count_hint_names_the_best_count_alone() -> None:
    # Hog: one throw per turn, the option is how many dice
    values = {f"roll:{n}": 0.40 + n / 100 for n in range(1, 11)}
    values["roll:6"] = 0.53
    hint = Hint("roll:6", values, 0.53)
    assert hint.describe() == "roll 6 dice: 53.0% (your chance to win)"
    assert Hint("roll:1", {"roll:1": 0.25, "roll:2": 0.2}, 0.25).describe() == "roll 1 die: 25.0% (your chance to win)"


def test_a_roll_or_hold_hint_is_as_before() -> None:
    hint = Hint("roll", {"hold": 0.306, "roll": 0.362}, 0.362)
    assert hint.describe() == "roll — your chance to win 36.2% (if you hold 30.6%, roll 36.2%)"


def test_a_dice_per_roll_hint_names_hold_and_the_best_count_in_words() -> None:
    values = {"hold": 0.347, **{f"roll:{n}": 0.40 + n / 100 for n in range(1, 31)}}
    assert Hint("roll:30", values, 0.70).describe() == (
        "roll 30 dice — your chance to win 70.0% (if you hold 34.7%, roll 30 dice 70.0%)"
    )
    assert Hint("hold", values, 0.80).describe().startswith("hold — your chance to win 80.0% (if you hold 34.7%")
    assert "roll 30 dice 70.0%" in Hint("hold", values, 0.80).describe()  # the best count to roll


def test_a_swine_herd_hint_says_sit_down_and_stay_standing() -> None:
    hint = Hint("stand", {"sit": 0.432, "stand": 0.568}, 0.568, approximate="played with Pig's policy")
    assert hint.describe() == (
        "stay standing — your chance to win 56.8% (if you sit down 43.2%, stay standing 56.8%) "
        "[approximate: played with Pig's policy]"
    )


def test_no_hint_line_shows_option_names_of_scripts() -> None:
    for hint in (
        Hint("roll:3", {"roll:3": 0.5, "roll:4": 0.4}, 0.5),
        Hint("roll:2", {"hold": 0.1, "roll:1": 0.2, "roll:2": 0.3}, 0.3),
    ):
        assert "roll:" not in hint.describe()


def test_the_json_of_a_hint_keeps_the_option_names() -> None:
    # scripts read these names: 'roll:6', not words
    hint = Hint("roll:6", {"roll:5": 0.5, "roll:6": 0.53}, 0.53)
    assert hint.to_json() == {
        "best": "roll:6",
        "values": {"roll:5": 0.5, "roll:6": 0.53},
        "win_probability": 0.53,
        "approximate": None,
        "mix": None,
    }
