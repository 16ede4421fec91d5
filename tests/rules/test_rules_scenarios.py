"""Scenario tables: scripted throws and actions in, scores / turn total / player / winners out.

Each row is one short game of one registered variant. Actions are 'r' (roll), 'h' (hold; in
Swine Herd 'r' stays standing and 'h' sits down) and 'roll:N' (throw N dice). Throws are the
faces of each die in die order; ``None`` is Pass the Pigs' oinker. ``winners`` is None while
the game goes on.
"""

from __future__ import annotations

import pytest

from pigdice.engine.events import Banked, Busted, FinalRoundStarted, GameOver, Rolled, ScoreReset
from pigdice.engine.game import Hold, Roll, legal_actions, new_game
from pigdice.rules import EffectKind, find_variant, variant_names

PIG = find_variant("pig")
TWO = find_variant("two-dice-pig")
BIG = find_variant("big-pig")
KNIZIA = find_variant("big-pig-knizia")
RESET = find_variant("big-pig-reset")
SEVENS = find_variant("big-pig-sevens")
DEPOT = find_variant("big-pig-score-25")
FREY = find_variant("freys-pig")
FREY20 = find_variant("freys-pig", goal=20)
PIGDICE = find_variant("pig-dice")
PIGDICE20 = find_variant("pig-dice", goal=20)
PIGDICE20_ROLL = find_variant("pig-dice", goal=20, final_turn="roll")
PIGDICE20_ROLL_SHARED = find_variant("pig-dice", goal=20, final_turn="roll", ties="shared")
PIGGY = find_variant("piggy")
PIGGY7 = find_variant("piggy-sevens")
PIGS = find_variant("pass-the-pigs")
PIGS_OINK = find_variant("pass-the-pigs", oinker="1/100")
HOG = find_variant("hog")
HOG10 = find_variant("hog", goal=10)
HOG_RE = find_variant("hog-reroll")
HERD = find_variant("swine-herd")
HERD10 = find_variant("swine-herd", goal=10)
HERD10_ON = find_variant("swine-herd", goal=10, at_goal="roll-on")  # without the house rule: roll on past the goal
SIX = find_variant("piggy-six")
SIX10 = find_variant("piggy-six", goal=10)
SIX3 = find_variant("piggy-six-3dice")
SIX3_10 = find_variant("piggy-six-3dice", goal=10)


def row(variant, players, actions, throws, *, id, scores, turn_total=0, current=None, winners=None, **extra):
    """Build one table row; ``extra`` holds further expected state fields (final_round, standing)."""
    expected = {"scores": scores, "turn_total": turn_total, "winners": winners, **extra}
    if current is not None:
        expected["current"] = current
    return pytest.param(variant, players, actions, throws, expected, id=id)


