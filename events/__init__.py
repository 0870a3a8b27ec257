"""The event schema: what the log stores, versioned forever."""
