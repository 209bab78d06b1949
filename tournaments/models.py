"""Tournaments: stages, rounds, tables, participants (filled in by the tournaments issue)."""
