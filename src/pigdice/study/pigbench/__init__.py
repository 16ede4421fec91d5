"""Pig-Bench: baselines trained on Pig, Two-Dice Pig, Hog and Pig Dice, evaluated exactly, on a leaderboard.

``run_bench(BenchSettings(...))`` trains and evaluates; ``write_board(board, folder)`` writes
leaderboard.md, leaderboard.json and curves.png. ``pigdice bench-learners`` does both.
"""

from __future__ import annotations

from pigdice.study.pigbench.board import CurvePoint, Entry, Leaderboard, VariantBoard, markdown, write_board
from pigdice.study.pigbench.run import BASELINES, VARIANTS, BenchSettings, bench_variant, run_bench

__all__ = [
    "BASELINES",
    "VARIANTS",
    "BenchSettings",
    "CurvePoint",
    "Entry",
    "Leaderboard",
    "VariantBoard",
    "bench_variant",
    "markdown",
    "run_bench",
    "write_board",
]
