"""Whether this process can serve: every store it reads or writes reachable and migrated to head."""

from __future__ import annotations

from collections.abc import Sequence

from .ports import Readiness


class Health:
    def __init__(self, stores: Sequence[Readiness]) -> None:
        self._stores = stores

    def readiness(self) -> str | None:
        """None when ready to serve; otherwise why not (the first store's reason)."""
        return next((reason for store in self._stores if (reason := store.readiness()) is not None), None)

    def standing(self) -> dict[str, str]:
        """What the server can do now, store by store (writes, reads), when it is ready."""
        standing: dict[str, str] = {}
        for store in self._stores:
            standing |= store.standing()
        return standing
