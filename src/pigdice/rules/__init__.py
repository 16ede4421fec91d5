"""What a variant is: dice, effects, outcome tables and the registry of named variants."""

from pigdice.rules.dice import Die
from pigdice.rules.effects import Effect, EffectKind
from pigdice.rules.outcomes import Outcome, RollSpec, ScriptedDice, Throw
from pigdice.rules.registry import all_variants, canonical_name, find_variant, variant_names
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant

__all__ = [
    "Decision",
    "Die",
    "Effect",
    "EffectKind",
    "Endgame",
    "FinalTurn",
    "Outcome",
    "RollSpec",
    "ScriptedDice",
    "Throw",
    "TieRule",
    "Variant",
    "all_variants",
    "canonical_name",
    "find_variant",
    "variant_names",
]
