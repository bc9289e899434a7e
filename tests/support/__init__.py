"""Test helpers shared by several test folders (loopback servers and the like)."""
