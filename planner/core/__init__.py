"""The core: what planning a cluster needs and nothing else (no pulumi, no boto3).

Its parts are ordered by an import contract (pyproject.toml, `lint-imports`); docs/design.md
has the table of layers, folders and what each may import.
"""
