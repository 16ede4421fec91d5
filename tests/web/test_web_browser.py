"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright: play, share a room, explore.

Screenshots of every page go to $PIGDICE_SHOTS (default /tmp/shots) so people can look at them.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from webhelpers import served

CHROMIUM = Path(os.environ.get("PIGDICE_CHROMIUM", "/usr/bin/chromium"))  # Debian's chromium by default
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(os.environ.get("PIGDICE_SHOTS", "/tmp/shots"))

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


def in_ci() -> bool:
    """Return True when the environment says this is CI (CI=true), where the browser must be there."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(reason: str) -> NoReturn:
    """Fail in CI (a missing browser must not pass silently), skip elsewhere."""
    if in_ci():
        pytest.fail(f"{reason}, and CI is set: install it so the browser tests run")
    pytest.skip(reason)


@contextlib.contextmanager
def chromium_browser() -> Iterator[Any]:
    """Launch Debian's Chromium headless through Playwright (skip, or fail in CI, when either is missing)."""
    api = playwright_module()
    with api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def playwright_module() -> Any:
    """Return playwright.sync_api, or skip (fail in CI) when it or Chromium is missing."""
    if not CHROMIUM.exists():
        missing(f"chromium is not installed at {CHROMIUM} (PIGDICE_CHROMIUM names another path)")
    try:
        import playwright.sync_api as api
    except ImportError:
        missing("the playwright package is not installed")
    return api


@pytest.fixture(scope="module", autouse=True)
def playwright_api() -> Any:
    """Return playwright.sync_api, or skip (fail in CI) when it or Chromium is missing; runs before the server."""
    return playwright_module()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start a real server with robots that move at once; return its base URL."""
    with served(tmp_path_factory.mktemp("browser") / "games.sqlite3") as url:
        yield url


@pytest.fixture(scope="module")
def browser(playwright_api: Any) -> Iterator[Any]:
    """Launch Chromium once for the module."""
    with chromium_browser() as chromium:
        yield chromium


def _page(browser: Any, width: int = 1280, height: int = 800) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return context, page, errors


def _shot(page: Any, name: str, full: bool = True) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def _start_game(page: Any, url: str, variant: str | None = None, goal: int | None = None) -> None:
    """Open the home page at ``url``, pick the variant and goal, start, and wait for the room's page."""
    page.goto(url)
    if variant is not None:
        page.select_option("#variant", variant)
    if goal is not None:
        page.fill("#goal", str(goal))
    page.click("#start")
    page.wait_for_url("**/play/**")


def _wait_for_move(page: Any) -> str:
    """Wait until it is my move or the game is over; return 'move' or 'over'."""
    page.wait_for_function(
        "() => !document.getElementById('game-over').hidden || !document.getElementById('roll-btn').disabled",
        timeout=15000,
    )
    return "over" if page.is_visible("#game-over") else "move"


def test_full_game_against_a_robot_by_clicking(server: str, browser: Any) -> None:
    context, page, errors = _page(browser)
    page.goto(server + "/")
    _shot(page, "home")
    page.fill("#goal", "20")
    page.fill("#seat-list li:nth-child(2) input", "hold:10")
    page.click("#start")
    page.wait_for_url("**/play/**")
    page.wait_for_selector("#roll-btn:not([disabled])")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("#hold-btn")  # at turn total 0: asked first, and "no" keeps the turn
    assert asked == ["Hold with nothing to bank? Your turn passes to the next player."]
    assert page.locator("#log li").count() == 0 and not page.is_disabled("#roll-btn")
    rolled = 0
    for _ in range(300):
        if _wait_for_move(page) == "over":
            break
        seen = page.locator("#log li").count()
        total = int(page.inner_text("#turn-total"))
        if total >= 8 and not page.is_disabled("#hold-btn"):
            page.click("#hold-btn")
        else:
            if rolled == 2:  # ask the perfect player once, on my move, before rolling
                page.click("#hint-btn")
                page.wait_for_function("() => document.getElementById('hint-text').textContent.startsWith('Best')")
                page.wait_for_function("() => document.getElementById('win-chance').textContent.includes('%')")
                _shot(page, "game")
            page.click("#roll-btn")
            rolled += 1
        page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=seen, timeout=5000)
    assert page.is_visible("#game-over")
    title = page.inner_text("#over-title")
    assert "win" in title.lower()
    assert page.locator("#final-scores li").count() == 2
    assert page.locator("#log li").count() > 3
    _shot(page, "game-over", full=False)
    finished_room = page.url
    _review_the_finished_game(browser, finished_room.replace("/play/", "/review/"))
    page.click("#again-btn")
    page.wait_for_url(lambda url: "/play/" in url and url != finished_room)
    page.wait_for_selector("#roll-btn:not([disabled])", timeout=15000)
    assert page.inner_text("#turn-total") == "0"
    assert not errors, errors
    context.close()


