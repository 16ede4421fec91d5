"""Game review: every decision of a game set against the perfect player's win probabilities.

For each decision (a move where the player had a choice) the review gives each option's win probability
for the mover under perfect play from then on (exact wherever ``pigdice.solve.exact`` has a solver: 2
players under every ending, 3 players under every ending, 4+ first to the goal), the chance the move gave
away against the best option, and a mark when that is large:

- **inaccuracy**: 1 to 3 percentage points of winning chance given away,
- **mistake**: 3 to 8 points,
- **blunder**: 8 points or more.

Pig's decisions are close far more often than chess moves are, so these thresholds are smaller than
lichess's (which are stated on a scale where 10 points is an inaccuracy); holding at turn total 0 at the
start of Pig gives away 5.6 points, holding at 20 points instead of 21 a few hundredths of a point. Every
seat's winning chance before each decision makes the advantage chart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pigdice.engine.game import Action, GameState, Hold, Move, Roll, apply, dice_rng, legal_actions, new_game
from pigdice.engine.record import GameRecord, replay_record
from pigdice.engine.simultaneous import choosing_seats, seat_view
from pigdice.players.optimal import Optimal, in_play, position_of, seat_chances
from pigdice.players.tablechance import table_chances
from pigdice.rules.variant import Variant
from pigdice.study.luck import LuckAndSkill, luck_and_skill
from pigdice.study.rating import Rating, level_title, rate

MARKS = (("blunder", 0.08), ("mistake", 0.03), ("inaccuracy", 0.01))  # (mark, least chance given away)
MARK_ORDER = tuple(name for name, _ in MARKS)


def mark_of(loss: float | None) -> str | None:
    """Return the mark of a decision that gave away ``loss`` of winning chance (None when below 1 point)."""
    if loss is None:
        return None
    for name, threshold in MARKS:
        if loss >= threshold - 1e-12:
            return name
    return None


@dataclass(frozen=True)
class ReviewedDecision:
    """One decision: where it was taken, what was chosen, and what each option was worth to the mover."""

    move: int  # the move's number in the game, from 1
    seat: int
    scores: tuple[int, ...]  # every seat's banked score, in seat order
    turn_total: int
    final_round: bool  # the mover was playing a last turn (someone had reached the goal)
    taken: str  # the option chosen: hold, roll, roll:N (sit, stand in Swine Herd)
    values: dict[str, float]  # the mover's win probability after each option
    best: str
    loss: float | None  # winning chance given away against the best option (None where not known)
    mark: str | None
    win_by_seat: tuple[float, ...] | None  # every seat's winning chance before the decision, in seat order

    def to_json(self) -> dict[str, Any]:
        """Return the decision as JSON-ready data."""
        return {
            "move": self.move,
            "seat": self.seat,
            "scores": list(self.scores),
            "turn_total": self.turn_total,
            "final_round": self.final_round,
            "taken": self.taken,
            "values": self.values,
            "best": self.best,
            "loss": self.loss,
            "mark": self.mark,
            "win_by_seat": None if self.win_by_seat is None else list(self.win_by_seat),
        }


@dataclass(frozen=True)
class SeatSummary:
    """One seat's decisions in total: how many, the chance given away, the marks and the worst one."""

    seat: int
    name: str
    human: bool
    decisions: int
    given_away: float  # winning chance given away over all decisions
    marked_away: float  # of which in the marked decisions
    marks: dict[str, int]
    worst: ReviewedDecision | None
    rating: Rating  # the Performance Rating of its decisions (``pigdice.study.rating``)

    def to_json(self) -> dict[str, Any]:
        """Return the summary as JSON-ready data."""
        return {
            "seat": self.seat,
            "name": self.name,
            "human": self.human,
            "decisions": self.decisions,
            "given_away": self.given_away,
            "marked_away": self.marked_away,
            "marks": self.marks,
            "worst_move": None if self.worst is None else self.worst.move,
            "rating": self.rating.to_json(),
        }


