"""Shared fixtures. SHARED_DIR points at the shared/ folder beside the project."""

import os
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = Path(os.environ.get("SHARED_DIR", PROJECT_ROOT.parent / "shared")).resolve()
EXAMPLES_DIR = SHARED_DIR / "protocol-log" / "examples"


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES_DIR


@pytest.fixture
def host(db, django_user_model):
    return django_user_model.objects.create_user(username="host", password="host-pass-123")


@pytest.fixture
def other_user(db, django_user_model):
    return django_user_model.objects.create_user(username="stranger", password="stranger-pass-123")
