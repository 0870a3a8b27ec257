"""The application service: what a command does between the command line and the store (service.fights)."""
