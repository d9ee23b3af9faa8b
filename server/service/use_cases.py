"""Every use case of the server, as the composition root built them (server/runtime/composition.py): what the HTTP
layer reaches them through, one accessor for all (api/common.py: use_cases())."""

from __future__ import annotations

from dataclasses import dataclass

from .boards import Boards
from .chores import Chores
from .competitions.entering import Entering
from .competitions.organizing import Organizing
from .competitions.refereeing import Referee
from .competitions.watching import Watching
from .daily import Days
from .games.acting import Acting
from .games.analyses import Analyses
from .games.creating import Creating
from .games.queries import GameQueries
from .games.sealing import Sealing
from .games.verifying import Verifying
from .health import Health
from .players.accounts import Accounts
from .players.profiles import Profiles
from .public_log.log import PublicLog


@dataclass(frozen=True, slots=True)
class UseCases:
    creating: Creating
    sealing: Sealing
    acting: Acting
    queries: GameQueries
    verifying: Verifying
    analyses: Analyses
    accounts: Accounts
    days: Days
    boards: Boards
    profiles: Profiles
    chores: Chores
    public_log: PublicLog
    health: Health
    organizing: Organizing
    entering: Entering
    referee: Referee
    watching: Watching
