"""The boards: a closed day's board of a daily deal, and the all-time board of a preset; humans and bots apart,
in their documented order, a page at a time."""

import base64
import json
import secrets
from datetime import UTC, date, datetime, time, timedelta

import pytest

from server.config import Settings
from server.rules import action_to_dict, from_text
from server.runtime.app import create_app
from server.service.boards import MIN_GAMES
from server.service.players.stats import wilson_interval
from server.service.sources import Sources
from server.solver import solve
from tests.api.helpers import LOG_SIGNER, create, play_first_legal

WON_BY_FIRST_LEGAL = (3, 14, 15, 27, 28)


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def sign_up(client, kind="human"):
    made = client.post("/players", json={"name": f"b{secrets.token_hex(6)}", "kind": kind}).get_json()
    return made["player"]["name"], {"Authorization": f"Bearer {made['token']}"}


@pytest.fixture
def day():
    return date(2180, 1, 1) + timedelta(days=secrets.randbelow(200_000))


@pytest.fixture
def clock(day):
    return Clock(datetime.combine(day, time(8), UTC))


@pytest.fixture
def board_app(store, clock):
    app = create_app(
        Settings(rate_limit="", log_signing_key=LOG_SIGNER.skey, log_interval_seconds=0.0),
        store,
        sources=Sources(clock=clock),
    )
    yield app
    app.extensions["osmosis.hub"].stop()


def order_key(row):
    return (not row["won"], -row["score"], row["hints"], row["actions"], row["seconds"], row["game_id"])


def test_a_days_board_opens_at_the_close_in_its_order_humans_and_bots_apart(board_app, clock, day):
    client = board_app.test_client()
    played = {}
    clock.now -= timedelta(days=1)  # they joined the day before: the day's boards rank them
    joined = [(kind, *sign_up(client, kind)) for kind in ["human"] * 4 + ["bot"] * 2]
    clock.now += timedelta(days=1)
    for n, (kind, name, token) in enumerate(joined):
        game = client.post("/games", json={"variant": "osmosis-draw-one", "daily": True}, headers=token).get_json()
        if n == 1:
            client.post(f"/games/{game['id']}/hint", headers=token)
        if n != 3:  # one game is left on: the close resigns it
            game = play_first_legal(
                client,
                client.get(f"/games/{game['id']}", headers=token).get_json(),
                token,
                resign_after=[60, 60, 5, None, 60, 0][n],
            )
        played[name] = (kind, game["id"])
    early = client.get(f"/boards/daily/{day.isoformat()}?variant=osmosis-draw-one")
    assert early.status_code == 409 and early.get_json()["code"] == "day-not-closed"

    clock.now += timedelta(days=1)
    while board_app.extensions["osmosis.upkeep"].run_once():
        pass
    while board_app.extensions["osmosis.sequencer"].run_once() is not None:
        pass
    humans = client.get(f"/boards/daily/{day.isoformat()}?variant=osmosis-draw-one&limit=100").get_json()
    bots = client.get(f"/boards/daily/{day.isoformat()}?variant=osmosis-draw-one&kind=bot").get_json()

    assert {row["player"]["name"] for row in humans["rows"]} == {n for n, (k, _) in played.items() if k == "human"}
    assert {row["player"]["name"] for row in bots["rows"]} == {n for n, (k, _) in played.items() if k == "bot"}
    for board in (humans, bots):
        assert [row["rank"] for row in board["rows"]] == list(range(1, len(board["rows"]) + 1))
        assert board["rows"] == sorted(board["rows"], key=order_key)
    for row in humans["rows"]:
        game = client.get(row["replay"]).get_json()
        events = game["events"]
        assert row["game_id"] == played[row["player"]["name"]][1] == game["game_id"]
        assert row["hints"] == sum(event["kind"] == "hint_given" for event in events)
        assert row["actions"] == sum(
            event["kind"] in ("card_played", "card_moved_to_cell", "cards_dealt", "waste_redealt") for event in events
        )
        assert row["won"] == (game["status"] == "won")
        logged = client.get(row["transparency"]).get_json()
        assert [leaf["kind"] for leaf in logged["leaves"]] == ["daily_deal_opened", "game_created", "game_ended"]

    first, seen = client.get(f"/boards/daily/{day.isoformat()}?variant=osmosis-draw-one&limit=1").get_json(), []
    page = first
    while True:
        seen += page["rows"]
        if page["next_cursor"] is None:
            break
        page = client.get(
            f"/boards/daily/{day.isoformat()}?variant=osmosis-draw-one&limit=1&cursor={page['next_cursor']}"
        ).get_json()
    assert seen == humans["rows"]


