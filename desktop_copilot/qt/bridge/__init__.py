"""The bridge between widgets and the async core: the chat controller and the keyring/background worker."""
