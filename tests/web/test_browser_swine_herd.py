"""Swine Herd in two real browsers (Debian's /usr/bin/chromium through Playwright): both people are asked at once,
neither sees the other's choice before their own is in, and both see every choice and the roll together."""

from __future__ import annotations

from typing import Any

import pytest
from browserhelpers import alice_and_bob_sit_down, open_page, shot

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(180)]

BOTH_ASKED = "() => !document.getElementById('roll-btn').disabled && !document.getElementById('hold-btn').disabled"


def test_two_people_choose_at_the_same_time(server: str, chromium: Any) -> None:
    ctx_a, alice, errors_a = open_page(chromium)
    ctx_b, bob, errors_b = open_page(chromium)
    alice_and_bob_sit_down(alice, bob, server + "/?variant=swine-herd", goal=50)
    bob.wait_for_selector(".tag.you")
    # the rules stand everyone for the first roll; then both are asked at once, nobody waits for a turn
    alice.wait_for_function(BOTH_ASKED, timeout=15000)
    bob.wait_for_function(BOTH_ASKED, timeout=15000)
    for page in (alice, bob):
        assert page.inner_text("#roll-btn") == "Stay standing" and page.inner_text("#hold-btn") == "Sit down"
        assert "Sit down or stay standing?" in page.inner_text("#status")
        assert page.inner_text("#clock").startswith("Your time to choose: ")  # an online room: choices are timed
    total = int(alice.inner_text("#turn-total"))
    log_before = bob.inner_text("#log")
    # Alice sits down: she is told she chose; Bob only sees that she has chosen, not what
    alice.click("#hold-btn")
    alice.wait_for_selector(f"#status:has-text('You sit down with {total} (hidden from the others')")
    assert "waiting for Bob to choose" in alice.inner_text("#status")
    assert alice.is_disabled("#roll-btn") and alice.is_disabled("#hold-btn")
    bob.wait_for_selector(".seat:has-text('Alice') .tag.chosen")
    assert bob.locator(".seat:has-text('Bob') .tag.chosen").count() == 0
    assert not bob.is_disabled("#hold-btn") and not bob.is_disabled("#roll-btn")
    assert bob.inner_text("#log") == log_before and "Sit down or stay standing?" in bob.inner_text("#status")
    assert "sits down" not in bob.inner_text("#log") and bob.inner_text("#turn-total") == str(total)
    shot(bob, "swine_herd")
    # Bob stays standing: both see both choices and the roll, together
    bob.click("#roll-btn")
    for page, alice_is, bob_is in ((alice, "You sit", "Bob stays"), (bob, "Alice sits", "You stay")):
        page.wait_for_function("w => document.getElementById('log').textContent.includes(w)", arg=alice_is + " down")
        log = page.inner_text("#log")
        assert f"{alice_is} down, banking {total}" in log and f"{bob_is} standing" in log
        assert log.rindex(f"{bob_is} standing") < log.rindex("Everyone rolled")
    alice.wait_for_function("() => !document.querySelector('.tag.chosen')")  # a new moment: nobody has chosen
    shot(alice, "swine_herd_reveal")
    assert not errors_a and not errors_b, (errors_a, errors_b)
    ctx_a.close()
    ctx_b.close()
