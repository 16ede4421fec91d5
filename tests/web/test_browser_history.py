"""Your history, practice and the review's luck in real headless Chromium: the games a browser holds, no account."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from browserhelpers import open_page, shot
from test_web_history import play_out

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def games(server: str) -> list[tuple[str, dict[str, str]]]:
    """Play two hot-seat games to the end over HTTP (one holding early, one late); return codes and tokens."""
    with httpx.Client(base_url=server, timeout=60) as client:
        return [play_out(client, hold_at=hold)[:2] for hold in (3, 18)]


def held_in(page: Any, games: list[tuple[str, dict[str, str]]]) -> None:
    """Give the browser the seat tokens of ``games`` as the game pages keep them."""
    for code, tokens in games:
        entry = [f"pigdice:{code}", json.dumps({"tokens": tokens})]
        page.evaluate("([key, value]) => localStorage.setItem(key, value)", entry)


@pytest.mark.slow
def test_the_history_page_shows_the_games_a_browser_played(server: str, chromium: Any, games: Any) -> None:
    context, page, errors = open_page(chromium)
    try:
        page.goto(server + "/history")
        held_in(page, games)
        page.reload()
        page.wait_for_selector("#history-card:not([hidden])", timeout=30000)
        rows = page.locator("#history-table tbody tr")
        assert rows.count() == 4, page.inner_text("#history-skipped")  # both seats of both hot-seat games
        assert "Performance Rating" in page.inner_text("#history-totals")
        page.wait_for_function("() => document.querySelectorAll('#history-chart .scatterlayer .trace').length >= 2")
        key = page.evaluate("() => JSON.parse(localStorage.getItem('pigdice-player')).key")
        assert len(key) == 32 and page.inner_text("#player-key").startswith(key[:8])
        shot(page, "history")
        assert not errors
    finally:
        context.close()


@pytest.mark.slow  # starts a browser: 10 s warm
def test_practice_asks_until_every_position_is_answered_right(server: str, chromium: Any, games: Any) -> None:
    context, page, errors = open_page(chromium)
    try:
        page.goto(server + "/practice")
        held_in(page, games)
        page.reload()
        page.wait_for_selector("#practice-card:not([hidden])", timeout=30000)
        shot(page, "practice")
        first_question = page.inner_text("#practice-question")
        options = page.locator("#practice-options button")
        assert options.count() == 2 and "your turn total" in first_question
        # answer the first card wrong on purpose: it comes back after the others
        asked: set[str] = set()
        for step in range(60):
            if page.is_visible("#practice-status"):
                break
            question = page.inner_text("#practice-question")
            asked.add(question)
            card = page.evaluate(
                "async (q) => { const b = await PigMine.post('/api/practice', PigMine.player());"
                " return b.cards.find((c) => c.question === q); }",
                question,
            )
            best = card["best"]
            wrong = next(o for o in card["options"] if card["values"][o] < card["values"][best] - 1e-9)
            page.click(f"#practice-options button[data-option='{wrong if step == 0 else best}']")
            assert page.inner_text("#practice-verdict").startswith("Not the best" if step == 0 else "Right")
            if step == 0:
                shot(page, "practice-answer")
            page.click("#practice-next")
        assert "Done for today" in page.inner_text("#practice-status")
        progress = page.evaluate("() => JSON.parse(localStorage.getItem('pigdice-player')).practice")
        assert len(progress) == len(asked) and all(entry["right"] == 1 for entry in progress.values())
        assert sorted(entry["asked"] for entry in progress.values())[-1] == 2  # the one answered wrong, then right
        page.reload()  # the cards answered right are due again tomorrow: the next session asks the others, if any
        page.wait_for_selector("#practice-status:not([hidden]), #practice-card:not([hidden])")
        if page.is_visible("#practice-card"):
            assert page.inner_text("#practice-question") not in asked
        else:
            assert "Nothing is due today" in page.inner_text("#practice-status")
        assert not errors
    finally:
        context.close()


@pytest.mark.slow
def test_the_review_chart_draws_luck_and_play_with_the_luckiest_rolls(server: str, chromium: Any, games: Any) -> None:
    context, page, errors = open_page(chromium)
    try:
        code = games[0][0]
        page.goto(f"{server}/review/{code}")
        page.wait_for_selector("#luck-note:not([hidden])", timeout=30000)
        names = page.evaluate("() => document.getElementById('advantage-chart').data.map((t) => t.name)")
        assert any(name.endswith(": luck") for name in names) and any(name.endswith(": play") for name in names)
        assert "luckiest and unluckiest rolls" in names
        summary = page.inner_text("#review-summary")
        assert "points of winning chance" in summary and "Performance Rating" in summary
        shot(page, "review-luck")
        assert not errors
    finally:
        context.close()
