"""The host's console: the pages and forms through which the host keeps the protocol."""
