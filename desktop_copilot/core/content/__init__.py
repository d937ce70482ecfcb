"""What a message carries besides its words: attachments read from disk, cited sources, and which links may be opened."""
