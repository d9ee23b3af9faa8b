"""Your games on this machine: each game's id and its player token, the only key to its actions (the server
keeps only the token's hash), so that `osmosis play --resume` can take a game up again; and, for each server
you play the daily deal on, your name there and its API token. One JSON file, readable by you alone, written
whole (temporary file, fsync, rename) so that a crash never leaves half."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

KEPT = 200
"""Games remembered per file: the newest; a token older than that is dropped."""
MAX_BYTES = 1024 * 1024
"""The largest file read: KEPT games and a player per server take well under it."""


@dataclass(frozen=True)
class SavedGame:
    server: str
    """Which server: its base URL, or "embedded:<data dir>" for the one `osmosis play` starts itself."""
    id: str
    token: str
    variant: str | None
    created_at: str


@dataclass(frozen=True)
class SavedPlayer:
    name: str
    token: str
    """The API token `osmosis play --daily --name` got when it signed you up on the server."""


def default_path() -> Path:
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "osmosis" / "games.json"


class SavedGames:
    def __init__(self, path: Path) -> None:
        self.path = path

    def check(self) -> None:
        """Raises SavedGamesError unless the file and its lock can be read and written as ours."""
        with self._locked():
            self._read_all()

    def on(self, server: str) -> list[SavedGame]:
        """This server's games, newest first."""
        return [game for game in self._read() if game.server == server]

    def token_of(self, server: str, game_id: str) -> str | None:
        return next((game.token for game in self.on(server) if game.id == game_id), None)

    def add(self, game: SavedGame) -> None:
        # Two tables open at once each add their game: one at a time, so that neither loses the other's.
        with self._locked():
            games, players = self._read_all()
            games = [game, *(other for other in games if (other.server, other.id) != (game.server, game.id))]
            self._write(games[:KEPT], players)

    def player_on(self, server: str) -> SavedPlayer | None:
        """Who you play as on this server (for the daily deal), if you signed up there from here."""
        return self._read_all()[1].get(server)

    def keep_player(self, server: str, player: SavedPlayer) -> None:
        with self._locked():
            games, players = self._read_all()
            self._write(games, {**players, server: player})

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The file to itself until the block ends: a read, a change and a write that no other table interleaves.
        The lock file is opened as itself only: a symbolic link planted in its place is refused, not followed (it
        would make or truncate whatever it points at)."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = self.path.with_suffix(".lock")
        try:
            descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
        except OSError as error:
            raise SavedGamesError(
                f"{lock} cannot be opened as a lock file ({error.strerror}): "
                "if it is a link or not a file, move it away"
            ) from None
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise SavedGamesError(f"{lock} is not a file: move it away")
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)

    def _read(self) -> list[SavedGame]:
        return self._read_all()[0]

    def _read_all(self) -> tuple[list[SavedGame], dict[str, SavedPlayer]]:
        text = self._text()
        if text is None:
            return [], {}
        try:
            entries = json.loads(text)
            return (
                [SavedGame(**entry) for entry in entries["games"]],
                {server: SavedPlayer(**player) for server, player in entries.get("players", {}).items()},
            )
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
            reason = "nested too deep" if isinstance(error, RecursionError) else error
            raise SavedGamesError(f"{self.path} is not a list of saved games ({reason}); move it away") from None

    def _text(self) -> str | None:
        """The file's text, None when there is none; SavedGamesError for what is not a file of ours to read (a
        directory, a FIFO that would never end, a device, more than MAX_BYTES)."""
        try:
            descriptor = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise SavedGamesError(f"{self.path} cannot be read ({error.strerror}); move it away") from None
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            os.close(descriptor)
            raise SavedGamesError(f"{self.path} is not a file: move it away")
        with os.fdopen(descriptor, "rb") as file:
            data = file.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise SavedGamesError(
                f"{self.path} is larger than {MAX_BYTES} bytes, more than {KEPT} games take: move it away"
            )
        try:
            return data.decode()
        except UnicodeDecodeError:
            raise SavedGamesError(f"{self.path} is not text: move it away") from None

    def _write(self, games: list[SavedGame], players: dict[str, SavedPlayer]) -> None:
        descriptor, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".games-")
        try:
            with os.fdopen(descriptor, "w") as file:  # mkstemp made it 0600: the tokens are yours alone
                json.dump(
                    {
                        "games": [asdict(game) for game in games],
                        "players": {server: asdict(player) for server, player in players.items()},
                    },
                    file,
                    indent=1,
                )
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class SavedGamesError(RuntimeError):
    """The file of saved games cannot be read as one."""
