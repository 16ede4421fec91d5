"""Provably fair dice: check a game record's commitment and recompute every die from its revealed seed.

When a web game starts the server publishes a commitment, the SHA-256 of a secret salt and the dice seed
(``record.Commitment``); when it ends it reveals both. Anyone holding the record can then check that the seed
is the one promised and that every throw in the record is what that seed gives (``verify_record``), and
compare the faces seen with what fair dice show (``dice_statistics``: a chi-square test per game or room).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from pigdice.engine.events import describe_event, event_to_json
from pigdice.engine.record import GameRecord, RecordError, replay_record
from pigdice.rules.variant import Variant


@dataclass(frozen=True)
class Verification:
    """What checking a record found: ``ok`` when the commitment holds and every move replays as recorded."""

    commitment: str  # "matches", "does not match", "none" (no commitment was made) or "secret" (no seed yet)
    moves_checked: int
    throws_checked: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Return True if nothing is wrong (a record without commitment can still replay correctly)."""
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        """Return the verification as JSON-ready data."""
        return {
            "ok": self.ok,
            "commitment": self.commitment,
            "moves_checked": self.moves_checked,
            "throws_checked": self.throws_checked,
            "problems": list(self.problems),
        }


def verify_record(record: GameRecord) -> Verification:
    """Check ``record``: the commitment against the revealed seed, then every move's dice and outcome."""
    return verify_and_count(record)[0]


def verify_and_count(record: GameRecord) -> tuple[Verification, DiceStatistics | None]:
    """Check ``record`` as ``verify_record`` does and, if it holds, count its dice from the same replay (a game of
    100,000 moves is replayed once, not twice); the statistics are None when it does not hold."""
    if record.seed is None:
        return Verification("secret", 0, 0, ("the seed is still secret: the game has not ended",)), None
    problems: list[str] = []
    if record.commitment is None:
        promise = "none"
    elif record.commitment.matches(record.seed):
        promise = "matches"
    else:
        promise = "does not match"
        if record.commitment.salt is None:
            problems.append("the seed is revealed but the commitment's salt is not, so the promise cannot be checked")
        else:
            problems.append("the revealed seed and salt do not give the commitment published at the start")
    names = [seat.name for seat in record.seats]
    throws = 0
    try:
        state, per_move = replay_record(record)
    except RecordError as exc:
        return Verification(promise, 0, 0, (*problems, str(exc))), None
    replayed: list[dict[str, Any]] = []
    for number, (move, events) in enumerate(zip(record.moves, per_move, strict=True), start=1):
        expected = [event_to_json(e) for e in events]
        replayed.extend(expected)
        throws += sum(1 for e in expected if e["type"] == "Rolled")
        if not problems[20:] and expected != list(move.events):
            truth = "; ".join(describe_event(e, names) for e in events)
            problems.append(f"move {number} ({move.action}): the record differs from the dice of the seed: {truth}")
            if len(problems) >= 20:
                problems.append("(stopped after 20 differences)")
    if record.winners is not None and (state.winners != record.winners or state.scores != record.scores):
        problems.append(
            f"the recorded result (winners {list(record.winners)}, scores {list(record.scores)}) is not the "
            f"replayed one (winners {list(state.winners or [])}, scores {list(state.scores)})"
        )
    checked = Verification(promise, len(per_move), throws, tuple(problems))
    return checked, dice_statistics([(record.build_variant(), replayed)]) if checked.ok else None


@dataclass(frozen=True)
class FaceCount:
    """How often one face of one kind of die showed, against what fair dice give."""

    die: str
    face: str
    seen: int
    expected: float


@dataclass(frozen=True)
class DiceStatistics:
    """Faces seen against expected over some throws, and Pearson's chi-square test of fairness."""

    throws: int
    faces: tuple[FaceCount, ...]
    chi_square: float
    degrees_of_freedom: int
    p_value: float | None  # None when there is too little to test (no degrees of freedom)
    mishaps: int = 0
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """Return the statistics as JSON-ready data."""
        return {
            "throws": self.throws,
            "faces": [
                {"die": f.die, "face": f.face, "seen": f.seen, "expected": round(f.expected, 6)} for f in self.faces
            ],
            "chi_square": self.chi_square,
            "degrees_of_freedom": self.degrees_of_freedom,
            "p_value": self.p_value,
            "mishaps": self.mishaps,
            "notes": list(self.notes),
        }


