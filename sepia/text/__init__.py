"""Text analysis that search and scoring share (sepia.text.english), and the reports' plain-text
tables (sepia.text.columns)."""