def _review_the_finished_game(browser: Any, url: str) -> None:
    """Open a finished game's review: summary, chart, a decision's options when clicked, and the dice check."""
    context, page, errors = _page(browser, height=1400)
    page.goto(url)
    page.wait_for_selector("#summary-card:not([hidden])", timeout=30000)
    page.wait_for_selector("#advantage-chart .main-svg", timeout=10000)
    assert page.locator("#review-summary li").count() == 2
    assert page.locator("#decisions li.decision").count() >= 2
    chart = page.locator("#advantage-chart").bounding_box()
    card = page.locator("#chart-card").bounding_box()
    assert chart is not None and card is not None and chart["width"] > 0.8 * card["width"]  # the chart fills its card
    page.locator("#decisions li.decision").nth(1).click()
    page.wait_for_selector("#decision-card:not([hidden])")
    assert page.locator(".options-table tr").count() >= 2  # a header and at least one option with its chance
    assert "%" in page.inner_text(".options-table")
    # the replay followed the click: the table as the decision found it, one move before it
    page.wait_for_selector("#replay-card:not([hidden])")
    clicked = int(page.inner_text("#decision-title").split()[1])
    total = int(page.get_attribute("#replay-step", "max"))
    before = f"after move {clicked - 1} of {total}" if clicked > 1 else "before the first move"
    assert page.inner_text("#replay-where") == before
    page.click("#replay-next")
    assert page.inner_text("#replay-where") == f"after move {clicked} of {total}"
    assert page.locator("#replay-events li").count() >= 1 and "turn total" in page.inner_text("#replay-scores")
    page.wait_for_selector("#dice-table:not([hidden])", timeout=10000)
    assert "matches the fingerprint" in page.inner_text("#dice-verdict")
    assert "p = " in page.inner_text("#dice-test")
    with page.expect_download() as download:
        page.click("#download-record")
    record = json.loads(Path(download.value.path()).read_text())
    assert record["format"] == "pigdice-game" and record["seed"] and record["commitment"]["salt"]
    _shot(page, "review")
    assert not errors, errors
    context.close()


def alice_and_bob_sit_down(alice: Any, bob: Any, home: str, goal: int | None = None) -> None:
    """Alice opens a room from ``home`` with a seat for a friend (and the goal, if given); Bob takes it by the link."""
    alice.goto(home)
    if goal is not None:
        alice.fill("#goal", str(goal))
    alice.fill("#your-name", "Alice")
    alice.select_option("#seat-list li:nth-child(2) select", "friend")
    alice.click("#start")
    alice.wait_for_url("**/play/**")
    bob.goto(alice.url)
    bob.fill(".seat .join-form input", "Bob")
    bob.click(".seat .join-form button")


