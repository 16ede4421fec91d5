"""A game as a document: the versioned JSON record that save, download, replay, review and verify read.

A record holds what rebuilds the game (variant, goal, endings, parameters, seats, seed, actions) and what
happened (the events of every move), plus the dice commitment of a game whose seed was kept secret while it
ran (see ``pigdice.engine.fairness``). Nothing read from a file is trusted: ``GameRecord.from_json`` checks
every field and raises ``RecordError`` naming the first bad one; every number and list has a stated bound.

Format ``pigdice-game`` version 1 (the keys, in order)::

    {"format": "pigdice-game", "version": 1, "origin": "terminal" | "web", "room": code or null,
     "played_at": ISO 8601 time or null,
     "variant": name, "goal": int, "endgame": ..., "ties": ..., "final_turn": ..., "params": {name: value},
     "seats": [{"name": ..., "spec": ..., "kind": "human" | "robot"}, ...],
     "seed": decimal string, or null while the game runs (the dice are secret until it ends),
     "commitment": {"method": "sha256(salt:seed)", "salt": hex (null until the end), "digest": hex} or null,
     "moves": [{"seat": int, "action": "roll" | "hold" | "roll:N" | "resign:N" | "pass", "events": [...]}, ...],
     "result": {"winners": [seat, ...], "scores": [int, ...]} or null}

The seed is a string because JavaScript numbers lose integers above 2^53.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pigdice import files
from pigdice.cleantext import clean_text, has_surrogates
from pigdice.engine.events import Event, event_to_json
from pigdice.engine.game import MAX_SEED, MOVE_LIMIT, GameState, Move, Resign, apply, dice_rng, new_game, parse_move
from pigdice.errors import PigdiceError
from pigdice.rules.parameters import shown
from pigdice.rules.variant import MAX_GOAL, Variant

RECORD_FORMAT = "pigdice-game"
RECORD_VERSION = 1
MAX_RECORD_BYTES = 64 * 2**20  # a file larger than this is refused before it is read
MAX_MOVES = MOVE_LIMIT  # the engine stops every game at this many moves, so every game's record is read
MAX_SEATS = 10
MAX_TEXT = 200  # names, specs and variant names
COMMITMENT_METHOD = "sha256(salt:seed)"
Kind = Literal["human", "robot"]


class RecordError(PigdiceError):
    """A game record that cannot be read: not JSON, the wrong format, or a field out of bounds."""


@dataclass(frozen=True)
class SeatEntry:
    """One seat of a recorded game: its display name, its player spec and whether a person played it."""

    name: str
    spec: str
    kind: Kind


@dataclass(frozen=True)
class Commitment:
    """A promise about the dice made before the game: the SHA-256 of a secret salt and the seed.

    ``salt`` is None while the game runs (it is revealed with the seed when the game ends).
    """

    salt: str | None
    digest: str

    @classmethod
    def make(cls, seed: int, salt: str | None = None) -> Commitment:
        """Return the commitment to ``seed`` with ``salt`` (a fresh random 128-bit salt when None)."""
        salt = secrets.token_hex(16) if salt is None else salt
        return cls(salt, commitment_digest(seed, salt))

    def matches(self, seed: int) -> bool:
        """Return True if ``seed`` is the seed this commitment was made to (False while the salt is secret)."""
        return self.salt is not None and secrets.compare_digest(commitment_digest(seed, self.salt), self.digest)

    def to_json(self) -> dict[str, str | None]:
        """Return the commitment as JSON-ready data."""
        return {"method": COMMITMENT_METHOD, "salt": self.salt, "digest": self.digest}


def commitment_digest(seed: int, salt: str) -> str:
    """Return the hex SHA-256 of ``salt:seed`` (the seed in decimal): what a commitment publishes."""
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


@dataclass(frozen=True)
class MoveEntry:
    """One recorded move: who acted, the action, and the events it produced (as JSON data)."""

    seat: int
    action: str
    events: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class GameRecord:
    """A whole game as a document (see the module docstring for the file format)."""

    variant: str
    goal: int
    endgame: str
    ties: str
    final_turn: str
    params: Mapping[str, Any]
    seats: tuple[SeatEntry, ...]
    seed: int | None
    moves: tuple[MoveEntry, ...]
    commitment: Commitment | None = None
    winners: tuple[int, ...] | None = None
    scores: tuple[int, ...] = ()
    origin: str = "terminal"
    room: str | None = None
    played_at: str | None = None
    _variant: list[Variant] = field(default_factory=list, repr=False, compare=False)  # built once

    @property
    def players(self) -> int:
        """Return the number of seats."""
        return len(self.seats)

    @property
    def finished(self) -> bool:
        """Return True if the game has ended."""
        return self.winners is not None

    def build_variant(self) -> Variant:
        """Return the variant the game was played with (raise RecordError if it cannot be rebuilt)."""
        if not self._variant:
            from pigdice.rules.designed import is_designed_name, rule_set
            from pigdice.rules.registry import find_variant, stored_params

            try:
                if is_designed_name(self.variant):  # a designed game's rules travel in the record: no file is read
                    designed = rule_set(dict(self.params)).to_variant(name=self.variant)
                    variant = designed.with_goal(self.goal).with_endgame(self.endgame, self.ties, self.final_turn)
                else:
                    variant = find_variant(
                        self.variant,
                        goal=self.goal,
                        endgame=self.endgame,
                        ties=self.ties,
                        final_turn=self.final_turn,
                        **stored_params(self.variant, self.params),
                    )
                variant.check_players(self.players)
            except (PigdiceError, TypeError, ValueError, KeyError, OverflowError) as exc:
                raise RecordError(f"the record's game cannot be rebuilt: {clean_text(str(exc), 300)}") from None
            self._variant.append(variant)
        return self._variant[0]

    def actions(self) -> list[Move]:
        """Return the recorded moves as engine moves (raise RecordError on one that cannot be read)."""
        actions = []
        for number, move in enumerate(self.moves, start=1):
            try:
                actions.append(parse_move(move.action))
            except PigdiceError as exc:
                raise RecordError(f"move {number}: {exc}") from None
        return actions

    def to_json(self) -> dict[str, Any]:
        """Return the record as JSON-ready data (format ``pigdice-game`` version 1)."""
        result = None
        if self.winners is not None:
            result = {"winners": list(self.winners), "scores": list(self.scores)}
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "origin": self.origin,
            "room": self.room,
            "played_at": self.played_at,
            "variant": self.variant,
            "goal": self.goal,
            "endgame": self.endgame,
            "ties": self.ties,
            "final_turn": self.final_turn,
            "params": dict(self.params),
            "seats": [{"name": s.name, "spec": s.spec, "kind": s.kind} for s in self.seats],
            "seed": None if self.seed is None else str(self.seed),
            "commitment": None if self.commitment is None else self.commitment.to_json(),
            "moves": [{"seat": m.seat, "action": m.action, "events": list(m.events)} for m in self.moves],
            "result": result,
        }

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Return the record in ``data`` (parsed JSON), checking every field; raise RecordError naming a bad one."""
        return _decode(data)


