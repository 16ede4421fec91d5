"""The app's routers: HTML pages, the JSON API and the live websocket, sharing state through ``app.state``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from fastapi.templating import Jinja2Templates
from starlette.requests import HTTPConnection

from pigdice.web.config import Settings
from pigdice.web.explorer import Explorer
from pigdice.web.manager import RoomManager


def get_manager(conn: HTTPConnection) -> RoomManager:
    """Return the app's room manager (set by ``create_app``)."""
    manager: RoomManager = conn.app.state.manager
    return manager


def get_settings(conn: HTTPConnection) -> Settings:
    """Return the app's settings."""
    settings: Settings = conn.app.state.settings
    return settings


def get_explorer(conn: HTTPConnection) -> Explorer:
    """Return the app's strategy-explorer data cache."""
    explorer: Explorer = conn.app.state.explorer
    return explorer


def client_address(conn: HTTPConnection) -> str:
    """Return the address a request comes from (the key of per-client limits)."""
    return conn.client.host if conn.client is not None else "unknown"


def get_templates(conn: HTTPConnection) -> Jinja2Templates:
    """Return the app's page templates."""
    templates: Jinja2Templates = conn.app.state.templates
    return templates


Manager = Annotated[RoomManager, Depends(get_manager)]
AppSettings = Annotated[Settings, Depends(get_settings)]
ExplorerData = Annotated[Explorer, Depends(get_explorer)]
Client = Annotated[str, Depends(client_address)]
Templates = Annotated[Jinja2Templates, Depends(get_templates)]
