"""The participants' side of a campaign: the schedule, run submission, downloads and results."""
