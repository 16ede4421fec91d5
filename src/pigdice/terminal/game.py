"""The interactive terminal game behind ``pigdice play``: it renders events and prompts people.

All game logic lives in ``pigdice.engine.game``; this module only turns events into text, reads
keys, and lets robots move with a short pause (none when ``PIGDICE_FAST=1`` or when stdout
is not a terminal).

On a terminal a decision is one key press, without Enter (``pigdice.terminal.keys``); without a
terminal (pipes, tests) the game reads whole lines. While the game is busy (a robot's pause, the
perfect player working out a game it has not seen) q quits and Ctrl-C interrupts at once: the
perfect player's solves run in a worker process (``pigdice.solve.background``), with a progress
bar once they take a second.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from pigdice.cleantext import clean_text
from pigdice.engine import events as ev
from pigdice.engine.game import (
    Action,
    GameState,
    Hold,
    Move,
    Roll,
    apply,
    dice_rng,
    legal_actions,
    new_game,
    parse_action,
    robot_rng,
)
from pigdice.engine.simultaneous import apply_choices, choosing_seats, rules_stand, seat_view
from pigdice.errors import IllegalActionError, PigdiceError
from pigdice.players.base import Human, Strategy, is_human
from pigdice.players.defaults import describe_robot, robot_name, robot_title
from pigdice.rules.effects import EffectKind
from pigdice.rules.variant import Decision, Variant
from pigdice.terminal.keys import (
    END_OF_INPUT,
    ERASE,
    KeySource,
    drop_typeahead,
    is_tty,
    read_command,
    single_keys,
)
from pigdice.terminal.waiting import LazyBar

if TYPE_CHECKING:  # the perfect player's module is loaded only where one plays or a hint is asked
    from pigdice.players.optimal import Optimal

FAST_ENV = "PIGDICE_FAST"
ROBOT_PAUSE = 0.6  # seconds between robot moves on a terminal
DIE_GLYPHS = "⚀⚁⚂⚃⚄⚅"
QUIT_WORDS = ("q", "quit", "exit")
HINT_WORDS = ("?", "hint")
RULES_WORDS = ("i", "info", "rules")
EXIT_INTERRUPTED = 130
EXIT_ENDLESS = 1  # the robots played on without end and the game was stopped
ROBOT_MOVES_LIMIT = 10_000  # robot moves in a row with no score changing (and no person moving): stop the game

CONFIRM_WORDS = ("y", "yes")

Reader = Callable[[Text], str]


class QuitGame(Exception):
    """The person pressed q while the game was busy (a robot's pause, the perfect player's studies): quit."""


# -- small pieces --------------------------------------------------------------------------
def robot_pause() -> float:
    """Return the pause before a robot's move: 0 when PIGDICE_FAST=1 or stdout is not a terminal."""
    if os.environ.get(FAST_ENV, "").strip() not in ("", "0"):
        return 0.0
    return ROBOT_PAUSE if is_tty(sys.stdout) else 0.0


def seat_names(strategies: Sequence[Strategy]) -> list[str]:
    """Return a display name per seat: 'You', a hot-seat name, or a pig name for a robot."""
    names: list[str] = []
    robots = 0
    for strategy in strategies:
        if isinstance(strategy, Human):
            base = "You" if strategy.label.lower() in ("you", "human", "me") else clean_text(strategy.label) or "Player"
        else:
            base = robot_name(robots)
            robots += 1
        name, count = base, 1
        while name in names:
            count += 1
            name = f"{base} {count}"
        names.append(name)
    return names


def die_text(label: str) -> Text:
    """Return one die as text: a unicode die face plus its number, or the label in brackets."""
    if label in ("1", "2", "3", "4", "5", "6"):
        return Text.assemble((DIE_GLYPHS[int(label) - 1], "bold"), " ", (label, "bold"))
    return Text.assemble(("[", "dim"), (label, "bold"), ("]", "dim"))


def throw_text(event: ev.Rolled) -> Text:
    """Return what a throw showed: every die drawn, or the rule's text (Hog's sums, mishaps)."""
    if event.faces is None or not event.labels:
        return Text(event.text, style="bold")
    text = Text()
    for index, label in enumerate(event.labels):
        if index:
            text.append("  ")
        text.append_text(die_text(label))
    return text


