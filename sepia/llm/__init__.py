"""An LLM assessor: any OpenAI-compatible chat-completions server decides whether a response supports
a nugget (`--matcher llm`, `sepia assess`) and proposes nuggets (`sepia nuggetize`); docs/llm.md.

`client` speaks the protocol (time-out, bounded retries with backoff), `cache` keeps every reply on
disk under a SHA-256 of the model, the prompt and the parameters, `prompts` reads the prompt files a
user may override, `labels` reads the model's JSON tolerantly and `assessor` puts them together."""
