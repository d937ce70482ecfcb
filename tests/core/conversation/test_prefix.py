"""SeenMessages (core/conversation/prefix.py): which first messages are the ones seen last time, at the same revisions;
a message gone is never mistaken for the one that took its place; nothing seen is kept alive."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.conversation import changes
from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.conversation.prefix import ID_SIZE, PerMessage, SeenMessages, _first_position, common_prefix


def test_the_same_objects_at_the_same_revisions_count_until_the_first_change():
    messages = [Message.user(f"m{n}") for n in range(10)]
    seen = SeenMessages()
    assert seen.update(messages) == 0
    assert seen.update(messages) == 10
    assert seen.update([*messages, Message.user("new")]) == 10
    messages[6].touch()
    assert seen.update(messages) == 6
    assert seen.update(messages[:4] + [messages[4].model_copy()] + messages[5:]) == 4
    assert seen.update(messages) == 4  # the copy was seen last, not the original


def test_a_message_gone_is_not_trusted_whoever_takes_its_place():
    messages = [Message.user(f"m{n}") for n in range(8)]
    seen = SeenMessages()
    seen.update(messages)
    gone = weakref.ref(messages[5])
    del messages[5]
    gc.collect()
    assert gone() is None
    messages.insert(5, Message.user("another"))  # may be allocated where the gone one was
    assert seen.update(messages) == 5


def test_nothing_seen_is_kept_alive():
    messages = [Message.user(f"m{n}") for n in range(5)]
    seen = SeenMessages()
    seen.update(messages)
    watched = [weakref.ref(message) for message in messages]
    del messages
    gc.collect()
    assert all(ref() is None for ref in watched)
    assert seen.update([]) == 0


@pytest.mark.skipif(sys.byteorder != "little", reason="the ids below are laid out for a little-endian machine")
def test_a_changed_id_is_found_at_its_first_place_never_across_two_ids_nor_past_the_end():
    pack = [0x1100, 0x22 << 56, 0, 0x22, 0x1100]  # 0x22's bytes first appear across the second and third ids
    ids = b"".join(ident.to_bytes(ID_SIZE, "little") for ident in pack)
    assert _first_position(ids, 0x1100, 5) == 0
    assert _first_position(ids, 0x22, 5) == 3
    assert _first_position(ids, 0x22, 3) == 3  # past `end`: `end` answered
    assert _first_position(ids, 0x4400, 5) == 5
    assert _first_position(b"", 0x1100, 0) == 0


def test_common_prefix_finds_the_first_difference_anywhere():
    base = list(range(1000))
    for cut in (0, 1, 499, 999):
        assert common_prefix(base, base[:cut] + [-1] + base[cut + 1:]) == cut
    assert common_prefix(base, base[:300]) == 300
    assert common_prefix([], base) == 0


def test_a_message_changed_again_after_each_look_counts_each_time():
    messages = [Message.user(f"m{n}") for n in range(6)]
    seen = SeenMessages()
    seen.update(messages)
    for _ in range(3):
        messages[3].touch()
        messages[3].touch()
        assert seen.update(messages) == 3
    assert seen.update(messages) == 6


def test_looking_back_further_than_the_log_keeps_starts_again(monkeypatch):
    monkeypatch.setattr(changes, "LOG_SIZE", 8)
    messages = [Message.user(f"m{n}") for n in range(6)]
    seen = SeenMessages()
    seen.update(messages)
    others = [Message.user("other") for _ in range(20)]
    for other in others:  # each a different message: each logged
        other.touch()
    assert seen.update(messages) == 0
    assert seen.update(messages) == 6


def test_per_message_values_follow_appends_changes_and_copies_and_derive_only_what_is_new():
    derived: list[str] = []

    def derive(message: Message) -> str:
        derived.append(message.id)
        return message.text

    per_message = PerMessage(derive)
    messages = [Message.user(f"m{n}") for n in range(6)]
    assert per_message.of(messages) == [f"m{n}" for n in range(6)]
    derived.clear()
    messages.append(Message.user("m6"))
    assert per_message.of(messages)[-1] == "m6"
    assert derived == [messages[6].id]  # only the new message was looked at
    messages[2].blocks[0].text = "changed"
    messages[2].touch()
    derived.clear()
    assert per_message.of(messages)[2:4] == ["changed", "m3"]
    assert derived == [message.id for message in messages[2:]]
    messages[4] = Message.user("another")
    assert per_message.of(messages) == [message.text for message in messages]
    assert per_message.of(messages[:3]) == ["m0", "m1", "changed"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["append", "touch", "replace", "pop", "other"]), st.integers(0, 40)), max_size=30))
def test_per_message_values_always_equal_deriving_afresh(steps):
    per_message = PerMessage(lambda message: (message.text, message.revision))
    conversations = [[Message.user("a0")], [Message.user("b0")]]
    for step, number in steps:
        messages = conversations[number % 2]
        if step == "append":
            messages.append(Message.user(f"n{number}"))
        elif step == "touch":
            target = messages[number % len(messages)]
            target.blocks[0].text += "+"
            target.touch()
        elif step == "replace":
            messages[number % len(messages)] = Message.user(f"r{number}")
        elif step == "pop" and len(messages) > 1:
            messages.pop()
        assert per_message.of(messages) == [(message.text, message.revision) for message in messages]
