"""What a model's tokens cost: `Rates` and `ModelPrice` (USD per million tokens), as the settings file keeps the user's
prices; the table shipped with the app and the costs reckoned from it are in pricing.py (loaded where a cost is shown)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Rates(BaseModel):
    """USD per million tokens. A cache price left out is charged as fresh input."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    input: float = Field(ge=0, allow_inf_nan=False)
    output: float = Field(ge=0, allow_inf_nan=False)
    cache_read: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    cache_write: float | None = Field(default=None, ge=0, allow_inf_nan=False)

    @property
    def read_rate(self) -> float:
        return self.input if self.cache_read is None else self.cache_read

    @property
    def write_rate(self) -> float:
        return self.input if self.cache_write is None else self.cache_write


class ModelPrice(Rates):
    """A model's price; `long_prompt` applies instead to a request whose prompt is over `long_prompt_from` tokens."""

    long_prompt: Rates | None = None
    long_prompt_from: int = Field(default=200_000, ge=1)

    def rates_for(self, prompt_tokens: int) -> Rates:
        return self.long_prompt if self.long_prompt is not None and prompt_tokens > self.long_prompt_from else self