def show_hint(state: GameState, console: Console | None = None, advisor: Optimal | None = None) -> None:
    """Print the perfect player's advice and win probability for the current player (from ``advisor`` if given)."""
    from pigdice.players.optimal import hint_for_state

    console = console or Console(highlight=False)
    try:
        result = hint_for_state(state) if advisor is None else advisor.hint(state)
    except PigdiceError as exc:
        console.print(f"  no hint here: {exc}", style="yellow")
        return
    console.print(Text(f"  hint: {result.describe()}", style="cyan"))


def show_rules(variant: Variant, console: Console) -> None:
    """Print a short version of the rules during a game."""
    console.print(Text(f"  {variant.title}: {variant.summary}", style="bold"))
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=4, justify="right")
    grid.add_column(ratio=1)
    for line in variant.rules:
        grid.add_row("•", line)
    grid.add_row("", Text(f"This game: goal {variant.goal}, {variant.endgame_note()}.", style="italic"))
    console.print(grid)


def _verb(name: str, you_form: str, other_form: str) -> str:
    return f"{name} {you_form if name == 'You' else other_form}"


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def _possessive(name: str) -> str:
    return "Your" if name == "You" else f"{name}'s"


def _in_sentence(names: Sequence[str], first: bool = True) -> list[str]:
    """Return names as a sentence lists them: 'You' stays capital only where it begins the sentence."""
    return [name if name != "You" or (first and index == 0) else "you" for index, name in enumerate(names)]


def _is_count(text: str) -> bool:
    """Return True for a small whole number in the digits 0-9."""
    return text.isascii() and text.isdigit() and len(text) <= 4


def _normalize_input(text: str) -> str:
    """Return the typed text with 'r 3', 'r3', 'roll 3' and 'r:3' read as 'roll:3'."""
    word = " ".join(text.strip().lower().split())
    for prefix in ("roll:", "roll ", "r:", "r "):
        if word.startswith(prefix) and _is_count(word[len(prefix) :].strip()):
            return "roll:" + word[len(prefix) :].strip()
    if len(word) > 1 and word[0] == "r" and _is_count(word[1:]):
        return "roll:" + word[1:]
    return word


def _dice_range(variant: Variant) -> str:
    return f"{variant.choices[0]}-{variant.choices[-1]}"


def _dice_words(variant: Variant) -> str:
    """Return what a number key does: 'dice to throw' (one throw a turn) or 'dice to roll'."""
    return "dice to throw" if variant.decision is Decision.DICE_PER_TURN else "dice to roll"


def _number_note(variant: Variant) -> str:
    """Return how a number of two or more digits ends, or '' where every count is one digit."""
    return "(Enter ends the number)" if variant.chooses_dice and variant.choices[-1] >= 10 else ""


def _key(letter: str, rest: str, note: str = "") -> Text:
    """Return one key of a prompt: '[h]old', '[r] stay standing', '[1-26] dice to throw'."""
    text = Text.assemble(("[", "dim"), (letter, "bold cyan"), ("]", "dim"), rest)
    if note:
        text.append(f" {note}", style="dim")
    return text


def hides_keys(variant: Variant, strategies: Sequence[Strategy]) -> bool:
    """Return True where people choose together, unseen (Swine Herd), and two or more play: keys show as dots."""
    return variant.is_simultaneous and sum(is_human(s) for s in strategies) > 1