def won_secret_game(client, db, token, variant, undo_first=False):
    """A game of a secret winnable deal, won: the test reads the deal from the database (no player could) and plays
    the solver's winning line through the API; `undo_first`: after a deal taken back."""
    game, _ = create(client, token, variant=variant, winnable=True)
    if undo_first:
        client.post(f"/games/{game['id']}/draw", headers=token)
        undone = client.post(f"/games/{game['id']}/actions", json={"action": {"kind": "undo"}}, headers=token)
        assert undone.status_code == 200, undone.get_json()
    (state,) = db.execute("SELECT state FROM game_secrets WHERE game_id = %s", (game["id"],)).fetchone()
    for action in solve(from_text(state)).witness:
        response = client.post(f"/games/{game['id']}/actions", json={"action": action_to_dict(action)}, headers=token)
        assert response.status_code == 200, response.get_json()
    assert client.get(f"/games/{game['id']}").get_json()["status"] == "won"


def lost_secret_game(client, token, variant):
    game, _ = create(client, token, variant=variant)
    client.post(f"/games/{game['id']}/resign", headers=token)


def test_the_all_time_board_ranks_by_the_lower_bound_of_the_win_rate_with_enough_games(app, client, db):
    variant = "osmosis-draw-one"
    players = {}
    for wins, games, kind in (
        (5, MIN_GAMES, "human"),
        (1, MIN_GAMES + 2, "human"),
        (2, MIN_GAMES - 1, "human"),
        (3, MIN_GAMES, "bot"),
    ):
        name, token = sign_up(client, kind)
        for n in range(games):
            if n < wins:
                won_secret_game(client, db, token, variant)
            else:
                lost_secret_game(client, token, variant)
        players[name] = (wins, games, kind)

    while app.extensions["osmosis.upkeep"].run_once():  # each result verified, and counted
        pass
    humans = client.get(f"/boards/{variant}?limit=100").get_json()
    ranked = [row for row in humans["rows"] if row["player"]["name"] in players]
    expected = sorted(
        (name for name, (w, g, k) in players.items() if k == "human" and g >= MIN_GAMES),
        key=lambda name: -wilson_interval(*players[name][:2])[0],
    )
    assert [row["player"]["name"] for row in ranked] == expected
    for row in ranked:
        wins, games, _ = players[row["player"]["name"]]
        low, high = wilson_interval(wins, games)
        assert (row["games"], row["wins"], row["win_rate_interval"]) == (
            games,
            wins,
            {"low": round(low, 6), "high": round(high, 6)},
        )
    assert humans["rows"] == sorted(humans["rows"], key=lambda r: (-r["win_rate_interval"]["low"], -r["games"]))
    bots = [row["player"]["name"] for row in client.get(f"/boards/{variant}?kind=bot&limit=100").get_json()["rows"]]
    assert next(name for name, (_, _, kind) in players.items() if kind == "bot") in bots
    assert not set(bots) & {name for name, (_, _, kind) in players.items() if kind == "human"}


