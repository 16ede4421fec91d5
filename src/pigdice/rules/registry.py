"""Every named variant, with aliases: ``find_variant("big-pig", goal=50)``."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pigdice.errors import BadParameterError, UnknownVariantError
from pigdice.rules import scoring
from pigdice.rules.designed import designed_variant, is_designed_name
from pigdice.rules.dice import head_die, rubber_pig, standard_die, tail_die
from pigdice.rules.effects import add, bank, reset_score, set_total
from pigdice.rules.outcomes import ByFaces, Mishap, RollSpec, SumUnlessBad
from pigdice.rules.parameters import parse_choice, parse_count, parse_probability, shown
from pigdice.rules.sources import DEPOT, OVERVIEW, PIGGY_SIX, PIGTAIL, POSTER, mention
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant, parse_enum

# the source documents by file id (pigdice.rules.sources cites them for players)
S000, S001, S002, S003, S004 = OVERVIEW.id, POSTER.id, DEPOT.id, PIGTAIL.id, PIGGY_SIX.id

# Hog's largest dice choice. Seed 003 (Hog, goal 100): "For d_max >= 26, the optimal policy
# remains the same". The chance that n dice score at all is (5/6)^n: 1.2e-8 at 100 dice, below the
# solver's 1e-12 tolerance from about 150, so more dice only cost time (the outcome tables grow
# as n^2: 100 dice build in 0.3 s and solve goal 100 in about 2 s; 200 took 1.2 s and 8 s).
MAX_HOG_DICE = 100
# Hog with rerolls (seed 002: "10 is a good number"): every roll chooses, so each die more costs
# every in-turn state; 30 dice solve goal 100 in about 3 s.
MAX_REROLL_DICE = 30
MAX_NAME = 64  # the longest variant name looked up (the longest title is 26 characters)
DOUBLE_ONES = ("reset-score", "bust")
BAD_FACES = ("ones", "sevens")


def normalize(name: str) -> str:
    """Return a lookup key: lower case without spaces, dashes, underscores or apostrophes."""
    return "".join(ch for ch in name.lower() if ch not in " -_'’")


def _d6(count: int, classify: Callable[[tuple[int, ...]], Any]) -> RollSpec:
    return RollSpec(tuple(standard_die() for _ in range(count)), ByFaces(classify))


def _pig() -> Variant:
    return Variant(
        name="pig",
        title="Pig",
        sources=(S000, S001, S002, S003, S004),
        summary="One die; a 1 loses the turn total.",
        rules=(
            "On your turn, roll one die as often as you like, adding each roll to your turn total.",
            "Roll a 1 and the turn ends with the turn total lost.",
            "Hold to bank the turn total into your score; the next player takes the die.",
            "First to bank the goal wins (100 unless you choose another).",
            f"{mention(S000, first=True)} suggests the fairer ending “{Endgame.EQUAL_TURNS.label}”: once someone "
            "reaches the goal, the round is finished so that everyone has had the same number of turns.",
        ),
        goal=100,
        decision=Decision.ROLL_HOLD,
        choices=(1,),
        rolls=(_d6(1, scoring.one_die_pig),),
        aliases=("one-die-pig", "jeopardy-pig", "scarne"),
    )


def _two_dice_pig(double_ones: str = "reset-score") -> Variant:
    double_ones = parse_choice("double_ones", double_ones, DOUBLE_ONES)
    classify = scoring.two_dice_pig if double_ones == "reset-score" else scoring.two_dice_any_one
    snake = (
        "Two 1s end the turn and wipe out your whole score."
        if double_ones == "reset-score"
        else f"Two 1s are just another 1: the turn total is lost (as {mention(S000)} reads it)."
    )
    return Variant(
        name="two-dice-pig",
        title="Two-Dice Pig",
        sources=(S001, S002, S003),
        summary="Two dice; a single 1 loses the turn total, 1-1 loses the whole score.",
        rules=(
            "Roll two dice; if neither shows a 1 their sum joins the turn total.",
            "A single 1 ends the turn with the turn total lost.",
            snake,
            "Hold to bank the turn total. First to the goal wins (100 unless you choose another).",
        ),
        goal=100,
        decision=Decision.ROLL_HOLD,
        choices=(2,),
        rolls=(_d6(2, classify),),
        parameters=(("double_ones", double_ones),),
        aliases=("2-dice-pig", "two-dice", "2dice"),
    )


BIG_PIG_SNAKE_EYES = {
    "add-25": (
        add(25),
        f"1-1 adds 25 to the turn total and the turn goes on (Frey's rule: {mention(S000, S001, S003)}).",
    ),
    "set-25": (
        set_total(25),
        f"1-1 sets the turn total to 25, whatever it was (Knizia's rule, from {mention(S000)}).",
    ),
    "reset-score": (reset_score(), f"1-1 resets your whole score to zero and ends the turn (from {mention(S000)})."),
    "score-25": (
        bank(25, keep_turn_total=False),
        f"1-1 ends the turn and scores exactly 25; the rest of the turn total is lost ({mention(S002)}).",
    ),
    "bank-25": (
        bank(25),
        f"1-1 banks the turn total plus 25 and ends the turn (Frey's Pig, as {mention(S003)} read it).",
    ),
}
# a player's words for each reading of 1-1 (the settings menu; the rules lines above say more)
SNAKE_EYES_CHOICES = (
    ("add-25", "add 25 to the turn total and keep going"),
    ("set-25", "set the turn total to 25"),
    ("reset-score", "reset your whole score to zero"),
    ("score-25", "score exactly 25 and end the turn"),
    ("bank-25", "bank the turn total plus 25 and end the turn"),
)


def _big_pig(
    snake_eyes: str = "add-25",
    bad: str = "ones",
    name: str = "big-pig",
    title: str = "Big Pig",
    aliases: tuple[str, ...] = ("bigpig",),
) -> Variant:
    snake_eyes = parse_choice("snake_eyes", snake_eyes, tuple(BIG_PIG_SNAKE_EYES))
    bad = parse_choice("bad", bad, BAD_FACES)
    effect, snake_text = BIG_PIG_SNAKE_EYES[snake_eyes]
    bad_text = (
        "A single 1 ends the turn with the turn total lost."
        if bad == "ones"
        else (
            "1s are harmless; any roll totalling 7 ends the turn with the turn total lost "
            f"(Knizia's variation, from {mention(S000)})."
        )
    )
    sevens = "" if bad == "ones" else "a total of 7 loses the turn total, 1s are harmless; "
    sources = {
        "add-25": (S000, S001, S003),
        "set-25": (S000,),
        "reset-score": (S000, S003),
        "score-25": (S002,),
        "bank-25": (S003,),
    }[snake_eyes]
    return Variant(
        name=name,
        title=title,
        sources=sources if bad == "ones" else (S000,),
        summary=f"Two dice; doubles count double; {sevens}{snake_text.split(' (')[0].rstrip('.')}.",
        rules=(
            "Roll two dice and add their sum to the turn total.",
            bad_text,
            "Other doubles add twice their sum (2-2 adds 8, 6-6 adds 24).",
            snake_text,
            "Hold to bank the turn total. First to the goal wins (100 unless you choose another).",
        ),
        goal=100,
        decision=Decision.ROLL_HOLD,
        choices=(2,),
        rolls=(_d6(2, scoring.BigPigScoring(effect, bad)),),
        parameters=(("snake_eyes", snake_eyes), ("bad", bad)),
        aliases=aliases,
    )


def _big_pig_knizia() -> Variant:
    return _big_pig("set-25", name="big-pig-knizia", title="Big Pig (Knizia's 1-1)", aliases=("knizia",))


def _big_pig_reset() -> Variant:
    return _big_pig("reset-score", name="big-pig-reset", title="Big Pig (1-1 resets the score)", aliases=())


def _big_pig_sevens() -> Variant:
    return _big_pig("add-25", "sevens", name="big-pig-sevens", title="Big Pig (sevens end the turn)", aliases=())


def _big_pig_score_25() -> Variant:
    return _big_pig(
        "score-25", name="big-pig-score-25", title="Big Pig (Dice Game Depot)", aliases=("big-pig-dice-game-depot",)
    )


def _freys_pig() -> Variant:
    variant = _big_pig("bank-25", name="freys-pig", title="Frey's Pig", aliases=("frey", "frey-pig"))
    return Variant(
        **{
            **variant.__dict__,
            "summary": "Big Pig, but 1-1 banks the turn total + 25 and ends the turn; equal turns.",
            "endgame": Endgame.EQUAL_TURNS,
            "ties": TieRule.FIRST_TO_REACH,
            "rules": (
                *variant.rules[:-1],
                "Hold to bank the turn total. Everyone gets the same number of turns: once a player "
                "reaches the goal, the rest of the round plays out and the best score wins; a tie "
                "goes to whoever reached that score first (the others must exceed it).",
            ),
        }
    )


def _pig_dice(final_turn: str = "turn") -> Variant:
    return Variant(
        name="pig-dice",
        title="Pig Dice (Parker Brothers)",
        sources=(S000, S003),
        summary="Head and tail dice; a total of 7 loses the turn total; others get a last turn.",
        rules=(
            "One die has a pig head (H) instead of the 1, the other a pig tail (T) instead of the 6.",
            "Head and tail together double the turn total.",
            "Head with anything else adds double the other die.",
            "Tail with anything else subtracts the other die (the turn total never goes below 0).",
            "Otherwise a total of 7 ends the turn with the turn total lost; any other total is added.",
            "Once someone reaches the goal (100 by default), every other player gets one more turn "
            f"({mention(S003)}); the best score wins, and a tie goes to whoever reached it first.",
            f"{mention(S000, first=True)} gives the others {FinalTurn.ROLL.label} instead of a turn; you can "
            "choose that for the final round when you start a game.",
        ),
        goal=100,
        decision=Decision.ROLL_HOLD,
        choices=(2,),
        rolls=(RollSpec((head_die(), tail_die()), ByFaces(scoring.pig_dice)),),
        endgame=Endgame.FINAL_ROUND,
        ties=TieRule.FIRST_TO_REACH,
        final_turn=parse_enum(FinalTurn, final_turn, "final turn"),
        aliases=("parker-brothers", "parker-brothers-pig-dice", "pigdice"),
    )


def _piggy() -> Variant:
    return Variant(
        name="piggy",
        title="Piggy",
        sources=(S000, S003),
        summary="Two dice; doubles lose the turn total.",
        rules=(
            "Roll two dice and add their sum to the turn total.",
            "Any doubles end the turn with the turn total lost.",
            "Hold to bank the turn total. First to the goal wins (100 unless you choose another).",
        ),
        goal=100,
        decision=Decision.ROLL_HOLD,
        choices=(2,),
        rolls=(_d6(2, scoring.piggy),),
    )


def _piggy_sevens() -> Variant:
    return Variant(
        name="piggy-sevens",
        title="Piggy Sevens",
        sources=(S003,),
        summary="Two dice; a total of 7 loses the turn total.",
        rules=(
            "Roll two dice and add their sum to the turn total.",
            "A total of 7 ends the turn with the turn total lost.",
            "Hold to bank the turn total. First to the goal wins (100 unless you choose another).",
        ),
        goal=100,
        decision=Decision.ROLL_HOLD,
        choices=(2,),
        rolls=(_d6(2, scoring.piggy_sevens),),
        aliases=("sevens",),
    )


def _pass_the_pigs(oinker: Any = 0) -> Variant:
    p_oinker = parse_probability("oinker", oinker)
    mishap = Mishap(p_oinker, "oinker (the pigs touch)", reset_score())
    return Variant(
        name="pass-the-pigs",
        title="Pass the Pigs",
        sources=(S003,),
        summary="Two rubber pigs; a left and a right sider pig out.",
        rules=(
            "Throw two rubber pigs. Sider (0), razorback and trotter (5), snouter (10), leaning jowler (15).",
            "One pig on each side ('pig out') ends the turn with the turn total lost.",
            "Both on the same side score 1; any other matching pair scores four times one pig "
            "(double razorback 20, double snouter 40, double leaning jowler 60).",
            "Otherwise the two pigs' points are added.",
            "Pigs touching (an 'oinker') lose your whole score. How likely that is can be set before the game; "
            f"it is 0 by default, as in {mention(S003)}.",
            "How often each position comes up is counted from 3939 throws by Dean Ballard's class: 1344 right "
            "siders, 1294 left siders, 767 razorbacks, 365 trotters, 137 snouters and 32 leaning jowlers.",
            "Hold to bank the turn total. First to the goal wins (100 unless you choose another).",
        ),
        goal=100,
        decision=Decision.ROLL_HOLD,
        choices=(2,),
        rolls=(RollSpec((rubber_pig(), rubber_pig()), ByFaces(scoring.pass_the_pigs), mishap),),
        parameters=(("oinker", str(p_oinker)),),
        aliases=("pigmania", "pig-mania", "passthepigs"),
    )


def _hog(max_dice: int = 26) -> Variant:
    max_dice = parse_count("max_dice", max_dice, 1, MAX_HOG_DICE)
    choices = tuple(range(1, max_dice + 1))
    return Variant(
        name="hog",
        title="Hog",
        sources=(S003,),
        summary="One throw per turn: choose how many dice; any 1 scores nothing.",
        rules=(
            "On your turn choose how many dice to throw (1 to the maximum) and throw them once.",
            "If no die shows a 1, their sum is added to your score; if any shows a 1, you score nothing.",
            "First to the goal wins (100 unless you choose another).",
            f"{mention(S003)} found that allowing 26 dice or more no longer changes optimal play.",
        ),
        goal=100,
        decision=Decision.DICE_PER_TURN,
        choices=choices,
        rolls=tuple(RollSpec(tuple(standard_die() for _ in range(n)), SumUnlessBad(1)) for n in choices),
        parameters=(("max_dice", max_dice),),
    )


def _hog_reroll(max_dice: int = 10) -> Variant:
    max_dice = parse_count("max_dice", max_dice, 1, MAX_REROLL_DICE)
    choices = tuple(range(1, max_dice + 1))
    return Variant(
        name="hog-reroll",
        title="Hog (Dice Game Depot)",
        sources=(S002,),
        summary="Choose up to N dice on every roll, roll as often as you like; any 1 loses the turn total.",
        rules=(
            "Before each roll choose how many dice to throw, up to the agreed maximum (10 by default).",
            "If no die shows a 1 their sum joins the turn total and you may roll again or hold.",
            "Any 1 ends the turn with the turn total lost.",
            "Hold to bank the turn total. First to the goal wins (100 unless you choose another).",
        ),
        goal=100,
        decision=Decision.DICE_PER_ROLL,
        choices=choices,
        rolls=tuple(RollSpec(tuple(standard_die() for _ in range(n)), SumUnlessBad(1)) for n in choices),
        parameters=(("max_dice", max_dice),),
        aliases=("hog-dice-game-depot",),
    )


SWINE_HERD_AT_GOAL = {
    "sit": "While two or more stand, once the turn total takes everyone standing to the goal, they all sit "
    "down and the turn ends (the house rule that lets every game finish).",
    "roll-on": "Players who have reached the goal may stay standing and roll on (two perfect players then never "
    "sit, and the game can go on for ever).",
}


def _swine_herd(at_goal: str = "sit") -> Variant:
    at_goal = parse_choice("at_goal", at_goal, tuple(SWINE_HERD_AT_GOAL))
    return Variant(
        name="swine-herd",
        title="Swine Herd",
        sources=(S001,),
        summary="Everyone plays each turn at once on one shared die; sit down to hold.",
        rules=(
            "At the start of a turn everyone stands. One die is rolled for everyone.",
            "After each roll the shared turn total is called; anyone may sit down to bank it.",
            "A 1 ends the turn: whoever is still standing loses the turn total.",
            "The turn also ends when everyone is seated.",
            SWINE_HERD_AT_GOAL[at_goal],
            "After a turn in which someone reaches the goal (100 by default), the best score wins; tied "
            "players share the victory.",
        ),
        goal=100,
        decision=Decision.SIMULTANEOUS,
        choices=(1,),
        rolls=(_d6(1, scoring.one_die_pig),),
        endgame=Endgame.EQUAL_TURNS,
        ties=TieRule.SHARED,
        players_min=2,
        players_max=100,
        parameters=(("at_goal", at_goal),),
        aliases=("swineherd", "skunk"),
    )


TWO_SETS_RULES = (
    'Large groups (two sets of dice, for 7 or more players, from the large-group rules of "Piggy Six: A '
    'Simple Dice Game"): the first set starts with the first player; once half the players have had a turn '
    "with it, the second set starts with the first player again, and the two sets follow each other round the "
    "table, each passing to the next player when a turn ends.",
    "While two turns are under way the sets take turns: one roll or stop with one set, then one with the other.",
    "A set never overtakes the other: if the next player is still playing a turn with the other set, this set "
    "waits until that turn is over.",
    "When someone's score reaches the goal, their set stops; the player holding the other set finishes that turn "
    "(they may still pass the leader), then the game is over and the most points win. Players may end with one "
    "turn more or fewer than others. If the first to the goal wins outright, the other turn is cut short.",
)


def _piggy_six(dice_sets: str = "1") -> Variant:
    dice_sets = parse_choice("dice_sets", str(dice_sets), ("1", "2"))
    two_sets = dice_sets == "2"
    ending = (
        "Once someone reaches the goal (100, or 50 for a short game) the round is finished so everyone has the "
        "same number of turns; the player with the most points wins (tied players share the win).",
    )
    solitaire = (
        "Solitaire: play against two opponents who always stop at a fixed turn total, say one at 8 and one at 14; "
        "here they are robots that hold at those totals.",
    )
    large_groups = (
        "With 7 or more players you may play with two sets of dice following each other round the table (the "
        "large-group rules); choose it when you start a game.",
    )
    return Variant(
        name="piggy-six",
        title="Piggy Six",
        sources=(S004,),
        summary="Two dice; any 6 loses the turn total, 6-6 resets the score; "
        + ("two sets of dice for a large group." if two_sets else "equal turns."),
        rules=(
            "Roll two dice and add their sum to the turn total.",
            "A 6 on either die ends the turn with the turn total lost.",
            "Double six ends the turn and resets your whole score to zero.",
            *(TWO_SETS_RULES if two_sets else (*ending, *solitaire, *large_groups)),
        ),
        goal=100,
        decision=Decision.ROLL_HOLD,
        choices=(2,),
        rolls=(_d6(2, scoring.piggy_six),),
        endgame=Endgame.EQUAL_TURNS,
        ties=TieRule.SHARED,
        players_min=7 if two_sets else 2,
        parameters=(("dice_sets", dice_sets),) if two_sets else (),
        aliases=("piggy6", "pig-six"),
    )


def _piggy_six_3dice() -> Variant:
    base = _piggy_six()
    return Variant(
        **{
            **base.__dict__,
            "name": "piggy-six-3dice",
            "title": "Piggy Six with three dice",
            "summary": "Choose 1, 2 or 3 dice each roll; any 6 busts, two or three 6s reset the score.",
            "rules": (
                "Before each roll choose to throw 1, 2 or 3 dice; their sum joins the turn total.",
                "A single 6 ends the turn with the turn total lost.",
                "Two 6s end the turn and reset your score to zero; three 6s count as two.",
                *base.rules[3:5],  # the large-group rules are for two dice a roll
            ),
            "decision": Decision.DICE_PER_ROLL,
            "choices": (1, 2, 3),
            "rolls": tuple(_d6(n, scoring.piggy_six) for n in (1, 2, 3)),
            "aliases": ("piggy-six-3", "piggy6-3dice"),
        }
    )


@dataclass(frozen=True)
class Setting:
    """A rule a player may change before a game: its parameter key, its name in words, the values it takes."""

    key: str  # the variant parameter it sets (max_dice); scripts and the API use it, players read ``label``
    label: str
    choices: tuple[tuple[str, str], ...] = ()  # (value, its meaning in words) when it picks one reading
    low: int | None = None  # the range of a whole-number setting
    high: int | None = None
    probability: bool = False  # a chance from 0 to 1 (exclusive)
    default: str | None = None  # its value where the variant leaves it out of its parameters

    @property
    def kind(self) -> str:
        """Return 'choice', 'count' or 'probability'."""
        if self.choices:
            return "choice"
        return "probability" if self.probability else "count"

    def words(self, value: Any) -> str:
        """Return a value of this setting in a player's words ('a single 1', '26', '1%', 'never')."""
        if self.choices:
            return dict(self.choices).get(str(value), str(value))
        if self.probability:
            chance = parse_probability(self.key, value)
            return "never" if chance == 0 else f"{float(chance) * 100:.4g}%"
        return str(value)

    def to_json(self, value: Any) -> dict[str, Any]:
        """Return the setting and its current value as JSON-ready data (for a game-setup menu)."""
        data: dict[str, Any] = {"key": self.key, "label": self.label, "kind": self.kind, "value": value}
        if self.choices:
            data["choices"] = [list(choice) for choice in self.choices]
        if self.kind == "count":
            data.update(low=self.low, high=self.high)
        return data


