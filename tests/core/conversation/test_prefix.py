"""SeenMessages (core/conversation/prefix.py): which first messages are the ones seen last time, at the same revisions;
a message gone is never mistaken for the one that took its place; nothing seen is kept alive."""

from __future__ import annotations

import gc
import weakref

from desktop_copilot.core.conversation import changes
from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.conversation.prefix import SeenMessages, common_prefix


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
