"""CallToolResult → ToolResult, with hostile content: oversized or broken images, blobs, links that are not fetched."""

from __future__ import annotations

import base64
import json

import mcp_types as types

from desktop_copilot.core.mcp.results import MAX_IMAGE_BYTES, to_tool_result
from tests.support.mcp_servers.demo_server import tiny_png

PNG = base64.b64encode(tiny_png()).decode()


def result(*content, **fields) -> types.CallToolResult:
    return types.CallToolResult(content=list(content), **fields)


def test_text_blocks_in_order():
    out = to_tool_result(result(types.TextContent(text="one"), types.TextContent(text="two")))
    assert (out.text, out.parts, out.is_error) == ("one\ntwo", [], False)


def test_an_image_becomes_a_part_and_a_line():
    out = to_tool_result(result(types.ImageContent(data=PNG, mime_type="image/png")))
    assert out.parts == [{"type": "image", "media_type": "image/png", "data": PNG}]
    assert out.text == "[image: image/png, 1 KB]"


def test_images_over_the_cap_become_a_note():
    big = base64.b64encode(b"\0" * (MAX_IMAGE_BYTES + 1)).decode()
    out = to_tool_result(result(types.ImageContent(data=big, mime_type="image/png")))
    assert out.parts == [] and "not shown" in out.text


def test_broken_base64_and_odd_types_are_not_parts():
    out = to_tool_result(result(types.ImageContent(data="@@not base64@@", mime_type="image/png"),
                                types.ImageContent(data=PNG, mime_type="image/svg+xml")))
    assert out.parts == []
    assert "not valid base64" in out.text and "image/svg+xml" in out.text


def test_audio_is_a_note():
    out = to_tool_result(result(types.AudioContent(data=base64.b64encode(b"RIFF").decode(), mime_type="audio/wav")))
    assert out.parts == [] and out.text.startswith("[audio: audio/wav")


def test_links_are_listed_not_fetched():
    link = types.ResourceLink(uri="http://169.254.169.254/latest/meta-data", name="meta", mime_type="text/plain")
    out = to_tool_result(result(link))
    assert out.parts == [{"type": "resource_link", "uri": "http://169.254.169.254/latest/meta-data", "name": "meta", "mime_type": "text/plain"}]
    assert out.text == "[resource link: meta <http://169.254.169.254/latest/meta-data>]"


def test_embedded_resources_give_their_text_or_a_note():
    text = types.EmbeddedResource(resource=types.TextResourceContents(uri="file:///a.txt", text="inside"))
    blob = types.EmbeddedResource(resource=types.BlobResourceContents(uri="file:///b.bin", blob=base64.b64encode(b"x" * 2048).decode(),
                                                                      mime_type="application/octet-stream"))
    out = to_tool_result(result(text, blob))
    assert out.text.splitlines() == ["inside", "[embedded resource file:///b.bin: application/octet-stream, 2 KB; binary content not shown]"]


def test_structured_content_without_text_is_sent_as_json():
    out = to_tool_result(result(structured_content={"temp": 21.5}))
    assert out.parts == [{"type": "structured", "data": {"temp": 21.5}}]
    assert json.loads(out.text) == {"temp": 21.5}


def test_structured_content_beside_text_keeps_the_text():
    out = to_tool_result(result(types.TextContent(text="21.5 degrees"), structured_content={"temp": 21.5}))
    assert out.text == "21.5 degrees" and out.parts[0]["type"] == "structured"


def test_is_error_gives_an_error_result():
    out = to_tool_result(result(types.TextContent(text="boom"), is_error=True))
    assert out.is_error and out.text == "boom"
    assert to_tool_result(result(is_error=True)).text == "(the tool reported an error without details)"
