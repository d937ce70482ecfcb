"""Configuration without secrets: the run's AppConfig, settings.json, assistants.json, the profile's paths and atomic writes."""