SETTINGS: dict[str, tuple[Setting, ...]] = {
    "two-dice-pig": (
        Setting(
            "double_ones",
            "Double 1s",
            (
                ("reset-score", "end the turn and wipe out your whole score"),
                ("bust", "count as a single 1: the turn total is lost"),
            ),
        ),
    ),
    "big-pig": (
        Setting("snake_eyes", "Double 1s", SNAKE_EYES_CHOICES),
        Setting("bad", "What ends the turn", (("ones", "a single 1"), ("sevens", "a total of 7 (1s are harmless)"))),
    ),
    "pass-the-pigs": (Setting("oinker", "Chance that the pigs touch (an oinker)", probability=True),),
    "hog": (Setting("max_dice", "Most dice in one throw", low=1, high=MAX_HOG_DICE),),
    "hog-reroll": (Setting("max_dice", "Most dice in one roll", low=1, high=MAX_REROLL_DICE),),
    "piggy-six": (
        Setting(
            "dice_sets",
            "Sets of dice",
            (("1", "one set, passed round the table"), ("2", "two sets following each other (7 or more players)")),
            default="1",
        ),
    ),
    "swine-herd": (
        Setting(
            "at_goal",
            "When everyone standing has reached the goal",
            (("sit", "they all sit down and the turn ends"), ("roll-on", "they may stay standing and roll on")),
        ),
    ),
}


