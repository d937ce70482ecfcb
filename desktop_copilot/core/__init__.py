"""Qt-free core: domain models, providers, the agent loop, tools, configuration and storage."""
