"""The domain models: instances made with the same fields given share pydantic's record of them, and what that record
says stays what each instance was given."""

from __future__ import annotations

from desktop_copilot.core.conversation import models
from desktop_copilot.core.conversation.models import Message, MessageStatus, TextBlock, ToolApproval, ToolCallBlock, Usage


def test_instances_given_the_same_fields_share_one_fields_set():
    first, second = Message.user("one"), Message.user("two")
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__ == {"role", "blocks"}
    assert first.blocks[0].__pydantic_fields_set__ is second.blocks[0].__pydantic_fields_set__
    assert first.usage.__pydantic_fields_set__ is second.usage.__pydantic_fields_set__ == set()
    calls = [ToolCallBlock(id=f"t{i}", name="search", approval=ToolApproval(risk="read")) for i in range(2)]
    assert calls[0].__pydantic_fields_set__ is calls[1].__pydantic_fields_set__
    assert calls[0].approval.__pydantic_fields_set__ is calls[1].approval.__pydantic_fields_set__ == {"risk"}
    stored = Message.model_validate(first.model_dump())  # read back from a row: every field given
    assert stored.__pydantic_fields_set__ is Message.model_validate(second.model_dump()).__pydantic_fields_set__


def test_what_each_instance_was_given_is_kept_through_assignments_and_copies():
    first, second = Message.user("one"), Message.user("two")
    first.status, first.error = MessageStatus.FAILED, "boom"
    first.usage.output_tokens = 3
    assert second.model_fields_set == {"role", "blocks"} and second.usage.model_fields_set == set()
    copy = first.model_copy(update={"model": "claude-x"})
    assert copy.model_fields_set == {"role", "blocks", "model"}
    assert first.model_fields_set == second.model_fields_set == {"role", "blocks"}
    assert second.model_dump(exclude_unset=True) == {"role": "user", "blocks": [{"text": "two"}]}
    assert Usage(input_tokens=2).model_dump(exclude_unset=True) == {"input_tokens": 2}
    assert Usage().model_dump(exclude_unset=True) == {}


def test_past_the_limit_an_instance_keeps_its_own_set(monkeypatch):
    monkeypatch.setattr(models, "_FIELDS_SETS", {})
    monkeypatch.setattr(models, "FIELDS_SETS_LIMIT", 1)
    shared = TextBlock(text="a").__pydantic_fields_set__
    assert TextBlock(text="b").__pydantic_fields_set__ is shared
    own = TextBlock(citations=[]).__pydantic_fields_set__
    assert own == {"citations"} and own is not TextBlock(citations=[]).__pydantic_fields_set__
