#!/bin/sh
# Print the path of a Python >= 3.12, or fail with a clear message.
# Django 6 needs 3.12; the machine's default python3 may be older.
for candidate in "$PYTHON" python3.13 python3.12 python3 \
    "$(command -v pyenv >/dev/null 2>&1 && pyenv root)"/versions/3.13*/bin/python3 \
    "$(command -v pyenv >/dev/null 2>&1 && pyenv root)"/versions/3.12*/bin/python3 \
    "$HOME"/.pyenv/versions/3.13*/bin/python3 "$HOME"/.pyenv/versions/3.12*/bin/python3 \
    /usr/local/bin/python3.13 /usr/local/bin/python3.12 /usr/bin/python3.13 /usr/bin/python3.12; do
  [ -n "$candidate" ] || continue
  path=$(command -v "$candidate" 2>/dev/null) || continue
  # pyenv shims exist for versions that are not selected: ask the interpreter itself.
  if "$path" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
    "$path" -c 'import sys; print(sys.executable)'
    exit 0
  fi
done
echo "error: Python >= 3.12 is required (Django 6) and none was found." >&2
echo "       Install python3.12 or python3.13, or set PYTHON=/path/to/python3.12." >&2
exit 1