def test_two_people_in_one_room_see_each_others_rolls(server: str, browser: Any) -> None:
    ctx_a, alice, errors_a = _page(browser)
    ctx_b, bob, errors_b = _page(browser, 390, 844)  # Bob is on a phone
    alice.goto(server + "/")
    alice.fill("#your-name", "Alice")
    alice.select_option("#seat-list li:nth-child(2) select", "friend")
    alice.click("#start")
    alice.wait_for_url("**/play/**")
    alice.wait_for_selector("#status:has-text('Waiting for 1 more player')")
    code = alice.inner_text("#room-code")
    bob.goto(server + "/")
    bob.fill("input[name=code]", alice.url)  # a pasted link works as a code
    bob.click("#join-room button")
    bob.wait_for_url(f"**/play/{code}")
    bob.fill(".seat .join-form input", "Bob")
    bob.click(".seat .join-form button")
    bob.wait_for_selector(".tag.you")
    alice.wait_for_selector("#roll-btn:not([disabled])")
    assert "Bob" in alice.inner_text("#seats")
    alice.click("#roll-btn")
    bob.wait_for_function("() => document.querySelectorAll('#log li').length >= 1")
    assert "Alice rolled" in bob.inner_text("#log")
    assert bob.locator("#dice-area .die, #dice-area .die-label").count() == 1
    # Alice keeps her turn short (holding at 0 asks first: she says yes); then Bob rolls and Alice sees it
    asked: list[str] = []
    alice.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    for _ in range(50):
        alice.wait_for_function(
            "() => !document.getElementById('roll-btn').disabled"
            " || document.getElementById('status').textContent.includes('Bob')"
        )
        if "Bob" in alice.inner_text("#status"):
            break
        seen = alice.locator("#log li").count()
        alice.click("#hold-btn" if not alice.is_disabled("#hold-btn") else "#roll-btn")
        alice.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=seen, timeout=5000)
    assert all(message.startswith("Hold with nothing to bank?") for message in asked)
    bob.wait_for_selector("#roll-btn:not([disabled])")
    assert bob.inner_text("#clock").startswith("Your time: ")  # an online room: turns are timed
    assert alice.inner_text("#clock").startswith("Bob's time: ")
    bob.click("#roll-btn")
    alice.wait_for_function("() => document.getElementById('log').textContent.includes('Bob rolled')")
    # a spectator is told so, and counted
    ctx_c, carol, errors_c = _page(browser)
    carol.goto(alice.url)
    carol.wait_for_selector("#status:has-text('You are watching')")
    alice.wait_for_selector("#spectators:has-text('1 watching')")
    assert not carol.is_visible("#resign-btn") and carol.is_disabled("#roll-btn")
    _shot(alice, "room-alice")
    _shot(bob, "room-bob-phone")
    # Bob resigns: Alice wins, and starts the rematch; Bob keeps his seat and starts it
    bob.on("dialog", lambda dialog: dialog.accept())
    bob.click("#resign-btn")
    alice.wait_for_selector("#game-over:not([hidden])")
    assert alice.inner_text("#over-title") == "You win!"
    assert "resigned" in alice.inner_text("#seats") and "resigned" in alice.inner_text("#log")
    alice.click("#again-btn")
    alice.wait_for_url(lambda url: "/play/" in url and code not in url)
    bob.wait_for_selector("#again-btn:has-text('Go to the rematch')")  # on the game-over card Bob still sees
    assert "The rematch has started" in bob.inner_text("#banner")
    bob.click("#again-btn")
    bob.wait_for_url(alice.url)
    bob.wait_for_selector("#roll-btn:not([disabled])")  # the old second player starts
    assert bob.inner_text("#clock").startswith("Your time: ")
    assert "Bob" in bob.inner_text("#seats .seat.current") and bob.locator(".seat.current .tag.you").count() == 1
    alice.wait_for_selector("#status:has-text('Bob')")
    assert alice.locator(".tag.you").count() == 1
    _shot(bob, "rematch-bob-phone")
    assert not errors_a and not errors_b and not errors_c, (errors_a, errors_b, errors_c)
    ctx_a.close()
    ctx_b.close()
    ctx_c.close()


def test_a_silent_player_runs_out_of_time(tmp_path: Path, browser: Any) -> None:
    with served(tmp_path / "timed.sqlite3", turn_seconds="3") as url:
        ctx_a, alice, errors_a = _page(browser)
        ctx_b, bob, errors_b = _page(browser)
        alice_and_bob_sit_down(alice, bob, url + "/")
        alice.wait_for_selector("#clock:has-text('Your time')")
        # Alice does nothing: after 3 s her turn passes to Bob, and everyone sees why
        bob.wait_for_selector("#roll-btn:not([disabled])", timeout=10000)
        assert "Alice ran out of time" in bob.inner_text("#log")
        alice.wait_for_selector('#clock:has-text("Bob\'s time")')
        _shot(alice, "timeout")
        assert not errors_a and not errors_b, (errors_a, errors_b)
        ctx_a.close()
        ctx_b.close()


def test_explorer_draws_the_3d_surface(server: str, browser: Any) -> None:
    context, page, errors = _page(browser)
    page.goto(server + "/explore?variant=pig&goal=100")
    page.wait_for_function("() => document.getElementById('surface').data !== undefined", timeout=60000)
    assert page.evaluate("document.getElementById('surface').data[0].type") == "surface"
    page.wait_for_selector("#surface canvas, #surface svg.main-svg")
    page.wait_for_selector("#slice-plot svg.main-svg")
    assert page.locator("#slice-plot .scatterlayer .trace").count() == 2
    page.wait_for_timeout(500)
    _shot(page, "explorer")
    page.select_option("#ex-variant", "hog")
    page.wait_for_function("() => document.getElementById('surface').data[0].type === 'heatmap'", timeout=60000)
    page.wait_for_timeout(300)
    _shot(page, "explorer-hog")
    assert not errors, errors
    context.close()


