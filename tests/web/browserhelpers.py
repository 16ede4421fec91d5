"""Helpers of the browser tests: Debian's Chromium (/usr/bin/chromium) driven by Playwright, pages, screenshots.

Screenshots go to $PIGDICE_SHOTS (default /tmp/shots) so people can look at them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

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


def open_page(browser: Any, width: int = 1280, height: int = 800) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    return context, page, errors


def shot(page: Any, name: str, full: bool = True) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


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