# fmt: off
SCENARIOS = [
    # --- Pig (seed 001's example, then the basics) ------------------------------------------
    # Seed 001: Ann rolls 5, 2, 1 and scores nothing; Bob rolls 4-5-3-5-5, holds, scores 22.
    row(PIG, 2, "r r r r r r r r h", [(5,), (2,), (1,), (4,), (5,), (3,), (5,), (5,)],
        id="pig-001-ann-bob", scores=(0, 22), current=0),
    # ... and halfway: Ann could hold with a turn total of 7.
    row(PIG, 2, "r r", [(5,), (2,)], id="pig-001-ann-turn-total-7", scores=(0, 0), turn_total=7, current=0),
    row(PIG, 2, "r r h r", [(6,), (6,), (1,)], id="pig-hold-then-opponent-busts", scores=(12, 0), current=0),
    row(PIG, 2, "h", [], id="pig-hold-at-zero-passes", scores=(0, 0), current=1),
    row(find_variant("pig", goal=10), 2, "r r h", [(6,), (4,)], id="pig-hold-reaching-goal-wins",
        scores=(10, 0), current=0, winners=(0,)),
    row(find_variant("pig", goal=10), 2, "r r r", [(6,), (4,), (3,)], id="pig-must-hold-to-win",
        scores=(0, 0), turn_total=13, current=0),
    # --- Two-Dice Pig (seeds 001, 002, 003) ------------------------------------------------
    row(TWO, 2, "r r h", [(3, 4), (5, 6)], id="two-dice-sum-added", scores=(18, 0), current=1),
    row(TWO, 2, "r r", [(3, 4), (1, 5)], id="two-dice-single-1-busts", scores=(0, 0), current=1),
    row(TWO, 2, "r r", [(3, 4), (6, 1)], id="two-dice-1-on-second-die-busts", scores=(0, 0), current=1),
    row(TWO, 2, "r h r h r r", [(3, 4), (2, 2), (5, 5), (1, 1)], id="two-dice-1-1-loses-score",
        scores=(0, 4), current=1),
    row(TWO, 2, "r r", [(2, 2), (6, 6)], id="two-dice-doubles-not-special", scores=(0, 0), turn_total=16,
        current=0),
    # --- Big Pig (seeds 000, 001, 003): 1-1 adds 25 and the turn goes on; doubles count double --
    row(BIG, 2, "r", [(2, 2)], id="big-pig-2-2-adds-8", scores=(0, 0), turn_total=8, current=0),
    row(BIG, 2, "r", [(6, 6)], id="big-pig-6-6-adds-24", scores=(0, 0), turn_total=24, current=0),
    row(BIG, 2, "r", [(3, 5)], id="big-pig-3-5-adds-8", scores=(0, 0), turn_total=8, current=0),
    row(BIG, 2, "r r", [(3, 4), (1, 1)], id="big-pig-1-1-adds-25", scores=(0, 0), turn_total=32, current=0),
    row(BIG, 2, "r r h", [(3, 4), (1, 1)], id="big-pig-1-1-then-hold", scores=(32, 0), current=1),
    row(BIG, 2, "r r", [(3, 4), (1, 3)], id="big-pig-single-1-busts", scores=(0, 0), current=1),
    # --- Knizia's Big Pig (seed 000): 1-1 sets the turn total to 25 ------------------------
    row(KNIZIA, 2, "r r r", [(3, 4), (5, 6), (1, 1)], id="knizia-1-1-sets-25-from-18", scores=(0, 0),
        turn_total=25, current=0),
    row(KNIZIA, 2, "r r r", [(6, 6), (5, 5), (1, 1)], id="knizia-1-1-sets-25-from-44", scores=(0, 0),
        turn_total=25, current=0),
    row(KNIZIA, 2, "r r", [(1, 1), (2, 2)], id="knizia-1-1-then-doubles", scores=(0, 0), turn_total=33,
        current=0),
    row(KNIZIA, 2, "r", [(1, 4)], id="knizia-single-1-busts", scores=(0, 0), current=1),
    # --- Big Pig, 1-1 resets the whole score (seed 000, PigtailAddendum p. 446) -------------
    row(RESET, 2, "r h r h r r", [(3, 4), (2, 3), (5, 5), (1, 1)], id="big-pig-reset-1-1", scores=(0, 5),
        current=1),
    row(RESET, 2, "r", [(2, 2)], id="big-pig-reset-doubles-double", scores=(0, 0), turn_total=8, current=0),
    # --- Big Pig with sevens (Knizia, seed 000): 1s harmless, a total of 7 busts ---------------
    row(SEVENS, 2, "r", [(1, 3)], id="sevens-1-harmless", scores=(0, 0), turn_total=4, current=0),
    row(SEVENS, 2, "r r", [(2, 2), (1, 6)], id="sevens-1-6-busts", scores=(0, 0), current=1),
    row(SEVENS, 2, "r r", [(2, 2), (3, 4)], id="sevens-3-4-busts", scores=(0, 0), current=1),
    row(SEVENS, 2, "r r h", [(1, 1), (2, 2)], id="sevens-1-1-adds-25", scores=(33, 0), current=1),
    # --- Big Pig as Dice Game Depot plays it (seed 002): 1-1 scores exactly 25, turn ends ------
    row(DEPOT, 2, "r r", [(3, 4), (1, 1)], id="depot-1-1-scores-25", scores=(25, 0), current=1),
    row(DEPOT, 2, "r h h r r", [(5, 6), (6, 6), (1, 1)], id="depot-1-1-adds-25-to-score",
        scores=(36, 0), current=1),
    row(DEPOT, 2, "r", [(4, 4)], id="depot-doubles-double", scores=(0, 0), turn_total=16, current=0),
    # --- Frey's Pig (seed 003): 1-1 banks turn total + 25, turn ends; equal turns ------------
    row(FREY, 2, "r r", [(3, 4), (1, 1)], id="frey-1-1-banks-plus-25", scores=(32, 0), current=1),
    row(FREY, 2, "r", [(3, 3)], id="frey-doubles-double", scores=(0, 0), turn_total=12, current=0),
    row(FREY, 2, "r", [(1, 2)], id="frey-single-1-busts", scores=(0, 0), current=1),
    row(FREY20, 2, "r r h", [(5, 6), (4, 6)], id="frey-goal-leaves-second-a-turn", scores=(21, 0), current=1,
        final_round=(1,)),
    row(FREY20, 2, "r r h r r h", [(5, 6), (4, 6), (5, 6), (4, 6)], id="frey-tie-first-to-reach-wins",
        scores=(21, 21), winners=(0,)),
    row(FREY20, 2, "r r h r r h", [(5, 6), (4, 6), (5, 6), (5, 6)], id="frey-second-exceeds-and-wins",
        scores=(21, 22), winners=(1,)),
    row(FREY20, 2, "r r h r r", [(5, 6), (4, 6), (5, 6), (1, 5)], id="frey-second-busts",
        scores=(21, 0), winners=(0,)),
    row(FREY20, 2, "r h r r h", [(2, 3), (5, 6), (4, 6)], id="frey-second-seat-reaching-goal-ends",
        scores=(5, 21), winners=(1,)),
    row(FREY20, 2, "r r", [(5, 6), (1, 1)], id="frey-1-1-can-reach-goal", scores=(36, 0), current=1,
        final_round=(1,)),
    # --- Parker Brothers Pig Dice (seeds 000, 003): die 1 face 1 = Head, die 2 face 6 = Tail --
    row(PIGDICE, 2, "r r", [(3, 3), (1, 6)], id="pig-dice-h-t-doubles", scores=(0, 0), turn_total=12, current=0),
    row(PIGDICE, 2, "r", [(1, 4)], id="pig-dice-h-4-adds-8", scores=(0, 0), turn_total=8, current=0),
    row(PIGDICE, 2, "r", [(1, 1)], id="pig-dice-h-1-adds-2", scores=(0, 0), turn_total=2, current=0),
    row(PIGDICE, 2, "r r", [(5, 5), (3, 6)], id="pig-dice-t-subtracts", scores=(0, 0), turn_total=7,
        current=0),
    row(PIGDICE, 2, "r r", [(2, 2), (5, 6)], id="pig-dice-t-floor-0", scores=(0, 0), turn_total=0, current=0),
    row(PIGDICE, 2, "r r", [(5, 5), (3, 4)], id="pig-dice-3-4-busts", scores=(0, 0), current=1),
    row(PIGDICE, 2, "r r", [(5, 5), (6, 1)], id="pig-dice-6-1-busts", scores=(0, 0), current=1),
    row(PIGDICE, 2, "r r h", [(5, 5), (6, 6)], id="pig-dice-6-t-subtracts-6", scores=(4, 0), current=1),
    row(PIGDICE, 2, "r h", [(6, 5)], id="pig-dice-other-totals-add", scores=(11, 0), current=1),
    # final round, a full turn (seed 003)
    row(PIGDICE20, 2, "r r h", [(6, 5), (5, 4)], id="pig-dice-final-turn-starts", scores=(20, 0), current=1,
        final_round=(1,)),
    row(PIGDICE20, 2, "r r h r r r h", [(6, 5), (5, 4), (6, 5), (5, 4), (2, 2)],
        id="pig-dice-final-turn-overtakes", scores=(20, 24), winners=(1,)),
    row(PIGDICE20, 2, "r r h r r h", [(6, 5), (5, 4), (6, 5), (5, 4)], id="pig-dice-final-turn-tie-to-first",
        scores=(20, 20), winners=(0,)),
    row(PIGDICE20, 2, "r r h r r", [(6, 5), (5, 4), (6, 5), (2, 5)], id="pig-dice-final-turn-busts",
        scores=(20, 0), winners=(0,)),
    # final round, one more roll (seed 000), banked at once
    # (the second player reaches the goal; the first gets one more roll)
    row(PIGDICE20_ROLL, 2, "r h r r h r", [(6, 5), (6, 5), (5, 4), (1, 3)], id="pig-dice-final-roll-short",
        scores=(17, 20), winners=(1,)),
    row(PIGDICE20_ROLL, 2, "r h r r h r", [(6, 5), (6, 5), (5, 4), (1, 5)], id="pig-dice-final-roll-wins",
        scores=(21, 20), winners=(0,)),
    row(PIGDICE20_ROLL, 2, "r h r r h r", [(6, 5), (6, 5), (5, 4), (3, 4)], id="pig-dice-final-roll-7",
        scores=(11, 20), winners=(1,)),
    row(PIGDICE20_ROLL, 2, "r h r r h r", [(6, 5), (6, 5), (5, 4), (2, 6)], id="pig-dice-final-roll-tail-0",
        scores=(11, 20), winners=(1,)),
    row(PIGDICE20_ROLL, 2, "r h r r h r", [(6, 5), (6, 5), (5, 4), (4, 5)], id="pig-dice-final-roll-tie-first",
        scores=(20, 20), winners=(1,)),
    row(PIGDICE20_ROLL_SHARED, 2, "r h r r h r", [(6, 5), (6, 5), (5, 4), (4, 5)],
        id="pig-dice-final-roll-tie-shared", scores=(20, 20), winners=(0, 1)),
    # --- Piggy (seeds 000, 003): doubles bust ---------------------------------------------
    row(PIGGY, 2, "r r", [(3, 4), (2, 2)], id="piggy-doubles-bust", scores=(0, 0), current=1),
    row(PIGGY, 2, "r r", [(3, 4), (1, 1)], id="piggy-1-1-busts", scores=(0, 0), current=1),
    row(PIGGY, 2, "r r h", [(3, 4), (1, 6)], id="piggy-1s-harmless", scores=(14, 0), current=1),
    # --- Piggy Sevens (seed 003): a total of 7 busts ---------------------------------------
    row(PIGGY7, 2, "r r", [(6, 6), (3, 4)], id="piggy-sevens-7-busts", scores=(0, 0), current=1),
    row(PIGGY7, 2, "r r", [(6, 6), (1, 1)], id="piggy-sevens-doubles-add", scores=(0, 0), turn_total=14,
        current=0),
    # --- Pass the Pigs (seed 003): 0 right sider, 1 left sider, 2 razorback, 3 trotter,
    #     4 snouter, 5 leaning jowler ---------------------------------------------------------
    row(PIGS, 2, "r r", [(2, 3), (0, 1)], id="pigs-pig-out", scores=(0, 0), current=1),
    row(PIGS, 2, "r r", [(2, 3), (1, 0)], id="pigs-pig-out-reversed", scores=(0, 0), current=1),
    row(PIGS, 2, "r r", [(0, 0), (1, 1)], id="pigs-sider-pairs-score-1", scores=(0, 0), turn_total=2, current=0),
    row(PIGS, 2, "r", [(2, 2)], id="pigs-double-razorback-20", scores=(0, 0), turn_total=20, current=0),
    row(PIGS, 2, "r", [(3, 3)], id="pigs-double-trotter-20", scores=(0, 0), turn_total=20, current=0),
    row(PIGS, 2, "r", [(4, 4)], id="pigs-double-snouter-40", scores=(0, 0), turn_total=40, current=0),
    row(PIGS, 2, "r", [(5, 5)], id="pigs-double-leaning-jowler-60", scores=(0, 0), turn_total=60, current=0),
    row(PIGS, 2, "r r r h", [(2, 4), (0, 5), (3, 2)], id="pigs-mixed-pairs-add", scores=(40, 0), current=1),
    row(PIGS_OINK, 2, "r h h r r", [(5, 5), (2, 2), None], id="pigs-oinker-loses-score", scores=(0, 0),
        current=1),
    # --- Hog (seed 003): one throw per turn, any 1 scores nothing ---------------------------
    row(HOG, 2, "roll:3", [(2, 3, 4)], id="hog-sum-banked", scores=(9, 0), current=1),
    row(HOG, 2, "roll:3 roll:5", [(2, 1, 6), (6, 6, 6, 6, 5)], id="hog-any-1-scores-nothing", scores=(0, 29),
        current=0),
    row(HOG, 2, "roll:1 roll:26", [(1,), (6,) * 26], id="hog-1-and-26-dice", scores=(0, 156), winners=(1,)),
    row(HOG10, 2, "roll:2", [(5, 6)], id="hog-throw-reaching-goal-wins", scores=(11, 0), winners=(0,)),
    # --- Hog as Dice Game Depot plays it (seed 002): choose N dice on each roll -------------
    row(HOG_RE, 2, "roll:2 roll:3 h", [(3, 4), (2, 2, 2)], id="hog-reroll-banks", scores=(13, 0), current=1),
    row(HOG_RE, 2, "roll:2 roll:10", [(3, 4), (6, 6, 6, 6, 6, 6, 6, 6, 6, 1)], id="hog-reroll-1-busts",
        scores=(0, 0), current=1),
    row(HOG_RE, 2, "roll:2 roll:1", [(3, 4), (5,)], id="hog-reroll-turn-goes-on", scores=(0, 0), turn_total=12,
        current=0),
    # --- Swine Herd (seed 001): everyone stands; one shared die; sit to bank -----------------
    row(HERD, 3, "r r r", [(4,)], id="herd-shared-roll", scores=(0, 0, 0), turn_total=4, current=0,
        standing=(True, True, True)),
    row(HERD, 3, "r r r r r r h r h", [(4,), (5,), (1,)], id="herd-1-busts-those-standing", scores=(9, 0, 9),
        current=0, standing=(True, True, True)),
    row(HERD, 3, "r r r h r r", [(3,), (5,)], id="herd-seated-skip-decisions", scores=(3, 0, 0), turn_total=8,
        current=1, standing=(False, True, True)),
    row(HERD, 3, "r r r h h h", [(3,)], id="herd-turn-ends-when-all-seated", scores=(3, 3, 3), current=0,
        standing=(True, True, True)),
    row(HERD10_ON, 3, "r r r r r r h h r h", [(6,), (4,), (3,)], id="herd-best-score-wins", scores=(10, 10, 13),
        winners=(2,)),
    row(HERD10_ON, 3, "r r r r r r h h h", [(6,), (4,)], id="herd-tied-winners-share", scores=(10, 10, 10),
        winners=(0, 1, 2)),
    row(HERD10_ON, 3, "r r r r r r h h r", [(6,), (4,), (1,)], id="herd-tie-after-bust", scores=(10, 10, 0),
        winners=(0, 1)),
    # the house rule (the default): everyone standing reaches the goal together, so all sit and share it
    row(HERD10, 3, "r r r r r r", [(6,), (4,)], id="herd-house-rule-all-sit", scores=(10, 10, 10),
        winners=(0, 1, 2)),
    row(HERD10, 3, "r r r h h r", [(6,), (4,)], id="herd-house-rule-lone-roller-free", scores=(6, 6, 0),
        turn_total=10, current=2, standing=(False, False, True)),
    # --- Piggy Six (seed 004): a 6 busts, 6-6 resets the score, equal turns -----------------
    row(SIX, 2, "r r", [(3, 4), (6, 2)], id="piggy-six-6-busts", scores=(0, 0), current=1),
    row(SIX, 2, "r h r h r r", [(3, 4), (2, 3), (5, 5), (6, 6)], id="piggy-six-6-6-resets", scores=(0, 5),
        current=1),
    row(SIX, 2, "r r", [(1, 1), (5, 5)], id="piggy-six-1s-and-doubles-add", scores=(0, 0), turn_total=12,
        current=0),
    row(SIX10, 3, "r h r r h", [(5, 5), (5, 5), (1, 1)], id="piggy-six-goal-finishes-round",
        scores=(10, 12, 0), current=2, final_round=(2,)),
    row(SIX10, 3, "r h r r h r r", [(5, 5), (5, 5), (1, 1), (3, 3), (6, 6)], id="piggy-six-best-wins",
        scores=(10, 12, 0), winners=(1,)),
    row(SIX10, 3, "r h r h r h", [(5, 5), (5, 5), (4, 5)], id="piggy-six-ties-shared", scores=(10, 10, 9),
        winners=(0, 1)),
    row(SIX10, 3, "h r h r h", [(5, 5), (5, 5)], id="piggy-six-last-seat-reaching-goal-ends",
        scores=(0, 10, 10), winners=(1, 2)),
    # --- Piggy Six with three dice (seed 004) --------------------------------------------------
    row(SIX3, 2, "roll:1 roll:2 roll:3", [(5,), (2, 3), (2, 3, 4)], id="six3-choose-dice", scores=(0, 0),
        turn_total=19, current=0),
    row(SIX3, 2, "roll:1 roll:1", [(5,), (6,)], id="six3-one-die-6-busts", scores=(0, 0), current=1),
    row(SIX3, 2, "roll:3 roll:3", [(5, 5, 5), (6, 2, 3)], id="six3-single-6-busts", scores=(0, 0), current=1),
    row(SIX3, 2, "roll:3 h h roll:3", [(5, 5, 5), (6, 2, 6)], id="six3-two-6s-reset", scores=(0, 0), current=1),
    row(SIX3, 2, "roll:3 h h roll:3", [(5, 5, 5), (6, 6, 6)], id="six3-triple-6-is-double-6", scores=(0, 0),
        current=1),
    row(SIX3, 2, "roll:3 h h roll:2", [(5, 5, 5), (6, 6)], id="six3-two-dice-6-6-resets", scores=(0, 0),
        current=1),
    row(SIX3_10, 2, "roll:3 h roll:1 h", [(5, 5, 5), (2,)], id="six3-equal-turns", scores=(15, 2), winners=(0,)),
]
# fmt: on


