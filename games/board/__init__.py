"""The public board and the stream overlay: read-only frames, pages, sockets and their fan-out."""
