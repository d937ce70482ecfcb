"""What each provider and model takes as attachments (image types and sizes, PDFs and their pages, the whole
request), and how an attachment goes to a model: natively when it fits, else as a note saying it was left out."""

from __future__ import annotations

import re
from dataclasses import dataclass

from desktop_copilot.core.conversation.models import DocumentBlock, ImageBlock, Message, TextBlock, TextFileBlock
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.core.words import tr

Attachment = ImageBlock | DocumentBlock | TextFileBlock

MB = 1024 * 1024
PNG, JPEG, GIF, WEBP = "image/png", "image/jpeg", "image/gif", "image/webp"
PDF = "application/pdf"
IMAGE_TYPE_NAMES = {PNG: "PNG", JPEG: "JPEG", GIF: "GIF", WEBP: "WebP"}

TEXT_ONLY_MODELS = re.compile(
    r"(^|/)(deepseek-(chat|reasoner|r1|v3|coder)|kimi-k2(-|$)|moonshot-v1-\d+k$|glm-4(\.\d+)?(-(?!.*v)|$)|gpt-3\.5|"
    r"o1-mini|o3-mini|llama-?3(\.[0-3])?(-|:|$)|llama2|mistral(:|$)|qwen2(\.5)?(-coder)?(:|$)|codellama|phi[34](:|$))",
    re.IGNORECASE,
)
"""Models known to take no images (a small list: DeepSeek's, Kimi K2, GLM-4.x without a "v", older OpenAI models,
Llama 3 text models, …). Any other model is assumed to take them; the provider says so if it does not."""
SEES_IMAGES = re.compile(r"vision|(^|[-/:.])vl([-:.]|$)|\dv(-|:|$)|omni|llava", re.IGNORECASE)
"""A name that says the model sees images (llama3.2-vision, qwen2.5vl, glm-4.5v, …) overrides the list above."""



@dataclass(frozen=True, slots=True)
class AttachmentLimits:
    """What one model of one provider takes. Sizes are bytes of the files as read (base64 makes them 4/3 bigger)."""

    provider: str
    """The provider's name, for messages ("DeepSeek")."""
    model: str
    image_types: frozenset[str]
    """Empty: the model takes no images."""
    image_bytes: int
    image_side: int = 0
    """Pixels of an image's longer side at most (0: no limit)."""
    pdf_bytes: int = 0
    """0: the provider reads no PDFs."""
    pdf_pages: int = 0
    request_bytes: int = 0
    """All attachments of one request together (0: no limit known)."""

    @property
    def images(self) -> bool:
        return bool(self.image_types)

    @property
    def pdfs(self) -> bool:
        return self.pdf_bytes > 0


def takes_images(model: str) -> bool:
    """False for a model known to take no images (TEXT_ONLY_MODELS), unless its name says it sees them."""
    return bool(SEES_IMAGES.search(model)) or not TEXT_ONLY_MODELS.search(model)