def dice_statistics(games: Iterable[tuple[Variant, Sequence[dict[str, Any]]]]) -> DiceStatistics:
    """Count the faces of every throw in ``games`` ((variant, events as JSON) pairs) and test them for fairness.

    Each kind of die (a standard die, Pig Dice's head and tail dice, a rubber pig) is one multinomial: its
    faces seen against its exact face probabilities times the dice of that kind thrown. The chi-square
    statistics of the kinds add up, with (faces - 1) degrees of freedom each; a variant with a mishap
    (Pass the Pigs' pigs touching) adds one degree for mishap against no mishap. The p-value is the chance
    that fair dice look at least this far from expected; below 0.001 is worth a look, but one game in a
    thousand gets there by chance.
    """
    seen: Counter[tuple[str, int]] = Counter()
    thrown: Counter[str] = Counter()
    dice_by_name: dict[str, Any] = {}
    mishap_chance: Fraction = Fraction(0)
    mishaps = throws = unreadable = 0
    mishap_throws = 0
    for variant, events in games:
        for event in events:
            if event.get("type") != "Rolled":
                continue
            try:
                spec = variant.roll_spec(event.get("dice") if variant.chooses_dice else None)
                faces = event.get("faces")
                if faces is not None and (
                    not isinstance(faces, list)
                    or len(faces) != len(spec.dice)
                    or any(face not in die.faces for die, face in zip(spec.dice, faces, strict=True))
                ):
                    raise ValueError(faces)
            except (ValueError, TypeError):
                unreadable += 1
                continue
            throws += 1
            if spec.mishap is not None and spec.mishap.probability > 0:
                mishap_throws += 1
                mishap_chance = spec.mishap.probability
            if faces is None:
                mishaps += 1
                continue
            for die, face in zip(spec.dice, faces, strict=True):
                dice_by_name[die.name] = die
                thrown[die.name] += 1
                seen[(die.name, face)] += 1
    rows: list[FaceCount] = []
    chi = 0.0
    freedom = 0
    for name, die in sorted(dice_by_name.items()):
        used = [(face, label, p) for face, label, p in zip(die.faces, die.labels, die.probabilities, strict=True) if p]
        for face, label, p in used:
            expected = float(p) * thrown[name]
            count = seen[(name, face)]
            rows.append(FaceCount(name, label, count, expected))
            chi += (count - expected) ** 2 / expected
        freedom += len(used) - 1
    notes = []
    if unreadable:
        notes.append(f"{unreadable} throws could not be read and were left out.")
    if mishap_throws:
        expected_mishaps = float(mishap_chance) * mishap_throws
        chi += (mishaps - expected_mishaps) ** 2 / expected_mishaps
        chi += (mishaps - expected_mishaps) ** 2 / (mishap_throws - expected_mishaps)
        freedom += 1
        notes.append(f"Mishaps: {mishaps} of {mishap_throws} throws, {expected_mishaps:.1f} expected.")
    small = [row for row in rows if row.expected < 5]
    if small and throws:
        notes.append("Some faces were expected fewer than 5 times: the p-value is rough until more dice are thrown.")
    p_value = None
    if freedom > 0 and throws:
        from scipy.stats import chi2

        p_value = float(chi2.sf(chi, freedom))
    return DiceStatistics(throws, tuple(rows), chi, freedom, p_value, mishaps, tuple(notes))


def record_dice_statistics(records: Iterable[GameRecord]) -> DiceStatistics:
    """Return the dice statistics of the throws in ``records`` (one game, or every game of a room).

    A record whose seed is revealed is counted from its replay (what the seed's dice really showed), any other
    from its recorded events.
    """

    def throws(record: GameRecord) -> tuple[Variant, list[dict[str, Any]]]:
        if record.seed is not None:
            _, per_move = replay_record(record)
            return record.build_variant(), [event_to_json(e) for events in per_move for e in events]
        return record.build_variant(), [e for m in record.moves for e in m.events]

    return dice_statistics(throws(record) for record in records)
