"""Seeds a reply with inline and display formulas (all four delimiters), a price that must stay text and a
formula that does not parse, and saves `math.png`: formulas drawn in the text's colour, inline ones on the
baseline, display ones centred, the broken one shown as its source.

    Xvfb :97 -screen 0 1100x800x24 & DISPLAY=:97 python bench/demo_math.py --out docs/screenshots

Not part of the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.conversation.models import Conversation, Message, Role, TextBlock  # noqa: E402

QUESTION = "Explain the Gaussian integral, and how softmax turns scores into probabilities."
ANSWER = r"""The **Gaussian integral** is the area under $e^{-x^2}$. Squaring it and switching to polar
coordinates, with $x = r\cos\theta$ and $y = r\sin\theta$, turns it into an integral we can do:

$$\int_{-\infty}^{\infty} e^{-x^2}\,dx = \sqrt{\pi}$$

For **softmax**, each score \(z_i\) becomes a probability, and the outputs sum to one:

\[
\operatorname{softmax}(z)_i = \frac{e^{z_i}}{\sum_{j=1}^{K} e^{z_j}}, \qquad \sum_{i=1}^{K} \operatorname{softmax}(z)_i = 1
\]

A 2×2 rotation is $R(\theta) = \begin{pmatrix} \cos\theta & -\sin\theta \\ \sin\theta & \cos\theta \end{pmatrix}$, and
a GPU hour at $2 and $3 stays plain text. A formula that does not parse shows its source: $\frac{1}{$.
"""


def seed(store) -> str:
    model = "claude-sonnet-4-5-20250929"
    conversation = Conversation(title="Gaussian integral and softmax", model=model)
    reply = Message(role=Role.ASSISTANT, model=model, blocks=[TextBlock(text=ANSWER)])
    conversation.messages = [Message.user(QUESTION), reply]
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)
    return conversation.id


def main() -> int:
    options = demo_options(1100, 800)
    out = options.out
    window, loop, store, _ = seeded_window("dc-math-", seed)
    show_at(window, options)

    def shot() -> None:
        path = out / "math.png"
        window.grab().save(str(path))
        print("saved", path, flush=True)

    for delay, step in ((1500, shot), (1700, window.close)):
        QTimer.singleShot(delay, step)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
