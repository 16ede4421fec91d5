"""Practice from your own mistakes: the positions where you gave away the most, asked again until you get them.

Every decision of yours that gave away at least a point of winning chance (an inaccuracy or worse,
``pigdice.study.review``) becomes a card: the position as it was, the options, and each option's
exact chance. Cards are asked in Leitner's way, simply: a card you answer right moves up a box and
comes back after the box's interval (1, 3, 7, 21, then 60 days); a wrong answer sends it back to the
first box and it is asked again in the same session, after the others, until you answer it right.
Cards that are due come first, those where you gave away the most first among them. A right answer
is any option as good as the best (to 1e-9): where two options tie, either is right.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from pigdice.errors import PigdiceError

FORMAT = "pigdice-practice 1"
LEAST_LOSS = 0.01  # a decision becomes a card when it gave away at least this (one point: an inaccuracy)
INTERVALS = (0, 1, 3, 7, 21, 60)  # days until a card in box b is due again
SESSION = 10  # cards asked in one session (wrong answers come back on top of these)
TIE = 1e-9
MAX_CARDS = 5000  # cards a progress file keeps
OPTION_WORDS = {"hold": "hold", "roll": "roll", "sit": "sit down", "stand": "stay standing"}


class PracticeError(PigdiceError):
    """A practice progress file that cannot be read or written."""


def option_words(name: str) -> str:
    """Return an option in a player's words: 'roll:3' is 'roll 3 dice'."""
    if name.startswith("roll:"):
        count = name.split(":", 1)[1]
        return f"roll {count} {'die' if count == '1' else 'dice'}"
    return OPTION_WORDS.get(name, name)


@dataclass(frozen=True)
class Card:
    """One position from your games: where it was, what you chose, and every option's exact chance."""

    source: str  # the record's file or the room's code
    move: int
    game: str  # e.g. 'Pig to 100'
    names: tuple[str, ...]
    seat: int
    scores: tuple[int, ...]
    turn_total: int
    final_round: bool
    values: Mapping[str, float]
    best: str
    taken: str
    loss: float

    @property
    def key(self) -> str:
        """Return the card's identity: the game it comes from and the move."""
        return f"{self.source}#{self.move}"

    def options(self) -> list[str]:
        """Return the options to choose from, in the order a player reads them (stop first, then fewer dice)."""
        return sorted(self.values, key=_option_order)

    def is_right(self, answer: str) -> bool:
        """Return True if ``answer`` is as good as the best option."""
        if answer not in self.values:
            return False
        return self.values[answer] >= max(self.values.values()) - TIE

    def question(self) -> str:
        """Return the position in words, e.g. 'Pig to 100. You have 34, Babe has 61; your turn total is 18.'"""
        seats = enumerate(zip(self.names, self.scores, strict=True))
        others = [f"{name} has {score}" for s, (name, score) in seats if s != self.seat]
        where = f"You have {self.scores[self.seat]}, {', '.join(others)}; your turn total is {self.turn_total}"
        last = " It is your last turn: the goal has been reached." if self.final_round else ""
        return f"{self.game}. {where}.{last}"

    def answer(self) -> str:
        """Return the exact answer in words: the best option and every option's chance to win."""
        shown = sorted(self.values.items(), key=lambda item: -item[1])[:6]
        chances = ", ".join(f"{option_words(name)} {100 * value:.1f}%" for name, value in shown)
        return f"Best: {option_words(self.best)}. Your chance to win if you {chances}."

    def to_json(self) -> dict[str, Any]:
        """Return the card as JSON-ready data."""
        return {
            "key": self.key,
            "source": self.source,
            "move": self.move,
            "game": self.game,
            "names": list(self.names),
            "seat": self.seat,
            "scores": list(self.scores),
            "turn_total": self.turn_total,
            "final_round": self.final_round,
            "values": dict(self.values),
            "options": self.options(),
            "best": self.best,
            "taken": self.taken,
            "loss": self.loss,
            "question": self.question(),
            "answer": self.answer(),
        }


def _option_order(name: str) -> tuple[int, int]:
    if name in ("hold", "sit"):
        return (0, 0)
    count = name.partition(":")[2]
    return (1, int(count) if count.isdecimal() else 0)


def cards_from_review(
    review: Mapping[str, Any], seats: Sequence[int], source: str, game: str, least: float = LEAST_LOSS
) -> list[Card]:
    """Return the cards of ``seats``' decisions in a review (its JSON) that gave away at least ``least``."""
    names = tuple(review["names"])
    cards = []
    for decision in review["decisions"]:
        loss = decision.get("loss")
        if decision["seat"] not in seats or loss is None or loss < least:
            continue
        cards.append(
            Card(
                source=source,
                move=int(decision["move"]),
                game=game,
                names=tuple("You" if s == decision["seat"] else n for s, n in enumerate(names)),
                seat=int(decision["seat"]),
                scores=tuple(decision["scores"]),
                turn_total=int(decision["turn_total"]),
                final_round=bool(decision["final_round"]),
                values=dict(decision["values"]),
                best=str(decision["best"]),
                taken=str(decision["taken"]),
                loss=float(loss),
            )
        )
    return cards


