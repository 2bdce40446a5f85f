#!/usr/bin/env bash
# Builds the documentation site (mkdocs.yml, docs/) with --strict: a broken link or anchor, a link
# leaving docs/, an absolute link, or a page missing from the nav fails the build. Installs the
# `docs` extra of pyproject.toml into .venv when missing: only those packages, not ".[docs]",
# which would rebuild the Rust core. The site goes to a temporary directory, removed at the end;
# `bash scripts/docs.sh DIR` keeps it in DIR.
set -euo pipefail

cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
    python3.11 -m venv .venv
fi

# The requirement strings of [project.optional-dependencies] docs, one per line.
mapfile -t requirements < <(.venv/bin/python -c '
import tomllib
with open("pyproject.toml", "rb") as file:
    print("\n".join(tomllib.load(file)["project"]["optional-dependencies"]["docs"]))
')
# pip does nothing (and asks no index) when every requirement is already satisfied.
.venv/bin/python -m pip install --quiet "${requirements[@]}"

if [ $# -ge 1 ]; then
    site_dir="$1"
else
    site_dir="$(mktemp -d)"
    trap 'rm -rf "$site_dir"' EXIT
fi

# Material for MkDocs prints a banner about MkDocs 2.0 on every build; it is not about this site.
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$site_dir"
echo "docs: built with --strict into $site_dir"
