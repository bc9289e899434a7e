"""Secret redaction: what leaves the machine or reaches a log is scrubbed first."""
