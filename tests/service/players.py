"""What the players' unit tests share: a clock the test moves, and a player signed up and calling with their token."""

from datetime import UTC, datetime

from server.game.callers import Caller
from server.service.use_cases import UseCases


class Clock:
    def __init__(self, now=datetime(2026, 3, 1, 12, tzinfo=UTC)):
        self.now = now

    def __call__(self):
        return self.now


def player(cases: UseCases, name: str, kind: str = "human") -> Caller:
    made = cases.accounts.sign_up(name, kind, None).outcome
    return cases.accounts.authenticate(made.secret)
