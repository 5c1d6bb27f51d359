"""SEPIA: nugget-based evaluation of question answering (NTCIR ACLIA style)."""

__version__ = "0.1.0"
