"""Server-sent events read as the HTML standard's parser reads them."""

from server.client import Message, messages


def parsed(text):
    return list(messages(line.encode() for line in text.splitlines(keepends=True)))


def test_fields_up_to_a_blank_line_make_a_message_and_comments_are_skipped():
    text = ': keep-alive\r\nevent: game\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 7\ndata: x\n\n: ping\n\nretry: 1000\n\n'
    assert parsed(text) == [Message("game", '{"a":\n1}', None), Message("message", "x", "7")]


def test_the_last_event_id_carries_over_and_a_message_cut_off_is_not_given():
    assert parsed("id: 3\ndata: a\n\ndata:b\n\ndata: unfinished\n") == [
        Message("message", "a", "3"),
        Message("message", "b", "3"),
    ]
