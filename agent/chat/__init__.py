"""`termwise chat`: conversations with skills, and the agent's link to memory."""
