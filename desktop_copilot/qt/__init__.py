"""The thin Qt layer, grouped by feature: window/ (main window, composer, banner, notices), transcript/
(model, row view, delegate; parts/ paints a row), history/ (sidebar, search, File menu), settings/ (dialog
and pages), bridge/ (controller, background worker), common/ (theme, painting helpers, plain labels)."""
