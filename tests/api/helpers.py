"""What the API tests do again and again: create a game, act on it, play it; race requests; forge exports."""

import json
import threading
from pathlib import Path

from server.config import Settings
from server.log.events import chain_hash
from server.runtime.app import create_app
from server.service.sources import Sources
from server.transparency.notes import generate_signer


def create(client, headers=None, **body):
    """A new game and the Authorization header of its player."""
    response = client.post("/games", json=body, headers=headers or {})
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    return game, {"Authorization": f"Bearer {game['player_token']}"}


def act(client, game, token, action):
    """Take a legal action as the game body lists it; the game after it."""
    if action["kind"] == "move":
        response = client.post(
            f"/games/{game['id']}/moves", json={"card": action["card"], "to": action["to"]}, headers=token
        )
    else:
        response = client.post(f"/games/{game['id']}/draw", headers=token)
    assert response.status_code == 200, response.get_json()
    return response.get_json()["game"]


def play(client, game, token, rng, steps, seen=None):
    """Up to `steps` random legal actions; `seen` collects what the live game showed at each version."""
    for _ in range(steps):
        if game["status"] != "playing":
            break
        game = act(client, game, token, rng.choice(game["legal_actions"]))
        if seen is not None:
            seen[game["version"]] = (game["state"], game["legal_actions"])
    return game


def play_first_legal(client, game, token, resign_after=None):
    """The first legal move, else deal or redeal (the engine's play_first_legal, through the API), to the end
    of the game; resigns after `resign_after` actions if given."""
    actions = 0
    while game["status"] == "playing":
        if actions == resign_after:
            return client.post(f"/games/{game['id']}/resign", headers=token).get_json()["game"]
        moves = [action for action in game["legal_actions"] if action["kind"] == "move"]
        game = act(client, game, token, moves[0] if moves else {"kind": "deal"})
        actions += 1
    return game


def run_together(count, work):
    """`work(i)` for i in range(count), each in its own thread, all released at once; their results."""
    barrier = threading.Barrier(count)
    results = [None] * count

    def run(i):
        barrier.wait()
        results[i] = work(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def rehash(document, start=1):
    """What a forger does after an edit to an export: recompute every hash from `start` on, and the head."""
    events = document["events"]
    previous = document["commitment"] if start == 1 else events[start - 2]["hash"]
    for event in events[start - 1 :]:
        event["hash"] = chain_hash(previous, event["seq"], event["kind"], event["data"])
        previous = event["hash"]
    document["head_hash"] = previous
    return document


def sse_messages(chunks):
    """The messages of a server-sent event stream, from its chunks (bytes or text), as dicts of their fields
    ("event", "id", "data", "retry"); comments are left out, and so are messages with no field."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            message, buffer = buffer.split("\n\n", 1)
            fields = dict(line.split(": ", 1) for line in message.splitlines() if not line.startswith(":"))
            if fields:
                yield fields


OPENAPI = Path(__file__).parents[2] / "openapi" / "openapi.json"
METHODS = {"get", "post", "put", "patch", "delete"}


def committed_document():
    return json.loads(OPENAPI.read_text())


def operations(document):
    """(path, method, operation) of every operation of an OpenAPI document."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def resolve(document, node):
    """The node a $ref names (after every $ref in a row), or the node itself."""
    while "$ref" in node:
        reference, node = node["$ref"], document
        for name in reference.split("/")[1:]:
            node = node[name]
    return node


def crafted_export(rules, winnable_candidate=None, server_seed=bytes(range(32)), client_seed=""):
    """An export made up from scratch, consistent in every field, as anyone with seeds of their own can make:
    a random deal of `rules` (that candidate of the seeds, claimed winnable, when given), resigned at once."""
    import uuid

    from server.log.events import chain, events_for, game_created, seeds_revealed
    from server.log.replay import export
    from server.rules import Resign, apply, commitment
    from server.solver import SOLVER_VERSION
    from server.solver.winnable import WINNABLE_BUDGET, candidate_opening

    deal = {"kind": "random"}
    if winnable_candidate is not None:
        deal["winnable"] = {"candidate": winnable_candidate, "solver": SOLVER_VERSION, "budget": WINNABLE_BUDGET}
    start = candidate_opening(rules, server_seed, client_seed, winnable_candidate or 0)
    game_id, commit = uuid.uuid4(), commitment(server_seed)
    resigned = apply(start, Resign())
    events = chain(
        commit,
        1,
        [
            game_created(game_id, rules, deal, commit, start),
            *events_for(start, Resign(), resigned),
            seeds_revealed(server_seed, client_seed),
        ],
    )
    revealed = {**deal, "server_seed": server_seed.hex(), "client_seed": client_seed}
    return export(
        {
            "id": str(game_id),
            "variant": rules.preset_name,
            "rules": rules.to_dict(),
            "deal": revealed,
            "commitment": commit,
            "status": "resigned",
            "head_hash": events[-1].hash,
        },
        events,
    )


def body_of(answered):
    """What the API answers for a use case's outcome (its reply): the game made, with its token,
    or the game after an action with the events it appended."""
    body = json.loads(answered.reply.text)
    return body if answered.player_token is None else {**body, "player_token": answered.player_token}


LOG_SIGNER = generate_signer("osmosis.test/api-log")
"""The public log's key in every test app on the session's database: its checkpoints are all signed by one key,
as one log's are (another key finds them not its own, and does not sequence)."""


class Clock:
    """A clock the test moves: `clock.now += timedelta(...)`."""

    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def app_on_a_clock(store, clock):
    """The app on `store`, its sources' time `clock`, its public log signed with LOG_SIGNER and sequenced on demand;
    yields it, and stops its live hub after."""
    app = create_app(
        Settings(rate_limit="", log_signing_key=LOG_SIGNER.skey, log_interval_seconds=0.0),
        store,
        sources=Sources(clock=clock),
    )
    app.config["TESTING"] = True
    yield app
    app.extensions["osmosis.hub"].stop()


def reads(game_id):
    """Every read of a game: what a game hidden from the reader must answer as a game that does not exist."""
    return [
        f"/games/{game_id}",
        f"/games/{game_id}/events",
        f"/games/{game_id}/states/1",
        f"/games/{game_id}/replay",
        f"/games/{game_id}/verification",
        f"/games/{game_id}/events/stream",
        f"/games/{game_id}/analysis",
        f"/games/{game_id}/transparency",
        f"/events/stream?game_id={game_id}",
    ]


def answer(client, path, headers=None):
    """(status, mimetype, body) of a GET; a stream's body left unread."""
    response = client.get(path, headers=headers or {}, buffered=False)
    try:
        body = response.get_data() if response.mimetype != "text/event-stream" else b""
    finally:
        response.close()
    return response.status_code, response.mimetype, body
