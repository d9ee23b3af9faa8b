"""The bodies of reading a game's log and following games: pages of events, the position after one event, and
the queries and headers of the event streams and the feed."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from ...rules import PRESETS
from ...service.feed import FEED_POSITION_PATTERN
from ..schemas import SEQ_PATTERN, PublicStateSchema, component, next_page_url


class EventQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    after = fields.Integer(validate=validate.Range(min=0), load_default=0)
    limit = fields.Integer(validate=validate.Range(min=1, max=1000), load_default=100)
    wait = fields.Integer(
        validate=validate.Range(min=0, max=30),
        load_default=0,
        metadata={
            "description": "Long poll: if no event has seq > after yet, wait up to this many seconds "
            "for one, then answer (with an empty list if none came)."
        },
    )


class EventStreamQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    after = fields.Integer(
        validate=validate.Range(min=0),
        load_default=0,
        metadata={"description": "Send events with seq > after; a Last-Event-ID header takes precedence."},
    )


class FeedQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    game_id = fields.List(
        fields.UUID(),
        validate=validate.Length(min=1, max=100),
        metadata={
            "description": "Follow these games (the parameter once per game, up to 100): each is sent as it "
            "is now, then its new events. Without it: every game's new events."
        },
    )
    variant = fields.String(
        validate=validate.OneOf(list(PRESETS)), metadata={"description": "Only games of this preset."}
    )


def _last_event_id(description: str, pattern: str) -> fields.String:
    """The Last-Event-ID header. Its form is checked by the view (422 invalid-input, as the server always
    answered); the pattern states it for the document."""
    return fields.String(data_key="Last-Event-ID", metadata={"description": description, "pattern": pattern})


class _HeadersSchema(ma.Schema):
    class Meta:
        unknown = ma.EXCLUDE  # every other header of the request


class EventStreamHeadersSchema(_HeadersSchema):
    last_event_id = _last_event_id(
        "The id of the last event received (its seq): the stream resumes after it. "
        "EventSource sends it when it reconnects; it takes precedence over `after`.",
        SEQ_PATTERN,
    )


class FeedHeadersSchema(_HeadersSchema):
    last_event_id = _last_event_id(
        "The id of the last event message received: the feed goes on after it. "
        "EventSource sends it when it reconnects.",
        FEED_POSITION_PATTERN,
    )


class EventListSchema(ma.Schema):
    events = fields.List(component("Event"), required=True)
    next = next_page_url("when no more events are stored now")
    next_after = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The `after` of the next page; null when no more events are "
            "stored now (a long poll with this `after` waits for one)."
        },
    )


class StateAtSchema(ma.Schema):
    game_id = fields.UUID(required=True)
    seq = fields.Integer(required=True)
    event_hash = fields.String(required=True, metadata={"description": "The hash of event seq."})
    state = fields.Nested(PublicStateSchema, required=True)
    legal_actions = fields.List(component("LegalAction"), required=True)
