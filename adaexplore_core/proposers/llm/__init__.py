"""The LLM proposer: any OpenAI-compatible endpoint writes candidates (client, prompts, extraction)."""
