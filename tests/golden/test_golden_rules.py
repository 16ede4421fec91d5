"""Every registered variant against tests/data: its fingerprints and its perft file (every outcome of one
roll of each dice choice, with its exact probability and effect)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import golden
from pigdice.rules import all_variants, variant_names

FINGERPRINTS = json.loads((golden.DATA / "fingerprints.json").read_text())
VARIANTS = {variant.name: variant for variant in all_variants()}


def test_every_registered_variant_has_its_files() -> None:
    assert sorted(FINGERPRINTS) == sorted(variant_names())
    assert sorted(path.stem for path in (golden.DATA / "perft").glob("*.txt")) == sorted(variant_names())


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_fingerprints_are_unchanged(name: str) -> None:
    # a changed fingerprint invalidates every cached policy of the variant: change it on purpose only
    assert golden.fingerprint_figures(VARIANTS[name]) == FINGERPRINTS[name]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_outcome_tables_are_the_perft_files(name: str) -> None:
    stored = (golden.DATA / "perft" / f"{name}.txt").read_text().splitlines()
    live = golden.perft_text(VARIANTS[name]).splitlines()
    for number, (now, then) in enumerate(zip(live, stored, strict=False), start=1):
        assert now == then, f"perft/{name}.txt line {number}"
    assert len(live) == len(stored)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_roll_of_a_perft_file_sums_to_one(name: str) -> None:
    totals: dict[str, Fraction] = {}
    roll = ""
    for line in (golden.DATA / "perft" / f"{name}.txt").read_text().splitlines():
        if line.startswith("roll "):
            roll = line
            totals[roll] = Fraction(0)
        elif line.startswith("  "):
            _faces, _label, probability, _effect = line.strip().split(" | ")
            totals[roll] += Fraction(probability)
    assert len(totals) == len(VARIANTS[name].choices)
    assert set(totals.values()) == {Fraction(1)}
