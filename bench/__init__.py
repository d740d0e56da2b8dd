"""`make bench` (`python -m bench`): how fast planner is at the sizes platform teams run it.

A policy check runs on every pull request, over every stack a team keeps; these
measurements show start-up against the interpreter floor, growth with the number of
stacks and with the size of one stack, and what the Pulumi program registers under mocks.
"""
