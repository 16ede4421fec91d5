"""Real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright: play, share a room, explore.

Screenshots of every page go to $PIGDICE_SHOTS (default /tmp/shots) so people can look at them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browserhelpers import alice_and_bob_sit_down, open_page, shot
from webhelpers import served

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


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


@pytest.mark.slow
def test_full_game_against_a_robot_by_clicking(server: str, chromium: Any) -> None:
    context, page, errors = open_page(chromium)
    page.goto(server + "/")
    shot(page, "home")
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
                shot(page, "game")
            page.click("#roll-btn")
            rolled += 1
        page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=seen, timeout=5000)
    assert page.is_visible("#game-over")
    title = page.inner_text("#over-title")
    assert "win" in title.lower()
    assert page.locator("#final-scores li").count() == 2
    assert page.locator("#log li").count() > 3
    shot(page, "game-over", full=False)
    finished_room = page.url
    _review_the_finished_game(chromium, finished_room.replace("/play/", "/review/"))
    page.click("#over-rematch [data-role=offer]")  # the robot says yes at once: the rematch starts
    page.wait_for_url(lambda url: "/play/" in url and url != finished_room)
    page.wait_for_selector("#roll-btn:not([disabled])", timeout=15000)
    assert page.inner_text("#turn-total") == "0"
    assert not errors, errors
    context.close()


def _review_the_finished_game(chromium: Any, url: str) -> None:
    """Open a finished game's review: summary, chart, a decision's options when clicked, and the dice check."""
    context, page, errors = open_page(chromium, height=1400)
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
    assert page.inner_text("#replay-where").startswith(before)
    page.click("#replay-next")
    assert page.inner_text("#replay-where").startswith(f"after move {clicked} of {total}")
    assert page.locator("#replay-events li").count() >= 1 and "turn total" in page.inner_text("#replay-scores")
    page.wait_for_selector("#dice-table:not([hidden])", timeout=10000)
    assert "matches the fingerprint" in page.inner_text("#dice-verdict")
    assert "p = " in page.inner_text("#dice-test")
    with page.expect_download() as download:
        page.click("#download-record")
    record = json.loads(Path(download.value.path()).read_text())
    assert record["format"] == "pigdice-game" and record["seed"] and record["commitment"]["salt"]
    shot(page, "review")
    assert not errors, errors
    context.close()


@pytest.mark.slow
def test_two_people_in_one_room_see_each_others_rolls(server: str, chromium: Any) -> None:
    ctx_a, alice, errors_a = open_page(chromium)
    ctx_b, bob, errors_b = open_page(chromium, 390, 844)  # Bob is on a phone
    alice.goto(server + "/")
    alice.fill("#your-name", "Alice")
    alice.select_option("#seat-list li:nth-child(2) select", "friend")
    alice.click("#start")
    alice.wait_for_url("**/play/**")
    alice.wait_for_selector("#status:has-text('Waiting for 1 more player')")
    assert "share" not in alice.inner_text("#status")  # anyone may pass the link on, not only Alice
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
    ctx_c, carol, errors_c = open_page(chromium)
    carol.goto(alice.url)
    carol.wait_for_selector("#status:has-text('You are watching')")
    alice.wait_for_selector("#spectators:has-text('1 watching')")
    assert not carol.is_visible("#resign-btn") and carol.is_disabled("#roll-btn")
    shot(alice, "room-alice")
    shot(bob, "room-bob-phone")
    # Bob resigns: Alice wins, and offers a rematch; Bob accepts, and both go to it, Bob keeping his seat
    bob.on("dialog", lambda dialog: dialog.accept())
    bob.click("#resign-btn")
    alice.wait_for_selector("#game-over:not([hidden])")
    assert alice.inner_text("#over-title") == "You win!"
    assert "resigned" in alice.inner_text("#seats") and "Bob resigned" in alice.inner_text("#log")
    alice.click("#over-rematch [data-role=offer]")
    bob.wait_for_selector("#over-rematch:has-text('Alice offers a rematch')")
    carol.wait_for_selector("#over-rematch:has-text('Alice offered a rematch; waiting for Bob')")
    bob.click("#over-rematch [data-role=accept]")
    alice.wait_for_url(lambda url: "/play/" in url and code not in url)
    bob.wait_for_url(alice.url)
    carol.click("#over-rematch [data-role=follow]")  # the spectator follows with one click
    carol.wait_for_url(alice.url)
    bob.wait_for_selector("#roll-btn:not([disabled])")  # the old second player starts
    assert bob.inner_text("#clock").startswith("Your time: ")
    assert "Bob" in bob.inner_text("#seats .seat.current") and bob.locator(".seat.current .tag.you").count() == 1
    alice.wait_for_selector("#status:has-text('Bob')")
    assert alice.locator(".tag.you").count() == 1
    shot(bob, "rematch-bob-phone")
    assert not errors_a and not errors_b and not errors_c, (errors_a, errors_b, errors_c)
    ctx_a.close()
    ctx_b.close()
    ctx_c.close()


@pytest.mark.slow
def test_a_silent_player_runs_out_of_time(tmp_path: Path, chromium: Any) -> None:
    with served(tmp_path / "timed.sqlite3", turn_seconds="3") as url:
        ctx_a, alice, errors_a = open_page(chromium)
        ctx_b, bob, errors_b = open_page(chromium)
        alice_and_bob_sit_down(alice, bob, url + "/")
        alice.wait_for_selector("#clock:has-text('Your time')")
        # Alice does nothing: after 3 s her turn passes to Bob, and everyone sees why
        bob.wait_for_selector("#roll-btn:not([disabled])", timeout=10000)
        assert "Alice ran out of time" in bob.inner_text("#log")
        alice.wait_for_selector('#clock:has-text("Bob\'s time")')
        shot(alice, "timeout")
        assert not errors_a and not errors_b, (errors_a, errors_b)
        ctx_a.close()
        ctx_b.close()


@pytest.mark.slow
def test_explorer_draws_the_3d_surface(server: str, chromium: Any) -> None:
    context, page, errors = open_page(chromium)
    page.goto(server + "/explore?variant=pig&goal=100")
    page.wait_for_function("() => document.getElementById('surface').data !== undefined", timeout=60000)
    assert page.evaluate("document.getElementById('surface').data[0].type") == "surface"
    page.wait_for_selector("#surface canvas, #surface svg.main-svg")
    page.wait_for_selector("#slice-plot svg.main-svg")
    assert page.locator("#slice-plot .scatterlayer .trace").count() == 2
    page.wait_for_timeout(500)
    shot(page, "explorer")
    page.select_option("#ex-variant", "hog")
    page.wait_for_function("() => document.getElementById('surface').data[0].type === 'heatmap'", timeout=60000)
    page.wait_for_timeout(300)
    shot(page, "explorer-hog")
    assert not errors, errors
    context.close()


@pytest.mark.slow  # starts a browser: 11 s warm
def test_rules_pages_and_phone_layout(server: str, chromium: Any) -> None:
    context, page, errors = open_page(chromium)
    page.goto(server + "/rules/pig-dice")
    assert "Parker Brothers" in page.inner_text("main")
    shot(page, "rules")
    page.goto(server + "/rules")
    shot(page, "rules-index")
    context.close()
    phone, small, small_errors = open_page(chromium, 390, 844)
    small.goto(server + "/")
    shot(small, "home-phone")
    small.click("text=Swine Herd, group game")
    small.wait_for_url("**/play/**")
    small.wait_for_selector("#status:has-text('Waiting')")
    shot(small, "swine-herd-phone")
    # no page is wider than the phone
    assert small.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors and not small_errors, (errors, small_errors)
    phone.close()


@pytest.mark.slow  # starts a browser: 6 s warm
def test_pass_the_pigs_and_pig_dice_show_labels(server: str, chromium: Any) -> None:
    context, page, errors = open_page(chromium)
    for variant in ("pass-the-pigs", "pig-dice"):
        _start_game(page, server + "/", variant=variant)
        page.wait_for_selector("#roll-btn:not([disabled])")
        page.click("#roll-btn")
        page.wait_for_selector("#log li")
        labels = page.locator("#dice-area .die, #dice-area .die-label")
        assert labels.count() == 2
        if variant == "pass-the-pigs":
            assert page.locator("#dice-area .die-label.word").count() == 2
            shot(page, "pass-the-pigs")
    assert not errors, errors
    context.close()


@pytest.mark.slow
def test_hog_dice_selector_and_swine_herd_hot_seat(server: str, chromium: Any) -> None:
    context, page, errors = open_page(chromium)
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
    shot(page, "hog")

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
        "() => document.getElementById('status').textContent.toLowerCase().includes('standing')"
        " || !document.getElementById('game-over').hidden"
    )
    assert "Everyone rolled" in page.inner_text("#log")
    shot(page, "swine-herd")
    assert not errors, errors
    context.close()
