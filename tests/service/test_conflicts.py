"""Two processes on one game, on the use cases alone: each composed on the same store keeps its own copy of the games
it wrote, and an action decided on a stale copy still lands once, on the game as it stands."""

import pytest

from server.game.commands import Draw, NewGame, NumberedDeal, Resign
from server.game.errors import VersionConflict
from server.rules import GameOver, preset
from server.runtime.composition import compose

RULES = preset("osmosis-draw-one")


def test_an_action_on_a_stale_copy_lands_on_the_stored_game_after_the_other_process(store):
    here, elsewhere = compose(store), compose(store)
    made = here.creating.handle(NewGame(RULES, NumberedDeal(5))).outcome  # kept here at version 1
    elsewhere.acting.handle(Draw(made.game.id, made.player_token))

    landed = here.acting.handle(Draw(made.game.id, made.player_token)).outcome

    assert landed.game.version == 3
    assert [event.seq for event in store.load_events(made.game.id, 0, None)] == [1, 2, 3]


def test_an_action_stating_a_version_the_other_process_moved_past_is_refused_and_writes_nothing(store):
    here, elsewhere = compose(store), compose(store)
    made = here.creating.handle(NewGame(RULES, NumberedDeal(5))).outcome
    elsewhere.acting.handle(Draw(made.game.id, made.player_token))

    with pytest.raises(VersionConflict, match="at version 2, not 1"):
        here.acting.handle(Draw(made.game.id, made.player_token, versions=frozenset({1})))
    assert store.load_game(made.game.id).version == 2


def test_a_game_ended_elsewhere_refuses_the_action_decided_on_an_older_copy(store):
    here, elsewhere = compose(store), compose(store)
    made = here.creating.handle(NewGame(RULES, NumberedDeal(5))).outcome
    elsewhere.acting.handle(Resign(made.game.id, made.player_token))

    with pytest.raises(GameOver, match="resigned"):
        here.acting.handle(Draw(made.game.id, made.player_token))
    assert store.load_game(made.game.id).status == "resigned"
