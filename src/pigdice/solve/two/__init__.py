"""Exact 2-player solvers: roll/hold and dice-choice kernels, the last turn, every ending, head-to-head."""
