"""Text at the bottom of the core: made safe to print (`safe`), laid out for a terminal (`terminal`),
numbers and money in one style (`numbers`)."""
