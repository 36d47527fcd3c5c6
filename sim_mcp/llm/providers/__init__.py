"""One module per provider: `openai` (Chat Completions, and any server that speaks it) and `anthropic`
(Messages). Each is an `LLMBackend` subclass that reads its SDK's environment variables, builds the SDK
client and gives its `Wire` (how one request is sent and its reply read); the rest of the way is the LLM
layer's. They are imported only when asked for (the table of backends, `load_backend`)."""