@dataclass(frozen=True)
class Review:
    """A reviewed game: every decision, each seat's summary, and whether the values are exact."""

    names: tuple[str, ...]
    decisions: tuple[ReviewedDecision, ...]
    seats: tuple[SeatSummary, ...]
    approximate: str | None  # why the values are approximate, or None when they are exact
    luck: LuckAndSkill | None = None  # exact luck and skill (None where the values are approximate)

    def to_json(self) -> dict[str, Any]:
        """Return the review as JSON-ready data (thresholds included).

        Every seat carries ``start``, ``luck`` (``dice`` + ``others``), ``error``, ``result`` (None while
        the game goes on) with result = start + luck - error, or None for all of them where the values are
        approximate; ``luck`` holds every roll's luck and every seat's chance after each move.
        """
        luck = None if self.luck is None else self.luck.to_json()
        seats = []
        for summary in self.seats:
            ledger = dict.fromkeys(("start", "luck", "dice", "others", "error", "result", "now", "luck_adjusted"))
            ledger.update(luckiest=None, unluckiest=None)
            if luck is not None:
                ledger.update(luck["seats"][summary.seat])
            words = {"luck_line": luck_line(self, summary.seat), "rating_line": rating_line(summary)}
            seats.append({**summary.to_json(), **ledger, **words})
        if luck is not None:
            del luck["seats"]
        return {
            "exact": self.approximate is None,
            "approximate": self.approximate,
            "marks": {name: threshold for name, threshold in MARKS},
            "names": list(self.names),
            "seats": seats,
            "decisions": [d.to_json() for d in self.decisions],
            "luck": luck,
        }


def describe_decision(decision: ReviewedDecision, names: Sequence[str]) -> str:
    """Return one sentence for people: where the decision was, what was chosen and what each option was worth."""
    mover = names[decision.seat]
    you = mover == "You"
    others = [f"{names[p]} {s}" for p, s in enumerate(decision.scores) if p != decision.seat]
    where = f"at {decision.scores[decision.seat]} against {', '.join(others)} with {decision.turn_total} in the turn"
    options = ", ".join(f"{_option_words(name)} {100 * value:.1f}%" for name, value in _shown_values(decision))
    verb = _taken_words(decision.taken)
    return f"move {decision.move}, {where}: {'you' if you else mover} {verb} ({options})"


def summary_line(summary: SeatSummary, names: Sequence[str]) -> str:
    """Return the end-of-game line for one seat, e.g. "You gave away 7.4% in 3 decisions; the worst was ..."."""
    who = "You" if summary.name == "You" else summary.name
    if summary.decisions == 0:
        return f"{who} had no decision to make."
    marked = sum(summary.marks.values())
    if marked == 0 or summary.worst is None:
        plural = "s" if summary.decisions != 1 else ""
        lost = f" (gave away {100 * summary.given_away:.2f}% in all)" if summary.given_away >= 5e-5 else ""
        return f"{who} played all {summary.decisions} decision{plural} within 1% of perfect{lost}."
    counts = ", ".join(f"{count} {_plural(name, count)}" for name, count in summary.marks.items() if count)
    marked_away = summary.marked_away
    rest = summary.given_away - marked_away
    slips = f", and {100 * rest:.1f}% more in small slips" if rest >= 5e-4 else ""
    decisions = "decision" if marked == 1 else "decisions"
    worst = describe_decision(summary.worst, names)
    return f"{who} gave away {100 * marked_away:.1f}% in {marked} {decisions} ({counts}){slips}; the worst was {worst}."


