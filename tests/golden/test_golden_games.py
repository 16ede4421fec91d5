"""Games in tests/data: one seeded playthrough per variant must play again move for move, and the frozen
version-1 records (saved once, never rewritten) must still load, replay and verify."""

from __future__ import annotations

import json

import pytest

import golden
from pigdice.engine.fairness import verify_record
from pigdice.engine.record import RECORD_VERSION, load_record, replay_record
from pigdice.rules import Decision, Endgame, all_variants, variant_names

VARIANTS = {variant.name: variant for variant in all_variants()}
RECORDS = sorted((golden.DATA / "records").glob("*.json"))


def test_every_variant_has_a_playthrough() -> None:
    assert sorted(path.stem for path in (golden.DATA / "playthroughs").glob("*.json")) == sorted(variant_names())


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_the_seeded_playthrough_plays_again_move_for_move(name: str) -> None:
    stored = json.loads((golden.DATA / "playthroughs" / f"{name}.json").read_text())
    variant = VARIANTS[name]
    assert (stored["goal"], stored["robots"]) == (variant.goal, golden.playthrough_specs(variant))
    state, moves = golden.play_moves(variant, stored["robots"], stored["seed"])
    for number, (now, then) in enumerate(zip(moves, stored["moves"], strict=False), start=1):
        assert now == then, f"move {number}"
    assert len(moves) == len(stored["moves"])
    assert (list(state.winners or ()), list(state.scores)) == (stored["winners"], stored["scores"])


def test_the_frozen_records_cover_every_kind_of_game() -> None:
    assert [path.name for path in RECORDS] == sorted(game.file for game in golden.FROZEN_GAMES)
    records = [load_record(path) for path in RECORDS]
    variants = [record.build_variant() for record in records]
    assert {variant.decision for variant in variants} == {
        Decision.ROLL_HOLD,
        Decision.DICE_PER_TURN,
        Decision.SIMULTANEOUS,
    }
    assert {variant.endgame for variant in variants} == set(Endgame)
    assert max(record.players for record in records) == 3
    assert any(record.commitment is not None for record in records)


@pytest.mark.parametrize("path", RECORDS, ids=lambda path: path.stem)
def test_a_frozen_record_loads_replays_and_verifies(path) -> None:
    assert json.loads(path.read_text())["version"] == RECORD_VERSION == 1
    record = load_record(path)
    state, per_move = replay_record(record)
    assert len(per_move) == len(record.moves) > 0
    assert state.is_terminal() and (state.winners, state.scores) == (record.winners, record.scores)
    verification = verify_record(record)
    assert verification.ok, verification.problems
    assert verification.commitment == ("matches" if record.commitment is not None else "none")
    assert verification.moves_checked == len(record.moves) and verification.throws_checked > 0
