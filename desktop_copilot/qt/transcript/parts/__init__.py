"""The part painters a transcript row is made of (text, thinking, tool card, notices) and their documents."""
