"""The registry's lookups and every input error: clear messages, PigdiceError subclasses."""

from __future__ import annotations

import pytest

from pigdice.engine.game import Hold, Roll, apply, new_game, parse_action
from pigdice.errors import (
    BadParameterError,
    BadStrategyError,
    IllegalActionError,
    PigdiceError,
    UnknownVariantError,
)
from pigdice.players.specs import parse_players, parse_strategy
from pigdice.rules import ScriptedDice, all_variants, canonical_name, find_variant, variant_names
from pigdice.rules.registry import REGISTRY

# --- lookups ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Two Dice_Pig", "two-dice-pig"),
        ("TWO-DICE-PIG", "two-dice-pig"),
        ("two dice pig", "two-dice-pig"),
        ("2dice", "two-dice-pig"),
        ("Big_Pig", "big-pig"),
        ("BigPig", "big-pig"),
        ("Frey's Pig", "freys-pig"),
        ("frey", "freys-pig"),
        ("Parker Brothers", "pig-dice"),
        ("PigMania", "pass-the-pigs"),
        ("Pass the Pigs", "pass-the-pigs"),
        ("swineherd", "swine-herd"),
        ("Piggy 6", "piggy-six"),
        ("  hog  ", "hog"),
        ("Hog (Dice Game Depot)", "hog-reroll"),
    ],
)
def test_lookup_ignores_case_spaces_dashes_underscores(text, name):
    assert canonical_name(text) == name
    assert find_variant(text).name == name


@pytest.mark.parametrize("name", variant_names())
def test_every_name_alias_and_title_finds_its_own_variant(name):
    variant = find_variant(name)
    assert variant.name == name
    for key in (*variant.aliases, variant.title):
        assert canonical_name(key) == name, key


def test_registry_lists():
    names = variant_names()
    assert len(names) == len(set(names)) == len(REGISTRY)
    assert [v.name for v in all_variants()] == names
    for name in (
        "pig",
        "two-dice-pig",
        "big-pig",
        "freys-pig",
        "pig-dice",
        "piggy",
        "piggy-sevens",
        "pass-the-pigs",
        "hog",
        "swine-herd",
        "piggy-six",
        "piggy-six-3dice",
    ):
        assert name in names


def test_unknown_variant_lists_the_known_ones():
    with pytest.raises(UnknownVariantError) as caught:
        find_variant("yahtzee")
    message = str(caught.value)
    assert "yahtzee" in message
    for name in variant_names():
        assert name in message
    assert isinstance(caught.value, PigdiceError)
    assert isinstance(caught.value, ValueError)


def test_variants_are_hashable_values():
    assert find_variant("big pig") == find_variant("big-pig")
    assert hash(find_variant("big pig")) == hash(find_variant("big-pig"))
    assert find_variant("pig", goal=50) != find_variant("pig")
    assert find_variant("pig", goal=50).goal == 50


@pytest.mark.parametrize(
    ("params", "same_as"),
    [
        ({"snake_eyes": "set-25"}, "big-pig-knizia"),
        ({"snake_eyes": "reset-score"}, "big-pig-reset"),
        ({"snake_eyes": "score-25"}, "big-pig-score-25"),
        ({"snake_eyes": "bank-25"}, "freys-pig"),
        ({"bad": "sevens"}, "big-pig-sevens"),
    ],
)
def test_big_pig_parameters_give_the_named_readings(params, same_as):
    """Where the seeds disagree, a parameter and a registered name give the same outcome table."""
    variant = find_variant("big-pig", **params)
    assert variant.outcomes() == find_variant(same_as).outcomes()
    assert dict(variant.parameters) == {"snake_eyes": "add-25", "bad": "ones", **params}


