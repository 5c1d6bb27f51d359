"""Text analysis that search and scoring share (sepia.text.english)."""
