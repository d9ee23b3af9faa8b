"""Acting on a game: any legal action as the game lists it, and the older move, draw and resign routes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple
from uuid import UUID

from flask import Response
from flask.views import MethodView
from marshmallow import Schema

from ...game import commands
from ...game.commands import Act, Credential
from ...rules import action_from_dict
from .. import examples
from ..callers import credential
from ..common import use_cases
from ..contract import ACTION_ERRORS, answers
from ..examples import Later
from .action_schemas import ActionRequestSchema, ActionSubmissionSchema, MoveSchema
from .blueprint import blp
from .writes import ACTION_CODES, Written, action_response, write_doc, written, written_action


class Actions(MethodView):
    @write_doc("takeAction")
    @blp.arguments(
        ActionSubmissionSchema(),
        examples={
            "move": {"value": {"action": Later(examples.move_request), "expected_version": 3}},
            "deal": {"value": {"action": {"kind": "deal"}}},
            "resign": {"value": {"action": {"kind": "resign"}}},
            "undo": {"value": {"action": {"kind": "undo"}, "expected_version": 4}},
        },
    )
    @written_action(Later(examples.moved))
    @answers(*ACTION_ERRORS, only=ACTION_CODES)
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Take an action: one of the game's legal_actions, as it lists it, or resign

        The body's `action` is exactly one of the objects in the game's `legal_actions` (a move names its
        card, where it is and where it goes; a deal or a redeal only its kind), `{"kind": "resign"}`, or
        `{"kind": "undo"}`, which takes back the latest action not taken back yet (appending `action_undone`;
        refused at the deal, once the game is over, and in a daily deal, whose actions are final).
        A bot reads the game, picks a legal action and posts it unchanged. With `expected_version` (or
        If-Match) the action lands only on that version of the game. The answer is the game after the action
        and the events it appended: a winning move appends `card_played`, `game_won` and `seeds_revealed`.
        """
        caller, request = credential(), written(args)
        return action_response(use_cases().acting.handle(taken(args, game_id, caller, request)))


class Moves(MethodView):
    @write_doc("playMove")
    @blp.arguments(MoveSchema(), example={"card": "7S"})
    @written_action(Later(examples.moved))
    @answers(*ACTION_ERRORS, only=ACTION_CODES)
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Play a card to its foundation, or to the free cell with "to": "cell\"

        The server finds where the card is and which foundation takes it; `from` and `to`, when given, are
        checked (a mismatch is a 409 naming the rule). `takeAction` does the same with a legal action as the
        game lists it.
        """
        caller, request = credential(), written(args)
        return action_response(use_cases().acting.handle(moved(args, game_id, caller, request)))


class Draw(MethodView):
    @write_doc("drawCards")
    @blp.arguments(ActionRequestSchema(), required=False, example={"expected_version": 3})
    @written_action(Later(examples.dealt))
    @answers(*ACTION_ERRORS, only=ACTION_CODES)
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Deal from the stock to the waste, or redeal the waste when the stock is empty

        The action `deal` (or `redeal` when the stock is empty and a pass is left), whichever the position
        allows: the event is `cards_dealt` or `waste_redealt`.
        """
        caller, request = credential(), written(args)
        return action_response(use_cases().acting.handle(drawn(args, game_id, caller, request)))


class Resignation(MethodView):
    @write_doc("resignGame")
    @blp.arguments(ActionRequestSchema(), required=False, example={})
    @written_action(Later(examples.resigned))
    @answers(*ACTION_ERRORS, only=ACTION_CODES)
    def post(self, args: dict[str, Any], game_id: UUID) -> Response:
        """Give up the game: it ends as resigned and its seeds are revealed

        Appends `game_resigned` and `seeds_revealed`; the game body then shows both seeds in `deal`.
        """
        caller, request = credential(), written(args)
        return action_response(use_cases().acting.handle(resigned(args, game_id, caller, request)))


ActionCommand = Act | commands.Draw | commands.Resign | commands.Undo


def taken(args: dict[str, Any], game_id: UUID, caller: Credential, request: Written) -> ActionCommand:
    if args["action"]["kind"] == "undo":
        return commands.Undo(game_id, caller, **request)
    return Act(game_id, caller, action_from_dict(args["action"]), **request)


def moved(args: dict[str, Any], game_id: UUID, caller: Credential, request: Written) -> ActionCommand:
    return Act(game_id, caller, action_from_dict({**args, "kind": "move"}), **request)


def drawn(args: dict[str, Any], game_id: UUID, caller: Credential, request: Written) -> ActionCommand:
    return commands.Draw(game_id, caller, **request)


def resigned(args: dict[str, Any], game_id: UUID, caller: Credential, request: Written) -> ActionCommand:
    return commands.Resign(game_id, caller, **request)


class ActionRoute(NamedTuple):
    """What the short path (api/action_path.py) needs of an action route: its endpoint, the schema of its body,
    and the command its arguments make, as its view makes it."""

    endpoint: str
    schema: Schema
    command: Callable[[dict[str, Any], UUID, Credential, Written], ActionCommand]


ACTION_ROUTES = {
    "actions": ActionRoute("games.Actions", ActionSubmissionSchema(), taken),
    "moves": ActionRoute("games.Moves", MoveSchema(), moved),
    "draw": ActionRoute("games.Draw", ActionRequestSchema(), drawn),
    "resign": ActionRoute("games.Resignation", ActionRequestSchema(), resigned),
}
"""The routes under /games/{game_id}/, by their last segment (api/routes.py)."""
