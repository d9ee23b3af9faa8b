"""The solver's analysis of finished games, as the API serves it: computed once, then read back.

An analysis is derived data: it follows from the game's log and seeds, is kept by solver version and
budget, and could be deleted and rebuilt at any time. Before the game is over there is none, since it
would tell the player about cards still hidden.
"""

from __future__ import annotations

from collections.abc import Iterator
from uuid import UUID

from ...game.document import to_json
from ...log import events as ev
from ...log.deal_record import game_opening
from ...rules import GameState, Rules, Status
from ...solver import SOLVER_VERSION
from ...solver.analysis import ANALYSIS_BUDGET, Step, analyse
from ..errors import CompetitionNotClosed, DayNotClosed, GameNotOver
from ..ports import GameReads, KeptAnalyses, SolverTime


class Analyses:
    def __init__(self, games: GameReads, kept: KeptAnalyses, solver_time: SolverTime) -> None:
        """`games`: where the finished games are read (a read store may serve them); `kept`: the analyses kept."""
        self._games = games
        self._kept = kept
        self._solver_time = solver_time

    def analysis(self, game_id: UUID) -> str:
        """The analysis of a finished game as JSON text; raises GameNotFound, GameNotOver."""
        # The kept analysis first: only a finished game has one, so a second read is this one query.
        stored = self._kept.load_analysis(game_id, SOLVER_VERSION, ANALYSIS_BUDGET)
        if stored is not None:
            return stored
        game, secret = self._games.load_for_action(game_id)
        if game.status == Status.PLAYING:
            raise GameNotOver(f"game {game_id} is still being played: it is analysed once it is over")
        if game.competition is not None and "server_seed" not in game.deal:
            raise CompetitionNotClosed(
                f"game {game_id} is a competition's: it is analysed once the competition closes, at "
                f"{game.competition.closes_at.isoformat()}, since the analysis would show the deal to entrants "
                "still at it"
            )
        if game.daily is not None and "server_seed" not in game.deal:
            raise DayNotClosed(
                f"game {game_id} is a daily deal of {game.daily.isoformat()}: it is analysed once the "
                "day closes, since the analysis would show the deal to players still at it"
            )
        events = self._games.load_events(game_id, 0, None)
        rules = Rules.from_mapping(game.rules)
        start = game_opening(rules, secret.server_seed, secret.client_seed, game.deal)
        steps = list(steps_of(start, events))
        analysis = self._solver_time(lambda: analyse(steps))
        text = to_json({"game_id": str(game_id), **analysis})
        self._kept.save_analysis(game_id, SOLVER_VERSION, ANALYSIS_BUDGET, text)
        return text


def steps_of(start: GameState, events: list[ev.Event]) -> Iterator[Step]:
    """The opening, then the position after each action that stands (not taken back by an undo), by the seq of the
    action's own event: the line that led from the deal to the game's end."""
    standing: list[tuple[ev.Event, GameState]] = []
    final = start
    for _, after in ev.positions(start, events, standing):
        final = after
    yield Step(1, None, start)
    for index, (event, _) in enumerate(standing):
        after = standing[index + 1][1] if index + 1 < len(standing) else final
        yield Step(event.seq, ev.action_of(event), after)
