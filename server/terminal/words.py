"""What the table says in words: a game's headline, each event of the log (for replays and followers), a
hint, and the end of a game with the solver's verdict. Read only from what the API serves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ENDINGS = {"won": "Won: all 52 cards are home.", "lost": "Lost", "resigned": "Resigned"}


def title(game: Mapping[str, Any]) -> str:
    """A game as a player names it, as the browser's table does: "Osmosis draw one, deal 5"."""
    variant = game["variant"]
    preset = variant[0].upper() + variant[1:].replace("-", " ") if variant else "Custom rules"
    deal = game["deal"]
    named = {"number": f"deal {deal.get('deal_number')}", "daily": f"the daily deal of {deal.get('day')}"}
    return f"{preset}, {named.get(deal.get('kind'), 'a secret deal')}"


def headline(game: Mapping[str, Any]) -> str:
    state = game["state"]
    deal = game["deal"]
    dealt = (
        f"deal {deal['deal_number']}"
        if deal.get("kind") == "number"
        else f"daily {deal['day']}"
        if deal.get("kind") == "daily"
        else "a secret deal"
    )
    if deal.get("winnable"):
        dealt += ", winnable"
    passes = "unlimited passes" if state["passes_left"] is None else f"{state['passes_left']} redeals left"
    home = sum(len(foundation["cards"]) for foundation in state["foundations"])
    return (
        f"{game['variant'] or 'custom rules'} | {dealt} | base {_rank(state['base_rank'])} | "
        f"pass {state['pass_number']}, {passes} | {home}/52 home"
    )


def action_text(action: Mapping[str, Any]) -> str:
    if action["kind"] == "move":
        return f"{action['card']} from {action['from']} to {action['to']}"
    names = {"deal": "deal from the stock", "redeal": "turn the waste over and redeal", "resign": "resign"}
    return names.get(str(action["kind"]), str(action["kind"]))


def event_text(event: Mapping[str, Any]) -> str:
    data = event["data"]
    match event["kind"]:
        case "game_created":
            return "the game begins"
        case "card_played" | "card_moved_to_cell":
            uncovered = f", uncovering {data['uncovered']}" if data.get("uncovered") else ""
            return f"{data['card']} from {data['from']} to {data['to']}{uncovered}"
        case "cards_dealt":
            return "dealt " + " ".join(data["cards"])
        case "waste_redealt":
            return "the waste turned over for the next pass"
        case "hint_given":
            return f"a hint: {action_text(data['action'])}"
        case "action_undone":
            return f"took back {action_text(data['action'])}"
        case "game_won":
            return "won"
        case "game_lost":
            return f"lost: {data['reason']}"
        case "game_resigned":
            return "resigned"
        case "game_timed_out":
            return f"out of time, with {data['score']} of 52 home"
        case "seeds_revealed":
            return "the seeds revealed: the deal can be checked"
    return str(event["kind"]).replace("_", " ")


def hint_text(hint: Mapping[str, Any]) -> str:
    best = action_text(hint["action"])
    if hint["basis"] == "exact":
        verdict = "it wins" if hint.get("verdict") == "winnable" else "nothing wins from here"
        return f"Hint: {best} (exact: {verdict})"
    top = hint["estimates"][0] if hint["estimates"] else None
    odds = f", won {top['wins']} of {top['samples']} guesses at the {hint['unseen']} unseen cards" if top else ""
    return f"Hint: {best}{odds}"


def ending(game: Mapping[str, Any]) -> str:
    reason = game["state"]["end_reason"]
    if game["status"] == "won":
        return ENDINGS["won"]
    if game["status"] == "lost":
        return f"{ENDINGS['lost']}: {reason}."
    return f"{ENDINGS.get(game['status'], game['status'])}."


COUNTED_ACTIONS = frozenset(("card_played", "card_moved_to_cell", "cards_dealt", "waste_redealt"))
"""Actions as the server counts them everywhere (boards, a player's page: service/players/stats.py) and the browser's
end panel does: moves, deals and redeals; not a resignation or a hint."""


def figures(game: Mapping[str, Any], actions: int | None) -> str:
    """How a game ended in numbers: cards home, actions (once counted from its log), hints."""
    counted = "" if actions is None else f", {actions} action{'' if actions == 1 else 's'}"
    return f"{game['score']} of 52 cards home{counted}; hints asked: {game['hints']}."


def verdict(analysis: Mapping[str, Any]) -> str:
    """The solver's verdict once, in its own words (its summary already says whether the deal was winnable)."""
    return f"The solver: {analysis['summary']}."


def _rank(rank: str | None) -> str:
    return "-" if rank is None else ("10" if rank == "T" else rank)
