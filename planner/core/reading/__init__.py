"""Reading user files: bounded and regular, YAML with the line of every value, mapping trees
against field tables, and the one-line problems all of them report."""
