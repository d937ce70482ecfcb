"""Turns an MCP CallToolResult into a ToolResult: text for the model, images and links as parts. Everything in it
is hostile: nothing is fetched, sizes are capped, and only well-formed images become parts."""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from desktop_copilot.core.tools.base import ToolResult

if TYPE_CHECKING:
    import mcp_types as types

MAX_IMAGE_BYTES = 5 * 1024 * 1024
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_MAX_FIELD = 2_000


def _clip(value: Any, limit: int = _MAX_FIELD) -> str:
    text = str(value or "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _size(n: int) -> str:
    return f"{max(1, round(n / 1024))} KB" if n < 1024 * 1024 else f"{n / (1024 * 1024):.1f} MB"


def _decoded_length(data: str) -> int | None:
    """The byte count of valid base64 (None if it is not), without keeping the bytes."""
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None


def _image(block: types.ImageContent, texts: list[str], parts: list[dict[str, Any]]) -> None:
    media_type = _clip(block.mime_type, 100).lower()
    if len(block.data) > MAX_IMAGE_BYTES * 4 // 3 + 4:
        texts.append(f"[image: {media_type}, larger than {_size(MAX_IMAGE_BYTES)}; not shown]")
        return
    size = _decoded_length(block.data)
    if size is None:
        texts.append(f"[image: {media_type}, not valid base64; not shown]")
    elif size > MAX_IMAGE_BYTES:
        texts.append(f"[image: {media_type}, {_size(size)}, larger than {_size(MAX_IMAGE_BYTES)}; not shown]")
    elif media_type not in IMAGE_TYPES:
        texts.append(f"[image: {media_type}, {_size(size)}; this image type is not shown]")
    else:
        parts.append({"type": "image", "media_type": media_type, "data": block.data})
        texts.append(f"[image: {media_type}, {_size(size)}]")


def _resource(block: types.EmbeddedResource, texts: list[str]) -> None:
    import mcp_types as types

    contents = block.resource
    uri = _clip(contents.uri, 500)
    if isinstance(contents, types.TextResourceContents):
        texts.append(contents.text)
    else:
        size = _decoded_length(contents.blob)
        texts.append(f"[embedded resource {uri}: {_clip(contents.mime_type or 'binary', 100)}, {_size(size or 0)}; binary content not shown]")


def to_tool_result(result: types.CallToolResult) -> ToolResult:
    """Text blocks in order, a line for each image, sound, link and resource; parts beside them."""
    import mcp_types as types

    texts: list[str] = []
    parts: list[dict[str, Any]] = []
    has_text = False
    for block in result.content:
        if isinstance(block, types.TextContent):
            texts.append(block.text)
            has_text = True
        elif isinstance(block, types.ImageContent):
            _image(block, texts, parts)
        elif isinstance(block, types.AudioContent):
            size = _decoded_length(block.data)
            texts.append(f"[audio: {_clip(block.mime_type, 100)}, {_size(size or 0)}; audio is not played]")
        elif isinstance(block, types.ResourceLink):
            name, uri = _clip(block.name, 300), _clip(block.uri, 2_000)
            parts.append({"type": "resource_link", "uri": uri, "name": name, "mime_type": _clip(block.mime_type, 100) or None})
            texts.append(f"[resource link: {name} <{uri}>]")
        elif isinstance(block, types.EmbeddedResource):
            _resource(block, texts)
            has_text = has_text or isinstance(block.resource, types.TextResourceContents)
        else:
            texts.append(f"[unsupported content: {_clip(getattr(block, 'type', type(block).__name__), 60)}]")
    if result.structured_content is not None:
        parts.append({"type": "structured", "data": result.structured_content})
        if not has_text:
            texts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=2, default=str))
    text = "\n".join(texts)
    if not text:
        text = "(the tool reported an error without details)" if result.is_error else "(the tool returned nothing)"
    return ToolResult(text=text, parts=parts, is_error=bool(result.is_error))
