"""Defaults every front end shares: the robot offered when none is named, robots' pig names, robots in words."""

from __future__ import annotations

from pigdice.rules.variant import Decision, Variant

ROBOT_NAMES = ("Wilbur", "Babe", "Hamlet", "Truffle", "Porkchop", "Snout", "Trotter", "Oinkers", "Hamm", "Curly")

# the robots whose spec is one word, in a player's words
PLAIN_ROBOTS = {
    "optimal": "the perfect player",
    "random": "plays at random",
    "keep-pace": "keeps pace and ends the race",
    "max-score": "rolls while a roll gains on average",
}


# the robots of every strength (``pigdice.players.levels``) in words, weakest first
LEVEL_TITLES = (
    "a beginner",
    "a casual player",
    "a club player",
    "a strong club player",
    "an expert",
    "a master",
    "world class",
    "the perfect player",
)
LEVEL_COUNT = len(LEVEL_TITLES)


def default_robot(variant: Variant) -> str:
    """Return a sensible robot spec for ``variant`` (Hog needs a number of dice, not a hold point)."""
    if variant.decision is Decision.DICE_PER_TURN:
        return f"dice:{min(6, variant.choices[-1])}"
    return "hold:20"


def robot_name(index: int) -> str:
    """Return the pig name of the ``index``-th robot at a table (0-based; names repeat after ten)."""
    return ROBOT_NAMES[index % len(ROBOT_NAMES)]


def _times(count: str) -> str:
    return {"1": "once", "2": "twice"}.get(count, f"{count} times")


def describe_robot(spec: str) -> str:
    """Return what a robot does, in a player's words: 'hold:20' is 'holds at 20', 'optimal' 'the perfect player'."""
    text = spec.strip()
    word = text.lower()
    if word in PLAIN_ROBOTS:
        return PLAIN_ROBOTS[word]
    if word.startswith("level:") and word[6:].isdecimal() and 1 <= int(word[6:]) <= LEVEL_COUNT:
        return LEVEL_TITLES[int(word[6:]) - 1] + f" (level {word[6:]} of {LEVEL_COUNT})"
    if word.startswith(("python:", "py:")):
        return f"your function {text.rsplit(':', 1)[-1]}"
    terms = dict(term.partition(":")[::2] for term in word.split("+"))
    if not set(terms) <= {"hold", "rolls", "dice"} or not all(value.isdigit() for value in terms.values()):
        return text  # not a robot this module knows: its spec says what it is
    dice = terms.get("dice")
    with_dice = f", throwing {dice} {'die' if dice == '1' else 'dice'}" if dice else ""
    if "hold" in terms:
        return f"holds at {terms['hold']}{with_dice}"
    if "rolls" in terms:
        return f"rolls {_times(terms['rolls'])} a turn{with_dice}"
    return f"throws {dice} {'die' if dice == '1' else 'dice'}"


def robot_title(name: str, spec: str) -> str:
    """Return a robot as players meet it: its name and what it does ('Wilbur, the perfect player')."""
    return f"{name}, {describe_robot(spec)}"