def record_game(
    variant: Variant,
    seats: Sequence[SeatEntry],
    seed: int,
    actions: Iterable[Move | str],
    *,
    commitment: Commitment | None = None,
    reveal_seed: bool = True,
    origin: str = "terminal",
    room: str | None = None,
    played_at: str | None = None,
) -> GameRecord:
    """Return the record of a game, its events rebuilt by replaying ``actions`` with the seed's dice.

    ``reveal_seed=False`` leaves the seed out (a running web game: the dice stay secret until the end).
    """
    state = new_game(variant, len(seats))
    rng = dice_rng(seed)
    moves = []
    for item in actions:
        action = parse_move(item) if isinstance(item, str) else item
        seat = action.seat if isinstance(action, Resign) else state.current
        state, events = apply(state, action, rng)
        moves.append(MoveEntry(seat, str(action), tuple(event_to_json(e) for e in events)))
    return GameRecord(
        variant=variant.name,
        goal=variant.goal,
        endgame=str(variant.endgame),
        ties=str(variant.ties),
        final_turn=str(variant.final_turn),
        params=dict(variant.parameters),
        seats=tuple(seats),
        seed=seed if reveal_seed else None,
        moves=tuple(moves),
        commitment=commitment,
        winners=state.winners,
        scores=state.scores,
        origin=origin,
        room=room,
        played_at=played_at,
    )


def replay_record(record: GameRecord) -> tuple[GameState, list[list[Event]]]:
    """Replay a record from its seed; return the final state and each move's events.

    Raise RecordError if the seed is hidden or a recorded action is not legal where it stands.
    """
    if record.seed is None:
        raise RecordError("the record has no seed yet: the dice stay secret until the game ends")
    variant = record.build_variant()
    state = new_game(variant, record.players)
    rng = dice_rng(record.seed)
    per_move = []
    for number, (move, action) in enumerate(zip(record.moves, record.actions(), strict=True), start=1):
        mover = action.seat if isinstance(action, Resign) else state.current
        if move.seat != mover:
            raise RecordError(f"move {number} is by seat {move.seat}, but it was seat {mover}'s move")
        try:
            state, events = apply(state, action, rng)
        except PigdiceError as exc:
            raise RecordError(f"move {number}: {exc}") from None
        per_move.append(events)
    return state, per_move


