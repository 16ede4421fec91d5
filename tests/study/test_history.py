"""Your history from a games folder: every person's seat reviewed exactly, totals, trend and the plot."""

from __future__ import annotations

from pathlib import Path

import pytest

from pigdice.engine.game import apply, dice_rng, new_game, robot_rng
from pigdice.engine.record import Commitment, SeatEntry, record_game, save_record
from pigdice.players.specs import parse_strategy
from pigdice.rules import find_variant
from pigdice.study.history import History, history_of, is_person, read_folder
from pigdice.study.review import review_record


def save_games(folder: Path, count: int) -> None:
    """Save ``count`` finished games of Pig to 30: a person (playing hold:12) against level:5."""
    variant = find_variant("pig", goal=30)
    you, robot = parse_strategy("hold:12", variant), parse_strategy("level:5", variant)
    for seed in range(count):
        seats = [you, robot] if seed % 2 == 0 else [robot, you]
        state, dice, rng, moves = new_game(variant, 2), dice_rng(seed), robot_rng(seed), []
        while not state.is_terminal():
            moves.append(seats[state.current].choose(state, rng))
            state, _ = apply(state, moves[-1], dice)
        entries = [SeatEntry("You", "you", "human"), SeatEntry("Babe", "level:5", "robot")]
        record = record_game(
            variant, entries if seed % 2 == 0 else entries[::-1], seed, moves,
            commitment=Commitment.make(seed), played_at=f"2026-01-{seed + 1:02d}T10:00:00+00:00",
        )  # fmt: skip
        save_record(record, folder / f"game-{seed}.json")


def test_a_history_reviews_the_persons_seat_of_every_saved_game(tmp_path: Path) -> None:
    save_games(tmp_path, 5)
    (tmp_path / "broken.json").write_text("{")
    records, skipped = read_folder(tmp_path)
    assert len(records) == 5 and len(skipped) == 1 and "broken.json" in skipped[0]
    history = history_of(((p.name, r) for p, r in records), lambda r: review_record(r).to_json(), is_person)
    assert [g.played_at[:10] for g in history.games] == [f"2026-01-0{n}" for n in range(1, 6)]  # type: ignore[index]
    assert all(g.name == "You" and g.opponents == ("Babe",) and g.finished for g in history.games)
    for game in history.games:
        assert game.result == pytest.approx(game.start + game.luck - game.error, abs=1e-9)  # type: ignore[operator]
        assert game.luck == pytest.approx(game.dice + game.others)  # type: ignore[operator]
    assert history.wins == sum(g.result or 0 for g in history.games)
    assert history.rating.decisions == sum(g.rating.decisions for g in history.games) > 0
    assert history.average_luck == pytest.approx(sum(g.dice for g in history.games) / 5)  # type: ignore[misc]
    assert history.trend(2)[1] == (history.games[0].rating + history.games[1].rating).value
    data = history.to_json()
    assert data["finished"] == 5 and len(data["entries"]) == 5 and len(data["trend"]) == 5


def test_the_plot_draws_the_rating_and_the_luck(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from pigdice.study.plots.history import plot_history

    save_games(tmp_path, 3)
    records, _ = read_folder(tmp_path)
    history = history_of(((p.name, r) for p, r in records), lambda r: review_record(r).to_json(), is_person)
    picture = tmp_path / "history.png"
    plot_history(history, picture)
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plot_history(History(()), tmp_path / "empty.png")  # no game: an empty picture, no error
