"""A Pulumi program run offline: the sandboxed child process, the mocks, and what crosses the
process boundary (the declared clusters, as JSON). Imports pulumi: commands import it lazily."""
