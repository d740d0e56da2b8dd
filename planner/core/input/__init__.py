"""Stack files and Pulumi projects in, the model out; the stack's JSON Schema; where a key path is."""
