"""A game's log is bounded, and so is every read of it: a position is hinted once (asked again, the hint recorded
is the answer), a log holds at most MAX_LOG_EVENTS events with room kept for a resignation, and an undo and time
travel fold from the nearest snapshot, never from the deal, nor past the step asked for."""

import json
from dataclasses import replace

import pytest

from server.game.commands import Draw, Hint, NewGame, NumberedDeal, Resign, Undo
from server.game.deciding import SNAPSHOT_EVERY
from server.log import events as ev
from server.log.deal_record import game_opening
from server.rules import IllegalAction, Rules, preset, public_view, to_text
from server.runtime.composition import compose
from server.service.games import verifying
from server.solver import hints as hints_module
from tests.memory_store import MemoryStore

RULES = preset("osmosis-draw-one")
A_STRETCH = SNAPSHOT_EVERY + 4
"""The most events a fold from the nearest snapshot reads: those since it, its own, and the rest of a step."""


class CountingStore(MemoryStore):
    """The in-memory store, counting the events its reads hand out."""

    def __init__(self) -> None:
        super().__init__()
        self.events_read = 0

    def load_events(self, game_id, after, limit, upto=None):
        events = super().load_events(game_id, after, limit, upto)
        self.events_read += len(events)
        return events

    def load_time_travel(self, game_id, seq):
        travel = super().load_time_travel(game_id, seq)
        self.events_read += len(travel.events)
        return travel


@pytest.fixture
def store() -> CountingStore:
    return CountingStore()


@pytest.fixture
def game(cases):
    made = cases.creating.handle(NewGame(RULES, NumberedDeal(3))).outcome
    return made.game.id, made.player_token


def kinds(store, game_id):
    return [event.kind for event in store.load_events(game_id, 0, None)]


def folded(store, game_id, upto=None):
    """The position the game's whole log folds to from its deal, each undo checked to name its action."""
    record, secret = store.load_for_action(game_id)
    opening = game_opening(Rules.from_mapping(record.rules), secret.server_seed, secret.client_seed, record.deal)
    return ev.fold(opening, store.load_events(game_id, 0, None), upto=upto)


def test_a_hint_asked_again_where_nothing_moved_is_the_one_recorded_and_appends_nothing(store, game):
    solved = []

    def counted(work, once_for=None):
        solved.append(once_for)
        return work()

    cases = compose(store, solver_time=counted)
    game_id, token = game
    first = cases.acting.handle(Hint(game_id, token)).outcome
    again = cases.acting.handle(Hint(game_id, token)).outcome

    assert len(solved) == 1, "the hint recorded is answered, not worked out again"
    assert again.events == () and again.hint == first.hint and again.game == first.game
    reply = json.loads(again.reply.text)
    assert reply["events"] == [] and reply["hint"] == first.hint and reply["game"]["version"] == first.game.version
    assert kinds(store, game_id).count(ev.HINT_GIVEN) == 1

    cases.acting.handle(Draw(game_id, token))
    cases.acting.handle(Hint(game_id, token))
    assert len(solved) == 2 and kinds(store, game_id).count(ev.HINT_GIVEN) == 2


def test_two_hints_worked_out_together_at_one_position_leave_one_in_the_log(store, game):
    game_id, token = game
    raced = []

    def racing(work, once_for=None):
        if not raced:
            raced.append(None)
            raced.append(cases.acting.handle(Hint(game_id, token)).outcome)
        return work()

    cases = compose(store, solver_time=racing, recent_games=0)
    answered = cases.acting.handle(Hint(game_id, token)).outcome

    assert kinds(store, game_id) == [ev.GAME_CREATED, ev.HINT_GIVEN]
    assert answered.hint == raced[1].hint and answered.events == ()


def test_a_full_log_refuses_all_but_a_resignation_which_always_fits(store, game, monkeypatch):
    monkeypatch.setattr(ev, "MAX_LOG_EVENTS", 12)
    searched = []
    cases = compose(store, solver_time=lambda work, once_for=None: searched.append(once_for) or work())
    game_id, token = game
    with pytest.raises(IllegalAction) as refused:
        for _ in range(12):
            cases.acting.handle(Draw(game_id, token))
    assert refused.value.rule == "log-full" and "resign" in str(refused.value)
    full = store.load_game(game_id).version
    assert full == 12 - 2
    for command in (Hint(game_id, token), Undo(game_id, token), Draw(game_id, token)):
        with pytest.raises(IllegalAction, match="log"):
            cases.acting.handle(command)
    assert store.load_game(game_id).version == full
    assert searched == [], "a hint the log has no room for is refused before its search"

    resigned = cases.acting.handle(Resign(game_id, token)).outcome
    assert resigned.game.status == "resigned" and resigned.game.version == 12
    assert kinds(store, game_id)[-2:] == [ev.GAME_RESIGNED, ev.SEEDS_REVEALED]


