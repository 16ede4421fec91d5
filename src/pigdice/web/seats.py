"""Seats: people (open until taken, then held by a secret token) and robots; room codes and names."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Any, Literal

from pigdice.cleantext import clean_text
from pigdice.errors import PigdiceError
from pigdice.players.base import Human, Strategy
from pigdice.players.defaults import describe_robot, robot_name
from pigdice.players.specs import parse_strategy
from pigdice.rules.variant import Variant
from pigdice.web.errors import WebError

CODE_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
OPEN_WORDS = ("friend", "open", "human", "person", "guest")
YOU_WORDS = ("you", "me")
MAX_NAME = 24
# Robots a stranger may put in a room. Anything else (notably python:/py: specs, which load code) is refused.
WEB_ROBOT_WORDS = ("hold", "rolls", "dice", "random", "optimal", "level", "keep-pace", "max-score")


def check_web_spec(spec: str) -> None:
    """Raise WebError unless every term of a robot spec is one the web server allows."""
    words = [term.split(":", 1)[0].strip().lower() for term in spec.split("+")]
    refused = [w for w in words if w not in WEB_ROBOT_WORDS and not w.startswith("human")]
    if refused:
        allowed = ", ".join(WEB_ROBOT_WORDS)
        raise WebError("bad_strategy", f"robot {spec!r} is not available on the web server; use one of: {allowed}")


def parse_web_strategy(spec: str, variant: Variant) -> Strategy:
    """Parse a seat's spec like parse_strategy, but only for the robots the web server allows."""
    check_web_spec(spec)
    try:
        return parse_strategy(spec, variant)
    except PigdiceError as exc:
        raise WebError("bad_strategy", str(exc)) from None


def hash_token(token: str) -> str:
    """Return the SHA-256 hex digest under which a seat token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_code() -> str:
    """Return a fresh room code that cannot be guessed (72 random bits)."""
    return secrets.token_urlsafe(9)


def clean_name(name: str | None, fallback: str) -> str:
    """Return a display name: printable, trimmed to 24 characters, or ``fallback``."""
    if not name:
        return fallback
    return clean_text(name, MAX_NAME) or fallback


@dataclass
class Seat:
    """One seat: a person (open until someone takes it) or a robot."""

    index: int
    kind: Literal["human", "robot"]
    spec: str
    name: str
    token_hash: str | None = None
    strategy: Strategy | None = None

    @property
    def is_robot(self) -> bool:
        """Return True for a robot seat."""
        return self.kind == "robot"

    @property
    def is_taken(self) -> bool:
        """Return True once a person holds the seat (robots always do)."""
        return self.is_robot or self.token_hash is not None

    def check_token(self, token: str) -> bool:
        """Return True if ``token`` is this seat's secret (constant-time compare)."""
        return self.token_hash is not None and hmac.compare_digest(self.token_hash, hash_token(token))

    def public(self, connected: bool) -> dict[str, Any]:
        """Return what everyone may know about the seat (never the token)."""
        return {
            "seat": self.index,
            "kind": self.kind,
            "spec": self.spec,
            "name": self.name,
            "about": describe_robot(self.spec) if self.is_robot else "",
            "taken": self.is_taken,
            "connected": connected or self.is_robot,
        }


@dataclass
class SeatPlan:
    """A seat as requested when a room is created."""

    kind: Literal["human", "robot"]
    spec: str
    name: str
    mine: bool = False  # the creator takes it at once (hot-seat: several may be the creator's)
    strategy: Strategy | None = None


def plan_seats(specs: list[str], variant: Variant, your_name: str | None) -> list[SeatPlan]:
    """Turn player specs (you, friend, human:NAME, hold:20, optimal, ...) into seats; raise on bad specs."""
    plans: list[SeatPlan] = []
    robots = 0
    yours = sum(1 for s in specs if s.strip().lower() in YOU_WORDS)
    for number, raw in enumerate(specs, start=1):
        spec = raw.strip()
        word = spec.lower()
        if not spec:
            raise WebError("bad_strategy", f"player {number} is empty; use you, friend or a robot like hold:20")
        if word in YOU_WORDS:  # unnamed, a seat is "Player N" to everyone ("You" only on its holder's own screen)
            if your_name and clean_name(your_name, ""):
                base = clean_name(your_name, "")
                name = base if yours == 1 else f"{base} {sum(1 for p in plans if p.mine) + 1}"
            else:
                name = f"Player {number}"
            plans.append(SeatPlan("human", "you", name, mine=True))
            continue
        if word in OPEN_WORDS:
            plans.append(SeatPlan("human", "friend", f"Player {number}"))
            continue
        try:
            strategy = parse_web_strategy(spec, variant)
        except WebError as exc:
            raise WebError("bad_strategy", f"player {number}: {exc}") from None
        if isinstance(strategy, Human):
            plans.append(SeatPlan("human", "friend", clean_name(strategy.label, f"Player {number}")))
            continue
        name = robot_name(robots)  # what it does is said beside the name (``about``)
        robots += 1
        plans.append(SeatPlan("robot", strategy.name, name, strategy=strategy))
    if not plans:
        raise WebError("bad_strategy", "a game needs players: e.g. you, hold:20")
    try:
        variant.check_players(len(plans))
    except PigdiceError as exc:
        raise WebError("bad_players", str(exc)) from None
    return plans
