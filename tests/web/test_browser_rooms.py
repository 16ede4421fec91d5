"""Rooms for groups, in real browsers (Debian's Chromium through Playwright, one context per person): rematch by
agreement (clicked at once, late, declined), a game called off, a seat claimed after a timeout, names that never
say "You" to others, Swine Herd as a group game, and the review's one cursor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browserhelpers import alice_and_bob_sit_down, open_page, shot
from webhelpers import served

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(120)]

OVER = "#game-over:not([hidden])"


def _people(chromium: Any, count: int) -> list[tuple[Any, Any, list[str]]]:
    """Open ``count`` separate browser contexts (separate people: separate storage)."""
    return [open_page(chromium) for _ in range(count)]


def _close(people: list[tuple[Any, Any, list[str]]]) -> None:
    """Check that no page logged an error, then close them."""
    errors = [error for _, _, page_errors in people for error in page_errors]
    for context, _, _ in people:
        context.close()
    assert not errors, errors


def _bob_resigns(alice: Any, bob: Any) -> None:
    """Bob resigns (saying yes to the question): Alice wins; both see the end."""
    bob.once("dialog", lambda dialog: dialog.accept())
    bob.wait_for_selector("#resign-btn:not([hidden])")
    bob.click("#resign-btn")
    for page in (alice, bob):
        page.wait_for_selector(OVER)


def test_rematch_clicked_at_once_and_late_gives_one_game_that_everyone_reaches(server: str, chromium: Any) -> None:
    people = _people(chromium, 3)
    (_, alice, _), (_, bob, _), (_, carol, _) = people
    alice_and_bob_sit_down(alice, bob, server + "/", goal=50)
    alice.wait_for_selector("#roll-btn:not([disabled])")
    alice.click("#roll-btn")  # somebody has played: the game can no longer be called off, only resigned
    carol.goto(alice.url)  # a spectator
    old = alice.url
    _bob_resigns(alice, bob)
    carol.wait_for_selector(OVER)
    # both click Rematch at the same moment (the second click is an acceptance): one game, both go to it
    alice.locator("#over-rematch [data-role=offer]").click(no_wait_after=True)
    bob.locator("#over-rematch [data-role=offer], #over-rematch [data-role=accept]").first.click(no_wait_after=True)
    alice.wait_for_url(lambda url: url != old)
    bob.wait_for_url(alice.url)
    new = alice.url
    carol.wait_for_selector("#over-rematch [data-role=follow]")
    assert "The rematch has started" in carol.inner_text("#over-rematch")
    carol.click("#over-rematch [data-role=follow]")
    carol.wait_for_url(new)
    # a late click: Bob's second tab, open on the old game's review, comes back to the old game
    late = bob.context.new_page()
    late.goto(old.replace("/play/", "/review/"))
    late.wait_for_selector("#rematch-banner:not([hidden])")
    late.click("#rematch-banner a")
    late.wait_for_url(new)
    late.goto(old)
    late.wait_for_selector("#over-rematch [data-role=follow]:has-text('Go to the rematch')")
    late.click("#over-rematch [data-role=follow]")
    late.wait_for_url(new)
    late.wait_for_selector(".tag.you")  # Bob's seat, with his token, in the one new game
    assert "Bob" in late.inner_text(".seat:has(.tag.you)")
    shot(bob, "rematch-started")
    late.close()
    _close(people)


def test_a_declined_rematch_starts_nothing_and_the_dialog_is_not_needed(server: str, chromium: Any) -> None:
    people = _people(chromium, 2)
    (_, alice, _), (_, bob, _) = people
    alice_and_bob_sit_down(alice, bob, server + "/", goal=50)
    alice.wait_for_selector("#roll-btn:not([disabled])")
    alice.click("#roll-btn")
    old = alice.url
    _bob_resigns(alice, bob)
    bob.click("#close-over")  # Bob closes the game-over card: the rematch is still on the table
    standings = alice.locator("#final-scores li").all_inner_texts()  # by result: the winner, then who resigned
    assert standings[0].startswith("Alice") and "★" in standings[0] and standings[1].endswith("(resigned)")
    alice.click("#over-rematch [data-role=offer]")
    bob.wait_for_selector("#table-rematch:has-text('Alice offers a rematch')")
    shot(bob, "rematch-offer")
    bob.click("#table-rematch [data-role=decline]")
    alice.wait_for_selector("#over-rematch:has-text('Bob declined the rematch.')")
    alice.wait_for_selector("#over-rematch [data-role=offer]")  # she may offer again
    assert alice.url == old and bob.url == old
    _close(people)


def test_a_game_is_called_off_before_the_first_roll(server: str, chromium: Any) -> None:
    people = _people(chromium, 2)
    (_, alice, _), (_, bob, _) = people
    alice_and_bob_sit_down(alice, bob, server + "/", goal=50)
    alice.wait_for_selector("#abort-btn:not([hidden])")
    assert alice.is_hidden("#resign-btn")
    alice.once("dialog", lambda dialog: dialog.accept())
    alice.click("#abort-btn")
    for page in (alice, bob):
        page.wait_for_selector("#status:has-text('Alice called the game off before it began')")
        assert "no result" in page.inner_text("#status")
        assert page.is_hidden("#controls") and page.is_hidden("#abort-btn")
    _close(people)


def test_a_seat_opened_after_a_timeout_is_claimed_and_its_holder_is_told(tmp_path: Path, chromium: Any) -> None:
    with served(tmp_path / "timed.sqlite3", turn_seconds="2", skips_to_free_seat="1") as url:
        people = _people(chromium, 2)
        (_, alice, _), (_, bob, _) = people
        alice.goto(url + "/")
        alice.fill("#your-name", "Alice")
        alice.select_option("#seat-list li:nth-child(1) select", "friend")  # Bob's seat comes first
        alice.select_option("#seat-list li:nth-child(2) select", "you")
        alice.click("#start")
        alice.wait_for_url("**/play/**")
        bob.goto(alice.url)
        bob.fill(".seat .join-form input", "Bob")
        bob.click(".seat .join-form button")
        bob.wait_for_selector("#clock:has-text('Your time')")
        # Bob does nothing: his turn passes after 2 s and, at once, his seat is opened
        bob.wait_for_selector("#notice:has-text('You ran out of time 1 times in a row')", timeout=20000)
        assert "You are watching now" in bob.inner_text("#notice")
        alice.wait_for_selector("#leave-panel [data-claim='0']", timeout=20000)
        assert "Bob ran out of time too often" in alice.inner_text("#leave-panel")
        assert "Bob's seat is open again" in alice.inner_text("#status")
        shot(alice, "claim")
        alice.click("#leave-panel [data-claim='0']")
        alice.wait_for_selector(OVER)
        assert alice.inner_text("#over-title") == "You win!"
        bob.wait_for_selector("#status:has-text('Alice wins!')")
        _close(people)


def test_a_page_past_the_bound_on_connections_says_so_and_gets_in_once_there_is_room(
    tmp_path: Path, chromium: Any
) -> None:
    with served(tmp_path / "crowded.sqlite3", ws_per_client="1") as url:  # one websocket per address
        people = _people(chromium, 2)
        (_, alice, _), (_, carol, _) = people
        alice.goto(url + "/")
        alice.click("#start")
        alice.wait_for_url("**/play/**")
        alice.wait_for_selector("#roll-btn:not([disabled])")
        carol.goto(alice.url)  # from the same address: refused while Alice's page holds its one websocket
        carol.wait_for_selector("#status:has-text('Too many connections from your address; try again')")
        assert "Reconnecting" in carol.inner_text("#status")
        alice.close()
        carol.wait_for_selector(".seat", timeout=20000)  # the welcome came: the room's seats are shown
        carol.wait_for_function("!document.getElementById('status').textContent.includes('Too many')", timeout=20000)
        _close(people)


def test_nameless_players_are_never_you_to_the_others(server: str, chromium: Any) -> None:
    people = _people(chromium, 2)
    (_, first, _), (_, second, _) = people
    first.goto(server + "/")
    first.select_option("#seat-list li:nth-child(2) select", "friend")
    first.click("#start")
    first.wait_for_url("**/play/**")
    second.goto(first.url)
    second.click(".seat .join-form button")  # no name either
    first.wait_for_selector("#status:has-text('Your turn')")
    second.wait_for_selector("#status:has-text('Waiting for Player 1')")
    first.click("#roll-btn")
    first.wait_for_selector("#log li")
    second.wait_for_selector("#log li")
    assert first.inner_text("#log li").startswith("You rolled")
    assert second.inner_text("#log li").startswith("Player 1 rolled")
    for page in (first, second):
        page.wait_for_function("() => document.getElementById('status').textContent.length > 0")
    about_first = [line for line in second.inner_text("#log").splitlines() if not line.endswith(": You")]
    assert not [line for line in about_first if "You" in line]  # "Turn 2: You" (a bust passes the dice) is second's own
    assert "You" not in second.inner_text("#seats")
    assert second.inner_text("#clock").startswith(("Player 1's time", "Your time"))
    assert first.inner_text(".seat:has(.tag.you) .name").startswith("Player 1")
    _close(people)


def test_a_name_being_typed_survives_the_seat_list_being_redrawn(server: str, chromium: Any) -> None:
    # the seat list is redrawn on every update (here: someone comes to watch); what Bob typed, and his cursor, stay
    people = _people(chromium, 3)
    (_, alice, _), (_, bob, _), (_, carol, _) = people
    alice.goto(server + "/")
    alice.fill("#your-name", "Alice")
    alice.select_option("#seat-list li:nth-child(2) select", "friend")
    alice.click("#start")
    alice.wait_for_url("**/play/**")
    bob.goto(alice.url)
    bob.wait_for_selector("#spectators:has-text('1 watching')")
    bob.click(".seat .join-form input")
    bob.keyboard.type("Bo")
    carol.goto(alice.url)
    bob.wait_for_selector("#spectators:has-text('2 watching')")  # Bob's seat list was drawn again
    assert bob.input_value(".seat .join-form input") == "Bo"
    bob.keyboard.type("b")  # still typing into the box: it kept the cursor
    bob.keyboard.press("Enter")
    alice.wait_for_selector("#seats .seat:has-text('Bob')")
    carol.wait_for_selector("#seats .seat:has-text('Bob')")
    _close(people)


def test_swine_herd_with_three_keeps_my_choice_in_view_and_shows_the_tables_chance(server: str, chromium: Any) -> None:
    people = _people(chromium, 2)
    (_, alice, _), (_, bob, _) = people
    alice.goto(server + "/?variant=swine-herd")
    alice.fill("#goal", "30")
    alice.fill("#your-name", "Alice")
    alice.select_option("#seat-list li:nth-child(2) select", "friend")
    alice.click("[data-add=robot]")  # a third player: a robot
    alice.click("#start")
    alice.wait_for_url("**/play/**")
    bob.goto(alice.url)
    bob.fill(".seat .join-form input", "Bob")
    bob.click(".seat .join-form button")
    alice.wait_for_selector("#hold-btn:not([disabled])", timeout=30000)
    alice.wait_for_function("() => document.getElementById('win-chance').textContent.includes('%')", timeout=60000)
    assert alice.inner_text("#win-label").startswith("Your chance to be the winner of 3")
    assert "estimate for a table of 3" in alice.inner_text("#approx")
    assert alice.inner_text("#win-chance") != "50.0%"
    total = alice.inner_text("#turn-total")
    alice.click("#hold-btn")  # Alice sits down; until Bob has chosen, her own page keeps saying so
    alice.wait_for_selector(f"#status:has-text('You sit down with {total}')")
    assert "hidden from the others" in alice.inner_text("#status")
    bob.wait_for_selector(".seat:has-text('Alice') .tag.chosen")
    assert "sat down" not in bob.inner_text("#status") and "You sat down" not in bob.inner_text("#log")
    shot(alice, "swine-herd-three")
    _close(people)


def test_the_review_moves_one_cursor_by_keys_clicks_and_the_slider(server: str, chromium: Any) -> None:
    people = _people(chromium, 1)
    (_, page, _) = people[0]
    page.goto(server + "/")
    page.fill("#goal", "20")
    page.fill("#seat-list li:nth-child(2) input", "hold:10")
    page.click("#start")
    page.wait_for_url("**/play/**")
    for _ in range(6):  # a few rolls, then resign: a short game to review
        page.wait_for_selector("#roll-btn:not([disabled]), " + OVER, timeout=15000)
        if page.is_visible(OVER):
            break
        seen = page.locator("#log li").count()
        page.click("#roll-btn")
        page.wait_for_function("n => document.querySelectorAll('#log li').length > n", arg=seen)
    page.goto(page.url.replace("/play/", "/review/"))
    page.wait_for_selector("#advantage-chart .main-svg", timeout=60000)
    page.keyboard.press("Home")
    assert page.inner_text("#replay-where").startswith("before the first move")
    assert page.locator(".decision.selected").count() == 1 and page.inner_text("#decision-title") == "Move 1"
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#replay-where").startswith("after move 1 of")
    assert page.input_value("#replay-step") == "1"
    marker = page.evaluate("document.getElementById('advantage-chart').layout.shapes[0].x0")
    assert marker == 2  # the chart's marker stands at the decision looked at: move 2
    page.locator("#decisions li.decision").nth(0).click()
    assert page.input_value("#replay-step") == "0" and page.inner_text("#decision-title") == "Move 1"
    assert page.evaluate("document.getElementById('advantage-chart').layout.shapes[0].x0") == 1
    page.eval_on_selector("#replay-step", "el => { el.value = '2'; el.dispatchEvent(new Event('input')); }")
    assert page.inner_text("#replay-where").startswith("after move 2 of")
    shot(page, "review-cursor")
    _close(people)
