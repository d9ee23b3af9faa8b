"""A competition's rules, tested directly: the terms an organizer may set, its status, who may enter and when, each
entrant's clock, and the ranking with its root."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest

from server.game.competitions import (
    BadSchedule,
    CompetitionRefused,
    NotStarted,
    StartClosed,
    Terms,
    check_entry,
    clock_for,
    scheduled,
    status_at,
)
from server.log.standings import Standing, ranked, standings_root
from server.rules import preset

NOW = datetime(2026, 12, 6, 18, tzinfo=UTC)
RULES = preset("osmosis")
ID = UUID("0c5e7d1a-2b3c-4d5e-8f90-a1b2c3d4e5f6")


def race(**changes) -> Terms:
    terms = {"name": "Sunday race", "format_name": "race", "rules": RULES, "entrants": "human"}
    terms |= {"starts_at": NOW + timedelta(minutes=5), "ends_at": None, "limit_s": 600, "now": NOW}
    return scheduled(**(terms | changes))


def window(**changes) -> Terms:
    return race(**({"format_name": "window", "ends_at": NOW + timedelta(hours=2)} | changes))


def test_a_race_ends_when_its_clock_does_and_a_window_at_its_close():
    assert race().ends_at == NOW + timedelta(minutes=15) and race().limit_ms == 600_000
    assert window().ends_at == NOW + timedelta(hours=2)
    assert race().last_start == race().starts_at
    assert window().last_start == NOW + timedelta(hours=2) - timedelta(minutes=10)


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"starts_at": NOW + timedelta(seconds=1)}, "starts_at"),
        ({"starts_at": NOW - timedelta(days=1)}, "starts_at"),
        ({"starts_at": datetime(2026, 12, 6, 19)}, "starts_at"),
        ({"starts_at": NOW + timedelta(days=400)}, "starts_at"),
        ({"limit_s": 4}, "limit_s"),
        ({"limit_s": 86_401}, "limit_s"),
        ({"ends_at": NOW + timedelta(hours=1)}, "ends_at"),
        ({"format_name": "window"}, "ends_at"),
        ({"format_name": "window", "ends_at": NOW + timedelta(minutes=10)}, "ends_at"),
        ({"format_name": "window", "ends_at": NOW + timedelta(days=40)}, "ends_at"),
        ({"format_name": "relay"}, "format"),
        ({"entrants": "robot"}, "entrants"),
        ({"hints": "free"}, "hints"),
        ({"max_entrants": 10_001}, "max_entrants"),
        ({"max_entrants": 0}, "max_entrants"),
        ({"review_s": -1}, "review_s"),
    ],
)
def test_terms_that_cannot_be_held_are_refused_naming_their_field(changes, named):
    with pytest.raises(BadSchedule) as refused:
        race(**changes)
    assert str(refused.value).startswith(named + ":")


def test_the_status_follows_the_schedule_and_the_review():
    terms = race(review_s=60)
    assert status_at(terms, None, NOW) == "open"
    assert status_at(terms, None, terms.starts_at) == "running"
    assert status_at(terms, None, terms.ends_at + timedelta(hours=1)) == "running"  # until its close is written
    closed = terms.ends_at + timedelta(seconds=1)
    assert status_at(terms, closed, closed + timedelta(seconds=59)) == "closed"
    assert status_at(terms, closed, closed + timedelta(seconds=60)) == "final"


def codes(terms, now, kind="human", joined_before=True, entrants=0):
    try:
        check_entry(terms, now, kind, joined_before, entrants)
    except CompetitionRefused as refused:
        return type(refused).__name__
    return None


def test_who_may_enter_and_until_when():
    terms = race(max_entrants=2)
    assert codes(terms, NOW) is None
    assert codes(terms, terms.starts_at) == "EntriesClosed"
    assert codes(terms, NOW, kind="bot") == "NotEligible"
    assert codes(terms, NOW, joined_before=False) == "NotEligible"
    assert codes(terms, NOW, entrants=2) == "CompetitionFull"
    late = window()
    assert codes(late, late.starts_at + timedelta(minutes=30)) is None
    assert codes(late, late.last_start) == "EntriesClosed"


def test_a_race_clock_starts_at_the_start_for_everyone_a_window_clock_at_the_entrants_call():
    terms = race()
    with pytest.raises(NotStarted) as early:
        clock_for(terms, ID, terms.starts_at - timedelta(milliseconds=1500))
    assert early.value.retry_after == 2
    fetched_late = clock_for(terms, ID, terms.starts_at + timedelta(seconds=30))
    assert fetched_late.started_at == terms.starts_at and fetched_late.deadline == terms.ends_at

    open_window = window()
    at = open_window.starts_at + timedelta(minutes=3)
    assert clock_for(open_window, ID, at).started_at == at
    with pytest.raises(StartClosed):
        clock_for(open_window, ID, open_window.last_start + timedelta(seconds=1))


def test_the_clock_never_reads_below_zero_nor_above_its_limit():
    clock = clock_for(race(), ID, race().starts_at)
    assert clock.elapsed_ms(clock.started_at - timedelta(seconds=1)) == 0
    assert clock.elapsed_ms(clock.started_at + timedelta(seconds=1, microseconds=999)) == 1000
    assert clock.elapsed_ms(clock.deadline + timedelta(days=1)) == 600_000
    assert not clock.ran_out(clock.deadline - timedelta(microseconds=1)) and clock.ran_out(clock.deadline)


GAME = UUID(int=1)


def row(name, status="lost", score=0, elapsed=0, actions=0, index=None, game=GAME, struck=None):
    return Standing(name, "human", status, score, actions, elapsed, game, index, struck)


def test_osmosis_race_1_ranks_wins_then_cards_home_then_time_then_actions_then_log_order():
    rows = [
        row("no-show", "timed_out", game=None),
        row("slow-win", "won", 52, 90_000, 120, 9),
        row("fast-win", "won", 52, 60_000, 150, 8),
        row("more-home", "lost", 40, 10, 10, 1),
        row("fewer-actions", "lost", 30, 5_000, 60, 5),
        row("tied-later", "lost", 30, 5_000, 70, 3),
        row("tied-first", "timed_out", 30, 5_000, 70, 2),
        row("cheat", "won", 52, 1_000, 52, 4, struck="a second account of slow-win's"),
    ]

    table = ranked(rows)

    assert [(r["rank"], r["player"]["name"]) for r in table] == [
        (1, "fast-win"),
        (2, "slow-win"),
        (3, "more-home"),
        (4, "fewer-actions"),
        (5, "tied-first"),
        (6, "tied-later"),
        (7, "no-show"),
        (None, "cheat"),
    ]
    assert table[-1]["struck"] == "a second account of slow-win's" and table[6]["game_id"] is None


def test_the_standings_root_is_the_digest_of_the_ranked_rows_canonical_json():
    table = ranked([row("ünïcode", "won", 52, 1, 52, 1)])
    text = json.dumps(table, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

    assert standings_root(table) == hashlib.sha256(text).hexdigest()
    assert standings_root(ranked([row("ünïcode", "won", 52, 2, 52, 1)])) != standings_root(table)


def test_no_game_starts_once_the_competition_has_ended():
    terms = race()
    with pytest.raises(StartClosed):
        clock_for(terms, ID, terms.ends_at)
    assert clock_for(terms, ID, terms.ends_at - timedelta(milliseconds=1)).deadline == terms.ends_at
