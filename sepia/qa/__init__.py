"""Scoring Question Analysis runs: answer-type accuracy and key-term recall against the topics."""
