"""Exact analyses of 2-player games: turn outcomes, the game chain, and the analysis that combines them."""

from pigdice.study.analysis.api import Analysis, Progress, analyze, strategy_table
from pigdice.study.analysis.chain import MAX_TURNS, STAT_NAMES, TAIL, Seating, play_chain
from pigdice.study.analysis.turns import VISITS_MAX_GOAL, TurnOutcomes, analysable, turn_outcomes

__all__ = [
    "MAX_TURNS",
    "STAT_NAMES",
    "TAIL",
    "VISITS_MAX_GOAL",
    "Analysis",
    "Progress",
    "Seating",
    "TurnOutcomes",
    "analysable",
    "analyze",
    "play_chain",
    "strategy_table",
    "turn_outcomes",
]
