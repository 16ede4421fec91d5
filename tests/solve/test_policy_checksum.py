"""A policy file's values carry their checksum, checked on load: values in range are not enough (issue 32).

The probe: a cached policy file whose every value is 0.5 (still win probabilities) made ``hint`` report
58.3% where the truth is 28.3%. Every save now keeps a SHA-256 of each array in the file's metadata; a
file whose values differ from it, or that keeps none (an older pigdice's), is solved again and replaced.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pigdice.cli.app import app
from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.solve import cache_path, solve
from pigdice.solve import exact as exact_module
from pigdice.solve import solver as solver_module
from pigdice.solve.policyfile import read_values
from pigdice.solve.storage import CHECKSUMS, check_npz

VARIANT = find_variant("pig", goal=37)  # not among the values shipped with pigdice: hints read the cache
runner = CliRunner()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder and empty in-memory caches."""
    monkeypatch.setenv("PIGDICE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(solver_module, "_MEMORY", solver_module.PolicyCache())
    monkeypatch.setattr(exact_module, "_MEMORY", None)
    return tmp_path


def rewrite(path: Path, change) -> None:
    """Rewrite the .npz at ``path`` with ``change(name, array)`` applied to its arrays, the metadata kept."""
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    arrays = {name: (array if name == "meta" else change(name, array)) for name, array in arrays.items()}
    with path.open("wb") as stream:
        np.savez_compressed(stream, **arrays)


def test_every_array_saved_has_its_checksum(cache: Path) -> None:
    solve(VARIANT)
    with np.load(cache_path(VARIANT), allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
    assert set(meta[CHECKSUMS]) == {"values"} and len(meta[CHECKSUMS]["values"]) == 64
    values = read_values(cache_path(VARIANT), VARIANT)[0]
    check_npz(cache_path(VARIANT))
    assert 0.5 < values[0, 0] < 0.6


def test_values_in_range_but_not_the_saved_ones_are_refused_and_solved_again(cache: Path) -> None:
    truth = solve(VARIANT).values.copy()
    path = cache_path(VARIANT)
    rewrite(path, lambda name, array: np.full_like(array, 0.5))
    with pytest.raises(BadParameterError, match="checksum"):
        read_values(path, VARIANT)
    with pytest.raises(BadParameterError, match="checksum"):
        check_npz(path)
    solver_module._MEMORY = solver_module.PolicyCache()
    again = solve(VARIANT)
    assert not again.from_cache and np.allclose(again.values, truth)
    assert np.allclose(read_values(path, VARIANT)[0], truth)  # the file was replaced by a sound one


def test_a_file_without_checksums_is_solved_again(cache: Path) -> None:
    solve(VARIANT)
    path = cache_path(VARIANT)
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        values = data["values"]
    del meta[CHECKSUMS]
    with path.open("wb") as stream:
        np.savez_compressed(stream, values=values, meta=np.array(json.dumps(meta)))
    with pytest.raises(BadParameterError, match="no checksum"):
        read_values(path, VARIANT)


def test_hint_reports_the_true_chance_after_the_cache_was_tampered_with(cache: Path) -> None:
    args = ["hint", "pig", "--goal", "37", "--score", "0", "--opponent", "30", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    truth = json.loads(first.stdout)["win_probability"]
    assert truth < 0.4  # far behind: the truth is well below what 0.5 everywhere would say
    rewrite(cache_path(VARIANT), lambda name, array: np.full_like(array, 0.5))
    solver_module._MEMORY = solver_module.PolicyCache()
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["win_probability"] == pytest.approx(truth, abs=1e-12)


def test_an_endgame_cache_file_tampered_with_is_solved_again(cache: Path) -> None:
    variant = find_variant("pig", goal=12, endgame="final-round")
    first = exact_module.exact_policy(variant, 2)
    path = exact_module.exact_cache_path(variant, 2)
    assert path.is_file()
    rewrite(path, lambda name, array: np.clip(array * 0.9, 0, 1) if name == "values" else array)
    exact_module._MEMORY = None
    again = exact_module.exact_policy(variant, 2)
    assert not again.from_cache
    assert np.allclose(again.values, first.values)
    with zipfile.ZipFile(path) as archive:
        assert "values.npy" in archive.namelist()
    check_npz(path)  # replaced by a sound file
