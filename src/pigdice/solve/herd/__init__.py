"""Swine Herd, where everyone standing chooses at once: the 2-player equilibrium, 3+ players, its policy."""
