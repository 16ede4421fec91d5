"""The app's routers: HTML pages, the JSON API and the live websocket, sharing state through ``app.state``.

The dependencies are coroutines: FastAPI runs a plain function dependency in its thread pool, two thread hops
per request for a getter of a few attributes (50 websockets opened at once: a quarter of the event loop's work).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from fastapi.templating import Jinja2Templates
from starlette.requests import HTTPConnection

from pigdice.web.config import Settings
from pigdice.web.explorer import Explorer
from pigdice.web.manager import RoomManager


async def get_manager(conn: HTTPConnection) -> RoomManager:
    """Return the app's room manager (set by ``create_app``)."""
    manager: RoomManager = conn.app.state.manager
    return manager


async def get_settings(conn: HTTPConnection) -> Settings:
    """Return the app's settings."""
    settings: Settings = conn.app.state.settings
    return settings


async def get_explorer(conn: HTTPConnection) -> Explorer:
    """Return the app's strategy-explorer data cache."""
    explorer: Explorer = conn.app.state.explorer
    return explorer


async def client_address(conn: HTTPConnection) -> str:
    """Return the address a request comes from (the key of per-client limits)."""
    return conn.client.host if conn.client is not None else "unknown"


async def get_templates(conn: HTTPConnection) -> Jinja2Templates:
    """Return the app's page templates."""
    templates: Jinja2Templates = conn.app.state.templates
    return templates


Manager = Annotated[RoomManager, Depends(get_manager)]
AppSettings = Annotated[Settings, Depends(get_settings)]
ExplorerData = Annotated[Explorer, Depends(get_explorer)]
Client = Annotated[str, Depends(client_address)]
Templates = Annotated[Jinja2Templates, Depends(get_templates)]