@dataclass
class CardProgress:
    """How a card has gone: its box, when it is due, and the answers so far."""

    box: int = 0
    due: str = ""  # ISO date; empty: never asked (due at once)
    asked: int = 0
    right: int = 0

    def is_due(self, today: date) -> bool:
        """Return True if the card should be asked on ``today``."""
        return not self.due or date.fromisoformat(self.due) <= today

    def answered(self, right: bool, today: date) -> None:
        """Move the card up a box (right) or back to the first (wrong), and set when it is due again."""
        self.asked += 1
        if right:
            self.right += 1
            self.box = min(self.box + 1, len(INTERVALS) - 1)
        else:
            self.box = 0
        self.due = (today + timedelta(days=INTERVALS[self.box])).isoformat()


@dataclass
class Deck:
    """Your cards and how each has gone (kept in a progress file between sessions)."""

    cards: dict[str, Card]
    progress: dict[str, CardProgress] = field(default_factory=dict)

    def due(self, today: date, limit: int = SESSION) -> list[Card]:
        """Return up to ``limit`` cards due ``today``: the earliest boxes first, the most given away first."""
        waiting = [c for c in self.cards.values() if self.state(c).is_due(today)]
        waiting.sort(key=lambda c: (self.state(c).box, -c.loss, c.key))
        return waiting[:limit]

    def state(self, card: Card) -> CardProgress:
        """Return the card's progress (a fresh one for a new card)."""
        return self.progress.setdefault(card.key, CardProgress())

    def answer(self, card: Card, answer: str, today: date) -> bool:
        """Record an answer to ``card``; return True if it was right."""
        right = card.is_right(answer)
        self.state(card).answered(right, today)
        return right

    def session(self, today: date, limit: int = SESSION) -> Session:
        """Return a session of the cards due ``today``."""
        return Session(self, today, self.due(today, limit))


@dataclass
class Session:
    """One sitting: the due cards in order, a card answered wrong asked again after the others."""

    deck: Deck
    today: date
    queue: list[Card]
    right_first_time: int = 0
    answered: list[str] = field(default_factory=list)

    def next_card(self) -> Card | None:
        """Return the card to ask now, or None when every card of the session was answered right."""
        return self.queue[0] if self.queue else None

    def answer(self, answer: str) -> bool:
        """Answer the current card; a wrong answer sends it to the back of the queue. Return True if right."""
        card = self.queue.pop(0)
        right = self.deck.answer(card, answer, self.today)
        if right and card.key not in self.answered:
            self.right_first_time += 1
        self.answered.append(card.key)
        if not right:
            self.queue.append(card)
        return right


def one_per_position(cards: Iterable[Card]) -> list[Card]:
    """Return ``cards`` with one card per position (the costliest): the same question is never asked twice.

    The same position can come from two games (both at 0 to 0 with a turn total of 6, say); its options
    and chances are the same, so it is one card, kept under the key of the game where it cost the most.
    """
    kept: dict[str, Card] = {}
    for card in cards:
        question = card.question()
        if question not in kept or (-card.loss, card.key) < (-kept[question].loss, kept[question].key):
            kept[question] = card
    return list(kept.values())


def build_deck(cards: Iterable[Card], progress: Mapping[str, CardProgress] | None = None) -> Deck:
    """Return a deck of ``cards`` (one per key and per position) with their progress so far."""
    kept: dict[str, Card] = {}
    for card in one_per_position(cards):
        kept.setdefault(card.key, card)
    return Deck(kept, {key: value for key, value in (progress or {}).items() if key in kept})


def load_progress(path: Path) -> dict[str, CardProgress]:
    """Return the progress kept in ``path`` (nothing if the file does not exist yet)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise PracticeError(f"cannot read the practice progress {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("cards"), dict):
        raise PracticeError(f"{path} is not a practice progress file ({FORMAT})")
    progress = {}
    for key, entry in list(data["cards"].items())[:MAX_CARDS]:
        try:
            due = str(entry.get("due", ""))
            if due:
                date.fromisoformat(due)
            box = int(entry.get("box", 0))
            progress[str(key)] = CardProgress(
                min(max(box, 0), len(INTERVALS) - 1), due, int(entry.get("asked", 0)), int(entry.get("right", 0))
            )
        except (AttributeError, TypeError, ValueError):
            continue  # one damaged entry starts that card again
    return progress


def save_progress(path: Path, deck: Deck) -> None:
    """Write the deck's progress to ``path`` (atomically: a crash leaves the old file)."""
    asked = [(key, value) for key, value in deck.progress.items() if value.asked]
    cards = {key: vars(value) for key, value in asked[:MAX_CARDS]}
    text = json.dumps({"format": FORMAT, "cards": cards}, indent=1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False, encoding="utf-8") as tmp:
            tmp.write(text)
        os.replace(tmp.name, path)
    except OSError as exc:
        raise PracticeError(f"cannot save the practice progress to {path}: {exc.strerror or exc}") from None
