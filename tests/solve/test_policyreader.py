"""The declarative policy-file reader: each kind's schema on a sound file and on every way a file goes wrong.

The files are made from hand-built policies (no solve): the reader checks form, not the solver's values,
and a damaged value must be refused whatever solved it. Each damage keeps the checksums right, so the
schema's own check is what refuses it (a checksum that differs is ``test_policy_checksum``'s case).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.rules.variant import Variant
from pigdice.solve.n.nplayer import PlayersPolicy, players_schema
from pigdice.solve.policy import Policy
from pigdice.solve.policyfile import values_schema
from pigdice.solve.policyreader import ArraySpec, PolicySchema, read_policy_file
from pigdice.solve.storage import CHECKSUMS, save_npz
from pigdice.solve.two.endgame import EndgamePolicy, endgame_schema

GOAL = 6


def _first_to_goal(path: Path) -> tuple[Variant, PolicySchema, Callable[[], object]]:
    variant = find_variant("pig", goal=GOAL)
    values = np.linspace(0.1, 0.9, GOAL * GOAL).reshape(GOAL, GOAL)
    Policy(variant, values, 7, 1e-12, 0.5).save(path)
    return variant, values_schema(variant), lambda: Policy.load(path, variant)


def _endgame(path: Path) -> tuple[Variant, PolicySchema, Callable[[], object]]:
    variant = find_variant("pig", goal=GOAL, endgame="equal-turns")
    values = np.full((2, GOAL, GOAL), 0.4)
    EndgamePolicy(variant, values, np.full(GOAL + 9, 0.3), 5, 1e-13, 1e-15, 0.25).save(path)
    return variant, endgame_schema(variant), lambda: EndgamePolicy.load(path, variant)


def _players(path: Path) -> tuple[Variant, PolicySchema, Callable[[], object]]:
    variant = find_variant("pig", goal=GOAL, endgame="final-round")
    banked = np.full((1, 4, GOAL * GOAL, 3), 1 / 3)
    policy = PlayersPolicy(variant, 3, np.full((1, GOAL, GOAL, GOAL, 3), 1 / 3), 9, 1e-12, 1.5, regret=1e-6)
    policy.banked, policy.last = banked, np.full((2, GOAL + 20), 0.5)
    policy.save(path)
    return variant, players_schema(variant, 3), lambda: PlayersPolicy.load(path, variant, 3)


KINDS = {"first-to-goal": _first_to_goal, "endgame": _endgame, "players": _players}


@pytest.fixture(params=sorted(KINDS))
def kind(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, PolicySchema, Callable[[], object]]:
    path = tmp_path / f"{request.param}.npz"
    _, schema, load = KINDS[request.param](path)
    return path, schema, load


def rewrite(path: Path, change_meta: Callable[[dict[str, Any]], None] | None = None, **arrays: np.ndarray) -> None:
    """Save ``path`` again with ``arrays`` in place of its own and ``change_meta`` applied, checksums made anew."""
    with np.load(path, allow_pickle=False) as data:
        kept = {name: data[name] for name in data.files if name != "meta"}
        meta = json.loads(str(data["meta"]))
    del meta[CHECKSUMS]
    if change_meta is not None:
        change_meta(meta)
    path.unlink()
    save_npz(path, meta, **{**kept, **arrays})


def test_a_sound_file_reads_back_every_array_and_number(kind):
    path, schema, load = kind
    read = read_policy_file(path, schema)
    assert set(read.arrays) == set(schema.arrays)
    for name, spec in schema.arrays.items():
        assert read.arrays[name].dtype == np.dtype(spec.dtype) and spec.fits(read.arrays[name].shape)
    assert {number.key for number in schema.numbers} == set(read.numbers)
    loaded = load()
    assert loaded.from_cache  # type: ignore[attr-defined]
    assert np.array_equal(loaded.values, read.arrays["values"])  # type: ignore[attr-defined]


def test_a_wrong_dtype_is_refused_from_the_header(kind):
    path, _, load = kind
    with np.load(path) as data:
        values = data["values"].astype(np.float32)
    rewrite(path, values=values)
    with pytest.raises(BadParameterError, match=r"values have shape .*float32.*expected .*float64"):
        load()


def test_a_wrong_shape_is_refused_naming_the_expected_one(kind):
    path, _, load = kind
    with np.load(path) as data:
        values = data["values"]
    rewrite(path, values=np.concatenate([values, values], axis=-1))
    with pytest.raises(BadParameterError, match=rf"{path.name}: values have shape .* expected \("):
        load()


@pytest.mark.parametrize("bad", [1.5, -0.25, np.nan])
def test_values_out_of_range_are_refused(kind, bad):
    path, _, load = kind
    with np.load(path) as data:
        values = data["values"].copy()
    values.flat[3] = bad
    rewrite(path, values=values)
    with pytest.raises(BadParameterError, match=r"values are not win probabilities in \[0, 1\]"):
        load()


def test_a_missing_metadata_number_is_refused_by_name(kind):
    path, _, load = kind
    rewrite(path, lambda meta: meta.pop("iterations"))
    with pytest.raises(BadParameterError, match="no iterations"):
        load()


def test_metadata_of_another_game_is_refused(kind):
    path, schema, load = kind
    key = "key" if "key" in {expected.key for expected in schema.expected} else "fingerprint"
    rewrite(path, lambda meta: meta.update({key: "another game"}))
    with pytest.raises(BadParameterError, match="other parameters"):
        load()


def test_a_missing_array_is_refused_as_damaged(kind):
    path, _, load = kind
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
    path.unlink()
    save_npz(path, {key: value for key, value in meta.items() if key != CHECKSUMS})
    with pytest.raises(BadParameterError, match=r"damaged policy file \(KeyError"):
        load()


def test_a_truncated_file_is_refused_as_damaged(kind):
    path, _, load = kind
    path.write_bytes(path.read_bytes()[:300])
    with pytest.raises(BadParameterError, match=rf"{path.name}: damaged policy file"):
        load()


def test_a_directory_or_a_missing_file_is_refused(kind, tmp_path):
    _, schema, _ = kind
    with pytest.raises(BadParameterError, match="not a regular file"):
        read_policy_file(tmp_path, schema)
    with pytest.raises(BadParameterError, match="cannot read the policy file"):
        read_policy_file(tmp_path / "absent.npz", schema)


def test_players_metadata_ranges_are_checked(tmp_path):
    path = tmp_path / "players.npz"
    _, _, load = _players(path)
    rewrite(path, lambda meta: meta.update(regret=1.5))
    with pytest.raises(BadParameterError, match=r"regret 1\.5 is not a probability"):
        load()
    rewrite(path, lambda meta: meta.update(regret=0.0, truncation=0.5))
    with pytest.raises(BadParameterError, match=r"truncation 0\.5 is not within what the solver accepts"):
        load()
    rewrite(path, lambda meta: meta.update(truncation=0.0, players=4))
    with pytest.raises(BadParameterError, match="solved for 4 players, not 3"):
        load()


def test_players_decision_points_outside_the_game_are_refused(tmp_path):
    path = tmp_path / "players.npz"
    _, _, load = _players(path)
    states = np.array([GOAL**3], dtype=np.int64)  # one past the last state of the single seat
    rewrite(path, decision_states=states, decision_x=np.array([[0.5, 0.5, 0.0]]))
    with pytest.raises(BadParameterError, match="decision_states are not all finite numbers in"):
        load()


def test_an_array_spec_reads_exact_lengths_and_ranges_of_lengths():
    spec = ArraySpec((2, range(3, 6)), "int64")
    assert spec.fits((2, 3)) and spec.fits((2, 5))
    assert not spec.fits((2, 6)) and not spec.fits((1, 4)) and not spec.fits((2,)) and not spec.fits((2, 4, 1))
    assert spec.describe() == "(2, 3..5) int64"


@pytest.mark.parametrize("limit, stored", [(2**30, False), (0, True)])
def test_large_arrays_are_saved_uncompressed_and_read_back_the_same(tmp_path, monkeypatch, limit, stored):
    """Small policies are compressed; large ones are written as they are (zlib took 15 minutes for 7 GB)."""
    import zipfile

    from pigdice.solve import storage

    monkeypatch.setattr(storage, "COMPRESSED_BYTES", limit)
    path = tmp_path / "pig.npz"
    _, schema, load = _first_to_goal(path)
    with zipfile.ZipFile(path) as archive:
        kinds = {info.compress_type for info in archive.infolist()}
    assert kinds == ({zipfile.ZIP_STORED} if stored else {zipfile.ZIP_DEFLATED})
    assert np.array_equal(read_policy_file(path, schema).arrays["values"], load().values)  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_an_unbounded_array_must_still_be_finite(bad):
    from pigdice.solve.policyreader import _check_range

    array = np.linspace(-5.0, 5.0, 12).reshape(3, 4)
    spec = ArraySpec((3, 4), low=None, high=None)
    _check_range(Path("p.npz"), "decision_x", array, spec)  # any finite number
    array[1, 2] = bad
    with pytest.raises(BadParameterError, match=r"decision_x are not all finite numbers"):
        _check_range(Path("p.npz"), "decision_x", array, spec)
