"""Your history: every game you played, reviewed exactly, and how your luck and your rating went over time.

A game's entry comes from its review (``pigdice.study.review``, as JSON, so the terminal's saved
records and the web's rooms give the same entries): when it was played, the game, who else played,
the result, where your chance started, what luck and your own play did to it, and your Performance
Rating. The history adds them up: games, wins (a shared win counts its share), the dice's average luck, your
error rate and rating over all your decisions, and the rating game by game for a plot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pigdice.engine.record import GameRecord, RecordError, load_record
from pigdice.errors import BadParameterError, PigdiceError
from pigdice.study.rating import Rating

MAX_GAMES = 2000  # games one history reads (the newest, by file name)
TREND = 10  # games in the moving rating of the plot


@dataclass(frozen=True)
class HistoryGame:
    """One seat of one game in a history: the game, the result, luck against skill, and the rating."""

    source: str  # the record's file or the room's code
    played_at: str | None  # ISO time, when known
    game: str  # the variant's title and goal, e.g. 'Pig to 100'
    name: str  # the seat's name
    opponents: tuple[str, ...]
    finished: bool
    result: float | None  # 1 a win, 0 a loss, a share of a shared win; None while the game goes on
    start: float | None  # None where the perfect player's values are approximate
    dice: float | None  # what the dice did to the chance
    others: float | None  # what the other players' choices did to it
    error: float | None  # what this seat's own play gave away
    rating: Rating

    @property
    def luck(self) -> float | None:
        """Return everything that moved the chance and was not this seat's choice: the dice and the others."""
        return None if self.dice is None or self.others is None else self.dice + self.others

    def to_json(self) -> dict[str, Any]:
        """Return the entry as JSON-ready data."""
        return {
            "source": self.source,
            "played_at": self.played_at,
            "game": self.game,
            "name": self.name,
            "opponents": list(self.opponents),
            "finished": self.finished,
            "result": self.result,
            "start": self.start,
            "luck": self.luck,
            "dice": self.dice,
            "others": self.others,
            "error": self.error,
            "rating": self.rating.to_json(),
        }


def game_entry(
    review: Mapping[str, Any], seat: int, source: str, played_at: str | None, game: str, finished: bool
) -> HistoryGame:
    """Return one seat's history entry from a review's JSON (``Review.to_json``)."""
    seats = review["seats"]
    mine = seats[seat]
    rating = mine["rating"]
    result = mine.get("result") if finished else None
    if finished and result is None:  # approximate values: the result still counts
        result = review.get("results", {}).get(str(seat))
    return HistoryGame(
        source=source,
        played_at=played_at,
        game=game,
        name=mine["name"],
        opponents=tuple(s["name"] for s in seats if s["seat"] != seat),
        finished=finished,
        result=result,
        start=mine.get("start"),
        dice=mine.get("dice"),
        others=mine.get("others"),
        error=mine.get("error"),
        rating=Rating(int(rating["decisions"]), float(rating["given_away"])),
    )