def test_wins_on_public_deal_numbers_count_on_the_player_s_page_but_not_on_the_boards(app, client):
    """A public deal's winning line is anyone's to look up (any finished game's analysis shows one): replayed 20 times
    as a human it ranked first of all. Such games stay on the player's page, and out of the boards."""
    variant = "osmosis-draw-one"
    name, token = sign_up(client)
    for n in range(MIN_GAMES):
        game, _ = create(client, token, variant=variant, deal_number=WON_BY_FIRST_LEGAL[n % 5])
        assert play_first_legal(client, game, token)["status"] == "won"
    while app.extensions["osmosis.upkeep"].run_once():
        pass

    rows, cursor = [], None
    while True:
        page = client.get(f"/boards/{variant}?limit=100" + (f"&cursor={cursor}" if cursor else "")).get_json()
        rows += page["rows"]
        if not (cursor := page["next_cursor"]):
            break
    assert name not in [row["player"]["name"] for row in rows]
    (stats,) = client.get(f"/players/{name}").get_json()["stats"]
    assert (stats["games"], stats["wins"], stats["ranked"]) == (MIN_GAMES, MIN_GAMES, {"games": 0, "wins": 0})


def test_a_rank_comes_from_the_board_not_from_the_cursor(app, client, db):
    variant = "osmosis-three-passes"
    for _ in range(2):
        _, token = sign_up(client)
        for _ in range(MIN_GAMES):
            lost_secret_game(client, token, variant)
    while app.extensions["osmosis.upkeep"].run_once():
        pass
    first = client.get(f"/boards/{variant}?limit=1").get_json()
    second = client.get(f"/boards/{variant}?limit=1&cursor={first['next_cursor']}").get_json()
    key = json.loads(base64.urlsafe_b64decode(first["next_cursor"] + "=" * (-len(first["next_cursor"]) % 4)))
    forged = base64.urlsafe_b64encode(json.dumps([2305843009213693952, key]).encode()).decode().rstrip("=")
    again = client.get(f"/boards/{variant}?limit=1&cursor={forged}").get_json()

    assert [row["rank"] for row in first["rows"] + second["rows"]] == [1, 2]
    assert again["rows"] == second["rows"]


@pytest.mark.parametrize(
    "cursor",
    [
        "bm9wZQ",
        "",
        base64.urlsafe_b64encode(json.dumps([1, ["x", 1, "00000000-0000-4000-8000-000000000000"]]).encode()).decode(),
        base64.urlsafe_b64encode(
            json.dumps([1, [0.5, 2**80, "00000000-0000-4000-8000-000000000000"]]).encode()
        ).decode(),
        base64.urlsafe_b64encode(json.dumps([-1, [0.5, 2, "00000000-0000-4000-8000-000000000000"]]).encode()).decode(),
    ],
)
def test_a_forged_board_cursor_is_422(client, cursor):
    response = client.get(f"/boards/osmosis?cursor={cursor}")
    assert response.status_code == 422 and response.get_json()["code"] in ("invalid-cursor", "validation-failed")


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/boards/klondike", 404),
        ("/boards/daily/2026-02-30", 422),
        ("/boards/daily/2999-01-01", 409),
        ("/boards/daily/9999-12-31", 409),
        ("/daily/9999-12-31", 404),
        ("/boards/daily/0001-01-01", 200),
        ("/boards/osmosis?kind=alien", 422),
        ("/boards/daily/2020-01-01?variant=klondike", 422),
    ],
)
def test_a_board_of_any_day_or_none_is_answered_without_a_5xx(client, path, status):
    response = client.get(path)
    assert response.status_code == status
    assert response.mimetype == ("application/json" if status == 200 else "application/problem+json")


def test_games_with_an_undo_count_on_the_player_s_page_but_never_on_the_boards(app, client, db):
    variant = "osmosis-draw-one"
    name, token = sign_up(client)
    for _ in range(MIN_GAMES):
        won_secret_game(client, db, token, variant, undo_first=True)
    while app.extensions["osmosis.upkeep"].run_once():
        pass

    rows = client.get(f"/boards/{variant}?limit=100").get_json()["rows"]
    assert name not in [row["player"]["name"] for row in rows]
    (stats,) = client.get(f"/players/{name}").get_json()["stats"]
    assert (stats["games"], stats["wins"], stats["undone"]) == (MIN_GAMES, MIN_GAMES, MIN_GAMES)
    assert stats["ranked"] == {"games": 0, "wins": 0} and stats["best_win"] is None
