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
from starlette.exceptions import HTTPException as StarletteHTTPException

from pigdice import __version__
from pigdice.errors import PigdiceError, UnknownVariantError
from pigdice.players.specs import known_specs
from pigdice.web.config import Settings
from pigdice.web.errors import WebError
from pigdice.web.manager import RoomManager
from pigdice.web.routes import api, pages, ws
from pigdice.web.store import Store

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
    (PigdiceError, pigdice_error),
    (StarletteHTTPException, http_error),
    (RequestValidationError, validation_error),
)


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
    app.state.templates = templates
    for exc_type, handler in HANDLERS:
        app.exception_handler(exc_type)(handler)
    app.include_router(pages.router)
    app.include_router(api.router)
    app.include_router(ws.router)
    # mounted last, so /static/vendor/plotly.min.js (pages) wins over the folder
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    return app
