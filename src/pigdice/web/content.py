"""Words for the rules pages: the sources of a variant, cited, and a short history of each variant."""

from __future__ import annotations

from pigdice.rules.sources import OVERVIEW, find_source
from pigdice.rules.variant import Variant

PIG_HISTORY = (
    "Pig is a folk jeopardy dice game; the earliest written description we know is John Scarne's in 1945. "
    "Todd Neller and Clifton Presser computed its optimal strategy in 2004 (first player wins about 53% of "
    "games between perfect players), and their 2005 addendum extended the method to a whole family of variants."
)

HISTORY: dict[str, str] = {
    "pig": PIG_HISTORY,
    "two-dice-pig": (
        'According to game analyst Bill Butler, this simplest two-dice version was sold commercially as "Pig" '
        "in the 1950s. The Gettysburg College poster and Dice Game Depot both list it; Neller & Presser solved it "
        "in 2005."
    ),
    "big-pig": (
        "Skip Frey described a two-dice Pig with doubled doubles in 1975; Reiner Knizia's Dice Games Properly "
        'Explained (1999) calls the family "Big Pig", where 1-1 is worth 25. Books disagree on exactly what '
        "snake eyes does, so pigdice keeps each reading as its own variant."
    ),
    "big-pig-knizia": (
        "Reiner Knizia (1999) gives the optional rule that 1-1 resets the turn total to 25, whatever it was before."
    ),
    "big-pig-reset": (
        "A harsher reading of Big Pig in which snake eyes wipe out the whole score, as in Two-Dice Pig "
        f"(mentioned in {OVERVIEW.short} and in Neller & Presser's 2005 addendum)."
    ),
    "big-pig-sevens": (
        "Knizia (1999) also suggests that 1s be harmless and that any roll totalling 7 end the turn instead, "
        "a rule Parker Brothers' Pig Dice had used since 1942."
    ),
    "big-pig-score-25": (
        "Dice Game Depot's 2014 rules: double 1s end the turn, score exactly 25 and throw away the rest of the "
        "turn total."
    ),
    "freys-pig": (
        "Skip Frey's How to Win at Dice Games (1975) describes this two-dice game: doubles count double, 1-1 "
        "banks the turn plus 25, and everyone gets the same number of turns. Neller & Presser solved it in 2005."
    ),
    "pig-dice": (
        "Parker Brothers sold Pig Dice in 1942 with two special dice: a pig head replaces one die's 1 and a pig "
        "tail the other's 6. It needs its own dice, which is why it influenced later variants so little."
    ),
    "piggy": (
        "Ivars Peterson described Piggy in Muse magazine in 2000: no single bad face, but any doubles end the "
        "turn. Optimal play holds at roughly half the goal, aiming to win in two scoring turns."
    ),
    "piggy-sevens": (
        "A variant of Piggy devised by Neller & Presser for their 2005 addendum: a total of 7 instead of doubles "
        "ends the turn. Its optimal policy is almost identical to Piggy's."
    ),
    "pass-the-pigs": (
        "David Moffat designed PigMania in 1977; it is sold today as Pass the Pigs. Rubber pigs replace the dice; "
        "the landing odds here come from 3939 throws by Dean Ballard's sixth-grade class in 1997."
    ),
    "hog": (
        "Hog appears in mathematics education (Mathematical Sciences Education Board 1993; Bohan & Shultz 1996; "
        "Feldman & Morgan 2003): one throw per turn, choosing how many dice. Neller & Presser found that the first "
        "player wins about 53% under optimal play, which throws 6 dice on the first turn."
    ),
    "hog-reroll": (
        "Dice Game Depot's 2014 Hog: players agree on a maximum number of dice (10 is suggested) and may choose "
        "any number up to it on every roll, rolling as often as they dare."
    ),
    "swine-herd": (
        "Todd Neller's group game, based on the classroom game Skunk: the whole group plays each turn at once "
        "on one shared die, sitting down to hold, so a large group can play Pig quickly."
    ),
    "piggy-six": (
        "Piggy Six is a social two-dice game in which six is bad and double six is worse; its write-up adds rules "
        "for large groups, solitaire against imaginary opponents with fixed stopping points, and online play "
        "against robot opponents with a fair dice roller, which is what this server does."
    ),
    "piggy-six-3dice": (
        "The untested 3-dice rules from the Piggy Six write-up: choose 1, 2 or 3 dice on each roll; more dice "
        "score faster but make double sixes likelier."
    ),
}


def source_texts(variant: Variant) -> list[tuple[str, str]]:
    """Return each source of a variant as (citation, what it covers), e.g. ('Neller & Presser, ... (2005)', ...)."""
    return [(find_source(source_id).citation, find_source(source_id).about) for source_id in variant.sources]


def history_text(variant: Variant) -> str:
    """Return the history paragraph of a variant (a generic one for variants without their own)."""
    return HISTORY.get(variant.name, PIG_HISTORY)