def a_long_game(cases, game_id, token, draws):
    """`draws` draws and redeals, none of them playing a card, and hints between them."""
    for number in range(draws):
        cases.acting.handle(Draw(game_id, token))
        if number % 7 == 0:
            cases.acting.handle(Hint(game_id, token))


def test_an_undo_reads_one_snapshots_stretch_of_the_log_however_long_the_game(cases, store, game):
    game_id, token = game
    a_long_game(cases, game_id, token, 6 * SNAPSHOT_EVERY)
    assert store.load_game(game_id).status == "playing"

    def undone() -> None:
        store.events_read = 0
        taken = cases.acting.handle(Undo(game_id, token)).outcome
        assert store.events_read <= A_STRETCH, f"an undo read {store.events_read} events"
        assert taken.state_text == to_text(folded(store, game_id))
        assert store.load_snapshots(game_id)[taken.game.version] == taken.state_text

    for _ in range(SNAPSHOT_EVERY + 3):  # back past a snapshot, one undo after another
        undone()
    for _ in range(SNAPSHOT_EVERY):  # an action and its undo, again and again: each undo reaches further back
        cases.acting.handle(Draw(game_id, token))
        undone()
        undone()
    cases.acting.handle(Hint(game_id, token))
    undone()


def test_time_travel_reads_one_snapshots_stretch_and_never_past_the_step_asked_for(cases, store, game):
    game_id, token = game
    a_long_game(cases, game_id, token, 3 * SNAPSHOT_EVERY)
    for _ in range(SNAPSHOT_EVERY + 2):
        cases.acting.handle(Undo(game_id, token))
    for _ in range(5):
        cases.acting.handle(Draw(game_id, token))
        cases.acting.handle(Undo(game_id, token))
        cases.acting.handle(Undo(game_id, token))
    last = store.load_game(game_id).version

    for seq in range(1, last + 1):
        store.events_read = 0
        shown = cases.queries.state_at(game_id, seq)
        assert store.events_read <= A_STRETCH, f"time travel to {seq} read {store.events_read} events"
        assert shown["state"] == public_view(folded(store, game_id, upto=seq)), seq


class SolverWork:
    """The hints' searches a verification makes: their positions and their count."""

    def __init__(self, monkeypatch) -> None:
        self.positions = self.solves = 0
        searching = hints_module.solve

        def counted(*args, **kwargs):
            solution = searching(*args, **kwargs)
            self.positions += solution.nodes
            self.solves += 1
            return solution

        monkeypatch.setattr(hints_module, "solve", counted)

    @property
    def cost(self) -> int:
        return self.positions + hints_module.SOLVE_COST * self.solves


def a_hinted_game(cases, game_id, token, steps):
    for _ in range(steps):
        cases.acting.handle(Hint(game_id, token))
        cases.acting.handle(Draw(game_id, token))


def test_a_verification_searches_within_its_budget_counting_each_search_it_starts(cases, game, monkeypatch):
    game_id, token = game
    a_hinted_game(cases, game_id, token, 12)
    budget = 30_000
    monkeypatch.setattr(verifying, "VERIFICATION_BUDGET", budget)
    work = SolverWork(monkeypatch)

    verdict = cases.verifying.verification(game_id)

    assert verdict["valid"] and verdict["unchecked"], verdict  # the budget paid for some of the hints, not all
    assert 0 < work.cost <= budget, (work.positions, work.solves)


def test_a_hint_verified_once_is_not_searched_again_and_a_changed_one_is(cases, store, game, monkeypatch):
    game_id, token = game
    a_hinted_game(cases, game_id, token, 3)
    first = cases.verifying.verification(game_id)
    work = SolverWork(monkeypatch)

    assert cases.verifying.verification(game_id) == first and first["valid"] and first["complete"]
    assert work.solves == 0, "every hint of the log was checked by the first verification"

    stored = store._games[game_id]
    seq = next(event.seq for _, event in stored.events if event.kind == ev.HINT_GIVEN)
    forged = [
        (tx, replace(event, data={**event.data, "samples": event.data["samples"] - 1}) if event.seq == seq else event)
        for tx, event in stored.events
    ]
    stored.events = rechained(forged, stored.record.commitment)
    stored.record = replace(stored.record, head_hash=stored.events[-1][1].hash)
    verdict = cases.verifying.verification(game_id)
    assert (verdict["valid"], verdict["first_bad_seq"]) == (False, seq), verdict
    assert work.solves > 0


def rechained(events, commitment):
    """What a forger with the database does after an edit: every hash again, from the commitment on."""
    previous, chained = commitment, []
    for tx, event in events:
        previous = ev.chain_hash(previous, event.seq, event.kind, event.data)
        chained.append((tx, replace(event, hash=previous)))
    return chained
