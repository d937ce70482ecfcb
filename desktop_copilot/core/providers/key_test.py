"""Testing a provider's key the way every provider is asked for its models: the same request, the same words."""

from __future__ import annotations

import asyncio
import importlib

from desktop_copilot.core.keys.key_check import CHECK_TIMEOUT, KeyCheck
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.provider_table import ProviderSpec
from desktop_copilot.core.providers.factory import SDK_MODULES, create_provider
from desktop_copilot.core.providers.streaming import ProviderError
from desktop_copilot.core.words import tr


async def check_provider_key(spec: ProviderSpec, secret: Secret | None, url: str, *, timeout: float = CHECK_TIMEOUT) -> KeyCheck:
    """List `spec`'s models at `url` with `secret`: the key works when the list comes back (its SDK imported off the
    event loop's thread first: about a second the first time)."""
    await asyncio.to_thread(importlib.import_module, SDK_MODULES[spec.wire])
    provider = create_provider(spec, secret, url)
    try:
        ids = await asyncio.wait_for(provider.list_models(), timeout)
    except ProviderError as exc:
        return KeyCheck(False, str(exc))
    except TimeoutError:
        return KeyCheck(False, tr("{label} did not answer within {seconds} s. Check the connection and the base URL.").format(
            label=spec.label, seconds=f"{timeout:g}"))
    except Exception as exc:  # noqa: BLE001 - a reply that is not a model list: said in words
        words = tr("{label} gave an unexpected answer ({kind}: {error}).").format(label=spec.label, kind=type(exc).__name__, error=exc)
        return KeyCheck(False, secret.redact(words) if secret is not None else words)
    finally:
        await provider.aclose()
    return KeyCheck(True, tr("Key works — {count} models available.").format(count=len(ids)), ids)
