"""Entry point of the component package (PulumiPlugin.yaml `main: planner/provider`)."""

from planner.provider import serve

if __name__ == "__main__":
    serve()
