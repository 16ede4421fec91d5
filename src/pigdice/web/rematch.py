"""Rematch by agreement: an offer every seat and spectator sees, answered yes or no, and the next game it starts.

A finished room holds at most one offer. Anyone holding a seat says yes (the first yes is the offer) or no (a no
from someone who said yes withdraws the offer, from anyone else declines it; either ends it, and everyone is
told). Robots always say yes. Once every person who holds a seat has said yes the next game starts, once: the
room remembers it (and the database does), so any later yes, from any tab, leads to that game.

In the next game every seat moves one place (the old second player starts, so over several games everyone
starts in turn); people keep their seats with the tokens they hold, robots stay robots, and a seat nobody holds
(never taken, opened after timeouts, or claimed when its holder left) is open for anyone.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pigdice.web.seats import Seat

Answer = Literal["yes", "no"]


def moved_seat(old: int, players: int) -> int:
    """Return the seat that seat ``old`` takes in the next game (the old second player becomes the first)."""
    return (old - 1) % players


def next_seats(players: int) -> dict[str, int]:
    """Return where every seat goes in the next game, keyed by the old seat number as text (as clients send)."""
    return {str(old): moved_seat(old, players) for old in range(players)}


def next_link(code: str, players: int) -> dict[str, Any]:
    """Return what clients are told of a started next game: its code, its page and where every seat went."""
    return {"code": code, "url": f"/play/{code}", "seats": next_seats(players)}


@dataclass
class RematchOffer:
    """An open offer: who made it and which seats have said yes."""

    by: int
    accepted: set[int] = field(default_factory=set)


@dataclass
class Rematch:
    """A room's rematch: the open offer, the next game once it started, and how the last offer ended."""

    offer: RematchOffer | None = None
    next_code: str | None = None
    ended: dict[str, Any] | None = None  # the last offer that ended without a game: who said no, and how

    def voters(self, seats: Sequence[Seat], gone: Collection[int]) -> list[int]:
        """Return the seats whose yes is needed: every seat a person holds, except those claimed when they left."""
        return [s.index for s in seats if not s.is_robot and s.token_hash is not None and s.index not in gone]

    def waiting_for(self, seats: Sequence[Seat], gone: Collection[int]) -> list[int]:
        """Return the seats whose yes the open offer still waits for (none without an offer)."""
        if self.offer is None:
            return []
        return [seat for seat in self.voters(seats, gone) if seat not in self.offer.accepted]

    def say_yes(self, mine: Collection[int]) -> RematchOffer:
        """Record a yes from the seats ``mine`` (the first yes is the offer); return the open offer."""
        if self.offer is None:
            self.offer = RematchOffer(by=min(mine))
            self.ended = None
        self.offer.accepted |= set(mine)
        return self.offer

    def say_no(self, mine: Collection[int], names: Sequence[str]) -> dict[str, Any]:
        """End the open offer for the seats ``mine``: a withdrawal if they had said yes, else a decline; return
        what everyone is told (the caller checks that an offer is open)."""
        offer = self.offer
        if offer is None:
            raise ValueError("no rematch offer is open")
        seat = min(mine)
        how = "withdrawn" if set(mine) <= offer.accepted else "declined"
        self.offer = None
        self.ended = {"how": how, "seat": seat, "name": names[seat]}
        return self.ended

    def to_json(self, seats: Sequence[Seat], gone: Collection[int]) -> dict[str, Any]:
        """Return what every seat and spectator sees of the rematch."""
        offer = self.offer
        return {
            "offer": None
            if offer is None
            else {
                "by": offer.by,
                "accepted": sorted(offer.accepted),
                "waiting_for": self.waiting_for(seats, gone),
            },
            "next": None if self.next_code is None else next_link(self.next_code, len(seats)),
            "ended": self.ended,
        }