def luck_line(review: Review, seat: int) -> str | None:
    """Return what the dice and the play did to one seat's chance, in words (None where the values are approximate).

    E.g. "You lost 12.3 points of winning chance to the dice and 3.1 to your play (from 53.1% at the start)."
    """
    if review.luck is None:
        return None
    ledger = review.luck.seats[seat]
    you = review.names[seat] == "You"
    who = "You" if you else review.names[seat]
    your = "your" if you else "their"
    dice, error = _points(ledger.dice), _points(ledger.error)
    if ledger.dice < 0:
        text = f"{who} lost {dice} points of winning chance to the dice and {error} to {your} play"
    else:
        whom, mover = ("you", "your") if you else (who, f"{who}'s")
        text = f"The dice gave {whom} {dice} points of winning chance and {mover} play gave away {error}"
    if abs(ledger.others) >= 5e-4:
        others = [name for p, name in enumerate(review.names) if p != seat]
        whose = "the other players' choices"
        if len(others) == 1:
            whose = "your play" if others[0] == "You" else f"{others[0]}'s play"
        verb = "gave" if ledger.others > 0 else "cost"
        text += f"; {whose} {verb} {'you' if you else 'them'} {_points(ledger.others)}"
    text += f" (from {100 * ledger.start:.1f}% at the start"
    if ledger.result is None:
        return text + f" to {100 * ledger.now:.1f}% now)."
    if ledger.result in (0.0, 1.0):
        outcome = "a win" if ledger.result == 1.0 else "a loss"
    else:
        outcome = f"{100 * ledger.result:.0f}% of a shared win"
    adjusted = ledger.luck_adjusted
    tail = "" if adjusted is None else f"; luck-adjusted result {100 * adjusted:.1f}%"
    return text + f" to {outcome}{tail})."


def rating_line(summary: SeatSummary) -> str:
    """Return one seat's Performance Rating in words, with the robot level it played like."""
    who = "You" if summary.name == "You" else summary.name
    rating = summary.rating
    if rating.value is None:
        return f"{who} had no decision that mattered, so no Performance Rating."
    plural = "" if rating.decisions == 1 else "s"
    like = level_title(rating.value)
    return (
        f"{who} played like {like}: Performance Rating {rating.value:.1f} over {rating.decisions} "
        f"decision{plural} (lower is better)."
    )


def _points(chance: float) -> str:
    return f"{100 * abs(chance):.1f}"


def review_record(
    record: GameRecord, optimal: Optimal | None = None, progress: Callable[[float], None] | None = None
) -> Review:
    """Review a recorded game whose seed is revealed (raise RecordError otherwise)."""
    replay_record(record)  # refuses a hidden seed or an illegal move before any solving
    names = [seat.name for seat in record.seats]
    humans = [seat.kind == "human" for seat in record.seats]
    return review_game(record.build_variant(), names, humans, record.seed or 0, record.actions(), optimal, progress)


def review_game(
    variant: Variant,
    names: Sequence[str],
    humans: Sequence[bool],
    seed: int,
    actions: Sequence[Move],
    optimal: Optimal | None = None,
    progress: Callable[[float], None] | None = None,
) -> Review:
    """Review the game of ``variant`` played with ``seed`` and ``actions`` (``optimal`` supplies the policies)."""
    perfect = optimal or Optimal(variant)
    players = len(names)
    state = new_game(variant, players)
    rng = dice_rng(seed)
    reviewed: list[ReviewedDecision] = []
    approximate: str | None = None
    moment, moment_key = state, (-1, -1)
    for number, action in enumerate(actions, start=1):
        if variant.is_simultaneous:  # Swine Herd: each seat chose on the moment's state, seeing no other choice
            key = (state.turn, state.rolls_this_turn)
            if key != moment_key:
                moment, moment_key = state, key
            seen = seat_view(moment, state.current) if state.current in choosing_seats(moment) else state
        else:
            seen = state
        if isinstance(action, Roll | Hold) and len(legal_actions(seen)) > 1:  # not a resignation or a timeout
            hint = perfect.hint(seen)
            approximate = approximate or hint.approximate
            taken = _option_name(seen, action)
            chosen = hint.values.get(taken)
            loss = None if chosen is None else max(0.0, hint.values[hint.best] - chosen)
            playing = len(in_play(seen))  # fewer players once someone resigned
            exact = perfect.exact(playing) if playing > 2 else None  # two: the mover's chance settles it
            wins = _win_by_seat(seen, exact.win_vector(position_of(seen)) if exact else None, hint.win_probability)
            if wins is None:  # 3+ players and no exact solver: the table's estimate, never the 2-player figure
                wins = table_chances(seen, perfect)
            reviewed.append(
                ReviewedDecision(
                    move=number,
                    seat=seen.current,
                    scores=seen.scores,
                    turn_total=seen.turn_total,
                    final_round=seen.final_round is not None,
                    taken=taken,
                    values=dict(hint.values),
                    best=hint.best,
                    loss=loss,
                    mark=mark_of(loss),
                    win_by_seat=wins,
                )
            )
        state, _ = apply(state, action, rng)
        if progress is not None:
            progress(number / max(1, len(actions)))
    seats = tuple(_summary(seat, names[seat], humans[seat], reviewed) for seat in range(players))
    luck = None if approximate is not None else luck_and_skill(variant, players, seed, actions, perfect)
    return Review(tuple(names), tuple(reviewed), seats, approximate, luck)


