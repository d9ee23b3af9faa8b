"""Players' statistics: counted from their games as each is revealed, made again from the logs alone by
`osmosis rebuild-stats` to the same rows; a player's games, a page at a time."""

import re
import secrets
from datetime import UTC, date, datetime, time, timedelta

import pytest

from server.cli.main import main
from server.config import Settings
from server.game.results import COUNTED_ACTION_EVENTS
from server.runtime.app import create_app
from server.service.players.stats import wilson_interval
from server.service.sources import Sources
from tests.api.helpers import create, play_first_legal

WON_BY_FIRST_LEGAL = (3, 14, 15)
"""Deals of osmosis-draw-one that the first legal action at every step wins."""


def sign_up(client, kind="human"):
    made = client.post("/players", json={"name": f"s{secrets.token_hex(6)}", "kind": kind}).get_json()
    return made["player"]["name"], {"Authorization": f"Bearer {made['token']}"}


def actions_in_log(client, game_id):
    events = client.get(f"/games/{game_id}/events?limit=1000").get_json()["events"]
    return sum(event["kind"] in COUNTED_ACTION_EVENTS for event in events)


def projection(db):
    results = db.execute("SELECT * FROM player_results ORDER BY game_id").fetchall()
    sums = db.execute("SELECT * FROM player_stats ORDER BY player_id, variant").fetchall()
    return results, sums


def rebuild(monkeypatch, database_url, capsys):
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert main(["rebuild-stats"]) == 0
    assert re.search(r"rebuilt from the logs of \d+ games", capsys.readouterr().out)


def verify_results(app):
    """The upkeep's turns until nothing waits: each finished game's result verified, and counted if valid."""
    while app.extensions["osmosis.upkeep"].run_once():
        pass


def test_a_players_page_counts_their_finished_games_as_the_rebuild_from_the_logs_does(
    app, client, db, database_url, monkeypatch, capsys
):
    name, token = sign_up(client)
    won = []
    for number in WON_BY_FIRST_LEGAL:
        game, _ = create(client, token, variant="osmosis-draw-one", deal_number=number)
        won.append(play_first_legal(client, game, token)["id"])
    hinted, _ = create(client, token, variant="osmosis-draw-one", deal_number=WON_BY_FIRST_LEGAL[0])
    client.post(f"/games/{hinted['id']}/hint", headers=token)
    play_first_legal(client, client.get(f"/games/{hinted['id']}").get_json(), token)
    lost, _ = create(client, token, variant="osmosis-draw-one", deal_number=1)
    client.post(f"/games/{lost['id']}/resign", headers=token)
    create(client, token, variant="osmosis-draw-one", deal_number=2)  # still on: not counted
    create(client, token, variant="peek", deal_number=2)
    custom, _ = create(client, token, rules={"draw": 1, "max_passes": 7})  # no preset: not counted
    client.post(f"/games/{custom['id']}/resign", headers=token)

    assert client.get(f"/players/{name}").get_json()["stats"] == []  # counted once verified
    verify_results(app)
    page = client.get(f"/players/{name.upper()}").get_json()
    (stats,) = page["stats"]
    best = min((actions_in_log(client, game_id), game_id) for game_id in won)
    low, high = wilson_interval(4, 5)
    assert (stats["variant"], stats["games"], stats["wins"]) == ("osmosis-draw-one", 5, 4)
    assert stats["win_rate"] == 0.8
    assert stats["win_rate_interval"] == {"low": round(low, 6), "high": round(high, 6)}
    assert stats["best_win"] == {"game_id": best[1], "actions": best[0]}
    assert stats["daily_streak"] == {"current": 0, "longest": 0}

    before = projection(db)
    rebuild(monkeypatch, database_url, capsys)
    assert projection(db) == before
    assert client.get(f"/players/{name}").get_json() == page


def test_a_game_won_with_an_undo_counts_apart_is_no_best_win_and_the_rebuild_agrees(
    app, client, db, database_url, monkeypatch, capsys
):
    name, token = sign_up(client)
    clean, _ = create(client, token, variant="osmosis-draw-one", deal_number=WON_BY_FIRST_LEGAL[1])
    clean = play_first_legal(client, clean, token)
    taken_back, _ = create(client, token, variant="osmosis-draw-one", deal_number=WON_BY_FIRST_LEGAL[0])
    drawn = client.post(f"/games/{taken_back['id']}/draw", headers=token).get_json()["game"]
    back = client.post(f"/games/{drawn['id']}/actions", json={"action": {"kind": "undo"}}, headers=token)
    assert back.status_code == 200, back.get_json()
    won = play_first_legal(client, back.get_json()["game"], token)
    assert (won["status"], won["undos"], clean["status"]) == ("won", 1, "won")
    assert actions_in_log(client, won["id"]) < actions_in_log(client, clean["id"])  # fewer, and still not the best

    verify_results(app)
    (stats,) = client.get(f"/players/{name}").get_json()["stats"]
    assert (stats["games"], stats["wins"], stats["undone"]) == (2, 2, 1)
    assert stats["best_win"]["game_id"] == clean["id"]

    before = projection(db)
    rebuild(monkeypatch, database_url, capsys)
    assert projection(db) == before


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def test_daily_streaks_count_consecutive_days_and_the_rebuild_agrees(store, db, database_url, monkeypatch, capsys):
    start = date(2150, 1, 1) + timedelta(days=secrets.randbelow(200_000))
    clock = Clock(datetime.combine(start, time(12), UTC))
    app = create_app(Settings(rate_limit=""), store, sources=Sources(clock=clock))
    client = app.test_client()
    name, token = sign_up(client)
    try:
        for counted, offset in enumerate((0, 1, 2, 4, 5)):
            clock.now = datetime.combine(start + timedelta(days=offset), time(12), UTC)
            game = client.post("/games", json={"variant": "peek", "daily": True}, headers=token).get_json()
            if offset != 5:  # the last is left on: the close ends it, and it counts all the same
                client.post(f"/games/{game['id']}/resign", headers=token)
            # A daily game counts when its day closes: until then only the days before.
            games = [stats["games"] for stats in client.get(f"/players/{name}").get_json()["stats"]]
            assert games == ([counted] if counted else [])
            clock.now += timedelta(days=1)
            while app.extensions["osmosis.upkeep"].run_once():
                pass

        (stats,) = client.get(f"/players/{name}").get_json()["stats"]
        assert (stats["games"], stats["daily_streak"]) == (5, {"current": 2, "longest": 3})
        clock.now += timedelta(days=2)
        assert client.get(f"/players/{name}").get_json()["stats"][0]["daily_streak"] == {"current": 0, "longest": 3}

        before = projection(db)
        rebuild(monkeypatch, database_url, capsys)
        assert projection(db) == before
    finally:
        app.extensions["osmosis.hub"].stop()


