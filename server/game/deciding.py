"""The game's decisions: a command in, one `Change` out. Pure: the caller gives the game as it stands, the time,
and, for a creation, the seeds, the id and the token it drew; the change holds all that follows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID

from .. import rules
from ..log import events as ev
from ..log import public_entries
from ..rules import GameState, can_redeal, commitment, to_text
from .change import Change, Game, Reply
from .commands import Act, Command, Draw, End, GiveHint, Resign, TakeBack, Versions
from .days import still_private
from .document import action_reply, rendered
from .errors import DayClosed, PositionMoved, VersionConflict
from .records import GameRecord, GameSecret, Owner, PublicEntry
from .results import result_at_reveal

SNAPSHOT_EVERY = 32
"""A snapshot of the position is kept each time a game's version passes a multiple of this."""


def decide(game: Game, command: Command, now: datetime) -> Change:
    """What `command` makes of `game` at `now`; raises the game's refusal (errors.py, or the rules') instead."""
    if isinstance(command, End):
        return _ended(game, command, now)
    asked = command.asked if isinstance(command, GiveHint | TakeBack) else command
    check_day_open(game.record, now)
    check_version(game.record, asked.versions)
    state = game.state
    if isinstance(command, GiveHint):
        if command.version != game.record.version:
            raise PositionMoved("the game moved on while its hint was worked out: ask again")
        return _bounded(_change(game, state, [ev.hint_given(command.hint)], now, hint=command.hint))
    if isinstance(command, TakeBack):
        undone, before = taken_back(game, command)
        # The position an undo returns to is kept: a later fold (another undo, time travel) starts from it rather
        # than walking back through this undo to the action it took back.
        return _bounded(_change(game, before, [ev.action_undone(undone)], now, undoable=-1, snapshot=True))
    action: rules.Action
    if isinstance(command, Act):
        action = command.action
    elif isinstance(command, Draw):
        action = rules.Redeal() if not state.stock and can_redeal(state) else rules.Deal()
    else:
        assert isinstance(command, Resign)
        action = rules.Resign()
    after = rules.apply(state, action)
    # A resignation ends the game: no undo takes it back, nor anything before it. It always fits in the log.
    if isinstance(action, rules.Resign):
        return _change(game, after, ev.events_for(state, action, after), now)
    return _bounded(_change(game, after, ev.events_for(state, action, after), now, undoable=1))


def taken_back(game: Game, command: TakeBack) -> tuple[ev.Event, GameState]:
    """The action an undo takes back (its own event), the latest not taken back yet, and the position before it, as
    read from the game's log at the version the command names."""
    record = game.record
    if game.state.is_over:
        raise rules.GameOver("the game is over: an ended game stays ended, and no action of it is taken back")
    if record.daily is not None:
        raise rules.IllegalAction("undo-in-daily", "a daily deal is a competition: its actions are not taken back")
    if record.undos >= ev.MAX_UNDOS:
        limit = ev.MAX_UNDOS
        raise rules.IllegalAction("undo-limit", f"a game takes at most {limit:,} undos, and this one has had them")
    if command.version != record.version:
        raise PositionMoved("the game moved on while its log was read for the undo: ask again")
    if command.undone is None or command.before is None:
        raise rules.IllegalAction("nothing-to-undo", "there is no action to take back: the game is at its deal")
    return command.undone, command.before


def hinted_again(game: Game, recorded: ev.Event) -> Change:
    """A hint asked where the game has not moved since its latest hint, `recorded`: that hint again, nothing
    appended (a position is hinted once, which bounds a game's hints by its steps)."""
    return Change(
        game, (), "[]", Reply(200, action_reply(game.record.document, "[]", recorded.data)), hint=recorded.data
    )


def _bounded(change: Change) -> Change:
    """`change`, if it leaves the log room for what the end of the game may still append: a resignation and the
    reveal of the seeds while the game is on, the reveal alone for a daily game over before its day closes."""
    game = change.game
    still_to_come = 0 if "server_seed" in game.deal else 1 if change.after.state.is_over else 2
    if game.version + still_to_come > ev.MAX_LOG_EVENTS:
        raise _log_full(game.version - len(change.events))
    return change


def check_room_for_a_hint(game: GameRecord) -> None:
    """Raises the refusal a hint would meet in a full log, before its search is paid for."""
    if game.version + 1 + 2 > ev.MAX_LOG_EVENTS:
        raise _log_full(game.version)


def _log_full(held: int) -> rules.IllegalAction:
    return rules.IllegalAction(
        "log-full",
        f"this game's log is full: it holds {held:,} events, and a game's log at most {ev.MAX_LOG_EVENTS:,}, some "
        "kept for its end: resign to end it",
    )


def check_version(game: GameRecord, versions: Versions) -> None:
    if versions is not None and game.version not in versions:
        stated = " or ".join(str(version) for version in sorted(versions))
        raise VersionConflict(f"the game is at version {game.version}, not {stated}")


def check_day_open(game: GameRecord, now: datetime) -> None:
    if game.daily is not None and not still_private(game.daily, now):
        raise DayClosed(f"the day of this daily game, {game.daily.isoformat()}, has closed: the game ended with it")


