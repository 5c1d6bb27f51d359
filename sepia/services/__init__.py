"""What joins the campaign store to the evaluation core: the store's runs and judgments scored, its
documents loaded, looked up and indexed, a judging plan's estimates, pools built and
disputes decided for the judging pages. The core below never imports
the store; the store's lookups reach it through these modules (docs/architecture.md)."""
