"""The web front end: FastAPI app, rooms and seats, robots, persistence, pages and static files.

The web dependencies are optional (``pip install pigdice[web]``); ``require_web`` turns a
missing one into a clear error, and ``create_app`` imports them only when called.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

from pigdice.errors import MissingExtraError, require_modules

if TYPE_CHECKING:
    from pigdice.web.config import Settings

WEB_MODULES = ("fastapi", "uvicorn", "sqlalchemy", "jinja2", "pydantic", "plotly")


def missing_web_modules() -> list[str]:
    """Return the web dependencies that cannot be imported."""
    return [name for name in WEB_MODULES if importlib.util.find_spec(name) is None]


def require_web() -> None:
    """Raise MissingExtraError naming the extra to install if a web dependency is missing."""
    require_modules(WEB_MODULES, "web", "the web server needs")


def create_app(settings: Settings | None = None) -> Any:
    """Return the FastAPI app (importing the web dependencies only now)."""
    require_web()
    from pigdice.web.app import create_app as _create_app

    return _create_app(settings)


__all__ = ["MissingExtraError", "create_app", "missing_web_modules", "require_web"]
