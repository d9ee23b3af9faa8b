"""A day's boards recomputed by a stranger (`osmosis audit --board DAY`): from the public log and the games'
exports the monitor verified, which games must be on each board of the day and what each row must say, then
each served board compared with it.

What the log and the exports cannot show is the time a game took: the boards' last criterion before the game
id. So the order checked is the one of won, cards home, hints and actions; rows equal in all four may come in
any order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from ..log import events as ev

ACTIONS = (ev.CARD_PLAYED, ev.CARD_TO_CELL, ev.CARDS_DEALT, ev.WASTE_REDEALT)
KINDS = ("human", "bot")
PAGE = 100


def daily_result(
    created: Mapping[str, Any], events: Sequence[Mapping[str, Any]], ended: Mapping[str, Any]
) -> dict[str, Any]:
    """A verified daily game as its board must show it: its day and preset from its creation, its player, its
    end and cards home from the log's entry, its hints and actions counted from its export's events."""
    return {
        "day": created["deal"]["day"],
        "variant": created["variant"],
        "name": created["player"]["name"],
        "kind": created["player"]["kind"],
        "won": ended["status"] == "won",
        "score": ended["score"],
        "hints": sum(event["kind"] == ev.HINT_GIVEN for event in events),
        "actions": sum(event["kind"] in ACTIONS for event in events),
    }


def check_day(
    fetch: Callable[[str], bytes], daily: Mapping[str, Mapping[str, Any]], day: str, fail: Callable[[str], None]
) -> int:
    """Compare every board of `day` (each preset, humans and bots) with what the verified games say; `fail` each
    difference. How many rows it checked."""
    checked = 0
    try:
        presets = [deal["variant"] for deal in json.loads(fetch(f"/daily/{day}"))["deals"]]
    except (OSError, ValueError, KeyError, TypeError) as error:
        fail(f"the daily deals of {day} could not be read: {error}")
        return 0
    for variant in presets:
        for kind in KINDS:
            where = f"the {kind}s' board of {day}, {variant}"
            try:
                served = _board(fetch, day, variant, kind)
            except (OSError, ValueError, KeyError) as error:
                fail(f"{where}: could not be read: {error}")
                continue
            expected = {
                game_id: result
                for game_id, result in daily.items()
                if (result["day"], result["variant"], result["kind"]) == (day, variant, kind)
                and result.get("ranks", True)
            }
            checked += _compare(served, expected, where, fail)
    return checked


def _board(fetch: Callable[[str], bytes], day: str, variant: str, kind: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    query: dict[str, Any] = {"variant": variant, "kind": kind, "limit": PAGE}
    while True:
        page = json.loads(fetch(f"/boards/daily/{day}?{urlencode(query)}"))
        rows += page["rows"]
        if page["next_cursor"] is None:
            return rows
        query["cursor"] = page["next_cursor"]


def _compare(
    served: list[dict[str, Any]], expected: Mapping[str, Mapping[str, Any]], where: str, fail: Callable[[str], None]
) -> int:
    shown = [row["game_id"] for row in served]
    for game_id in sorted(set(expected) - set(shown)):
        fail(f"{where}: leaves out game {game_id} ({expected[game_id]['name']}), logged and valid")
    for game_id in sorted(set(shown) - set(expected)):
        fail(
            f"{where}: shows game {game_id}, which the log does not hold as a valid daily game of that board by a "
            "player who joined before its deal opened"
        )
    if len(shown) != len(set(shown)):
        fail(f"{where}: shows a game twice")
    for rank, row in enumerate(served, start=1):
        result = expected.get(row["game_id"])
        if result is None:
            continue
        says = {
            "name": row["player"]["name"],
            "kind": row["player"]["kind"],
            "won": row["won"],
            "score": row["score"],
            "hints": row["hints"],
            "actions": row["actions"],
        }
        differs = sorted(name for name, value in says.items() if result[name] != value)
        if differs:
            fail(f"{where}: game {row['game_id']} is shown with another {', '.join(differs)} than its log and export")
        if row["rank"] != rank:
            fail(f"{where}: game {row['game_id']} is ranked {row['rank']} in place {rank}")
    keys = [_key(expected[row["game_id"]]) for row in served if row["game_id"] in expected]
    if keys != sorted(keys):
        fail(f"{where}: is not in the boards' order (won, cards home, fewest hints, fewest actions)")
    return len(served)


def _key(result: Mapping[str, Any]) -> tuple[bool, int, int, int]:
    return not result["won"], -result["score"], result["hints"], result["actions"]
