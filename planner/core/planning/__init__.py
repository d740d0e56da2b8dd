"""One stack through the summary, the rules and the cost (the planning every entry point shares),
and the output document built from the plans."""
