"""Bounds of the open-questions analysis, light enough for the command line to read before any work."""

from __future__ import annotations

from pigdice.solve.memory import GiB

MAX_QUESTION_PLAYERS = 6  # seat chances and the approximation for 3 up to this many players
APPROXIMATION_BYTES = 4 * GiB  # the arrays of one n-player study are kept under this by default
MARGIN_MAX_GOAL = 200  # "by how much" maps read goal^2 turns from the policy: up to this goal
