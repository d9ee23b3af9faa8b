"""Your games on this machine: each game's id and its player token, the only key to its actions (the server
keeps only the token's hash), so that `osmosis play --resume` can take a game up again. One JSON file,
readable by you alone, written whole (temporary file, fsync, rename) so that a crash never leaves half."""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

KEPT = 200
"""Games remembered per file: the newest; a token older than that is dropped."""


@dataclass(frozen=True)
class SavedGame:
    server: str
    """Which server: its base URL, or "embedded:<data dir>" for the one `osmosis play` starts itself."""
    id: str
    token: str
    variant: str | None
    created_at: str


def default_path() -> Path:
    state_home = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state_home) / "osmosis" / "games.json"


class SavedGames:
    def __init__(self, path: Path) -> None:
        self.path = path

    def on(self, server: str) -> list[SavedGame]:
        """This server's games, newest first."""
        return [game for game in self._read() if game.server == server]

    def token_of(self, server: str, game_id: str) -> str | None:
        return next((game.token for game in self.on(server) if game.id == game_id), None)

    def add(self, game: SavedGame) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # Two tables open at once each add their game: one at a time, so that neither loses the other's.
        with open(self.path.with_suffix(".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            games = [game, *(other for other in self._read() if (other.server, other.id) != (game.server, game.id))]
            self._write(games[:KEPT])

    def _read(self) -> list[SavedGame]:
        try:
            entries = json.loads(self.path.read_text())
            return [SavedGame(**entry) for entry in entries["games"]]
        except FileNotFoundError:
            return []
        except (ValueError, TypeError, KeyError) as error:
            raise SavedGamesError(f"{self.path} is not a list of saved games ({error}); move it away") from None

    def _write(self, games: list[SavedGame]) -> None:
        descriptor, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".games-")
        try:
            with os.fdopen(descriptor, "w") as file:  # mkstemp made it 0600: the tokens are yours alone
                json.dump({"games": [asdict(game) for game in games]}, file, indent=1)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class SavedGamesError(RuntimeError):
    """The file of saved games cannot be read as one."""
