"""Sealed deals: a fresh secret server seed of which only the commitment shows until its game is over, so that a
client can give its own seed after the server's is fixed (docs/api.md, "Provably fair deals")."""

from __future__ import annotations

from typing import Any, Protocol
from uuid import UUID

from ...game.commands import Idempotency
from ...game.records import PublicEntry
from ...log import public_entries
from ...rules import commitment
from ..errors import IdempotencyConflict
from ..outcomes import Answer, Answered, SealedDealMade
from ..ports import KeptResponses, SealedDeals
from ..records import SealedDeal
from ..sources import Sources
from .documents import sealed_deal_view
from .idempotency import answer_after_race, kept_answer, kept_reply


class SealingStore(SealedDeals, KeptResponses, Protocol):
    """The ports sealing deals uses: the sealed deals, and the replies kept for retries."""


class Sealing:
    def __init__(self, store: SealingStore, sources: Sources) -> None:
        self._store = store
        self._sources = sources

    def create_sealed_deal(
        self, idempotency: Idempotency | None, answer: Answer[SealedDealMade] | None = None
    ) -> Answered[SealedDealMade]:
        scope = "deals"
        if idempotency is not None and (first := kept_answer(self._store, scope, idempotency)) is not None:
            return first
        server_seed = self._sources.new_server_seed()
        made = SealedDealMade(
            SealedDeal(self._sources.new_id(), self._sources.clock(), server_seed, commitment(server_seed), None)
        )
        reply = answer(made) if answer is not None else None
        logged = PublicEntry(
            made.deal.id, public_entries.DEAL_SEALED, public_entries.deal_sealed(made.deal.id, made.deal.commitment)
        )
        try:
            self._store.create_sealed_deal(made.deal, kept_reply(scope, idempotency, reply), logged)
        except IdempotencyConflict:
            return answer_after_race(self._store, scope, idempotency)
        return Answered(reply, made)

    def get_sealed_deal(self, deal_id: UUID) -> dict[str, Any]:
        return sealed_deal_view(self._store.load_sealed_deal(deal_id))
