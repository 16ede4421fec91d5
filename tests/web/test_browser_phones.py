"""Every page on a phone (Debian's Chromium through Playwright at 360x740 and 390x844): nothing scrolls sideways,
no control is cut off at the edge, and every control is at least 44 px each way (a fingertip)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from browserhelpers import open_page, shot

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(180)]

PHONES = [(360, 740), (390, 844)]
CONTROLS = "button, a.btn, input, select, summary, .topbar a, a"
# what the page measures: its width, and every visible control that is too small or sticks out of the screen
MEASURE = """(selector) => {
  const width = document.documentElement.clientWidth;
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0
    && getComputedStyle(e).visibility !== 'hidden' && !e.closest('.js-plotly-plot, [hidden]'); };
  const box = (e) => { const r = e.getBoundingClientRect();
    return (e.id ? '#' + e.id : e.tagName.toLowerCase()) + ' "' + (e.textContent || e.value || '').trim().slice(0, 24)
      + '" ' + Math.round(r.width) + 'x' + Math.round(r.height) + ' at ' + Math.round(r.left); };
  const controls = [...document.querySelectorAll(selector)].filter(shown);
  return {
    scroll: document.documentElement.scrollWidth, width,
    small: controls.filter((e) => { const r = e.getBoundingClientRect(); return r.width < 44 || r.height < 44; })
      .map(box),
    cut: controls.filter((e) => { const r = e.getBoundingClientRect(); return r.left < 0 || r.right > width + 0.5; })
      .map(box),
  };
}"""


def _room(url: str, variant: str, players: list[str], goal: int = 30) -> tuple[str, dict[str, str]]:
    """Create a room through the API; return its page and the seat tokens."""
    reply = httpx.post(f"{url}/api/games", json={"variant": variant, "players": players, "goal": goal}, timeout=30)
    assert reply.status_code == 201, reply.text
    data = reply.json()
    return f"/play/{data['code']}", data["tokens"]


def _check(page: Any, what: str) -> None:
    """Assert the page fits the screen and every control is a fingertip's size and on screen."""
    measured = page.evaluate(MEASURE, CONTROLS)
    assert measured["scroll"] <= measured["width"], (what, measured)
    assert not measured["cut"], (what, measured["cut"])
    assert not measured["small"], (what, measured["small"])


def _as_player(page: Any, url: str, path: str, tokens: dict[str, str]) -> None:
    """Open a room's page holding its seats (the tokens go where the page keeps them)."""
    page.goto(url + "/rules")  # same origin, so the page's storage is the room's
    page.evaluate(
        "([key, tokens]) => localStorage.setItem(key, JSON.stringify({tokens}))", [f"pigdice:{path[6:]}", tokens]
    )
    page.goto(url + path)
    page.wait_for_selector("#status:not(:has-text('Connecting'))")


@pytest.mark.parametrize(("width", "height"), PHONES)
def test_home_rules_and_explorer_fit_a_phone(server: str, chromium: Any, width: int, height: int) -> None:
    context, page, errors = open_page(chromium, width, height)
    page.goto(server + "/")
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    for variant in ("big-pig", "pig-dice", "swine-herd", "hog"):  # every rules option of several variants, open
        page.select_option("#variant", variant)
        _check(page, f"home, every rules option of {variant} open")
    shot(page, f"phone-{width}-home")
    for path in ("/rules", "/rules/pig-dice", "/rules/swine-herd", "/explore?variant=pig&goal=30"):
        page.goto(server + path)
        if path.startswith("/explore"):
            page.wait_for_selector("#surface .main-svg", timeout=60000)
        _check(page, path)
    shot(page, f"phone-{width}-explore")
    context.close()
    assert not errors, errors


