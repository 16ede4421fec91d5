"""Studying strategies and variants: exact evaluation, simulation, analysis, reports and plots."""
