"""The FastAPI app: assembly, start-up and shut-down, error handlers, the routers and static files."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pigdice import __version__
from pigdice.errors import PigdiceError, UnknownVariantError
from pigdice.players.specs import known_specs
from pigdice.web.config import Settings
from pigdice.web.errors import WebError
from pigdice.web.explorer import Explorer
from pigdice.web.limits import BodyLimit, json_error
from pigdice.web.manager import RoomManager, SeedSource, secret_seed
from pigdice.web.routes import api, pages, ws
from pigdice.web.socketlimits import SocketLimits
from pigdice.web.solving import load_hint_kernels
from pigdice.web.store import Store, StoreError, faults

log = logging.getLogger("pigdice.web")

HERE = Path(__file__).parent


def error_response(exc: WebError) -> JSONResponse:
    """Return the JSON error response for a refused request."""
    return JSONResponse({"error": exc.to_json()}, status_code=exc.status)


async def web_error(request: Request, exc: WebError) -> JSONResponse:
    """Answer a refused request with its code, message and status."""
    return error_response(exc)


async def pigdice_error(request: Request, exc: PigdiceError) -> JSONResponse:
    """Answer a bad variant or parameter as a refused request."""
    code = "unknown_variant" if isinstance(exc, UnknownVariantError) else "bad_parameter"
    return error_response(WebError(code, str(exc)))


async def store_error(request: Request, exc: StoreError) -> JSONResponse:
    """Answer a database that refused a read or write with 503: nothing was changed, the client may retry."""
    faults("request", "storage failed on %s %s: %s", request.method, request.url.path, exc)  # once per interval
    return error_response(WebError("storage_failed", "the game server could not reach its storage; try again", 503))


async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
    """Answer HTTP errors: JSON under /api/ (and for anything but 404), the 404 page elsewhere."""
    if request.url.path.startswith("/api/") or exc.status_code != 404:
        code = "not_found" if exc.status_code == 404 else "http_error"
        return error_response(WebError(code, str(exc.detail), exc.status_code))
    return pages.not_found(request, "There is no page at this address.")


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    """Answer a request body that does not parse or validate, naming the first few problems."""
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return error_response(WebError("malformed_json", "the request body is not valid JSON", 422))
    parts = []
    for error in errors[:3]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return error_response(WebError("bad_request", "; ".join(parts), 422))


HANDLERS: tuple[tuple[type[Exception], Callable[..., Awaitable[Response]]], ...] = (
    (WebError, web_error),
    (StoreError, store_error),
    (PigdiceError, pigdice_error),
    (StarletteHTTPException, http_error),
    (RequestValidationError, validation_error),
)


class QuietBadFrames(logging.Filter):
    """Log a websocket frame of invalid UTF-8 as one warning line, not a traceback.

    The server already answers such a frame by closing the connection (code 1007); a stranger
    sending them should not fill the log with tracebacks.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Strip the traceback from the server's invalid-UTF-8 record; pass every record on."""
        if record.exc_info and record.exc_info[0] is UnicodeDecodeError:
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg = "closed a websocket that sent text that is not valid UTF-8"
            record.args = ()
        return True


def quiet_bad_frames() -> None:
    """Install ``QuietBadFrames`` on the server's error log (once)."""
    server_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, QuietBadFrames) for f in server_log.filters):
        server_log.addFilter(QuietBadFrames())


class CatchAll:
    """Answer any unexpected error with a JSON 500 (and log it), keeping the connection usable.

    Without it the error reaches the server, which logs it and closes the connection after its
    500, so the client's next request on that connection is reset.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the request; turn an escaped exception into a 500 if nothing was sent yet."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked_send)
        except Exception:
            log.exception("unexpected error on %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            body = json_error("internal_error", "something went wrong on the server; it has been logged")
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 500, "headers": headers})
            await send({"type": "http.response.body", "body": body})


def create_app(settings: Settings | None = None, seeds: SeedSource = secret_seed) -> FastAPI:
    """Build the app for ``settings`` (database, robot delay, limits); ``seeds`` gives every new game's dice seed
    (secret random seeds unless a test wants reproducible games)."""
    settings = settings or Settings.from_env()
    quiet_bad_frames()
    store = Store(settings.database_url)
    manager = RoomManager(store, settings, seeds)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals["version"] = __version__

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(store.migrate)
        await asyncio.to_thread(known_specs)  # the robot registry, before the first game
        await asyncio.to_thread(load_hint_kernels)  # before the first hint, not during it
        manager.start()
        if settings.resume_on_start:
            manager.resume_in_background()  # rooms whose robots are to move; the others load when opened
        gc.freeze()  # start-up objects (numba, numpy, templates) need no more garbage-collector passes
        yield
        await manager.close()
        store.close()

    # the API's docs page with Swagger UI's files served from the fastapi-offline package: no CDN
    app = FastAPIOffline(
        title="pigdice",
        version=__version__,
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        favicon_url="/static/favicon.svg",
        static_url="/api/docs-assets",
    )
    app.state.manager = manager
    app.state.settings = settings
    app.state.templates = templates
    app.state.explorer = Explorer(manager.pool, settings.explorer_cache_bytes)
    app.state.sockets = SocketLimits(settings.ws_opening_per_client, settings.ws_per_client, settings.ws_in_all)
    for exc_type, handler in HANDLERS:
        app.exception_handler(exc_type)(handler)
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(ws.router)
    # mounted last, so /static/vendor/plotly.min.js (pages) wins over the folder
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.add_middleware(CatchAll)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)  # added last: runs first
    return app
