"""A terminal game from start to finish: played, its record saved, the people's decisions reviewed; and replays.

Every game played in the terminal is saved as a game record (``pigdice.engine.record``): to the file the
player names, or else to the games folder (``PIGDICE_GAMES_DIR``, by default a ``games`` folder in the user
data folder), so any game can be reviewed, replayed and verified later.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from pigdice.cleantext import clean_text
from pigdice.engine.game import MAX_SEED, Action, GameState
from pigdice.engine.record import Commitment, GameRecord, RecordError, SeatEntry, record_game, save_record
from pigdice.errors import PigdiceError
from pigdice.files import UnsafeFileError
from pigdice.players.base import Human, Strategy, is_human
from pigdice.rules.variant import Variant
from pigdice.terminal.game import TerminalGame, robot_pause, seat_names
from pigdice.terminal.waiting import LazyBar

if TYPE_CHECKING:  # the perfect player loads the solver (numba): imported only for a review
    from pigdice.players.optimal import Optimal

GAMES_ENV = "PIGDICE_GAMES_DIR"
QUICK_REVIEW_GOAL = 200  # a 2-player game up to this goal is solved for its review at once (well under a second)


def games_folder() -> Path:
    """Return the folder where terminal games are saved (``PIGDICE_GAMES_DIR`` or the user data folder)."""
    override = os.environ.get(GAMES_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_data_dir("pigdice")) / "games"


def game_record(game: TerminalGame, played_at: datetime | None = None) -> GameRecord:
    """Return the record of a terminal game (finished or not)."""
    seats = [
        SeatEntry(name, strategy.name, "human" if is_human(strategy) else "robot")
        for name, strategy in zip(game.names, game.strategies, strict=True)
    ]
    when = (played_at or datetime.now(UTC)).isoformat(timespec="seconds")
    return record_game(
        game.variant, seats, game.seed, game.actions, commitment=Commitment.make(game.seed), played_at=when
    )


def save_game(game: TerminalGame, path: Path | None = None) -> Path | None:
    """Save the game's record to ``path`` (or a new file in the games folder); say where; None if it failed."""
    now = datetime.now(UTC)
    if path is None:
        path = games_folder() / f"{now:%Y-%m-%d-%H%M%S}-{game.variant.name}-{game.seed}.json"
    where = clean_text(str(path))
    try:
        save_record(game_record(game, now), path)
    except UnsafeFileError as exc:
        game.say(f"  The game was not saved: {exc}", style="red")
        return None
    except OSError as exc:
        game.say(f"  The game could not be saved to {where}: {exc.strerror or exc}", style="red")
        return None
    shown = shlex.quote(where)
    game.say(Text(f"  Game saved: {where}", style="dim"))
    game.say(
        Text(f"  Review your decisions: pigdice review {shown} · watch it again: pigdice replay {shown}", style="dim")
    )
    return path


def run_game(
    variant: Variant,
    strategies: Sequence[Strategy],
    seed: int,
    console: Console | None = None,
    save: Path | None = None,
) -> int:
    """Play a terminal game of ``variant`` with ``seed``, save its record (to ``save``, or the games folder),
    review the people's decisions, and offer a rematch; return the process exit code.

    A rematch moves every seat one place (the old second player starts) and plays with the next seed, so a
    seed replays the whole evening; it is saved next to ``save`` with the game's number (game-2.json, ...).
    """
    seats = list(strategies)
    names = seat_names(seats)
    number = 1
    while True:
        game = TerminalGame(variant, seats, seed, console=console, names=names)
        code = game.run()
        finish_game(game, save if number == 1 or save is None else save.with_stem(f"{save.stem}-{number}"))
        if code or not game.state.is_terminal() or not any(is_human(s) for s in seats) or not game.ask_rematch():
            return code
        seats, names = [*seats[1:], seats[0]], [*names[1:], names[0]]
        seed = (seed + 1) % (MAX_SEED + 1)
        number += 1


