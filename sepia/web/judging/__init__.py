"""Assessment in the browser, one module per feature on one blueprint (`judging`): organisers build
pools and share them out (`pools`); assessors judge their queue, one pooled item at a time, blind (no
run or team shown), with the keyboard (`screen`); organisers decide the items assessors disputed
(`disputes`) and grow and estimate a pool's judging plan (`plans`). Every judgment is saved when it
is made, so a closed tab loses nothing and the screen resumes at the first open item."""
from sepia.web.judging import disputes, plans, pools, screen  # noqa: F401  (they add their routes to bp)
from sepia.web.judging.blueprint import bp

__all__ = ["bp"]
