"""Every error the use cases raise, and the ports raise for them: one base class, so that a caller (the HTTP
layer's error table, the command line) knows a refusal from a bug. The rules' own errors (an illegal
action, invalid rules) are the rules engine's (server/rules/errors.py)."""

from __future__ import annotations

from uuid import UUID


class ServiceError(Exception):
    """A request the use cases refuse, or cannot serve now; its message says why, in words a client can read."""


class GameNotFound(ServiceError, LookupError):
    def __init__(self, game_id: UUID | str) -> None:
        super().__init__(f"no game with id {game_id}")
        self.game_id = game_id


class GameGone(ServiceError):
    """The public log records the game's creation, but the database lacks it: restored from an older backup."""

    def __init__(self, game_id: UUID | str, log_entry: int) -> None:
        super().__init__(
            f"the game {game_id} is gone: the public log's entry {log_entry} records its creation, but the "
            "database was restored from a backup taken before it; its moves are lost"
        )
        self.log_entry = log_entry


class SealedDealNotFound(ServiceError, LookupError):
    def __init__(self, deal_id: UUID | str) -> None:
        super().__init__(f"no sealed deal with id {deal_id}")


class EventNotFound(ServiceError, LookupError):
    """A seq the game's log does not have."""


class LogNotStarted(ServiceError, LookupError):
    """The public log has no checkpoint yet: its sequencer has not run."""


class LogBehind(ServiceError):
    """The log's database lacks entries of the checkpoint it last published (restored from an older backup): no
    proof against that checkpoint can be made until the log is recovered."""


class TileNotFound(ServiceError, LookupError):
    """A tile, bundle or proof the public log does not have (yet): past its tree, or full while still partial."""


class SealedDealUsed(ServiceError):
    """A sealed deal makes one game only."""


class GameNotOver(ServiceError):
    """The game is still being played: analysing it would reveal hidden cards."""


class Unauthorized(ServiceError):
    """No player token was presented."""


class Forbidden(ServiceError):
    """The player token does not belong to this game, or the API token's scopes do not allow the request."""


class PlayerNotFound(ServiceError, LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(f"no player named {name!r}")


class ApiTokenNotFound(ServiceError, LookupError):
    def __init__(self, token_id: UUID | str) -> None:
        super().__init__(f"you have no API token with id {token_id}")


class NameTaken(ServiceError):
    """Another player has this name, or one that differs from it only by case or look-alike characters."""


class DailyDealPlayed(ServiceError):
    """A player has one attempt at a preset's daily deal a day."""


class DayNotOpened(ServiceError, LookupError):
    """A day still to come has no daily deals yet."""


class DayNotClosed(ServiceError):
    """What is asked would show a daily deal's cards before its day closes."""


class TooManyTokens(ServiceError):
    """A player has as many live API tokens as they may: revoke one first."""


class InvalidCursor(ServiceError, ValueError):
    """A pagination cursor that this server did not issue."""


class IdempotencyKeyReused(ServiceError):
    """The Idempotency-Key was first used with another request."""


class IdempotencyConflict(ServiceError):
    """Another request with the same Idempotency-Key was stored first (the store tells the use case, which
    answers with that request's response)."""


class StoreUnavailable(ServiceError):
    """The database cannot be reached or did not answer in time."""


class ReplicationUnconfirmed(StoreUnavailable):
    """A write committed on the primary, but no standby confirmed it in time: not acknowledged, so that a failover
    can never lose what a client was told is done. A retry with the same key settles it."""


class SolverBusy(ServiceError):
    """The client already has as many solver jobs in flight as it may."""


class SolverSaturated(ServiceError):
    """No solver thread came free for the job in time."""


class IdenticalRequestFinished(ServiceError):
    """A request with the same Idempotency-Key was doing this work, and has finished: its answer is stored
    (the use case answers with it)."""


class CompetitionNotFound(ServiceError, LookupError):
    def __init__(self, competition_id: UUID | str) -> None:
        super().__init__(f"no competition with id {competition_id}")


class TooManyCompetitions(ServiceError):
    """An organizer has as many competitions not closed yet as they may: let one close first."""


class AlreadyEntered(ServiceError):
    """A player enters a competition once."""


class NotEntered(ServiceError):
    """What is asked is an entrant's: the player has not entered this competition."""


class AlreadyStarted(ServiceError):
    """An entrant whose clock has started stays in the field: their game counts."""


class CompetitionNotClosed(ServiceError):
    """The results are shown once the competition has closed (its games revealed, its standings rooted)."""


class ResultsFinal(ServiceError):
    """The review time after the close is over: the results are final and take no amendment."""


class NotYetInLog(ServiceError):
    """What the request depends on is not in the public log yet (the sequencer adds it within seconds)."""
