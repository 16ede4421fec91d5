"""The web's refusals: a machine-readable code, a message and an HTTP status."""

from __future__ import annotations

from typing import Any

from pigdice.errors import PigdiceError


class WebError(PigdiceError):
    """A request the server refuses, with a machine-readable code and an HTTP status."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status

    def to_json(self) -> dict[str, Any]:
        """Return the error as the JSON body clients receive."""
        return {"code": self.code, "message": str(self)}
