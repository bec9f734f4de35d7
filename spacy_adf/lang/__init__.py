"""Language-specific rules (tag sets, chunk conventions) that readers,
features and components share; nothing here reads files or runs a pipeline."""