# --- bad parameters ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: find_variant("pig", goal=0), "goal must be between 1"),
        (lambda: find_variant("pig", goal=-5), "goal must be between 1"),
        (lambda: find_variant("pig", goal=10**9), "goal must be between 1"),
        (lambda: find_variant("pig", goal=2.5), "goal must be a whole number"),
        (lambda: find_variant("pig", goal=True), "goal must be a whole number"),
        (lambda: find_variant("pig", oinker="1/100"), "pig has no parameter 'oinker'; its parameters: none"),
        (lambda: find_variant("hog", dice=3), "hog has no parameter 'dice'; its parameters: max_dice"),
        (lambda: find_variant("hog", max_dice=0), "max_dice must be a whole number from 1"),
        (lambda: find_variant("hog", max_dice="6"), "max_dice must be a whole number"),
        (lambda: find_variant("hog", max_dice=10_000), "max_dice must be a whole number"),
        (lambda: find_variant("pass-the-pigs", oinker="lots"), "oinker must be a probability"),
        (lambda: find_variant("pass-the-pigs", oinker=1), r"oinker must be a probability in \[0, 1\)"),
        (lambda: find_variant("pass-the-pigs", oinker=-0.1), "oinker must be a probability"),
        (lambda: find_variant("big-pig", snake_eyes="explode"), "unknown snake_eyes 'explode'; allowed: add-25"),
        (lambda: find_variant("big-pig", bad="twos"), "unknown bad 'twos'; allowed: ones, sevens"),
        (lambda: find_variant("big-pig", title="Pig"), "no parameter 'title'; its parameters: snake_eyes, bad$"),
        (lambda: find_variant("big-pig", aliases=("pig",)), "no parameter 'aliases'"),
        (lambda: find_variant("pig", endgame="sudden-death"), "unknown endgame 'sudden-death'; allowed:"),
        (lambda: find_variant("pig", ties="coin-toss"), "unknown ties 'coin-toss'; allowed: shared"),
        (lambda: find_variant("pig", final_turn="dance"), "unknown final turn 'dance'; allowed: turn, roll"),
        (lambda: find_variant("hog").roll_spec(27), "cannot roll 27 dice; allowed: 1..26"),
        (lambda: find_variant("piggy-six-3dice").roll_spec(4), "cannot roll 4 dice; allowed: 1, 2, 3"),
        (lambda: find_variant("hog").roll_spec(), "say how many dice"),
    ],
)
def test_bad_parameters(call, message):
    with pytest.raises(BadParameterError, match=message):
        call()


@pytest.mark.parametrize(("name", "players"), [("pig", 1), ("pig", 11), ("piggy-six", 0), ("swine-herd", 101)])
def test_bad_player_counts(name, players):
    with pytest.raises(BadParameterError, match=f"played by .* players, not {players}"):
        new_game(find_variant(name), players)


def test_swine_herd_takes_a_large_group():
    assert new_game(find_variant("swine-herd"), 40).players == 40


# --- illegal actions ------------------------------------------------------------------------------


def hog_state():
    return new_game(find_variant("hog"), 2)


@pytest.mark.parametrize(
    ("state", "action", "message"),
    [
        (hog_state(), Roll(99), r"roll:99 is not allowed now; allowed: roll:1..roll:26"),
        (hog_state(), Roll(0), "roll:0 is not allowed"),
        (hog_state(), Hold(), "hold is not allowed now; allowed: roll:1..roll:26"),
        (hog_state(), Roll(), "hog: say how many dice to roll"),
        (new_game(find_variant("hog-reroll"), 2), Roll(11), "roll:11 is not allowed now; allowed: .*hold"),
        (new_game(find_variant("piggy-six-3dice"), 2), Roll(4), "allowed: roll:1, roll:2, roll:3, hold"),
        (new_game(find_variant("pig"), 2), Roll(2), "roll:2 is not allowed now; allowed: roll, hold"),
    ],
)
def test_illegal_actions(state, action, message):
    with pytest.raises(IllegalActionError, match=message):
        apply(state, action, ScriptedDice([]))


def test_action_after_game_over():
    state = new_game(find_variant("pig", goal=5), 2)
    state, _ = apply(state, Roll(), ScriptedDice([(6,)]))
    state, _ = apply(state, Hold(), ScriptedDice([]))
    assert state.is_terminal()
    for action in (Roll(), Hold()):
        with pytest.raises(IllegalActionError, match="the game is over"):
            apply(state, action, ScriptedDice([(3,)]))