def limits_for(vendor: str, wire: str, model: str, label: str = "") -> AttachmentLimits:
    """The limits of `model` at `vendor` (a provider id) speaking `wire`, as the providers document them:
    Anthropic 5 MB of base64 per image and 8000 px, PDFs 32 MB and 100 pages per request; OpenAI 20 MB per image,
    PDFs as files; Gemini 20 MB for the whole request sent inline; Ollama images only."""
    name = label or (PROVIDERS[vendor].label if vendor in PROVIDERS else vendor)
    all_images = frozenset({PNG, JPEG, GIF, WEBP})
    if wire == "anthropic":
        limits = AttachmentLimits(name, model, all_images, 5 * MB * 3 // 4, 8000, 32 * MB * 3 // 4, 100, 32 * MB * 3 // 4)
    elif wire == "gemini":
        inline = 20 * MB * 3 // 4
        limits = AttachmentLimits(name, model, frozenset({PNG, JPEG, WEBP}), inline, 0, inline, 1000, inline)
    elif wire == "ollama":
        limits = AttachmentLimits(name, model, frozenset({PNG, JPEG}), 20 * MB)
    elif vendor in PROVIDERS and PROVIDERS[vendor].pdfs:  # Chat Completions with PDFs as `file` parts (OpenAI, OpenRouter)
        limits = AttachmentLimits(name, model, all_images, 20 * MB, 0, 32 * MB * 3 // 4, 100, 50 * MB * 3 // 4)
    else:
        limits = AttachmentLimits(name, model, all_images, 10 * MB)
    if not takes_images(model):
        limits = AttachmentLimits(limits.provider, model, frozenset(), 0, 0, limits.pdf_bytes, limits.pdf_pages, limits.request_bytes)
    return limits


def human_size(size: int) -> str:
    """`512 bytes`, `12 KB`, `3.4 MB`."""
    if size < 1024:
        return f"{size} bytes"
    if size < MB:
        return f"{size / 1024:.0f} KB"
    return f"{size / MB:.1f} MB".replace(".0 MB", " MB")


def problem(block: Attachment, limits: AttachmentLimits) -> str:
    """Why `block` cannot go to the model, in words that say what to do ("" when it can)."""
    where = f"{limits.model} ({limits.provider})"
    if isinstance(block, ImageBlock):
        if not limits.images:
            return (tr("{name}: {where} takes no images. Choose a model that sees images, or describe the image in words.")
                    .format(name=block.name, where=where))
        if block.media_type not in limits.image_types:
            kinds = ", ".join(IMAGE_TYPE_NAMES[t] for t in sorted(limits.image_types))
            return (tr("{name}: {provider} takes {kinds} images, not {media_type}. Save it as PNG or JPEG and attach it "
                       "again.")
                    .format(name=block.name, provider=limits.provider, kinds=kinds, media_type=IMAGE_TYPE_NAMES.get(block.media_type, block.media_type)))
        if block.size > limits.image_bytes:
            return ((tr("{name} is {size}; {provider} takes images up to {image_bytes}. Scale it down or save it as JPEG, "
                        "then attach it again.")
                     .format(name=block.name, size=human_size(block.size), provider=limits.provider, image_bytes=human_size(limits.image_bytes))))
        if limits.image_side and max(block.width, block.height) > limits.image_side:
            return ((tr("{name} is {width}×{height} pixels; {provider} takes at most {image_side} pixels a side. Scale it "
                        "down and attach it again.")
                     .format(name=block.name, width=block.width, height=block.height, provider=limits.provider, image_side=limits.image_side)))
    elif isinstance(block, DocumentBlock):
        if not limits.pdfs:
            return ((tr("{name}: {provider} cannot read PDFs. Copy the text you need into the message, or choose Anthropic, "
                        "OpenAI or Gemini for this conversation.")
                     .format(name=block.name, provider=limits.provider)))
        if block.size > limits.pdf_bytes:
            return (tr("{name} is {size}; {provider} takes PDFs up to {pdf_bytes}. Split it and attach the part you need.")
                    .format(name=block.name, size=human_size(block.size), provider=limits.provider, pdf_bytes=human_size(limits.pdf_bytes)))
        if limits.pdf_pages and block.pages > limits.pdf_pages:
            return (tr("{name} has {pages} pages; {provider} reads at most {pdf_pages} pages. Split it and attach the part "
                       "you need.")
                    .format(name=block.name, pages=block.pages, provider=limits.provider, pdf_pages=limits.pdf_pages))
    return ""


def left_out_note(block: Attachment, limits: AttachmentLimits) -> str:
    """The text sent instead of an earlier attachment this model cannot take (so the model knows it was there)."""
    kind = "an image" if isinstance(block, ImageBlock) else "a PDF"
    return f"[The user attached {kind} here ({block.name}); it is left out because {limits.model} at {limits.provider} cannot take it.]"


def attachment_bytes(block: Attachment) -> int:
    """Bytes a block adds to a request's attachments (a text file counts as text, not here)."""
    return block.size if isinstance(block, ImageBlock | DocumentBlock) else 0


def file_text_for_model(block: TextFileBlock) -> str:
    """A text file as the model reads it: its name in a header, then its text between markers that name it."""
    name = block.name.replace("\n", " ").replace('"', "'")
    return f'<attached_file name="{name}">\n{block.text}\n</attached_file>'


UserPart = str | ImageBlock | DocumentBlock
"""A piece of a user turn as a wire sends it: text (the message's, a file's, a note), or an image or PDF to send."""


def user_parts(message: Message, limits: AttachmentLimits) -> list[UserPart]:
    """The user's message in order: its text, text files inlined with their names, images and PDFs the model
    takes, and a note for each it does not (an earlier attachment, sent to a model that cannot take it)."""
    parts: list[UserPart] = []
    for block in message.blocks:
        if isinstance(block, TextBlock):
            if block.text.strip():  # providers refuse whitespace-only text
                parts.append(block.text)
        elif isinstance(block, TextFileBlock):
            parts.append(file_text_for_model(block))
        elif isinstance(block, ImageBlock | DocumentBlock):
            parts.append(left_out_note(block, limits) if problem(block, limits) else block)
    return parts


def data_url(block: ImageBlock | DocumentBlock) -> str:
    return f"data:{block.media_type};base64,{block.data}"