def test_rules_pages_and_phone_layout(server: str, browser: Any) -> None:
    context, page, errors = _page(browser)
    page.goto(server + "/rules/pig-dice")
    assert "Parker Brothers" in page.inner_text("main")
    _shot(page, "rules")
    page.goto(server + "/rules")
    _shot(page, "rules-index")
    context.close()
    phone, small, small_errors = _page(browser, 390, 844)
    small.goto(server + "/")
    _shot(small, "home-phone")
    small.click("text=Swine Herd, group game")
    small.wait_for_url("**/play/**")
    small.wait_for_selector("#status:has-text('Waiting')")
    _shot(small, "swine-herd-phone")
    # no page is wider than the phone
    assert small.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors and not small_errors, (errors, small_errors)
    phone.close()


def test_pass_the_pigs_and_pig_dice_show_labels(server: str, browser: Any) -> None:
    context, page, errors = _page(browser)
    for variant in ("pass-the-pigs", "pig-dice"):
        _start_game(page, server + "/", variant=variant)
        page.wait_for_selector("#roll-btn:not([disabled])")
        page.click("#roll-btn")
        page.wait_for_selector("#log li")
        labels = page.locator("#dice-area .die, #dice-area .die-label")
        assert labels.count() == 2
        if variant == "pass-the-pigs":
            assert page.locator("#dice-area .die-label.word").count() == 2
            _shot(page, "pass-the-pigs")
    assert not errors, errors
    context.close()


def test_hog_dice_selector_and_swine_herd_hot_seat(server: str, browser: Any) -> None:
    context, page, errors = _page(browser)
    _start_game(page, server + "/?variant=hog", goal=30)
    page.wait_for_selector("#roll-btn:not([disabled])")
    assert page.is_visible("#dice-choice") and not page.is_visible("#hold-btn")
    page.click("#hint-btn")  # one line, in words, and the dice counter set to the perfect player's count
    page.wait_for_function(
        "() => document.getElementById('hint-text').textContent.startsWith('Best: throw')", timeout=60000
    )
    hint = page.inner_text("#hint-text")
    count = hint.split("throw ", 1)[1].split(" ", 1)[0]
    assert hint.count("%") == 1 and "roll:" not in hint, hint
    assert page.input_value("#dice-count") == count
    page.fill("#dice-count", "3")
    page.click("#roll-btn")
    page.wait_for_selector("#log li")
    first = page.locator("#log li").first.inner_text()
    assert first.startswith("You rolled")
    assert page.locator("#log li").first.locator(".die, .die-label").count() == 3
    _shot(page, "hog")

    page.goto(server + "/?variant=swine-herd")
    page.fill("#goal", "30")
    page.click("[data-add=you]")
    page.click("#start")
    page.wait_for_url("**/play/**")
    # hot seat: my two seats choose in secret, each once the device is passed to them; then all is shown
    for _ in range(3):
        page.wait_for_selector("#handover-btn:not([hidden]), #game-over:not([hidden])", timeout=15000)
        if page.is_visible("#game-over"):
            break
        seen = page.locator("#log li").count()
        for turn in range(2):
            page.wait_for_selector("#handover-btn:not([hidden])")
            assert "Pass the device to" in page.inner_text("#status")
            assert not page.is_visible("#roll-btn")  # nobody sees the next seat's buttons before it is handed over
            who = page.inner_text("#handover-btn").removeprefix("I am ").split(":")[0]
            page.click("#handover-btn")
            page.wait_for_selector("#roll-btn:not([disabled])")
            assert page.inner_text("#roll-btn") == "Stay standing" and page.inner_text("#hold-btn") == "Sit down"
            assert page.inner_text("#status").split(". ")[1].startswith(who)
            page.click("#roll-btn")
            if turn == 0:  # the first choice stays hidden until the second is in
                page.wait_for_selector(f"#status:has-text('{who} has chosen')")
                assert page.locator("#log li").count() == seen
        page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=seen, timeout=5000)
    page.wait_for_function(
        "() => document.getElementById('status').textContent.includes('Standing')"
        " || !document.getElementById('game-over').hidden"
    )
    assert "Everyone rolled" in page.inner_text("#log")
    _shot(page, "swine-herd")
    assert not errors, errors
    context.close()
