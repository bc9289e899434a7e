"""Deploy: a repository becomes a plan, and the plan runs step by step in a session."""
