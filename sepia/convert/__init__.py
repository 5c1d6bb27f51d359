"""Converters from other evaluation campaigns' files into SEPIA's exchange formats."""