@pytest.mark.parametrize(("width", "height"), PHONES)
def test_a_game_of_every_kind_fits_a_phone(server: str, chromium: Any, width: int, height: int) -> None:
    context, page, errors = open_page(chromium, width, height)
    games = {
        "pig": ["you", "hold:20"],
        "hog": ["you", "dice:5"],
        "pass-the-pigs": ["you", "hold:20"],
        "swine-herd": ["you", "you", "you", "you", "you", "you"],  # six at one phone, passing it round
        "piggy-six": ["you", "friend", "hold:8", "hold:14"],
    }
    for variant, players in games.items():
        path, tokens = _room(server, variant, players)
        _as_player(page, server, path, tokens)
        if variant == "swine-herd":
            page.wait_for_selector("#handover-btn:not([hidden])", timeout=15000)
        _check(page, f"game of {variant}")
        shot(page, f"phone-{width}-{variant}")
    context.close()
    assert not errors, errors


@pytest.mark.parametrize(("width", "height"), PHONES)
def test_the_end_of_a_game_and_its_review_fit_a_phone(server: str, chromium: Any, width: int, height: int) -> None:
    context, page, errors = open_page(chromium, width, height)
    path, tokens = _room(server, "pig", ["you", "hold:20"])
    _as_player(page, server, path, tokens)
    page.wait_for_selector("#roll-btn:not([disabled])")
    page.click("#roll-btn")
    page.once("dialog", lambda dialog: dialog.accept())
    page.wait_for_selector("#resign-btn:not([hidden])")
    page.click("#resign-btn")
    page.wait_for_selector("#game-over:not([hidden])")
    _check(page, "a game at its end")
    shot(page, f"phone-{width}-over", full=False)
    page.goto(server + path.replace("/play/", "/review/"))
    page.wait_for_selector("#summary-card:not([hidden])", timeout=60000)
    _check(page, "review")
    shot(page, f"phone-{width}-review")
    context.close()
    assert not errors, errors


def test_a_table_of_three_at_swine_herd_shows_the_three_player_chance_on_a_phone(server: str, chromium: Any) -> None:
    context, page, errors = open_page(chromium, 360, 740)
    path, tokens = _room(server, "swine-herd", ["you", "optimal", "optimal"], goal=15)  # solved in a moment
    _as_player(page, server, path, {"0": tokens["0"]})
    page.wait_for_selector("#hold-btn:not([disabled])", timeout=60000)
    page.wait_for_function("() => document.getElementById('win-chance').textContent.includes('%')", timeout=60000)
    assert page.inner_text("#win-label").startswith("Your chance to be the winner of 3")
    assert "estimate" not in page.inner_text("#approx")  # the 3-player equilibrium's own chance, not a 2-player one
    assert page.inner_text("#win-chance") != "50.0%"
    _check(page, "a table of three at Swine Herd")
    shot(page, "phone-360-swine-herd-three")
    context.close()
    assert not errors, errors


def test_a_table_of_four_at_swine_herd_labels_the_approximation_on_a_phone(server: str, chromium: Any) -> None:
    context, page, errors = open_page(chromium, 360, 740)
    path, tokens = _room(server, "swine-herd", ["you", "optimal", "optimal", "optimal"], goal=15)
    _as_player(page, server, path, {"0": tokens["0"]})
    page.wait_for_selector("#hold-btn:not([disabled])", timeout=60000)
    page.wait_for_function("() => document.getElementById('win-chance').textContent.includes('%')", timeout=60000)
    assert page.inner_text("#win-label").startswith("Your chance to be the winner of 4")
    assert page.inner_text("#win-chance") != "50.0%"  # the table's chance, not the 2-player game's
    approx = page.inner_text("#approx")
    assert "measured exactly with 4 players" in approx and "estimate for a table of 4" in approx
    page.click("#hint-btn")
    page.wait_for_function("() => document.getElementById('hint-text').textContent.includes('approximate')")
    text = page.inner_text("#hint-text")
    assert text.startswith("Best (approximate): ") and "against the leader alone" in text, text
    _check(page, "a table of four at Swine Herd")
    shot(page, "phone-360-swine-herd-four")
    context.close()
    assert not errors, errors
