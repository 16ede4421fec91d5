"""Getting better: ``history`` (your games, luck and rating over time) and ``practice`` (your own mistakes again).

Both read the games the terminal saves (``pigdice play``: the games folder, or ``--folder``), review
each one exactly against the perfect player, and look at the seats people played.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from pigdice.cli.checks import number_option, output_option, writing
from pigdice.cli.options import JsonOpt
from pigdice.cli.output import emit_json, stdout_console
from pigdice.cli.progress import progress_bar
from pigdice.errors import BadParameterError
from pigdice.solve.background import Progress, run_in_worker

if TYPE_CHECKING:
    from rich.console import Console

    from pigdice.engine.record import GameRecord
    from pigdice.players.optimal import Optimal
    from pigdice.study.history import History
    from pigdice.study.practice import Card, Deck

FolderOpt = Annotated[
    Path | None,
    typer.Option(
        "--folder",
        metavar="DIR",
        file_okay=False,
        help="Where your games are (default: the folder `pigdice play` saves them in).",
    ),
]
MAX_LAST = 2000


def games_folder(folder: Path | None) -> Path:
    """Return the folder to read: the one given, or the terminal's games folder."""
    if folder is not None:
        return folder
    from pigdice.terminal.records import games_folder as saved_games

    return saved_games()


class Reviews:
    """Reviews of records as JSON, one perfect player per game kept for the next record of that game."""

    def __init__(self) -> None:
        self.perfect: dict[Any, Optimal] = {}

    def __call__(self, record: GameRecord) -> Mapping[str, Any]:
        """Return the review of ``record`` as JSON."""
        from pigdice.players.optimal import Optimal
        from pigdice.study.review import review_record

        variant = record.build_variant()
        perfect = self.perfect.setdefault(variant, Optimal(variant))
        return review_record(record, perfect).to_json()