def _summary(seat: int, name: str, human: bool, reviewed: Sequence[ReviewedDecision]) -> SeatSummary:
    mine = [d for d in reviewed if d.seat == seat]
    marks = Counter(d.mark for d in mine if d.mark is not None)
    lossy = [d for d in mine if d.loss is not None]
    worst = max(lossy, key=lambda d: d.loss or 0.0, default=None)
    if worst is not None and worst.mark is None:
        worst = None
    return SeatSummary(
        seat=seat,
        name=name,
        human=human,
        decisions=len(mine),
        given_away=sum(d.loss or 0.0 for d in mine),
        marked_away=sum(d.loss or 0.0 for d in mine if d.mark is not None),
        marks={name: marks.get(name, 0) for name in MARK_ORDER},
        worst=worst,
        rating=rate((d.values, d.loss) for d in mine),
    )


def _option_name(state: GameState, action: Action) -> str:
    """Return the hint's name of ``action``: hold, roll or roll:N (sit or stand in Swine Herd)."""
    variant = state.variant
    if variant.is_simultaneous:
        return "sit" if isinstance(action, Hold) else "stand"
    if isinstance(action, Roll) and variant.chooses_dice:
        return f"roll:{action.dice}"
    return "roll" if isinstance(action, Roll) else "hold"


def _win_by_seat(state: GameState, vector: tuple[float, ...] | None, mover: float) -> tuple[float, ...] | None:
    """Return every seat's winning chance in seat order (the mover's alone settles it for 2 players)."""
    if vector is not None:
        return seat_chances(state, vector)
    order = in_play(state)
    if len(order) == 2:
        return seat_chances(state, (mover, 1.0 - mover))
    return None


def _shown_values(decision: ReviewedDecision) -> list[tuple[str, float]]:
    """Return the options to name in a sentence: all of them, or for many dice choices the best and the taken."""
    if len(decision.values) <= 3:
        return list(decision.values.items())
    keep = dict.fromkeys([decision.best, decision.taken])
    return [(name, decision.values[name]) for name in keep if name in decision.values]


def _option_words(name: str) -> str:
    if name.startswith("roll:"):
        count = name.split(":", 1)[1]
        return f"{count} {'die' if count == '1' else 'dice'}"
    return {"hold": "holding", "roll": "rolling", "sit": "sitting", "stand": "standing"}.get(name, name)


def _taken_words(name: str) -> str:
    if name.startswith("roll:"):
        count = name.split(":", 1)[1]
        return f"rolled {count} {'die' if count == '1' else 'dice'}"
    words = {"hold": "held", "roll": "rolled", "sit": "sat down", "stand": "stayed standing"}
    return words.get(name, name)


def _plural(mark: str, count: int) -> str:
    if count == 1:
        return mark
    return "inaccuracies" if mark == "inaccuracy" else f"{mark}s"
