"""The store's clock, for the pages that compare now with the campaign's windows and times: aware
UTC datetimes, as the store keeps them (`as_utc` mends SQLite's naive ones)."""
from sepia.store.models import as_utc, utcnow

__all__ = ["as_utc", "utcnow"]
