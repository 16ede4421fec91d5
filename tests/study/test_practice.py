"""Practice from your own mistakes: cards from a review, Leitner boxes, a session until every card is right."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from pigdice.engine.game import Hold, Roll
from pigdice.rules import find_variant
from pigdice.study.practice import (
    INTERVALS,
    Card,
    PracticeError,
    build_deck,
    cards_from_review,
    load_progress,
    one_per_position,
    save_progress,
)
from pigdice.study.review import review_game

TODAY = date(2026, 3, 1)


def careless_cards() -> list[Card]:
    """Return the cards of a game of Pig to 30 where 'You' holds at 2 every time (and the other at 10)."""
    variant = find_variant("pig", goal=30)
    moves = []
    from pigdice.engine.game import apply, dice_rng, new_game

    state, dice = new_game(variant, 2), dice_rng(7)
    while not state.is_terminal():
        limit = 2 if state.current == 0 else 10
        moves.append(Hold() if state.turn_total >= limit else Roll())
        state, _ = apply(state, moves[-1], dice)
    review = review_game(variant, ["You", "Babe"], [True, False], 7, moves).to_json()
    return cards_from_review(review, [0], "game.json", "Pig to 30")


def test_cards_are_the_decisions_that_gave_away_a_point_or_more() -> None:
    cards = careless_cards()
    assert len(cards) >= 3
    for card in cards:
        assert card.seat == 0 and card.loss >= 0.01 and card.taken == "hold" and card.best == "roll"
        assert card.is_right("roll") and not card.is_right("hold") and not card.is_right("roll:3")
        assert card.options() == ["hold", "roll"]
        assert card.question().startswith("Pig to 30. You have ") and "Babe has" in card.question()
        assert card.answer().startswith("Best: roll.") and "%" in card.answer()
        assert card.key == f"game.json#{card.move}"


def test_the_same_position_from_two_games_is_one_card() -> None:
    from dataclasses import replace

    cards = careless_cards()
    again = [
        replace(card, source="other.json", loss=card.loss + (0.01 if i == 0 else -0.001))
        for i, card in enumerate(cards)
    ]
    kept = one_per_position(cards + again)
    assert len(kept) == len({card.question() for card in cards}) == len(cards)
    assert kept[0].source == "other.json" and all(card.source == "game.json" for card in kept[1:])
    deck = build_deck(cards + again)
    assert len(deck.cards) == len(cards)
    assert len({card.question() for card in deck.session(TODAY, limit=100).queue}) == len(cards)


def test_a_session_asks_a_wrong_card_again_until_it_is_right() -> None:
    deck = build_deck(careless_cards())
    session = deck.session(TODAY, limit=3)
    first = session.next_card()
    assert first is not None and len(session.queue) == 3
    assert [c.loss for c in session.queue] == sorted((c.loss for c in session.queue), reverse=True)
    assert not session.answer("hold")  # wrong: it goes to the back
    assert session.queue[-1] is first and deck.state(first).box == 0 and deck.state(first).due == TODAY.isoformat()
    while (card := session.next_card()) is not None:
        assert session.answer(card.best)
    assert session.right_first_time == 2 and len(set(session.answered)) == 3
    assert deck.state(first).box == 1 and deck.state(first).due == (TODAY + timedelta(days=INTERVALS[1])).isoformat()
    assert first not in deck.due(TODAY) and first in deck.due(TODAY + timedelta(days=1), limit=100)


def test_boxes_climb_to_the_longest_interval() -> None:
    deck = build_deck(careless_cards()[:1])
    card = next(iter(deck.cards.values()))
    day = TODAY
    for box in range(1, len(INTERVALS) + 2):
        assert deck.answer(card, card.best, day)
        assert deck.state(card).box == min(box, len(INTERVALS) - 1)
        day = date.fromisoformat(deck.state(card).due)
    assert day - TODAY == timedelta(days=sum(INTERVALS[1:]) + INTERVALS[-1] * 2)


def test_progress_is_kept_between_sessions(tmp_path: Path) -> None:
    path = tmp_path / "practice" / "progress.json"
    cards = careless_cards()
    deck = build_deck(cards, load_progress(path))  # no file yet: nothing to load
    card = deck.due(TODAY)[0]
    deck.answer(card, card.best, TODAY)
    save_progress(path, deck)
    again = build_deck(cards, load_progress(path))
    assert again.state(card).box == 1 and card not in again.due(TODAY)
    assert len(load_progress(path)) == 1  # only the cards asked are written
    path.write_text("not json")
    with pytest.raises(PracticeError, match="cannot read"):
        load_progress(path)
    path.write_text('{"format": "pigdice-practice 1", "cards": {"x#1": {"box": "?"}, "y#2": {"box": 9, "due": ""}}}')
    assert {key: p.box for key, p in load_progress(path).items()} == {"y#2": len(INTERVALS) - 1}
