"""What the pages and the API show of a variant, derived from the variant itself (no name lookups)."""

from __future__ import annotations

import itertools
import math
from functools import cache
from typing import Any

from pigdice.players.defaults import default_robot
from pigdice.players.specs import known_specs
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Variant
from pigdice.web.seats import WEB_ROBOT_WORDS

MAX_THROWS = 6**4  # face combinations read to find the bust faces (the smallest roll is one to three dice)
BAD_EFFECTS = (EffectKind.BUST, EffectKind.RESET_SCORE)


@cache
def bust_faces(variant: Variant) -> tuple[str, ...]:
    """Return the labels of the faces to blame for a bust: those showing in every busting throw of the smallest roll.

    Read from the roll's own scoring rule, so Pig gives ('1',), Piggy Six ('6',), and a rule where a sum busts
    (sevens) gives none. The game page marks these faces red when a roll busts.
    """
    spec = variant.roll_spec(variant.choices[0] if variant.chooses_dice else None)
    faces_per_die = [[f for f, p in zip(die.faces, die.probabilities, strict=True) if p > 0] for die in spec.dice]
    if math.prod(len(faces) for faces in faces_per_die) > MAX_THROWS:
        return ()
    blamed: set[str] | None = None
    for faces in itertools.product(*faces_per_die):
        if spec.throw_faces(faces).effect.kind in BAD_EFFECTS:
            labels = {die.label(face) for die, face in zip(spec.dice, faces, strict=True)}
            blamed = labels if blamed is None else blamed & labels
    return tuple(sorted(blamed or ()))


def variant_info(variant: Variant) -> dict[str, Any]:
    """Return what the pages need to know about a variant."""
    data = variant.describe()
    data.update(
        {
            "rules": list(variant.rules),
            "chooses_dice": variant.chooses_dice,
            "can_hold": variant.can_hold,
            "default_robot": default_robot(variant),
            "endgame_note": variant.endgame_note(),
            "group": variant.decision is Decision.SIMULTANEOUS,
            "bust_faces": list(bust_faces(variant)),
        }
    )
    return data


def web_specs() -> dict[str, str]:
    """Return the robot specs the web server offers (no plug-in code), with a line of help each."""
    return {
        form: text for form, text in known_specs().items() if form.split(":", 1)[0].split(" ", 1)[0] in WEB_ROBOT_WORDS
    }