@pytest.mark.parametrize(("variant", "players", "actions", "throws", "expected"), SCENARIOS)
def test_scenario(play, variant, players, actions, throws, expected):
    state, events = play(variant, players, actions, throws)
    assert state.scores == expected["scores"]
    assert state.turn_total == expected["turn_total"]
    assert state.winners == expected["winners"]
    assert state.is_terminal() == (expected["winners"] is not None)
    if "current" in expected:
        assert state.current == expected["current"]
    if "final_round" in expected:
        assert state.final_round == expected["final_round"]
    if "standing" in expected:
        assert state.standing == expected["standing"]
    game_over = [e for e in events if isinstance(e, GameOver)]
    if expected["winners"] is None:
        assert not game_over
    else:
        assert game_over == [GameOver(expected["winners"], expected["scores"])]


def test_every_registered_variant_has_a_scenario():
    covered = {param.values[0].name for param in SCENARIOS}
    assert covered == set(variant_names())


def test_ann_and_bob_events(play):
    """Seed 001's example, event by event."""
    _, events = play(PIG, 2, "r r r r r r r r h", [(5,), (2,), (1,), (4,), (5,), (3,), (5,), (5,)])
    ann = [e.turn_total for e in events if isinstance(e, Rolled) and e.player == 0]
    bob = [e.turn_total for e in events if isinstance(e, Rolled) and e.player == 1]
    assert ann == [5, 7, 0]
    assert bob == [4, 9, 12, 17, 22]
    assert Busted(0, 7) in events
    assert Banked(1, 22, 22) in events


