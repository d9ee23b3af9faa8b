"""Whether this process can serve: every store it reads or writes reachable and migrated to head; and what it can
do: writes, reads, and whether its public log signs."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .ports import Readiness


class Health:
    def __init__(self, stores: Sequence[Readiness], log_status: Callable[[], str | None] = lambda: None) -> None:
        """`log_status`: whether the public log signs ("ok") or why not; None where this process does not sign."""
        self._stores = stores
        self._log_status = log_status

    def readiness(self) -> str | None:
        """None when ready to serve; otherwise why not (the first store's reason)."""
        return next((reason for store in self._stores if (reason := store.readiness()) is not None), None)

    def standing(self) -> dict[str, str]:
        """What the server can do now, store by store (writes, reads), when it is ready."""
        standing: dict[str, str] = {}
        for store in self._stores:
            standing |= store.standing()
        log = self._log_status()
        if log is not None:
            standing["log"] = log
        return standing
