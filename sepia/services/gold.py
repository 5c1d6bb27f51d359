"""The gold standard as XML, from the store: used by the export page and `sepia gold export`."""
from __future__ import annotations

from sqlalchemy.orm import Session

from sepia.formats.write import to_xml
from sepia.store.exchange.gold import export_gold


def gold_xml(session: Session, lang: str | None = None) -> bytes:
    """Topics with nuggets (of one target language, or all), their votes and pyramid weights."""
    return to_xml(export_gold(session, lang=lang))
