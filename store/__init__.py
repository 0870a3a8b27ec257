"""The imperative shell's storage: an append-only event store (SQLite or memory)."""
