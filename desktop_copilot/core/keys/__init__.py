"""API keys: the Secret wrapper, where keys are looked up (keyring, environment, session), the keyring thread and redaction of every key value."""
