"""Server-sent events as the HTML standard's parser reads them: fields up to a blank line make a message;
`data` lines join with newlines; a line starting with a colon is a comment (the server's keep-alive)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Message:
    event: str
    data: str
    id: str | None


def messages(lines: Iterable[bytes]) -> Iterator[Message]:
    event, data, last_id = "message", list[str](), None
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                yield Message(event, "\n".join(data), last_id)
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id" and "\0" not in value:
            last_id = value
