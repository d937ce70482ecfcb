"""Ask several models: the composer's button, the dialog that chooses the models, and the answers in columns."""