def _ended(game: Game, command: End, now: datetime) -> Change:
    state = game.state
    if state.is_over:
        return _change(game, state, [], now, closing_day=command.closing_day, abandoned=command.abandoned)
    after = rules.apply(state, rules.Resign())
    new_events = ev.events_for(state, rules.Resign(), after)
    return _change(game, after, new_events, now, closing_day=command.closing_day, abandoned=command.abandoned)


def _change(
    game: Game,
    after: GameState,
    new_events: list[ev.NewEvent],
    now: datetime,
    *,
    hint: dict[str, Any] | None = None,
    undoable: int = 0,
    closing_day: bool = False,
    abandoned: bool = False,
    snapshot: bool = False,
) -> Change:
    """The change of `new_events` taking the game to `after`; `undoable`: how the count of actions an undo could
    take back moves (one more after an action, one fewer after an undo); `snapshot`: keep the position it leaves,
    as every time the version passes a multiple of SNAPSHOT_EVERY."""
    record, secret = game.record, game.secret
    # A daily deal is every player's: its seeds are revealed when its day closes, not when one game ends.
    reveal = after.is_over and (record.daily is None or closing_day)
    deal = record.deal
    if reveal:
        new_events.append(ev.seeds_revealed(secret.server_seed, secret.client_seed))
        deal = {**deal, "server_seed": secret.server_seed.hex(), "client_seed": secret.client_seed}
    appended, events_json = ev.chained(record.head_hash, record.version + 1, new_events)
    updated = _moved(record, after, appended[-1], deal, now, hinted=hint is not None, undoable=undoable)
    entries: tuple[PublicEntry, ...] = ()
    if reveal:
        ended = _end_entry(updated, secret)
        entries = (ended,) if record.daily is None else (creation_entry(record), ended)
    return Change(
        Game(updated, GameSecret(secret.server_seed, secret.client_seed, to_text(after), secret.token_hash), after),
        tuple(appended),
        events_json,
        Reply(200, action_reply(updated.document, events_json, hint)),
        snapshot=snapshot or record.version // SNAPSHOT_EVERY != updated.version // SNAPSHOT_EVERY,
        result=result_at_reveal(updated, abandoned) if reveal else None,
        public_entries=entries,
        hint=hint,
    )


def _moved(
    record: GameRecord,
    after: GameState,
    head: ev.Event,
    deal: dict[str, Any],
    now: datetime,
    hinted: bool,
    undoable: int,
) -> GameRecord:
    """The game's row after a command whose last event is `head`, its document rendered."""
    moved = GameRecord(
        id=record.id,
        created_at=record.created_at,
        updated_at=now,
        rules=record.rules,
        variant=record.variant,
        deal=deal,
        commitment=record.commitment,
        version=head.seq,
        status=after.status.value,
        score=after.cards_on_foundations,
        head_hash=head.hash,
        hints=record.hints + hinted,
        document="",
        owner=record.owner,
        daily=record.daily,
        undos=record.undos + (undoable < 0),
        undoable=record.undoable + undoable,
    )
    return rendered(moved, after)


@dataclass(frozen=True, slots=True)
class Dealt:
    """A new game's deal: its seeds, how the deal is made (no secret), its opening, and a daily game's day."""

    server_seed: bytes
    client_seed: str
    deal: dict[str, Any]
    opening: GameState
    day: date | None = None


def created(
    rules_of: rules.Rules,
    dealt: Dealt,
    owner: Owner | None,
    game_id: UUID,
    player_token: tuple[str, str],
    now: datetime,
) -> Change:
    """A new game: its record, its first event, and its creation's public-log entry (a daily game's enters the
    public log when its day closes). `player_token`: the game's token and its hash, which is all that is kept. Its
    reply is its document; the token is added when it is sent, never kept in the reply."""
    state, commit = dealt.opening, commitment(dealt.server_seed)
    first = ev.game_created(game_id, rules_of, dealt.deal, commit, state, None if owner is None else owner.named())
    events, events_json = ev.chained(commit, 1, [first])
    record = rendered(
        GameRecord(
            id=game_id,
            created_at=now,
            updated_at=now,
            rules=rules_of.to_dict(),
            variant=rules_of.preset_name,
            deal=dealt.deal,
            commitment=commit,
            version=1,
            status=state.status.value,
            score=state.cards_on_foundations,
            head_hash=events[-1].hash,
            hints=0,
            document="",
            owner=owner,
            daily=dealt.day,
        ),
        state,
    )
    secret = GameSecret(dealt.server_seed, dealt.client_seed, to_text(state), player_token[1])
    return Change(
        Game(record, secret, state),
        tuple(events),
        events_json,
        Reply(201, record.document),
        public_entries=() if dealt.day is not None else (creation_entry(record),),
        player_token=player_token[0],
    )


def creation_entry(game: GameRecord) -> PublicEntry:
    """The game's creation as the public log enters it (its deal without the seeds revealed since)."""
    return PublicEntry(
        game.id,
        public_entries.GAME_CREATED,
        public_entries.game_created(
            game.id, game.variant, game.rules, game.deal, game.commitment, game.owner.named() if game.owner else None
        ),
    )


def _end_entry(game: GameRecord, secret: GameSecret) -> PublicEntry:
    return PublicEntry(
        game.id,
        public_entries.GAME_ENDED,
        public_entries.game_ended(
            game.id, game.status, game.version, game.head_hash, game.score, secret.server_seed, secret.client_seed
        ),
    )
