"""The text protocol of local and open models: thinking and tool calls written inside a reply's text, read into unified events, and the text that sends calls and results back."""
