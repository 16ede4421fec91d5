"""The FastAPI app: pages, the JSON API, the websocket, static files and plotly.js."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from pigdice import __version__
from pigdice.errors import PigdiceError, UnknownVariantError
from pigdice.players.base import known_specs
from pigdice.players.defaults import default_robot
from pigdice.rules.registry import all_variants, find_variant
from pigdice.rules.variant import Decision, Endgame, FinalTurn, TieRule, Variant
from pigdice.web import content
from pigdice.web.config import Settings
from pigdice.web.errors import WebError
from pigdice.web.live import Connection, TokenBucket, dumps
from pigdice.web.manager import RoomManager
from pigdice.web.protocol import (
    ActionRequest,
    AgainRequest,
    CreateGame,
    HintRequest,
    JoinSeat,
    WsAction,
    WsHello,
    WsHint,
    WsJoin,
    WsPing,
    validation_message,
    ws_adapter,
)
from pigdice.web.rooms import Room
from pigdice.web.seats import CODE_RE, WEB_ROBOT_WORDS
from pigdice.web.store import Store

log = logging.getLogger("pigdice.web")

HERE = Path(__file__).parent
MAX_STRIKES = 100  # rate-limited messages before a connection is closed


def plotly_js_path() -> Path:
    """Return the path of plotly.min.js inside the installed plotly package."""
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def variant_info(variant: Variant) -> dict[str, Any]:
    """Return what the pages need to know about a variant."""
    data = variant.describe()
    data.update(
        {
            "rules": list(variant.rules),
            "chooses_dice": variant.chooses_dice,
            "can_hold": variant.can_hold,
            "default_robot": default_robot(variant),
            "endgame_note": variant.endgame_note(),
            "group": variant.decision is Decision.SIMULTANEOUS,
        }
    )
    return data


def web_specs() -> dict[str, str]:
    """Return the robot specs the web server offers (no plug-in code), with a line of help each."""
    return {
        form: text for form, text in known_specs().items()
        if form.split(":", 1)[0].split(" ", 1)[0] in WEB_ROBOT_WORDS
    }


def error_response(exc: WebError) -> JSONResponse:
    """Return the JSON error response for a refused request."""
    return JSONResponse({"error": exc.to_json()}, status_code=exc.status)


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app for ``settings`` (database, robot delay, limits)."""
    settings = settings or Settings.from_env()
    store = Store(settings.database_url)
    manager = RoomManager(store, settings)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals["version"] = __version__

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(store.migrate)
        await asyncio.to_thread(known_specs)  # imports the solver (numba) now, not during the first game
        manager.start()
        if settings.resume_on_start:
            loaded = await manager.resume_all()
            if loaded:
                log.info("resumed %d unfinished games", loaded)
        gc.freeze()  # start-up objects (numba, numpy, templates) need no more garbage-collector passes
        yield
        await manager.close()
        store.close()

    app = FastAPI(title="pigdice", version=__version__, lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.manager = manager
    app.state.settings = settings

    # -- pages -------------------------------------------------------------------------------
    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, context, status_code=status)

    def not_found(request: Request, message: str) -> HTMLResponse:
        return page(request, "error.html", 404, title="Not found", message=message)

    # -- errors ------------------------------------------------------------------------------
    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(PigdiceError)
    async def _pigdice_error(request: Request, exc: PigdiceError) -> JSONResponse:
        code = "unknown_variant" if isinstance(exc, UnknownVariantError) else "bad_parameter"
        return error_response(WebError(code, str(exc)))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/") or exc.status_code != 404:
            code = "not_found" if exc.status_code == 404 else "http_error"
            return error_response(WebError(code, str(exc.detail), exc.status_code))
        return not_found(request, "There is no page at this address.")

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(WebError("malformed_json", "the request body is not valid JSON", 422))
        parts = []
        for error in errors[:3]:
            where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
            parts.append(f"{where}: {error.get('msg', 'invalid')}")
        return error_response(WebError("bad_request", "; ".join(parts), 422))

    @app.get("/", response_class=HTMLResponse)
    async def home(request: Request) -> HTMLResponse:
        """Home: start a game or join a room by code."""
        variants = [variant_info(v) for v in all_variants()]
        return page(
            request, "home.html", title="Play Pig", variants=variants, specs=web_specs(),
            endgames=[e.value for e in Endgame], ties=[t.value for t in TieRule],
            final_turns=[f.value for f in FinalTurn],
        )

    @app.get("/join")
    async def join_by_code(request: Request, code: str = "") -> Response:
        """Go to the room a code (or a pasted room link) names."""
        text = code.strip().rstrip("/").rsplit("/", 1)[-1]
        if not CODE_RE.match(text):
            return page(request, "error.html", 404, title="No such room",
                        message="That is not a room code. Codes look like Xq3v_9aLk2Bz.")
        return RedirectResponse(f"/play/{text}", status_code=303)

    @app.get("/play/{code}", response_class=HTMLResponse)
    async def play_page(request: Request, code: str) -> HTMLResponse:
        """The game page of a room."""
        try:
            room = await manager.get(code)
        except WebError:
            return not_found(request, "No room has that code. Check the link, or start a new game.")
        return page(request, "game.html", title=f"{room.variant.title} · room {room.code}", room=room,
                    variant=variant_info(room.variant))

    @app.get("/rules", response_class=HTMLResponse)
    async def rules_index(request: Request) -> HTMLResponse:
        """Every variant with its one-line summary."""
        return page(request, "rules_index.html", title="Rules", variants=[variant_info(v) for v in all_variants()])

    @app.get("/rules/{name}", response_class=HTMLResponse)
    async def rules_page(request: Request, name: str) -> HTMLResponse:
        """The rules of one variant, in our own words, with sources and history."""
        try:
            variant = find_variant(name)
        except PigdiceError:
            return not_found(request, f"There is no variant called {name!r}.")
        sources = [(seed, seed.split("_", 1)[0], content.source_text(seed)) for seed in variant.sources]
        return page(request, "rules.html", title=f"Rules of {variant.title}", variant=variant_info(variant),
                    sources=sources, history=content.history_text(variant))

    @app.get("/explore", response_class=HTMLResponse)
    async def explore_page(request: Request, variant: str = "pig", goal: int | None = None) -> HTMLResponse:
        """The 3D strategy explorer."""
        choices = [variant_info(v) for v in all_variants()]
        return page(request, "explore.html", title="Strategy explorer", variants=choices, selected=variant,
                    goal=goal, max_goal=settings.max_explore_goal)

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Liveness check."""
        return {"ok": True, "version": __version__, "rooms": len(manager.rooms)}

    @app.get("/static/vendor/plotly.min.js")
    async def plotly_js() -> FileResponse:
        """Serve plotly.js from the installed plotly package (cached by browsers for a day)."""
        return FileResponse(
            plotly_js_path(), media_type="application/javascript",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    # -- JSON API ----------------------------------------------------------------------------
    @app.get("/api/variants")
    async def api_variants() -> list[dict[str, Any]]:
        """Every registered variant with its parameters and rules."""
        return [variant_info(v) for v in all_variants()]

    @app.get("/api/strategies")
    async def api_strategies() -> dict[str, str]:
        """Every robot spec form with a line of help."""
        return {"you": "you take this seat", "friend": "an open seat for a person who joins by link", **web_specs()}

    @app.post("/api/games", status_code=201)
    async def api_create(body: CreateGame) -> dict[str, Any]:
        """Create a room; the seats you take ('you') come back with their secret tokens."""
        room, tokens = await manager.create(
            body.variant, body.goal, body.endgame, body.ties, body.final_turn, dict(body.params), body.players,
            body.name,
        )
        return {
            "code": room.code,
            "url": f"/play/{room.code}",
            "tokens": {str(seat): token for seat, token in tokens.items()},
            "state": room.snapshot(),
        }

    @app.get("/api/games/{code}")
    async def api_game(code: str) -> dict[str, Any]:
        """The full state and event history of a room."""
        room = await manager.get(code)
        welcome = room.welcome()
        return {"state": welcome["state"], "events": welcome["events"]}

    @app.post("/api/games/{code}/join")
    async def api_join(code: str, body: JoinSeat) -> dict[str, Any]:
        """Take a seat; returns its secret token (keep it: only it can act for the seat)."""
        room = await manager.get(code)
        seat, token = await room.join(body.seat, body.name)
        return {"seat": seat.index, "token": token, "state": room.snapshot()}

    @app.post("/api/games/{code}/actions")
    async def api_action(code: str, body: ActionRequest) -> dict[str, Any]:
        """Play roll / hold / roll:N for a seat you hold, at the step you last saw."""
        room = await manager.get(code)
        return await room.act(body.seat, body.token, body.action, body.expected_step)

    @app.post("/api/games/{code}/hint")
    async def api_hint(code: str, body: HintRequest) -> dict[str, Any]:
        """The perfect player's advice and your win chance."""
        room = await manager.get(code)
        room.authorize(body.seat, body.token)
        return await manager.hint(room, body.seat)

    @app.post("/api/games/{code}/again", status_code=201)
    async def api_again(code: str, body: AgainRequest) -> dict[str, Any]:
        """Start a new room with the same variant and seats; tell everyone in the old room."""
        room = await manager.get(code)
        mine: set[int] = set()
        for key, token in body.tokens.items():
            if not key.isdecimal():
                raise WebError("bad_seat", f"seat {key!r} is not a number")
            room.authorize(int(key), token)
            mine.add(int(key))
        players = []
        for seat in room.seats:
            if seat.index in mine:
                players.append("you")
            elif seat.is_robot:
                players.append(seat.spec)
            else:
                players.append("friend")
        request = room.request
        new_room, new_tokens = await manager.create(
            request["variant"], request["goal"], request["endgame"], request["ties"], request["final_turn"],
            request["params"], players, None,
        )
        # "you" seats are renumbered in order: keep each person's old name
        for seat in new_room.seats:
            old = room.seats[seat.index]
            if not old.is_robot:
                seat.name = old.name
        await manager.db(store.rename_seats, new_room.game_id, new_room.names)
        room.broadcast({"type": "again", "code": new_room.code, "url": f"/play/{new_room.code}"})
        return {"code": new_room.code, "url": f"/play/{new_room.code}",
                "tokens": {str(k): v for k, v in new_tokens.items()}}

    @app.get("/api/explore/{name}")
    async def api_explore(name: str, goal: int | None = None) -> dict[str, Any]:
        """The solved strategy of a variant: hold thresholds (or Hog's dice counts) and win probabilities."""
        from pigdice.web.explorer import explorer_data

        if goal is not None and not 2 <= goal <= settings.max_explore_goal:
            raise WebError("bad_parameter", f"explorer goal must be between 2 and {settings.max_explore_goal}")
        variant = find_variant(name, goal=goal)
        if goal is None and variant.goal > settings.max_explore_goal:
            raise WebError("bad_parameter", f"explorer goal must be at most {settings.max_explore_goal}")
        return await asyncio.to_thread(explorer_data, variant)

    # -- websocket ---------------------------------------------------------------------------
    @app.websocket("/ws/{code}")
    async def ws_room(ws: WebSocket, code: str) -> None:
        """Live room: the full state on connect, every move pushed; actions, joins and hints in."""
        await ws.accept()
        try:
            room = await manager.get(code)
        except WebError as exc:
            await ws.send_text(dumps({"type": "error", **exc.to_json()}))
            await ws.close(code=4404)
            return
        conn = Connection(ws.send_text)
        conn.start()
        async with room.lock:
            room.connections.add(conn)
            conn.send(dumps(room.welcome()))
        bucket = TokenBucket(settings.rate_per_second, settings.rate_burst)
        strikes = 0
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    conn.send(_error("bad_message", "send JSON text messages, not binary"))
                    continue
                if len(text) > settings.max_message_bytes:
                    limit = settings.max_message_bytes
                    conn.send(_error("message_too_large", f"messages are limited to {limit} bytes"))
                    continue
                if not bucket.allow():
                    strikes += 1
                    rate = settings.rate_per_second
                    conn.send(_error("rate_limited", f"too many messages; at most {rate:g} per second"))
                    if strikes >= MAX_STRIKES:
                        break
                    continue
                try:
                    parsed = ws_adapter.validate_json(text)
                except ValidationError as exc:
                    if any(e.get("type") == "json_invalid" for e in exc.errors()):
                        conn.send(_error("malformed_json", "that message is not valid JSON"))
                    else:
                        conn.send(_error("bad_message", validation_message(exc)))
                    continue
                await _handle(room, conn, parsed)
                if conn.closed:
                    break
        except WebSocketDisconnect:
            pass
        finally:
            room.connections.discard(conn)
            await conn.stop()
            if conn.seats:
                room.broadcast({"type": "seats", "state": room.snapshot()})
            with contextlib.suppress(Exception):
                await ws.close()

    async def _handle(room: Room, conn: Connection, message: Any) -> None:
        msg_id = getattr(message, "id", None)
        try:
            if isinstance(message, WsAction):
                await room.act(message.seat, message.token, message.action, message.expected_step)
                conn.seats.add(message.seat)
            elif isinstance(message, WsHint):
                room.authorize(message.seat, message.token)
                reply = await manager.hint(room, message.seat)
                conn.send(dumps({**reply, "id": msg_id}))
            elif isinstance(message, WsJoin):
                seat, token = await room.join(message.seat, message.name)
                conn.seats.add(seat.index)
                conn.send(dumps({"type": "joined", "seat": seat.index, "token": token, "id": msg_id}))
                room.broadcast({"type": "seats", "state": room.snapshot()})
            elif isinstance(message, WsHello):
                held: list[int] = []
                refused: list[str] = []
                for key, token in message.tokens.items():
                    try:
                        room.authorize(int(key) if key.isdecimal() else -1, token)
                        held.append(int(key))
                    except WebError:
                        refused.append(key)
                new = set(held) - conn.seats
                conn.seats |= set(held)
                conn.send(dumps({"type": "hello", "seats": sorted(held), "refused": refused, "id": msg_id}))
                if new:
                    room.broadcast({"type": "seats", "state": room.snapshot()})
            elif isinstance(message, WsPing):
                conn.send(dumps({"type": "pong", "id": msg_id}))
        except WebError as exc:
            conn.send(dumps({"type": "error", **exc.to_json(), "id": msg_id}))
        except PigdiceError as exc:
            conn.send(dumps({"type": "error", "code": "bad_request", "message": str(exc), "id": msg_id}))

    # mounted last, so /static/vendor/plotly.min.js above wins over the folder
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    return app


def _error(code: str, message: str) -> str:
    return dumps({"type": "error", "code": code, "message": message})
