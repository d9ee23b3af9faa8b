"""Today's deal at the terminal table: `osmosis play --daily --name` signs you up once, keeps your API token with
your games, deals you today's deal, and opens your game of it again rather than a second attempt."""

import argparse
import secrets
import stat

import pytest

from server.cli.play_commands import DailyRefused, _todays_game
from server.client import Api
from server.terminal.saved import SavedGames
from server.terminal.seat import Opening

from .pilot import call, run, table, words


def arguments(name=None, variant="peek"):
    return argparse.Namespace(name=name, variant=variant)


def test_the_daily_deal_signs_you_up_once_and_opens_your_game_of_it_again(live_server, tmp_path):
    saved = SavedGames(tmp_path / "games.json")
    api = Api(live_server)
    with pytest.raises(DailyRefused, match="give --name NAME"):
        _todays_game(api, saved, live_server, arguments())
    name = f"term{secrets.token_hex(4)}"
    assert _todays_game(api, saved, live_server, arguments(name)) is None  # not begun: the table deals it
    player = saved.player_on(live_server)
    assert player.name == name and api.bearer == player.token
    assert stat.S_IMODE((tmp_path / "games.json").stat().st_mode) == 0o600
    with pytest.raises(DailyRefused, match=f"you play as {name}"):
        _todays_game(Api(live_server), saved, live_server, arguments("someone-else"))

    app = table(live_server, tmp_path, Opening(new_game={"variant": "peek", "daily": True}), api=api)

    async def scenario(pilot):
        today = call(live_server, "GET", "/daily")[1]["day"]
        assert f"peek | daily {today} |" in words(app)

    run(app, scenario)
    again = Api(live_server)
    game_id = _todays_game(again, saved, live_server, arguments())
    status, game = call(live_server, "GET", f"/games/{game_id}", token=player.token)
    assert status == 200 and game["deal"]["kind"] == "daily" and game["player"]["name"] == name
    assert call(live_server, "GET", f"/games/{game_id}")[0] == 404  # nobody else's to see before the close
    api.close()
    again.close()