def test_a_players_games_come_a_page_at_a_time_by_status_and_variant(client):
    name, token = sign_up(client, "bot")
    made = [create(client, token, variant="peek" if n % 2 else "osmosis", deal_number=n)[0]["id"] for n in range(5)]
    client.post(f"/games/{made[0]}/resign", headers=token)
    create(client, deal_number=9)  # nobody's

    seen, path = [], f"/players/{name}/games?limit=2"
    while path:
        response = client.get(path)
        assert response.status_code == 200
        seen += [game["id"] for game in response.get_json()["games"]]
        path = response.get_json()["next"]
    assert seen == made[::-1]
    peek = client.get(f"/players/{name}/games?variant=peek").get_json()["games"]
    assert [game["id"] for game in peek] == [made[3], made[1]]
    assert [g["id"] for g in client.get(f"/players/{name}/games?status=resigned").get_json()["games"]] == [made[0]]
    assert all(game["player"]["name"] == name for game in peek)


@pytest.mark.parametrize("name", ["nobody-here", "ab", "a" * 100])
def test_the_page_of_a_player_who_does_not_exist_is_404(client, name):
    for path in (f"/players/{name}", f"/players/{name}/games"):
        response = client.get(path)
        assert response.status_code == 404 and response.get_json()["code"] == "player-not-found"


def test_a_game_whose_log_was_tampered_with_does_not_count(app, client, attacker, db):
    name, token = sign_up(client)
    game, _ = create(client, token, variant="osmosis-draw-one", deal_number=WON_BY_FIRST_LEGAL[0])
    assert play_first_legal(client, game, token)["status"] == "won"
    (seq,) = attacker.execute(
        "SELECT min(seq) FROM game_events WHERE game_id = %s AND kind = 'cards_dealt'", (game["id"],)
    ).fetchone()
    attacker.execute(
        "UPDATE game_events SET data = jsonb_set(data, '{cards}', '[\"AS\"]') WHERE game_id = %s AND seq = %s",
        (game["id"], seq),
    )

    verify_results(app)
    assert client.get(f"/players/{name}").get_json()["stats"] == []
    assert db.execute("SELECT won, verified FROM player_results WHERE game_id = %s", (game["id"],)).fetchone() == (
        True,
        False,
    )


def test_a_game_left_without_an_action_is_ended_by_the_upkeep_and_counts_as_abandoned(
    store, db, database_url, monkeypatch, capsys
):
    """Under unlimited passes a game ends only when won or resigned: a player could leave every losing game open and
    never lose. Left ABANDONED_AFTER without an action, it is ended as resigned and counted (the rebuild agrees)."""
    from server.service.players.stats import ABANDONED_AFTER

    clock = Clock(datetime(2160, 3, 1, 12, tzinfo=UTC) + timedelta(days=secrets.randbelow(100_000)))
    app = create_app(Settings(rate_limit=""), store, sources=Sources(clock=clock))
    client = app.test_client()
    name, token = sign_up(client)
    try:
        left, _ = create(client, token, variant="osmosis")
        client.post(f"/games/{left['id']}/draw", headers=token)
        played, _ = create(client, token, variant="osmosis")
        anonymous, _ = create(client, variant="osmosis")
        clock.now += ABANDONED_AFTER - timedelta(minutes=1)
        client.post(f"/games/{played['id']}/draw", headers=token)  # played on: not left
        clock.now += timedelta(minutes=2)
        while app.extensions["osmosis.upkeep"].run_once():
            pass

        ended = client.get(f"/games/{left['id']}").get_json()
        assert ended["status"] == "resigned" and "server_seed" in ended["deal"]
        assert client.get(f"/games/{left['id']}/verification").get_json()["valid"]
        assert client.get(f"/games/{played['id']}").get_json()["status"] == "playing"
        assert client.get(f"/games/{anonymous['id']}").get_json()["status"] == "playing"
        (stats,) = client.get(f"/players/{name}").get_json()["stats"]
        assert (stats["games"], stats["wins"], stats["abandoned"]) == (1, 0, 1)

        before = projection(db)
        rebuild(monkeypatch, database_url, capsys)
        assert projection(db) == before
    finally:
        app.extensions["osmosis.hub"].stop()