def test_two_dice_pig_1_1_reports_lost_score(play):
    _, events = play(TWO, 2, "r h h r r", [(5, 6), (3, 4), (1, 1)])
    assert ScoreReset(0, 11, 7) in events


def test_oinker_event(play):
    _, events = play(PIGS_OINK, 2, "r h h r", [(5, 5), None])
    rolled = [e for e in events if isinstance(e, Rolled)]
    assert rolled[-1].faces is None
    assert rolled[-1].effect.kind is EffectKind.RESET_SCORE
    assert ScoreReset(0, 60, 0) in events


def test_oinker_cannot_be_scripted_when_impossible(play):
    """With the default oinker probability 0 (seed 003), a scripted oinker is an error."""
    with pytest.raises(ValueError, match="mishap"):
        play(PIGS, 2, "r", [None])


def test_final_round_started_event(play):
    _, events = play(PIGDICE20, 2, "r r h", [(6, 5), (5, 4)])
    assert FinalRoundStarted(0, (1,)) in events


def test_final_roll_allows_no_hold(play):
    state, _ = play(PIGDICE20_ROLL, 2, "r h r r h", [(6, 5), (6, 5), (5, 4)])
    assert state.is_final_roll()
    assert legal_actions(state) == [Roll()]


def test_hog_offers_only_dice_counts():
    assert legal_actions(new_game(HOG, 2)) == [Roll(n) for n in range(1, 27)]


@pytest.mark.parametrize(
    ("variant", "choices"),
    [(HOG_RE, range(1, 11)), (SIX3, range(1, 4))],
    ids=["hog-reroll", "piggy-six-3dice"],
)
def test_dice_per_roll_offers_dice_counts_and_hold(variant, choices):
    assert legal_actions(new_game(variant, 2)) == [*(Roll(n) for n in choices), Hold()]


def test_swine_herd_everyone_busted_is_reported(play):
    _, events = play(HERD, 3, "r r r r h r", [(4,), (1,)])
    assert [e.player for e in events if isinstance(e, Busted)] == [0, 2]
    assert Banked(1, 4, 4) in events
