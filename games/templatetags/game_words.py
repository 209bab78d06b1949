"""The game's words in templates: `{% load game_words %}{{ role|role_label }}` (games.vocabulary)."""

from django import template

from games import vocabulary

register = template.Library()


@register.filter
def role_label(role: str) -> str:
    return vocabulary.ROLES(role)


@register.filter
def role_badge(role: str) -> str:
    """The role's one-letter badge («Ш», «Д», «М»; a civilian has none)."""
    return vocabulary.ROLE_BADGES(role, default="")


@register.filter
def how_left(how: str) -> str:
    return vocabulary.HOW_LEFT(how)


@register.filter
def step_label(step: str) -> str:
    return vocabulary.STEPS(step)
