"""The game's decisions, tested directly: `created` makes a game from its deal, `decide` a change from a command, for
a game of its own, a daily deal's and a competition entrant's. No store, no HTTP, no clock but the one given."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest

from server import rules
from server.game.change import Game
from server.game.commands import Act, Draw, End, GiveHint, Hint, Resign, TakeBack, Undo
from server.game.competitions import Finish
from server.game.contests import EntrantClock
from server.game.deciding import Dealt, created, decide
from server.game.errors import ClockExpired, DayClosed, HintsOff, UndoInCompetition, VersionConflict
from server.game.records import Owner
from server.log import competition_entries, public_entries
from server.log import events as ev
from server.rules import commitment, layout, legal_actions, opening, preset, shuffled_deck

RULES = preset("osmosis-draw-one")
SEED = bytes(range(32))
NOW = datetime(2026, 12, 6, 18, tzinfo=UTC)
GAME_ID = UUID("5b0f8a0e-7c1d-4e2f-9a3b-1c2d3e4f5a6b")
COMPETITION_ID = UUID("0c5e7d1a-2b3c-4d5e-8f90-a1b2c3d4e5f6")
ALICE = Owner(UUID("a11ce000-0000-4000-8000-000000000001"), "alice", "human")
TOKEN = ("player-token", "hash-of-the-player-token")


def dealt(**contest) -> Dealt:
    state = opening(RULES, layout(shuffled_deck(SEED, ""), RULES))
    return Dealt(SEED, "", {"kind": "random"}, state, **contest)


def a_game(owner: Owner | None = None, **contest) -> Game:
    return created(RULES, dealt(**contest), owner, GAME_ID, TOKEN, NOW).after


def clock(started_at: datetime = NOW, limit_s: int = 60, hints: bool = False) -> EntrantClock:
    return EntrantClock(COMPETITION_ID, started_at, limit_s * 1000, started_at + timedelta(hours=1), hints)


def a_move(game: Game) -> rules.Action:
    return next(action for action in legal_actions(game.state) if isinstance(action, rules.Move))


def kinds(change) -> list[str]:
    return [event.kind for event in change.events]


# created


def test_a_new_game_is_its_deal_its_first_event_chained_from_its_commitment_and_its_creation_entry():
    change = created(RULES, dealt(), None, GAME_ID, TOKEN, NOW)

    commit = commitment(SEED)
    assert change.game.version == 1 and change.game.commitment == commit
    assert kinds(change) == [ev.GAME_CREATED]
    first = change.events[0]
    assert first.hash == ev.chain_hash(commit, 1, ev.GAME_CREATED, first.data)
    assert first.data["opening"] == rules.public_view(change.after.state)
    assert json.loads(change.events_json) == [first.to_dict()]
    assert change.reply.status == 201 and json.loads(change.reply.text)["id"] == str(GAME_ID)
    assert change.player_token == "player-token" and "player-token" not in change.reply.text
    assert change.after.secret.token_hash == "hash-of-the-player-token"
    assert [entry.kind for entry in change.public_entries] == [public_entries.GAME_CREATED]
    assert SEED.hex() not in change.reply.text + change.events_json


def test_a_daily_game_enters_the_public_log_only_at_its_close():
    change = created(RULES, dealt(day=NOW.date()), ALICE, GAME_ID, TOKEN, NOW)

    assert change.public_entries == ()
    assert json.loads(change.reply.text)["can_undo"] is False


def test_a_competition_game_names_its_clock_and_logs_its_start_not_its_creation():
    late = NOW + timedelta(seconds=7, milliseconds=250)
    change = created(RULES, dealt(clock=clock()), ALICE, GAME_ID, TOKEN, late)

    data = change.events[0].data
    assert data["competition"] == clock().to_dict() and data["elapsed_ms"] == 7250
    assert json.loads(change.reply.text)["competition"] == {
        "id": str(COMPETITION_ID),
        "started_at": NOW.isoformat(),
        "limit_ms": 60_000,
        "deadline": (NOW + timedelta(seconds=60)).isoformat(),
    }
    (started,) = change.public_entries
    assert started.subject == COMPETITION_ID and started.kind == competition_entries.COMPETITION_GAME_STARTED
    assert json.loads(started.entry) == {
        "kind": "competition_game_started",
        "competition_id": str(COMPETITION_ID),
        "at": late.isoformat(),
        "player": {"name": "alice", "kind": "human"},
        "game_id": str(GAME_ID),
        "started_at": NOW.isoformat(),
    }


def test_other_games_keep_their_exact_shapes():
    change = created(RULES, dealt(), ALICE, GAME_ID, TOKEN, NOW)

    assert "elapsed_ms" not in change.events[0].data and "competition" not in change.events[0].data
    assert "competition" not in json.loads(change.reply.text)


# decide: a game of its own


def test_an_action_appends_its_events_after_the_head_and_moves_the_game_on():
    game = a_game()
    action = a_move(game)

    change = decide(game, Act(GAME_ID, "t", action), NOW)

    assert change.game.version == 2 and change.events[0].seq == 2
    assert change.events[0].hash == ev.chain_hash(
        game.record.head_hash, 2, change.events[0].kind, change.events[0].data
    )
    assert change.after.state == rules.apply(game.state, action)
    assert change.game.head_hash == change.events[-1].hash
    assert change.public_entries == () and change.finish is None
    assert json.loads(change.reply.text)["game"]["version"] == 2


def test_a_draw_deals_and_a_command_for_a_passed_version_is_refused():
    game = a_game()

    assert kinds(decide(game, Draw(GAME_ID, "t"), NOW)) == [ev.CARDS_DEALT]
    with pytest.raises(VersionConflict):
        decide(game, Draw(GAME_ID, "t", versions=frozenset({7})), NOW)


def test_a_resignation_ends_the_game_reveals_its_seeds_and_logs_its_end():
    change = decide(a_game(), Resign(GAME_ID, "t"), NOW)

    assert kinds(change) == [ev.GAME_RESIGNED, ev.SEEDS_REVEALED]
    assert change.game.deal["server_seed"] == SEED.hex()
    assert [entry.kind for entry in change.public_entries] == [public_entries.GAME_ENDED]


def test_an_undo_takes_back_the_action_it_was_read_for():
    game = a_game()
    moved = decide(game, Act(GAME_ID, "t", a_move(game)), NOW)

    back = decide(moved.after, TakeBack(Undo(GAME_ID, "t"), 2, moved.events[0], game.state), NOW)

    assert kinds(back) == [ev.ACTION_UNDONE] and back.after.state == game.state and back.snapshot


# decide: a daily deal's game


def test_a_daily_game_takes_no_undo_and_nothing_after_its_day():
    game = a_game(ALICE, day=NOW.date())
    moved = decide(game, Act(GAME_ID, "t", a_move(game)), NOW)

    with pytest.raises(rules.IllegalAction) as refused:
        decide(moved.after, TakeBack(Undo(GAME_ID, "t"), 2, moved.events[0], game.state), NOW)
    assert refused.value.rule == "undo-in-daily"
    with pytest.raises(DayClosed):
        decide(moved.after, Draw(GAME_ID, "t"), NOW + timedelta(days=1))


def test_a_daily_game_reveals_its_seeds_and_enters_the_log_only_when_its_day_closes():
    game = a_game(ALICE, day=NOW.date())

    over = decide(game, Resign(GAME_ID, "t"), NOW)
    assert kinds(over) == [ev.GAME_RESIGNED] and over.public_entries == ()

    closed = decide(over.after, End(GAME_ID, closing=True), NOW + timedelta(days=1))
    assert kinds(closed) == [ev.SEEDS_REVEALED]
    assert [e.kind for e in closed.public_entries] == [public_entries.GAME_CREATED, public_entries.GAME_ENDED]


# decide: a competition entrant's game


def test_every_event_of_a_competition_game_carries_the_entrants_time():
    game = a_game(ALICE, clock=clock())

    change = decide(game, Draw(GAME_ID, "t"), NOW + timedelta(seconds=3, milliseconds=5))

    assert [event.data["elapsed_ms"] for event in change.events] == [3005]
    assert change.events[0].hash == ev.chain_hash(
        game.record.head_hash, 2, ev.CARDS_DEALT, {**ev.unclocked(change.events[0].data), "elapsed_ms": 3005}
    )


def test_a_competition_game_refuses_undo_hints_when_off_and_anything_after_its_clock():
    game = a_game(ALICE, clock=clock(limit_s=60))
    moved = decide(game, Act(GAME_ID, "t", a_move(game)), NOW + timedelta(seconds=1))

    with pytest.raises(UndoInCompetition):
        decide(moved.after, TakeBack(Undo(GAME_ID, "t"), 2, moved.events[0], game.state), NOW)
    with pytest.raises(HintsOff):
        decide(moved.after, GiveHint(Hint(GAME_ID, "t"), 2, {"action": None}), NOW)
    with pytest.raises(ClockExpired):
        decide(moved.after, Draw(GAME_ID, "t"), NOW + timedelta(seconds=60))
    assert kinds(decide(moved.after, Draw(GAME_ID, "t"), NOW + timedelta(seconds=59, milliseconds=999)))


def test_counted_hints_are_given_in_a_competition_that_allows_them():
    game = a_game(ALICE, clock=clock(hints=True))

    change = decide(game, GiveHint(Hint(GAME_ID, "t"), 1, {"action": None}), NOW)

    assert kinds(change) == [ev.HINT_GIVEN] and change.game.hints == 1


def test_a_finished_competition_game_logs_its_finish_and_keeps_its_seeds_for_the_close():
    game = a_game(ALICE, clock=clock(limit_s=600))
    moved = decide(game, Draw(GAME_ID, "t"), NOW + timedelta(seconds=1))

    over = decide(moved.after, Resign(GAME_ID, "t"), NOW + timedelta(seconds=2))

    assert kinds(over) == [ev.GAME_RESIGNED] and "server_seed" not in over.game.deal
    assert over.finish == Finish(GAME_ID, "resigned", over.game.score, 1, 2000, 3, over.game.head_hash)
    (finished,) = over.public_entries
    assert finished.kind == competition_entries.COMPETITION_GAME_FINISHED and finished.subject == COMPETITION_ID
    assert json.loads(finished.entry)["elapsed_ms"] == 2000


def test_the_clock_stops_at_the_end_and_the_close_reveals_with_the_time_of_the_end():
    game = a_game(ALICE, clock=clock(limit_s=600))
    over = decide(game, Resign(GAME_ID, "t"), NOW + timedelta(seconds=4))

    closed = decide(over.after, End(GAME_ID, closing=True), NOW + timedelta(hours=1))

    assert kinds(closed) == [ev.SEEDS_REVEALED] and closed.events[0].data["elapsed_ms"] == 4000
    assert [e.kind for e in closed.public_entries] == [public_entries.GAME_CREATED, public_entries.GAME_ENDED]
    assert closed.finish is None


def test_the_server_ends_a_game_whose_clock_ran_out_as_timed_out_with_its_cards_home_as_its_score():
    game = a_game(ALICE, clock=clock(limit_s=60))
    game = played_partly(game, NOW + timedelta(seconds=10))

    timed_out = decide(game, End(GAME_ID), NOW + timedelta(seconds=61))

    (event,) = timed_out.events
    assert event.kind == ev.GAME_TIMED_OUT
    assert event.data == {"reason": "the clock ran out", "score": game.state.cards_on_foundations, "elapsed_ms": 60_000}
    assert timed_out.finish is not None and timed_out.finish.status == "timed_out"
    assert timed_out.finish.elapsed_ms == 60_000 and timed_out.finish.score == game.state.cards_on_foundations
    assert "server_seed" not in timed_out.game.deal


def test_a_timed_out_game_folds_as_its_log_says_and_its_fold_ignores_the_times():
    creation = created(RULES, dealt(clock=clock(limit_s=60)), ALICE, GAME_ID, TOKEN, NOW)
    log, game = list(creation.events), creation.after
    for second in range(1, 6):
        action = a_move(game) if _has_move(game) else rules.Deal()
        change = decide(game, Act(GAME_ID, "t", action), NOW + timedelta(seconds=second))
        log, game = log + list(change.events), change.after
    for command, at in ((End(GAME_ID), 61), (End(GAME_ID, closing=True), 3600)):
        change = decide(game, command, NOW + timedelta(seconds=at))
        log, game = log + list(change.events), change.after

    assert [event.kind for event in log[-2:]] == [ev.GAME_TIMED_OUT, ev.SEEDS_REVEALED]
    assert [event.data["elapsed_ms"] for event in log] == [0, 1000, 2000, 3000, 4000, 5000, 60_000, 60_000]
    assert ev.fold(creation.after.state, log) == game.state and game.state.status.value == "resigned"
    forged = [*log[:-2], replace(log[-2], data={**log[-2].data, "score": 52})]
    with pytest.raises(ev.ReplayError):
        ev.fold(creation.after.state, forged)


def played_partly(game: Game, now: datetime, actions: int = 5) -> Game:
    for _ in range(actions):
        if game.state.is_over:
            break
        game = decide(game, Act(GAME_ID, "t", a_move(game) if _has_move(game) else rules.Deal()), now).after
    return game


def _has_move(game: Game) -> bool:
    return any(isinstance(action, rules.Move) for action in legal_actions(game.state))