def record_text(record: GameRecord) -> str:
    """Return ``record`` as the text of a record file: JSON with its fields indented and one move per line."""
    data = record.to_json()
    moves = data["moves"]
    data["moves"] = []
    head, tail = json.dumps(data, indent=1).split('"moves": []', 1)
    if not moves:
        return f'{head}"moves": []{tail}\n'
    lines = ",\n  ".join(json.dumps(move, separators=(",", ":")) for move in moves)
    return f'{head}"moves": [\n  {lines}\n ]{tail}\n'


def save_record(record: GameRecord, path: Path) -> None:
    """Write ``record`` to ``path`` atomically (a crash never leaves half a file), and only as a plain file.

    Raises ``files.UnsafeFileError`` for a link, a device or a pipe at ``path`` (nothing is written) and OSError
    when the file cannot be written.
    """
    path = Path(path)
    files.check_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    files.write_text(path, record_text(record))


def load_record(path: Path) -> GameRecord:
    """Read a record from ``path`` (raise RecordError if it is missing, not a plain file, too large or not a
    game record)."""
    path = Path(path)
    try:
        raw = files.read_bytes(path, MAX_RECORD_BYTES, "a game record")
    except files.UnsafeFileError as exc:
        raise RecordError(str(exc)) from None
    except OSError as exc:
        raise RecordError(f"cannot read {clean_text(str(path))}: {exc.strerror or exc}") from None
    return parse_record(raw, clean_text(path.name))


def parse_record(raw: bytes | str, where: str = "the record") -> GameRecord:
    """Return the record in ``raw`` JSON text (raise RecordError naming what is wrong)."""
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(f"{where} is larger than {MAX_RECORD_BYTES:,} bytes; a game record is smaller")
    try:
        data = json.loads(raw)
    except RecursionError:
        raise RecordError(f"{where} is not a game record: its JSON is nested too deeply") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # sys.get_int_max_str_digits: 4,300 by default
            raise RecordError(f"{where} holds a number with thousands of digits; a game record has none") from None
        raise RecordError(f"{where} is not JSON ({clean_text(str(exc), 200)})") from None
    return GameRecord.from_json(data)


