"""The game designer: exact measures, the space, the Pareto front, and the same rows in process and on Dask."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pigdice.errors import BadParameterError
from pigdice.rules import find_variant
from pigdice.rules.designed import RuleSet
from pigdice.solve.exact import exact_policy
from pigdice.study.analysis import analyze
from pigdice.study.design import search
from pigdice.study.design.measures import complexity, measure
from pigdice.study.design.pareto import design_score, objectives, pareto_front, shortlist
from pigdice.study.design.report import Label, label_box, place_labels, report_text
from pigdice.study.design.results import NONDETERMINISTIC, append_results, read_results
from pigdice.study.design.search import Task, plan, run_search
from pigdice.study.design.space import Space, commonest_total, example_space, parse_space

# a small space: 8 distinct rule sets, goal 15 (every one measured in a few milliseconds)
SMALL = Space({"dice": (1, 2), "sides": (4, 6), "single_bad": ("bust", "reset"), "doubles": ("normal",), "goal": (15,)})


# -- measures --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["pig", "two-dice-pig", "big-pig"])
def test_measures_equal_the_exact_analyses(name: str) -> None:
    variant = find_variant(name, goal=40)
    measured = measure(variant).values
    analysis = analyze(variant)
    seating = analysis.seatings[0]
    assert measured["fpa"] == pytest.approx(analysis.first_player_advantage, abs=1e-9)
    assert measured["mean_turns"] == pytest.approx(analysis.mean_length, abs=1e-9)
    assert measured["sd_turns"] == pytest.approx(seating.sd_length, abs=1e-9)
    assert measured["winner_scoring_turns"] == pytest.approx(analysis.winner_scoring_turns, abs=1e-9)
    assert 0 <= measured["close_decisions"] <= 1
    assert math.isnan(measured["comeback"]) or 0 <= measured["comeback"] <= 1  # NaN: nobody falls that far behind
    assert measured["skill_edge"] == min(measured["edge_max_score"], measured["edge_keep_pace"])


def test_pig_at_100_reference_values() -> None:
    measured = measure(find_variant("pig")).values
    # Neller & Presser 2004: the first player of optimal Pig to 100 wins 0.5306
    assert measured["fpa"] == pytest.approx(0.0306, abs=5e-5)
    assert measured["complexity"] == 2


def test_the_first_player_advantage_follows_the_games_own_ending() -> None:
    variant = find_variant("piggy-six", goal=30)
    expected = exact_policy(variant, 2, use_cache=False).win_probability_by_seat()[0] - 0.5
    assert measure(variant).values["fpa"] == pytest.approx(expected, abs=1e-12)


def test_rule_complexity_counts_distinct_effects() -> None:
    counts = {name: complexity(find_variant(name)) for name in ("pig", "two-dice-pig", "big-pig", "freys-pig")}
    assert counts == {"pig": 2, "two-dice-pig": 3, "big-pig": 3, "freys-pig": 5}
    assert complexity(find_variant("pig-dice")) == 6  # add, add double, subtract, double, bust; final round


# -- the space -------------------------------------------------------------------------------------
def test_the_example_space_and_its_seeded_order() -> None:
    points = example_space().points()
    assert len(points) == 3864
    assert len({p.key() for p in points}) == len(points)
    assert [p.key() for p in SMALL.points()] == [p.key() for p in SMALL.points()]
    reordered = Space(SMALL.fields, seed=5).points()
    assert sorted(p.key() for p in reordered) == sorted(p.key() for p in SMALL.points())
    sampled = parse_space({**SMALL.to_json(), "mode": "sample", "samples": 3}).points()
    assert [p.key() for p in sampled] == [p.key() for p in SMALL.points()[:3]]
    assert parse_space(json.loads(json.dumps(example_space().to_json()))) == example_space()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"fields": {"dice": [1, 2, 99]}}, "dice"),
        ({"fields": {"wild": [1]}}, "unknown field"),
        ({"fields": {"dice": 2}}, "list 1 to"),
        ({"fields": {"dice": [2, 2]}}, "twice"),
        (
            {
                "fields": {
                    "goal": list(range(1, 65)),
                    "bonus": list(range(64)),
                    "bust_sum": list(range(49)),
                    "sides": list(range(2, 13)),
                }
            },
            "at most",
        ),
        ({"mode": "sample"}, "samples"),
        ({"seed": -1}, "seed"),
        ({"version": 9}, "version"),
        ({"surprise": 1}, "unknown key"),
        ({"min_risk": "1/2", "max_risk": "1/3"}, "above max_risk"),
        ({"min_risk": "lots"}, "min_risk"),
    ],
)
def test_bad_space_files_are_clear_errors(change: dict[str, Any], words: str) -> None:
    with pytest.raises(BadParameterError, match=words):
        parse_space({**SMALL.to_json(), **change})


# -- Pareto front and shortlist --------------------------------------------------------------------
def test_pareto_front_of_a_hand_made_set() -> None:
    points = [
        (1.0, 1.0),  # front
        (2.0, 0.5),  # front
        (2.0, 2.0),  # dominated by (1, 1)
        (1.0, 1.0),  # equal to the first: also on the front
        (0.5, 3.0),  # front
        (3.0, 3.0),  # dominated
        (math.nan, 0.0),  # missing: never on the front
    ]
    assert pareto_front(points) == [True, True, False, True, True, False, False]


def row(ident: str, fpa: float, skill: float, turns: float, comeback: float, effects: float) -> dict[str, Any]:
    return {
        "id": ident,
        "bust_sum": ord(ident),  # different dice rules for every row
        "fpa": fpa,
        "skill_edge": skill,
        "winner_scoring_turns": turns,
        "comeback": comeback,
        "complexity": effects,
    }


def test_shortlist_ranks_the_front_by_design_score() -> None:
    rows = [
        row("a", 0.00, 0.10, 4.5, 0.40, 2),  # ideal: score 1
        row("b", 0.05, 0.05, 4.5, 0.20, 2),
        row("c", 0.06, 0.04, 4.5, 0.10, 3),  # dominated by b
        row("d", 0.00, 0.00, 1.5, 0.00, 9),  # on the front? dominated by a
    ]
    assert objectives(rows[0]) == (0.0, -0.10, 0.0, -0.40, 2)
    assert design_score(rows[0]) == pytest.approx(1.0)
    chosen = shortlist(rows, 5)
    assert [r["id"] for r in chosen] == ["a"]
    chosen = shortlist(rows[1:], 5)
    assert [r["id"] for r in chosen] == ["b", "d"] and [r["rank"] for r in chosen] == [1, 2]
    # the same dice with another ending takes no second place
    twins = [
        {**rows[0], "dice": 2, "endgame": "first-to-goal"},
        {**rows[0], "id": "e", "dice": 2, "endgame": "final-round"},
    ]
    assert [r["id"] for r in shortlist(twins, 5)] == ["a"]


# -- search: in process, on a LocalCluster, resumed --------------------------------------------------
def same_rows(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    def clean(r: dict[str, Any]) -> dict[str, Any]:
        return {
            k: ("nan" if isinstance(v, float) and math.isnan(v) else v)
            for k, v in r.items()
            if k not in NONDETERMINISTIC
        }

    return sorted((clean(r) for r in a), key=str) == sorted((clean(r) for r in b), key=str)


def test_the_same_results_in_process_and_on_a_local_cluster(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    tasks = plan(SMALL.points(), None, reference=())
    assert len(tasks) == 8
    here = run_search(tasks, tmp_path / "here", in_process=True)
    told: list[str] = []
    there = run_search(tasks, tmp_path / "there", workers=2, processes=False, announce=told.append)
    assert here.measured == there.measured == 8
    assert told == [f"Dask dashboard: {there.dashboard}"] and there.dashboard.startswith("http")
    assert here.dashboard == ""
    assert "LocalCluster" in there.where
    assert same_rows(here.rows, there.rows)
    assert same_rows(read_results(tmp_path / "there"), there.rows)


def test_the_same_results_on_a_cluster_given_by_its_scheduler_address(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    tasks = plan(SMALL.points(), 4, reference=())
    here = run_search(tasks, tmp_path / "here", in_process=True)
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
        there = run_search(tasks, tmp_path / "there", scheduler=cluster.scheduler_address)
    assert there.where.startswith("Dask scheduler") and there.measured == 4
    assert same_rows(here.rows, there.rows)


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr(search, "CONNECT_TIMEOUT", "1s")
    with pytest.raises(BadParameterError, match="cannot reach the Dask scheduler"):
        run_search(plan(SMALL.points(), 1, reference=()), tmp_path, scheduler="tcp://127.0.0.1:9")


def test_a_rerun_resumes_and_measures_nothing_new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = plan(SMALL.points(), 5, reference=())
    first = run_search(tasks, tmp_path, in_process=True)
    assert first.measured == 5

    def refuse(task: Task) -> dict[str, Any]:
        raise AssertionError(f"measured {task.id} again")

    monkeypatch.setattr(search, "measure_row", refuse)
    again = run_search(tasks, tmp_path, in_process=True)
    assert (again.measured, again.reused) == (0, 5)
    assert same_rows(first.rows, again.rows)
    more = plan(SMALL.points(), 6, reference=())
    monkeypatch.undo()
    grown = run_search(more, tmp_path, in_process=True)
    assert (grown.measured, grown.reused) == (1, 5)


def test_a_game_that_cannot_be_measured_is_recorded_not_raised(tmp_path: Path) -> None:
    row = search.measure_row(Task("v-hog", "named", "hog"))
    assert "roll/hold" in row["error"] and math.isnan(row["fpa"])
    append_results(tmp_path, [row])
    assert read_results(tmp_path)[0]["error"] == row["error"]


def test_a_designed_row_carries_its_rules() -> None:
    rules = RuleSet(dice=1, goal=15)
    row = search.measure_row(Task.designed(rules))
    assert row["id"] == rules.ident() and row["dice"] == 1 and row["goal"] == 15 and row["error"] == ""


# -- the reference games, the rules in words, the commonest total, the plots -----------------------
def test_the_named_games_are_measured_at_every_goal_of_the_space() -> None:
    points = Space({"dice": (1, 2), "goal": (15, 20)}).points()
    tasks = plan(points, None, reference=("pig", "big-pig"))
    named = [(t.spec, t.goal) for t in tasks if t.kind == "named"]
    assert sorted(named) == [("big-pig", 15), ("big-pig", 20), ("pig", 15), ("pig", 20)]
    assert len({t.id for t in tasks}) == len(tasks)
    # a budget that keeps only goal-20 rule sets compares them with goal-20 games only
    only = [p for p in points if p.goal == 20]
    assert {t.goal for t in plan(only, None, reference=("pig",)) if t.kind == "named"} == {20}
    row = search.measure_row(Task.named("pig", 30))
    assert row["goal"] == 30 and row["error"] == ""
    assert row["fpa"] == pytest.approx(measure(find_variant("pig", goal=30)).values["fpa"], abs=1e-12)
    assert search.measure_row(Task.named("pig"))["goal"] == 100  # no rule set: the game's own goal


def every_rule() -> list[RuleSet]:
    """Return rule sets that vary every rule: the dice rules on one ending, the endings on one set of dice."""
    dice_rules = Space(
        {
            "dice": (1, 2, 3),
            "sides": (4, 6),
            "bad_face": (1, 2),
            "single_bad": ("bust", "reset", "harmless"),
            "double_bad": ("same", "bust", "reset", "add", "set", "bank", "score"),
            "bonus": (0, 10),
            "doubles": ("normal", "twice", "bust"),
            "bust_sum": (0, 5),
        },
        min_risk=Fraction(0),
        max_risk=Fraction(1),
    ).points()
    endings = Space(
        {
            "dice": (1, 2),
            "goal": (50, 100),
            "endgame": ("first-to-goal", "final-round", "equal-turns"),
            "ties": ("shared", "first-to-reach"),
        }
    ).points()
    return dice_rules + [p for p in endings if p.key() not in {q.key() for q in dice_rules}]


def test_the_rules_in_words_name_every_rule_and_no_empty_bonus() -> None:
    points = every_rule()
    assert len(points) > 1000
    words = {p.key(): "\n".join(p.words()) for p in points}
    summaries = {p.key(): p.summary() for p in points}
    # two games that play differently never read the same: no rule is left out of either text
    assert len(set(words.values())) == len(points)
    assert len(set(summaries.values())) == len(points)
    for text in (*words.values(), *summaries.values()):
        assert "plus 0" not in text and "exactly 0" not in text and "add 0" not in text
    bank = RuleSet(double_bad="bank", bonus=0)
    assert "Rolling two 1s at once banks the turn total and ends the turn." in bank.words()
    assert "bank the turn total, turn ends" in {row.effect.describe() for row in bank.roll_spec().outcomes()}
    variant = RuleSet(double_bad="set", bonus=0, doubles="twice", bust_sum=7, goal=50, endgame="final-round")
    summary = variant.to_variant().summary
    for part in ("two 1s wipe out the turn total", "a total of 7", "doubles count twice", "50", "one more turn"):
        assert part in summary


def test_the_commonest_total_is_counted_and_one_die_has_none() -> None:
    for dice in (2, 3, 4):
        for sides in range(2, 13):
            counts = Counter(sum(f) for f in itertools.product(range(1, sides + 1), repeat=dice))
            most = max(counts.values())
            assert commonest_total(dice, sides) == min(t for t, n in counts.items() if n == most), (dice, sides)
    assert commonest_total(1, 6) is None
    # a one-die combination asking for the commonest total is dropped; a space of only one die is refused
    mixed = Space({"dice": (1, 2), "bust_sum": ("commonest",), "single_bad": ("harmless",)}).points()
    assert [(p.dice, p.bust_sum) for p in mixed] == [(2, 7)]
    with pytest.raises(BadParameterError, match="two or more dice"):
        parse_space({**SMALL.to_json(), "fields": {"dice": [1], "bust_sum": [0, "commonest"]}})


def test_plot_labels_never_overlap() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    from matplotlib.transforms import Bbox

    rng = np.random.default_rng(7)
    xs, ys = rng.normal(2.0, 0.05, 30), rng.normal(5.0, 0.05, 30)  # thirty labels on one crowded spot
    fig, ax = plt.subplots(figsize=(9, 6.5), dpi=100)
    try:
        ax.scatter(xs, ys)
        ax.set_xlim(0, 4)
        ax.set_ylim(0, 10)
        fig.tight_layout()
        points = [(float(x), float(y)) for x, y in zip(xs, ys, strict=True)]
        labels = [Label(x, y, f"named game {n} (100)", "black", 7) for n, (x, y) in enumerate(points)]
        placed = place_labels(fig, ax, labels, [(x, y, 4.0) for x, y in points])
        assert len(placed) == 30
        renderer = fig.canvas.get_renderer()
        boxes = [Bbox.from_extents(*label_box(note, renderer)) for note in placed]
        frame = ax.get_window_extent(renderer)
        centres = ax.transData.transform(np.column_stack([xs, ys]))
        radius = 4.0 * fig.dpi / 72
        for n, box in enumerate(boxes):
            assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            assert all(not box.overlaps(other) for other in boxes[n + 1 :]), labels[n].text
            clear_x = (centres[:, 0] + radius <= box.x0) | (centres[:, 0] - radius >= box.x1)
            clear_y = (centres[:, 1] + radius <= box.y0) | (centres[:, 1] - radius >= box.y1)
            assert np.all(clear_x | clear_y), f"{labels[n].text} covers a marker"
    finally:
        plt.close(fig)


def test_the_report_shows_the_goal_of_every_game(tmp_path: Path) -> None:
    tasks = plan(Space({"dice": (1,), "goal": (15, 20)}).points(), None, reference=("pig",))
    run = run_search(tasks, tmp_path, in_process=True)
    chosen = shortlist(run.designed(), 5)
    summary = {"space_size": 2, "budget": 2, "designed": 2, "measured": 4, "reused": 0, "errors": 0, "front": 1}
    text = report_text({**summary, "where": "in process", "seconds": 1.0}, run.reference(), chosen)
    head = next(line for line in text.splitlines() if line.startswith("| game |"))
    assert head.startswith("| game | goal |")
    assert {line.split(" | ")[1] for line in text.splitlines() if line.startswith("| pig |")} == {"15", "20"}
