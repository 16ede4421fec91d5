"""Request bodies and websocket messages, validated with pydantic (unknown fields are refused)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from pigdice.web.config import DEFAULT_VARIANT

Token = Annotated[str, Field(min_length=1, max_length=128)]
ActionText = Annotated[str, Field(min_length=1, max_length=16)]
Name = Annotated[str, Field(max_length=64)]
SeatIndex = Annotated[int, Field(ge=0, le=1000)]
Spec = Annotated[str, Field(max_length=64)]
ParamValue = Annotated[str, Field(max_length=32)] | int
MessageId = Annotated[str, Field(max_length=64)] | int


class Strict(BaseModel):
    """A model that refuses unknown fields and does not coerce strings to numbers."""

    model_config = ConfigDict(extra="forbid", strict=True)


class CreateGame(Strict):
    """POST /api/games: what to play and who plays."""

    variant: Annotated[str, Field(min_length=1, max_length=64)] = DEFAULT_VARIANT
    goal: Annotated[int, Field(ge=1, le=100_000)] | None = None
    endgame: Annotated[str, Field(max_length=32)] | None = None
    ties: Annotated[str, Field(max_length=32)] | None = None
    final_turn: Annotated[str, Field(max_length=32)] | None = None
    params: Annotated[dict[Annotated[str, Field(max_length=32)], ParamValue], Field(max_length=8)] = Field(
        default_factory=dict
    )
    players: Annotated[list[Spec], Field(min_length=1, max_length=100)] = Field(
        default_factory=lambda: ["you", "hold:20"]
    )
    name: Name | None = None


class JoinSeat(Strict):
    """POST /api/games/{code}/join: take a seat (the first open one if ``seat`` is omitted)."""

    seat: SeatIndex | None = None
    name: Name | None = None


class ActionRequest(Strict):
    """POST /api/games/{code}/actions: act for a seat you hold (in Swine Herd: its hidden choice for this roll)."""

    seat: SeatIndex
    token: Token
    action: ActionText
    expected_step: Annotated[int, Field(ge=0)]


class HintRequest(Strict):
    """POST /api/games/{code}/hint: the perfect player's advice for a seat you hold."""

    seat: SeatIndex
    token: Token


class ResignRequest(Strict):
    """POST /api/games/{code}/resign: leave the game for a seat you hold (the others play on)."""

    seat: SeatIndex
    token: Token


class RematchRequest(Strict):
    """POST /api/games/{code}/rematch: answer the rematch for the seats you hold: yes (offer or accept) or no
    (withdraw your offer, or decline)."""

    tokens: Annotated[dict[Annotated[str, Field(max_length=4)], Token], Field(min_length=1, max_length=100)]
    answer: Literal["yes", "no"] = "yes"


class AbortRequest(Strict):
    """POST /api/games/{code}/abort: call the game off for a seat you hold, before anyone has played."""

    seat: SeatIndex
    token: Token


class ClaimRequest(Strict):
    """POST /api/games/{code}/claim: for a seat you hold, claim the seat of a player who left (``absent``)."""

    seat: SeatIndex
    token: Token
    absent: SeatIndex


# -- websocket messages -------------------------------------------------------------------------
class WsAction(Strict):
    """Play an action: roll, hold or roll:N, for a seat you hold, at the step you last saw."""

    type: Literal["action"]
    seat: SeatIndex
    token: Token
    action: ActionText
    expected_step: Annotated[int, Field(ge=0)]
    id: MessageId | None = None


class WsJoin(Strict):
    """Take a seat."""

    type: Literal["join"]
    seat: SeatIndex | None = None
    name: Name | None = None
    id: MessageId | None = None


class WsHello(Strict):
    """Say which seats this connection holds (marks them as connected)."""

    type: Literal["hello"]
    tokens: Annotated[dict[Annotated[str, Field(max_length=4)], Token], Field(max_length=100)] = Field(
        default_factory=dict
    )
    id: MessageId | None = None


class WsHint(Strict):
    """Ask for a hint and the win chance of a seat you hold."""

    type: Literal["hint"]
    seat: SeatIndex
    token: Token
    id: MessageId | None = None


class WsPing(Strict):
    """Keep the connection alive."""

    type: Literal["ping"]
    id: MessageId | None = None


class WsHistory(Strict):
    """Ask for the events before event number ``before`` (the welcome carries only the latest)."""

    type: Literal["history"]
    before: Annotated[int, Field(ge=0, le=10_000_000)]
    id: MessageId | None = None


WsMessage = Annotated[WsAction | WsJoin | WsHello | WsHint | WsPing | WsHistory, Field(discriminator="type")]
ws_adapter: TypeAdapter[Any] = TypeAdapter(cast(Any, WsMessage))  # a discriminated union: no single type[T]


def validation_message(exc: ValidationError) -> str:
    """Return a short, readable summary of a pydantic validation error."""
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body",)) or "message"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)
