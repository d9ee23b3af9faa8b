"""A competition watched live: what a spectator is told between two looks at the standings (the stream of it:
tests/api/test_competitions.py)."""

from server.service.competitions.watching import changes


def look(status="running", closed_at=None, root=None, rows=()):
    return {
        "competition": {"status": status, "closed_at": closed_at, "standings_root": root},
        "standings": [
            {
                "rank": n,
                "player": {"name": name, "kind": "bot"},
                "status": state,
                "score": score,
                "elapsed_ms": 0,
                "actions": actions,
            }
            for n, (name, state, score, actions) in enumerate(rows, start=1)
        ],
    }


def test_each_change_of_an_entrant_is_told_once_by_its_kind():
    before = look(
        rows=[("ann", "entered", 0, 0), ("bo", "playing", 3, 10), ("cy", "playing", 5, 20), ("di", "entered", 0, 0)]
    )
    after = look(
        rows=[("ann", "playing", 1, 0), ("bo", "playing", 4, 11), ("cy", "won", 52, 90), ("ed", "entered", 0, 0)]
    )

    told = [(kind, row["player"]["name"]) for kind, row in changes(before, after)]

    assert told == [("started", "ann"), ("progress", "bo"), ("finished", "cy"), ("entered", "ed"), ("withdrawn", "di")]
    assert changes(after, after) == []


def test_a_timeout_the_close_and_an_amendment_are_told():
    playing = look(rows=[("bo", "playing", 3, 10)])
    closed = look("closed", "2031-01-01T00:10:00+00:00", "a" * 64, rows=[("bo", "timed_out", 3, 10)])
    amended = look("closed", "2031-01-01T00:10:00+00:00", "b" * 64, rows=[("bo", "timed_out", 3, 10)])

    assert [kind for kind, _ in changes(playing, closed)] == ["timed_out", "closed"]
    assert [kind for kind, _ in changes(closed, amended)] == ["amended"]
