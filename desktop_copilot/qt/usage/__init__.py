"""The Usage window: tokens and cost per day and per model, with a small bar chart."""