@dataclass(frozen=True)
class History:
    """A player's games, oldest first, and what could not be read."""

    games: tuple[HistoryGame, ...]
    skipped: tuple[str, ...] = ()

    @property
    def finished(self) -> tuple[HistoryGame, ...]:
        """Return the games that are over."""
        return tuple(g for g in self.games if g.finished)

    @property
    def wins(self) -> float:
        """Return the games won (a shared win counts its share)."""
        return sum(g.result or 0.0 for g in self.finished)

    @property
    def rating(self) -> Rating:
        """Return the Performance Rating over every decision of every game."""
        return sum((g.rating for g in self.games), Rating(0, 0.0))

    @property
    def average_luck(self) -> float | None:
        """Return the dice's average luck per finished game with exact values (None if there is none)."""
        lucks = [g.dice for g in self.finished if g.dice is not None]
        return sum(lucks) / len(lucks) if lucks else None

    @property
    def expected_wins(self) -> float | None:
        """Return the wins the starting chances promised (None if some game's values are approximate)."""
        starts = [g.start for g in self.finished]
        if any(s is None for s in starts):
            return None
        return sum(s for s in starts if s is not None)

    def trend(self, window: int = TREND) -> list[float | None]:
        """Return the Performance Rating over the last ``window`` games at each game (None before any decision)."""
        values: list[float | None] = []
        for index in range(len(self.games)):
            recent = self.games[max(0, index + 1 - window) : index + 1]
            values.append(sum((g.rating for g in recent), Rating(0, 0.0)).value)
        return values

    def to_json(self) -> dict[str, Any]:
        """Return the history as JSON-ready data: the totals, every game, the trend and what was skipped."""
        rating = self.rating
        return {
            "games": len(self.games),
            "finished": len(self.finished),
            "wins": self.wins,
            "expected_wins": self.expected_wins,
            "average_luck": self.average_luck,
            "rating": rating.to_json(),
            "trend": self.trend(),
            "entries": [g.to_json() for g in self.games],
            "skipped": list(self.skipped),
        }


def game_title(record: GameRecord) -> str:
    """Return a record's game in words, e.g. 'Pig to 100'."""
    try:
        variant = record.build_variant()
    except PigdiceError:
        return f"{record.variant} to {record.goal}"
    return f"{variant.title} to {variant.goal}"


def read_folder(folder: Path, limit: int = MAX_GAMES) -> tuple[list[tuple[Path, GameRecord]], list[str]]:
    """Return the readable records of a games folder (the newest ``limit``, oldest first) and what was skipped."""
    try:
        if not folder.is_dir():
            return [], []
        paths = sorted(p for p in folder.glob("*.json") if p.is_file())[-limit:]
    except OSError as exc:  # a name too long for the system, a folder we may not read
        shown = str(folder) if len(str(folder)) <= 80 else str(folder)[:77] + "..."
        raise BadParameterError(f"cannot read the games folder {shown!r}: {exc.strerror or exc}") from None
    records, skipped = [], []
    for path in paths:
        try:
            records.append((path, load_record(path)))
        except (RecordError, OSError) as exc:
            skipped.append(f"{path.name}: {exc}")
    records.sort(key=lambda item: (item[1].played_at or "", item[0].name))
    return records, skipped


Reviewer = Callable[[GameRecord], Mapping[str, Any]]  # a record's review, as JSON


def history_of(
    records: Iterable[tuple[str, GameRecord]],
    review: Reviewer,
    mine: Callable[[GameRecord, int], bool],
    progress: Callable[[float], None] | None = None,
) -> History:
    """Return the history of the seats ``mine(record, seat)`` picks out in ``records`` (oldest first).

    A record whose seed is still secret (a game not yet over on a server) cannot be reviewed: it is skipped.
    """
    listed = list(records)
    games: list[HistoryGame] = []
    skipped: list[str] = []
    for index, (source, record) in enumerate(listed):
        seats = [seat for seat in range(record.players) if mine(record, seat)]
        if seats and record.seed is not None and record.moves:
            try:
                data = review(record)
            except PigdiceError as exc:
                skipped.append(f"{source}: {exc}")
            else:
                games.extend(_entries(record, data, seats, source))
        if progress is not None:
            progress((index + 1) / len(listed))
    return History(tuple(games), tuple(skipped))


def _entries(record: GameRecord, data: Mapping[str, Any], seats: Sequence[int], source: str) -> Iterator[HistoryGame]:
    finished = record.finished
    if finished and record.winners is not None:  # the result, also where the values are approximate
        share = 1.0 / len(record.winners)
        data = {**data, "results": {str(s): share if s in record.winners else 0.0 for s in range(record.players)}}
    for seat in seats:
        yield game_entry(data, seat, source, record.played_at, game_title(record), finished)


def is_person(record: GameRecord, seat: int) -> bool:
    """Return True if ``seat`` of ``record`` was played by a person (not a robot)."""
    return record.seats[seat].kind == "human"