# -- the game -------------------------------------------------------------------------------
class TerminalGame:
    """One game in the terminal: the state, the seats, the seeded dice and the console.

    The dice and the robots draw from separate generators derived from the seed (``dice_rng``
    and ``robot_rng``), so ``replay(variant, players, seed, actions)`` rebuilds the game.
    """

    def __init__(
        self,
        variant: Variant,
        strategies: Sequence[Strategy],
        seed: int,
        console: Console | None = None,
        read: Reader | None = None,
        pause: float | None = None,
        names: Sequence[str] | None = None,
        script: Sequence[Move] | None = None,
    ) -> None:
        self.variant = variant
        self.strategies = list(strategies)
        self.seed = seed
        self.names = list(names) if names is not None else seat_names(self.strategies)
        self.script = None if script is None else list(reversed(script))  # a replay: the moves, last first
        self.console = console or Console(highlight=False)
        self.read = read or self._read
        self.reads_terminal = read is None  # the default reader: single keys when stdin is a terminal
        self.keys: KeySource | None = None  # the terminal's keys while a game is played on one
        self.pause = robot_pause() if pause is None else pause
        self.rng = dice_rng(seed)
        self.robot_rng = robot_rng(seed)
        self.state = new_game(variant, len(self.strategies))
        self.hidden = hides_keys(variant, self.strategies)
        self._advisor: Optimal | None = None  # the perfect player of the hints, made on the first one
        self.actions: list[Move] = []  # every move made, in order: with the seed, the whole game
        self.events: list[ev.Event] = []  # everything that happened, in order

    # -- input ------------------------------------------------------------------------------
    def _read(self, prompt: Text) -> str:
        drop_typeahead()  # keys pressed while the robots played must not make the person's move
        self.console.print(prompt, end="")
        if self.keys is not None:
            return read_command(self.keys, self._echo, self.variant.choices[-1] if self.variant.chooses_dice else 0)
        text = input()
        if not is_tty(sys.stdin):
            shown = "•" * len(text.strip()) if self.hidden else text
            self.console.print(shown, markup=False, highlight=False)  # keep transcripts readable
        return text

    def _echo(self, text: str) -> None:
        """Show keys typed in cbreak mode (the terminal does not echo them; hidden choices show as dots)."""
        if self.hidden and text.strip() and text not in ERASE:
            text = "•" * len(text)
        self.console.file.write(text)
        self.console.file.flush()

    # -- output -----------------------------------------------------------------------------
    def say(self, text: str | Text, style: str = "") -> None:
        """Print one line of the game."""
        self.console.print(text, style=style)

    def scoreboard(self) -> Text:
        """Return the one-line scoreboard: everyone's score, the current seat marked."""
        state = self.state
        simultaneous = self.variant.decision is Decision.SIMULTANEOUS
        text = Text("  ")
        for player, (name, score) in enumerate(zip(self.names, state.scores, strict=True)):
            if player:
                text.append("   ")
            current = not simultaneous and player == state.current and not state.is_terminal()
            other = state.other_set
            other_turn = other is not None and other.phase == "rolling" and other.player == player and not current
            text.append("▸ " if current else "▹ " if other_turn else "  ", style="bold yellow")
            text.append(name, style="bold" if current else "")
            text.append(f" {score}", style="bold cyan")
            if not is_human(self.strategies[player]):
                text.append(f" ({describe_robot(self.strategies[player].name)})", style="dim")
        text.append(f"     goal {self.variant.goal}", style="dim")
        return text

    def header(self) -> None:
        """Print the title, the seed and who plays."""
        variant = self.variant
        self.say(Text(f"{variant.title}", style="bold magenta") + Text(f" · {variant.summary}", style="italic"))
        self.say(Text(f"seed {self.seed}", style="bold") + Text("  (the same seed rolls the same dice again)", "dim"))
        self.say(Text(f"Goal {variant.goal}: {variant.endgame_note()}."))
        seats = zip(self.names, self.strategies, strict=True)
        self.say(Text("Players: " + " · ".join(n if is_human(s) else robot_title(n, s.name) for n, s in seats)))
        self.say(self.keys_line())
        self.prepare_robots()

    def keys_line(self) -> Text:
        """Return the keys of this game, for the header: the moves of its decision, then help and quit."""
        variant = self.variant
        if variant.decision is Decision.SIMULTANEOUS:
            moves = ["s sit down and bank", "r stay standing"]
        elif variant.chooses_dice:
            note = _number_note(variant)
            moves = [f"{_dice_range(variant)} {_dice_words(variant)}" + (f" {note}" if note else "")]
            if variant.can_hold:
                moves.append("h hold")
        else:
            moves = ["r roll", "h hold"]
        start = "Press a key, no Enter: " if self.keys is not None else "Keys: "
        return Text(start + " · ".join([*moves, "? hint", "i rules", "q quit"]), style="dim")

    def prepare_robots(self) -> None:
        """Solve (or load) the perfect player's policy up front, with a progress bar, and note approximations."""
        if "pigdice.players.optimal" not in sys.modules:
            return  # nobody plays the perfect player (naming it loads its module): no solver to load
        from pigdice.players.optimal import Optimal, approximation_note

        perfect = [s for s in self.strategies if isinstance(s, Optimal)]
        if not perfect:
            return
        with self.waiting("the perfect player studies this game"):
            perfect[0].prepare(len(self.strategies))
        note = approximation_note(self.variant, len(self.strategies))
        if note:
            self.say(Text(f"The perfect player is approximate here: {note}.", style="dim italic"))

    # -- waiting ----------------------------------------------------------------------------
    def advisor(self) -> Optimal:
        """Return the perfect player whose advice the hints give (a robot's own, or one made for hints)."""
        from pigdice.players.optimal import Optimal

        if self._advisor is None:
            robots = [s for s in self.strategies if isinstance(s, Optimal)]
            self._advisor = robots[0] if robots else Optimal(self.variant)
        return self._advisor

    def _perfect_players(self) -> list[Optimal]:
        """Return the perfect players of the game: the robots, and the hints' advisor once made."""
        if "pigdice.players.optimal" not in sys.modules:
            return []
        from pigdice.players.optimal import Optimal

        found = [s for s in self.strategies if isinstance(s, Optimal)]
        if self._advisor is not None and self._advisor not in found:
            found.append(self._advisor)
        return found

    @contextlib.contextmanager
    def waiting(self, title: str) -> Iterator[None]:
        """Let the perfect player work out what the block needs in a worker process, with a progress bar once it
        takes a second (``title`` first), and stop at once on q (quit) or Ctrl-C (interrupt)."""
        stop_keys = "q or Ctrl-C stops" if self.keys is not None else "Ctrl-C stops"
        bar = LazyBar(self.console, self.console.is_terminal, stop_keys)

        def progress(fraction: float, label: str) -> None:
            bar(fraction, f"{title}: {label}")

        players = self._perfect_players()
        for player in players:
            player.in_worker, player.progress, player.check = True, progress, self.check_keys
        try:
            yield
        finally:
            bar.stop()
            for player in players:
                player.progress = player.check = None

    def check_keys(self) -> None:
        """Read the keys typed while the game was busy: q quits (QuitGame); the others are dropped."""
        while self.keys is not None and self.keys.ready(0):
            key = self.keys.key()
            if key in END_OF_INPUT:
                raise EOFError
            if key == "\x03":
                raise KeyboardInterrupt
            if key.lower() == "q":
                raise QuitGame

    def pause_for(self, seconds: float) -> None:
        """Wait ``seconds`` (a robot's pause), quitting at once if q is pressed meanwhile."""
        if self.keys is None:
            time.sleep(seconds)
            return
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if self.keys.ready(left):
                self.check_keys()

    def turn_banner(self, player: int | None = None) -> None:
        """Print the rule line and the scoreboard at the start of a turn (``player``'s: the mover's if None)."""
        state = self.state
        player = state.current if player is None else player
        if self.variant.decision is Decision.SIMULTANEOUS:
            title = f"Round {state.turns_played[0] + 1} · everyone stands"
        else:
            title = f"Round {state.turns_played[player] + 1} · {_possessive(self.names[player])} turn"
        if state.other_set is not None:
            title += f" with set {self._set_of(player)}"
        self.console.print(Rule(title, style="blue"))
        self.say(self.scoreboard())
        if state.other_set is not None:
            self.say(self.sets_line())

    def _set_of(self, player: int) -> int:
        """Return the number of the set of dice ``player`` holds (two sets of dice; the mover's if neither)."""
        other = self.state.other_set
        if other is not None and other.player == player and player != self.state.current:
            return other.number
        return self.state.set_number

    def sets_line(self) -> Text:
        """Return where both sets of dice are: who plays each and their turn totals (two sets of dice)."""
        state = self.state
        other = state.other_set
        if other is None:
            return Text()
        mover = Text(f"set {state.set_number}: {self.names[state.current]}, turn total {state.turn_total}")
        if other.phase == "rolling":
            elsewhere = f"set {other.number}: {self.names[other.player]}, turn total {other.turn_total}"
        elif other.phase == "waiting":
            elsewhere = f"set {other.number} waits for {self.names[other.player]}"
        elif other.phase == "finished":
            elsewhere = f"set {other.number} is finished"
        else:
            elsewhere = f"set {other.number} starts when half the table has played"
        sets = [mover, Text(elsewhere)] if state.set_number < other.number else [Text(elsewhere), mover]
        return Text("  Dice: ", style="dim") + Text(" · ").join(sets)

    def show_events(self, events: Sequence[ev.Event], action: Move | None) -> None:
        """Print what happened, merging a bust or reset into the line of the roll that caused it."""
        index = 0
        while index < len(events):
            event = events[index]
            if isinstance(event, ev.Rolled) and event.effect.kind in (EffectKind.BUST, EffectKind.RESET_SCORE):
                losses: list[ev.Busted | ev.ScoreReset] = []
                while index + 1 < len(events) and isinstance(events[index + 1], ev.Busted | ev.ScoreReset):
                    index += 1
                    losses.append(events[index])  # type: ignore[arg-type]
                self.show_loss(event, losses)
            elif isinstance(event, ev.GameOver):
                self.show_result(event)
            else:
                self.show_event(event, action)
                then = events[index + 1] if index + 1 < len(events) else None
                if self.variant.is_simultaneous and isinstance(event, ev.Rolled) and isinstance(then, ev.Banked):
                    # Swine Herd's house rule: the shared roll took everyone standing to the goal
                    self.say("  Everyone standing has reached the goal: they all sit down.", style="bold")
            index += 1

    def _roller(self, event: ev.Rolled) -> Text:
        if event.player < 0:
            return Text("  The swineherd rolls  ")
        name = self.names[event.player]
        if self.variant.chooses_dice:
            return Text(f"  {_verb(name, 'throw', 'throws')} {event.dice} {'die' if event.dice == 1 else 'dice'}  ")
        return Text(f"  {_verb(name, 'roll', 'rolls')}  ")

    def show_loss(self, event: ev.Rolled, losses: Sequence[ev.Busted | ev.ScoreReset]) -> None:
        """Print a roll that ended the turn with points lost, and what was lost."""
        line = self._roller(event) + throw_text(event) + Text("   ")
        if event.effect.kind is EffectKind.RESET_SCORE:
            line.append("✗✗ score wiped out", style="bold red")
        else:
            line.append("✗ turn over", style="bold red")
        if event.player >= 0:
            for loss in losses:
                if isinstance(loss, ev.ScoreReset):
                    lost = f"{loss.lost_score}" + (f" + {loss.lost_turn_total}" if loss.lost_turn_total else "")
                    line.append(f", {lost} points lost", style="red")
                elif loss.lost:
                    line.append(f", {_points(loss.lost)} lost", style="red")
            self.say(line)
            return
        self.say(line)
        for loss in losses:  # Swine Herd: everyone still standing loses
            if isinstance(loss, ev.Busted) and loss.lost:
                self.say(
                    f"    {_verb(self.names[loss.player], 'lose', 'loses')} the turn total of {loss.lost}", style="red"
                )
            elif isinstance(loss, ev.ScoreReset):
                self.say(f"    {_verb(self.names[loss.player], 'lose', 'loses')} the whole score!", style="bold red")

    def show_event(self, event: ev.Event, action: Move | None) -> None:
        """Print one event as a line of the game."""
        names = self.names
        if isinstance(event, ev.Rolled):
            line = self._roller(event) + throw_text(event) + Text("   ")
            kind = event.effect.kind
            if event.effect.ends_turn:
                line.append(event.effect.describe(), style="yellow")
            else:
                line.append(event.effect.describe(), style="green" if kind is EffectKind.ADD else "yellow")
                if self.variant.decision is not Decision.DICE_PER_TURN and kind is not EffectKind.SET:
                    line.append("  turn total ", style="dim")
                    line.append(str(event.turn_total), style="bold")
            if event.player < 0:
                standing = [self.names[p] for p, up in enumerate(self.state.standing) if up]
                line.append("  standing: " + ", ".join(_in_sentence(standing, first=False)), style="dim")
            self.say(line)
        elif isinstance(event, ev.Busted):
            if event.lost:
                self.say(
                    f"    {_verb(names[event.player], 'lose', 'loses')} the turn total of {event.lost}", style="red"
                )
        elif isinstance(event, ev.ScoreReset):
            self.say(
                f"    {_verb(names[event.player], 'lose', 'loses')} the whole score of {event.lost_score}!",
                style="bold red",
            )
        elif isinstance(event, ev.Banked):
            name = names[event.player]
            if self.variant.decision is Decision.SIMULTANEOUS:
                words = _verb(name, "sit down and bank", "sits down and banks")
            elif isinstance(action, Hold):
                words = _verb(name, "hold and bank", "holds and banks")
            else:
                words = _verb(name, "bank", "banks")
            self.say(
                Text(f"  {words} ")
                + Text(str(event.points), style="bold green")
                + Text(" → score ")
                + Text(str(event.score), style="bold cyan")
            )
        elif isinstance(event, ev.StayedStanding):
            pass  # standing is the default; the roll line lists who is still up
        elif isinstance(event, ev.FinalRoundStarted):
            others = ", ".join(_in_sentence([names[p] for p in event.players], first=False)) or "nobody"
            reached = _verb(names[event.by], "reach", "reaches")
            self.say(f"  {reached} the goal! Last chance for {others}.", style="bold yellow")
        elif isinstance(event, ev.Resigned):
            self.say(f"  {_verb(names[event.player], 'resign', 'resigns')}.", style="bold yellow")
        elif isinstance(event, ev.TimedOut):
            lost = f", {_points(event.lost)} lost" if event.lost else ""
            self.say(
                f"  {_verb(names[event.player], 'run', 'runs')} out of time: the turn passes{lost}", style="yellow"
            )
        elif isinstance(event, ev.TurnStarted):
            self.turn_banner(event.player if event.player >= 0 else None)
        elif isinstance(event, ev.GameStopped):
            self.say(f"  {ev.describe_event(event, self.names)}.", style="bold yellow")

    def show_result(self, over: ev.GameOver) -> None:
        """Print the final scores and who won."""
        self.console.print(Rule("Game over", style="magenta"))
        table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2))
        table.add_column("player")
        table.add_column("score", justify="right")
        table.add_column("turns", justify="right")
        order = sorted(range(len(self.names)), key=lambda p: -over.scores[p])
        for player in order:
            mark = " ★" if player in over.winners else ""
            table.add_row(
                self.names[player] + mark, str(over.scores[player]), str(self.state.turns_played[player]),
                style="bold green" if player in over.winners else "",
            )  # fmt: skip
        self.console.print(table)
        winners = [self.names[p] for p in over.winners]
        if len(winners) == 1:
            message = "You win!" if winners[0] == "You" else f"{winners[0]} wins."
        else:
            listed = _in_sentence(winners)
            message = f"{', '.join(listed[:-1])} and {listed[-1]} share the victory."
        self.say(Text(f"  {message}", style="bold green"))
        self.say(Text(f"  seed {self.seed}", style="dim"))

    # -- prompts ----------------------------------------------------------------------------
    def prompt(self) -> Text:
        """Return the prompt for the human whose move it is, listing the legal keys."""
        state = self.state
        variant = self.variant
        player = state.current
        legal = legal_actions(state)
        keys: list[Text] = []
        if variant.decision is Decision.SIMULTANEOUS:
            if Hold() in legal:
                keys.append(_key("s", "it down", f"(bank {state.turn_total})"))
            keys.append(_key("r", " stay standing"))
        elif variant.chooses_dice:
            keys.append(_key(_dice_range(variant), f" {_dice_words(variant)}", _number_note(variant)))
            if Hold() in legal:
                keys.append(_key("h", "old"))
        else:
            keys.append(_key("r", "oll", "(last roll)" if Hold() not in legal else ""))
            if Hold() in legal:
                keys.append(_key("h", "old"))
        keys += [_key("?", " hint"), _key("i", " rules"), _key("q", "uit")]
        status = Text("  ")
        name = self.names[player]
        status.append(name, style="bold")
        status.append(f" {state.scores[player]}", style="cyan")
        if variant.can_hold and state.turn_total:
            status.append(f" + {state.turn_total}", style="bold green")
        other = state.other_set
        if other is not None:
            status.append(f" with set {state.set_number}", style="dim")
            if other.phase == "rolling":
                status.append(
                    f" ({self.names[other.player]} + {other.turn_total} with set {other.number})", style="dim"
                )
        status.append(" · ")
        status.append_text(Text(" / ").join(keys))
        status.append(" > ", style="bold")
        return status

    def ask(self) -> Action | None:
        """Ask the human to move until they give a legal action; None means quit."""
        while True:
            raw = self.read(self.prompt())
            word = _normalize_input(raw)
            if word in QUIT_WORDS:
                return None
            if word in HINT_WORDS:
                with self.waiting("working out the best play"):
                    show_hint(self.state, self.console, self.advisor())
                continue
            if word in RULES_WORDS:
                show_rules(self.variant, self.console)
                continue
            if not word:
                continue
            if self.variant.decision is Decision.SIMULTANEOUS and word in ("st", "stand", "stay"):
                word = "roll"
            try:
                action = parse_action(word) if len(word) <= 20 else None
            except ValueError:  # IllegalActionError, or a number too long to read
                action = None
            if action is None:
                typed = raw.strip() if len(raw.strip()) <= 20 else raw.strip()[:20] + "..."
                self.say(f"  can't read {typed!r}: {self.allowed_text()}", style="red")
                continue
            if isinstance(action, Roll) and action.dice is None and self.variant.chooses_dice:
                choices = self.variant.choices
                self.say(f"  say how many dice: a number from {choices[0]} to {choices[-1]}", style="red")
                continue
            fixed = self.variant.choices[0]
            if isinstance(action, Roll) and not self.variant.chooses_dice and action.dice not in (None, fixed):
                self.say(f"  this game always rolls {fixed} {'die' if fixed == 1 else 'dice'}: type r", style="red")
                continue
            if action not in self._legal_normalized():
                self.say(f"  not allowed now: {self.allowed_text()}", style="red")
                continue
            if isinstance(action, Hold) and self.state.turn_total == 0:
                sure = self.confirm_empty_hold()
                if sure is None:
                    return None
                if not sure:
                    self.say("  Not held: still your move.", style="dim")
                    continue
            return action

    def confirm_empty_hold(self) -> bool | None:
        """Ask whether to hold with a turn total of 0 (the turn passes, nothing banked); None means quit."""
        prompt = Text("  Hold with nothing to bank? Your turn passes. ")
        prompt += Text(" / ").join([_key("y", "es"), _key("n", "o")]) + Text(" > ", style="bold")
        while True:
            word = _normalize_input(self.read(prompt))
            if word in QUIT_WORDS:
                return None
            if word:
                return word in CONFIRM_WORDS

    def ask_rematch(self) -> bool:
        """Ask whether to play a rematch (the seats move one place); False on no, quit or end of input."""
        prompt = Text("  Rematch? The next player in turn starts. ")
        prompt += Text(" / ").join([_key("y", "es"), _key("n", "o")]) + Text(" > ", style="bold")
        try:
            with self.single_keys():
                while True:
                    word = _normalize_input(self.read(prompt))
                    if word:
                        return word in CONFIRM_WORDS
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            return False

    def _legal_normalized(self) -> list[Action]:
        legal = legal_actions(self.state)
        if not self.variant.chooses_dice:
            legal = [*legal, Roll(self.variant.choices[0])] if Roll() in legal else legal
        return legal

    def allowed_text(self) -> str:
        """Return a short list of what may be typed now."""
        legal = legal_actions(self.state)
        words: list[str] = []
        if self.variant.decision is Decision.SIMULTANEOUS:
            words = ["s (sit down)", "r (stay standing)"]
        elif self.variant.chooses_dice:
            words.append(f"a number of dice from {self.variant.choices[0]} to {self.variant.choices[-1]}")
            if Hold() in legal:
                words.append("h (hold)")
        else:
            words.append("r (roll)")
            if Hold() in legal:
                words.append("h (hold)")
        return ", ".join([*words, "? (hint)", "i (rules)", "q (quit)"])

    # -- the loop ---------------------------------------------------------------------------
    def next_action(self) -> tuple[Move | None, bool]:
        """Return the current seat's action (None: quit) and whether a person chose it."""
        state = self.state
        strategy = self.strategies[state.current]
        if self.script is not None:  # a replay: every seat's moves come from the record
            if self.pause:
                self.pause_for(self.pause)
            return (self.script.pop() if self.script else None), False
        if is_human(strategy):
            if rules_stand(state):
                return Roll(), True  # nothing to bank yet: the rules have everyone stand for the first roll
            return self.ask(), True
        if self.pause:
            self.pause_for(self.pause)
        with self.waiting("the perfect player thinks"):
            return strategy.choose(state, self.robot_rng), False

    def choosing(self) -> list[int]:
        """Return the seats that choose now (``choosing_seats``); in a replay, the record's next move's seat alone."""
        return [self.state.current] if self.script is not None else choosing_seats(self.state)

    def collect_choices(self) -> tuple[dict[int, Move] | None, bool]:
        """Ask every seat that chooses now, each on the same state and unseen by the others (None: someone quit);
        return the choices and whether a person made one."""
        moment = self.state
        choices: dict[int, Move] = {}
        human = False
        for seat in self.choosing():
            self.state = seat_view(moment, seat)
            try:
                action, by_person = self.next_action()
            finally:  # end of input or Ctrl-C leaves the game as it was before the moment
                self.state = moment
            if action is None:
                return None, human
            human = human or by_person
            choices[seat] = action
        return choices, human

    def apply_moment(self, choices: dict[int, Move]) -> tuple[GameState, list[ev.Event]]:
        """Apply the moment's choices with the game's dice: all at once, or a replay's recorded move alone."""
        if self.script is not None:  # a record holds moves the engine applied one by one (resignations too)
            [move] = choices.values()
            return apply(self.state, move, self.rng)
        return apply_choices(self.state, choices, self.rng)  # type: ignore[arg-type]

    def stop_early(self) -> int:
        """Say why the game stops before its end (a record that ends, a person who quit); return the exit code."""
        if self.script is not None:
            self.say("  The record ends here: the game was not finished.", style="bold yellow")
            return 0
        self.say("  Game abandoned.", style="bold yellow")
        self.say(f"  seed {self.seed}", style="dim")
        return 0

    def stop_endless(self) -> int:
        """Stop a game the robots would play forever, saying why; return the exit code."""
        self.say(
            f"  The robots have made {ROBOT_MOVES_LIMIT:,} moves in a row without anyone banking a point: "
            "the way they play, this game may never end.",
            style="bold yellow",
        )
        self.say("  Game stopped.", style="bold yellow")
        self.say(f"  seed {self.seed}", style="dim")
        return EXIT_ENDLESS

    def play(self) -> int:
        """Play to the end (or until the person quits, or robots would play forever); return the exit code.

        Every game goes moment by moment: the seats that choose now (the player to move; in Swine Herd
        everyone standing) choose on the same state, then their choices are applied together.
        """
        self.header()
        self.turn_banner()
        robot_moves = 0  # robot moments since a person moved or a score changed
        scores = self.state.scores
        while not self.state.is_terminal():
            if self.state.scores != scores:
                robot_moves, scores = 0, self.state.scores
            choices, human = self.collect_choices()
            if choices is None:
                return self.stop_early()
            robot_moves = 0 if human or self.script is not None else robot_moves + 1  # a replay plays to its end
            if robot_moves > ROBOT_MOVES_LIMIT:
                return self.stop_endless()
            try:
                self.state, events = self.apply_moment(choices)
            except IllegalActionError as exc:  # a robot asked for something illegal: say so, ask the person
                self.say(f"  {exc}", style="red")
                if not human:
                    raise
                continue
            self.actions.extend(choices[seat] for seat in sorted(choices))  # the engine's order: the log replays
            self.events.extend(events)
            for seat, action in choices.items():
                if isinstance(action, Hold) and not any(isinstance(e, ev.Banked) for e in events):
                    self.say(f"  {_verb(self.names[seat], 'hold', 'holds')} with nothing to bank", style="dim")
            self.show_events(events, next(iter(choices.values())) if len(choices) == 1 else None)
        return 0

    @contextlib.contextmanager
    def single_keys(self) -> Iterator[None]:
        """Read single keys from stdin for the block where it is a terminal the game reads (in a replay: q stops it)."""
        if not self.reads_terminal:
            yield
            return
        with single_keys(sys.stdin) as keys:
            self.keys = keys
            try:
                yield
            finally:
                self.keys = None

    def run(self) -> int:
        """Play, treating end of input as quitting and Ctrl-C as an interruption; return the exit code."""
        try:
            with self.single_keys():
                return self.play()
        except EOFError:
            self.console.print()
            self.say("  Game abandoned (end of input).", style="bold yellow")
            self.say(f"  seed {self.seed}", style="dim")
            return 0
        except QuitGame:
            self.console.print()
            self.say("  Replay stopped." if self.script is not None else "  Game abandoned.", style="bold yellow")
            self.say(f"  seed {self.seed}", style="dim")
            return 0
        except KeyboardInterrupt:
            self.console.print()
            self.say("  Game abandoned (interrupted).", style="bold yellow")
            return EXIT_INTERRUPTED
