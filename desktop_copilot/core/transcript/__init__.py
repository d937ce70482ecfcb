"""Qt-free transcript logic: which rows a message becomes, Markdown chunks, row offsets, lazily loaded messages."""