# -- decoding --------------------------------------------------------------------------------------
def _field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...], where: str = "") -> Any:
    if name not in data:
        raise RecordError(f"{where}{name} is missing")
    value = data[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise RecordError(f"{where}{name} is {shown(value)}, not {_kind_name(kind)}")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "text", int: "a whole number", list: "a list", dict: "an object", type(None): "null"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _text(data: Mapping[str, Any], name: str, where: str = "") -> str:
    value: str = _field(data, name, str, where)
    if len(value) > MAX_TEXT:
        raise RecordError(f"{where}{name} is {len(value)} characters long; at most {MAX_TEXT}")
    if has_surrogates(value):
        raise RecordError(f"{where}{name} holds a character that is not text (an unpaired surrogate)")
    return value


def _shown_text(data: Mapping[str, Any], name: str, where: str = "") -> str:
    """Return a text field that is shown to people (a name): checked, with control characters cleaned."""
    return clean_text(_text(data, name, where))


def _seed(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        seed = value
    elif isinstance(value, str) and value.isdecimal() and len(value) <= 20:
        seed = int(value)
    else:
        raise RecordError(f"{name} is {shown(value)}, not a whole number in decimal")
    if not 0 <= seed <= MAX_SEED:
        raise RecordError(f"{name} {seed} is outside 0..{MAX_SEED}")
    return seed


def _hex(data: Mapping[str, Any], name: str, where: str, length: int | None = None) -> str:
    value = _text(data, name, where)
    if not value or any(ch not in "0123456789abcdef" for ch in value) or (length and len(value) != length):
        size = f"{length} " if length else ""
        raise RecordError(f"{where}{name} is {shown(value)}, not {size}lower-case hexadecimal digits")
    return value


def _decode(data: Any) -> GameRecord:
    if not isinstance(data, dict):
        raise RecordError(f"a game record is a JSON object, not {type(data).__name__}")
    if data.get("format") != RECORD_FORMAT:
        raise RecordError(f"this is not a pigdice game record (format is {shown(data.get('format'))})")
    version = _field(data, "version", int)
    if version != RECORD_VERSION:
        raise RecordError(f"record version {version} is not one this pigdice reads (it reads {RECORD_VERSION})")
    params = _field(data, "params", dict)
    if len(params) > 20 or not all(isinstance(k, str) and len(k) <= MAX_TEXT for k in params):
        raise RecordError("params must be at most 20 named settings")
    if not all(isinstance(v, str | int | float | bool) for v in params.values()):
        raise RecordError("params values must be text, numbers or true/false")
    if any(has_surrogates(text) for item in params.items() for text in item if isinstance(text, str)):
        raise RecordError("params hold a character that is not text (an unpaired surrogate)")
    if any(isinstance(v, str) and len(v) > MAX_TEXT for v in params.values()):
        raise RecordError(f"params values are at most {MAX_TEXT} characters long")
    goal = _field(data, "goal", int)
    if not 1 <= goal <= MAX_GOAL:
        raise RecordError(f"goal {shown(goal)} is outside 1..{MAX_GOAL}")
    seat_rows = _field(data, "seats", list)
    if not 1 <= len(seat_rows) <= MAX_SEATS:
        raise RecordError(f"the record has {len(seat_rows)} seats; a game has 1 to {MAX_SEATS}")
    seats = []
    for index, row in enumerate(seat_rows):
        where = f"seat {index}: "
        if not isinstance(row, dict):
            raise RecordError(f"{where}not an object")
        kind = _text(row, "kind", where)
        if kind not in ("human", "robot"):
            raise RecordError(f"{where}kind {shown(kind)} is neither human nor robot")
        name, spec = _shown_text(row, "name", where), _shown_text(row, "spec", where)
        seats.append(SeatEntry(name, spec, kind))  # type: ignore[arg-type]
    commitment = None
    if data.get("commitment") is not None:
        promise = _field(data, "commitment", dict)
        method = promise.get("method")
        if method != COMMITMENT_METHOD:
            raise RecordError(f"commitment method {shown(method)} is not {COMMITMENT_METHOD}")
        salt = None if promise.get("salt") is None else _hex(promise, "salt", "commitment ")
        commitment = Commitment(salt, _hex(promise, "digest", "commitment ", 64))
    move_rows = _field(data, "moves", list)
    if len(move_rows) > MAX_MOVES:
        raise RecordError(f"the record has {len(move_rows):,} moves; at most {MAX_MOVES:,} are read")
    moves = []
    for number, row in enumerate(move_rows, start=1):
        where = f"move {number}: "
        if not isinstance(row, dict):
            raise RecordError(f"{where}not an object")
        seat = _field(row, "seat", int, where)
        if not 0 <= seat < len(seats):
            raise RecordError(f"{where}seat {seat} is not one of the {len(seats)}")
        events = _field(row, "events", list, where)
        if len(events) > 1000 or not all(isinstance(e, dict) for e in events):
            raise RecordError(f"{where}events must be a list of at most 1000 objects")
        moves.append(MoveEntry(seat, _shown_text(row, "action", where), tuple(events)))
    winners: tuple[int, ...] | None = None
    scores: tuple[int, ...] = ()
    if data.get("result") is not None:
        result = _field(data, "result", dict)
        won = _field(result, "winners", list, "result ")
        score_list = _field(result, "scores", list, "result ")
        if not all(isinstance(w, int) and not isinstance(w, bool) and 0 <= w < len(seats) for w in won) or not won:
            raise RecordError(f"result winners {shown(won)} are not seats of this game")
        if len(score_list) != len(seats) or not all(isinstance(s, int) and not isinstance(s, bool) for s in score_list):
            raise RecordError(f"result scores {shown(score_list)} are not one whole number per seat")
        winners, scores = tuple(won), tuple(score_list)
    origin = _text(data, "origin")
    if origin not in ("terminal", "web"):
        raise RecordError(f"origin {shown(origin)} is neither terminal nor web")
    return GameRecord(
        variant=_text(data, "variant"),
        goal=goal,
        endgame=_text(data, "endgame"),
        ties=_text(data, "ties"),
        final_turn=_text(data, "final_turn"),
        params=params,
        seats=tuple(seats),
        seed=_seed(data.get("seed"), "seed"),
        moves=tuple(moves),
        commitment=commitment,
        winners=winners,
        scores=scores,
        origin=origin,
        room=None if data.get("room") is None else _shown_text(data, "room"),
        played_at=None if data.get("played_at") is None else _shown_text(data, "played_at"),
    )
