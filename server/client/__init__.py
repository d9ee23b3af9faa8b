"""A client of the server's public HTTP API, on the standard library alone: what the terminal table and the
Gymnasium environment's remote backend speak, and what any Python program may use to play, watch or read."""

from .api import Api, ApiError, Reply, Stream, Unreachable
from .sse import Message, messages

__all__ = ["Api", "ApiError", "Message", "Reply", "Stream", "Unreachable", "messages"]
