"""The use cases composed: each built with the ports it declares, the read store's where it only reads games, and
what it shares with the others (the games this process keeps, the live hub it tells). The one place that knows who
is built with what; runtime/app.py composes them for the server, the command line and the tests for themselves."""

from __future__ import annotations

from ..service.boards import Boards
from ..service.chores import Chores
from ..service.competitions.entering import Entering
from ..service.competitions.organizing import Organizing
from ..service.competitions.refereeing import Referee
from ..service.competitions.watching import Watching
from ..service.daily import Days
from ..service.games.acting import Acting, ChangeSink
from ..service.games.analyses import Analyses
from ..service.games.creating import Creating
from ..service.games.queries import GameQueries
from ..service.games.recent_games import RecentGames
from ..service.games.sealing import Sealing
from ..service.games.verifying import Verifying
from ..service.health import Health
from ..service.players.accounts import Accounts
from ..service.players.profiles import Profiles
from ..service.ports import ReadStore, SolverTime, Store, at_once
from ..service.public_log.log import PublicLog
from ..service.sources import Sources
from ..service.use_cases import UseCases

RECENT_GAMES = 1024


def compose(
    store: Store,
    read_store: ReadStore | None = None,
    *,
    changes: ChangeSink | None = None,
    solver_time: SolverTime = at_once,
    sources: Sources | None = None,
    recent_games: int = RECENT_GAMES,
    public_log: PublicLog | None = None,
) -> UseCases:
    """The use cases on `store`, with the reads that only answer clients on `read_store` when given (its rule:
    ports.GameReads). `changes`: told of every game created and action landed (the live hub). `recent_games`: how
    many games this process keeps as it last wrote them (0: none). `public_log`: one that serves and does not
    sequence when not given."""
    reads: ReadStore = store if read_store is None else read_store
    sources = sources or Sources()
    clock = sources.clock
    recent = RecentGames(recent_games)
    days = Days(store, clock, sources.new_server_seed)
    acting = Acting(store, recent, changes, solver_time, clock)
    verifying = Verifying(reads, solver_time)
    profiles = Profiles(store, verifying, clock, reads)
    public_log = public_log or PublicLog(store, reads, None)
    organizing = Organizing(store, solver_time, sources)
    return UseCases(
        creating=Creating(store, days, recent, changes, solver_time, sources),
        sealing=Sealing(store, sources),
        acting=acting,
        queries=GameQueries(reads, store, clock),
        verifying=verifying,
        analyses=Analyses(reads, store, solver_time),
        accounts=Accounts(store, clock, sources.new_id),
        days=days,
        boards=Boards(reads, clock),
        profiles=profiles,
        chores=Chores(store, days, acting, profiles, clock),
        public_log=public_log,
        health=Health([store] if read_store is None else [store, read_store], public_log.status),
        organizing=organizing,
        entering=Entering(store, changes, sources),
        referee=Referee(store, acting, clock),
        watching=Watching(organizing),
    )
