"""Hand-written content of SEPIA's sample test collections, one module per target language.

Everything here is stated by the author: documents, topics, nuggets, each assessor's vital votes,
the runs' answers and the human judgments of every answer. `tools/make_sample_corpora.py` only
lays it out in the exchange formats (and derives what the formats record redundantly: vote counts
and pyramid weights)."""
from __future__ import annotations

from sample_corpora.model import Collection


def collections() -> list[Collection]:
    from sample_corpora import cs, ct, ja

    return [cs.COLLECTION, ct.COLLECTION, ja.COLLECTION]
