"""The Sample games page (docs/play/sample-games.md): generated from the seeded playthroughs, in a player's words."""

from __future__ import annotations

import re
from pathlib import Path

import sample_games

GAMES = sample_games.read_games()
BY_NAME = {game["variant"]: game for game in GAMES}


def test_the_sample_games_page_is_generated_from_the_playthroughs() -> None:
    page = Path(__file__).resolve().parents[2] / sample_games.OUT
    assert page.read_text() == sample_games.render(GAMES), "run python tests/golden/sample_games.py"


def test_every_game_has_a_row_and_an_account() -> None:
    page = sample_games.render(GAMES)
    for game in GAMES:
        title = sample_games.VARIANTS[game["variant"]].title
        assert f"| {title}, to {game['goal']} |" in page
        assert f"\n## {title}\n" in page


def test_pigs_first_turns_read_as_the_stored_moves_played() -> None:
    # tests/data/playthroughs/pig.json: Wilbur rolls 5 then 1 (a bust), Babe rolls 3 and 5 and holds, ...
    assert sample_games.turn_lines(BY_NAME["pig"]) == [
        "1. **Wilbur** rolled 5, 1; lost the turn total of 5. *Scores: Wilbur 0, Babe 0.*",
        "2. **Babe** rolled 3, 5 (turn total 8); held 8: score 8. *Scores: Wilbur 0, Babe 8.*",
        "3. **Wilbur** rolled 4, 2, 3, 2, 4, 3, 1; lost the turn total of 18. *Scores: Wilbur 0, Babe 8.*",
        "4. **Babe** held without rolling. *Scores: Wilbur 0, Babe 8.*",
    ]


def test_swine_herds_shared_rolls_name_everyone_who_lost() -> None:
    # tests/data/playthroughs/swine-herd.json: all three stay standing, a 5, then a 1 busts everyone
    first = sample_games.turn_lines(BY_NAME["swine-herd"])[0]
    assert first.startswith("1. **Everyone** rolled 5, 1; Wilbur, Babe and Hamlet lost the turn total of 5 each.")


def test_the_summary_counts_the_stored_games_turns_and_rolls() -> None:
    row = sample_games.summary_row(BY_NAME["pig"])
    assert row == [
        "Pig, to 100",
        "27",
        "62",
        "101, 38",
        "Wilbur",
        "Wilbur keeps pace and ends the race; Babe plays at random",
    ]


def test_the_page_speaks_a_players_language() -> None:
    page = sample_games.render(GAMES)
    assert not re.search(r"\b(hold|dice|rolls|roll|level):\d|keep-pace|max-score|(^|\s)--\w|_|Turn[A-Z]|seed", page)
    assert "keeps pace and ends the race" in page and "holds at 20, throwing 2 dice" in page
