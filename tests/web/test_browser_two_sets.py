"""Piggy Six for large groups on a phone (Debian's Chromium through Playwright at 360x740): eight seats, two sets
of dice, both turns under way shown, played to the end without the page scrolling sideways."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from browserhelpers import open_page, shot

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]

READY = "() => !document.querySelector('#roll-btn').disabled || !document.querySelector('#game-over').hidden"


def test_eight_seats_with_two_sets_of_dice_play_to_the_end_on_a_phone(server: str, chromium: Any) -> None:
    players = ["you", "you", "hold:6", "hold:9", "hold:12", "hold:15", "hold:18", "hold:8"]
    body = {"variant": "piggy-six", "params": {"dice_sets": "2"}, "players": players, "goal": 30}
    reply = httpx.post(f"{server}/api/games", json=body, timeout=30)
    assert reply.status_code == 201, reply.text
    path, tokens = f"/play/{reply.json()['code']}", reply.json()["tokens"]
    context, page, errors = open_page(chromium, 360, 740)
    page.goto(server + "/rules")  # same origin, so the page's storage is the room's
    page.evaluate(
        "([key, tokens]) => localStorage.setItem(key, JSON.stringify({tokens}))", [f"pigdice:{path[6:]}", tokens]
    )
    page.goto(server + path)
    both_shown = False
    for _ in range(400):
        page.wait_for_function(READY, timeout=30000)
        if page.is_visible("#game-over"):
            break
        rows = page.locator("#sets-line > div").all_inner_texts()
        assert len(rows) == 2 and rows[0].startswith("Set 1") and rows[1].startswith("Set 2"), rows
        if all("turn total" in row for row in rows) and not both_shown:
            both_shown = True
            assert page.locator("#seats .tag.dice-set").count() == 2  # both players with dice in hand are marked
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
            shot(page, "phone-360-piggy-six-two-sets")
        page.click("#hold-btn" if int(page.inner_text("#turn-total")) >= 6 else "#roll-btn")
    else:
        pytest.fail("the game should end")
    assert both_shown, "both turns under way were shown at some point"
    assert page.is_hidden("#sets-line")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    context.close()
    assert not errors, errors