# settings added after games were already stored: what those games were played with, when a stored game lacks one
SETTINGS_ADDED_LATER: dict[str, dict[str, Any]] = {"swine-herd": {"at_goal": "roll-on"}}


def params_to_store(variant: Variant, params: Mapping[str, Any]) -> dict[str, Any]:
    """Return the parameters to store with a game: those asked for, plus every later-added setting's value."""
    values = dict(variant.parameters)
    return {**params, **{key: values[key] for key in SETTINGS_ADDED_LATER.get(variant.name, {}) if key in values}}


def stored_params(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """Return a stored game's parameters, a setting added since it was stored set as the game was played."""
    try:
        added = SETTINGS_ADDED_LATER.get(canonical_name(name), {})
    except UnknownVariantError:
        added = {}  # find_variant says what is wrong with the name
    return {**added, **params}


def variant_settings(variant: Variant) -> list[tuple[Setting, Any]]:
    """Return the settings a player may change in this variant, each with its current value."""
    values = dict(variant.parameters)
    return [(setting, values.get(setting.key, setting.default)) for setting in SETTINGS.get(variant.name, ())]


@dataclass(frozen=True)
class Entry:
    """A registered variant: its canonical name and factory."""

    name: str
    factory: Callable[..., Variant]

    def build(self, **params: Any) -> Variant:
        """Build the variant with variant-specific parameters, rejecting unknown ones."""
        # name/title/aliases let one factory build several registered variants; they are not
        # parameters a player may set
        allowed = [p for p in inspect.signature(self.factory).parameters if p not in ("name", "title", "aliases")]
        unknown = [key for key in params if key not in allowed]
        if unknown:
            # a game record stores every parameter of its variant, also the ones a named reading fixes
            # (big-pig-knizia's snake_eyes=set-25): those are accepted at their own value
            fixed = {key: str(value) for key, value in self.factory().parameters}
            unknown = [key for key in unknown if fixed.get(key) != str(params[key])]
        if unknown:
            names = ", ".join(allowed) if allowed else "none"
            raise BadParameterError(f"{self.name} has no parameter {shown(unknown[0])}; its parameters: {names}")
        return self.factory(**{key: value for key, value in params.items() if key in allowed})


_FACTORIES: tuple[Callable[..., Variant], ...] = (
    _pig,
    _two_dice_pig,
    _big_pig,
    _big_pig_knizia,
    _big_pig_reset,
    _big_pig_sevens,
    _big_pig_score_25,
    _freys_pig,
    _pig_dice,
    _piggy,
    _piggy_sevens,
    _pass_the_pigs,
    _hog,
    _hog_reroll,
    _swine_herd,
    _piggy_six,
    _piggy_six_3dice,
)

# names a variant had before, still found (game records and caches keep them) but never shown
RETIRED_NAMES = {"big-pig-002": "big-pig-score-25", "hog-002": "hog-reroll"}

REGISTRY: dict[str, Entry] = {}
_LOOKUP: dict[str, str] = {}
for _factory in _FACTORIES:
    _variant = _factory()
    REGISTRY[_variant.name] = Entry(_variant.name, _factory)
    for _key in (_variant.name, *_variant.aliases, _variant.title):
        _LOOKUP.setdefault(normalize(_key), _variant.name)
for _old, _new in RETIRED_NAMES.items():
    _LOOKUP.setdefault(normalize(_old), _new)


def variant_names() -> list[str]:
    """Return the canonical names of every registered variant, in registry order."""
    return list(REGISTRY)


def canonical_name(name: str) -> str:
    """Return the canonical name for a name or alias, or raise UnknownVariantError."""
    key = normalize(name) if isinstance(name, str) and len(name) <= MAX_NAME else ""
    if key not in _LOOKUP:
        raise UnknownVariantError(f"unknown variant {shown(name)}; known variants: {', '.join(REGISTRY)}")
    return _LOOKUP[key]


def find_variant(
    name: str,
    goal: int | None = None,
    endgame: str | Endgame | None = None,
    ties: str | TieRule | None = None,
    final_turn: str | FinalTurn | None = None,
    files: bool = False,
    **params: Any,
) -> Variant:
    """Return the named variant, optionally with another goal and ending.

    With ``files`` (the command line, the research environments), 'designed:FILE' reads a designed
    game's rule file; elsewhere (the web, game records) such a name is refused, so a stranger's
    name never opens a file on this machine.
    """
    if is_designed_name(name):
        if not files:
            raise UnknownVariantError(
                f"{shown(name)}: a designed game's rule file is read only where you name it yourself "
                f"(on the command line), never from a web request or a game record; "
                f"known variants: {', '.join(REGISTRY)}"
            )
        if params:
            raise BadParameterError(f"a designed game has no parameters; its rules are in its file ({shown(name)})")
        variant = designed_variant(name)
    else:
        variant = REGISTRY[canonical_name(name)].build(**params)
    if goal is not None:
        variant = variant.with_goal(goal)
    if endgame is not None or ties is not None or final_turn is not None:
        variant = variant.with_endgame(endgame if endgame is not None else variant.endgame, ties, final_turn)
    return variant


def all_variants() -> list[Variant]:
    """Return every registered variant with its default parameters."""
    return [entry.build() for entry in REGISTRY.values()]