def finish_game(game: TerminalGame, save: Path | None = None) -> None:
    """Save the game (if any move was made) and, once it is over, review each person's decisions."""
    if not game.actions:
        return
    path = save_game(game, save)
    if game.state.is_terminal() and any(is_human(s) for s in game.strategies):
        review_people(game, path)


def _perfect_player(game: TerminalGame) -> Optimal | None:
    """Return a perfect player whose policies for this game are at hand, or can be solved in a moment."""
    from pigdice.players.optimal import Optimal  # the solver (numba) loads only for a review
    from pigdice.solve.exact import HERD_GROUP, cached_exact, exactness
    from pigdice.solve.shipped import is_shipped

    players = len(game.strategies)
    for strategy in game.strategies:
        if isinstance(strategy, Optimal) and strategy.is_ready_for(players):
            return strategy
    perfect = Optimal(game.variant)
    if is_shipped(game.variant, players):
        return perfect  # it plays from the values shipped with the package: nothing to solve
    cached = cached_exact(game.variant, players)
    if cached is not None:
        perfect.use_policy(cached)
        return perfect
    if players == 2 and not game.variant.is_simultaneous and game.variant.goal <= QUICK_REVIEW_GOAL:
        return perfect
    if game.variant.is_simultaneous and players == HERD_GROUP and exactness(game.variant, players) is None:
        return perfect  # 3-player Swine Herd's equilibrium at hand: a quick goal, or solved before and cached
    return None


def review_people(game: TerminalGame, path: Path | None) -> None:
    """Print one line per person: the winning chance they gave away and their worst decision."""
    perfect = _perfect_player(game)
    if perfect is None:
        where = f" {path}" if path is not None else ""
        game.say(Text(f"  For a review of every decision: pigdice review{where}", style="dim"))
        return
    from pigdice.study.review import luck_line, rating_line, review_game, summary_line

    humans = [is_human(s) for s in game.strategies]
    bar = LazyBar(game.console, game.console.is_terminal)
    perfect.in_worker = True  # a solve runs in a worker process: Ctrl-C stops it at once
    perfect.progress = lambda fraction, label: bar(fraction, f"reviewing your decisions: {label}")
    try:
        review = review_game(
            game.variant, game.names, humans, game.seed, game.actions, perfect,
            lambda fraction: bar(fraction, "reviewing your decisions"),
        )  # fmt: skip
    except PigdiceError as exc:
        game.say(f"  No review: {exc}", style="dim")
        return
    finally:
        bar.stop()
        perfect.progress = None
    game.console.print(Rule("Your review", style="magenta"))
    for summary in review.seats:
        if summary.human:
            game.say(f"  {summary_line(summary, review.names)}")
            luck = luck_line(review, summary.seat)
            for line in ([luck] if luck else []) + [rating_line(summary)]:
                game.say(f"  {line}")
    if review.approximate:
        game.say(Text(f"  (approximate: {review.approximate})", style="dim"))


def replay_record_in_terminal(record: GameRecord, console: Console | None = None, pause: float | None = None) -> int:
    """Show a recorded game move by move as it was played; return the exit code (0)."""
    if record.seed is None:
        raise RecordError("the record has no seed yet: the dice stay secret until the game ends")
    variant = record.build_variant()
    strategies: list[Strategy] = [
        Human(seat.name) if seat.kind == "human" else _RecordedSeat(seat.spec) for seat in record.seats
    ]
    game = TerminalGame(
        variant,
        strategies,
        record.seed or 0,
        console=console,
        pause=robot_pause() if pause is None else pause,
        names=[seat.name for seat in record.seats],
        script=record.actions(),
    )
    return game.run()


class _RecordedSeat:
    """A robot seat of a replayed game: it carries the robot's name; its moves come from the record."""

    def __init__(self, spec: str) -> None:
        self.name = spec

    def choose(self, state: GameState, rng: np.random.Generator) -> Action:
        """Never called: a replay takes every move from the record."""
        raise PigdiceError("a replayed seat's moves come from the record")
