"""The game's decisions: a command in, one `Change` out. Pure: the caller gives the game as it stands, the time,
and, for a creation, the seeds, the id and the token it drew; the change holds all that follows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID

from .. import rules
from ..log import competition_entries, public_entries
from ..log import events as ev
from ..rules import GameState, can_redeal, commitment, to_text
from .change import Change, Game, Reply
from .commands import Act, Command, Draw, End, GiveHint, Resign, TakeBack, Versions
from .competitions import Finish
from .contests import EntrantClock, check_hint, check_open, check_undo, elapsed_stamped
from .document import action_reply, rendered
from .errors import PositionMoved, VersionConflict
from .records import GameRecord, GameSecret, Owner, PublicEntry
from .results import COUNTED_ACTION_EVENTS, result_at_reveal

SNAPSHOT_EVERY = 32
"""A snapshot of the position is kept each time a game's version passes a multiple of this."""


def decide(game: Game, command: Command, now: datetime) -> Change:
    """What `command` makes of `game` at `now`; raises the game's refusal (errors.py, or the rules') instead."""
    if isinstance(command, End):
        return _ended(game, command, now)
    asked = command.asked if isinstance(command, GiveHint | TakeBack) else command
    check_open(game.record.contest, now)
    check_version(game.record, asked.versions)
    state = game.state
    if isinstance(command, GiveHint):
        check_hint(game.record.contest)
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
    check_undo(record.contest)
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


def _ended(game: Game, command: End, now: datetime) -> Change:
    state = game.state
    if state.is_over:
        return _change(game, state, [], now, closing=command.closing, abandoned=command.abandoned)
    after = rules.apply(state, rules.Resign())
    # A competition game the server ends has run out of time: its clock, or its competition.
    if game.record.competition is not None:
        new_events = [ev.game_timed_out(after)]
    else:
        new_events = ev.events_for(state, rules.Resign(), after)
    return _change(game, after, new_events, now, closing=command.closing, abandoned=command.abandoned)


def _change(
    game: Game,
    after: GameState,
    new_events: list[ev.NewEvent],
    now: datetime,
    *,
    hint: dict[str, Any] | None = None,
    undoable: int = 0,
    closing: bool = False,
    abandoned: bool = False,
    snapshot: bool = False,
) -> Change:
    """The change of `new_events` taking the game to `after`; `undoable`: how the count of actions an undo could
    take back moves (one more after an action, one fewer after an undo); `snapshot`: keep the position it leaves,
    as every time the version passes a multiple of SNAPSHOT_EVERY."""
    record, secret, clock = game.record, game.secret, game.record.competition
    # A contest's deal is every player's: its seeds are revealed when the contest closes, not when one game ends.
    reveal = after.is_over and (record.contest is None or closing)
    deal = record.deal
    if reveal:
        new_events.append(ev.seeds_revealed(secret.server_seed, secret.client_seed))
        deal = {**deal, "server_seed": secret.server_seed.hex(), "client_seed": secret.client_seed}
    if clock is not None:
        # The entrant's clock stops when the game ends: the reveal at the close carries the time of the end.
        elapsed = clock.elapsed_ms(record.updated_at if game.state.is_over else now)
        new_events = [ev.NewEvent(new.kind, elapsed_stamped(new.data, clock, elapsed)) for new in new_events]
    appended, events_json = ev.chained(record.head_hash, record.version + 1, new_events)
    updated = _moved(record, after, appended[-1], deal, now, hinted=hint is not None, undoable=undoable)
    entries: tuple[PublicEntry, ...] = ()
    finish = None
    if clock is not None and after.is_over and not game.state.is_over:
        finish = finish_of(record, updated, new_events, clock.elapsed_ms(now))
        entries = (_finish_entry(updated, finish, now),)
    if reveal:
        ended = _end_entry(updated, secret)
        entries += (ended,) if record.contest is None else (creation_entry(record), ended)
    return Change(
        Game(updated, GameSecret(secret.server_seed, secret.client_seed, to_text(after), secret.token_hash), after),
        tuple(appended),
        events_json,
        Reply(200, action_reply(updated.document, events_json, hint)),
        snapshot=snapshot or record.version // SNAPSHOT_EVERY != updated.version // SNAPSHOT_EVERY,
        result=result_at_reveal(updated, abandoned) if reveal else None,
        public_entries=entries,
        hint=hint,
        finish=finish,
    )


def finish_of(before: GameRecord, after: GameRecord, new_events: list[ev.NewEvent], elapsed_ms: int) -> Finish:
    """A competition game's finish, as the change that ended it leaves it. Its actions: those logged before (every
    event after its creation but the hints: a contest game has no undo) and those of the change."""
    actions = before.version - 1 - before.hints + sum(new.kind in COUNTED_ACTION_EVENTS for new in new_events)
    timed_out = any(new.kind == ev.GAME_TIMED_OUT for new in new_events)
    status = "timed_out" if timed_out else after.status
    return Finish(after.id, status, after.score, actions, elapsed_ms, after.version, after.head_hash)


def _finish_entry(game: GameRecord, finish: Finish, now: datetime) -> PublicEntry:
    assert game.competition is not None and game.owner is not None, "an entrant's game"
    competition_id = game.competition.competition_id
    entry = competition_entries.game_finished(competition_id, now, game.owner.named(), finish.to_dict())
    return PublicEntry(competition_id, competition_entries.COMPETITION_GAME_FINISHED, entry)


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
        competition=record.competition,
    )
    return rendered(moved, after)


@dataclass(frozen=True, slots=True)
class Dealt:
    """A new game's deal: its seeds, how the deal is made (no secret), its opening, and its contest: a daily game's
    day, or a competition entrant's clock."""

    server_seed: bytes
    client_seed: str
    deal: dict[str, Any]
    opening: GameState
    day: date | None = None
    clock: EntrantClock | None = None


def created(
    rules_of: rules.Rules,
    dealt: Dealt,
    owner: Owner | None,
    game_id: UUID,
    player_token: tuple[str, str],
    now: datetime,
) -> Change:
    """A new game: its record, its first event, and its creation's public-log entry (a contest game's enters the
    public log when its contest closes; a competition game's start enters it now). `player_token`: the game's token
    and its hash, which is all that is kept. Its reply is its document; the token is added when it is sent, never
    kept in the reply."""
    state, commit, clock = dealt.opening, commitment(dealt.server_seed), dealt.clock
    first = ev.game_created(
        game_id,
        rules_of,
        dealt.deal,
        commit,
        state,
        None if owner is None else owner.named(),
        None if clock is None else clock.to_dict(),
    )
    if clock is not None:
        first = ev.NewEvent(first.kind, elapsed_stamped(first.data, clock, clock.elapsed_ms(now)))
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
            competition=clock,
        ),
        state,
    )
    secret = GameSecret(dealt.server_seed, dealt.client_seed, to_text(state), player_token[1])
    entries: tuple[PublicEntry, ...] = () if record.contest is not None else (creation_entry(record),)
    if clock is not None:
        assert owner is not None, "an entrant's game"
        entries = (_start_entry(record.id, clock, owner, now),)
    return Change(
        Game(record, secret, state),
        tuple(events),
        events_json,
        Reply(201, record.document),
        public_entries=entries,
        player_token=player_token[0],
    )


def _start_entry(game_id: UUID, clock: EntrantClock, owner: Owner, now: datetime) -> PublicEntry:
    competition_id = clock.competition_id
    entry = competition_entries.game_started(competition_id, now, owner.named(), game_id, clock.started_at)
    return PublicEntry(competition_id, competition_entries.COMPETITION_GAME_STARTED, entry)


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