# -- history ----------------------------------------------------------------------------------------
def history_command(
    folder: FolderOpt = None,
    last: Annotated[int | None, number_option("--last", low=1, high=MAX_LAST, help="Only the last N games")] = None,
    plot: Annotated[
        Path | None, output_option("--plot", help="Draw your rating and luck game by game to this PNG file.")
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Show your games: results, luck against your play, and your Performance Rating over time."""
    where = games_folder(folder)
    with progress_bar(enabled=not json_out) as bar:  # in a worker process: Ctrl-C stops it at once
        history = run_in_worker(history_work, (where, last or MAX_LAST), bar)
    if plot is not None:
        if not history.games:
            raise BadParameterError(f"no game of yours in {where} to draw")
        from pigdice.study.plots.history import plot_history

        with writing(plot):
            plot_history(history, plot)
    if json_out:
        emit_json({"folder": str(where), **history.to_json(), "plot": None if plot is None else str(plot)})
        return
    print_history(stdout_console(), history, where, plot)


def history_work(folder: Path, last: int, progress: Progress) -> History:
    """Return the history of the people's seats in the games of ``folder``: the worker of ``history``."""
    from pigdice.study.history import History, history_of, is_person, read_folder

    records, unreadable = read_folder(folder, last)
    progress(0.0, "reviewing your games")
    history = history_of(
        ((path.name, record) for path, record in records),
        Reviews(),
        is_person,
        lambda fraction: progress(fraction, "reviewing your games"),
    )
    return History(history.games, (*unreadable, *history.skipped))


def _points(chance: float | None, signed: bool = True) -> str:
    if chance is None:
        return "-"
    return f"{100 * chance:+.1f}" if signed else f"{100 * chance:.1f}"


def _result(result: float | None, finished: bool) -> str:
    if not finished:
        return "going on"
    if result == 1.0:
        return "won"
    if result == 0.0 or result is None:
        return "lost"
    return f"shared ({result:.2g})"


def print_history(console: Console, history: History, folder: Path, plot: Path | None) -> None:
    """Print the history for people: a table of games, then the totals in words."""
    from pigdice.study.rating import level_title

    if not history.games:
        console.print(Text(f"No game of yours in {folder} yet: play one with `pigdice play`."))
        return
    table = Table(box=None, padding=(0, 1), header_style="bold")
    numbers = ("#", "dice", "others' play", "your play", "rating")
    for column in ("#", "played", "game", "against", "result", "dice", "others' play", "your play", "rating"):
        table.add_column(column, justify="right" if column in numbers else "left")
    for number, game in enumerate(history.games, start=1):
        value = game.rating.value
        table.add_row(
            str(number),
            (game.played_at or "")[:16].replace("T", " "),
            game.game,
            ", ".join(game.opponents),
            _result(game.result, game.finished),
            _points(game.dice),
            _points(game.others),
            _points(None if game.error is None else -game.error),
            "-" if value is None else f"{value:.1f}",
        )
    console.print(table)
    legend = "what the dice, the others' play and yours did to your chance, in points; rating: lower is better"
    console.print(Text(legend, style="dim"))
    finished = history.finished
    expected = history.expected_wins
    line = f"{len(history.games)} games, {len(finished)} finished, {history.wins:g} won"
    if expected is not None:
        line += f" ({expected:.1f} expected from the starting chances)"
    console.print(Text(line + "."))
    luck = history.average_luck
    if luck is not None:
        console.print(Text(f"The dice's average luck: {100 * luck:+.1f} points of winning chance a game."))
    overall = history.rating
    if overall.value is not None:
        console.print(
            Text(
                f"Performance Rating {overall.value:.1f} over {overall.decisions} decisions: "
                f"you play like {level_title(overall.value)}."
            )
        )
    for problem in history.skipped:
        console.print(Text(f"skipped {problem}", style="dim"))
    if plot is not None:
        console.print(Text(f"Drawn to {plot}.", style="dim"))


# -- practice ---------------------------------------------------------------------------------------
def practice_command(
    folder: FolderOpt = None,
    cards: Annotated[int, number_option("--cards", low=1, high=100, help="Positions to ask this session")] = 10,
) -> None:
    """Practise the positions of your own games where you gave away the most, until you answer them right."""
    from pigdice.study.practice import build_deck, load_progress

    where = games_folder(folder)
    progress_file = where / "practice" / "progress.json"
    with progress_bar() as bar:
        found = run_in_worker(cards_work, (where,), bar)
    deck = build_deck(found, load_progress(progress_file))
    console = stdout_console()
    if not deck.cards:
        console.print(Text(f"No mistake of yours to practise in {where}: play a game with `pigdice play` first."))
        return
    run_session(console, deck, progress_file, date.today(), cards)


def cards_work(folder: Path, progress: Progress) -> list[Card]:
    """Return the cards of the people's decisions that gave away a point or more: the worker of ``practice``."""
    from pigdice.study.history import game_title, is_person, read_folder
    from pigdice.study.practice import cards_from_review

    records, _ = read_folder(folder)
    reviews = Reviews()
    found: list[Card] = []
    for index, (path, record) in enumerate(records):
        seats = [seat for seat in range(record.players) if is_person(record, seat)]
        if seats and record.seed is not None and record.moves:
            found.extend(cards_from_review(reviews(record), seats, path.name, game_title(record)))
        progress((index + 1) / max(1, len(records)), "finding your mistakes")
    return found


KEYS = {"h": "hold", "r": "roll", "s": "sit", "t": "stand"}


def read_answer(text: str, card: Card) -> str | None:
    """Return the option a typed answer names ('r', 'roll', 'h', '3' dice...), or None if it names none."""
    word = text.strip().lower()
    word = KEYS.get(word, word)
    if word.isdecimal():
        word = f"roll:{word}"
    return word if word in card.values else None


def run_session(console: Console, deck: Deck, progress_file: Path, today: date, limit: int) -> None:
    """Ask the due cards one by one (a wrong answer comes back after the others); save after every answer."""
    from pigdice.study.practice import option_words, save_progress

    session = deck.session(today, limit)
    if session.next_card() is None:
        console.print(Text("Nothing is due today: every position you practised comes back later. Well done."))
        return
    console.print(Text(f"{len(session.queue)} positions from your games. Type your choice; q to stop."))
    while (card := session.next_card()) is not None:
        console.print()
        console.print(Text(card.question(), style="bold"))
        keys = " / ".join(f"{_key(name)} {option_words(name)}" for name in card.options())
        try:
            typed = console.input(f"  {keys} > ")
        except EOFError:
            break
        if typed.strip().lower() in ("q", "quit"):
            break
        answer = read_answer(typed, card)
        if answer is None:
            console.print(Text("  That is not one of the options.", style="yellow"))
            continue
        right = session.answer(answer)
        verdict = "Right." if right else "Not the best: you will see this one again."
        console.print(Text(f"  {verdict} {card.answer()}", style="green" if right else "red"))
        if card.taken == answer and not right:
            console.print(Text("  That is what you chose in the game, too.", style="dim"))
        save_progress(progress_file, deck)
    done = len(set(session.answered))
    console.print(Text(f"Practised {done} positions, {session.right_first_time} right the first time."))


def _key(name: str) -> str:
    if name.startswith("roll:"):
        return name.split(":", 1)[1]
    return {"hold": "h", "roll": "r", "sit": "s", "stand": "t"}.get(name, name)
