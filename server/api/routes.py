"""Every route of the API, in one list, in the order the OpenAPI document shows them.

The views are defined in the modules of their resources; this list alone binds them to their paths, so that
no module is imported for what importing it does.
"""

from __future__ import annotations

import functools

from flask.views import MethodView
from flask_smorest import Blueprint

from ..rules import PRESETS
from . import meta
from .competitions import views as competitions
from .deals import views as deals
from .games import actions, analysis, hints
from .games import blueprint as games_blueprint
from .games import views as games
from .players import accounts as players
from .players import boards, daily
from .public_log import views as public_log
from .streaming import feeds

ROUTES: tuple[tuple[Blueprint, tuple[tuple[str, type[MethodView]], ...]], ...] = (
    (meta.variants_blp, (("/variants", meta.Variants),)),
    (meta.health_blp, (("/healthz", meta.Health), ("/readyz", meta.Readiness))),
    (
        games_blueprint.blp,
        (
            ("", games.Games),
            ("/<uuid:game_id>", games.Game),
            ("/<uuid:game_id>/events", games.Events),
            ("/<uuid:game_id>/states/<int:seq>", games.StateAt),
            ("/<uuid:game_id>/replay", games.Replay),
            ("/<uuid:game_id>/verification", games.Verification),
            ("/<uuid:game_id>/events/stream", games.EventStream),
            # Acting on a game: in the games blueprint, whose tag generated SDKs have always grouped them by.
            ("/<uuid:game_id>/actions", actions.Actions),
            ("/<uuid:game_id>/moves", actions.Moves),
            ("/<uuid:game_id>/draw", actions.Draw),
            ("/<uuid:game_id>/resign", actions.Resignation),
            ("/<uuid:game_id>/hint", hints.Hint),
            ("/<uuid:game_id>/analysis", analysis.Analysis),
            ("/<uuid:game_id>/transparency", public_log.GameTransparency),
        ),
    ),
    (deals.deals_blp, (("", deals.SealedDeals), ("/<uuid:deal_id>", deals.SealedDealResource))),
    (daily.blp, (("", daily.Today), ("/<string(maxlength=64):day>", daily.Day))),
    (
        boards.blp,
        (
            ("/daily/<string(maxlength=64):day>", boards.DailyBoard),
            (f"/<any({', '.join(map(repr, PRESETS))}):variant>", boards.PresetBoard),
        ),
    ),
    (
        players.blp,
        (
            ("", players.Players),
            ("/me", players.Me),
            ("/me/tokens", players.ApiTokens),
            ("/me/tokens/<uuid:token_id>", players.ApiToken),
            ("/<string(maxlength=100):name>", players.Player),
            ("/<string(maxlength=100):name>/games", players.PlayerGames),
        ),
    ),
    (deals.replays_blp, (("/verification", deals.ReplayVerification),)),
    (feeds.blp, (("/stream", feeds.Feed),)),
    (
        competitions.blp,
        (
            ("", competitions.Competitions),
            ("/<uuid:competition_id>", competitions.Competition),
            ("/<uuid:competition_id>/entries", competitions.Entries),
            ("/<uuid:competition_id>/entries/me", competitions.MyEntry),
            ("/<uuid:competition_id>/game", competitions.EntrantGame),
            ("/<uuid:competition_id>/standings", competitions.Standings),
            ("/<uuid:competition_id>/stream", competitions.Stream),
            ("/<uuid:competition_id>/results", competitions.Results),
            ("/<uuid:competition_id>/amendments", competitions.Amendments),
        ),
    ),
    (
        public_log.blp,
        (
            ("/checkpoint", public_log.LogCheckpoint),
            ("/key", public_log.LogKey),
            ("/tile/<path:tile_path>", public_log.LogTile),
            ("/consistency", public_log.LogConsistency),
            ("/retirements", public_log.LogRetirements),
        ),
    ),
)


@functools.cache
def blueprints() -> tuple[Blueprint, ...]:
    """The API's blueprints with their routes, in order: routed once, however many apps register them."""
    for blueprint, routes in ROUTES:
        for rule, view in routes:
            blueprint.route(rule)(view)
    return tuple(blueprint for blueprint, _ in ROUTES)