def test_hold_is_illegal_on_a_final_roll():
    variant = find_variant("pig", goal=5, endgame="final-round", final_turn="roll")
    state = new_game(variant, 2)
    state, _ = apply(state, Roll(), ScriptedDice([(6,)]))
    state, _ = apply(state, Hold(), ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="hold is not allowed now; allowed: roll"):
        apply(state, Hold(), ScriptedDice([]))


@pytest.mark.parametrize("text", ["", "jump", "roll:", "roll:x", "-3", "²", "roll:²"])
def test_unreadable_actions(text):
    with pytest.raises(IllegalActionError, match="cannot read action"):
        parse_action(text)


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("r", Roll()),
        ("Roll", Roll()),
        ("stand", Roll()),
        ("h", Hold()),
        (" HOLD ", Hold()),
        ("sit", Hold()),
        ("roll:3", Roll(3)),
        ("3", Roll(3)),
    ],
)
def test_readable_actions(text, action):
    assert parse_action(text) == action


# --- strategy specs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "variant", "message"),
    [
        ("yolo", "pig", "unknown strategy 'yolo'; use one of: hold:N"),
        ("hold:", "pig", "unknown strategy"),
        ("hold", "pig", "unknown strategy"),
        ("hold:x", "pig", "expected a whole number from 1 to"),
        ("hold:-1", "pig", "expected a whole number from 1 to"),
        ("hold:0", "pig", "expected a whole number from 1 to"),
        ("hold:²", "pig", "expected a whole number"),
        ("rolls:0", "pig", "expected a whole number from 1 to"),
        ("hold:20+rolls:3", "pig", "give hold:N or rolls:N, not both"),
        ("hold:20+hold:10", "pig", "hold given twice"),
        ("dice:3", "pig", "pig does not let you choose the number of dice"),
        ("hold:20", "hog", "hog has one throw per turn; use dice:N"),
        ("rolls:2", "hog", "use dice:N"),
        ("dice:27", "hog", "hog allows 1 to 26 dice, not 27"),
        ("dice:0", "hog", "expected a whole number from 1 to"),
        ("hold:20+dice:4", "piggy-six-3dice", "allows 1 to 3 dice, not 4"),
        ("human:", "pig", "human:NAME needs a name"),
    ],
)
def test_bad_strategy_specs(spec, variant, message):
    with pytest.raises(BadStrategyError, match=message):
        parse_strategy(spec, find_variant(variant))


def test_bad_player_lists():
    pig = find_variant("pig")
    with pytest.raises(BadStrategyError, match="empty player"):
        parse_players("hold:20,,random", pig)
    with pytest.raises(BadParameterError, match="2 to 10 players, not 1"):
        parse_players("hold:20", pig)
    with pytest.raises(BadParameterError, match="not 11"):
        parse_players(["random"] * 11, pig)


@pytest.mark.parametrize("error", [UnknownVariantError, BadParameterError, IllegalActionError, BadStrategyError])
def test_errors_are_pigdice_and_value_errors(error):
    assert issubclass(error, PigdiceError)
    assert issubclass(error, ValueError)


def test_settings_added_later_keep_stored_games_as_played() -> None:
    from pigdice.rules.registry import params_to_store, stored_params

    # a game stored before Swine Herd's house rule was played without it; one stored now says which it has
    assert stored_params("swine-herd", {}) == {"at_goal": "roll-on"}
    assert stored_params("skunk", {"at_goal": "sit"}) == {"at_goal": "sit"}
    assert stored_params("pig", {}) == {} and stored_params("no such game", {"x": 1}) == {"x": 1}
    assert params_to_store(find_variant("swine-herd"), {}) == {"at_goal": "sit"}
    assert params_to_store(find_variant("hog", max_dice=5), {"max_dice": 5}) == {"max_dice": 5}
