"""The JSON API: variants, robot specs, games (create, read, join, act, resign, abort, claim, hint, rematch,
record, verify, review), your history and practice, and explorer data."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import StreamingResponse

from pigdice.rules.registry import all_variants, find_variant
from pigdice.web import leaving
from pigdice.web.errors import WebError
from pigdice.web.history import OwnGames, history_answer, practice_answer
from pigdice.web.protocol import (
    AbortRequest,
    ActionRequest,
    ClaimRequest,
    CreateGame,
    HintRequest,
    JoinSeat,
    RematchRequest,
    ResignRequest,
)
from pigdice.web.rooms import GameRequest
from pigdice.web.routes import AppSettings, Client, ExplorerData, Manager
from pigdice.web.variants import variant_info, web_specs

router = APIRouter(prefix="/api")

API_PAGE = 1000  # events in one answer of GET /api/games/{code} (a long game's older ones: ?before=N)


def room_link(code: str, tokens: dict[int, str]) -> dict[str, Any]:
    """Return a new room's code, its page and the creator's seat tokens (keyed by seat number as text)."""
    return {"code": code, "url": f"/play/{code}", "tokens": {str(seat): token for seat, token in tokens.items()}}


@router.get("/variants")
async def api_variants() -> list[dict[str, Any]]:
    """Every registered variant with its parameters and rules."""
    return [variant_info(v) for v in all_variants()]


@router.get("/strategies")
async def api_strategies() -> dict[str, str]:
    """Every robot spec form with a line of help."""
    return {"you": "you take this seat", "friend": "an open seat for a person who joins by link", **web_specs()}


@router.post("/games", status_code=201)
async def api_create(body: CreateGame, manager: Manager, client: Client) -> dict[str, Any]:
    """Create a room; the seats you take ('you') come back with their secret tokens."""
    game = GameRequest(body.variant, body.goal, body.endgame, body.ties, body.final_turn, dict(body.params))
    room, tokens = await manager.create(game, body.players, body.name, client)
    return {**room_link(room.code, tokens), "state": room.snapshot()}


@router.get("/games/{code}")
async def api_game(code: str, manager: Manager, before: int | None = None) -> dict[str, Any]:
    """The full state of a room and its latest events (``earlier`` counts those before them); ``before=N``
    asks for the page of events before event number N instead."""
    room = await manager.get(code)
    if before is not None and not 0 <= before <= 10_000_000:
        raise WebError("bad_parameter", "before must be an event number from 0")
    page = room.history_page(len(room.history) if before is None else before, API_PAGE)
    return {"state": room.snapshot(), **page}


@router.post("/games/{code}/join")
async def api_join(code: str, body: JoinSeat, manager: Manager) -> dict[str, Any]:
    """Take a seat; returns its secret token (keep it: only it can act for the seat)."""
    room = await manager.get(code)
    seat, token = await room.join(body.seat, body.name)
    return {"seat": seat.index, "token": token, "state": room.snapshot()}


@router.post("/games/{code}/actions")
async def api_action(code: str, body: ActionRequest, manager: Manager) -> dict[str, Any]:
    """Play roll / hold / roll:N for a seat you hold, at the step you last saw. In Swine Herd every standing seat
    chooses at once: the choice is final and stays hidden until all have chosen (the reply then is the reveal)."""
    room = await manager.get(code)
    return await room.act(body.seat, body.token, body.action, body.expected_step)


@router.post("/games/{code}/resign")
async def api_resign(code: str, body: ResignRequest, manager: Manager) -> dict[str, Any]:
    """Resign a seat you hold: you can no longer win; with one player left, that player wins."""
    room = await manager.get(code)
    return await room.resign(body.seat, body.token)


@router.post("/games/{code}/hint")
async def api_hint(code: str, body: HintRequest, manager: Manager) -> dict[str, Any]:
    """The perfect player's advice and your win chance."""
    room = await manager.get(code)
    room.authorize(body.seat, body.token)
    return await manager.perfect.hint(room, body.seat)


@router.post("/games/{code}/abort")
async def api_abort(code: str, body: AbortRequest, manager: Manager) -> dict[str, Any]:
    """Call the game off for a seat you hold, before anyone has played: it ends with no result."""
    room = await manager.get(code)
    return await leaving.abort(room, body.seat, body.token)


@router.post("/games/{code}/claim")
async def api_claim(code: str, body: ClaimRequest, manager: Manager) -> dict[str, Any]:
    """Claim the seat of a player who left (away past the grace period, or opened after timeouts): with two
    players left you win, with more the others play on."""
    room = await manager.get(code)
    return await leaving.claim(room, body.seat, body.token, body.absent)


@router.post("/games/{code}/rematch")
async def api_rematch(code: str, body: RematchRequest, manager: Manager, client: Client) -> dict[str, Any]:
    """Answer the rematch of a finished game for the seats you hold: yes offers it (or accepts the open offer),
    no withdraws or declines it. Once everyone holding a seat said yes the next game starts (once); the reply
    then carries your tokens in it."""
    room = await manager.get(code)
    return await manager.rematch(room, body.tokens, body.answer, client)


@router.get("/games/{code}/record")
async def api_record(code: str, manager: Manager, download: bool = False) -> Response:
    """The room's game as a record (format pigdice-game 1): the seed and salt only once the game is over."""
    room = await manager.get(code)
    # a long game's record (100,000 moves: 19 MB) is written by a worker process and sent from its file in pieces
    body, size = await manager.long_jobs.record(room.record_order())
    headers = {"Content-Length": str(size)}
    if download:
        headers["Content-Disposition"] = f'attachment; filename="pigdice-{room.code}.json"'
    return StreamingResponse(body, media_type="application/json", headers=headers)


@router.get("/games/{code}/verify")
async def api_verify(code: str, manager: Manager) -> dict[str, Any]:
    """Check the room's dice: the commitment against the revealed seed, every throw, and the faces seen."""
    room = await manager.get(code)
    return await manager.long_jobs.verify(room.record_order())  # a long game's replay in a worker process


@router.get("/games/{code}/review")
async def api_review(code: str, manager: Manager) -> dict[str, Any]:
    """Every decision of the room's game so far against the perfect player: the chance each one gave away."""
    room = await manager.get(code)
    return await manager.perfect.review(room)


@router.post("/history")
async def api_history(body: OwnGames, manager: Manager) -> dict[str, Any]:
    """Your history: every finished game of the seats your browser holds, reviewed exactly (no account)."""
    return await history_answer(manager, body)


@router.post("/practice")
async def api_practice(body: OwnGames, manager: Manager) -> dict[str, Any]:
    """Positions to practise: your decisions that gave away the most in the finished games your browser holds."""
    return await practice_answer(manager, body)


@router.get("/explore/{name}")
async def api_explore(name: str, settings: AppSettings, explorer: ExplorerData, goal: int | None = None) -> Response:
    """The solved strategy of a variant: hold thresholds (or Hog's dice counts) and win probabilities."""
    limit = settings.max_explore_goal
    if goal is not None and not 2 <= goal <= limit:
        raise WebError("bad_parameter", f"explorer goal must be between 2 and {limit}")
    variant = find_variant(name, goal=goal)
    if goal is None and variant.goal > limit:
        raise WebError("bad_parameter", f"explorer goal must be at most {limit}")
    return Response(await explorer.data(variant), media_type="application/json")
